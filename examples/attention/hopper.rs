//! FA3-style flash attention for Hopper: a producer warpgroup and two consumer warpgroups.
//!
//! A CTA computes 128 query rows of one (batch, head); each consumer warpgroup owns 64 of
//! them, with its accumulators (S, P, O) in registers as `wgmma` leaves them. The producer
//! loads the Q tile once and then K and V blocks of 128 keys into 2-stage rings. Two
//! techniques from the FlashAttention-3 paper (arXiv 2407.08608, section 3):
//! - **ping-pong**: named barriers make the two warpgroups take turns issuing their GEMMs,
//!   so one warpgroup's softmax runs while the other's GEMMs use the tensor cores;
//! - **intra-warpgroup overlap**: `S_j = Q K_jᵀ` and `O += P_{j-1} V_{j-1}` are issued
//!   together and the softmax of block `j` runs while the `P V` MMA is in flight.
//!
//! Both can be switched off per launch ([`Variant`]) to measure what they are worth.

use warpspec::Grid;
use warpspec::dsl::Global;
use warpspec::emu::{EmuError, EmuReport};
use warpspec::gpu::{Cuda, CudaError, Prepared};
use warpspec::report::SimReport;
use warpspec::sim::{self, Machine, SimError, SimOptions};

use super::{Problem, Tensors, emulate};

/// Which scheduling techniques a launch uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Warpgroups take turns issuing GEMMs through named barriers.
    pub pingpong: bool,
    /// `S_{j+1}` is issued with `P_j V_j`, and the softmax of `j+1` overlaps that MMA.
    pub overlap: bool,
}

impl Variant {
    /// Both techniques on, as FlashAttention-3 runs.
    pub const FULL: Variant = Variant { pingpong: true, overlap: true };
}

impl std::fmt::Display for Variant {
    /// `ping-pong + overlap`, `ping-pong only`, `overlap only` or `neither`: the names of
    /// the ablation table.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match (self.pingpong, self.overlap) {
            (true, true) => "ping-pong + overlap",
            (true, false) => "ping-pong only",
            (false, true) => "overlap only",
            (false, false) => "neither",
        })
    }
}

/// The ablation study's rows: both techniques, each alone, neither, and the non-specialized
/// baseline (`None`).
pub const ABLATIONS: [Option<Variant>; 5] = [
    Some(Variant::FULL),
    Some(Variant { pingpong: false, overlap: true }),
    Some(Variant { pingpong: true, overlap: false }),
    Some(Variant { pingpong: false, overlap: false }),
    None,
];

/// A row's name in the ablation table: the variant's, or `non-specialized`.
pub fn variant_name(variant: Option<Variant>) -> String {
    variant.map_or("non-specialized".to_string(), |v| v.to_string())
}

