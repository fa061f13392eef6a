//! The SM clock a run holds, and the board power that sets it.
//!
//! The clock that matters is the one the SM counts its own cycles in (`clock64`, Nsight
//! Compute's `sm__cycles_elapsed`): the model's cycles tick at it. On the H200 it is not the
//! clock the board reports: a loaded SM runs at most at [`Power::loaded_max_ghz`] while NVML
//! reads boost, and cycles over time are 0.92x NVML's reading in sustained runs of every
//! kernel family (calibration/validate/h200/ncu/effective.txt). Two limits set it:
//!
//! - a *burst* (a short run) runs where the board would draw [`Power::burst_limit_w`]: a
//!   fast limiter holds tensor-heavy GEMMs at 1.4-1.7 GHz within the first milliseconds;
//! - under sustained load the power manager lowers the clock within a fraction of a second
//!   until the board draws no more than its limit, [`Power::limit_w`].
//!
//! Both are read off one power model of what the timing model counted in a run
//! ([`Activity`]), with the machine's description ([`Power`]):
//!
//! `P(f) = idle + s^(1+x) clock + s^x (e_tc FLOP/s + e_is instructions/s + e_l2 L2 B/s) +
//! e_hbm HBM B/s`, `s = f / boost`,
//!
//! where each rate is the run's count over its time at `f`. The clock at a limit is the `f`
//! at which `P(f)` meets it, at most `loaded_max_ghz` and at least the machine's floor; since
//! `P` grows with `f`, bisection finds it. The memory and L2 clocks do not follow the SM
//! clock (L2 at 1.70 GHz at every SM clock measured).
//!
//! [`figures`] turns one timing run into the `burst` and `sustained` lines of its summary
//! (the run's cycle count at both clocks); [`simulate_clocked`] runs the model again at each
//! clock, because bandwidths quoted in bytes per second are worth more bytes per cycle at a
//! lower SM clock.

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

/// The SM clock, in GHz, at which `activity` (its cycles held fixed) draws `limit_w`: the
/// top clock under load if it stays under the limit there, the floor if it is over even there.
pub fn clock_at_limit(machine: &Machine, activity: &Activity, limit_w: f64) -> f64 {
    let top = machine.power.loaded_max_ghz.value.min(machine.clocks.boost_ghz.value);
    let floor = machine.power.min_clock_ghz.value.min(top);
    let over = |f: f64| power_at(machine, activity, f).total() > limit_w;
    if !over(top) {
        return top;
    }
    if over(floor) {
        return floor;
    }
    let (mut lo, mut hi) = (floor, top);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if over(mid) { hi = mid } else { lo = mid }
    }
    lo
}

/// The SM clock of a sustained run of `activity`: where it draws the board's power limit.
pub fn sustained_clock(machine: &Machine, activity: &Activity) -> f64 {
    clock_at_limit(machine, activity, machine.power.limit_w.value)
}

/// The SM clock of a short run of `activity`: where it draws what the fast limiter allows.
pub fn burst_clock(machine: &Machine, activity: &Activity) -> f64 {
    clock_at_limit(machine, activity, machine.power.burst_limit_w.value)
}

/// The SM clock `t` seconds into a sustained run that settles at `sustained_ghz`: the top
/// clock under load falling towards it with the machine's time constant.
pub fn clock_at(machine: &Machine, sustained_ghz: f64, t: f64) -> f64 {
    let boost = machine.power.loaded_max_ghz.value;
    let tau = machine.power.drop_tau_s.value.max(1e-9);
    sustained_ghz + (boost - sustained_ghz) * (-t.max(0.0) / tau).exp()
}

/// The mean SM clock over the first `seconds` of a sustained run settling at `sustained_ghz`.
pub fn mean_clock(machine: &Machine, sustained_ghz: f64, seconds: f64) -> f64 {
    let boost = machine.power.loaded_max_ghz.value;
    let tau = machine.power.drop_tau_s.value.max(1e-9);
    if seconds <= 0.0 {
        return boost;
    }
    sustained_ghz + (boost - sustained_ghz) * tau / seconds * (1.0 - (-seconds / tau).exp())
}

