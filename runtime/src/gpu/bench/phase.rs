//! Typed results: a [`Measurement`] of one workload is a burst [`Phase`] and a sustained
//! one, each with its times, its time series and what the device reported during it.

use super::stats::{Summary, mean_from, time_constant};
use super::telemetry::{PhaseReadings, Sample, throttle_names};

/// Which of the two standard figures a phase is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PhaseKind {
    /// A few timed iterations right after warm-up: the boost clock.
    Burst,
    /// Back-to-back launches for seconds: the power-capped clock.
    Sustained,
}

impl PhaseKind {
    /// `burst` or `sustained`.
    pub fn name(self) -> &'static str {
        match self {
            PhaseKind::Burst => "burst",
            PhaseKind::Sustained => "sustained",
        }
    }
}

/// A run of iterations timed between two CUDA events.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Chunk {
    /// Start, seconds of GPU time since the phase's first event.
    pub start_s: f64,
    /// Iterations between the two events.
    pub iterations: usize,
    /// Mean milliseconds per iteration over the chunk.
    pub ms_per_iteration: f64,
}

/// The SM and memory clocks during a phase.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clocks {
    /// SM clock over all readings of the phase, MHz.
    pub sm_mhz: Summary,
    /// Mean SM clock over the steady window (the whole phase for a burst), MHz.
    pub sm_steady_mhz: f64,
    /// Mean memory clock, MHz.
    pub mem_mhz: Option<f64>,
    /// Time constant of the SM clock's drop from its start to the steady mean, s.
    pub sm_tau_s: Option<f64>,
}

/// Board power during a phase.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Power {
    /// Over all readings of the phase (instantaneous power where NVML has it), W.
    pub watts: Summary,
    /// Mean over the steady window (the whole phase for a burst), W.
    pub steady_w: f64,
    /// Whether the readings are NVML's instantaneous power (else its averaged power usage).
    pub instant: bool,
    /// Mean power from the board's energy counter over the phase, W.
    pub energy_w: Option<f64>,
}

/// One phase of a measurement.
#[derive(Debug, Clone, PartialEq)]
pub struct Phase {
    /// Burst or sustained.
    pub kind: PhaseKind,
    /// Iterations timed.
    pub iterations: usize,
    /// GPU seconds from the first to the last event.
    pub gpu_s: f64,
    /// Milliseconds per iteration: over iterations (burst) or over chunks (sustained).
    pub times_ms: Summary,
    /// The phase's figure, ms per iteration: the median (burst) or the mean over the steady
    /// window, the last `window_s` seconds (sustained).
    pub steady_ms: f64,
    /// The steady window, s (0 for a burst).
    pub window_s: f64,
    /// Time constant of the per-iteration time's rise, s (sustained).
    pub time_tau_s: Option<f64>,
    /// The time series: one chunk per iteration (burst) or per chunk of iterations.
    pub chunks: Vec<Chunk>,
    /// Device readings, in time order.
    pub samples: Vec<Sample>,
    /// Clocks, when NVML answered.
    pub clocks: Option<Clocks>,
    /// Power, when NVML answered.
    pub power: Option<Power>,
    /// Highest die temperature read, °C.
    pub temp_max_c: Option<u32>,
    /// Every throttle reason seen during the phase.
    pub throttle: Vec<&'static str>,
}

