//! The timeline: fixed-width transport buttons, what plays, loop and speed, the time and frame, and a ruler
//! with second and frame ticks, key markers (of the selected joint, or of every joint), the in/out range and
//! the playhead, which a click or drag scrubs.

use egui::{Color32, Pos2, Rect, Sense, Stroke, Vec2};

use crate::app::command::{Command, Commands, Transport};
use crate::app::editor::EditorState;

/// Least width of every transport button; all are as wide as the widest of Play and Pause, so that the toggle
/// does not shift the row.
const BUTTON_WIDTH: f32 = 46.0;
/// Height of the ruler.
const RULER_HEIGHT: f32 = 44.0;
/// Most key markers drawn.
const MAX_KEY_MARKERS: usize = 4000;

/// Draws the timeline's transport row; `curves_open` is the Curves toggle in it. The ruler ([`ruler`]) goes
/// below, after the curves view when it is open.
pub fn ui(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands, curves_open: &mut bool) {
    // One row whatever the width: a row that wrapped would change the timeline's height, and with it where
    // everything above sits. In a narrow window the frame steps narrow, and what does not fit (chosen by the
    // width alone, never by what the controls show) goes into the More menu at the row's end.
    let narrow = ui.available_width() < FULL_ROW_WIDTH;
    egui::ScrollArea::horizontal()
        .id_salt("transport")
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                play_controls(ui, e, out, narrow);
                if !narrow {
                    for item in Extra::ALL {
                        extra(ui, e, out, curves_open, item, false);
                    }
                    return;
                }
                let mut room = ui.available_width() - MORE_WIDTH;
                let inline = Extra::ALL
                    .into_iter()
                    .take_while(|item| {
                        room -= item.width() + ui.spacing().item_spacing.x;
                        room >= 0.0
                    })
                    .count();
                for item in &Extra::ALL[..inline] {
                    extra(ui, e, out, curves_open, *item, true);
                }
                if inline < Extra::ALL.len() {
                    ui.menu_button(MORE_LABEL, |ui| {
                        for item in &Extra::ALL[inline..] {
                            ui.horizontal(|ui| extra(ui, e, out, curves_open, *item, true));
                        }
                    })
                    .response
                    .on_hover_text(
                        "Loop, speed, time, range, Curves and the skate figure: no room in the row",
                    );
                }
            })
        });
}

/// Below this width (points) the transport row narrows its frame steps and moves what does not fit into the
/// More menu.
pub const FULL_ROW_WIDTH: f32 = 1000.0;
/// The More menu's button label.
pub const MORE_LABEL: &str = "More…";
/// Room kept for the More menu's button, points.
const MORE_WIDTH: f32 = 56.0;

/// The transport's controls after what plays, in the order they give way to the More menu.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Extra {
    Loop,
    Speed,
    Time,
    Range,
    Curves,
    Skate,
}

impl Extra {
    const ALL: [Extra; 6] = [
        Extra::Loop,
        Extra::Speed,
        Extra::Time,
        Extra::Curves,
        Extra::Range,
        Extra::Skate,
    ];

    /// Room it takes in a narrow row, points: fixed, so the choice never follows what it shows.
    fn width(self) -> f32 {
        match self {
            Extra::Loop => 58.0,
            Extra::Speed => 84.0,
            Extra::Time => 130.0,
            Extra::Range => 110.0,
            Extra::Curves => 60.0,
            Extra::Skate => 170.0,
        }
    }
}

