//! The lidar plot's geometry: a planar scan seen from above, the robot at the centre, its forward axis pointing up.
//!
//! Beam `i` points along `angle_min + i·angle_step`, counter-clockwise from forward seen
//! from above; with forward up, counter-clockwise turns towards the plot's left. In SVG
//! coordinates (y down) a beam of length `r` at angle `a` ends at
//! `(c − r·sin a, c − r·cos a)`. Points are written as zero-length path segments, drawn
//! as dots by round line caps: one `<path>` per kind of point, whatever the beam count.

use vlab_protocol::SensorValue;

/// Blank space between the outer ring and the plot's edge, as a share of its side.
const MARGIN_SHARE: f64 = 0.04;

/// A scan laid out in a square of `size` SVG units.
#[derive(Clone, Debug, PartialEq)]
pub struct ScanPlot {
    /// Side of the square.
    pub size: f64,
    /// The robot: both coordinates of the centre.
    pub centre: f64,
    /// Radius of the ring at the sensor's maximum range.
    pub radius: f64,
    /// Ends of the beams that hit something.
    pub hits: Vec<[f64; 2]>,
    /// Ends of the beams that reached the maximum range without a hit.
    pub misses: Vec<[f64; 2]>,
    /// Ends of the first and the last beam on the outer ring (the field of view), if any beam.
    pub field_of_view: Option<([f64; 2], [f64; 2])>,
}

/// The radius of the ring at maximum range in a plot of side `size`.
pub fn outer_radius(size: f64) -> f64 {
    size * (0.5 - MARGIN_SHARE)
}

/// Lays out a scan in a square of `size` units; beams with a non-finite range are left out.
pub fn plot_scan(angle_min: f64, angle_step: f64, max_range: f64, ranges: &[f32], size: f64) -> ScanPlot {
    let centre = size / 2.0;
    let radius = outer_radius(size);
    // A nonsensical maximum must not hide the points: scale to the longest beam instead.
    let scale_range = if max_range.is_finite() && max_range > 0.0 {
        max_range
    } else {
        ranges.iter().filter(|r| r.is_finite()).fold(0.0_f64, |m, r| m.max(f64::from(*r))).max(1.0)
    };
    let at = |angle: f64, range: f64| {
        let reach = radius * (range / scale_range).clamp(0.0, 1.0);
        [centre - reach * angle.sin(), centre - reach * angle.cos()]
    };
    let mut hits = Vec::new();
    let mut misses = Vec::new();
    for (index, range) in ranges.iter().enumerate() {
        if !range.is_finite() {
            continue;
        }
        let range = f64::from(*range);
        let angle = angle_min + index as f64 * angle_step;
        if range < scale_range { hits.push(at(angle, range)) } else { misses.push(at(angle, scale_range)) }
    }
    let field_of_view = (!ranges.is_empty()).then(|| {
        let last = angle_min + (ranges.len() - 1) as f64 * angle_step;
        (at(angle_min, scale_range), at(last, scale_range))
    });
    ScanPlot { size, centre, radius, hits, misses, field_of_view }
}

impl ScanPlot {
    /// The plot of a [`SensorValue::Scan`]; `None` for any other value.
    pub fn of(value: &SensorValue, size: f64) -> Option<ScanPlot> {
        match value {
            SensorValue::Scan { angle_min, angle_step, max_range, ranges } => {
                Some(plot_scan(*angle_min, *angle_step, *max_range, ranges, size))
            }
            _ => None,
        }
    }

    /// The `d` of a path drawing each hit as a dot.
    pub fn hits_path(&self) -> String {
        dots_path(&self.hits)
    }

    /// The `d` of a path drawing each miss as a dot.
    pub fn misses_path(&self) -> String {
        dots_path(&self.misses)
    }

    /// The `d` of the two edges of the field of view, from the first beam's end through
    /// the robot to the last beam's end; empty without beams.
    pub fn field_of_view_path(&self) -> String {
        self.field_of_view.map_or_else(String::new, |(first, last)| {
            format!(
                "M{:.1} {:.1}L{:.1} {:.1}L{:.1} {:.1}",
                first[0], first[1], self.centre, self.centre, last[0], last[1]
            )
        })
    }
}

