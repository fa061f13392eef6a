//! What the GPU GEMM examples (`gemm_gpu`, `cluster_gemm_gpu`) share: problem sizes from the
//! command line, random bf16 inputs, the check against an f64 reference with its tolerance,
//! and the table of ratios to cuBLAS.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use warpspec::bf16;
use warpspec::dsl::DType;
use warpspec::gpu::bench::{Measurement, Phase};

/// `MxNxK` as three positive sizes.
pub fn size(s: &str) -> Result<[usize; 3], String> {
    let d: Vec<usize> = s.split(['x', 'X']).filter_map(|p| p.trim().parse().ok()).filter(|&v| v > 0).collect();
    match d[..] {
        [m, n, k] => Ok([m, n, k]),
        _ => Err(format!("{s:?} is not MxNxK")),
    }
}

/// `len` values uniform in `[-1, 1)`, rounded to bf16.
pub fn random(rng: &mut ChaCha8Rng, len: usize) -> Vec<f32> {
    (0..len).map(|_| bf16::from_f32(rng.gen_range(-1.0f32..1.0)).to_f32()).collect()
}

/// Max |C - ref| / max |ref| against f64 over the same bf16 inputs, and non-finite outputs.
pub fn check(m: usize, n: usize, k: usize, a: &[f32], b: &[f32], c: &[f32]) -> (f64, usize) {
    let rows: Vec<(f64, f64, usize)> = (0..m)
        .into_par_iter()
        .map(|i| {
            let mut row = vec![0f64; n];
            for p in 0..k {
                let x = a[i * k + p] as f64;
                for (j, r) in row.iter_mut().enumerate() {
                    *r += x * b[p * n + j] as f64;
                }
            }
            let (mut err, mut norm, mut bad) = (0f64, 0f64, 0);
            for j in 0..n {
                let v = c[i * n + j];
                if !v.is_finite() {
                    bad += 1;
                }
                err = err.max((v as f64 - row[j]).abs());
                norm = norm.max(row[j].abs());
            }
            (err, norm, bad)
        })
        .collect();
    let err = rows.iter().map(|r| r.0).fold(0.0, f64::max);
    let norm = rows.iter().map(|r| r.1).fold(0.0, f64::max);
    (err / norm.max(1e-30), rows.iter().map(|r| r.2).sum())
}

/// Relative error a result may have against f64: f32 accumulation over `k` for an f32 C;
/// for a bf16 or f16 C, the rounding of the stored value on top (half a unit in the last
/// place: 2^-9 and 2^-12 of the value, bounded here by the row's largest value).
pub fn tolerance(out: DType) -> f64 {
    match out {
        DType::F32 => 1e-4,
        DType::F16 => 1e-4 + 2f64.powi(-11),
        DType::Bf16 => 1e-4 + 2f64.powi(-8),
    }
}

/// Our kernel (names starting `ours`) against cuBLAS (the same name with `cublas` in its
/// place) at each size and C type: burst and sustained ratios of the phases' steady times
/// (above 1: faster than cuBLAS).
pub fn ratios(results: &[Measurement], ours: &str, what: &str) -> String {
    let mut out = format!("\n{ours} / cuBLAS ({what}): burst, sustained\n");
    let prefix = format!("{ours} ");
    for m in results.iter().filter(|m| m.name.starts_with(&prefix)) {
        let theirs = m.name.replacen(&prefix, "cublas ", 1);
        let Some(vendor) = results.iter().find(|v| v.name == theirs) else { continue };
        let ratio = |a: &Phase, b: &Phase| b.steady_ms / a.steady_ms;
        out += &format!(
            "{:<44} {:.3}  {:.3}\n",
            m.name,
            ratio(&m.burst, &vendor.burst),
            ratio(&m.sustained, &vendor.sustained)
        );
    }
    out
}
