//! A plot's history: samples over simulation time, several numbers each, bounded by a time window and a point count.
//!
//! Past [`WINDOW_S`] of simulation time the oldest samples go. When [`MAX_POINTS`] are
//! held, every other one is dropped: the history keeps its whole span at half the
//! density, and the newest samples arrive at full density again. Missing numbers are
//! kept as NaN so every column stays aligned with the times.

/// Simulation seconds of history a plot keeps.
pub const WINDOW_S: f64 = 60.0;
/// Most samples a plot keeps.
pub const MAX_POINTS: usize = 2000;

/// Samples, oldest first: `times[i]` and `columns[c][i]` belong together.
#[derive(Clone, Debug, PartialEq)]
pub struct Series {
    times: Vec<f64>,
    columns: Vec<Vec<f64>>,
    max_points: usize,
}

impl Series {
    /// An empty history of `columns` numbers per sample.
    pub fn new(columns: usize) -> Series {
        Series::with_limit(columns, MAX_POINTS)
    }

    /// As [`Series::new`], holding at most `max_points` (at least 2) samples.
    pub fn with_limit(columns: usize, max_points: usize) -> Series {
        Series { times: Vec::new(), columns: vec![Vec::new(); columns], max_points: max_points.max(2) }
    }

    /// Appends a sample at `time`; `values` beyond the column count are ignored and
    /// missing ones are NaN. A time not after the newest is ignored (nothing new was
    /// read: the lab is paused); `true` when the sample was added.
    pub fn push(&mut self, time: f64, values: &[f64]) -> bool {
        if !time.is_finite() || self.times.last().is_some_and(|&last| time <= last) {
            return false;
        }
        if self.times.len() >= self.max_points {
            self.halve();
        }
        self.times.push(time);
        for (c, column) in self.columns.iter_mut().enumerate() {
            column.push(values.get(c).copied().unwrap_or(f64::NAN));
        }
        let keep_from = self.times.partition_point(|&t| t < time - WINDOW_S);
        if keep_from > 0 {
            self.times.drain(..keep_from);
            for column in &mut self.columns {
                column.drain(..keep_from);
            }
        }
        true
    }

    /// Drops every sample.
    pub fn clear(&mut self) {
        self.times.clear();
        self.columns.iter_mut().for_each(Vec::clear);
    }

    /// Keeps samples 0, 2, 4…: the span stays, the density halves.
    fn halve(&mut self) {
        let keep = |values: &mut Vec<f64>| {
            let mut index = 0;
            values.retain(|_| {
                index += 1;
                index % 2 == 1
            });
        };
        keep(&mut self.times);
        self.columns.iter_mut().for_each(keep);
    }

    /// How many samples it holds.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// The sample times, oldest first.
    pub fn times(&self) -> &[f64] {
        &self.times
    }

    /// Column `c`'s numbers, one per time (empty past the last column).
    pub fn column(&self, c: usize) -> &[f64] {
        self.columns.get(c).map_or(&[], Vec::as_slice)
    }

    /// How many numbers each sample has.
    pub fn column_count(&self) -> usize {
        self.columns.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_keep_their_columns_aligned() {
        let mut series = Series::new(2);
        assert!(series.push(0.1, &[1.0, 2.0]));
        assert!(series.push(0.2, &[3.0]));
        assert_eq!(series.times(), &[0.1, 0.2]);
        assert_eq!(series.column(0), &[1.0, 3.0]);
        assert_eq!(series.column(1)[0], 2.0);
        assert!(series.column(1)[1].is_nan(), "a missing number");
        assert!(series.column(5).is_empty());
    }

    #[test]
    fn a_time_not_after_the_newest_adds_nothing() {
        let mut series = Series::new(1);
        series.push(1.0, &[1.0]);
        assert!(!series.push(1.0, &[2.0]), "paused: the same reading again");
        assert!(!series.push(0.5, &[2.0]));
        assert!(!series.push(f64::NAN, &[2.0]));
        assert_eq!(series.len(), 1);
    }

    #[test]
    fn only_the_last_minute_is_kept() {
        let mut series = Series::new(1);
        for i in 0..=700 {
            series.push(f64::from(i) * 0.1, &[f64::from(i)]);
        }
        assert!((series.times()[0] - 10.0).abs() < 1e-9, "{}", series.times()[0]);
        assert!((series.times().last().unwrap() - 70.0).abs() < 1e-9);
        assert_eq!(series.len(), 601);
    }

    #[test]
    fn a_full_series_drops_every_other_sample() {
        let mut series = Series::with_limit(1, 4);
        for i in 0..4 {
            series.push(f64::from(i), &[f64::from(i) * 10.0]);
        }
        assert_eq!(series.len(), 4);
        series.push(4.0, &[40.0]);
        assert_eq!(series.times(), &[0.0, 2.0, 4.0]);
        assert_eq!(series.column(0), &[0.0, 20.0, 40.0]);
        series.clear();
        assert!(series.is_empty());
        assert_eq!(series.column_count(), 1);
    }

    #[test]
    fn the_default_limit_holds_at_fast_rates() {
        let mut series = Series::new(1);
        for i in 0..5000 {
            series.push(f64::from(i) * 0.005, &[0.0]);
        }
        assert!(series.len() <= MAX_POINTS);
        assert!(series.times()[0] < 1.0, "the whole span is still there");
    }
}
