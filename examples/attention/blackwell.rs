//! Five-role flash attention for Blackwell (FlashAttention-4 style), following the barrier
//! map of `shared/reference/flash-attention-roles.md`.
//!
//! A CTA computes two 128-row Q tiles (`s = 0, 1`) of one (batch, head) against all K/V
//! blocks of 128 keys. Accumulators live in tensor memory: `S_s` (with `P_s` written over
//! it) and `O_s`, 2 x 128 + 2 x d columns. Roles:
//! - `load` (1 warp): TMA of Q_0, Q_1 and of K_j, V_j into one ring shared by K and V;
//! - `mma` (1 warp, one thread issues): `S_s = Q_s K_jᵀ` and `O_s += P_s V_j` with
//!   `tcgen05.mma`, signalling completions with `tcgen05.commit`;
//! - `softmax` (2 warpgroups, instance `s` owns Q tile `s`): online softmax with `exp2`,
//!   `P_s` back into tensor memory, the rescale factor published to `correction`;
//! - `correction` (1 warpgroup): rescales `O_s` in tensor memory when the row max grows,
//!   then normalises it by `1/l` into shared memory for the epilogue;
//! - `epilogue` (1 warp): TMA store of each normalised `O_s`.
//!
//! FlashAttention-4's softmax techniques are [`Variant`]s of the same kernel:
//! - software `exp2`: the first `poly_cols` columns of each 128-column block of `S` take
//!   `exp2` by range reduction and a degree-3 polynomial on the FMA and ALU pipes
//!   ([`warpspec::dsl::exp2_poly`]), the rest on MUFU;
//! - conditional rescaling: softmax keeps a row's running maximum unless it grew by more than
//!   `threshold` (so the published factor is exactly 1), and correction rescales `O_s` only
//!   when a vote finds a factor below 1 — a data-dependent branch. Both arms arrive on the
//!   same barriers; the emulator decides it on the data, the timing model (no data) by the
//!   variant's declared assumption [`Variant::assumed_rescale_rate`].
//!
//! [`fa4_bf16_d64`] and its siblings are the baseline (every exponential on MUFU, `O_s`
//! rescaled every step); [`fa4v_bf16_d64`] and its siblings take the variant as a launch
//! argument.

use warpspec::Grid;
use warpspec::emu::{EmuError, EmuReport};
use warpspec::report::SimReport;
use warpspec::sim::{self, Machine, SimError, SimOptions};

use super::{Problem, Tensors, emulate};

/// Which of FlashAttention-4's softmax techniques a launch uses.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Variant {
    /// Columns of each 128-column block of `S` whose `exp2` runs in software on the FMA and
    /// ALU pipes (0 to 128); the others run on MUFU.
    pub poly_cols: usize,
    /// Conditional rescaling: a row's running maximum is kept unless it grew by more than
    /// this many (`log2`) units, and `O_s` is rescaled only when some row's was not. `None`:
    /// rescale every step.
    pub rescale_threshold: Option<f32>,
    /// What the timing model, which runs without data, assumes of the data-dependent
    /// rescale: the fraction of (K/V block, Q tile) steps that rescale, spread evenly over
    /// the steps. Ignored by runs with data and without conditional rescaling.
    pub assumed_rescale_rate: f32,
}

impl Variant {
    /// Every exponential on MUFU, `O_s` rescaled every step.
    pub const BASELINE: Variant = Variant { poly_cols: 0, rescale_threshold: None, assumed_rescale_rate: 1.0 };
    /// FlashAttention-4's rescale threshold: `log2(256) = 8` (a factor of 256 of headroom).
    pub const FA4_THRESHOLD: f32 = 8.0;

    /// This variant with `poly_cols` columns of software `exp2`.
    pub const fn with_poly_cols(self, poly_cols: usize) -> Variant {
        Variant { poly_cols, ..self }
    }

