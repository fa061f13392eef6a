//! The one error type of the GPU layer: every failure is a value with a one-line message.

use std::fmt;

/// What went wrong in the GPU layer. `Display` gives one line a user can act on.
#[derive(Debug, Clone, PartialEq)]
pub enum GpuError {
    /// A shared library the operation needs could not be loaded.
    LibraryMissing {
        /// The library, as the loader names it (`libcuda.so.1`, `libnvrtc.so.13`).
        library: &'static str,
        /// What needs it and what to do.
        hint: &'static str,
    },
    /// NVRTC rejected the source; `log` is its full diagnostic output.
    Compile {
        /// The program name given to NVRTC.
        program: String,
        /// NVRTC's program log.
        log: String,
    },
    /// A compiled kernel's resources exceed the budget set for it.
    OverBudget {
        /// The kernel (mangled or `extern "C"` name).
        kernel: String,
        /// What exceeded which limit.
        what: String,
    },
    /// The compile log lacked the resource report for a kernel the caller asked about.
    NoResourceReport {
        /// The kernel that was looked up.
        kernel: String,
        /// The kernels the log does report.
        reported: Vec<String>,
        /// The start of the log.
        log_head: String,
    },
    /// A tensor-map or launch argument failed validation before reaching the driver.
    InvalidArgument(String),
    /// A CUDA driver or NVRTC call returned an error.
    Driver {
        /// The API call.
        call: &'static str,
        /// The error code's name and description.
        error: String,
    },
    /// The kernel faulted (the stream reported an error after launch).
    Fault {
        /// Which kernel with which launch configuration.
        launch: String,
        /// The driver's error.
        error: String,
    },
    /// The kernel did not finish before the host-side deadline; the context is unusable.
    Timeout {
        /// Which kernel with which launch configuration.
        launch: String,
        /// The deadline that passed, in milliseconds.
        millis: u128,
    },
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::LibraryMissing { library, hint } => write!(f, "{library} could not be loaded: {hint}"),
            GpuError::Compile { program, log } => {
                let first = log.lines().find(|l| l.contains("error")).unwrap_or("(empty log)");
                write!(f, "NVRTC could not compile {program}: {}", first.trim())
            }
            GpuError::OverBudget { kernel, what } => write!(f, "kernel {kernel} is over its budget: {what}"),
            GpuError::NoResourceReport { kernel, reported, log_head } => {
                write!(
                    f,
                    "the compile log has no resource report for kernel {kernel} (it reports [{}]; log begins {log_head:?})",
                    reported.join(", ")
                )
            }
            GpuError::InvalidArgument(msg) => write!(f, "invalid argument: {msg}"),
            GpuError::Driver { call, error } => write!(f, "{call} failed: {error}"),
            GpuError::Fault { launch, error } => write!(f, "kernel fault in {launch}: {error}"),
            GpuError::Timeout { launch, millis } => {
                write!(f, "kernel did not finish within {millis} ms (hang?): {launch}")
            }
        }
    }
}

impl std::error::Error for GpuError {}

/// Converts a driver error from `call` into a [`GpuError::Driver`].
pub(crate) fn driver(call: &'static str, e: cudarc::driver::DriverError) -> GpuError {
    GpuError::Driver { call, error: describe_driver(e) }
}

/// Name and description of a driver error code, e.g. `CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access...)`.
pub(crate) fn describe_driver(e: cudarc::driver::DriverError) -> String {
    let name = e.error_name().map(|s| s.to_string_lossy().into_owned());
    let text = e.error_string().map(|s| s.to_string_lossy().into_owned());
    match (name, text) {
        (Ok(n), Ok(t)) => format!("{n} ({t})"),
        _ => format!("{:?}", e.0),
    }
}

/// Converts an NVRTC error from `call` into a [`GpuError::Driver`].
pub(crate) fn nvrtc(call: &'static str, e: cudarc::nvrtc::result::NvrtcError) -> GpuError {
    GpuError::Driver { call, error: format!("{:?}", e.0) }
}
