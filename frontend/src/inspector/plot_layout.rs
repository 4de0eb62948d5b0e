//! A time-series plot laid out in SVG units: axis ranges that fit the data, round tick values, and one path per line.
//!
//! X is simulation time, Y the numbers; a line breaks where a number is missing (NaN).
//! Ranges never collapse: a constant reading gets a band around it, and the time axis
//! spans at least [`MIN_TIME_SPAN_S`].

use crate::inspector::plot_series::Series;

/// Shortest time span the X axis shows, seconds (a plot just opened has one sample).
pub const MIN_TIME_SPAN_S: f64 = 1.0;
/// Room left of the plot area for the Y labels, SVG units.
const LEFT: f64 = 42.0;
/// Room under it for the X labels.
const BOTTOM: f64 = 16.0;
/// Blank space on the other two sides.
const EDGE: f64 = 6.0;
/// Most ticks on an axis; a round step then leaves at least two (see [`nice_step`]).
const TICKS: usize = 5;

/// A tick: where it is along its axis (SVG units) and what it reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    /// SVG coordinate: x for the time axis, y for the value axis.
    pub at: f64,
    /// The value, printed.
    pub label: String,
}

/// One line of the plot.
#[derive(Clone, Debug, PartialEq)]
pub struct PlotLine {
    /// Which of the plot's numbers.
    pub channel: usize,
    /// The true value (else the measured one).
    pub truth: bool,
    /// The SVG path.
    pub path: String,
}

/// A plot laid out in a `width` × `height` SVG box.
#[derive(Clone, Debug, PartialEq)]
pub struct PlotLayout {
    /// The SVG box's size.
    pub width: f64,
    /// The SVG box's size.
    pub height: f64,
    /// The plot area: left, top, right, bottom.
    pub area: [f64; 4],
    /// Ticks along the time axis.
    pub time_ticks: Vec<Tick>,
    /// Ticks along the value axis.
    pub value_ticks: Vec<Tick>,
    /// Every line with at least one number, measured before true per channel.
    pub lines: Vec<PlotLine>,
}

/// Lays out `series` (column `2c` number `c` measured, `2c + 1` true) in a `width` × `height` box.
pub fn lay_out(series: &Series, width: f64, height: f64) -> PlotLayout {
    let area = [LEFT, EDGE, (width - EDGE).max(LEFT + 1.0), (height - BOTTOM).max(EDGE + 1.0)];
    let times = series.times();
    let (t0, t1) = time_range(times);
    let (v0, v1) = value_range((0..series.column_count()).flat_map(|c| series.column(c).iter().copied()));
    let x = |t: f64| area[0] + (t - t0) / (t1 - t0) * (area[2] - area[0]);
    let y = |v: f64| area[3] - (v - v0) / (v1 - v0) * (area[3] - area[1]);
    let lines = (0..series.column_count())
        .filter(|&c| series.column(c).iter().any(|v| v.is_finite()))
        .map(|c| PlotLine { channel: c / 2, truth: c % 2 == 1, path: line_path(times, series.column(c), x, y) })
        .collect();
    let tick = |at: f64, value: f64, step: f64| Tick { at, label: tick_label(value, step) };
    let time_step = nice_step(t1 - t0, TICKS);
    let value_step = nice_step(v1 - v0, TICKS);
    PlotLayout {
        width,
        height,
        area,
        time_ticks: ticks(t0, t1, time_step).into_iter().map(|t| tick(x(t), t, time_step)).collect(),
        value_ticks: ticks(v0, v1, value_step).into_iter().map(|v| tick(y(v), v, value_step)).collect(),
        lines,
    }
}

/// The time axis: the samples' span, at least [`MIN_TIME_SPAN_S`] long (from the first sample).
pub fn time_range(times: &[f64]) -> (f64, f64) {
    match (times.first(), times.last()) {
        (Some(&first), Some(&last)) => (first, last.max(first + MIN_TIME_SPAN_S)),
        _ => (0.0, MIN_TIME_SPAN_S),
    }
}

/// The value axis: the finite values' span plus 8 % each side; a constant gets a band
/// of a tenth of its size (at least ±0.01) around it; nothing at all reads −1 to 1.
pub fn value_range(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if lo > hi {
        return (-1.0, 1.0);
    }
    if hi - lo < 1e-12 {
        let band = (lo.abs() * 0.1).max(0.01);
        return (lo - band, hi + band);
    }
    let pad = (hi - lo) * 0.08;
    (lo - pad, hi + pad)
}

/// The smallest round step (1, 2 or 5 times a power of ten) giving at most `count`
/// ticks over `span`: between `count / 2.5` and `count` of them, so at least two for a
/// `count` of 5.
pub fn nice_step(span: f64, count: usize) -> f64 {
    let raw = span.abs().max(1e-12) / count.max(1) as f64;
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0].into_iter().map(|m| m * power).find(|s| *s >= raw * 0.999).unwrap_or(10.0 * power)
}

