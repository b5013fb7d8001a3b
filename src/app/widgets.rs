//! Small widgets the panels share.

/// A slider with its number field and a label, both halves carrying `tip` as their hover text (egui's own
/// slider gives its number field no hover text of its own).
pub fn slider<N: egui::emath::Numeric>(
    ui: &mut egui::Ui,
    value: &mut N,
    range: std::ops::RangeInclusive<N>,
    text: &str,
    tip: &str,
) -> egui::Response {
    slider_named(ui, value, range, (text, text), tip)
}

/// [`slider`] showing `shown` beside it while screen readers (and tests) name it `name`: for rows under a
/// heading that already says what they belong to ("Stiffness" under group 0, named "Stiffness (group 0)").
pub fn slider_named<N: egui::emath::Numeric>(
    ui: &mut egui::Ui,
    value: &mut N,
    range: std::ops::RangeInclusive<N>,
    (shown, name): (&str, &str),
    tip: &str,
) -> egui::Response {
    let limits = Limits {
        bar: range.clone(),
        field: range,
        clamping: egui::SliderClamping::Always,
    };
    labelled_slider(ui, value, limits, (shown, name), tip)
}

/// [`slider`] whose bar spans `soft` (the usual values) while its number field takes any value in `hard`, as
/// Blender's soft and hard limits: typing 3 where the bar ends at 2 keeps 3, and the bar shows it at its end.
pub fn soft_slider(
    ui: &mut egui::Ui,
    value: &mut f32,
    soft: std::ops::RangeInclusive<f32>,
    hard: std::ops::RangeInclusive<f32>,
    text: &str,
    tip: &str,
) -> egui::Response {
    soft_slider_named(ui, value, soft, hard, (text, text), tip)
}

/// [`soft_slider`] showing `shown` and named `name` (see [`slider_named`]).
pub fn soft_slider_named(
    ui: &mut egui::Ui,
    value: &mut f32,
    soft: std::ops::RangeInclusive<f32>,
    hard: std::ops::RangeInclusive<f32>,
    (shown, name): (&str, &str),
    tip: &str,
) -> egui::Response {
    let limits = Limits {
        bar: soft,
        field: hard,
        clamping: egui::SliderClamping::Edits,
    };
    labelled_slider(ui, value, limits, (shown, name), tip)
}

/// What a slider's bar spans, what its number field accepts, and how the bar clamps the value.
struct Limits<N> {
    bar: std::ops::RangeInclusive<N>,
    field: std::ops::RangeInclusive<N>,
    clamping: egui::SliderClamping,
}

/// The bar, the number field and the label (`shown`; the bar is named `name`) of [`slider`] and
/// [`soft_slider`].
fn labelled_slider<N: egui::emath::Numeric>(
    ui: &mut egui::Ui,
    value: &mut N,
    limits: Limits<N>,
    (shown, name): (&str, &str),
    tip: &str,
) -> egui::Response {
    ui.horizontal(|ui| {
        let span = limits.bar.end().to_f64() - limits.bar.start().to_f64();
        let bar = ui.add(
            egui::Slider::new(value, limits.bar)
                .clamping(limits.clamping)
                .show_value(false),
        );
        let bar = tooltip_unless_dragged(bar, tip);
        // Named as egui names a slider with its text (the label is drawn after the number field instead).
        let value_now = value.to_f64();
        bar.widget_info(|| egui::WidgetInfo::slider(true, value_now, name));
        let number = ui.add(
            egui::DragValue::new(value)
                .update_while_editing(false)
                .range(limits.field)
                .speed(span / 300.0)
                .max_decimals(3),
        );
        let number = tooltip_unless_dragged(number, tip);
        ui.label(shown);
        bar | number
    })
    .inner
}

/// `response` with its tooltip, except after it was dragged: from a drag until the pointer leaves the widget the
/// tooltip stays hidden, so it does not cover what was just dragged (a canvas, a ruler, a handle).
pub fn tooltip_unless_dragged(response: egui::Response, text: &str) -> egui::Response {
    let id = response.id.with("dragged since hovered");
    let ctx = response.ctx.clone();
    let dragged = response.dragged() || response.drag_stopped();
    let mut was = ctx.data(|d| d.get_temp::<bool>(id).unwrap_or(false));
    if dragged {
        was = true;
    } else if ctx
        .input(|i| i.pointer.latest_pos())
        .is_some_and(|p| !response.rect.contains(p))
    {
        // The pointer left (a pointer that is gone, as after a release on some platforms, has not).
        was = false;
    }
    ctx.data_mut(|d| d.insert_temp(id, was));
    if was {
        response
    } else {
        response.on_hover_text(text)
    }
}

/// `text` shortened with an ellipsis in the middle to fit `width` points in `ui`'s body font (whole when it
/// fits): for titles egui will not truncate itself (a collapsing header's), so that a long file name never
/// widens its panel.
pub fn elided(ui: &egui::Ui, text: &str, width: f32) -> String {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let fits = |t: &str| {
        ui.fonts_mut(|f| f.layout_no_wrap(t.to_string(), font.clone(), egui::Color32::WHITE))
            .size()
            .x
            <= width
    };
    if fits(text) {
        return text.to_string();
    }
    let chars: Vec<char> = text.chars().collect();
    // The most characters kept (half from each end) that still fit with the ellipsis.
    let shortened = |keep: usize| {
        let head: String = chars[..keep.div_ceil(2)].iter().collect();
        let tail: String = chars[chars.len() - keep / 2..].iter().collect();
        format!("{head}…{tail}")
    };
    let (mut lo, mut hi) = (0, chars.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if fits(&shortened(mid)) {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    shortened(lo)
}
