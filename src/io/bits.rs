//! Values of a few bits each packed into bytes, least significant bit first: what the packed rotations of an
//! `.animclip` and the runtime's packed key streams are made of.

/// Writes values of up to 32 bits each.
#[derive(Debug, Default)]
pub struct BitWriter {
    bytes: Vec<u8>,
    acc: u64,
    filled: u32,
}

impl BitWriter {
    /// Appends the low `bits` bits of `value` (at most 32).
    pub fn push(&mut self, value: u32, bits: u32) {
        debug_assert!(bits <= 32);
        let value = if bits == 32 {
            u64::from(value)
        } else {
            u64::from(value) & ((1u64 << bits) - 1)
        };
        self.acc |= value << self.filled;
        self.filled += bits;
        while self.filled >= 8 {
            self.bytes.push(self.acc as u8);
            self.acc >>= 8;
            self.filled -= 8;
        }
    }

    /// Bits written so far.
    pub fn len_bits(&self) -> usize {
        self.bytes.len() * 8 + self.filled as usize
    }

    /// The bytes, the last one padded with zero bits.
    pub fn finish(mut self) -> Vec<u8> {
        if self.filled > 0 {
            self.bytes.push(self.acc as u8);
        }
        self.bytes
    }
}

/// Reads what [`BitWriter`] wrote. Reading past the end gives zero bits (callers check lengths beforehand).
#[derive(Clone, Copy, Debug)]
pub struct BitReader<'a> {
    data: &'a [u8],
    /// The next bit to read.
    pub at: usize,
}

impl<'a> BitReader<'a> {
    /// A reader at bit `at` of `data`.
    pub fn new(data: &'a [u8], at: usize) -> Self {
        BitReader { data, at }
    }

    /// The next 57 bits or more, unread (the low bit first): values whose widths add up to at most 57 can be
    /// taken from one load.
    #[inline(always)]
    pub fn peek(&self) -> u64 {
        let byte = self.at / 8;
        let word = match self.data.get(byte..byte + 8) {
            Some(w) => u64::from_le_bytes(w.try_into().unwrap_or([0; 8])),
            None => {
                let mut w = [0u8; 8];
                let tail = self.data.get(byte..).unwrap_or(&[]);
                w[..tail.len()].copy_from_slice(tail);
                u64::from_le_bytes(w)
            }
        };
        word >> (self.at % 8)
    }

    /// Moves past `bits` bits.
    #[inline(always)]
    pub fn skip(&mut self, bits: u32) {
        self.at += bits as usize;
    }

    /// The next `bits` bits (at most 32).
    #[inline(always)]
    pub fn take(&mut self, bits: u32) -> u32 {
        debug_assert!(bits <= 32);
        let value = (self.peek() & ((1u64 << bits) - 1)) as u32;
        self.skip(bits);
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn what_is_written_reads_back(values in proptest::collection::vec((any::<u32>(), 0u32..=32), 0..200)) {
            let mut w = BitWriter::default();
            for &(v, b) in &values {
                w.push(v, b);
            }
            let total = w.len_bits();
            let bytes = w.finish();
            prop_assert_eq!(bytes.len(), total.div_ceil(8));
            let mut r = BitReader::new(&bytes, 0);
            for &(v, b) in &values {
                let mask = if b == 32 { u32::MAX } else { (1u32 << b) - 1 };
                prop_assert_eq!(r.take(b), v & mask);
            }
        }
    }
}
