//! The curves view, in the timeline area: the selected joint's local channels over the clip or the blend cycle,
//! the source (dashed) and the final pose after the layers (solid), optionally every layer's stage between
//! them, with the source's keys marked and the playhead. Drawn with egui_plot: it gives zoom and pan on both axes
//! (wheel, Ctrl+wheel, drag), box zoom and hover read-outs that a painter of our own would have to rebuild.
//!
//! The curves are computed by [`crate::eval::curves`] in the background ([`crate::app::analyses`]) when what they
//! depend on changes (the model and clips, the tuning, what plays, the joint, the look-at target, root motion),
//! not every frame; until the new ones come, the last ones stay shown.

use egui::Color32;
use egui_plot::{Line, LineStyle, MarkerShape, Plot, PlotPoints, Points, VLine};

use crate::app::analyses::CurvesKey;
use crate::app::command::{Command, Commands, Transport};
use crate::app::editor::EditorState;
use crate::app::panels::timeline::TimeMapping;
use crate::eval::curves::{Channel, Stage, channel_values};

/// Lowest the plot gets (a shorter pane scrolls).
const MIN_PLOT_HEIGHT: f32 = 48.0;
/// Most key markers drawn per component.
const MAX_KEY_MARKERS: usize = 2000;

/// The curves view's state.
#[derive(Default)]
pub struct CurvesPanel {
    /// The channel shown.
    pub channel: Channel,
    /// Show each layer's stage between the source and the final pose.
    pub each_layer: bool,
    /// The key of the curves last framed: new curves frame themselves once.
    framed: Option<CurvesKey>,
    frame_all: bool,
    /// Where the plot last put its times on screen: the ruler below draws its seconds there, so the two line up.
    pub time_mapping: Option<TimeMapping>,
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
    /// Asks for the selected joint's curves when they are not current (they are computed in the background).
    fn update(&mut self, e: &EditorState, out: &mut Commands) {
        let key = e.curves_key();
        let current = e
            .analyses()
            .curves(key.as_ref())
            .is_some_and(|(_, now)| now);
        if !current {
            out.push(Command::ComputeCurves);
        } else if self.framed != key {
            self.framed = key;
            self.frame_all = true;
        }
    }