/// Stamps out the kernel for one element type and head dimension.
macro_rules! fa3_kernel {
    ($name:ident, $elem:ty, $d:literal) => {
        /// FA3-style attention kernel (see the module documentation).
        #[warpspec::kernel]
        pub mod $name {
            use warpspec::prelude::*;

            /// Query rows per CTA.
            pub const BM: usize = 128;
            /// Keys per K/V block.
            pub const BN: usize = 128;
            /// Head dimension.
            pub const D: usize = $d;
            /// Query rows per consumer warpgroup.
            pub const WG_ROWS: usize = 64;
            /// Stages of the K and V rings.
            pub const KV_STAGES: usize = 2;

            /// Launch arguments.
            #[params]
            pub struct Args {
                /// Queries `[batch, heads, seq, D]`.
                pub q: Global<$elem>,
                /// Keys.
                pub k: Global<$elem>,
                /// Values.
                pub v: Global<$elem>,
                /// Output, written by the kernel.
                pub o: Global<$elem>,
                /// Causal mask.
                pub causal: bool,
                /// `log2(e) / sqrt(D)`.
                pub scale_log2: f32,
                /// Ping-pong between the consumer warpgroups.
                pub pingpong: bool,
                /// Overlap of the softmax with the `P V` MMA.
                pub overlap: bool,
            }

            /// The launch arguments of `problem` over tensors `t`, scheduled as `variant`.
            pub fn args(
                problem: &crate::attention::Problem,
                t: crate::attention::Tensors<$elem>,
                variant: crate::attention::hopper::Variant,
            ) -> Args {
                Args {
                    q: t.q,
                    k: t.k,
                    v: t.v,
                    o: t.o,
                    causal: problem.causal,
                    scale_log2: problem.scale_log2(),
                    pingpong: variant.pingpong,
                    overlap: variant.overlap,
                }
            }

            /// Shared memory of one CTA.
            #[shared]
            pub struct Smem {
                q: Tile<$elem, BM, D>,
                k: Ring<Tile<$elem, BN, D>, KV_STAGES>,
                v: Ring<Tile<$elem, BN, D>, KV_STAGES>,
            }

            /// The Q tile, loaded once.
            #[pipeline(tma, producer = producer, consumer = consumer, guards = [q])]
            pub struct QTile;

            /// K blocks.
            #[pipeline(tma, producer = producer, consumer = consumer, guards = [k])]
            pub struct Keys;

            /// V blocks.
            #[pipeline(tma, producer = producer, consumer = consumer, guards = [v])]
            pub struct Values;

            /// Warpgroup 0 may issue its GEMMs (warpgroup 1 arrives, 0 syncs).
            #[named_barrier(roles = [consumer], threads = 256)]
            pub struct Wg0Turn;

            /// Warpgroup 1 may issue its GEMMs.
            #[named_barrier(roles = [consumer], threads = 256)]
            pub struct Wg1Turn;

            /// Number of K/V blocks query block `qb` attends to.
            fn kv_blocks(args: &Args, qb: usize) -> usize {
                let blocks = args.k.shape()[2].div_ceil(BN);
                if args.causal { blocks.min(((qb + 1) * BM).div_ceil(BN)) } else { blocks }
            }

            /// Loads Q once, then K and V block by block.
            #[role(warpgroups = 1, regs = 24)]
            pub async fn producer(
                cx: &Ctx<'_, Args>,
                q: Producer<'_, QTile>,
                k: Producer<'_, Keys>,
                v: Producer<'_, Values>,
            ) {
                let args = cx.args();
                let [qb, h, b] = cx.block();
                let slot = q.acquire().await;
                cx.tma_load(&args.q, &[b, h, qb * BM, 0], slot.q(), &slot);
                q.commit(slot);
                for j in 0..kv_blocks(args, qb) {
                    let slot = k.acquire().await;
                    cx.tma_load(&args.k, &[b, h, j * BN, 0], slot.k(), &slot);
                    k.commit(slot);
                    let slot = v.acquire().await;
                    cx.tma_load(&args.v, &[b, h, j * BN, 0], slot.v(), &slot);
                    v.commit(slot);
                }
            }

            /// Waits for this warpgroup's turn to issue GEMMs.
            async fn take_turn(args: &Args, wg: usize, wg0: &Named<'_, Wg0Turn>, wg1: &Named<'_, Wg1Turn>) {
                if args.pingpong {
                    if wg == 0 { wg0.sync().await } else { wg1.sync().await }
                }
            }

            /// Hands the turn to the other warpgroup (warpgroup 1 keeps its last one, which
            /// warpgroup 0 would never take).
            fn pass_turn(args: &Args, wg: usize, last: bool, wg0: &Named<'_, Wg0Turn>, wg1: &Named<'_, Wg1Turn>) {
                if args.pingpong {
                    if wg == 0 {
                        wg1.arrive();
                    } else if !last {
                        wg0.arrive();
                    }
                }
            }

            /// Online softmax of one score block `s` (queries from `q_row0`, keys from
            /// `key0`): masks it, updates the running max `m` and sum `l`, turns `s` into
            /// `P = exp2(S * scale - m)` rounded to the storage format, and returns the
            /// factor `exp2(m_old - m_new)` by which `O` must be rescaled.
            fn softmax(
                cx: &Ctx<'_, Args>,
                s: &mut Fragment<WG_ROWS, BN>,
                m: &mut RowVec<WG_ROWS>,
                l: &mut RowVec<WG_ROWS>,
                q_row0: usize,
                key0: usize,
            ) -> RowVec<WG_ROWS> {
                let args = cx.args();
                let seq = args.k.shape()[2];
                let causal = args.causal;
                if key0 + BN > seq || (causal && key0 + BN > q_row0 + 1) {
                    cx.mask(s, f32::NEG_INFINITY, |r, c| key0 + c < seq && (!causal || key0 + c <= q_row0 + r));
                }
                let block_max = cx.row_max(s);
                let block_max = cx.rows_scale(&block_max, args.scale_log2);
                let m_new = cx.rows_max(m, &block_max);
                cx.scale_sub_rows(s, args.scale_log2, &m_new);
                cx.exp2(s);
                let shift = cx.rows_sub(m, &m_new);
                let correction = cx.rows_exp2(&shift, 1.0);
                let sum = cx.row_sum(s);
                *l = cx.rows_fma(l, &correction, &sum);
                *m = m_new;
                cx.cast::<$elem>(s);
                correction
            }

            /// Attention for 64 query rows: round 0 computes `S_0`, round `j` issues `S_j`
            /// and `P_{j-1} V_{j-1}`, the last round the final `P V`.
            #[role(warpgroups = 2, regs = 240)]
            pub async fn consumer(
                cx: &Ctx<'_, Args>,
                q: Consumer<'_, QTile>,
                k: Consumer<'_, Keys>,
                v: Consumer<'_, Values>,
                wg0: Named<'_, Wg0Turn>,
                wg1: Named<'_, Wg1Turn>,
            ) {
                let args = cx.args();
                let [qb, h, b] = cx.block();
                let wg = cx.instance();
                let q_row0 = qb * BM + wg * WG_ROWS;
                let blocks = kv_blocks(args, qb);
                // The first block is peeled: a query block attends to at least one key block.
                assert!(blocks > 0);
                if args.pingpong && wg == 1 {
                    wg0.arrive();
                }
                let q_full = q.wait().await;
                let q_rows = q_full.q().rows::<WG_ROWS>(wg * WG_ROWS);
                let mut o = cx.fragment::<WG_ROWS, D>(0.0);
                let mut m = cx.row_vec::<WG_ROWS>(f32::NEG_INFINITY);
                let mut l = cx.row_vec::<WG_ROWS>(0.0);

                take_turn(args, wg, &wg0, &wg1).await;
                let key = k.wait().await;
                let mut p = cx.fragment::<WG_ROWS, BN>(0.0);
                let s_mma = cx.wgmma(&mut p, q_rows, key.k().t());
                pass_turn(args, wg, false, &wg0, &wg1);
                cx.mma_wait(s_mma, 0).await;
                k.release(key);
                softmax(cx, &mut p, &mut m, &mut l, q_row0, 0);

                for j in 1..blocks {
                    take_turn(args, wg, &wg0, &wg1).await;
                    let key = k.wait().await;
                    let mut s = cx.fragment::<WG_ROWS, BN>(0.0);
                    let s_mma = cx.wgmma(&mut s, q_rows, key.k().t());
                    let value = v.wait().await;
                    if args.overlap {
                        let pv_mma = cx.wgmma_rs(&mut o, &p, value.v());
                        pass_turn(args, wg, false, &wg0, &wg1);
                        cx.mma_wait(s_mma, 1).await;
                        k.release(key);
                        let correction = softmax(cx, &mut s, &mut m, &mut l, q_row0, j * BN);
                        cx.mma_wait(pv_mma, 0).await;
                        v.release(value);
                        cx.mul_rows(&mut o, &correction);
                    } else {
                        pass_turn(args, wg, false, &wg0, &wg1);
                        cx.mma_wait(s_mma, 0).await;
                        k.release(key);
                        let pv_mma = cx.wgmma_rs(&mut o, &p, value.v());
                        cx.mma_wait(pv_mma, 0).await;
                        v.release(value);
                        let correction = softmax(cx, &mut s, &mut m, &mut l, q_row0, j * BN);
                        cx.mul_rows(&mut o, &correction);
                    }
                    p = s;
                }

                take_turn(args, wg, &wg0, &wg1).await;
                let value = v.wait().await;
                let pv_mma = cx.wgmma_rs(&mut o, &p, value.v());
                pass_turn(args, wg, true, &wg0, &wg1);
                cx.mma_wait(pv_mma, 0).await;
                v.release(value);
                q.release(q_full);
                let inverse = cx.rows_recip(&l);
                cx.mul_rows(&mut o, &inverse);
                cx.store_global(&o, &args.o, &[b, h, q_row0, 0]);
            }
        }
    };
}

