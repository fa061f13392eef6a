//! Calibration item 16's TMA ring on the model: one stage a CTA (a 128 x 64 box of A and
//! 64 x 64 boxes of B across the tile's width: 48 KB for a 128 x 256 GEMM tile's k-step of
//! 64, 32 KB for a 128 x 128 one), a producer warp that refills it as soon as it is released
//! and a consumer warp that holds each stage a chain of dependent FMAs, 132 CTAs (or fewer:
//! `--ctas`) reading the tiles of an 8192³ GEMM in its launch order (`gemm`), each CTA tiles
//! of its own (`unique`) or all one tile (`hit`). Prints, per hold, the model's cycles from
//! the producer's last box (its `expect_tx` arrive) to the consumer past its wait, on SM 0,
//! beside which `calibration/results/tma_load/tma_load.csv` (the `spin` rows with 1 stage,
//! as many CTAs and the stage's bytes) has the H200's.

use warpspec::sim::{self, Machine, SimOptions, TraceOptions};
use warpspec::{Grid, report::Track};

/// The tiles of an 8192³ GEMM in its launch order.
const GEMM: usize = 0;
/// Each CTA tiles of its own (every load an L2 miss).
const UNIQUE: usize = 1;
/// Every CTA the same tile (every load after the first an L2 hit).
const HIT: usize = 2;

/// Stamps the ring for one tile width `bn` (the stage: 128 x 64 of A, 64 x `bn` of B).
macro_rules! ring_kernel {
    ($name:ident, bn = $bn:literal) => {
        #[warpspec::kernel]
        mod $name {
            use super::{GEMM, UNIQUE};
            use warpspec::prelude::*;

            /// CTAs of the launch at most (one per SM).
            pub const CTAS: usize = 132;
            /// k-steps of one tile (8192 / 64).
            pub const KSTEPS: usize = 128;
            /// Columns of the GEMM's output tile (the B boxes' width).
            pub const BN: usize = $bn;
            /// Output tiles of the GEMM along N.
            pub const TILES_N: usize = 8192 / BN;

            #[params]
            pub struct Args {
                pub a: Global<bf16>,
                pub b: Global<bf16>,
                /// Which tiles the CTAs read: [`GEMM`], [`UNIQUE`] or [`super::HIT`].
                pub pattern: usize,
                /// Dependent FMAs the consumer runs on each stage (4 cycles each).
                pub hold: usize,
                /// Tiles of KSTEPS stages each CTA reads.
                pub tiles: usize,
                /// CTAs of the launch (tiles are numbered over them).
                pub ctas: usize,
            }

            #[shared]
            pub struct Smem {
                a: Ring<Tile<bf16, 128, 64>, 1>,
                b: Ring<Tile<bf16, 64, BN>, 1>,
            }

            #[pipeline(tma, producer = load, consumer = hold, guards = [a, b])]
            pub struct Operands;

            #[role(warps = 1, regs = 40)]
            pub async fn load(cx: &Ctx<'_, Args>, ops: Producer<'_, Operands>) {
                let args = cx.args();
                let [cta, _, _] = cx.block();
                for t in 0..args.tiles {
                    let linear = cta + t * args.ctas;
                    let (m, n) = match args.pattern {
                        GEMM => (linear / TILES_N, linear % TILES_N),
                        UNIQUE => (linear, linear),
                        _ => (0, 0),
                    };
                    for k in 0..KSTEPS {
                        let slot = ops.acquire().await;
                        cx.tma_load(&args.a, &[m * 128, k * 64], slot.a(), &slot);
                        cx.tma_load(&args.b, &[k * 64, n * BN], slot.b(), &slot);
                        ops.commit(slot);
                    }
                }
            }

            #[role(warps = 1, regs = 40)]
            pub async fn hold(cx: &Ctx<'_, Args>, ops: Consumer<'_, Operands>) {
                let args = cx.args();
                let mut x = cx.row_vec::<32>(1.0);
                let y = cx.row_vec::<32>(0.5);
                for _ in 0..args.tiles * KSTEPS {
                    let full = ops.wait().await;
                    for _ in 0..args.hold {
                        x = cx.rows_fma(&x, &y, &y);
                    }
                    ops.release(full);
                }
            }
        }
    };
}