    /// This variant with conditional rescaling at `threshold`, the timing model assuming
    /// `assumed_rate` of the steps rescale.
    pub const fn with_conditional_rescale(self, threshold: f32, assumed_rate: f32) -> Variant {
        Variant { rescale_threshold: Some(threshold), assumed_rescale_rate: assumed_rate, ..self }
    }

    /// A short name: "baseline", "exp2 poly 32/128", "cond. rescale", "exp2 poly 32/128 + cond. rescale".
    pub fn name(&self) -> String {
        let mut parts = Vec::new();
        if self.poly_cols > 0 {
            parts.push(format!("poly exp2 {}/128", self.poly_cols));
        }
        if self.rescale_threshold.is_some() {
            parts.push("cond. rescale".to_string());
        }
        if parts.is_empty() { "baseline".to_string() } else { parts.join(" + ") }
    }
}

// The baseline kernels spell out [`Variant::BASELINE`] as constants the generated code can
// fold: no software `exp2`, unconditional rescaling, every step assumed to rescale.
const _: () = assert!(
    Variant::BASELINE.poly_cols == 0
        && Variant::BASELINE.rescale_threshold.is_none()
        && Variant::BASELINE.assumed_rescale_rate == 1.0
);

/// Stamps out the kernel for one element type and head dimension: the baseline (no variant
/// field, [`Variant::BASELINE`]) or the kernel taking a [`Variant`] as a launch argument.
macro_rules! fa4_kernel {
    ($name:ident, $elem:ty, $d:literal) => {
        fa4_kernel!(
            @body $name, $elem, $d, [], args,
            { let _ = args; 0 },
            { let _ = args; false },
            { let _ = args; 0.0 },
            { let _ = args; 1.0 },
            variant, {}
        );
    };
    ($name:ident, $elem:ty, $d:literal, variant) => {
        fa4_kernel!(
            @body $name, $elem, $d,
            [
                /// [`Variant::poly_cols`].
                pub poly_cols: usize,
                /// Whether [`Variant::rescale_threshold`] is given.
                pub conditional_rescale: bool,
                /// [`Variant::rescale_threshold`] when given (0 otherwise).
                pub rescale_threshold: f32,
                /// [`Variant::assumed_rescale_rate`].
                pub assumed_rescale_rate: f32,
            ],
            args,
            { args.poly_cols },
            { args.conditional_rescale },
            { args.rescale_threshold },
            { args.assumed_rescale_rate },
            variant,
            {
                poly_cols: variant.poly_cols,
                conditional_rescale: variant.rescale_threshold.is_some(),
                rescale_threshold: variant.rescale_threshold.unwrap_or(0.0),
                assumed_rescale_rate: variant.assumed_rescale_rate,
            }
        );
    };
    (
        @body $name:ident, $elem:ty, $d:literal, [$($field:tt)*], $a:ident,
        $poly_cols:block, $conditional:block, $threshold:block, $rate:block, $v:ident, { $($init:tt)* }
    ) => {
        /// Five-role attention kernel (see the module documentation).
        #[warpspec::kernel]
        pub mod $name {
            use warpspec::prelude::*;
            use warpspec::dsl::Assume;
            #[allow(unused_imports)]
            use crate::attention::blackwell::Variant;

            /// Rows of one Q tile; a CTA has two.
            pub const BM: usize = 128;
            /// Keys per K/V block.
            pub const BN: usize = 128;
            /// Head dimension.
            pub const D: usize = $d;
            /// Stages of the K/V ring.
            pub const KV_STAGES: usize = 3;

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
                $($field)*
            }

            /// The launch arguments of `problem` over tensors `t` (`variant` is used by the
            /// kernels that take one).
            pub fn args(
                problem: &crate::attention::Problem,
                t: crate::attention::Tensors<$elem>,
                $v: &Variant,
            ) -> Args {
                let _ = $v;
                Args { q: t.q, k: t.k, v: t.v, o: t.o, causal: problem.causal, scale_log2: problem.scale_log2(), $($init)* }
            }

            /// Columns of software `exp2` per 128-column block ([`Variant::poly_cols`]).
            fn poly_cols($a: &Args) -> usize $poly_cols

            /// Whether rescaling is conditional ([`Variant::rescale_threshold`] is given).
            fn conditional_rescale($a: &Args) -> bool $conditional

            /// The growth of a row maximum that forces a rescale, when conditional.
            fn rescale_threshold($a: &Args) -> f32 $threshold

            /// The fraction of steps the timing model assumes to rescale
            /// ([`Variant::assumed_rescale_rate`]).
            fn assumed_rescale_rate($a: &Args) -> f32 $rate

            /// Shared and tensor memory of one CTA.
            #[shared]
            pub struct Smem {
                q: Ring<Tile<$elem, BM, D>, 2>,
                kv: Ring<Tile<$elem, BN, D>, KV_STAGES>,
                o_out: Ring<Tile<$elem, BM, D>, 2>,
                stats: [Tile<f32, BM, 1>; 2],
                s: [TmemTile<BM, BN>; 2],
                o: [TmemTile<BM, D>; 2],
            }

            /// Q tiles 0 and 1, loaded once.
            #[pipeline(tma, producer = load, consumer = mma, guards = [q])]
            pub struct QTiles;

            /// K and V blocks in one ring; the MMA warp releases a slot when the MMAs that
            /// read it complete.
            #[pipeline(tma, producer = load, consumer = mma, guards = [kv])]
            pub struct KvBlocks;

            /// Normalised `O_s` in shared memory, for the epilogue's TMA store.
            #[pipeline(producer = correction, consumer = epilogue, guards = [o_out])]
            pub struct OutTiles;

            /// `S_s = Q_s K_jᵀ` is complete (index `s`).
            #[barrier(arrive = [mma], wait = [softmax], len = 2, count = 1)]
            pub struct SFull;

            /// `P_s` is written (softmax) and `O_s` rescaled (correction): the MMA warp may
            /// issue `O_s += P_s V_j`.
            #[barrier(arrive = [softmax, correction], wait = [mma], len = 2, count = 2)]
            pub struct PoReady;

            /// Softmax published the rescale factor (or, last, the row sum) of tile `s`.
            #[barrier(arrive = [softmax], wait = [correction], len = 2, count = 1)]
            pub struct StatsFull;

            /// Correction has read the statistics of tile `s`.
            #[barrier(arrive = [correction], wait = [softmax], len = 2, count = 1)]
            pub struct StatsEmpty;

            /// The last `O_s += P_s V` is complete.
            #[barrier(arrive = [mma], wait = [correction], len = 2, count = 1)]
            pub struct OFinal;

            /// Number of K/V blocks the CTA's query rows attend to.
            fn kv_blocks(args: &Args, cta_row0: usize) -> usize {
                let blocks = args.k.shape()[2].div_ceil(BN);
                if args.causal { blocks.min((cta_row0 + 2 * BM).div_ceil(BN)) } else { blocks }
            }

            /// The coordinates of query row `row` of this CTA's (batch, head).
            fn at(cx: &Ctx<'_, Args>, row: usize) -> [usize; 4] {
                let [_, h, b] = cx.block();
                [b, h, row, 0]
            }

            /// First query row of this CTA.
            fn cta_row0(cx: &Ctx<'_, Args>) -> usize {
                cx.block()[0] * 2 * BM
            }

            /// TMA loads: K_0, Q_0, Q_1, V_0, then K_j, V_j.
            #[role(warps = 1, regs = 48)]
            pub async fn load(cx: &Ctx<'_, Args>, q: Producer<'_, QTiles>, kv: Producer<'_, KvBlocks>) {
                let args = cx.args();
                let row0 = cta_row0(cx);
                let slot = kv.acquire().await;
                cx.tma_load(&args.k, &at(cx, 0), slot.kv(), &slot);
                kv.commit(slot);
                for s in 0..2 {
                    let slot = q.acquire().await;
                    cx.tma_load(&args.q, &at(cx, row0 + s * BM), slot.q(), &slot);
                    q.commit(slot);
                }
                let slot = kv.acquire().await;
                cx.tma_load(&args.v, &at(cx, 0), slot.kv(), &slot);
                kv.commit(slot);
                for j in 1..kv_blocks(args, row0) {
                    let slot = kv.acquire().await;
                    cx.tma_load(&args.k, &at(cx, j * BN), slot.kv(), &slot);
                    kv.commit(slot);
                    let slot = kv.acquire().await;
                    cx.tma_load(&args.v, &at(cx, j * BN), slot.kv(), &slot);
                    kv.commit(slot);
                }
            }

            /// Issues every MMA from one thread.
            #[role(warps = 1, regs = 48)]
            pub async fn mma(
                cx: &Ctx<'_, Args>,
                q: Consumer<'_, QTiles>,
                kv: Consumer<'_, KvBlocks>,
                s_full: Arriver<'_, SFull>,
                po_ready: Waiter<'_, PoReady>,
                o_final: Arriver<'_, OFinal>,
                s: &[TmemTile<BM, BN>; 2],
                o: &[TmemTile<BM, D>; 2],
            ) {
                let blocks = kv_blocks(cx.args(), cta_row0(cx));
                // The first block is peeled: a CTA attends to at least one key block.
                assert!(blocks > 0);
                let q0 = q.wait().await;
                let key = kv.wait().await;
                cx.umma(&s[0], q0.q(), key.kv().t(), false);
                s_full.arrive_on_mma_completion(0);
                let q1 = q.wait().await;
                cx.umma(&s[1], q1.q(), key.kv().t(), false);
                s_full.arrive_on_mma_completion(1);
                kv.release_on_mma_completion(key);
                for j in 1..blocks {
                    let value = kv.wait().await;
                    po_ready.wait(0, (j as u32 - 1) & 1).await;
                    cx.umma_ts(&o[0], &s[0], value.kv(), j > 1);
                    let key = kv.wait().await;
                    cx.umma(&s[0], q0.q(), key.kv().t(), false);
                    s_full.arrive_on_mma_completion(0);
                    po_ready.wait(1, (j as u32 - 1) & 1).await;
                    cx.umma_ts(&o[1], &s[1], value.kv(), j > 1);
                    kv.release_on_mma_completion(value);
                    cx.umma(&s[1], q1.q(), key.kv().t(), false);
                    s_full.arrive_on_mma_completion(1);
                    kv.release_on_mma_completion(key);
                }
                let value = kv.wait().await;
                for tile in 0..2 {
                    po_ready.wait(tile, (blocks as u32 - 1) & 1).await;
                    cx.umma_ts(&o[tile], &s[tile], value.kv(), blocks > 1);
                    o_final.arrive_on_mma_completion(tile);
                }
                kv.release_on_mma_completion(value);
                q.release_on_mma_completion(q0);
                q.release_on_mma_completion(q1);
            }

            /// Online softmax of Q tile `s = instance`.
            #[role(warpgroups = 2, regs = 192)]
            pub async fn softmax(
                cx: &Ctx<'_, Args>,
                s_full: Waiter<'_, SFull>,
                po_ready: Arriver<'_, PoReady>,
                stats_full: Arriver<'_, StatsFull>,
                stats_empty: Waiter<'_, StatsEmpty>,
                s: &[TmemTile<BM, BN>; 2],
                stats: &[Tile<f32, BM, 1>; 2],
            ) {
                let args = cx.args();
                let tile = cx.instance();
                let q_row0 = cta_row0(cx) + tile * BM;
                let seq = args.k.shape()[2];
                let causal = args.causal;
                let mut m = cx.row_vec::<BM>(f32::NEG_INFINITY);
                let mut l = cx.row_vec::<BM>(0.0);
                for j in 0..kv_blocks(args, cta_row0(cx)) {
                    let parity = j as u32 & 1;
                    s_full.wait(tile, parity).await;
                    let mut p = cx.tmem_load(&s[tile]);
                    let key0 = j * BN;
                    if key0 + BN > seq || (causal && key0 + BN > q_row0 + 1) {
                        cx.mask(&mut p, f32::NEG_INFINITY, |r, c| {
                            key0 + c < seq && (!causal || key0 + c <= q_row0 + r)
                        });
                    }
                    let block_max = cx.row_max(&p);
                    let block_max = cx.rows_scale(&block_max, args.scale_log2);
                    let mut m_new = cx.rows_max(&m, &block_max);
                    if conditional_rescale(args) {
                        m_new = cx.rows_keep_unless_grew(&m, &m_new, rescale_threshold(args));
                    }
                    let shift = cx.rows_sub(&m, &m_new);
                    let correction = cx.rows_exp2(&shift, 1.0);
                    cx.store_rows(&correction, &stats[tile]);
                    stats_full.arrive(tile);
                    cx.scale_sub_rows(&mut p, args.scale_log2, &m_new);
                    cx.exp2_split(&mut p, poly_cols(args));
                    let sum = cx.row_sum(&p);
                    cx.cast::<$elem>(&mut p);
                    cx.tmem_store(&p, &s[tile]);
                    po_ready.arrive(tile);
                    stats_empty.wait(tile, parity).await;
                    l = cx.rows_fma(&l, &correction, &sum);
                    m = m_new;
                }
                cx.store_rows(&l, &stats[tile]);
                stats_full.arrive(tile);
            }

            /// Rescales `O_s` as the row max grows; at the end normalises it by `1/l` into
            /// shared memory for the epilogue.
            #[role(warpgroups = 1, regs = 80)]
            pub async fn correction(
                cx: &Ctx<'_, Args>,
                po_ready: Arriver<'_, PoReady>,
                stats_full: Waiter<'_, StatsFull>,
                stats_empty: Arriver<'_, StatsEmpty>,
                o_final: Waiter<'_, OFinal>,
                out: Producer<'_, OutTiles>,
                o: &[TmemTile<BM, D>; 2],
                stats: &[Tile<f32, BM, 1>; 2],
            ) {
                let args = cx.args();
                let blocks = kv_blocks(args, cta_row0(cx));
                for tile in 0..2 {
                    po_ready.arrive(tile);
                }
                for tile in 0..2 {
                    stats_full.wait(tile, 0).await;
                    stats_empty.arrive(tile);
                }
                for j in 1..blocks {
                    for tile in 0..2 {
                        stats_full.wait(tile, j as u32 & 1).await;
                        let factor = cx.load_rows(&stats[tile]);
                        // Conditional rescaling: skip when every factor is 1 (both arms
                        // arrive below).
                        let step = Assume::rate(assumed_rescale_rate(args), (j - 1) * 2 + tile);
                        if !conditional_rescale(args) || cx.rows_any_below(&factor, 1.0, step) {
                            let mut acc = cx.tmem_load(&o[tile]);
                            cx.mul_rows(&mut acc, &factor);
                            cx.tmem_store(&acc, &o[tile]);
                        }
                        po_ready.arrive(tile);
                        stats_empty.arrive(tile);
                    }
                }
                for tile in 0..2 {
                    stats_full.wait(tile, blocks as u32 & 1).await;
                    let l = cx.load_rows(&stats[tile]);
                    stats_empty.arrive(tile);
                    o_final.wait(tile, 0).await;
                    let slot = out.acquire().await;
                    let mut acc = cx.tmem_load(&o[tile]);
                    let inverse = cx.rows_recip(&l);
                    cx.mul_rows(&mut acc, &inverse);
                    cx.store(&acc, slot.o_out());
                    out.commit(slot);
                }
            }

            /// TMA stores of the two normalised output tiles.
            #[role(warps = 1, regs = 48)]
            pub async fn epilogue(cx: &Ctx<'_, Args>, out: Consumer<'_, OutTiles>) {
                let args = cx.args();
                for tile in 0..2 {
                    let full = out.wait().await;
                    let store = cx.tma_store(full.o_out(), &args.o, &at(cx, cta_row0(cx) + tile * BM));
                    cx.store_wait(store).await;
                    out.release(full);
                }
            }
        }
    };
}

