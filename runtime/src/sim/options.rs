//! Options of a timing run.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::report::CycleWindow;

use super::descriptors::DescriptorPlacement;
use super::error::SimError;
use super::machine::Machine;
use super::sm::SchedulerPolicy;
use super::wait_forms::WaitForms;

/// Where a long run stands, handed to the progress callback.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// Simulated cycle reached.
    pub cycle: u64,
    /// CTAs retired.
    pub ctas_done: usize,
    /// CTAs of the grid.
    pub ctas: usize,
    /// Host time since the run started.
    pub wall: Duration,
}

/// A progress callback.
pub type ProgressFn = Arc<dyn Fn(&Progress) + Send + Sync>;

/// Which part of the run to record as a timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceOptions {
    /// Record the first this many SMs.
    pub sms: u32,
    /// On each recorded SM, record the first this many CTAs it runs.
    pub ctas_per_sm: u32,
    /// Stop recording an SM after this many spans (the report counts the rest as dropped).
    pub max_events_per_sm: usize,
    /// Record only the spans that overlap this window of cycles (`None`: the whole run);
    /// the timeline draws only the window.
    pub window: Option<CycleWindow>,
}

impl Default for TraceOptions {
    /// The first 2 CTAs of SM 0, at most 200,000 spans (a file of a few MB), the whole run.
    fn default() -> Self {
        TraceOptions { sms: 1, ctas_per_sm: 2, max_events_per_sm: 200_000, window: None }
    }
}

/// Options of [`super::simulate`].
#[derive(Clone, Default)]
pub struct SimOptions {
    /// SM clock in GHz; `None`: the clock the machine's peak is quoted at
    /// ([`super::machine::Clocks::spec_ghz`]).
    pub clock_ghz: Option<f64>,
    /// Warp scheduler policy in place of the machine's (`issue.scheduler_policy`); `None`:
    /// the machine's.
    pub policy: Option<SchedulerPolicy>,
    /// Record a timeline.
    pub trace: Option<TraceOptions>,
    /// Combined mode: tiles and fragments carry data and the run computes numbers while
    /// timing (for small problems; the kernel's global tensors must hold data too).
    pub compute: bool,
    /// Called about every `progress_interval` of host time during the run.
    pub progress: Option<ProgressFn>,
    /// How often to call `progress` (default: 1 s).
    pub progress_interval: Option<Duration>,
    /// Seed of the memory latencies' variation (the same seed, the same run).
    pub seed: u64,
    /// Diagnostic: every TMA load lands at its issue, moving no bytes and issuing no
    /// instructions, as the kernel built by [`crate::gpu::Cuda::without_copies`] runs (its SASS
    /// has neither the copies nor the moves of their operands to uniform registers): the
    /// kernel's time without its loads.
    pub copies_free: bool,
    /// Where the kernel's compiled code builds each `wgmma` group's descriptors, read from
    /// its SASS (`calibration/sass/mma_placement.py`); a form without an entry takes the
    /// machine's rule ([`super::descriptors`]).
    pub descriptor_placement: DescriptorPlacement,
    /// The kernel's waits that its compiled code addresses per thread, read from its SASS
    /// (`calibration/sass/wait_forms.py`); none: every wait uniform ([`super::wait_forms`]).
    pub wait_forms: WaitForms,
}

impl fmt::Debug for SimOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SimOptions")
            .field("clock_ghz", &self.clock_ghz)
            .field("policy", &self.policy)
            .field("trace", &self.trace)
            .field("compute", &self.compute)
            .field("progress", &self.progress.as_ref().map(|_| "callback"))
            .field("progress_interval", &self.progress_interval)
            .field("seed", &self.seed)
            .field("copies_free", &self.copies_free)
            .field("descriptor_placement", &self.descriptor_placement)
            .field("wait_forms", &self.wait_forms)
            .finish()
    }
}

impl SimOptions {
    /// Reports progress on stderr (one line per interval).
    pub fn with_stderr_progress(mut self) -> Self {
        self.progress = Some(Arc::new(|p: &Progress| {
            eprintln!(
                "  simulated {} cycles, {}/{} CTAs done, {:.1} s",
                p.cycle,
                p.ctas_done,
                p.ctas,
                p.wall.as_secs_f64()
            );
        }));
        self
    }

    /// Records a timeline as `trace` says.
    pub fn with_trace(mut self, trace: TraceOptions) -> Self {
        self.trace = Some(trace);
        self
    }

    /// The clock of the run on `machine`, checked.
    pub fn clock(&self, machine: &Machine) -> Result<f64, SimError> {
        let clock = self.clock_ghz.unwrap_or(machine.clocks.spec_ghz.value);
        if clock.is_finite() && clock > 0.0 {
            Ok(clock)
        } else {
            Err(SimError::Options(format!("the clock must be a positive number of GHz, not {clock}")))
        }
    }
}
