//! How a stateful layer (look-at's filter, foot lock, the springs) moves between two evaluations: one type for
//! every such layer, in place of an optional time step whose absence meant something else to each.

/// How a stateful layer moves between two evaluations.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Step {
    /// No time passes: an evaluation again where it is (after an edit).
    Hold,
    /// `dt` seconds pass (not finite or below 0 counts as 0).
    Advance(f32),
    /// Start over from this pose: look-at snaps to its target, foot lock plants afresh, the springs rest where
    /// the pose puts them.
    Reset,
}

impl Step {
    /// The seconds that pass: `dt` for an advance (0 when not finite or below 0), 0 otherwise.
    pub fn seconds(self) -> f32 {
        match self {
            Step::Advance(dt) if dt.is_finite() => dt.max(0.0),
            _ => 0.0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Step;

    #[test]
    fn only_an_advance_lets_time_pass_and_never_backwards() {
        assert_eq!(Step::Advance(0.25).seconds(), 0.25);
        assert_eq!(Step::Advance(-1.0).seconds(), 0.0);
        assert_eq!(Step::Advance(f32::NAN).seconds(), 0.0);
        assert_eq!(Step::Hold.seconds(), 0.0);
        assert_eq!(Step::Reset.seconds(), 0.0);
    }
}
