//! The GPU measurement harness: times any launch closure on a [`Gpu`]'s stream with CUDA
//! events, in the project's two standard figures, with the device's clocks and power
//! sampled during each.
//!
//! - **burst**: after a rest (so the clock is back at boost) and a warm-up, `burst`
//!   iterations each between two events: median, min, max per iteration;
//! - **sustained**: back-to-back launches in chunks of about `chunk` between events until at
//!   least `sustained` seconds of GPU time: the mean per iteration over the last `window`,
//!   and the chunk series, from which the time constant of the drop is read.
//!
//! A [`telemetry::Sampler`] thread reads SM clock, memory clock, power, temperature and
//! throttle reasons through NVML during each phase (nothing, with a note, without NVML).
//! Results are typed ([`Measurement`], [`Phase`]) and rendered by [`render`] as a table and
//! as CSV. Waits have a host-side deadline, so a hung launch is an error, not a frozen process.
//!
//! ```no_run
//! # use warpspec::gpu::{Gpu, GpuError, bench::{Bench, BenchConfig}};
//! # fn f(gpu: &Gpu, launch: impl FnMut() -> Result<(), GpuError>) -> Result<(), GpuError> {
//! let mut bench = Bench::new(gpu, BenchConfig::default())?;
//! let m = bench.measure("my kernel", Some(2.0 * 4096f64.powi(3)), launch)?;
//! print!("{}", warpspec::gpu::bench::render::table(&[m]));
//! # Ok(()) }
//! ```

pub mod phase;
pub mod render;
pub mod stats;
pub mod telemetry;
mod timer;

pub use phase::{Chunk, Clocks, Measurement, Phase, PhaseKind, Power};
pub use stats::Summary;
pub use telemetry::{Sample, Telemetry};

use super::{Gpu, GpuError};
use std::time::{Duration, Instant};
use telemetry::Sampler;
use timer::Events;

/// How long and how often to measure.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchConfig {
    /// Untimed iterations before the burst.
    pub warmup: usize,
    /// Timed iterations of the burst.
    pub burst: usize,
    /// Least GPU time of the sustained phase.
    pub sustained: Duration,
    /// The sustained figure is the mean over this last stretch.
    pub window: Duration,
    /// Target GPU time between two events of the sustained phase.
    pub chunk: Duration,
    /// Idle time before the warm-up, so that the burst starts from the boost clock.
    pub rest: Duration,
    /// NVML sampling interval.
    pub sample_every: Duration,
    /// Host-side deadline of each wait on the device.
    pub timeout: Duration,
}

impl Default for BenchConfig {
    /// The project standard: 10 burst iterations after 10 of warm-up, 5 s sustained with the
    /// last second as its figure, 50 ms chunks, 1 s rest, readings every 10 ms.
    fn default() -> Self {
        BenchConfig {
            warmup: 10,
            burst: 10,
            sustained: Duration::from_secs(5),
            window: Duration::from_secs(1),
            chunk: Duration::from_millis(50),
            rest: Duration::from_secs(1),
            sample_every: Duration::from_millis(10),
            timeout: Duration::from_secs(60),
        }
    }
}

impl BenchConfig {
    /// Checks that every figure can be formed.
    pub fn validate(&self) -> Result<(), GpuError> {
        let bad = |what: &str| Err(GpuError::InvalidArgument(format!("benchmark: {what}")));
        if self.burst == 0 {
            return bad("a burst needs at least one iteration");
        }
        if self.sustained.is_zero() || self.chunk.is_zero() || self.window.is_zero() {
            return bad("the sustained time, its chunk and its window must be positive");
        }
        if self.window > self.sustained {
            return bad("the sustained window is longer than the sustained phase");
        }
        if self.sample_every.is_zero() || self.timeout.is_zero() {
            return bad("the sampling interval and the timeout must be positive");
        }
        Ok(())
    }
}

/// Measures workloads on one GPU; owns the NVML sampler.
pub struct Bench<'g> {
    gpu: &'g Gpu,
    config: BenchConfig,
    sampler: Sampler,
    next_tag: usize,
}