/// The `burst` and `sustained` figures of one timing run: its cycles at the burst clock and
/// at the sustained clock its activity allows.
pub fn figures(machine: &Machine, report: &SimReport) -> ClockFigures {
    let activity = Activity::of(machine, report);
    let boost = machine.clocks.boost_ghz.value;
    let top = machine.power.loaded_max_ghz.value.min(boost);
    let line = |clock_ghz: f64| ClockLine::new(clock_ghz, report.cycles, report.mma_flops);
    ClockFigures {
        burst: line(burst_clock(machine, &activity)),
        sustained: line(sustained_clock(machine, &activity)),
        top_ghz: top,
        power_at_top_w: power_at(machine, &activity, top).total(),
        burst_limit_w: machine.power.burst_limit_w.value,
        limit_w: machine.power.limit_w.value,
        drop_tau_s: machine.power.drop_tau_s.value,
        cycles_at_ghz: report.clock_ghz,
    }
}

/// How close, relative, the clock a run ran at and the clock its own activity gives at a
/// power limit must be for [`settle`] to stop.
pub const SETTLE_TOLERANCE: f64 = 0.01;

/// The most runs [`settle`] makes, the one it is given included.
pub const SETTLE_RUNS: u32 = 4;

/// A run at the clock its own activity holds at a power limit.
#[derive(Clone, Debug, PartialEq)]
pub struct Settled {
    /// The last run.
    pub report: SimReport,
    /// The clock, GHz, the last run's activity gives at the limit (within
    /// [`SETTLE_TOLERANCE`] of the clock it ran at, unless `runs` reached [`SETTLE_RUNS`]).
    pub clock_ghz: f64,
    /// Runs made, `first` included.
    pub runs: u32,
}

/// Runs kernel `K` again until the clock it runs at is the clock its own activity draws
/// `limit_w` at. A kernel whose time is set by the L2's or HBM's bandwidth (fixed in bytes
/// per second) takes more cycles at a higher SM clock, and fewer cycles mean higher rates
/// and more power, so one run at a clock guessed from another run's counts can land away
/// from its own clock. `first` is a run at any clock ([`SimReport::clock_ghz`]); each next
/// run is at the clock the one before gives, which converges where the cycles grow more
/// slowly than the clock.
pub fn settle<K: Kernel>(
    machine: &Machine,
    grid: Grid,
    params: &K::Params,
    opts: &SimOptions,
    first: SimReport,
    limit_w: f64,
) -> Result<Settled, SimError> {
    let mut report = first;
    let mut runs = 1;
    loop {
        let clock_ghz = clock_at_limit(machine, &Activity::of(machine, &report), limit_w);
        if (clock_ghz - report.clock_ghz).abs() <= SETTLE_TOLERANCE * clock_ghz || runs >= SETTLE_RUNS {
            return Ok(Settled { report, clock_ghz, runs });
        }
        let at = SimOptions { clock_ghz: Some(clock_ghz), ..opts.clone() };
        report = super::simulate::<K>(machine, grid, params, &at)?;
        runs += 1;
    }
}

/// A kernel timed at its burst clock and at its sustained clock.
#[derive(Clone, Debug, PartialEq)]
pub struct Clocked {
    /// The run at the burst clock.
    pub burst: SimReport,
    /// The burst clock, GHz, from the burst run's own activity.
    pub burst_ghz: f64,
    /// The run at the sustained clock (the burst run itself, if that clock is the burst
    /// clock).
    pub sustained: SimReport,
    /// The sustained clock, GHz, from the sustained run's own activity.
    pub sustained_ghz: f64,
    /// Predicted board power of the run at the top clock under load, W.
    pub power_at_top_w: f64,
}

impl Clocked {
    /// The burst figure.
    pub fn burst_line(&self) -> ClockLine {
        ClockLine::new(self.burst_ghz, self.burst.cycles, self.burst.mma_flops)
    }

