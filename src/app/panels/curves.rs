//! The curves view, in the timeline area: the selected joint's local channels over the clip or the blend cycle,
//! the source (dashed) and the final pose after the layers (solid), optionally every layer's stage between
//! them, with the source's keys marked and the playhead. Drawn with egui_plot: it gives zoom and pan on both axes
//! (wheel, Ctrl+wheel, drag), box zoom and hover read-outs that a painter of our own would have to rebuild.
//!
//! The curves are computed by [`crate::eval::curves`] when what they depend on changes (the model and clips,
//! the tuning, what plays, the joint, the look-at target, root motion), not every frame.

use egui::Color32;
use egui_plot::{Legend, Line, LineStyle, MarkerShape, Plot, PlotPoints, Points, VLine};

use crate::app::command::{Command, Commands, Transport};
use crate::app::editor::EditorState;
use crate::app::state::document::Tuning;
use crate::blend::RootMotion;
use crate::eval::curves::{Channel, JointCurves, Stage, channel_values, curve_times, joint_curves};

/// Tallest the plot gets; it takes 28 % of the window's height, at least 80 points.
const PLOT_HEIGHT: f32 = 200.0;
/// The plot shows its legend from this height (points).
const LEGEND_MIN_HEIGHT: f32 = 150.0;
/// Most key markers drawn per component.
const MAX_KEY_MARKERS: usize = 2000;

/// What the curves were computed from: any change recomputes them.
#[derive(Clone, Debug, PartialEq)]
struct CurvesKey {
    generation: u64,
    tuning: Tuning,
    clip: Option<usize>,
    blending: bool,
    joint: usize,
    look_target: [f32; 3],
    root_motion: RootMotion,
    frame_rate: f32,
}

/// The curves view's state.
#[derive(Default)]
pub struct CurvesPanel {
    /// The channel shown.
    pub channel: Channel,
    /// Show each layer's stage between the source and the final pose.
    pub each_layer: bool,
    cache: Option<(CurvesKey, JointCurves)>,
    /// Times the curves were computed (for tests: they must not be recomputed every frame).
    pub computations: u64,
    frame_all: bool,
}

/// Colour of component `c` (x red, y green, z blue, w grey), dimmer for the source.
fn component_color(c: usize, source: bool) -> Color32 {
    let color = [
        Color32::from_rgb(235, 90, 80),
        Color32::from_rgb(110, 200, 90),
        Color32::from_rgb(90, 150, 240),
        Color32::from_gray(200),
    ][c.min(3)];
    if source {
        color.gamma_multiply(0.75)
    } else {
        color
    }
}

impl CurvesPanel {
    /// The curves last shown (None when no joint is selected or nothing plays).
    pub fn curves(&self) -> Option<&JointCurves> {
        self.cache.as_ref().map(|(_, c)| c)
    }

    /// Recomputes the curves if what they depend on changed.
    fn update(&mut self, e: &EditorState) {
        let Some(joint) = e.session().selected else {
            self.cache = None;
            return;
        };
        let key = CurvesKey {
            generation: e.doc().generation,
            tuning: e.tuning().clone(),
            clip: e.clip(),
            blending: e.blending(),
            joint,
            look_target: e.look_target().to_array(),
            root_motion: e.eval().clip_root_motion(),
            frame_rate: e.session().frame_rate,
        };
        if self.cache.as_ref().is_some_and(|(k, _)| *k == key) {
            return;
        }
        let times = curve_times(e.eval().duration(), e.session().frame_rate);
        let curves = joint_curves(
            e.eval(),
            &e.doc().model.character,
            &e.doc().clips,
            Some(e.look_target()),
            joint,
            &times,
        );
        self.computations += 1;
        self.frame_all = true;
        self.cache = Some((key, curves));
    }