/// Draws one of the controls after what plays; `narrow`: the shorter time read-out.
fn extra(
    ui: &mut egui::Ui,
    e: &EditorState,
    out: &mut Commands,
    curves_open: &mut bool,
    item: Extra,
    narrow: bool,
) {
    let eval = e.eval();
    match item {
        Extra::Loop => {
            let mut looping = eval.clock().is_looping();
            let loop_box = ui
                .checkbox(&mut looping, "Loop")
                .on_hover_text(if looping && !eval.loops() {
                    "Start over at the end (off: stop at the end). This clip's Loop time is off (Clip tab): it plays once"
                } else {
                    "Start over at the end (off: stop at the end)"
                });
            if loop_box.changed() {
                out.push(Command::Transport(Transport::SetLooping(looping)));
            }
        }
        Extra::Speed => {
            let mut speed = eval.clock().speed();
            let speed_box = ui
                .add(
                    egui::DragValue::new(&mut speed)
                        .update_while_editing(false)
                        .speed(0.05)
                        .range(-4.0..=4.0)
                        .prefix("speed "),
                )
                .on_hover_text("Playback speed: 1 is real time, negative plays backward");
            if speed_box.changed() {
                out.push(Command::Transport(Transport::SetSpeed(speed)));
            }
        }
        Extra::Time => time_readout(ui, eval.time(), e.frame(), narrow),
        Extra::Range => range_buttons(ui, e, out),
        Extra::Curves => {
            ui.toggle_value(curves_open, "Curves").on_hover_text(
                "Show the selected joint's curves: its local channels over the clip, the source and the final pose",
            );
        }
        Extra::Skate => skate_figures(ui, e, out),
    }
}

/// Play, stop, the frame steps and what plays; `narrow`: the frame steps as wide as their arrows.
fn play_controls(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands, narrow: bool) {
    let eval = e.eval();
    // An empty blend space plays nothing: its transport is off, as with no clip. A state machine plays as a clip
    // does: it pauses, stops and steps (a seek replays it from its entry).
    let playable = (e.blending() && !e.tuning().blend.nodes.is_empty())
        || e.clip().is_some()
        || eval.source().machine().is_some();
    // At least as wide as "Pause" in the current font, which is wider than BUTTON_WIDTH at some sizes.
    let width = ["Play", "Pause"]
        .into_iter()
        .map(|text| {
            let galley = egui::WidgetText::from(text).into_galley(
                ui,
                Some(egui::TextWrapMode::Extend),
                f32::INFINITY,
                egui::TextStyle::Button,
            );
            galley.size().x + 2.0 * ui.spacing().button_padding.x
        })
        .fold(BUTTON_WIDTH, f32::max)
        .ceil();
    let button = |ui: &mut egui::Ui, text: &str, enabled: bool| {
        ui.add_enabled(
            enabled,
            egui::Button::new(text).min_size(Vec2::new(width, 0.0)),
        )
    };
    let label = if eval.clock().is_playing() && playable {
        "Pause"
    } else {
        "Play"
    };
    let nothing = "Nothing to play: open a model with clips, or add clips from a file";
    if button(ui, label, playable)
        .on_hover_text("Play or pause (Space)")
        .on_disabled_hover_text(nothing)
        .clicked()
    {
        out.push(Command::Transport(Transport::TogglePlay));
    }
    if button(ui, "Stop", playable)
        .on_hover_text("Stop and go back to the start")
        .on_disabled_hover_text(nothing)
        .clicked()
    {
        out.push(Command::Transport(Transport::Stop));
    }
    let steps = [
        ("|<", "Go to the start (Home)", Transport::Scrub(0.0)),
        (
            "<",
            "One frame back (Left arrow)",
            Transport::StepFrames(-1),
        ),
        (
            ">",
            "One frame forward (Right arrow)",
            Transport::StepFrames(1),
        ),
        (">|", "Go to the end (End)", Transport::ScrubToEnd),
    ];
    for (text, key, t) in steps {
        let step = if narrow {
            ui.add_enabled(playable, egui::Button::new(text))
        } else {
            button(ui, text, playable)
        };
        if step
            .on_hover_text(key)
            .on_disabled_hover_text(nothing)
            .clicked()
        {
            out.push(Command::Transport(t));
        }
    }
    source_choice(ui, e, out, narrow);
}

