//! A track's rest data in an `.animclip` of version 3: what retargeting needs of the source joint, in 20 to 27
//! bytes for most tracks instead of 60. A flags byte, the local rest translation (3 × f32), the local rest
//! rotation and the parent's model-space rest rotation (each [`QUAT_BYTES`]: smallest three, 16 bits each; the
//! parent's is left out when the previous track is the parent, being its parent rotation times its rest rotation
//! within [`DERIVED_TOLERANCE`]), then the scale (3 × f32) when it is not 1, and for tracks that place their joint
//! (a translation channel) the model-space rest height, the parent's rest origin (3 × f32) and its uniform scale.

use glam::{Quat, Vec3};

use crate::core::Transform;

/// Bytes of one quaternion: which component is largest, then the other three in 16 bits each.
pub const QUAT_BYTES: usize = 7;
const HAS_SCALE: u8 = 1;
const HAS_PLACEMENT: u8 = 2;
const DERIVED_PARENT: u8 = 4;
/// How far (radians) a parent rotation derived from the previous track may be from the true one to be left out.
pub const DERIVED_TOLERANCE: f32 = 1e-4;

/// The rest data of one track, as read back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rest {
    /// Local rest transform.
    pub local: Transform,
    /// The parent's model-space rest rotation.
    pub parent_rotation: Quat,
    /// Model-space rest height, parent origin and parent scale (0, zero and 1 when not stored).
    pub height: f32,
    /// See `height`.
    pub parent_origin: Vec3,
    /// See `height`.
    pub parent_scale: f32,
}

/// The largest component's index, then the others as 16-bit fractions of ±1/√2 (the largest made positive).
fn quat_bytes(q: Quat) -> [u8; QUAT_BYTES] {
    let q = q.normalize();
    let c = q.to_array();
    let largest = (0..4)
        .max_by(|&a, &b| c[a].abs().total_cmp(&c[b].abs()))
        .unwrap_or(3);
    let sign = if c[largest] < 0.0 { -1.0 } else { 1.0 };
    let mut out = [0u8; QUAT_BYTES];
    out[0] = largest as u8;
    let bound = std::f32::consts::FRAC_1_SQRT_2;
    for (k, i) in (0..4).filter(|&i| i != largest).enumerate() {
        let u = ((c[i] * sign / bound).clamp(-1.0, 1.0) + 1.0) * 0.5;
        let v = (u * 65535.0).round() as u16;
        out[1 + 2 * k..3 + 2 * k].copy_from_slice(&v.to_le_bytes());
    }
    out
}

fn quat_from(bytes: &[u8]) -> Option<Quat> {
    let largest = usize::from(*bytes.first()?);
    if largest > 3 || bytes.len() != QUAT_BYTES {
        return None;
    }
    let bound = std::f32::consts::FRAC_1_SQRT_2;
    let mut c = [0.0f32; 4];
    for (k, i) in (0..4).filter(|&i| i != largest).enumerate() {
        let v = u16::from_le_bytes([bytes[1 + 2 * k], bytes[2 + 2 * k]]);
        c[i] = (f32::from(v) / 65535.0 * 2.0 - 1.0) * bound;
    }
    let rest: f32 = c.iter().map(|x| x * x).sum();
    c[largest] = (1.0 - rest).max(0.0).sqrt();
    Some(Quat::from_array(c).normalize())
}

fn push_floats(out: &mut Vec<u8>, values: &[f32]) {
    out.extend(values.iter().flat_map(|v| v.to_le_bytes()));
}

/// The bytes of a track's rest data; `placed` stores the height, parent origin and parent scale; `derived` is the
/// parent rotation a reader can derive from the previous track, when that track is the parent.
pub fn encode(rest: &Rest, placed: bool, derived: Option<Quat>) -> Vec<u8> {
    let has_scale = !Vec3::from(rest.local.scale).abs_diff_eq(Vec3::ONE, 1e-6);
    let derive = derived.is_some_and(|d| {
        super::packed_rotations::rotation_angle(d.normalize(), rest.parent_rotation.normalize())
            <= DERIVED_TOLERANCE
    });
    let mut out = Vec::with_capacity(60);
    out.push(
        (u8::from(has_scale) * HAS_SCALE)
            | (u8::from(placed) * HAS_PLACEMENT)
            | (u8::from(derive) * DERIVED_PARENT),
    );
    push_floats(&mut out, &Vec3::from(rest.local.translation).to_array());
    out.extend(quat_bytes(rest.local.rotation));
    if !derive {
        out.extend(quat_bytes(rest.parent_rotation));
    }
    if has_scale {
        push_floats(&mut out, &Vec3::from(rest.local.scale).to_array());
    }
    if placed {
        push_floats(&mut out, &[rest.height]);
        push_floats(&mut out, &rest.parent_origin.to_array());
        push_floats(&mut out, &[rest.parent_scale]);
    }
    out
}

/// Reads bytes in order (their total length checked beforehand).
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> &'a [u8] {
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        head
    }

    fn floats<const N: usize>(&mut self) -> Result<[f32; N], String> {
        let head = self.take(4 * N);
        let v: [f32; N] = std::array::from_fn(|i| {
            f32::from_le_bytes([
                head[4 * i],
                head[4 * i + 1],
                head[4 * i + 2],
                head[4 * i + 3],
            ])
        });
        if v.iter().all(|x| x.is_finite()) {
            Ok(v)
        } else {
            Err("rest data holds a value that is not a finite number".into())
        }
    }

    fn quat(&mut self) -> Result<Quat, String> {
        quat_from(self.take(QUAT_BYTES))
            .ok_or_else(|| "rest data has a rotation that cannot be read".into())
    }
}

