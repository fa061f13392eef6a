//! The SM clock a run holds, and the board power that sets it.
//!
//! A short run (a *burst*) runs at the boost clock. Under sustained load a Hopper board sits
//! at its power limit: within a fraction of a second the power manager lowers the SM clock
//! until the board draws no more than the limit, by an amount that depends on the work. The
//! memory clock does not move (calibration/gpu/README.md). This module predicts that clock
//! from what the timing model counted in a run ([`Activity`]) with the machine's power
//! description ([`Power`]):
//!
//! `P(f) = idle + s^(1+x) clock + s^x (e_tc FLOP/s + e_is instructions/s + e_l2 L2 B/s) +
//! e_hbm HBM B/s`, `s = f / boost`,
//!
//! where each rate is the run's count over its time at `f`. The sustained clock is the `f`
//! at which `P(f)` meets the limit (boost if `P(boost)` is under it, the machine's floor if
//! even that is over). Since `P` grows with `f`, bisection finds it.
//!
//! [`figures`] turns one timing run into the `burst` and `sustained` lines of its summary
//! (the run's cycle count at both clocks); [`simulate_clocked`] runs the model twice, at
//! boost and again at the predicted sustained clock, because bandwidths quoted in bytes per
//! second are worth more bytes per cycle at a lower SM clock.

use std::fmt;

use crate::Grid;
use crate::dsl::Kernel;
use crate::report::{ClockFigures, ClockLine, MemoryLevel, SimReport, Unit};

use super::error::SimError;
use super::machine::{Machine, Power};
use super::options::SimOptions;

/// What a run did, in counts that do not depend on the clock, and its length in cycles.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Activity {
    /// Tensor-core floating-point operations (2 per multiply-add).
    pub flops: f64,
    /// Warp-instructions issued, all SMs.
    pub instructions: f64,
    /// Bytes through L2 (TMA loads and stores, global accesses).
    pub l2_bytes: f64,
    /// Bytes to and from HBM.
    pub hbm_bytes: f64,
    /// Cycles of the run.
    pub cycles: f64,
}

impl Activity {
    /// The counts of a timing run on `machine`.
    pub fn of(machine: &Machine, report: &SimReport) -> Activity {
        let bytes = |level| report.traffic.iter().find(|t| t.level == level).map_or(0.0, |t| t.bytes as f64);
        let sub_partitions = f64::from(machine.issue.sub_partitions.value);
        Activity {
            flops: report.mma_flops as f64,
            instructions: report.utilisation[Unit::Issue]
                * report.cycles as f64
                * f64::from(report.sms)
                * sub_partitions,
            l2_bytes: bytes(MemoryLevel::L2),
            hbm_bytes: bytes(MemoryLevel::Hbm),
            cycles: report.cycles as f64,
        }
    }
}

/// Board power split by term, in W.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PowerTerms {
    /// Static power.
    pub idle: f64,
    /// Clocking the SMs.
    pub clock: f64,
    /// Tensor cores.
    pub tensor: f64,
    /// Issued instructions.
    pub issue: f64,
    /// L2 traffic.
    pub l2: f64,
    /// HBM traffic.
    pub hbm: f64,
}

impl PowerTerms {
    /// The board power.
    pub fn total(&self) -> f64 {
        self.idle + self.clock + self.tensor + self.issue + self.l2 + self.hbm
    }
}

/// The power model's inputs that do not depend on a [`Power`] description: per-term
/// multipliers of the coefficients, for fitting them by least squares.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerFeatures {
    /// Multiplies `clock_w`: `s^(1+x)`.
    pub clock: f64,
    /// Multiplies `tensor_pj_per_flop` (in pJ, giving W): `s^x` FLOP/s `1e-12`.
    pub tensor: f64,
    /// Multiplies `issue_pj_per_instruction`.
    pub issue: f64,
    /// Multiplies `l2_pj_per_byte`.
    pub l2: f64,
    /// Multiplies `hbm_pj_per_byte` (no voltage factor).
    pub hbm: f64,
}

impl PowerFeatures {
    /// The features of `activity` spread over `seconds` at SM clock `clock_ghz` on a machine
    /// with boost clock `boost_ghz`, with voltage exponent `x`.
    pub fn new(activity: &Activity, seconds: f64, clock_ghz: f64, boost_ghz: f64, x: f64) -> PowerFeatures {
        let s = (clock_ghz / boost_ghz).max(0.0);
        let v = s.powf(x);
        let rate = |count: f64| if seconds > 0.0 { count / seconds * 1e-12 } else { 0.0 };
        PowerFeatures {
            clock: s * v,
            tensor: v * rate(activity.flops),
            issue: v * rate(activity.instructions),
            l2: v * rate(activity.l2_bytes),
            hbm: rate(activity.hbm_bytes),
        }
    }