impl Phase {
    /// Builds a phase from its timed chunks (in order, non-empty) and the sampler's readings.
    /// `window_s` is the steady window of a sustained phase.
    pub fn build(kind: PhaseKind, chunks: Vec<Chunk>, readings: PhaseReadings, window_s: f64) -> Option<Phase> {
        let per_iter: Vec<f64> = chunks.iter().map(|c| c.ms_per_iteration).collect();
        let times_ms = Summary::of(&per_iter)?;
        let iterations = chunks.iter().map(|c| c.iterations).sum();
        let last = chunks.last()?;
        let gpu_s = last.start_s + last.ms_per_iteration * last.iterations as f64 / 1e3;
        let (steady_ms, window_s) = match kind {
            PhaseKind::Burst => (times_ms.median, 0.0),
            PhaseKind::Sustained => {
                let tail: Vec<&Chunk> = chunks.iter().filter(|c| c.start_s >= gpu_s - window_s).collect();
                let ms: f64 = tail.iter().map(|c| c.ms_per_iteration * c.iterations as f64).sum();
                let n: usize = tail.iter().map(|c| c.iterations).sum();
                (if n > 0 { ms / n as f64 } else { times_ms.mean }, window_s)
            }
        };
        // The time rises as the clock drops: the constant of the drop in iteration rate.
        let rate: Vec<(f64, f64)> = chunks.iter().map(|c| (c.start_s, 1.0 / c.ms_per_iteration)).collect();
        let time_tau_s = match kind {
            PhaseKind::Burst => None,
            PhaseKind::Sustained => time_constant(&rate, 1.0 / steady_ms),
        };
        let samples = readings.samples;
        let from = match kind {
            PhaseKind::Burst => f64::NEG_INFINITY,
            PhaseKind::Sustained => readings.wall_s - window_s,
        };
        let series = |f: &dyn Fn(&Sample) -> Option<f64>| -> Vec<(f64, f64)> {
            samples.iter().filter_map(|s| f(s).map(|v| (s.t_s, v))).collect()
        };
        let sm = series(&|s| s.sm_mhz.map(f64::from));
        let clocks = Summary::of(&sm.iter().map(|p| p.1).collect::<Vec<_>>()).map(|sm_mhz| {
            let sm_steady_mhz = mean_from(&sm, from).unwrap_or(sm_mhz.mean);
            let mem = series(&|s| s.mem_mhz.map(f64::from));
            Clocks {
                sm_mhz,
                sm_steady_mhz,
                mem_mhz: Summary::of(&mem.iter().map(|p| p.1).collect::<Vec<_>>()).map(|m| m.mean),
                sm_tau_s: match kind {
                    PhaseKind::Burst => None,
                    PhaseKind::Sustained => time_constant(&sm, sm_steady_mhz),
                },
            }
        });
        let instant = series(&|s| s.power_instant_w);
        let (watts, instant) = if instant.is_empty() { (series(&|s| s.power_w), false) } else { (instant, true) };
        let power = Summary::of(&watts.iter().map(|p| p.1).collect::<Vec<_>>()).map(|w| Power {
            watts: w,
            steady_w: mean_from(&watts, from).unwrap_or(w.mean),
            instant,
            energy_w: readings.energy_power_w,
        });
        let temp_max_c = samples.iter().filter_map(|s| s.temp_c).max();
        let mask = samples.iter().filter_map(|s| s.throttle).fold(0, |a, b| a | b);
        Some(Phase {
            kind,
            iterations,
            gpu_s,
            times_ms,
            steady_ms,
            window_s,
            time_tau_s,
            chunks,
            samples,
            clocks,
            power,
            temp_max_c,
            throttle: throttle_names(mask),
        })
    }
}

/// One workload measured burst and sustained.
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The workload, e.g. `cublas bf16 8192x8192x8192`.
    pub name: String,
    /// Floating-point operations per iteration, for TFLOP/s.
    pub flop: Option<f64>,
    /// The boost-clock figure.
    pub burst: Phase,
    /// The power-capped figure.
    pub sustained: Phase,
}

impl Measurement {
    /// TFLOP/s at `ms` per iteration, when the work is known.
    pub fn tflops(&self, ms: f64) -> Option<f64> {
        self.flop.filter(|_| ms > 0.0).map(|f| f / (ms * 1e-3) / 1e12)
    }