    /// The sustained figure: the sustained run's cycles at the sustained clock.
    pub fn sustained_line(&self) -> ClockLine {
        ClockLine::new(self.sustained_ghz, self.sustained.cycles, self.sustained.mma_flops)
    }
}

impl fmt::Display for Clocked {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "  burst      {}", self.burst_line())?;
        write!(f, "  sustained  {} (predicted {:.0} W at the top clock)", self.sustained_line(), self.power_at_top_w)
    }
}

/// Times kernel `K` at the top clock under load, then at the burst clock and at the
/// sustained clock, each [`settle`]d: the clock a run is at is the one its own activity
/// gives ([`SimOptions::clock_ghz`] is ignored).
pub fn simulate_clocked<K: Kernel>(
    machine: &Machine,
    grid: Grid,
    params: &K::Params,
    opts: &SimOptions,
) -> Result<Clocked, SimError> {
    let top = machine.power.loaded_max_ghz.value.min(machine.clocks.boost_ghz.value);
    let first = super::simulate::<K>(machine, grid, params, &SimOptions { clock_ghz: Some(top), ..opts.clone() })?;
    let power_at_top_w = power_at(machine, &Activity::of(machine, &first), top).total();
    let burst = settle::<K>(machine, grid, params, opts, first, machine.power.burst_limit_w.value)?;
    let sustained = settle::<K>(machine, grid, params, opts, burst.report.clone(), machine.power.limit_w.value)?;
    Ok(Clocked {
        burst: burst.report,
        burst_ghz: burst.clock_ghz,
        sustained: sustained.report,
        sustained_ghz: sustained.clock_ghz,
        power_at_top_w,
    })
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
        let top = m.power.loaded_max_ghz.value;
        let a = busy();
        let (lo, hi) = (power_at(&m, &a, 1.2).total(), power_at(&m, &a, top).total());
        assert!(lo < hi, "{lo} {hi}");
        m.power.limit_w.value = 0.5 * (lo + hi);
        let f = sustained_clock(&m, &a);
        assert!(f > 1.2 && f < top, "{f}");
        assert!((power_at(&m, &a, f).total() - m.power.limit_w.value).abs() < 1e-6);
        m.power.limit_w.value = 1e6;
        assert_eq!(sustained_clock(&m, &a), top, "capped at the top clock under load, not boost");
        m.power.limit_w.value = 1.0;
        assert_eq!(sustained_clock(&m, &a), m.power.min_clock_ghz.value);
    }

    #[test]
    fn a_burst_runs_where_the_fast_limit_is_met() {
        let m = Machine::h200();
        let a = busy();
        let (burst, sustained) = (burst_clock(&m, &a), sustained_clock(&m, &a));
        assert!(sustained < burst && burst < m.power.loaded_max_ghz.value, "{sustained} {burst}");
        assert!((power_at(&m, &a, burst).total() - m.power.burst_limit_w.value).abs() < 1e-6);
        // A light kernel runs at the top clock in both.
        let light = Activity { flops: 1e9, instructions: 1e6, l2_bytes: 1e6, hbm_bytes: 1e6, cycles: 2.4e6 };
        let top = m.power.loaded_max_ghz.value;
        assert_eq!((burst_clock(&m, &light), sustained_clock(&m, &light)), (top, top));
    }

    #[test]
    fn the_clock_drops_with_the_time_constant() {
        let m = Machine::h200();
        let (tau, top) = (m.power.drop_tau_s.value, m.power.loaded_max_ghz.value);
        assert_eq!(clock_at(&m, 1.5, 0.0), top);
        let f = clock_at(&m, 1.5, tau);
        assert!((f - (1.5 + (top - 1.5) / std::f64::consts::E)).abs() < 1e-12);
        assert!((mean_clock(&m, 1.5, 1e6) - 1.5).abs() < 1e-5);
        assert_eq!(mean_clock(&m, 1.5, 0.0), top);
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