/// Stamps out the non-specialized baseline: every warpgroup runs the same program, and
/// warpgroup 0 also issues the TMA loads, prefetching `KV_STAGES` blocks ahead with blocking
/// waits in its main loop (the "v1" schedule of `shared/reference/seeds.md`).
macro_rules! flat_kernel {
    ($name:ident, $elem:ty, $d:literal) => {
        /// Non-specialized attention kernel (see [`flat_kernel`]).
        #[warpspec::kernel]
        pub mod $name {
            use warpspec::prelude::*;

            /// Query rows per CTA.
            pub const BM: usize = 128;
            /// Keys per K/V block.
            pub const BN: usize = 128;
            /// Head dimension.
            pub const D: usize = $d;
            /// Query rows per warpgroup.
            pub const WG_ROWS: usize = 64;
            /// Stages of the K and V rings.
            pub const KV_STAGES: usize = 2;

            /// Launch arguments.
            #[params]
            pub struct Args {
                /// Queries `[batch, heads, seq, D]`.
                pub q: Global<$elem>,
                /// Keys.
                pub k: Global<$elem>,
                /// Values.
                pub v: Global<$elem>,
                /// Output, written by the kernel.
                pub o: Global<$elem>,
                /// Causal mask.
                pub causal: bool,
                /// `log2(e) / sqrt(D)`.
                pub scale_log2: f32,
            }

            /// The launch arguments of `problem` over tensors `t`.
            pub fn args(problem: &crate::attention::Problem, t: crate::attention::Tensors<$elem>) -> Args {
                Args { q: t.q, k: t.k, v: t.v, o: t.o, causal: problem.causal, scale_log2: problem.scale_log2() }
            }

            /// Shared memory of one CTA.
            #[shared]
            pub struct Smem {
                q: Tile<$elem, BM, D>,
                k: Ring<Tile<$elem, BN, D>, KV_STAGES>,
                v: Ring<Tile<$elem, BN, D>, KV_STAGES>,
            }

            /// The Q tile; warpgroup 0 loads it.
            #[pipeline(tma, producer = worker, consumer = worker, guards = [q], full_arrivals = 1)]
            pub struct QTile;

            /// K blocks; warpgroup 0 loads them.
            #[pipeline(tma, producer = worker, consumer = worker, guards = [k], full_arrivals = 1)]
            pub struct Keys;

            /// V blocks; warpgroup 0 loads them.
            #[pipeline(tma, producer = worker, consumer = worker, guards = [v], full_arrivals = 1)]
            pub struct Values;

            /// Number of K/V blocks query block `qb` attends to.
            fn kv_blocks(args: &Args, qb: usize) -> usize {
                let blocks = args.k.shape()[2].div_ceil(BN);
                if args.causal { blocks.min(((qb + 1) * BM).div_ceil(BN)) } else { blocks }
            }

            /// Loads K block `j` (from the loading warpgroup).
            async fn load_k(cx: &Ctx<'_, Args>, k: &Producer<'_, Keys>, j: usize) {
                let [_, h, b] = cx.block();
                let slot = k.acquire().await;
                cx.tma_load(&cx.args().k, &[b, h, j * BN, 0], slot.k(), &slot);
                k.commit(slot);
            }

            /// Loads V block `j` (from the loading warpgroup).
            async fn load_v(cx: &Ctx<'_, Args>, v: &Producer<'_, Values>, j: usize) {
                let [_, h, b] = cx.block();
                let slot = v.acquire().await;
                cx.tma_load(&cx.args().v, &[b, h, j * BN, 0], slot.v(), &slot);
                v.commit(slot);
            }

            /// Loads (warpgroup 0) and computes attention for 64 query rows.
            #[role(warpgroups = 2, regs = 240)]
            pub async fn worker(
                cx: &Ctx<'_, Args>,
                q_load: Producer<'_, QTile>,
                q: Consumer<'_, QTile>,
                k_load: Producer<'_, Keys>,
                k: Consumer<'_, Keys>,
                v_load: Producer<'_, Values>,
                v: Consumer<'_, Values>,
            ) {
                let args = cx.args();
                let [qb, h, b] = cx.block();
                let wg = cx.instance();
                let loader = wg == 0;
                let q_row0 = qb * BM + wg * WG_ROWS;
                let blocks = kv_blocks(args, qb);
                if loader {
                    let slot = q_load.acquire().await;
                    cx.tma_load(&args.q, &[b, h, qb * BM, 0], slot.q(), &slot);
                    q_load.commit(slot);
                    for j in 0..blocks.min(KV_STAGES) {
                        load_k(cx, &k_load, j).await;
                        load_v(cx, &v_load, j).await;
                    }
                }
                let q_full = q.wait().await;
                let q_rows = q_full.q().rows::<WG_ROWS>(wg * WG_ROWS);
                let mut o = cx.fragment::<WG_ROWS, D>(0.0);
                let mut m = cx.row_vec::<WG_ROWS>(f32::NEG_INFINITY);
                let mut l = cx.row_vec::<WG_ROWS>(0.0);
                for j in 0..blocks {
                    let key = k.wait().await;
                    let mut s = cx.fragment::<WG_ROWS, BN>(0.0);
                    let s_mma = cx.wgmma(&mut s, q_rows, key.k().t());
                    cx.mma_wait(s_mma, 0).await;
                    k.release(key);
                    if loader && j + KV_STAGES < blocks {
                        load_k(cx, &k_load, j + KV_STAGES).await;
                    }
                    let seq = args.k.shape()[2];
                    let (causal, key0) = (args.causal, j * BN);
                    if key0 + BN > seq || (causal && key0 + BN > q_row0 + 1) {
                        cx.mask(&mut s, f32::NEG_INFINITY, |r, c| {
                            key0 + c < seq && (!causal || key0 + c <= q_row0 + r)
                        });
                    }
                    let block_max = cx.row_max(&s);
                    let block_max = cx.rows_scale(&block_max, args.scale_log2);
                    let m_new = cx.rows_max(&m, &block_max);
                    cx.scale_sub_rows(&mut s, args.scale_log2, &m_new);
                    cx.exp2(&mut s);
                    let shift = cx.rows_sub(&m, &m_new);
                    let correction = cx.rows_exp2(&shift, 1.0);
                    let sum = cx.row_sum(&s);
                    l = cx.rows_fma(&l, &correction, &sum);
                    m = m_new;
                    cx.cast::<$elem>(&mut s);
                    cx.mul_rows(&mut o, &correction);
                    let value = v.wait().await;
                    let pv_mma = cx.wgmma_rs(&mut o, &s, value.v());
                    cx.mma_wait(pv_mma, 0).await;
                    v.release(value);
                    if loader && j + KV_STAGES < blocks {
                        load_v(cx, &v_load, j + KV_STAGES).await;
                    }
                }
                q.release(q_full);
                let inverse = cx.rows_recip(&l);
                cx.mul_rows(&mut o, &inverse);
                cx.store_global(&o, &args.o, &[b, h, q_row0, 0]);
            }
        }
    };
}