    /// Draws the view: the channel and stage choices, then the plot.
    pub fn ui(&mut self, ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
        self.update(e);
        // One row (it scrolls sideways in a narrow window), so that the timeline keeps its height.
        egui::ScrollArea::horizontal().id_salt("curve_options").show(ui, |ui| ui.horizontal(|ui| {
            for channel in Channel::ALL {
                ui.selectable_value(&mut self.channel, channel, channel.name())
                    .on_hover_text("Which channel of the joint's local transform to plot");
            }
            ui.separator();
            ui.checkbox(&mut self.each_layer, "Each layer").on_hover_text(
                "Also plot the pose after each layer (breath, look-at, twist) between the source (dashed) and \
                 the final pose (solid)",
            );
            if ui
                .button("Frame all")
                .on_hover_text("Fit the view to the curves (or double-click the plot)")
                .clicked()
            {
                self.frame_all = true;
            }
        }));
        let Some((_, curves)) = &self.cache else {
            ui.label(
                "Select a joint (click it in the viewport or the skeleton list) to see its curves: the source \
                 dashed, the final pose after the layers solid.",
            );
            return;
        };
        if curves.stages.is_empty() {
            return;
        }
        let height = (ui.ctx().content_rect().height() * 0.28).clamp(80.0, PLOT_HEIGHT);
        let channel = self.channel;
        let last = curves.stages.len() - 1;
        let shown: Vec<usize> = (0..curves.stages.len())
            .filter(|&s| s == 0 || s == last || self.each_layer)
            .collect();
        let keys = e.key_times(Some(curves.joint), MAX_KEY_MARKERS);
        let names = channel.components();
        let time = f64::from(e.eval().time());
        let frame_all = std::mem::take(&mut self.frame_all);
        let mut plot = Plot::new("curves").height(height);
        // The legend (which also hides and shows curves) where there is room for it.
        if height >= LEGEND_MIN_HEIGHT {
            plot = plot.legend(Legend::default());
        }
        let response = plot
            .x_axis_label("time (s)")
            .y_axis_label(channel.name())
            .show(ui, |plot| {
                if frame_all {
                    plot.set_auto_bounds(true);
                }
                for &s in &shown {
                    let stage = &curves.stages[s];
                    let values = channel_values(&stage.local, channel);
                    let source = stage.stage == Stage::Source;
                    let label = if s == last && !source {
                        "final"
                    } else {
                        stage.stage.name()
                    };
                    for (c, v) in values.iter().enumerate() {
                        let points: Vec<[f64; 2]> = curves
                            .times
                            .iter()
                            .zip(v)
                            .map(|(&t, &y)| [f64::from(t), y])
                            .collect();
                        let style = match (source, s == last) {
                            (true, _) => LineStyle::dashed_dense(),
                            (false, true) => LineStyle::Solid,
                            (false, false) => LineStyle::dotted_dense(),
                        };
                        plot.line(
                            Line::new(format!("{} {label}", names[c]), PlotPoints::from(points))
                                .color(component_color(c, source))
                                .style(style)
                                .width(if s == last { 1.8 } else { 1.2 }),
                        );
                        if source && !keys.is_empty() {
                            let markers: Vec<[f64; 2]> = keys
                                .iter()
                                .map(|&k| [f64::from(k), interpolate(&curves.times, v, k)])
                                .collect();
                            plot.points(
                                Points::new("keys", markers)
                                    .shape(MarkerShape::Diamond)
                                    .radius(2.5)
                                    .color(component_color(c, true)),
                            );
                        }
                    }
                }
                plot.vline(VLine::new("playhead", time).color(Color32::from_rgb(240, 80, 70)));
            });
        let transform = response.transform;
        let response = response.response.on_hover_text(
            "Drag to pan, wheel to zoom (Ctrl+wheel: one axis), double-click to frame all, click to scrub",
        );
        if response.clicked()
            && let Some(pos) = response.interact_pointer_pos()
        {
            let t = transform.value_from_position(pos).x as f32;
            out.push(Command::Transport(Transport::Scrub(
                t.clamp(0.0, e.eval().duration()),
            )));
        }
    }
}

/// `values` (one per time of `times`, ascending) linearly interpolated at `t`.
fn interpolate(times: &[f32], values: &[f64], t: f32) -> f64 {
    let i = times.partition_point(|&x| x < t);
    match (i.checked_sub(1), values.get(i)) {
        (None, Some(&v)) => v,
        (Some(j), Some(&v)) if times[i] > times[j] => {
            let f = f64::from((t - times[j]) / (times[i] - times[j]));
            values[j] + (v - values[j]) * f
        }
        (Some(j), _) => values[j.min(values.len() - 1)],
        (None, None) => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_markers_sit_on_the_sampled_curve() {
        let times = [0.0, 0.5, 1.0];
        let values = [0.0, 10.0, 30.0];
        assert_eq!(interpolate(&times, &values, 0.25), 5.0);
        assert_eq!(interpolate(&times, &values, 0.75), 20.0);
        assert_eq!(interpolate(&times, &values, -1.0), 0.0);
        assert_eq!(interpolate(&times, &values, 2.0), 30.0);
    }
}