/// Width of the box that chooses what plays, points.
const SOURCE_BOX_WIDTH: f32 = 150.0;
/// Its width in a narrow window.
const NARROW_SOURCE_BOX_WIDTH: f32 = 100.0;

/// The playhead's time and frame in digits of one width, in a box as wide as the longest readout a clip can have
/// (an hour, 5-digit frames), so the buttons after it never move as the digits change; `narrow`: shorter ("f"
/// for "frame").
fn time_readout(ui: &mut egui::Ui, time: f32, frame: u32, narrow: bool) {
    let text = |t: &str| egui::RichText::new(t).monospace();
    let (widest, shown) = if narrow {
        ("3600.000 s f99999", format!("{time:.3} s f{frame}"))
    } else {
        (
            "3600.000 s  frame 99999",
            format!("{time:.3} s  frame {frame}"),
        )
    };
    let widest = egui::WidgetText::from(text(widest)).into_galley(
        ui,
        Some(egui::TextWrapMode::Extend),
        f32::INFINITY,
        egui::TextStyle::Monospace,
    );
    let size = Vec2::new(widest.size().x, ui.spacing().interact_size.y);
    ui.add_sized(size, egui::Label::new(text(&shown)).truncate())
        .on_hover_text(
            "The playhead: seconds from the clip's start, and the frame at the timeline's rate",
        );
}

/// In/out buttons: set the range's ends at the playhead (I, O) or clear it.
fn range_buttons(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
    if e.clip().is_none() {
        return;
    }
    let eval = e.eval();
    let (t, d) = (eval.time(), eval.duration());
    let [a, b] = eval.play_range().unwrap_or([0.0, d]);
    if ui
        .button("In")
        .on_hover_text("I: the range starts at the playhead")
        .clicked()
    {
        out.push(Command::SetPlayRange(Some([t, b])));
    }
    if ui
        .button("Out")
        .on_hover_text("O: the range ends at the playhead")
        .clicked()
    {
        out.push(Command::SetPlayRange(Some([a, t])));
    }
    if eval.play_range().is_some()
        && ui
            .button("Clear range")
            .on_hover_text("Alt+I: play the whole clip")
            .clicked()
    {
        out.push(Command::SetPlayRange(None));
    }
}

/// Seconds between labelled ticks so that labels are at least `min_px` apart.
fn tick_step(px_per_second: f32, min_px: f32) -> f32 {
    [0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 300.0]
        .into_iter()
        .find(|s| s * px_per_second >= min_px)
        .unwrap_or(600.0)
}

/// Where a view above the ruler (the curves) draws its times: seconds `start` at x `left`, `end` at `right`
/// (screen points). The ruler then draws its seconds at the same places.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeMapping {
    /// Screen x of `start`.
    pub left: f32,
    /// Screen x of `end`.
    pub right: f32,
    /// Seconds at `left`.
    pub start: f32,
    /// Seconds at `right`.
    pub end: f32,
}