fa3_kernel!(fa3_bf16_d64, bf16, 64);
fa3_kernel!(fa3_bf16_d128, bf16, 128);
fa3_kernel!(fa3_f16_d64, f16, 64);
fa3_kernel!(fa3_f16_d128, f16, 128);
flat_kernel!(flat_bf16_d64, bf16, 64);
flat_kernel!(flat_bf16_d128, bf16, 128);
flat_kernel!(flat_f16_d64, f16, 64);
flat_kernel!(flat_f16_d128, f16, 128);

/// The launch grid: one CTA per 128 query rows (x), head (y) and batch entry (z).
pub fn grid(problem: &Problem) -> Grid {
    Grid::saturating(problem.seq.div_ceil(128), problem.heads, problem.batch)
}

/// Runs the kernel matching `problem` on the emulator; returns `O` (`[batch, heads, seq, d]`,
/// row-major) and the report.
pub fn run(
    problem: &Problem,
    variant: Variant,
    q: &[f32],
    k: &[f32],
    v: &[f32],
) -> Result<(Vec<f32>, EmuReport), EmuError> {
    problem.check()?;
    macro_rules! launch {
        ($kernel:ident, $elem:ty) => {{
            let t = Tensors::<$elem>::new(problem, q, k, v)?;
            let out = t.o.clone();
            emulate::<$kernel::Kernel, _>(grid(problem), &$kernel::args(problem, t, variant), &out)
        }};
    }
    by_format!(problem, launch, [fa3_bf16_d64, fa3_bf16_d128, fa3_f16_d64, fa3_f16_d128])
}