/// The multiples of `step` within `[lo, hi]`.
pub fn ticks(lo: f64, hi: f64, step: f64) -> Vec<f64> {
    if !(step > 0.0 && lo.is_finite() && hi.is_finite()) {
        return Vec::new();
    }
    let first = (lo / step).ceil() as i64;
    let last = (hi / step).floor() as i64;
    (first..=last).take(50).map(|k| k as f64 * step).collect()
}

/// `value` with as many decimals as `step` needs, and no `-0`.
pub fn tick_label(value: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).clamp(0.0, 6.0) as usize;
    let text = format!("{value:.decimals$}");
    if text.starts_with('-') && text[1..].chars().all(|c| c == '0' || c == '.') { text[1..].to_owned() } else { text }
}

/// `M x y L x y …` through the finite points; a missing value starts a new piece.
pub fn line_path(times: &[f64], values: &[f64], x: impl Fn(f64) -> f64, y: impl Fn(f64) -> f64) -> String {
    let mut path = String::with_capacity(times.len() * 14);
    let mut pen_down = false;
    for (t, v) in times.iter().zip(values) {
        if !v.is_finite() {
            pen_down = false;
            continue;
        }
        path.push_str(&format!("{}{:.1} {:.1}", if pen_down { 'L' } else { 'M' }, x(*t), y(*v)));
        pen_down = true;
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_fit_the_data_and_never_collapse() {
        assert_eq!(time_range(&[]), (0.0, 1.0));
        assert_eq!(time_range(&[3.0]), (3.0, 4.0));
        assert_eq!(time_range(&[3.0, 10.0]), (3.0, 10.0));
        let (lo, hi) = value_range([0.0, 10.0, f64::NAN]);
        assert!((lo + 0.8).abs() < 1e-9 && (hi - 10.8).abs() < 1e-9);
        assert_eq!(value_range([5.0, 5.0]), (4.5, 5.5));
        assert_eq!(value_range([0.0]), (-0.01, 0.01));
        assert_eq!(value_range([f64::NAN]), (-1.0, 1.0));
    }

    #[test]
    fn ticks_are_round_numbers_inside_the_range() {
        assert_eq!(nice_step(10.0, 4), 5.0);
        assert_eq!(nice_step(1.0, 4), 0.5);
        assert_eq!(nice_step(0.07, 4), 0.02);
        assert_eq!(nice_step(8.0, 4), 2.0);
        assert_eq!(ticks(-0.8, 10.8, 5.0), vec![0.0, 5.0, 10.0]);
        assert_eq!(ticks(0.0, 1.0, f64::NAN), Vec::<f64>::new());
        assert_eq!(tick_label(0.02 * 3.0, 0.02), "0.06");
        assert_eq!(tick_label(10.0, 5.0), "10");
        assert_eq!(tick_label(-0.0001, 0.5), "0.0");
    }

    #[test]
    fn every_span_gets_at_least_two_ticks() {
        for span in [0.0804, 0.3, 1.0, 2.01, 7.7, 49.0, 0.0013] {
            for offset in [0.0, 0.013, 0.37, -0.61] {
                let (lo, hi) = (offset * span, offset * span + span);
                let count = ticks(lo, hi, nice_step(span, TICKS)).len();
                assert!((2..=TICKS + 1).contains(&count), "{count} ticks over [{lo}, {hi}]");
            }
        }
    }

    #[test]
    fn a_missing_value_breaks_the_line() {
        let path = line_path(&[0.0, 1.0, 2.0, 3.0], &[1.0, 2.0, f64::NAN, 4.0], |t| t * 10.0, |v| 100.0 - v);
        assert_eq!(path, "M0.0 99.0L10.0 98.0M30.0 96.0");
    }

    #[test]
    fn the_layout_puts_the_first_sample_left_and_the_highest_value_up() {
        let mut series = Series::new(2);
        series.push(0.0, &[0.0, f64::NAN]);
        series.push(2.0, &[1.0, f64::NAN]);
        let layout = lay_out(&series, 300.0, 120.0);
        assert_eq!(layout.lines.len(), 1, "no true values: no true line");
        let line = &layout.lines[0];
        assert_eq!((line.channel, line.truth), (0, false));
        let [left, top, right, bottom] = layout.area;
        assert!(line.path.starts_with(&format!("M{left:.1} ")), "{}", line.path);
        assert!(line.path.contains(&format!("L{right:.1} ")), "{}", line.path);
        let ys: Vec<f64> = line
            .path
            .split(['M', 'L'])
            .filter(|s| !s.is_empty())
            .map(|p| p.split(' ').nth(1).unwrap().parse().unwrap())
            .collect();
        assert!(ys[1] < ys[0] && ys[1] > top && ys[0] < bottom, "{ys:?}");
        assert!(layout.time_ticks.iter().any(|t| t.label == "1.0" && (t.at - (left + right) / 2.0).abs() < 1e-9));
        assert!(!layout.value_ticks.is_empty());
        assert!(layout.value_ticks.iter().all(|t| t.at >= top && t.at <= bottom));
    }
}
