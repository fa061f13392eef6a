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
/// (`bm` x `bn`), k-step depth (`bk`, any constant expression), ring depth (`stages`) and,
/// optionally, the element type of C (`out`: `bf16` or `f16` round the f32 accumulator to
/// nearest even as they are stored) and the rasterization group (`group_m`: CTAs take output
/// tiles `group_m` tile rows at a time, column by column, so that the CTAs running together
/// share B tiles in L2; 1 is plain row-major order). Without them, C is `f32` and
/// `group_m` is 1.
/// [`ws_gemm`] is its 128 x 256, 4-stage instance with groups of 16 tile rows
/// ([`ws_gemm_bf16`] the same with a bf16 C); the trade-off study
/// (`crate::gemm_tradeoff`) and the validation sweep (`calibration/validate`) stamp other
/// tiles and depths from the same text.
#[macro_export]
macro_rules! ws_gemm_kernel {
    ($name:ident, bm = $bm:literal, bn = $bn:literal, stages = $stages:literal, bk = $($bk:tt)+) => {
        $crate::gemm::ws_gemm_kernel!($name, bm = $bm, bn = $bn, stages = $stages, out = f32, group_m = 1, bk = $($bk)+);
    };
    (
        $name:ident, bm = $bm:literal, bn = $bn:literal, stages = $stages:literal, out = $out:ident,
        group_m = $group_m:literal, bk = $($bk:tt)+
    ) => {
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
            /// Tile rows of one rasterization group.
            pub const GROUP_M: usize = $group_m;

            /// Launch arguments.
            #[params]
            pub struct Args {
                /// `M x K`, row-major.
                pub a: Global<bf16>,
                /// `K x N`, row-major.
                pub b: Global<bf16>,
                /// `M x N`, row-major, written by the kernel.
                pub c: Global<$out>,
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

            /// Output tiles across N.
            fn tiles_n(args: &Args) -> usize {
                args.b.shape()[1].div_ceil(BN)
            }

            /// Grid positions per rasterization group: `GROUP_M` tile rows of every column.
            /// Position `linear` (row-major over the grid) falls in group
            /// `linear / group_span`, which walks its tile rows column by column.
            fn group_span(args: &Args) -> usize {
                GROUP_M * tiles_n(args)
            }

            /// Tile rows in the group of position `linear` (fewer in the last group).
            fn group_rows(args: &Args, linear: usize) -> usize {
                let first = linear / group_span(args) * GROUP_M;
                (args.a.shape()[0].div_ceil(BM) - first).min(GROUP_M)
            }

            /// The output tile row of position `linear`.
            fn tile_row(args: &Args, linear: usize) -> usize {
                linear / group_span(args) * GROUP_M + linear % group_span(args) % group_rows(args, linear)
            }

            /// The output tile column of position `linear`.
            fn tile_col(args: &Args, linear: usize) -> usize {
                linear % group_span(args) / group_rows(args, linear)
            }

            /// Issues the TMA loads of every k-step as soon as a stage is free.
            #[role(warps = 1, regs = 40)]
            pub async fn producer(cx: &Ctx<'_, Args>, ops: Producer<'_, Operands>) {
                let args = cx.args();
                let [x, y, _] = cx.block();
                let linear = y * tiles_n(args) + x;
                let (m_tile, n_tile) = (tile_row(args, linear), tile_col(args, linear));
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
                let [x, y, _] = cx.block();
                let linear = y * tiles_n(args) + x;
                let (m_tile, n_tile) = (tile_row(args, linear), tile_col(args, linear));
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
pub use ws_gemm_kernel;

ws_gemm_kernel!(ws_gemm, bm = 128, bn = 256, stages = 4, out = f32, group_m = 16, bk = 64);
ws_gemm_kernel!(ws_gemm_bf16, bm = 128, bn = 256, stages = 4, out = bf16, group_m = 16, bk = 64);

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

/// The launch grid: one CTA per 128 x 256 output tile (x over N, y over M). A problem too
/// large for a grid gives one that every launch rejects ([`Grid::saturating`]);
/// [`check_problem`] says so before any work.
pub fn grid(m: usize, n: usize) -> Grid {
    Grid::saturating(n.div_ceil(ws_gemm::BN), m.div_ceil(ws_gemm::BM), 1)
}

/// Checks an `m x n x k` GEMM for a kernel of `bm x bn` output tiles before any work: every
/// dimension at least 1, each operand's element count and the FLOP count (2·m·n·k) within
/// `u64`, and the grid (x over N, y over M) within the launch limits. Returns the grid.
pub fn check_problem(m: usize, n: usize, k: usize, bm: usize, bn: usize) -> Result<Grid, LaunchError> {
    if m == 0 || n == 0 || k == 0 {
        return Err(LaunchError::Problem(format!("GEMM of {m}x{n}x{k}: every dimension must be at least 1")));
    }
    let [m64, n64, k64] = [m, n, k].map(|d| d as u64);
    let counted = [m64.checked_mul(k64), k64.checked_mul(n64), m64.checked_mul(n64)]
        .into_iter()
        .all(|c| c.is_some_and(|c| usize::try_from(c).is_ok()));
    if !counted || m64.checked_mul(n64).and_then(|mn| mn.checked_mul(k64)).and_then(|mnk| mnk.checked_mul(2)).is_none()
    {
        return Err(LaunchError::Problem(format!(
            "GEMM of {m}x{n}x{k}: its element or FLOP counts do not fit in 64 bits; use a smaller problem"
        )));
    }
    Grid::try_new(n.div_ceil(bn), m.div_ceil(bm), 1)
}

/// Host bytes an emulator run of an `m x n x k` GEMM allocates for its data, as the examples
/// do it: A and B as random `f32`, rounded `f32` and `bf16` copies (10 bytes an element), C
/// as the output tensor, its `f32` copy and the `f64` reference (16 bytes an element).
/// `None` if the count overflows.
pub fn host_bytes(m: usize, n: usize, k: usize) -> Option<u64> {
    let [m, n, k] = [m, n, k].map(|d| d as u64);
    let inputs = m.checked_mul(k)?.checked_add(k.checked_mul(n)?)?.checked_mul(10)?;
    inputs.checked_add(m.checked_mul(n)?.checked_mul(16)?)
}

/// Launch arguments holding copies of `a` and `b`, checking the shapes.
pub fn args(m: usize, n: usize, k: usize, a: &[f32], b: &[f32]) -> Result<ws_gemm::Args, LaunchError> {
    check_problem(m, n, k, ws_gemm::BM, ws_gemm::BN)?;
    let a = Global::from_f32(&[m, k], a)
        .ok_or_else(|| LaunchError::Problem(format!("A has {} values, expected m*k = {}", a.len(), m * k)))?;
    let b = Global::from_f32(&[k, n], b)
        .ok_or_else(|| LaunchError::Problem(format!("B has {} values, expected k*n = {}", b.len(), k * n)))?;
    Ok(ws_gemm::Args { a, b, c: Global::zeros(&[m, n]) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn problems_beyond_the_grid_or_64_bits_are_rejected_before_any_work() {
        assert_eq!(check_problem(512, 512, 512, 128, 256), Ok(Grid::new(2, 4, 1)));
        let tall = check_problem(65_536 * 128 + 1, 256, 64, 128, 256).unwrap_err();
        assert!(matches!(tall, LaunchError::GridTooLarge { axis: 'y', .. }), "{tall:?}");
        let huge = check_problem(1 << 40, 1 << 40, 1 << 40, 128, 256).unwrap_err();
        assert!(huge.to_string().contains("64 bits"), "{huge}");
        assert!(check_problem(0, 1, 1, 128, 256).is_err());
        assert_eq!(grid(1 << 40, 256).dims[1], u32::MAX);
    }

    #[test]
    fn host_bytes_count_inputs_outputs_and_reference() {
        assert_eq!(host_bytes(2, 3, 4), Some(10 * (8 + 12) + 16 * 6));
        assert_eq!(host_bytes(1 << 40, 1 << 40, 1 << 40), None);
    }
}