/// Runs the non-specialized baseline matching `problem` on the emulator.
pub fn run_flat(problem: &Problem, q: &[f32], k: &[f32], v: &[f32]) -> Result<(Vec<f32>, EmuReport), EmuError> {
    problem.check()?;
    macro_rules! launch {
        ($kernel:ident, $elem:ty) => {{
            let t = Tensors::<$elem>::new(problem, q, k, v)?;
            let out = t.o.clone();
            emulate::<$kernel::Kernel, _>(grid(problem), &$kernel::args(problem, t), &out)
        }};
    }
    by_format!(problem, launch, [flat_bf16_d64, flat_bf16_d128, flat_f16_d64, flat_f16_d128])
}

/// Prepares the kernel matching `problem` on the GPU (`variant: None`: the non-specialized
/// baseline) over `q`, `k`, `v`, with the output filled with NaN so that an element the
/// kernel does not write shows; runs `body` with the prepared launch (run it, time it),
/// then copies `O` back. Returns `O` and what `body` returned.
pub fn with_gpu<R>(
    cuda: &Cuda,
    problem: &Problem,
    variant: Option<Variant>,
    q: &[f32],
    k: &[f32],
    v: &[f32],
    body: impl FnOnce(&Prepared<'_>) -> Result<R, CudaError>,
) -> Result<(Vec<f32>, R), CudaError> {
    problem.check()?;
    macro_rules! tensors {
        ($elem:ty) => {{
            let mut t = Tensors::<$elem>::new(problem, q, k, v)?;
            let poison = vec![f32::NAN; problem.elements()];
            t.o = Global::output_from_f32(&problem.shape(), &poison).expect("the shape of O");
            t
        }};
    }
    macro_rules! launch {
        ($kernel:ident, $elem:ty, $t:ident => $args:expr) => {{
            let $t = tensors!($elem);
            let out = $t.o.clone();
            let args = $args;
            let prepared = cuda.prepare::<$kernel::Kernel>(grid(problem), &args)?;
            let r = body(&prepared)?;
            prepared.finish()?;
            Ok((out.to_f32_vec().unwrap_or_default(), r))
        }};
    }
    macro_rules! specialized {
        ($kernel:ident, $elem:ty) => {
            launch!($kernel, $elem, t => $kernel::args(problem, t, variant.unwrap_or(Variant::FULL)))
        };
    }
    macro_rules! flat {
        ($kernel:ident, $elem:ty) => {
            launch!($kernel, $elem, t => $kernel::args(problem, t))
        };
    }
    match variant {
        Some(_) => by_format!(problem, specialized, [fa3_bf16_d64, fa3_bf16_d128, fa3_f16_d64, fa3_f16_d128]),
        None => by_format!(problem, flat, [flat_bf16_d64, flat_bf16_d128, flat_f16_d64, flat_f16_d128]),
    }
}

/// Runs the kernel matching `problem` once on the GPU; returns `O`.
pub fn run_gpu(
    cuda: &Cuda,
    problem: &Problem,
    variant: Option<Variant>,
    q: &[f32],
    k: &[f32],
    v: &[f32],
) -> Result<Vec<f32>, CudaError> {
    with_gpu(cuda, problem, variant, q, k, v, |p| p.run().map(drop)).map(|(o, ())| o)
}

/// Times the kernel matching `problem` on `machine` (shape only: no data, no arithmetic);
/// `variant: None` times the non-specialized baseline.
pub fn simulate(
    problem: &Problem,
    variant: Option<Variant>,
    machine: &Machine,
    opts: &SimOptions,
) -> Result<SimReport, SimError> {
    problem.check()?;
    macro_rules! specialized {
        ($kernel:ident, $elem:ty) => {{
            let args = $kernel::args(problem, Tensors::<$elem>::shape_only(problem), variant.unwrap_or(Variant::FULL));
            sim::simulate::<$kernel::Kernel>(machine, grid(problem), &args, opts)
        }};
    }
    macro_rules! flat {
        ($kernel:ident, $elem:ty) => {{
            let args = $kernel::args(problem, Tensors::<$elem>::shape_only(problem));
            sim::simulate::<$kernel::Kernel>(machine, grid(problem), &args, opts)
        }};
    }
    match variant {
        Some(_) => by_format!(problem, specialized, [fa3_bf16_d64, fa3_bf16_d128, fa3_f16_d64, fa3_f16_d128]),
        None => by_format!(problem, flat, [flat_bf16_d64, flat_bf16_d128, flat_f16_d64, flat_f16_d128]),
    }
}
