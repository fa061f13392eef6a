//! One launch API for every place a kernel can run: a [`Target`] launches a kernel over a
//! grid and returns that target's report.
//!
//! [`Emulator`] runs the kernel on the CPU with real data ([`crate::emu`]); [`Model`] times
//! it on a cycle-level model of a [`Machine`] ([`crate::sim`]). A GPU target implements the
//! same trait. Every target checks a launch against its own [`CtaLimits`] first, and its
//! error type wraps the shared errors of [`crate::error`] (a rejected launch, a faulting or
//! panicking role) so callers can handle those alike through [`std::error::Error::source`].

use warpspec_hw::CtaLimits;

use crate::dsl::Kernel;
use crate::emu::{self, EmuError, EmuOptions, EmuReport};
use crate::error::LaunchError;
use crate::launch::Grid;
use crate::report::SimReport;
use crate::sim::{self, Machine, SimError, SimOptions};

/// Something a kernel can be launched on.
pub trait Target {
    /// What a successful launch reports.
    type Report;
    /// Why a launch failed: the shared errors of [`crate::error`] and the target's own.
    type Error: std::error::Error + From<LaunchError> + Send + Sync + 'static;

    /// The target's name in messages (`"emulator"`, `"model of h100-sxm"`).
    fn name(&self) -> String;

    /// The per-CTA limits every launch on this target is checked against.
    fn limits(&self) -> CtaLimits;

    /// Launches kernel `K` over `grid` with launch arguments `params`.
    fn launch<K: Kernel>(&self, grid: Grid, params: &K::Params) -> Result<Self::Report, Self::Error>;
}

/// The functional emulator, as a [`Target`]: real data on the CPU, protocol checked as it
/// runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Emulator {
    /// How each launch is run.
    pub options: EmuOptions,
}

impl Emulator {
    /// The emulator with `options`.
    pub fn new(options: EmuOptions) -> Self {
        Self { options }
    }
}

impl Target for Emulator {
    type Report = EmuReport;
    type Error = EmuError;

    fn name(&self) -> String {
        "emulator".into()
    }

    /// [`emu::LIMITS`]: the emulator models no particular machine.
    fn limits(&self) -> CtaLimits {
        emu::LIMITS
    }

    fn launch<K: Kernel>(&self, grid: Grid, params: &K::Params) -> Result<EmuReport, EmuError> {
        emu::run_with::<K>(grid, params, &self.options)
    }
}

/// The cycle-level timing model of one machine, as a [`Target`].
#[derive(Clone)]
pub struct Model {
    /// The machine modelled.
    pub machine: Machine,
    /// How each launch is timed (clock, scheduler policy, trace, ...).
    pub options: SimOptions,
}

impl Model {
    /// The model of `machine` with `options`.
    pub fn new(machine: Machine, options: SimOptions) -> Self {
        Self { machine, options }
    }
}

impl Target for Model {
    type Report = SimReport;
    type Error = SimError;

    fn name(&self) -> String {
        format!("model of {}", self.machine.name)
    }

    /// The limits of the modelled machine.
    fn limits(&self) -> CtaLimits {
        self.machine.cta_limits()
    }

    fn launch<K: Kernel>(&self, grid: Grid, params: &K::Params) -> Result<SimReport, SimError> {
        sim::simulate::<K>(&self.machine, grid, params, &self.options)
    }
}
