//! Attention in f64, the independent reference for the kernels.

use super::Problem;

/// `O = softmax(Q Kᵀ / sqrt(d)) V` in f64 for `[batch, heads, seq, d]` row-major inputs,
/// with the causal mask if the problem has one.
pub fn attention_f64(problem: &Problem, q: &[f32], k: &[f32], v: &[f32]) -> Vec<f64> {
    let (s, d) = (problem.seq, problem.head_dim);
    let scale = 1.0 / (d as f64).sqrt();
    let mut out = vec![0.0; problem.elements()];
    let mut scores = vec![0.0f64; s];
    for head in 0..problem.batch * problem.heads {
        let base = head * s * d;
        for i in 0..s {
            let keys = if problem.causal { i + 1 } else { s };
            let qi = &q[base + i * d..base + (i + 1) * d];
            for (j, score) in scores[..keys].iter_mut().enumerate() {
                let kj = &k[base + j * d..base + (j + 1) * d];
                *score = qi.iter().zip(kj).map(|(a, b)| f64::from(*a) * f64::from(*b)).sum::<f64>() * scale;
            }
            let max = scores[..keys].iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let mut sum = 0.0;
            for score in &mut scores[..keys] {
                *score = (*score - max).exp();
                sum += *score;
            }
            let oi = &mut out[base + i * d..base + (i + 1) * d];
            for (j, p) in scores[..keys].iter().enumerate() {
                let vj = &v[base + j * d..base + (j + 1) * d];
                for (o, x) in oi.iter_mut().zip(vj) {
                    *o += p / sum * f64::from(*x);
                }
            }
        }
    }
    out
}