/// The ruler: ticks, key markers, the in/out range and the playhead; a click or drag scrubs. With `aligned`, its
/// seconds sit where the view above draws them (the curves' time axis), zoomed and panned with it.
pub fn ruler(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands, aligned: Option<TimeMapping>) {
    let eval = e.eval();
    let duration = shown_span(e);
    let width = ui.available_width().max(50.0);
    let (rect, response) =
        ui.allocate_exact_size(Vec2::new(width, RULER_HEIGHT), Sense::click_and_drag());
    response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Slider, true, "Time"));
    let response = crate::app::widgets::tooltip_unless_dragged(
        response,
        "Click or drag to scrub. Ticks: seconds (with frame numbers) and frames; diamonds: keys of the selected \
         joint (or of every joint); the shaded band: the in/out range",
    );
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 3.0, Color32::from_gray(30));
    let inner = rect.shrink2(Vec2::new(8.0, 0.0));
    if duration <= 0.0 {
        painter.text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            "nothing to play (rest pose)",
            egui::FontId::proportional(12.0),
            Color32::GRAY,
        );
        return;
    }
    let (left, right, start, end) = time_span(inner, aligned, duration);
    let x_of = |t: f32| left + (t - start) / (end - start) * (right - left);
    let t_of = |x: f32| (start + (x - left) / (right - left) * (end - start)).clamp(0.0, duration);
    // The in/out range, shaded.
    if let Some([a, b]) = eval.play_range() {
        painter.rect_filled(
            Rect::from_x_y_ranges(x_of(a)..=x_of(b), rect.y_range()),
            0.0,
            Color32::from_rgba_unmultiplied(90, 130, 200, 60),
        );
        for x in [x_of(a), x_of(b)] {
            painter.line_segment(
                [Pos2::new(x, rect.top()), Pos2::new(x, rect.bottom())],
                Stroke::new(2.0, Color32::from_rgb(110, 160, 240)),
            );
        }
    }
    // Frame ticks where they are far enough apart, second ticks with labels.
    let px_per_second = (right - left) / (end - start);
    let rate = e.session().frame_rate.max(1.0);
    if px_per_second / rate >= 4.0 {
        let frames = (duration * rate).floor() as u32;
        for f in 0..=frames {
            let x = x_of(f as f32 / rate);
            painter.line_segment(
                [Pos2::new(x, rect.top()), Pos2::new(x, rect.top() + 5.0)],
                Stroke::new(1.0, Color32::from_gray(85)),
            );
        }
    }
    // Labels at least their own width (the longest, at the end) plus a gap apart.
    let font = egui::TextStyle::Monospace.resolve(&painter.ctx().global_style());
    let label = |t: f32| format!("{t:.2}s  f{}", (t * rate).round() as u32);
    let widest = painter
        .layout_no_wrap(label(duration), font.clone(), Color32::WHITE)
        .size()
        .x;
    let step = tick_step(px_per_second, widest + 12.0);
    let mut t = 0.0f32;
    while t <= duration + 1e-4 {
        let x = x_of(t);
        painter.line_segment(
            [Pos2::new(x, rect.top()), Pos2::new(x, rect.top() + 12.0)],
            Stroke::new(1.0, Color32::from_gray(150)),
        );
        painter.text(
            Pos2::new(x + 3.0, rect.top() + 12.0),
            egui::Align2::LEFT_TOP,
            label(t),
            font.clone(),
            Color32::from_gray(170),
        );
        t += step;
    }
    contact_bars(&painter, rect, e, x_of);
    // Key markers: of the selected joint when one is selected, else of every joint (above the contact bars).
    let keys = e.key_times(e.session().selected, MAX_KEY_MARKERS);
    let key_y = rect.bottom() - 2.0 * CONTACT_ROW - 6.0;
    let key_color = if e.session().selected.is_some() {
        Color32::from_rgb(250, 210, 60)
    } else {
        Color32::from_gray(190)
    };
    for k in keys {
        let c = Pos2::new(x_of(k), key_y);
        let d = 3.5;
        painter.add(egui::Shape::convex_polygon(
            vec![
                c + Vec2::new(0.0, -d),
                c + Vec2::new(d, 0.0),
                c + Vec2::new(0.0, d),
                c + Vec2::new(-d, 0.0),
            ],
            key_color,
            Stroke::NONE,
        ));
    }
    // The playhead.
    let x = x_of(eval.time());
    painter.line_segment(
        [Pos2::new(x, rect.top()), Pos2::new(x, rect.bottom())],
        Stroke::new(2.0, Color32::from_rgb(240, 80, 70)),
    );
    if (response.clicked() || response.dragged())
        && let Some(p) = response.interact_pointer_pos()
    {
        out.push(Command::Transport(Transport::Scrub(t_of(p.x))));
    }
    response.on_hover_text("Click or drag to scrub; I / O set the in/out range at the playhead");
}

