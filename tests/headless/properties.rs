//! Property tests: sampling, naming and URI resolution over arbitrary inputs.

use animtune::core::clip::{Interpolation, Keys, slerp_shortest};
use animtune::core::naming;
use animtune::import::uri;
use glam::{Quat, Vec3};
use proptest::prelude::*;

fn quat() -> impl Strategy<Value = Quat> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
        .prop_filter("non-zero", |(x, y, z, w)| {
            x * x + y * y + z * z + w * w > 0.01
        })
        .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w).normalize())
}

proptest! {
    #[test]
    fn slerp_stays_unit_and_hits_its_ends(a in quat(), b in quat(), t in 0.0f32..1.0) {
        let q = slerp_shortest(a, b, t);
        prop_assert!((q.length() - 1.0).abs() < 1e-4);
        prop_assert!(slerp_shortest(a, b, 0.0).dot(a).abs() > 1.0 - 1e-5);
        prop_assert!(slerp_shortest(a, b, 1.0).dot(b).abs() > 1.0 - 1e-5);
        // Shortest path: the angle from a never exceeds the angle between a and b.
        prop_assert!(q.dot(a).abs() >= a.dot(b).abs() - 1e-4);
    }

    #[test]
    fn linear_sampling_passes_through_keys_and_stays_between_them(
        values in proptest::collection::vec(-100.0f32..100.0, 2..12),
        u in 0.0f32..1.0,
    ) {
        let times: Vec<f32> = (0..values.len()).map(|i| i as f32 * 0.5).collect();
        let vals: Vec<Vec3> = values.iter().map(|&v| Vec3::splat(v)).collect();
        let keys = Keys::new(times.clone(), vals.clone(), Interpolation::Linear).unwrap();
        for (t, v) in times.iter().zip(&vals) {
            prop_assert!(keys.sample(*t).abs_diff_eq(*v, 1e-4));
        }
        let k = ((values.len() - 1) as f32 * u) as usize;
        let k = k.min(values.len() - 2);
        let s = keys.sample(times[k] + 0.5 * u).x;
        let (lo, hi) = (values[k].min(values[k + 1]), values[k].max(values[k + 1]));
        prop_assert!(s >= lo - 1e-3 && s <= hi + 1e-3);
    }

    #[test]
    fn naming_never_panics(name in ".{0,40}") {
        let _ = naming::guess(&name);
        let _ = naming::words(&name);
    }

    #[test]
    fn resolved_uris_stay_inside_the_base(segments in proptest::collection::vec("[a-z.%2E/\\\\:]{1,6}", 1..5)) {
        let uri = segments.join("/");
        let base = std::path::Path::new("/models/x");
        if let Ok(p) = uri::resolve(base, &uri) {
            prop_assert!(p.starts_with(base));
            prop_assert!(!p.components().any(|c| c == std::path::Component::ParentDir));
        }
    }
}