fa4_kernel!(fa4_bf16_d64, bf16, 64);
fa4_kernel!(fa4_bf16_d128, bf16, 128);
fa4_kernel!(fa4_f16_d64, f16, 64);
fa4_kernel!(fa4_f16_d128, f16, 128);
fa4_kernel!(fa4v_bf16_d64, bf16, 64, variant);
fa4_kernel!(fa4v_bf16_d128, bf16, 128, variant);
fa4_kernel!(fa4v_f16_d64, f16, 64, variant);
fa4_kernel!(fa4v_f16_d128, f16, 128, variant);

/// The launch grid: one CTA per 256 query rows (x), head (y) and batch entry (z).
pub fn grid(problem: &Problem) -> Grid {
    Grid::saturating(problem.seq.div_ceil(256), problem.heads, problem.batch)
}

/// Runs the baseline kernel matching `problem` on the emulator; returns `O`
/// (`[batch, heads, seq, d]`, row-major) and the report.
pub fn run(problem: &Problem, q: &[f32], k: &[f32], v: &[f32]) -> Result<(Vec<f32>, EmuReport), EmuError> {
    problem.check()?;
    let variant = &Variant::BASELINE;
    macro_rules! launch {
        ($kernel:ident, $elem:ty) => {{
            let t = Tensors::<$elem>::new(problem, q, k, v)?;
            let out = t.o.clone();
            emulate::<$kernel::Kernel, _>(grid(problem), &$kernel::args(problem, t, variant), &out)
        }};
    }
    by_format!(problem, launch, [fa4_bf16_d64, fa4_bf16_d128, fa4_f16_d64, fa4_f16_d128])
}

