//! Flash attention forward kernels and what they share: the problem description, host-side
//! launch helpers and the f64 reference they are checked against.

/// Expands `$launch!(kernel_module, element_type)` with the kernel of `$problem`'s format and
/// head dimension, chosen among `[bf16 d64, bf16 d128, f16 d64, f16 d128]`. Defined before
/// the kernel modules, which use it by textual scope.
macro_rules! by_format {
    ($problem:expr, $launch:ident, [$bf16_d64:ident, $bf16_d128:ident, $f16_d64:ident, $f16_d128:ident]) => {
        match ($problem.dtype, $problem.head_dim) {
            (warpspec::dsl::DType::Bf16, 64) => $launch!($bf16_d64, warpspec::bf16),
            (warpspec::dsl::DType::Bf16, _) => $launch!($bf16_d128, warpspec::bf16),
            (_, 64) => $launch!($f16_d64, warpspec::f16),
            _ => $launch!($f16_d128, warpspec::f16),
        }
    };
}

pub mod blackwell;
pub mod cli;
pub mod fa4_variants;
pub mod hopper;
pub mod reference;

use warpspec::dsl::{DType, Element, Global, Kernel};
use warpspec::emu::{self, EmuError, EmuReport};
use warpspec::{Grid, LaunchError, bf16, f16};

/// Query rows of the smallest tile a kernel's CTA takes (the Hopper kernel's; Blackwell's is
/// 256): the grid's x dimension is at most `seq / MIN_QUERY_TILE`.
pub const MIN_QUERY_TILE: usize = 128;

/// One attention forward problem: `O = softmax(Q Kᵀ / sqrt(d)) V` per batch and head.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Batch size.
    pub batch: usize,
    /// Heads.
    pub heads: usize,
    /// Sequence length (queries and keys).
    pub seq: usize,
    /// Head dimension: 64 or 128.
    pub head_dim: usize,
    /// Whether query `i` attends only to keys `j <= i`.
    pub causal: bool,
    /// Storage format of Q, K, V and O: bf16 or f16.
    pub dtype: DType,
}

impl Problem {
    /// Elements of one of Q, K, V or O.
    pub fn elements(&self) -> usize {
        self.batch * self.heads * self.seq * self.head_dim
    }

    /// The `[batch, heads, seq, head_dim]` shape of Q, K, V and O.
    pub fn shape(&self) -> [usize; 4] {
        [self.batch, self.heads, self.seq, self.head_dim]
    }

    /// Floating-point operations of the two matrix products (4·b·h·s²·d; half with a causal
    /// mask), the usual convention for attention TFLOP/s.
    pub fn flops(&self) -> f64 {
        let full = 4.0 * (self.batch * self.heads) as f64 * (self.seq as f64).powi(2) * self.head_dim as f64;
        if self.causal { full / 2.0 } else { full }
    }

    /// `log2(e) / sqrt(d)`: scores are scaled by this before `exp2`.
    pub fn scale_log2(&self) -> f32 {
        (std::f64::consts::LOG2_E / (self.head_dim as f64).sqrt()) as f32
    }

    /// Checks what every kernel needs of the problem.
    pub fn check(&self) -> Result<(), LaunchError> {
        if self.batch == 0 || self.heads == 0 || self.seq == 0 {
            return Err(LaunchError::Problem(format!(
                "attention with batch {}, heads {}, seq {}: each must be at least 1",
                self.batch, self.heads, self.seq
            )));
        }
        if !matches!(self.head_dim, 64 | 128) {
            return Err(LaunchError::Problem(format!("head dim {} is not supported: use 64 or 128", self.head_dim)));
        }
        if !matches!(self.dtype, DType::Bf16 | DType::F16) {
            return Err(LaunchError::Problem(format!("dtype {} is not supported: use bf16 or f16", self.dtype)));
        }
        let elements =
            [self.batch, self.heads, self.seq, self.head_dim].iter().try_fold(1u64, |n, &d| n.checked_mul(d as u64));
        if elements.is_none_or(|n| usize::try_from(n).is_err()) {
            return Err(LaunchError::Problem(format!(
                "attention with batch {}, heads {}, seq {}, d {}: Q, K, V and O would have more elements than 64 bits count",
                self.batch, self.heads, self.seq, self.head_dim
            )));
        }
        // x over query tiles (128 rows at the smallest), y over heads, z over the batch.
        Grid::try_new(self.seq.div_ceil(MIN_QUERY_TILE), self.heads, self.batch).map(drop)
    }
}

/// Q, K, V (inputs) and O (output) of a problem, in format `T`.
pub struct Tensors<T: Element> {
    /// Queries.
    pub q: Global<T>,
    /// Keys.
    pub k: Global<T>,
    /// Values.
    pub v: Global<T>,
    /// Output.
    pub o: Global<T>,
}

impl<T: Element> Tensors<T> {
    /// Tensors holding `q`, `k`, `v` (rounded to `T`) and a zeroed output.
    pub fn new(problem: &Problem, q: &[f32], k: &[f32], v: &[f32]) -> Result<Self, LaunchError> {
        let shape = problem.shape();
        let input = |name: &str, values: &[f32]| {
            Global::from_f32(&shape, values).ok_or_else(|| {
                LaunchError::Problem(format!("{name} has {} values, expected {}", values.len(), problem.elements()))
            })
        };
        Ok(Self { q: input("Q", q)?, k: input("K", k)?, v: input("V", v)?, o: Global::zeros(&shape) })
    }

    /// Shape-only tensors for timing runs.
    pub fn shape_only(problem: &Problem) -> Self {
        let shape = problem.shape();
        Self {
            q: Global::shape_only(&shape),
            k: Global::shape_only(&shape),
            v: Global::shape_only(&shape),
            o: Global::shape_only(&shape),
        }
    }
}

/// Runs kernel `K` on the emulator and returns the output tensor `out` as `f32` with the
/// report.
pub(crate) fn emulate<K: Kernel, T: Element>(
    grid: Grid,
    args: &K::Params,
    out: &Global<T>,
) -> Result<(Vec<f32>, EmuReport), EmuError> {
    let report = emu::run::<K>(grid, args)?;
    Ok((out.to_f32_vec().unwrap_or_default(), report))
}

/// Rounds `values` to the problem's storage format.
pub fn round_to(dtype: DType, values: &[f32]) -> Vec<f32> {
    let mut out = values.to_vec();
    match dtype {
        DType::Bf16 => out.iter_mut().for_each(|v| *v = bf16::round(*v)),
        DType::F16 => out.iter_mut().for_each(|v| *v = f16::round(*v)),
        DType::F32 => {}
    }
    out
}
