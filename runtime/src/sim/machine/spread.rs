//! The spread of a measured latency: its 10th and 90th percentiles beside the median that the
//! latency parameter gives, and the distribution the timing model draws that latency from.

/// The 10th and 90th percentiles of a latency, in cycles; the median is the latency parameter
/// the spread belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spread {
    /// 10th percentile.
    pub p10: u32,
    /// 90th percentile.
    pub p90: u32,
}

impl Spread {
    /// A spread scaled from `of` (measured around `median`) to a latency whose median is
    /// `to`: the same percentiles relative to the median.
    pub fn scaled(of: Spread, median: u32, to: u32) -> Spread {
        let scale = |p: u32| (f64::from(p) * f64::from(to) / f64::from(median.max(1))).round() as u32;
        Spread { p10: scale(of.p10), p90: scale(of.p90) }
    }

    /// The latency at quantile `u` (0 to 1) of the distribution with this spread around
    /// `median`: linear from the 10th percentile to the median and from the median to the
    /// 90th, each slope continued over the outer tenth (a density that is flat within each
    /// half, the tails no heavier than the body). Never negative.
    pub fn quantile(&self, median: f64, u: f64) -> f64 {
        let (lo, hi) = (f64::from(self.p10).min(median), f64::from(self.p90).max(median));
        let u = u.clamp(0.0, 1.0);
        let x =
            if u < 0.5 { median - (0.5 - u) / 0.4 * (median - lo) } else { median + (u - 0.5) / 0.4 * (hi - median) };
        x.max(0.0)
    }

    /// Whether `median` lies between the percentiles (a spread that can describe it).
    pub fn brackets(&self, median: u32) -> bool {
        self.p10 <= median && median <= self.p90
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_follow_the_percentiles() {
        let s = Spread { p10: 537, p90: 815 };
        assert_eq!(s.quantile(695.0, 0.5), 695.0);
        assert!((s.quantile(695.0, 0.1) - 537.0).abs() < 1e-9);
        assert!((s.quantile(695.0, 0.9) - 815.0).abs() < 1e-9);
        assert!((s.quantile(695.0, 0.0) - (537.0 - 158.0 / 4.0)).abs() < 1e-9);
        assert!((s.quantile(695.0, 1.0) - (815.0 + 30.0)).abs() < 1e-9);
        // The mean of the distribution, against the measured mean of the same samples
        // (HBM pointer chase on the H200: median 695, mean 680): within 1%.
        let n = 10_000;
        let mean = (0..n).map(|i| s.quantile(695.0, (f64::from(i) + 0.5) / f64::from(n))).sum::<f64>() / f64::from(n);
        assert!((mean / 680.3 - 1.0).abs() < 0.01, "mean {mean}");
        assert!(s.brackets(695) && !s.brackets(900));
        assert_eq!(Spread::scaled(s, 695, 1390), Spread { p10: 1074, p90: 1630 });
        assert_eq!(Spread { p10: 0, p90: 5 }.quantile(1.0, 0.0), 0.0, "never negative");
    }
}