    /// Draws the view: the channel and stage choices, then the plot.
    pub fn ui(&mut self, ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
        self.update(e, out);
        self.time_mapping = None;
        // One row (it scrolls sideways in a narrow window), so that the timeline keeps its height.
        egui::ScrollArea::horizontal().id_salt("curve_options").show(ui, |ui| ui.horizontal(|ui| {
            // One drop-down rather than a button per channel: the row fits beside a docked graph.
            egui::ComboBox::from_id_salt("curve channel")
                .selected_text(self.channel.name())
                .show_ui(ui, |ui| {
                    for channel in Channel::ALL {
                        ui.selectable_value(&mut self.channel, channel, channel.name());
                    }
                })
                .response
                .on_hover_text("Which channel of the joint's local transform to plot");
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
            ui.separator();
            legend(ui, self.channel);
        }));
        let key = e.curves_key();
        let Some((curves, _)) = e.analyses().curves(key.as_ref()).filter(|_| key.is_some()) else {
            ui.label(
                "Select a joint (click it in the viewport or the skeleton list) to see its curves: the source \
                 dashed, the final pose after the layers solid.",
            );
            return;
        };
        if curves.stages.is_empty() {
            return;
        }
        // The pane's height: it is the user's to resize.
        let height = ui.available_height().max(MIN_PLOT_HEIGHT);
        let channel = self.channel;
        let last = curves.stages.len() - 1;
        let shown: Vec<usize> = (0..curves.stages.len())
            .filter(|&s| s == 0 || s == last || self.each_layer)
            .collect();
        let keys = e.key_times(Some(curves.joint), MAX_KEY_MARKERS);
        let names = channel.components();
        let time = f64::from(e.eval().time());
        let frame_all = std::mem::take(&mut self.frame_all);
        let duration = f64::from(e.eval().duration().max(1e-3));
        // The wheel zooms the time axis about the pointer; the values always fit what is in view, so zooming
        // never loses the curves (a wheel that zoomed the values alone lost them). Dragging pans the time.
        let response = Plot::new("curves")
            .height(height)
            .allow_scroll(false)
            .allow_zoom(egui::Vec2b::new(true, false))
            .allow_drag(egui::Vec2b::new(true, false))
            .auto_bounds(egui::Vec2b::new(false, true))
            .set_margin_fraction(egui::Vec2::new(0.0, 0.1))
            .default_x_bounds(0.0, duration)
            .x_axis_label("time (s)")
            // The unit alone: the channel's name is in the row above, and a long title turned on its side is
            // cut by a short plot.
            .y_axis_label(unit(channel))
            .y_axis_min_width(48.0)
            .y_grid_spacer(egui_plot::uniform_grid_spacer(one_two_five_steps))
            .show(ui, |plot| {
                if frame_all {
                    plot.set_plot_bounds_x(0.0..=duration);
                }
                let wheel = plot.ctx().input(|i| i.smooth_scroll_delta.y);
                if wheel != 0.0 && plot.response().hovered() {
                    plot.zoom_bounds_around_hovered(egui::Vec2::new((wheel * 0.004).exp(), 1.0));
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
        let (frame, bounds) = (transform.frame(), transform.bounds());
        self.time_mapping = Some(TimeMapping {
            left: frame.left(),
            right: frame.right(),
            start: bounds.min()[0] as f32,
            end: bounds.max()[0] as f32,
        });
        let response = response.response.on_hover_text(
            "Wheel: zoom the time about the pointer; drag: pan the time; the values fit what is in view. \
             Double-click or Frame all: the whole clip. Click: scrub",
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

/// The key to the curves, in the options row (a legend inside the plot covered the curves' ends): each
/// component's colour, and the line styles of the source and the final pose.
fn legend(ui: &mut egui::Ui, channel: Channel) {
    // A short line sample, solid or dashed, before each label.
    let sample = |ui: &mut egui::Ui, color: Color32, dashed: bool| {
        let (rect, _) = ui.allocate_exact_size(egui::vec2(18.0, 10.0), egui::Sense::hover());
        let y = rect.center().y;
        let stroke = egui::Stroke::new(2.0, color);
        let points = [egui::pos2(rect.left(), y), egui::pos2(rect.right(), y)];
        if dashed {
            ui.painter()
                .extend(egui::Shape::dashed_line(&points, stroke, 3.0, 2.0));
        } else {
            ui.painter().line_segment(points, stroke);
        }
    };
    for (c, name) in channel.components().iter().enumerate() {
        sample(ui, component_color(c, false), false);
        ui.colored_label(component_color(c, false), *name);
    }
    let gray = Color32::from_gray(190);
    sample(ui, gray, true);
    ui.label("source")
        .on_hover_text("Dashed: the clip or blend space before the layers");
    sample(ui, gray, false);
    ui.label("final")
        .on_hover_text("Solid: the pose after every layer");
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

/// The unit a channel's values are in.
fn unit(channel: Channel) -> &'static str {
    match channel {
        Channel::Translation => "m",
        Channel::Euler => "°",
        Channel::Quaternion | Channel::Scale => "",
    }
}

/// Grid steps of 1, 2 or 5 times a power of ten, the smallest at least the plot's minimum step: a short plot
/// gets a label every 20° or 50° rather than only at the powers of ten (−100 and 0 over −135…+10°).
fn one_two_five_steps(input: egui_plot::GridInput) -> [f64; 3] {
    let next = |at_least: f64| {
        let at_least = at_least.max(1e-9);
        let power = 10f64.powf(at_least.log10().floor());
        [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .map(|m| m * power)
            .find(|&s| s >= at_least * (1.0 - 1e-9))
            .unwrap_or(10.0 * power)
    };
    let small = next(input.base_step_size);
    let medium = next(small * 1.5);
    [small, medium, next(medium * 1.5)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Over −135…+10° in a short plot (a 12° minimum step) the grid steps 20°, 50°, 100°: several labels, not two.
    #[test]
    fn grid_steps_are_one_two_five() {
        let steps = |base_step_size| {
            one_two_five_steps(egui_plot::GridInput {
                bounds: (-135.0, 10.0),
                base_step_size,
            })
        };
        assert_eq!(steps(12.0), [20.0, 50.0, 100.0]);
        assert_eq!(steps(20.0), [20.0, 50.0, 100.0]);
        let small = steps(0.3);
        assert!(
            (small[0] - 0.5).abs() < 1e-12 && (small[1] - 1.0).abs() < 1e-12,
            "{small:?}"
        );
    }

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
