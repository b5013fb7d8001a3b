//! What a command's flags turn on over a preset's layers, whether the simulated layers (foot lock, the springs)
//! can run on a rig, and how a run steps them: decided once, for `pose`, `bake`, the stream bake and the editor's
//! export (through the bake request).

use glam::Vec3;

use super::look_at::LookSolver;
use super::{FootLockRig, LayerParams, LayerRig, SpringRig};
use crate::core::Character;

/// What the command line adds to a preset's layers.
#[derive(Clone, Copy, Debug, Default)]
pub struct LayerFlags {
    /// `--look-at X,Y,Z`: look-at on, at that point (model space).
    pub look_at: Option<Vec3>,
    /// `--look-solver`: which look-at solver.
    pub look_solver: Option<LookSolver>,
    /// `--springs`: the spring bones on (off without it: a bake is the clip and the layers, the springs' motion
    /// on top only when asked for).
    pub springs: bool,
    /// `--foot-lock`: foot lock on.
    pub foot_lock: bool,
    /// `--preroll S`: seconds the springs settle before the first frame.
    pub preroll_s: Option<f32>,
}

/// The most seconds of preroll a run takes.
pub const MAX_PREROLL_S: f32 = 600.0;

impl LayerFlags {
    /// `layers` with the flags applied, checked against `character` (`file` names it in the errors): foot lock
    /// asked for on a character it cannot run on, springs asked for on one with none, a preroll out of range and
    /// a look-at solver chosen while look-at stays off are errors.
    pub fn apply(
        &self,
        mut layers: LayerParams,
        character: &Character,
        file: &str,
    ) -> Result<LayerParams, String> {
        if let Some(solver) = self.look_solver {
            layers.look_at.solver = solver;
        }
        layers.springs.enabled = self.springs;
        if self.foot_lock {
            layers.foot_lock.enabled = true;
            if let Some(problem) = FootLockRig::bind(character).problem {
                return Err(format!("{file}: --foot-lock: {problem}"));
            }
        }
        if let Some(p) = self.preroll_s {
            if !(p.is_finite() && (0.0..=MAX_PREROLL_S).contains(&p)) {
                return Err(format!("--preroll {p}: expected 0 to 600 seconds"));
            }
            layers.springs.preroll_s = p;
        }
        if self.springs {
            let rig = SpringRig::bind(&layers.springs, character);
            if rig.is_empty() {
                let problems = if rig.problems.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", rig.problems.join("; "))
                };
                return Err(format!(
                    "{file}: --springs: the model has no spring bones (VRM springBone or secondaryAnimation) and \
                     the preset adds no chain it can bind{problems}"
                ));
            }
        }
        if let Some(point) = self.look_at {
            layers.look_at.enabled = true;
            layers.look_at.target = point.to_array();
        }
        if self.look_solver.is_some() && !layers.look_at.enabled {
            return Err(
                "--look-solver: look-at is off, so no solver runs (turn it on with --look-at X,Y,Z or in the \
                 preset's layers)"
                    .into(),
            );
        }
        Ok(layers)
    }
}

/// How a run on a frame grid steps the simulated layers: from a reset at the first pose, `preroll_steps` updates
/// of `dt` with that pose held (the springs settle), then one update of `dt` per frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimulationRun {
    /// Seconds per update: one frame of the grid.
    pub dt: f32,
    /// Updates before the first frame.
    pub preroll_steps: usize,
}

impl SimulationRun {
    /// The run of `layers` bound as `rig` on a grid of `fps`, when a simulated layer runs there: the springs when
    /// on and the rig has some, foot lock when on and the rig allows it. None when neither does.
    pub fn on_grid(layers: &LayerParams, rig: &LayerRig, fps: f32) -> Option<Self> {
        let springs = layers.springs.enabled && !rig.springs.is_empty();
        let foot_lock = layers.foot_lock.enabled && rig.foot_lock.problem.is_none();
        (springs || foot_lock).then(|| SimulationRun {
            dt: 1.0 / fps,
            preroll_steps: (f64::from(layers.springs.preroll_s) * f64::from(fps)).round() as usize,
        })
    }
}

/// Why `layers` cannot run as asked on `character`, if so: foot lock on where it cannot run (only foot lock's legs
/// are bound to find out). Springs on a rig without any are not an error: on by default, they run where a model
/// has them.
pub fn rig_problem(layers: &LayerParams, character: &Character) -> Option<String> {
    if !layers.foot_lock.enabled {
        return None;
    }
    let problem = FootLockRig::bind(character).problem?;
    Some(format!("foot lock is on, but {problem}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_turn_layers_on_and_refuse_what_the_rig_cannot_run() {
        let mannequin = crate::demo::mannequin::load().character;
        let flags = LayerFlags {
            look_at: Some(Vec3::new(0.5, 1.6, 1.0)),
            foot_lock: true,
            preroll_s: Some(2.0),
            ..Default::default()
        };
        let layers = flags.apply(LayerParams::off(), &mannequin, "m").unwrap();
        assert!(layers.look_at.enabled && layers.foot_lock.enabled && !layers.springs.enabled);
        assert_eq!(layers.look_at.target, [0.5, 1.6, 1.0]);
        assert_eq!(layers.springs.preroll_s, 2.0);
        let springs = LayerFlags {
            springs: true,
            ..Default::default()
        };
        let e = springs
            .apply(LayerParams::off(), &mannequin, "m")
            .unwrap_err();
        assert!(
            e.starts_with("m: --springs: the model has no spring bones"),
            "{e}"
        );
        let preroll = LayerFlags {
            preroll_s: Some(-1.0),
            ..Default::default()
        };
        assert!(preroll.apply(LayerParams::off(), &mannequin, "m").is_err());
        let solver = LayerFlags {
            look_solver: Some(LookSolver::UnityOriginal),
            ..Default::default()
        };
        let e = solver
            .apply(LayerParams::off(), &mannequin, "m")
            .unwrap_err();
        assert!(e.starts_with("--look-solver: look-at is off"), "{e}");
    }

    #[test]
    fn a_grid_run_steps_only_what_runs_on_the_rig() {
        let mannequin = crate::demo::mannequin::load().character;
        let mut layers = LayerParams::off();
        let rig = LayerRig::bind(&layers, &mannequin);
        assert_eq!(SimulationRun::on_grid(&layers, &rig, 30.0), None);
        layers.springs.enabled = true;
        assert_eq!(
            SimulationRun::on_grid(&layers, &rig, 30.0),
            None,
            "the mannequin has no springs"
        );
        layers.foot_lock.enabled = true;
        layers.springs.preroll_s = 0.5;
        let run = SimulationRun::on_grid(&layers, &rig, 30.0).unwrap();
        assert_eq!((run.dt, run.preroll_steps), (1.0 / 30.0, 15));
        assert_eq!(rig_problem(&layers, &mannequin), None);
    }
}