impl<'g> Bench<'g> {
    /// A harness for `gpu`; starts the sampler (which notes when NVML is absent).
    pub fn new(gpu: &'g Gpu, config: BenchConfig) -> Result<Bench<'g>, GpuError> {
        config.validate()?;
        let sampler = Sampler::start(gpu, config.sample_every);
        Ok(Bench { gpu, config, sampler, next_tag: 1 })
    }

    /// Where clock and power readings come from, or why there are none.
    pub fn telemetry(&self) -> &Telemetry {
        self.sampler.telemetry()
    }

    /// The configuration in use.
    pub fn config(&self) -> &BenchConfig {
        &self.config
    }

    /// Measures `launch`, which enqueues one iteration of the workload on this GPU's stream
    /// (e.g. through [`Gpu::enqueue`]) without synchronising. `flop` per iteration gives
    /// TFLOP/s.
    pub fn measure(
        &mut self,
        name: &str,
        flop: Option<f64>,
        mut launch: impl FnMut() -> Result<(), GpuError>,
    ) -> Result<Measurement, GpuError> {
        let cfg = self.config.clone();
        std::thread::sleep(cfg.rest);
        let what = |phase: &str| format!("{name} ({phase})");

        let mut warm = Events::new(self.gpu);
        for _ in 0..cfg.warmup {
            launch()?;
        }
        let done = warm.record()?;
        warm.wait(done, cfg.timeout, &what("warm-up"))?;

        let mark = self.begin_phase();
        let mut events = Events::new(self.gpu);
        events.record()?;
        for _ in 0..cfg.burst {
            launch()?;
            events.record()?;
        }
        events.wait(cfg.burst, cfg.timeout, &what("burst"))?;
        let readings = self.sampler.end(mark);
        let timed = chunks(&events.intervals_ms(0)?, 1);
        let burst = Phase::build(PhaseKind::Burst, timed, readings, 0.0)
            .ok_or_else(|| GpuError::InvalidArgument(format!("{name}: the burst timed nothing")))?;

        let per_chunk = stats::iterations_per_chunk(burst.steady_ms, cfg.chunk.as_secs_f64() * 1e3);
        let mark = self.begin_phase();
        let mut events = Events::new(self.gpu);
        events.record()?;
        let host_limit = Instant::now() + cfg.sustained * 4 + cfg.timeout;
        loop {
            for _ in 0..per_chunk {
                launch()?;
            }
            let last = events.record()?;
            // Keep one chunk queued behind the running one: wait for the previous chunk.
            let previous = last - 1;
            events.wait(previous, cfg.timeout, &what("sustained"))?;
            if events.elapsed_ms(0, previous)? >= cfg.sustained.as_secs_f64() * 1e3 || Instant::now() > host_limit {
                events.wait(last, cfg.timeout, &what("sustained"))?;
                break;
            }
        }
        let readings = self.sampler.end(mark);
        let timed = chunks(&events.intervals_ms(0)?, per_chunk);
        let sustained = Phase::build(PhaseKind::Sustained, timed, readings, cfg.window.as_secs_f64())
            .ok_or_else(|| GpuError::InvalidArgument(format!("{name}: the sustained phase timed nothing")))?;
        Ok(Measurement { name: name.to_string(), flop, burst, sustained })
    }

    fn begin_phase(&mut self) -> telemetry::PhaseMark {
        self.next_tag += 1;
        self.sampler.begin(self.next_tag)
    }
}

/// Chunks of `iterations` each from consecutive event intervals, with their start times.
fn chunks(intervals_ms: &[f64], iterations: usize) -> Vec<Chunk> {
    let mut start_ms = 0.0;
    intervals_ms
        .iter()
        .map(|&ms| {
            let c = Chunk { start_s: start_ms / 1e3, iterations, ms_per_iteration: ms / iterations as f64 };
            start_ms += ms;
            c
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_accumulate_start_times() {
        let c = chunks(&[10.0, 20.0, 30.0], 10);
        assert_eq!(c.len(), 3);
        assert_eq!((c[0].start_s, c[1].start_s, c[2].start_s), (0.0, 0.01, 0.03));
        assert_eq!((c[0].ms_per_iteration, c[2].ms_per_iteration), (1.0, 3.0));
    }

    #[test]
    fn config_validation() {
        assert!(BenchConfig::default().validate().is_ok());
        let e = BenchConfig { burst: 0, ..Default::default() }.validate().unwrap_err();
        assert_eq!(e.to_string(), "invalid argument: benchmark: a burst needs at least one iteration");
        let long_window = BenchConfig { window: Duration::from_secs(9), ..Default::default() };
        assert!(long_window.validate().is_err());
        assert!(BenchConfig { chunk: Duration::ZERO, ..Default::default() }.validate().is_err());
    }
}