/// Zero-length segments, one per point, at 0.1-unit resolution (a pixel is plenty).
fn dots_path(points: &[[f64; 2]]) -> String {
    let mut d = String::with_capacity(points.len() * 14);
    for [x, y] in points {
        d.push_str(&format!("M{x:.1} {y:.1}h0"));
    }
    d
}

#[cfg(test)]
mod tests {
    use std::f64::consts::{FRAC_PI_2, PI};

    use super::*;

    fn close(a: [f64; 2], b: [f64; 2]) -> bool {
        (a[0] - b[0]).abs() < 1e-9 && (a[1] - b[1]).abs() < 1e-9
    }

    #[test]
    fn forward_is_up_and_counter_clockwise_is_left() {
        // Beams at −90° (right), 0° (forward), +90° (left), 180° (behind), each at half range.
        let plot = plot_scan(-FRAC_PI_2, FRAC_PI_2, 10.0, &[5.0, 5.0, 5.0, 5.0], 100.0);
        assert_eq!(plot.centre, 50.0);
        assert_eq!(plot.radius, 46.0);
        let half = 23.0;
        let expected = [[50.0 + half, 50.0], [50.0, 50.0 - half], [50.0 - half, 50.0], [50.0, 50.0 + half]];
        assert_eq!(plot.hits.len(), 4);
        for (got, want) in plot.hits.iter().zip(expected) {
            assert!(close(*got, want), "{got:?} should be {want:?}");
        }
        assert!(plot.misses.is_empty());
    }

    #[test]
    fn beams_without_a_hit_sit_on_the_outer_ring() {
        let plot = plot_scan(0.0, 0.1, 4.0, &[4.0, 9.0, 1.0, f32::NAN], 200.0);
        assert_eq!(plot.hits.len(), 1);
        assert_eq!(plot.misses.len(), 2, "at and beyond the maximum range; NaN left out");
        for [x, y] in &plot.misses {
            let distance = ((x - plot.centre).powi(2) + (y - plot.centre).powi(2)).sqrt();
            assert!((distance - plot.radius).abs() < 1e-9);
        }
    }

    #[test]
    fn the_field_of_view_spans_first_to_last_beam() {
        let plot = plot_scan(-FRAC_PI_2, PI / 2.0, 10.0, &[1.0, 1.0, 1.0], 100.0);
        let (first, last) = plot.field_of_view.unwrap();
        assert!(close(first, [96.0, 50.0]), "{first:?}: the first beam points right");
        assert!(close(last, [4.0, 50.0]), "{last:?}: the last beam points left");
        assert_eq!(plot.field_of_view_path(), "M96.0 50.0L50.0 50.0L4.0 50.0");
        assert_eq!(plot_scan(0.0, 0.1, 1.0, &[], 100.0).field_of_view_path(), "");
    }

    #[test]
    fn dots_are_zero_length_segments() {
        let plot = plot_scan(0.0, 0.0, 2.0, &[1.0, 2.0], 100.0);
        assert_eq!(plot.hits_path(), "M50.0 27.0h0");
        assert_eq!(plot.misses_path(), "M50.0 4.0h0");
    }

    #[test]
    fn a_bad_maximum_range_scales_to_the_longest_beam() {
        let plot = plot_scan(0.0, 0.0, 0.0, &[2.0, 1.0], 100.0);
        assert_eq!(plot.misses.len(), 1);
        assert_eq!(plot.hits.len(), 1);
        assert!(close(plot.hits[0], [50.0, 27.0]));
    }

    #[test]
    fn only_scans_have_a_plot() {
        assert!(ScanPlot::of(&SensorValue::Scalar { value: 1.0 }, 100.0).is_none());
        let scan = SensorValue::Scan { angle_min: 0.0, angle_step: 0.0, max_range: 1.0, ranges: vec![0.5] };
        assert_eq!(ScanPlot::of(&scan, 100.0).unwrap().hits.len(), 1);
    }
}
