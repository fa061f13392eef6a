//! The `burst` and `sustained` figures of a run: its time and throughput at the SM clock a
//! short run holds and at the clock the board's power limit allows under sustained load
//! (`sim::clock`).

use std::fmt;

/// Time and throughput of a run at one SM clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClockLine {
    /// The SM clock assumed, GHz.
    pub clock_ghz: f64,
    /// Time, s.
    pub seconds: f64,
    /// MMA throughput, TFLOP/s.
    pub tflops: f64,
}

impl ClockLine {
    /// `cycles` of a run with `flops` MMA operations at `clock_ghz`.
    pub fn new(clock_ghz: f64, cycles: u64, flops: u64) -> ClockLine {
        let seconds = if clock_ghz > 0.0 { cycles as f64 / (clock_ghz * 1e9) } else { 0.0 };
        let tflops = if seconds > 0.0 { flops as f64 / seconds / 1e12 } else { 0.0 };
        ClockLine { clock_ghz, seconds, tflops }
    }
}

impl fmt::Display for ClockLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3} us, {:.1} TFLOP/s at {:.3} GHz", self.seconds * 1e6, self.tflops, self.clock_ghz)
    }
}

/// A run's burst and sustained figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClockFigures {
    /// At the burst clock (a short run).
    pub burst: ClockLine,
    /// At the sustained clock (a run long enough to settle at the power limit).
    pub sustained: ClockLine,
    /// The top SM clock under load, GHz (`power.loaded_max_ghz`).
    pub top_ghz: f64,
    /// Predicted board power at the top clock, W.
    pub power_at_top_w: f64,
    /// The power a short run may draw, W (`power.burst_limit_w`).
    pub burst_limit_w: f64,
    /// The board power limit, W.
    pub limit_w: f64,
    /// Time constant of the clock's drop, s.
    pub drop_tau_s: f64,
    /// The clock the run's cycles were counted at, GHz.
    pub cycles_at_ghz: f64,
}

impl fmt::Display for ClockFigures {
    /// Two summary lines, `burst` and `sustained`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (p, top) = (self.power_at_top_w, self.top_ghz);
        let burst = if self.burst.clock_ghz < top {
            format!("{p:.0} W predicted at {top:.3} GHz > the {:.0} W of a short run", self.burst_limit_w)
        } else {
            format!("the top clock under load; {p:.0} W predicted")
        };
        writeln!(f, "  burst      {} ({burst}; cycles counted at {:.3} GHz)", self.burst, self.cycles_at_ghz)?;
        let why = if self.sustained.clock_ghz < top {
            format!("{p:.0} W predicted at {top:.3} GHz > the {:.0} W limit", self.limit_w)
        } else {
            format!("{p:.0} W predicted at {top:.3} GHz, under the {:.0} W limit", self.limit_w)
        };
        write!(f, "  sustained  {} ({why}; clock drop tau {:.2} s)", self.sustained, self.drop_tau_s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_at_two_clocks() {
        let burst = ClockLine::new(2.0, 2_000_000, 2_000_000_000_000);
        assert_eq!(burst.seconds, 1e-3);
        assert!((burst.tflops - 2000.0).abs() < 1e-9);
        let figures = ClockFigures {
            burst,
            sustained: ClockLine::new(1.5, 2_000_000, 2_000_000_000_000),
            top_ghz: 2.0,
            power_at_top_w: 900.0,
            burst_limit_w: 950.0,
            limit_w: 700.0,
            drop_tau_s: 0.12,
            cycles_at_ghz: 1.83,
        };
        let text = figures.to_string();
        assert!(text.contains("burst      1000.000 us, 2000.0 TFLOP/s at 2.000 GHz"), "{text}");
        assert!(text.contains("sustained  1333.333 us, 1500.0 TFLOP/s at 1.500 GHz (900 W predicted"), "{text}");
        assert_eq!(ClockLine::new(0.0, 1, 1).seconds, 0.0);
    }
}
