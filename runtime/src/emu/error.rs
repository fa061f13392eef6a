//! Errors of an emulated run.

use crate::dsl::Fault;
use crate::launch::LaunchError;

/// Why an emulated run failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EmuError {
    /// The launch was rejected before any CTA ran.
    Launch(LaunchError),
    /// Every live role instance of a CTA was blocked.
    Deadlock(Deadlock),
    /// Role code issued an invalid operation.
    Fault {
        /// The kernel.
        kernel: &'static str,
        /// `blockIdx` of the CTA.
        block: [u32; 3],
        /// The instance, described ("`consumer` #1 (warps 5-8)").
        instance: String,
        /// What went wrong and where.
        fault: Fault,
    },
    /// Role code panicked.
    Panic {
        /// The kernel.
        kernel: &'static str,
        /// `blockIdx` of the CTA.
        block: [u32; 3],
        /// The instance, described.
        instance: String,
        /// The panic message.
        message: String,
    },
}

/// A CTA in which no role instance can make progress.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deadlock {
    /// The kernel.
    pub kernel: &'static str,
    /// `blockIdx` of the CTA.
    pub block: [u32; 3],
    /// Every blocked instance and what it waits for.
    pub blocked: Vec<BlockedInstance>,
    /// Instances that had already finished.
    pub finished: Vec<String>,
}

/// One blocked role instance in a [`Deadlock`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockedInstance {
    /// The role's name.
    pub role: &'static str,
    /// The instance's index within its role.
    pub instance: u32,
    /// Warps of the instance, first and last.
    pub warps: (u32, u32),
    /// The barrier it waits on, e.g. `Operands.full[2]`.
    pub barrier: String,
    /// What the wait needs, and who was expected to provide it.
    pub waiting_for: String,
}

impl std::fmt::Display for EmuError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmuError::Launch(e) => write!(f, "launch failed: {e}"),
            EmuError::Deadlock(d) => d.fmt(f),
            EmuError::Fault { kernel, block, instance, fault } => {
                write!(f, "kernel `{kernel}`, CTA {block:?}, {instance}: {} (at {})", fault.message, fault.location)
            }
            EmuError::Panic { kernel, block, instance, message } => {
                write!(f, "kernel `{kernel}`, CTA {block:?}, {instance} panicked: {message}")
            }
        }
    }
}

impl std::fmt::Display for Deadlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "deadlock in kernel `{}`, CTA {:?}: every live warp is blocked", self.kernel, self.block)?;
        for b in &self.blocked {
            let warps = if b.warps.0 == b.warps.1 {
                format!("warp {}", b.warps.0)
            } else {
                format!("warps {}-{}", b.warps.0, b.warps.1)
            };
            writeln!(f, "  {warps} (`{}` #{}) waits on {}: {}", b.role, b.instance, b.barrier, b.waiting_for)?;
        }
        if !self.finished.is_empty() {
            writeln!(f, "  finished: {}", self.finished.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for EmuError {}

impl From<LaunchError> for EmuError {
    fn from(e: LaunchError) -> Self {
        EmuError::Launch(e)
    }
}