/// Screen x of the ruler's first and last second, and those seconds: the view's above (`aligned`) when it
/// gives a usable span, else the whole duration across `inner`.
fn time_span(inner: Rect, aligned: Option<TimeMapping>, duration: f32) -> (f32, f32, f32, f32) {
    match aligned {
        Some(m)
            if m.right > m.left && m.end > m.start && m.start.is_finite() && m.end.is_finite() =>
        {
            (m.left, m.right, m.start, m.end)
        }
        _ => (inner.left(), inner.right(), 0.0, duration),
    }
}

/// Height of one foot's contact row at the bottom of the ruler.
const CONTACT_ROW: f32 = 4.0;

/// Each foot's contacts as bars along the bottom of the ruler (left above, right below), at the ruler's times.
fn contact_bars(painter: &egui::Painter, rect: Rect, e: &EditorState, x_of: impl Fn(f32) -> f32) {
    let Some((Ok(report), current)) = e.feet().report() else {
        return;
    };
    let colour = if current {
        Color32::from_rgb(90, 200, 120)
    } else {
        Color32::from_rgb(70, 110, 80)
    };
    for (i, foot) in report.feet.iter().enumerate().take(2) {
        let top = rect.bottom() - 2.0 * CONTACT_ROW - 1.0 + CONTACT_ROW * i as f32;
        for [a, b] in &foot.contacts {
            let (xa, xb) = (x_of(*a).max(rect.left()), x_of(*b).min(rect.right()));
            if xb >= xa {
                painter.rect_filled(
                    Rect::from_x_y_ranges(xa..=(xb + 1.0), top..=(top + CONTACT_ROW - 1.0)),
                    1.0,
                    colour,
                );
            }
        }
    }
}

/// The skate meter's figures for what plays, in the transport row, the whole sentence in its hover text.
fn skate_figures(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands) {
    let Some((report, current)) = e.feet().report() else {
        if e.eval().source().machine().is_some() {
            ui.label(egui::RichText::new("feet: —").weak()).on_hover_text(
                "The skate meter measures a clip or a blend space over its cycle; a state machine runs on, so \
                 measure its states' clips, or bake its run and measure the baked clip (`animtune skate`)",
            );
        } else if e.eval().duration() > 0.0 {
            ui.label(egui::RichText::new("feet: measuring…").weak())
                .on_hover_text("The skate meter is measuring what plays");
        }
        return;
    };
    let report = match report {
        Ok(r) => r,
        Err(why) => {
            ui.label(egui::RichText::new("feet: not measured").weak())
                .on_hover_text(format!("The skate meter cannot measure what plays: {why}"));
            return;
        }
    };
    let ground = match report.ground {
        crate::analysis::Ground::RootMotion => "still ground (root motion)".to_string(),
        crate::analysis::Ground::Nominal(v) => format!(
            "ground at the point's velocity, {:.2} m/s",
            glam::Vec3::from_array(v).length()
        ),
        crate::analysis::Ground::Treadmill(v) => {
            format!("treadmill, {:.2} m/s", glam::Vec3::from_array(v).length())
        }
    };
    let lock = if e.tuning().layers.foot_lock.enabled {
        ", foot lock on"
    } else {
        ""
    };
    let text = format!(
        "skate {:.0} % · {:.1} cm/s{}",
        100.0 * report.skate_ratio,
        report.planted_speed_cm_s.mean,
        if current { "" } else { " …" }
    );
    let feet: Vec<&str> = report.feet.iter().map(|f| f.human_bone).collect();
    // The skate clean-up of the clip playing is a right-click away: a button here would not fit the transport row
    // at a large UI scale, and a row that wraps moves the buttons above it.
    let clip = e.clip().filter(|_| current);
    let figure = ui
        .add(egui::Label::new(egui::RichText::new(text).monospace()).sense(egui::Sense::click()))
        .on_hover_text(format!(
            "The skate meter of what plays, over one clip or cycle at 60 fps: {:.0} % of contact frames slide \
             faster than 50 cm/s; planted feet slide {:.1} cm/s on average, {:.1} at most; {ground}{lock}. The \
             green bars under the ruler are the contacts ({} above): the toes (else the foot) within 5 cm of the \
             ground and sliding under 1 m/s relative to it.{}",
            100.0 * report.skate_ratio,
            report.planted_speed_cm_s.mean,
            report.planted_speed_cm_s.max,
            feet.join(" above, "),
            if clip.is_some() {
                " Right-click: Fix foot skate"
            } else {
                ""
            },
        ));
    if let Some(index) = clip {
        figure.context_menu(|ui| {
            let fix = ui.button(FIX_SKATE_MENU).on_hover_text(
                "A new clip \"<clip> (skate fixed)\" with each plant held at one point (legs by IK, the hips \
                 moved the least, eased in and out), in one undo step. The Clip tab sets the easing and the stretch",
            );
            if fix.clicked() {
                out.push(Command::PassClip(
                    index,
                    crate::app::command::ClipPass::Skate(crate::core::clip_pass::SkateFix::default()),
                ));
                ui.close();
            }
        });
    }
}

