//! FlashAttention-4's softmax techniques on the five-role kernel: the ablation over
//! [`Variant`]s on the timing model, the host replay that measures how often conditional
//! rescaling rescales on given inputs, and the figures of the FlashAttention-4 paper the
//! ablation is set beside.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use warpspec::report::{SimReport, Unit};
use warpspec::sim::{Machine, SimError, SimOptions};

use super::Problem;
use super::blackwell::{self, Variant};

/// The FlashAttention-4 paper's headline forward figure: "reaching up to 1613 TFLOPs/s (71%
/// utilization)" on B200 with BF16 (Zadouri, Hoehnerbach, Shah, Liu, Thakkar, Dao,
/// "FlashAttention-4: Algorithm and Kernel Pipelining Co-Design for Asymmetric Hardware
/// Scaling", arXiv 2603.05451, abstract).
pub const PAPER_PEAK_TFLOPS: f64 = 1613.0;

/// Where [`PAPER_PEAK_TFLOPS`] comes from, and what could not be found.
pub const PAPER_SOURCE: &str = "FlashAttention-4 (Zadouri et al., arXiv 2603.05451), abstract: up to 1613 TFLOP/s \
     (71% utilization) on B200, BF16; the sequence length and causality of that figure and per-technique ablation \
     figures were not available here";

/// Columns of software `exp2` per 128-column block in FlashAttention-4's own configuration:
/// `ex2_emu_freq = 16`, `ex2_emu_res = 4`, `ex2_emu_start_frg = 1` over 32-element fragments
/// (`flash_attn/cute/flash_fwd_sm100.py`, `softmax.py`) emulate 4 of every 16 elements of
/// the two middle fragments of a 128-element row: 16 of 128.
pub const FA4_POLY_COLS: usize = 16;

/// Columns of software `exp2` per 128-column block that the ablation tries (the first is
/// [`FA4_POLY_COLS`]).
pub const POLY_COLS: [usize; 4] = [FA4_POLY_COLS, 32, 48, 64];

/// The timing of one variant.
pub struct Row {
    /// The variant.
    pub variant: Variant,
    /// Its report.
    pub report: SimReport,
}

impl Row {
    /// TFLOP/s of the problem (4·b·h·s²·d, halved when causal).
    pub fn tflops(&self, problem: &Problem) -> f64 {
        problem.flops() / self.report.seconds() / 1e12
    }

    /// One line of the ablation table.
    pub fn line(&self, problem: &Problem) -> String {
        let r = &self.report;
        let tflops = self.tflops(problem);
        let u = |unit| 100.0 * r.utilisation[unit];
        let softmax = r.roles.iter().find(|role| role.role == "softmax");
        let stalls = softmax.map_or_else(String::new, |role| {
            let top: Vec<String> =
                role.ranked().iter().take(2).map(|(reason, share)| format!("{reason} {:.0}%", 100.0 * share)).collect();
            top.join(", ")
        });
        format!(
            "{:<34} {tflops:>7.0} {:>6.1} {:>6.1} {:>6.1} {:>6.1} {:>7.1}  {stalls}",
            self.variant.name(),
            100.0 * tflops / r.peak_tflops,
            u(Unit::Mufu),
            u(Unit::Fma),
            u(Unit::Alu),
            u(Unit::TensorCores),
        )
    }
}

/// The header of [`Row::line`].
pub const HEADER: &str =
    "variant                            TFLOP/s  %peak   MUFU    FMA    ALU  tensor  softmax's top stalls";

/// The variants of the ablation: the baseline; software `exp2` at each of `poly_cols`;
/// conditional rescaling (the model assuming `rescale_rate` of the steps rescale); and each
/// fraction with conditional rescaling.
pub fn variants(poly_cols: &[usize], rescale_rate: f32) -> Vec<Variant> {
    let conditional = Variant::BASELINE.with_conditional_rescale(Variant::FA4_THRESHOLD, rescale_rate);
    let mut out = vec![Variant::BASELINE];
    out.extend(poly_cols.iter().map(|&c| Variant::BASELINE.with_poly_cols(c)));
    out.push(conditional);
    out.extend(poly_cols.iter().map(|&c| conditional.with_poly_cols(c)));
    out
}

/// Times every variant on `machine`, on up to `threads` host threads; rows in the order of
/// `variants`.
pub fn ablation(
    problem: &Problem,
    variants: &[Variant],
    machine: &Machine,
    opts: &SimOptions,
    threads: usize,
) -> Result<Vec<Row>, SimError> {
    let next = AtomicUsize::new(0);
    let done: Mutex<Vec<(usize, Result<SimReport, SimError>)>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, variants.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(variant) = variants.get(i) else { break };
                    let report = blackwell::simulate_variant(problem, variant, machine, opts);
                    done.lock().unwrap_or_else(|e| e.into_inner()).push((i, report));
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_else(|e| e.into_inner());
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(i, report)| Ok(Row { variant: variants[i], report: report? })).collect()
}

/// The fastest row.
pub fn best(rows: &[Row]) -> Option<&Row> {
    rows.iter().min_by_key(|row| row.report.cycles)
}

/// How often conditional rescaling with `threshold` rescales on inputs `q`, `k` of
/// `problem`: the kernel's rule replayed on the host in f64 (per Q tile of 128 rows and K/V
/// block after the first, whether any row's maximum of `S · log2(e)/sqrt(d)` grew past the
/// kept one by more than `threshold`). Returns (steps that rescale, steps).
pub fn rescale_steps(problem: &Problem, q: &[f32], k: &[f32], threshold: f32) -> (usize, usize) {
    const BM: usize = 128;
    const BN: usize = 128;
    let (seq, d) = (problem.seq, problem.head_dim);
    let scale = f64::from(problem.scale_log2());
    let blocks_total = seq.div_ceil(BN);
    let (mut rescaled, mut steps) = (0, 0);
    for head in 0..problem.batch * problem.heads {
        let base = head * seq * d;
        for cta_row0 in (0..seq).step_by(2 * BM) {
            let blocks = if problem.causal { blocks_total.min((cta_row0 + 2 * BM).div_ceil(BN)) } else { blocks_total };
            for tile_row0 in [cta_row0, cta_row0 + BM] {
                let rows = tile_row0..(tile_row0 + BM).min(seq);
                let mut kept = vec![f64::NEG_INFINITY; rows.len()];
                for j in 0..blocks {
                    let mut any = false;
                    for (kept, i) in kept.iter_mut().zip(rows.clone()) {
                        let keys = j * BN..((j + 1) * BN).min(seq).min(if problem.causal { i + 1 } else { seq });
                        let qi = &q[base + i * d..base + (i + 1) * d];
                        let block_max = keys
                            .map(|key| {
                                let kj = &k[base + key * d..base + (key + 1) * d];
                                qi.iter().zip(kj).map(|(a, b)| f64::from(*a) * f64::from(*b)).sum::<f64>() * scale
                            })
                            .fold(f64::NEG_INFINITY, f64::max);
                        if *kept == f64::NEG_INFINITY || block_max - *kept > f64::from(threshold) {
                            any |= *kept != f64::NEG_INFINITY;
                            *kept = kept.max(block_max);
                        }
                    }
                    if j > 0 {
                        steps += 1;
                        rescaled += usize::from(any);
                    }
                }
            }
        }
    }
    (rescaled, steps)
}