    /// The power terms with the coefficients of `power`.
    pub fn terms(&self, power: &Power) -> PowerTerms {
        PowerTerms {
            idle: power.idle_w.value,
            clock: self.clock * power.clock_w.value,
            tensor: self.tensor * power.tensor_pj_per_flop.value,
            issue: self.issue * power.issue_pj_per_instruction.value,
            l2: self.l2 * power.l2_pj_per_byte.value,
            hbm: self.hbm * power.hbm_pj_per_byte.value,
        }
    }
}

/// Predicted board power of `activity` run at `clock_ghz` (its cycles at that clock).
pub fn power_at(machine: &Machine, activity: &Activity, clock_ghz: f64) -> PowerTerms {
    let seconds = activity.cycles / (clock_ghz * 1e9);
    let p = &machine.power;
    PowerFeatures::new(activity, seconds, clock_ghz, machine.clocks.boost_ghz.value, p.voltage_exponent.value).terms(p)
}

/// The SM clock, in GHz, at which `activity` (its cycles held fixed) draws the machine's
/// power limit: boost if it stays under the limit there, the floor if it is over even there.
pub fn sustained_clock(machine: &Machine, activity: &Activity) -> f64 {
    let boost = machine.clocks.boost_ghz.value;
    let floor = machine.power.min_clock_ghz.value.min(boost);
    let limit = machine.power.limit_w.value;
    let over = |f: f64| power_at(machine, activity, f).total() > limit;
    if !over(boost) {
        return boost;
    }
    if over(floor) {
        return floor;
    }
    let (mut lo, mut hi) = (floor, boost);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if over(mid) { hi = mid } else { lo = mid }
    }
    lo
}

/// The SM clock `t` seconds into a sustained run that settles at `sustained_ghz`: boost
/// falling towards it with the machine's time constant.
pub fn clock_at(machine: &Machine, sustained_ghz: f64, t: f64) -> f64 {
    let boost = machine.clocks.boost_ghz.value;
    let tau = machine.power.drop_tau_s.value.max(1e-9);
    sustained_ghz + (boost - sustained_ghz) * (-t.max(0.0) / tau).exp()
}

/// The mean SM clock over the first `seconds` of a sustained run settling at `sustained_ghz`.
pub fn mean_clock(machine: &Machine, sustained_ghz: f64, seconds: f64) -> f64 {
    let boost = machine.clocks.boost_ghz.value;
    let tau = machine.power.drop_tau_s.value.max(1e-9);
    if seconds <= 0.0 {
        return boost;
    }
    sustained_ghz + (boost - sustained_ghz) * tau / seconds * (1.0 - (-seconds / tau).exp())
}

/// The `burst` and `sustained` figures of one timing run: its cycles at the boost clock and
/// at the sustained clock its activity allows.
pub fn figures(machine: &Machine, report: &SimReport) -> ClockFigures {
    let activity = Activity::of(machine, report);
    let boost = machine.clocks.boost_ghz.value;
    let sustained = sustained_clock(machine, &activity);
    let line = |clock_ghz: f64| ClockLine::new(clock_ghz, report.cycles, report.mma_flops);
    ClockFigures {
        burst: line(boost),
        sustained: line(sustained),
        power_at_boost_w: power_at(machine, &activity, boost).total(),
        limit_w: machine.power.limit_w.value,
        drop_tau_s: machine.power.drop_tau_s.value,
        cycles_at_ghz: report.clock_ghz,
    }
}

/// A kernel timed at the boost clock and at its predicted sustained clock.
#[derive(Clone, Debug, PartialEq)]
pub struct Clocked {
    /// The run at the boost clock.
    pub burst: SimReport,
    /// The run at the sustained clock predicted from the burst run's activity (the burst run
    /// itself, if that clock is boost).
    pub sustained: SimReport,
    /// The sustained clock, GHz, predicted again from the sustained run's activity.
    pub sustained_ghz: f64,
    /// Predicted board power of the burst run at boost, W.
    pub power_at_boost_w: f64,
}

