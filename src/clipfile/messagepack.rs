//! MessagePack decoding shared by the two clip layouts.

/// Decodes one MessagePack value that must span all of `bytes`: trailing bytes (a second value, garbage, a file
/// cut and pasted twice) are an error, not silently ignored.
pub(crate) fn decode_whole<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    let mut rest = bytes;
    let value =
        T::deserialize(&mut rmp_serde::Deserializer::new(&mut rest)).map_err(|e| e.to_string())?;
    if !rest.is_empty() {
        return Err(format!(
            "{} trailing bytes after the data (byte {} of {})",
            rest.len(),
            bytes.len() - rest.len(),
            bytes.len()
        ));
    }
    Ok(value)
}
