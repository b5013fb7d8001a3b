//! Undo and redo of the tuning. A step is the tuning as it was before one interaction (a drag, typing in a
//! field, a click): it is copied once when the interaction's first edit arrives, never per frame.

use std::collections::VecDeque;

use super::document::Tuning;

/// Undo steps kept.
pub const UNDO_LIMIT: usize = 200;

/// The undo and redo stacks, and whether an interaction is still adding to the newest step.
#[derive(Debug, Default)]
pub struct History {
    undo: VecDeque<Tuning>,
    redo: Vec<Tuning>,
    open: bool,
}

impl History {
    /// Call before applying a tuning edit, with the tuning as it is: the first edit of an interaction records it
    /// as a step, later ones join that step.
    pub fn before_edit(&mut self, now: &Tuning) {
        if !self.open {
            self.undo.push_back(now.clone());
            if self.undo.len() > UNDO_LIMIT {
                self.undo.pop_front();
            }
            self.open = true;
        }
    }

    /// Ends the interaction in progress: its step stays when it changed more than the sample point.
    pub fn close(&mut self, now: &Tuning) {
        if !std::mem::take(&mut self.open) {
            return;
        }
        if self
            .undo
            .back()
            .is_some_and(|before| now.differs_from(before))
        {
            self.redo.clear();
        } else {
            self.undo.pop_back();
        }
    }

    /// Records one discrete edit (opening a preset) as its own step.
    pub fn record(&mut self, before: &Tuning, after: &Tuning) {
        self.close(before);
        self.before_edit(before);
        self.close(after);
    }

    /// True when there is an edit to undo.
    pub fn can_undo(&self) -> bool {
        !self.undo.is_empty()
    }

    /// True when there is an undone edit to redo.
    pub fn can_redo(&self) -> bool {
        !self.redo.is_empty()
    }

    /// Swaps `current` with the step before it; false when there is none. The sample point stays where it is:
    /// moving it is never a step, so no step puts it back.
    pub fn undo(&mut self, current: &mut Tuning) -> bool {
        self.close(current);
        match self.undo.pop_back() {
            Some(prev) => {
                let done = swap_keeping_point(current, prev);
                self.redo.push(done);
                true
            }
            None => false,
        }
    }

    /// Swaps `current` with the last undone step; false when there is none. The sample point stays.
    pub fn redo(&mut self, current: &mut Tuning) -> bool {
        self.close(current);
        match self.redo.pop() {
            Some(next) => {
                let undone = swap_keeping_point(current, next);
                self.undo.push_back(undone);
                true
            }
            None => false,
        }
    }
}

/// Puts `step` in `current`'s place with `current`'s sample point (clamped to the step's axes); returns what
/// `current` was.
fn swap_keeping_point(current: &mut Tuning, step: Tuning) -> Tuning {
    let point = current.blend.point;
    let was = std::mem::replace(current, step);
    current.blend.set_point(point);
    was
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layers::LayerParams;

    fn tuning(rate: f32) -> Tuning {
        let mut layers = LayerParams::default();
        layers.breath.effect_rate = rate;
        Tuning {
            clip_splits: Vec::new(),
            blend: crate::demo::locomotion::default_blend_space(),
            layers,
            humanoid: Default::default(),
            hips_placement: Default::default(),
            ik_goals: Default::default(),
            root_joint: false,
            clip_settings: Default::default(),
            state_machine: None,
        }
    }

    #[test]
    fn an_interaction_is_one_step_and_a_round_trip_is_none() {
        let mut h = History::default();
        let mut now = tuning(1.0);
        for rate in [1.1, 1.2, 1.3] {
            h.before_edit(&now);
            now = tuning(rate);
        }
        h.close(&now);
        assert!(h.can_undo());
        assert!(h.undo(&mut now));
        assert_eq!(now, tuning(1.0));
        assert!(!h.can_undo() && h.can_redo());
        assert!(h.redo(&mut now));
        assert_eq!(now, tuning(1.3));
        // A drag that ends where it began leaves no step, and keeps the redo stack.
        h.undo(&mut now);
        h.before_edit(&now);
        h.close(&now);
        assert!(!h.can_undo() && h.can_redo());
        // Moving the sample point alone is not a step.
        h.before_edit(&now);
        now.blend.point = [0.5, 0.5];
        h.close(&now);
        assert!(!h.can_undo());
    }

    /// An edit made while the point sat somewhere, then a drag of the point: undoing the edit leaves the point
    /// where the drag left it (not where it was when the edit began, a value the user no longer sees).
    #[test]
    fn undo_and_redo_leave_the_sample_point_where_it_is() {
        let mut h = History::default();
        let mut now = tuning(1.0);
        now.blend.point = [0.1, 0.2];
        h.before_edit(&now);
        now.layers.breath.effect_rate = 2.0;
        h.close(&now);
        h.before_edit(&now);
        now.blend.point = [0.7, 0.9];
        h.close(&now);
        assert!(h.undo(&mut now));
        assert_eq!(now.layers.breath.effect_rate, 1.0);
        assert_eq!(now.blend.point, [0.7, 0.9]);
        now.blend.point = [0.3, 0.4];
        assert!(h.redo(&mut now));
        assert_eq!(now.layers.breath.effect_rate, 2.0);
        assert_eq!(now.blend.point, [0.3, 0.4]);
    }

    #[test]
    fn the_history_is_bounded() {
        let mut h = History::default();
        let mut now = tuning(0.0);
        for i in 0..UNDO_LIMIT + 20 {
            h.before_edit(&now);
            now = tuning(i as f32 + 1.0);
            h.close(&now);
        }
        let mut steps = 0;
        while h.undo(&mut now) {
            steps += 1;
        }
        assert_eq!(steps, UNDO_LIMIT);
        assert_eq!(now, tuning(20.0));
    }
}