    /// The two phases, burst first.
    pub fn phases(&self) -> [&Phase; 2] {
        [&self.burst, &self.sustained]
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn sample(t_s: f64, sm: u32, w: f64, throttle: u64) -> Sample {
        Sample {
            t_s,
            sm_mhz: Some(sm),
            mem_mhz: Some(3201),
            power_w: Some(w - 10.0),
            power_instant_w: Some(w),
            temp_c: Some(40 + (t_s * 10.0) as u32),
            throttle: Some(throttle),
        }
    }

    /// A sustained phase whose clock drops from 1980 to 1600 MHz (tau 0.2 s) over 3 s.
    pub(crate) fn sustained() -> Phase {
        let chunks: Vec<Chunk> = (0..60)
            .map(|i| {
                let t = i as f64 * 0.05;
                let mhz = 1600.0 + 380.0 * (-t / 0.2).exp();
                Chunk { start_s: t, iterations: 50, ms_per_iteration: 1980.0 / mhz }
            })
            .collect();
        let samples = (0..300)
            .map(|i| {
                let t = i as f64 * 0.01;
                sample(t, (1600.0 + 380.0 * (-t / 0.2).exp()) as u32, 700.0, if t > 0.1 { 0x4 } else { 0 })
            })
            .collect();
        let readings = PhaseReadings { samples, energy_power_w: Some(695.0), wall_s: 3.0 };
        Phase::build(PhaseKind::Sustained, chunks, readings, 1.0).unwrap()
    }

    #[test]
    fn sustained_phase_steady_figures_and_time_constants() {
        let p = sustained();
        assert_eq!(p.iterations, 3000);
        // The last chunk starts at 2.95 s and runs 50 iterations at the steady 1.2375 ms.
        assert!((p.gpu_s - (2.95 + 0.05 * 1.2375)).abs() < 1e-4, "{}", p.gpu_s);
        assert!((p.steady_ms - 1980.0 / 1600.0).abs() < 1e-3, "{}", p.steady_ms);
        let c = p.clocks.unwrap();
        assert!((c.sm_steady_mhz - 1600.0).abs() < 1.0);
        assert_eq!(c.mem_mhz, Some(3201.0));
        let tau = c.sm_tau_s.unwrap();
        assert!((tau - 0.2).abs() <= 0.011, "{tau}");
        let time_tau = p.time_tau_s.unwrap();
        assert!((time_tau - 0.2).abs() <= 0.051, "{time_tau}");
        let w = p.power.unwrap();
        assert!(w.instant && w.steady_w == 700.0 && w.energy_w == Some(695.0));
        assert_eq!(p.throttle, vec!["SW_POWER_CAP"]);
        assert_eq!(p.temp_max_c, Some(69));
    }

    #[test]
    fn burst_phase_uses_the_median_and_all_readings() {
        let chunks = [1.0, 1.2, 0.9, 1.1, 5.0]
            .iter()
            .enumerate()
            .map(|(i, &ms)| Chunk { start_s: i as f64 * 1e-3, iterations: 1, ms_per_iteration: ms })
            .collect();
        let readings = PhaseReadings {
            samples: vec![sample(0.0, 1980, 400.0, 0), sample(0.01, 1970, 500.0, 0)],
            energy_power_w: None,
            wall_s: 0.01,
        };
        let p = Phase::build(PhaseKind::Burst, chunks, readings, 1.0).unwrap();
        assert_eq!((p.iterations, p.steady_ms, p.times_ms.max), (5, 1.1, 5.0));
        assert_eq!(p.clocks.unwrap().sm_steady_mhz, 1975.0);
        assert_eq!(p.clocks.unwrap().sm_tau_s, None);
        assert_eq!(p.power.unwrap().steady_w, 450.0);
        assert!(p.throttle.is_empty());
    }

    #[test]
    fn no_readings_no_clocks_and_no_chunks_no_phase() {
        let chunks = vec![Chunk { start_s: 0.0, iterations: 1, ms_per_iteration: 1.0 }];
        let none = PhaseReadings { samples: vec![], energy_power_w: None, wall_s: 0.0 };
        let p = Phase::build(PhaseKind::Burst, chunks, none.clone(), 1.0).unwrap();
        assert!(p.clocks.is_none() && p.power.is_none() && p.temp_max_c.is_none());
        assert!(Phase::build(PhaseKind::Burst, vec![], none, 1.0).is_none());
    }

    #[test]
    fn tflops_from_flop_and_time() {
        let p = sustained();
        let m = Measurement { name: "g".into(), flop: Some(2.0 * 8192f64.powi(3)), burst: p.clone(), sustained: p };
        assert!((m.tflops(1.412).unwrap() - 778.7).abs() < 0.1);
        assert_eq!(m.tflops(0.0), None);
    }
}
