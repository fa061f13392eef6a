//! Independent references and inputs for checking kernels.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// `n` values uniform in `[-1, 1)` from a seeded generator.
pub fn random_values(n: usize, seed: u64) -> Vec<f32> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..n).map(|_| rng.gen_range(-1.0f32..1.0)).collect()
}

/// `values` rounded to bf16 (what a bf16 tensor holds).
pub fn round_bf16(values: &[f32]) -> Vec<f32> {
    values.iter().map(|&v| warpspec::bf16::from_f32(v).to_f32()).collect()
}

/// `C = A · B` in f64 for `A: m x k`, `B: k x n` (row-major).
pub fn matmul_f64(m: usize, n: usize, k: usize, a: &[f32], b: &[f32]) -> Vec<f64> {
    let mut c = vec![0.0f64; m * n];
    for i in 0..m {
        for p in 0..k {
            let aip = f64::from(a[i * k + p]);
            let row = &b[p * n..(p + 1) * n];
            for (cij, &bpj) in c[i * n..(i + 1) * n].iter_mut().zip(row) {
                *cij += aip * f64::from(bpj);
            }
        }
    }
    c
}

/// Error of `got` against `want`: the largest absolute error, and that error relative to
/// the largest magnitude of `want`.
pub fn errors(got: &[f32], want: &[f64]) -> (f64, f64) {
    // A missing or non-finite value (an element a kernel never wrote, poisoned with NaN) is
    // an infinite error: `f64::max` alone would skip NaN.
    let max_err = if got.len() != want.len() || got.iter().any(|g| !g.is_finite()) {
        f64::INFINITY
    } else {
        got.iter().zip(want).map(|(g, w)| (f64::from(*g) - w).abs()).fold(0.0, f64::max)
    };
    let scale = want.iter().map(|w| w.abs()).fold(0.0, f64::max).max(f64::MIN_POSITIVE);
    (max_err, max_err / scale)
}