impl Clocked {
    /// The burst figure.
    pub fn burst_line(&self) -> ClockLine {
        ClockLine::new(self.burst.clock_ghz, self.burst.cycles, self.burst.mma_flops)
    }

    /// The sustained figure: the sustained run's cycles at the sustained clock.
    pub fn sustained_line(&self) -> ClockLine {
        ClockLine::new(self.sustained_ghz, self.sustained.cycles, self.sustained.mma_flops)
    }
}

impl fmt::Display for Clocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "  burst      {}", self.burst_line())?;
        write!(f, "  sustained  {} (predicted {:.0} W at boost)", self.sustained_line(), self.power_at_boost_w)
    }
}

/// Times kernel `K` at the boost clock, predicts its sustained clock from that run's
/// activity, and times it again at that clock ([`SimOptions::clock_ghz`] is ignored).
pub fn simulate_clocked<K: Kernel>(
    machine: &Machine,
    grid: Grid,
    params: &K::Params,
    opts: &SimOptions,
) -> Result<Clocked, SimError> {
    let boost = machine.clocks.boost_ghz.value;
    let at = |clock: f64| SimOptions { clock_ghz: Some(clock), ..opts.clone() };
    let burst = super::simulate::<K>(machine, grid, params, &at(boost))?;
    let first = sustained_clock(machine, &Activity::of(machine, &burst));
    let power_at_boost_w = power_at(machine, &Activity::of(machine, &burst), boost).total();
    if first >= boost {
        return Ok(Clocked { sustained: burst.clone(), burst, sustained_ghz: boost, power_at_boost_w });
    }
    let sustained = super::simulate::<K>(machine, grid, params, &at(first))?;
    let sustained_ghz = sustained_clock(machine, &Activity::of(machine, &sustained));
    Ok(Clocked { burst, sustained, sustained_ghz, power_at_boost_w })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn busy() -> Activity {
        // About an 8192^3 GEMM: 1.1 TFLOP in 2.4 M cycles.
        Activity { flops: 1.1e12, instructions: 2.0e9, l2_bytes: 3.0e10, hbm_bytes: 1.0e9, cycles: 2.4e6 }
    }

    #[test]
    fn power_grows_with_the_clock_and_the_solve_meets_the_limit() {
        let mut m = Machine::h200();
        let a = busy();
        let (lo, hi) = (power_at(&m, &a, 1.2).total(), power_at(&m, &a, 1.98).total());
        assert!(lo < hi, "{lo} {hi}");
        m.power.limit_w.value = 0.5 * (lo + hi);
        let f = sustained_clock(&m, &a);
        assert!(f > 1.2 && f < 1.98, "{f}");
        assert!((power_at(&m, &a, f).total() - m.power.limit_w.value).abs() < 1e-6);
        m.power.limit_w.value = 1e6;
        assert_eq!(sustained_clock(&m, &a), 1.98);
        m.power.limit_w.value = 1.0;
        assert_eq!(sustained_clock(&m, &a), m.power.min_clock_ghz.value);
    }

    #[test]
    fn the_clock_drops_with_the_time_constant() {
        let m = Machine::h200();
        let tau = m.power.drop_tau_s.value;
        assert_eq!(clock_at(&m, 1.5, 0.0), 1.98);
        let f = clock_at(&m, 1.5, tau);
        assert!((f - (1.5 + 0.48 / std::f64::consts::E)).abs() < 1e-12);
        assert!((mean_clock(&m, 1.5, 1e6) - 1.5).abs() < 1e-5);
        assert_eq!(mean_clock(&m, 1.5, 0.0), 1.98);
        assert!(mean_clock(&m, 1.5, tau) > clock_at(&m, 1.5, tau));
    }

    #[test]
    fn features_times_coefficients_are_the_terms() {
        let m = Machine::h200();
        let a = busy();
        let t = power_at(&m, &a, 1.6);
        let s: f64 = 1.6 / 1.98;
        let x = m.power.voltage_exponent.value;
        let secs = a.cycles / 1.6e9;
        let tensor = s.powf(x) * a.flops / secs * 1e-12 * m.power.tensor_pj_per_flop.value;
        assert!((t.tensor - tensor).abs() < 1e-9);
        assert!((t.hbm - a.hbm_bytes / secs * 1e-12 * m.power.hbm_pj_per_byte.value).abs() < 1e-9);
        assert_eq!(t.idle, m.power.idle_w.value);
    }
}