/// The parent rotation of a track whose previous track, resting as `previous`, is its parent.
pub fn derived_parent(previous: &Rest) -> Quat {
    (previous.parent_rotation * previous.local.rotation).normalize()
}

/// Reads what [`encode`] wrote, `derived` being what [`derived_parent`] gives when the previous track is the
/// parent; an error says what does not fit.
pub fn decode(bytes: &[u8], derived: Option<Quat>) -> Result<Rest, String> {
    let Some((&flags, body)) = bytes.split_first() else {
        return Err("rest data is empty".into());
    };
    if flags & !(HAS_SCALE | HAS_PLACEMENT | DERIVED_PARENT) != 0 {
        return Err(format!("rest data has unknown flags {flags:#04x}"));
    }
    let derive = flags & DERIVED_PARENT != 0;
    if derive && derived.is_none() {
        return Err(
            "rest data takes its parent rotation from a previous track that is not its parent"
                .into(),
        );
    }
    let expected = 12
        + if derive { QUAT_BYTES } else { 2 * QUAT_BYTES }
        + if flags & HAS_SCALE != 0 { 12 } else { 0 }
        + if flags & HAS_PLACEMENT != 0 { 20 } else { 0 };
    if body.len() != expected {
        return Err(format!(
            "rest data has {} bytes, expected {} for its flags",
            bytes.len(),
            expected + 1
        ));
    }
    let mut at = Cursor(body);
    let translation = Vec3::from_array(at.floats::<3>()?);
    let rotation = at.quat()?;
    let parent_rotation = match derived.filter(|_| derive) {
        Some(d) => d,
        None => at.quat()?,
    };
    let scale = if flags & HAS_SCALE != 0 {
        Vec3::from_array(at.floats::<3>()?)
    } else {
        Vec3::ONE
    };
    let (height, parent_origin, parent_scale) = if flags & HAS_PLACEMENT != 0 {
        let [height, x, y, z, scale] = at.floats::<5>()?;
        if scale <= 0.0 {
            return Err("rest data has a parent scale that is not positive".into());
        }
        (height, Vec3::new(x, y, z), scale)
    } else {
        (0.0, Vec3::ZERO, 1.0)
    };
    Ok(Rest {
        local: Transform {
            translation: translation.into(),
            rotation,
            scale: scale.into(),
        },
        parent_rotation,
        height,
        parent_origin,
        parent_scale,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rest(rotation: Quat, scale: Vec3) -> Rest {
        Rest {
            local: Transform {
                translation: Vec3::new(0.1, -2.0, 30.0).into(),
                rotation,
                scale: scale.into(),
            },
            parent_rotation: Quat::from_rotation_y(2.9) * Quat::from_rotation_x(-0.4),
            height: 0.0,
            parent_origin: Vec3::ZERO,
            parent_scale: 1.0,
        }
    }

    #[test]
    fn rest_data_round_trips_within_a_hundred_thousandth_of_a_radian() {
        for q in [
            Quat::IDENTITY,
            Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
            Quat::from_xyzw(0.5, -0.5, 0.5, -0.5),
            Quat::from_rotation_z(3.1) * Quat::from_rotation_y(0.3),
        ] {
            let r = rest(q, Vec3::ONE);
            let bytes = encode(&r, false, None);
            assert_eq!(bytes.len(), 1 + 12 + 2 * QUAT_BYTES);
            let back = decode(&bytes, None).unwrap();
            assert!(back.local.rotation.angle_between(q) < 1e-4, "{q}");
            assert!(back.parent_rotation.angle_between(r.parent_rotation) < 1e-4);
            assert_eq!(back.local.translation, r.local.translation);
            assert_eq!(Vec3::from(back.local.scale), Vec3::ONE);
        }
        let mut placed = rest(Quat::IDENTITY, Vec3::new(1.0, 2.0, 0.5));
        placed.height = 0.93;
        placed.parent_origin = Vec3::new(0.0, 0.1, -0.2);
        placed.parent_scale = 0.01;
        let back = decode(&encode(&placed, true, None), None).unwrap();
        assert_eq!(
            (
                back.height,
                back.parent_origin,
                back.parent_scale,
                Vec3::from(back.local.scale)
            ),
            (0.93, placed.parent_origin, 0.01, Vec3::new(1.0, 2.0, 0.5))
        );
    }

    #[test]
    fn a_parent_rotation_the_previous_track_gives_is_left_out() {
        let parent = rest(Quat::from_rotation_z(0.7), Vec3::ONE);
        let mut child = rest(Quat::from_rotation_x(0.2), Vec3::ONE);
        child.parent_rotation = parent.parent_rotation * parent.local.rotation;
        let derived = derived_parent(&parent);
        let bytes = encode(&child, false, Some(derived));
        assert_eq!(bytes.len(), 1 + 12 + QUAT_BYTES);
        let back = decode(&bytes, Some(derived)).unwrap();
        assert!(back.parent_rotation.angle_between(child.parent_rotation) < 1e-4);
        // Without a parent before it, such data cannot be read.
        assert!(decode(&bytes, None).is_err());
        // A rotation the previous track does not give is kept.
        let other = Quat::from_rotation_y(1.0);
        assert_eq!(
            encode(&child, false, Some(other)).len(),
            1 + 12 + 2 * QUAT_BYTES
        );
    }

    #[test]
    fn broken_rest_data_is_refused() {
        let bytes = encode(&rest(Quat::IDENTITY, Vec3::ONE), false, None);
        assert!(decode(&bytes[..bytes.len() - 1], None).is_err());
        assert!(decode(&[], None).is_err());
        let mut flags = bytes.clone();
        flags[0] = 0x80;
        assert!(decode(&flags, None).is_err());
        let mut largest = bytes;
        largest[13] = 9;
        assert!(decode(&largest, None).is_err());
    }
}
