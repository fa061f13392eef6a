//! Why a kernel could not be rendered to CUDA.

use std::fmt;

/// A kernel the generator cannot render (yet), naming what, where and for which target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodegenError {
    /// The kernel's name.
    pub kernel: String,
    /// The target (`sm_90a`).
    pub target: &'static str,
    /// The Rust source line of the construct (0 when it has none).
    pub line: u32,
    /// What cannot be rendered, and why.
    pub what: String,
}

impl fmt::Display for CodegenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot generate CUDA for kernel `{}` (target {})", self.kernel, self.target)?;
        if self.line > 0 {
            write!(f, ", line {}", self.line)?;
        }
        write!(f, ": {}", self.what)
    }
}

impl std::error::Error for CodegenError {}

/// A rendering failure before the kernel and target are attached: the line and the message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Unsupported {
    pub line: u32,
    pub what: String,
}

/// `Err(Unsupported)` at `line`.
pub(crate) fn unsupported<T>(line: u32, what: impl Into<String>) -> Result<T, Unsupported> {
    Err(Unsupported { line, what: what.into() })
}
