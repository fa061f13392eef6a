//! Order statistics, window means and the time constant of a drop: the arithmetic of the
//! harness, free of the GPU so it is tested anywhere.

/// Median, minimum, maximum and mean of a set of values.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// How many values.
    pub n: usize,
    /// The median (mean of the two middle values for an even count).
    pub median: f64,
    /// The smallest value.
    pub min: f64,
    /// The largest value.
    pub max: f64,
    /// The arithmetic mean.
    pub mean: f64,
}

impl Summary {
    /// Summarises `values` (NaNs ignored); `None` when nothing is left.
    pub fn of(values: &[f64]) -> Option<Summary> {
        let mut v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let n = v.len();
        let median = if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 };
        Some(Summary { n, median, min: v[0], max: v[n - 1], mean: v.iter().sum::<f64>() / n as f64 })
    }
}

/// Mean of the values of `points` (time, value) whose time is at least `from`; `None` when
/// no point is that late.
pub fn mean_from(points: &[(f64, f64)], from: f64) -> Option<f64> {
    let tail: Vec<f64> = points.iter().filter(|(t, _)| *t >= from).map(|&(_, v)| v).collect();
    (!tail.is_empty()).then(|| tail.iter().sum::<f64>() / tail.len() as f64)
}

/// The smallest relative drop [`time_constant`] reports: below it the series is flat.
pub const MIN_RELATIVE_DROP: f64 = 0.01;

/// The time constant of a drop from the series' start to `steady`: the first time at which
/// the value has covered 1 − 1/e of the way from its start (the largest of the first three
/// points, to step over a ramp-up sample) to `steady`. `None` when the series is empty, or
/// the value does not drop by at least [`MIN_RELATIVE_DROP`] of its start. Points must be in
/// time order; times are relative to the start of the run.
pub fn time_constant(points: &[(f64, f64)], steady: f64) -> Option<f64> {
    let (peak, start) = points
        .iter()
        .take(3)
        .enumerate()
        .fold((0, f64::NAN), |best, (i, p)| if best.1.is_nan() || p.1 > best.1 { (i, p.1) } else { best });
    if start.is_nan() || start - steady < MIN_RELATIVE_DROP * start.abs() {
        return None;
    }
    let threshold = steady + (start - steady) / std::f64::consts::E;
    points[peak..].iter().find(|&&(_, v)| v <= threshold).map(|&(t, _)| t)
}

/// Splits `total` iterations of about `iteration_ms` each into chunks of about `chunk_ms`:
/// the iterations per chunk, at least one.
pub fn iterations_per_chunk(iteration_ms: f64, chunk_ms: f64) -> usize {
    let ratio = chunk_ms / iteration_ms;
    if ratio.is_finite() && ratio > 0.0 && iteration_ms > 0.0 { (ratio.round() as usize).max(1) } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_odd_even_and_nan() {
        let s = Summary::of(&[3.0, 1.0, 2.0]).unwrap();
        assert_eq!((s.n, s.median, s.min, s.max, s.mean), (3, 2.0, 1.0, 3.0, 2.0));
        let s = Summary::of(&[4.0, 1.0, f64::NAN, 2.0, 3.0]).unwrap();
        assert_eq!((s.n, s.median, s.min, s.max), (4, 2.5, 1.0, 4.0));
        assert_eq!(Summary::of(&[]), None);
        assert_eq!(Summary::of(&[f64::NAN]), None);
    }

    #[test]
    fn window_mean() {
        let pts = [(0.0, 10.0), (1.0, 20.0), (2.0, 30.0), (3.0, 40.0)];
        assert_eq!(mean_from(&pts, 2.0), Some(35.0));
        assert_eq!(mean_from(&pts, 0.0), Some(25.0));
        assert_eq!(mean_from(&pts, 3.5), None);
    }

    #[test]
    fn time_constant_of_an_exponential_drop() {
        // 1980 MHz falling to 1600 MHz with tau = 0.2 s, sampled every 10 ms.
        let pts: Vec<(f64, f64)> =
            (0..500).map(|i| i as f64 * 0.01).map(|t| (t, 1600.0 + 380.0 * (-t / 0.2).exp())).collect();
        let tau = time_constant(&pts, 1600.0).unwrap();
        assert!((tau - 0.2).abs() <= 0.011, "tau {tau}");
    }

    #[test]
    fn flat_or_rising_series_has_no_time_constant() {
        let flat: Vec<(f64, f64)> = (0..100).map(|i| (i as f64 * 0.01, 1980.0 - (i % 2) as f64)).collect();
        assert_eq!(time_constant(&flat, 1979.5), None);
        let rising = [(0.0, 1000.0), (0.1, 1500.0), (0.2, 1980.0)];
        assert_eq!(time_constant(&rising, 1980.0), None);
        assert_eq!(time_constant(&[], 1.0), None);
    }

    #[test]
    fn a_ramp_up_sample_is_stepped_over() {
        let pts = [(0.0, 900.0), (0.01, 1980.0), (0.02, 1900.0), (0.05, 1700.0), (0.5, 1600.0)];
        assert_eq!(time_constant(&pts, 1600.0), Some(0.05));
    }

    #[test]
    fn chunking() {
        assert_eq!(iterations_per_chunk(1.4, 50.0), 36);
        assert_eq!(iterations_per_chunk(80.0, 50.0), 1);
        assert_eq!(iterations_per_chunk(0.0, 50.0), 1);
        assert_eq!(iterations_per_chunk(f64::NAN, 50.0), 1);
    }
}