/// The skate figure's context-menu entry that fixes the playing clip's foot skate.
pub const FIX_SKATE_MENU: &str = "Fix foot skate";

/// The seconds the ruler spans: what plays, or for a state machine (which runs on, state after state) the
/// elapsed time rounded up to the next 10 s, so that a scrub replays its run to that time.
fn shown_span(e: &EditorState) -> f32 {
    if e.any_machine_player().is_some() {
        (e.eval().time() / 10.0).floor() * 10.0 + 10.0
    } else {
        e.eval().duration()
    }
}

/// The combo box choosing what plays: the blend space, the rest pose, a clip or the state machine.
fn source_choice(ui: &mut egui::Ui, e: &EditorState, out: &mut Commands, narrow: bool) {
    let clips = &e.doc().clips;
    let machine = e.any_machine_player().is_some();
    let current = if e.machine_preview().is_some() {
        "Transition preview".to_string()
    } else if machine {
        "State machine".to_string()
    } else if e.blending() {
        "Blend space".to_string()
    } else {
        e.clip()
            .map_or("(rest pose)".to_string(), |i| clips[i].name.clone())
    };
    // None: the blend space; Some(None): the rest pose; Some(Some(i)): clip i.
    let before = if e.blending() || machine {
        None
    } else {
        Some(e.clip())
    };
    let mut chosen = before;
    // A box of one width whatever the name (a long one is truncated, in full in the tooltip), so the buttons
    // after it stay put.
    let width = if narrow {
        NARROW_SOURCE_BOX_WIDTH
    } else {
        SOURCE_BOX_WIDTH
    };
    ui.allocate_ui(Vec2::new(width, ui.spacing().interact_size.y), |ui| {
        ui.set_max_width(width);
        egui::ComboBox::from_id_salt("clip")
            .width(width)
            .truncate()
            .selected_text(current.as_str())
            .show_ui(ui, |ui| {
                let playing = e.machine_player().is_some();
                if e.machine().is_some()
                    && ui.selectable_label(playing, "State machine").clicked()
                    && !playing
                {
                    out.push(Command::PlayMachine);
                }
                let blending = e.blending() && !machine;
                if ui.selectable_label(blending, "Blend space").clicked() && !blending {
                    out.push(Command::PlayBlend);
                }
                for (i, clip) in clips.iter().enumerate() {
                    ui.selectable_value(&mut chosen, Some(Some(i)), clip.name.as_str());
                }
            })
            .response
            .on_hover_text(format!(
                "What plays: the state machine, the blend space or one clip (now: {current})"
            ));
    });
    if chosen != before {
        out.push(match chosen {
            None => Command::PlayBlend,
            Some(c) => Command::PlayClip(c),
        });
    }
}