/// Runs the kernel taking `variant` on the emulator: the data decide every conditional
/// rescale.
pub fn run_variant(
    problem: &Problem,
    variant: &Variant,
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
    by_format!(problem, launch, [fa4v_bf16_d64, fa4v_bf16_d128, fa4v_f16_d64, fa4v_f16_d128])
}

/// Times the baseline kernel matching `problem` on `machine` (shape only: no data, no
/// arithmetic).
pub fn simulate(problem: &Problem, machine: &Machine, opts: &SimOptions) -> Result<SimReport, SimError> {
    problem.check()?;
    let variant = &Variant::BASELINE;
    macro_rules! launch {
        ($kernel:ident, $elem:ty) => {{
            let args = $kernel::args(problem, Tensors::<$elem>::shape_only(problem), variant);
            sim::simulate::<$kernel::Kernel>(machine, grid(problem), &args, opts)
        }};
    }
    by_format!(problem, launch, [fa4_bf16_d64, fa4_bf16_d128, fa4_f16_d64, fa4_f16_d128])
}

/// Times the kernel taking `variant` on `machine`. Without data, a conditional rescale
/// happens for the fraction [`Variant::assumed_rescale_rate`] of the steps.
pub fn simulate_variant(
    problem: &Problem,
    variant: &Variant,
    machine: &Machine,
    opts: &SimOptions,
) -> Result<SimReport, SimError> {
    problem.check()?;
    macro_rules! launch {
        ($kernel:ident, $elem:ty) => {{
            let args = $kernel::args(problem, Tensors::<$elem>::shape_only(problem), variant);
            sim::simulate::<$kernel::Kernel>(machine, grid(problem), &args, opts)
        }};
    }
    by_format!(problem, launch, [fa4v_bf16_d64, fa4v_bf16_d128, fa4v_f16_d64, fa4v_f16_d128])
}
