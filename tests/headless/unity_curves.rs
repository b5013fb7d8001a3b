//! `.anim` curves read from Unity's YAML evaluate as Unity's AnimationCurve does. The oracle below is written
//! here from Unity's documented key model, not from the library: each segment is a cubic Bézier in (time, value)
//! whose inner control points sit a weight of the span along the keys' tangents (1/3 when a side is not
//! weighted, which is the Hermite); an infinite slope holds the left key; outside the keys the curve clamps,
//! loops or ping-pongs. The Bézier's time is inverted by bisection.

use std::path::Path;

use animtune::import::unity::{anim, yaml};

/// One key as the oracle reads it: time, value, in and out slope, in and out weight, weighted in, weighted out.
type OracleKey = (f64, f64, f64, f64, f64, f64, bool, bool);

fn bezier(p: [f64; 4], s: f64) -> f64 {
    // de Casteljau.
    let l1 = [
        p[0] + (p[1] - p[0]) * s,
        p[1] + (p[2] - p[1]) * s,
        p[2] + (p[3] - p[2]) * s,
    ];
    let l2 = [l1[0] + (l1[1] - l1[0]) * s, l1[1] + (l1[2] - l1[1]) * s];
    l2[0] + (l2[1] - l2[0]) * s
}

fn oracle_segment(a: OracleKey, b: OracleKey, t: f64) -> f64 {
    let (t0, v0, _, out0, _, wout0, _, weighted_out0) = a;
    let (t1, v1, in1, _, win1, _, weighted_in1, _) = b;
    if out0.is_infinite() || in1.is_infinite() {
        return v0;
    }
    let span = t1 - t0;
    let w0 = if weighted_out0 { wout0 } else { 1.0 / 3.0 };
    let w1 = if weighted_in1 { win1 } else { 1.0 / 3.0 };
    let xs = [t0, t0 + w0 * span, t1 - w1 * span, t1];
    let ys = [v0, v0 + w0 * span * out0, v1 - w1 * span * in1, v1];
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if bezier(xs, mid) < t {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    bezier(ys, 0.5 * (lo + hi))
}

/// `mode`: 0 ping-pong, 1 loop, 2 clamp (Unity's serialized m_PreInfinity / m_PostInfinity).
fn oracle(keys: &[OracleKey], pre: i64, post: i64, t: f64) -> f64 {
    let (first, last) = (keys[0].0, keys[keys.len() - 1].0);
    let span = last - first;
    let inside = |mode: i64, t: f64| match mode {
        0 => {
            let p = (t - first).rem_euclid(2.0 * span);
            first + if p > span { 2.0 * span - p } else { p }
        }
        1 => first + (t - first).rem_euclid(span),
        _ => t.clamp(first, last),
    };
    let t = if t < first {
        inside(pre, t)
    } else if t > last {
        inside(post, t)
    } else {
        t
    };
    let i = keys
        .iter()
        .rposition(|k| k.0 <= t)
        .unwrap()
        .min(keys.len() - 2);
    oracle_segment(keys[i], keys[i + 1], t)
}

fn number(v: f64) -> String {
    if v == f64::INFINITY {
        "Infinity".into()
    } else {
        format!("{v}")
    }
}

/// A float curve in Unity's YAML with these keys and wrap modes.
fn float_curve(attribute: &str, keys: &[OracleKey], pre: i64, post: i64) -> String {
    let mut text = String::from("  - curve:\n      serializedVersion: 2\n      m_Curve:\n");
    for &(t, v, i, o, wi, wo, a, b) in keys {
        let mode = u8::from(a) | (u8::from(b) << 1);
        text.push_str(&format!(
            "      - serializedVersion: 3\n        time: {t}\n        value: {v}\n        inSlope: {}\n        outSlope: {}\n        tangentMode: 0\n        weightedMode: {mode}\n        inWeight: {wi}\n        outWeight: {wo}\n",
            number(i),
            number(o)
        ));
    }
    text.push_str(&format!(
        "      m_PreInfinity: {pre}\n      m_PostInfinity: {post}\n      m_RotationOrder: 4\n    attribute: {attribute}\n    path: Body\n    classID: 137\n    script: {{fileID: 0}}\n"
    ));
    text
}

#[test]
fn anim_curves_match_unitys_key_model_on_every_kind_of_segment() {
    let third = 1.0 / 3.0;
    let cases: Vec<(&str, Vec<OracleKey>, i64, i64)> = vec![
        (
            "hermite",
            vec![
                (0.0, 0.0, 0.0, 2.0, third, third, false, false),
                (0.4, 1.0, -1.5, 0.5, third, third, false, false),
                (1.0, -0.5, 3.0, 0.0, third, third, false, false),
            ],
            2,
            2,
        ),
        (
            "weighted",
            vec![
                (0.0, 0.0, 0.0, 4.0, third, 0.8, false, true),
                (0.5, 1.0, -2.0, 1.0, 0.1, 0.6, true, true),
                (1.25, 0.25, 0.0, 0.0, 0.9, third, true, false),
            ],
            2,
            1,
        ),
        (
            "stepped",
            vec![
                (0.0, 3.0, 0.0, f64::INFINITY, third, third, false, false),
                (0.5, 7.0, f64::INFINITY, 0.0, third, third, false, false),
                (1.0, 2.0, 1.0, 1.0, third, third, false, false),
            ],
            1,
            0,
        ),
        (
            "pingpong",
            vec![
                (0.2, 0.0, 1.0, 1.0, third, third, false, false),
                (0.8, 1.0, 1.0, 1.0, third, third, false, false),
            ],
            0,
            0,
        ),
    ];
    let mut text = String::from(
        "%YAML 1.1\n%TAG !u! tag:unity3d.com,2011:\n--- !u!74 &7400000\nAnimationClip:\n  m_Name: Curves\n  serializedVersion: 7\n  m_FloatCurves:\n",
    );
    for (name, keys, pre, post) in &cases {
        text.push_str(&float_curve(
            &format!("blendShape.{name}"),
            keys,
            *pre,
            *post,
        ));
    }
    text.push_str("  m_SampleRate: 60\n");
    let file = yaml::parse(&text, Path::new("curves.anim")).unwrap();
    let clip = &anim::clips(&file, Path::new("curves.anim")).unwrap()[0];
    assert_eq!(clip.floats.len(), cases.len());
    for ((name, keys, pre, post), curve) in cases.iter().zip(&clip.floats) {
        assert_eq!(curve.attribute, format!("blendShape.{name}"));
        let mut worst = 0.0f64;
        for i in 0..=1200 {
            let t = -1.0 + 3.5 * f64::from(i) / 1200.0;
            let want = oracle(keys, *pre, *post, t);
            let got = curve.curve.evaluate(t);
            worst = worst.max((got - want).abs());
        }
        assert!(worst < 1e-5, "{name}: {worst} from Unity's key model");
    }
}