ring_kernel!(ring256, bn = 256);
ring_kernel!(ring128, bn = 128);

/// Tiles each CTA reads; the first is left out of the figures (its loads start together).
const TILES: usize = 3;

/// Runs `$ring` (a stamp of [`ring_kernel!`]) once: every CTA reads `$pattern`'s tiles and
/// holds each stage `$hold` cycles, SM 0 traced.
macro_rules! simulate_ring {
    ($ring:ident, $machine:expr, $ctas:expr, $pattern:expr, $hold:expr) => {{
        let args = $ring::Args {
            a: warpspec::dsl::Global::shape_only(&[$ring::CTAS * TILES * 128, 8192]),
            b: warpspec::dsl::Global::shape_only(&[8192, $ring::CTAS * TILES * $ring::BN]),
            pattern: $pattern,
            hold: $hold / 4,
            tiles: TILES,
            ctas: $ctas,
        };
        let trace = TraceOptions { sms: 1, ctas_per_sm: 1, max_events_per_sm: 2_000_000, window: None };
        let opts = SimOptions { clock_ghz: Some(1.98), ..SimOptions::default() }.with_trace(trace);
        sim::simulate::<$ring::Kernel>($machine, Grid::new($ctas as u32, 1, 1), &args, &opts).map_err(|e| e.to_string())
    }};
}

/// Runs the ring with stages `bn` columns wide (128: 32 KB, 256: 48 KB) for each order and
/// hold on `machine` (the H200's description, or one with some parameters in its place) and
/// prints the stage latency's median and p10-p90.
pub fn run(holds: &[usize], ctas: usize, bn: usize, machine: &Machine) -> Result<(), String> {
    if !(1..=ring256::CTAS).contains(&ctas) {
        return Err(format!("--ctas must be 1 to {} (one CTA per SM), not {ctas}", ring256::CTAS));
    }
    if bn != 128 && bn != 256 {
        return Err(format!("--bn must be 128 (32 KB stages) or 256 (48 KB), not {bn}"));
    }
    println!("order   hold (cycles)   last box -> consumer past its wait: median (p10-p90)   cycles a stage");
    for (pattern, order) in [(GEMM, "gemm"), (UNIQUE, "unique"), (HIT, "hit")] {
        for &hold in holds {
            let report = if bn == 128 {
                simulate_ring!(ring128, machine, ctas, pattern, hold)
            } else {
                simulate_ring!(ring256, machine, ctas, pattern, hold)
            }?;
            let spans = report.trace.as_ref().map(|t| t.events.as_slice()).unwrap_or_default();
            let marks = |role: &str, wait: bool| -> Vec<u64> {
                spans
                    .iter()
                    .filter(|s| matches!(s.track, Track::Warp { role: r, resident: 0, .. } if r == role))
                    .filter(|s| s.kind.is_wait() == wait && s.kind.barrier() == Some("Operands.full"))
                    .filter(|s| {
                        wait || matches!(
                            s.kind,
                            warpspec::report::SpanKind::Issued(warpspec::report::Issued::Arrive { .. })
                        )
                    })
                    .map(|s| if wait { s.end } else { s.start })
                    .collect()
            };
            let (armed, passed) = (marks("load", false), marks("hold", true));
            let mut latency: Vec<u64> =
                armed.iter().zip(&passed).skip(ring256::KSTEPS).map(|(a, p)| p.saturating_sub(*a)).collect();
            if latency.is_empty() {
                return Err("the ring's timeline holds no stage past the first tile".into());
            }
            latency.sort_unstable();
            let q = |f: f64| latency[((latency.len() - 1) as f64 * f).round() as usize];
            let per_stage = report.cycles as f64 / (TILES * ring256::KSTEPS) as f64;
            println!("{order:<7} {hold:>13}   {:>6} ({}-{})   {per_stage:>10.0}", q(0.5), q(0.1), q(0.9));
        }
    }
    Ok(())
}
