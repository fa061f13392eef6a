//! What every target reports when a launch fails for a reason that is not its own: the
//! launch was rejected ([`LaunchError`]), role code issued an invalid operation
//! ([`RoleFault`]) or role code panicked ([`RolePanic`]).
//!
//! Each target's error type ([`crate::emu::EmuError`], [`crate::sim::SimError`]) wraps these
//! as variants and adds what only it can find (protocol violations, occupancy, simulated
//! deadlock cycles); the messages of the shared cases are written here, once, and each
//! wrapper returns the shared value from [`std::error::Error::source`].

use std::fmt;

use crate::dsl::Fault;
pub use crate::launch::LaunchError;

/// Role code of one instance issued an invalid operation (an out-of-range tile copy, an MMA
/// wait that does not cover its group, ...).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoleFault {
    /// The kernel.
    pub kernel: &'static str,
    /// `blockIdx` of the CTA.
    pub block: [u32; 3],
    /// The instance, described ("`consumer` #1 (warps 5-8)").
    pub instance: String,
    /// What went wrong and where.
    pub fault: Fault,
}

impl fmt::Display for RoleFault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let RoleFault { kernel, block, instance, fault } = self;
        write!(f, "kernel `{kernel}`, CTA {block:?}, {instance}: {} (at {})", fault.message, fault.location)
    }
}

impl std::error::Error for RoleFault {
    /// A fault is a root cause: the kernel source line it names is where to look.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        None
    }
}

/// Role code of one instance panicked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RolePanic {
    /// The kernel.
    pub kernel: &'static str,
    /// `blockIdx` of the CTA.
    pub block: [u32; 3],
    /// The instance, described.
    pub instance: String,
    /// The panic message.
    pub message: String,
}

impl fmt::Display for RolePanic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let RolePanic { kernel, block, instance, message } = self;
        write!(f, "kernel `{kernel}`, CTA {block:?}, {instance} panicked: {message}")
    }
}

impl std::error::Error for RolePanic {
    /// A panic is a root cause; its payload is already in the message.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        None
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error;
    use std::panic::Location;

    use super::*;

    #[test]
    fn shared_errors_name_the_kernel_cta_and_instance() {
        let fault = RoleFault {
            kernel: "gemm",
            block: [1, 0, 0],
            instance: "`consumer` #0 (warp 1)".into(),
            fault: Fault { message: "tile out of range".into(), location: Location::caller() },
        };
        let text = fault.to_string();
        assert!(text.starts_with("kernel `gemm`, CTA [1, 0, 0], `consumer` #0 (warp 1): tile out of range (at "));
        assert!(fault.source().is_none());
        let panic = RolePanic {
            kernel: "gemm",
            block: [0; 3],
            instance: "`producer` #0 (warp 0)".into(),
            message: "boom".into(),
        };
        assert_eq!(panic.to_string(), "kernel `gemm`, CTA [0, 0, 0], `producer` #0 (warp 0) panicked: boom");
    }
}
