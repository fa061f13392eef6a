//! The warp-specialized GEMM kernel: `C = A · B`, bf16 in, f32 accumulate.
//!
//! One producer warp issues TMA loads of A and B tiles into a 4-stage ring; two consumer
//! warpgroups each own half (64 rows) of a 128 x 256 output tile. Per stage, a `full`
//! barrier (TMA transaction bytes) tells the consumers the tiles have landed and an `empty`
//! barrier (one arrival per consumer warpgroup) tells the producer the slot may be refilled.
//! Edge tiles rely on TMA semantics: loads outside A or B read zeros and stores outside C
//! are dropped, so any M, N, K work.

use warpspec::prelude::*;
use warpspec::{Grid, LaunchError};

/// Stamps the warp-specialized GEMM kernel as module `$name` for one output tile
/// (`bm` x `bn`), k-step depth (`bk`, any constant expression) and ring depth (`stages`).
/// [`ws_gemm`] is its 128 x 256, 4-stage instance; the trade-off study
/// (`crate::gemm_tradeoff`) stamps other tiles and depths from the same text.
macro_rules! ws_gemm_kernel {
    ($name:ident, bm = $bm:literal, bn = $bn:literal, stages = $stages:literal, bk = $($bk:tt)+) => {
        /// The warp-specialized GEMM kernel, written with `#[kernel]`: a TMA producer warp
        /// fills a `STAGES`-deep ring, two consumer warpgroups each multiply their half of
        /// the rows.
        #[warpspec::kernel]
        pub mod $name {
            use warpspec::prelude::*;

            /// Rows of the output tile of one CTA.
            pub const BM: usize = $bm;
            /// Columns of the output tile of one CTA.
            pub const BN: usize = $bn;
            /// Depth of one k-step.
            pub const BK: usize = $($bk)+;
            /// Stages of the operand ring.
            pub const STAGES: usize = $stages;
            /// Rows each consumer warpgroup owns.
            pub const WG_ROWS: usize = BM / 2;

            /// Launch arguments.
            #[params]
            pub struct Args {
                /// `M x K`, row-major.
                pub a: Global<bf16>,
                /// `K x N`, row-major.
                pub b: Global<bf16>,
                /// `M x N`, row-major, written by the kernel.
                pub c: Global<f32>,
            }

            /// Shared memory of one CTA.
            #[shared]
            pub struct Smem {
                a: Ring<Tile<bf16, BM, BK>, STAGES>,
                b: Ring<Tile<bf16, BK, BN>, STAGES>,
            }

            /// The k-loop operands: filled by TMA, drained by both consumer warpgroups.
            #[pipeline(tma, producer = producer, consumer = consumer, guards = [a, b])]
            pub struct Operands;

            /// Issues the TMA loads of every k-step as soon as a stage is free.
            #[role(warps = 1, regs = 40)]
            pub async fn producer(cx: &Ctx<'_, Args>, ops: Producer<'_, Operands>) {
                let args = cx.args();
                let [n_tile, m_tile, _] = cx.block();
                for k in 0..args.a.shape()[1].div_ceil(BK) {
                    let slot = ops.acquire().await;
                    cx.tma_load(&args.a, &[m_tile * BM, k * BK], slot.a(), &slot);
                    cx.tma_load(&args.b, &[k * BK, n_tile * BN], slot.b(), &slot);
                    ops.commit(slot);
                }
            }

            /// Multiplies its rows of each A tile by the B tile, waiting for each MMA before
            /// releasing its stage, then stores its accumulator.
            #[role(warpgroups = 2, regs = 232)]
            pub async fn consumer(cx: &Ctx<'_, Args>, ops: Consumer<'_, Operands>) {
                let args = cx.args();
                let [n_tile, m_tile, _] = cx.block();
                let rows = cx.instance() * WG_ROWS;
                let mut acc = cx.fragment::<WG_ROWS, BN>(0.0);
                for _ in 0..args.a.shape()[1].div_ceil(BK) {
                    let full = ops.wait().await;
                    let mma = cx.wgmma(&mut acc, full.a().rows::<WG_ROWS>(rows), full.b());
                    cx.mma_wait(mma, 0).await;
                    ops.release(full);
                }
                cx.store_global(&acc, &args.c, &[m_tile * BM + rows, n_tile * BN]);
            }
        }
    };
}
pub(crate) use ws_gemm_kernel;

ws_gemm_kernel!(ws_gemm, bm = 128, bn = 256, stages = 4, bk = 64);

/// `C = A · B` on the emulator for `A: m x k` and `B: k x n` (row-major, rounded to bf16).
///
/// Returns `C` (`m x n`, row-major) and the emulator's report.
pub fn gemm(
    m: usize,
    n: usize,
    k: usize,
    a: &[f32],
    b: &[f32],
) -> Result<(Vec<f32>, warpspec::emu::EmuReport), warpspec::emu::EmuError> {
    let args = args(m, n, k, a, b)?;
    let report = warpspec::emu::run::<ws_gemm::Kernel>(grid(m, n), &args)?;
    let c = args.c.to_f32_vec().unwrap_or_default();
    Ok((c, report))
}

/// The launch grid: one CTA per 128 x 256 output tile (x over N, y over M).
pub fn grid(m: usize, n: usize) -> Grid {
    Grid::new(n.div_ceil(ws_gemm::BN) as u32, m.div_ceil(ws_gemm::BM) as u32, 1)
}

/// Launch arguments holding copies of `a` and `b`, checking the shapes.
pub fn args(m: usize, n: usize, k: usize, a: &[f32], b: &[f32]) -> Result<ws_gemm::Args, LaunchError> {
    if m == 0 || n == 0 || k == 0 {
        return Err(LaunchError::Problem(format!("GEMM of {m}x{n}x{k}: every dimension must be at least 1")));
    }
    let a = Global::from_f32(&[m, k], a)
        .ok_or_else(|| LaunchError::Problem(format!("A has {} values, expected m*k = {}", a.len(), m * k)))?;
    let b = Global::from_f32(&[k, n], b)
        .ok_or_else(|| LaunchError::Problem(format!("B has {} values, expected k*n = {}", b.len(), k * n)))?;
    Ok(ws_gemm::Args { a, b, c: Global::zeros(&[m, n]) })
}
