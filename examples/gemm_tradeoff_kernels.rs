//! Three GEMMs for the warp-specialization trade-off study (`shared/reference/seeds.md`,
//! section 1): `C = A · B`, bf16 in, f32 accumulate, one output tile per CTA split over two
//! warpgroups by rows (a 256 x 256 tile gives each warpgroup 128 x 256, two `m64` row blocks
//! of `wgmma`).
//!
//! - [`Variant::Specialized`]: a TMA producer warp fills a `PIPE`-stage ring; two consumer
//!   warpgroups wait for a stage, issue their `wgmma`, wait for it and release the stage.
//! - [`Variant::V1`]: no specialization. Both warpgroups run one program; warpgroup 0 also
//!   issues the TMA loads: `PIPE` stages up front, then, in the main loop, the refill of a
//!   stage right after the blocking `wgmma.wait_group 0` of the MMA that read it.
//! - [`Variant::V2`]: v1 pipelined once more: the MMA of step `k` is issued before waiting
//!   for the MMA of step `k - 1` (`mma_wait(prev, 1)`), so one MMA stays in flight across
//!   the wait; the stage of step `k - 1` is then released and refilled. Needs `PIPE >= 2`
//!   (two stages are held at once).
//!
//! v1 and v2 are one kernel ([`Args::keep_one_in_flight`](flat_256x256_p4::Args) picks the
//! loop); the loader warpgroup refills a stage with `acquire`, which also waits until the
//! other warpgroup has released it (the empty barrier counts both warpgroups), as CUTLASS's
//! non-specialized TMA mainloop does. Only the loader waits there, so the other warpgroup
//! may run ahead. [`Variant::V1Lockstep`] and [`Variant::V2Lockstep`] (`Args::lockstep`)
//! add a `bar.sync` of both warpgroups every step, before the refill, as a non-specialized
//! kernel that protects its buffers with a CTA barrier does: the two warpgroups then advance
//! together.
//!
//! Kernels are stamped per tile shape and stage count ([`STAMPED`]); `BK` is 32 for every
//! stamp so that six stages of the 256 x 256 tile (6 x 32 KB) fit in the 227 KB of shared
//! memory a CTA may use. Edge tiles rely on TMA semantics (zeros outside A and B, stores
//! clipped to C), so any `M`, `N`, `K` work.
//!
//! Registers: an f32 accumulator of 128 x 256 per warpgroup is 256 registers per thread,
//! more than the 255 a thread can address. The emulator and the timing model do not check a
//! fragment against its role's `regs`, so the 256 x 256 stamps run here as if the
//! accumulator fit, which is what the essay's FP16-accumulate experiment had (128 registers
//! per thread); with f32 accumulation only the 128-row and 128-column tiles are buildable.

use std::fmt;
use std::marker::PhantomData;

use warpspec::dsl::{Global, Kernel};
use warpspec::emu::{self, EmuError, EmuReport};
use warpspec::gpu::{Cuda, CudaError, Prepared};
use warpspec::report::SimReport;
use warpspec::sim::{self, Machine, SimError, SimOptions};
use warpspec::{Grid, LaunchError, bf16};

/// Depth of one k-step of every stamped kernel.
pub const BK: usize = 32;

/// A schedule: the three of the study, and v1 and v2 with the warpgroups in lockstep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// A TMA producer warp and two consumer warpgroups.
    Specialized,
    /// Non-specialized, blocking `wgmma.wait_group 0` in the main loop.
    V1,
    /// Non-specialized, one MMA kept in flight across the wait.
    V2,
    /// [`Variant::V1`] with both warpgroups meeting at a `bar.sync` every step.
    V1Lockstep,
    /// [`Variant::V2`] with both warpgroups meeting at a `bar.sync` every step.
    V2Lockstep,
}

impl Variant {
    /// Every variant, in table order.
    pub const ALL: [Variant; 5] =
        [Variant::Specialized, Variant::V1, Variant::V2, Variant::V1Lockstep, Variant::V2Lockstep];

    /// Short name for tables: `ws`, `v1`, `v2`, `v1+bar.sync`, `v2+bar.sync`.
    pub fn name(self) -> &'static str {
        match self {
            Variant::Specialized => "ws",
            Variant::V1 => "v1",
            Variant::V2 => "v2",
            Variant::V1Lockstep => "v1+bar.sync",
            Variant::V2Lockstep => "v2+bar.sync",
        }
    }

    /// Whether the main loop keeps one MMA in flight across the wait (v2).
    pub fn keeps_one_in_flight(self) -> bool {
        matches!(self, Variant::V2 | Variant::V2Lockstep)
    }

    /// Whether the warpgroups meet at a `bar.sync` every step.
    pub fn lockstep(self) -> bool {
        matches!(self, Variant::V1Lockstep | Variant::V2Lockstep)
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The output tile of one CTA.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TileShape {
    /// Rows (split over the two warpgroups).
    pub m: usize,
    /// Columns.
    pub n: usize,
}

impl fmt::Display for TileShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.m, self.n)
    }
}

/// A kernel: schedule, tile shape and ring stages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    /// The schedule.
    pub variant: Variant,
    /// The CTA's output tile.
    pub tile: TileShape,
    /// Stages of the operand ring (`PIPE`).
    pub pipe: usize,
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} PIPE={}", self.variant, self.tile, self.pipe)
    }
}

/// Stamps out the warp-specialized kernel (see [`Variant::Specialized`]) for one tile shape
/// and stage count: the kernel of [`crate::gemm`], at this study's k-step depth.
macro_rules! ws_kernel {
    ($name:ident, $bm:literal, $bn:literal, $pipe:literal) => {
        crate::gemm::ws_gemm_kernel!($name, bm = $bm, bn = $bn, stages = $pipe, bk = super::BK);
    };
}

/// Stamps out the non-specialized kernel (v1 and v2) for one tile shape and stage count.
macro_rules! flat_kernel {
    ($name:ident, $bm:literal, $bn:literal, $pipe:literal) => {
        /// Non-specialized GEMM (see [`Variant::V1`] and [`Variant::V2`]).
        #[warpspec::kernel]
        pub mod $name {
            use warpspec::prelude::*;

            /// Rows of the output tile of one CTA.
            pub const BM: usize = $bm;
            /// Columns of the output tile of one CTA.
            pub const BN: usize = $bn;
            /// Depth of one k-step.
            pub const BK: usize = super::BK;
            /// Stages of the operand ring.
            pub const PIPE: usize = $pipe;
            /// Rows each warpgroup owns.
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
                /// v2 (one MMA in flight across the wait) rather than v1.
                pub keep_one_in_flight: bool,
                /// Both warpgroups `bar.sync` every step, between the release and the refill.
                pub lockstep: bool,
            }

            /// Shared memory of one CTA.
            #[shared]
            pub struct Smem {
                a: Ring<Tile<bf16, BM, BK>, PIPE>,
                b: Ring<Tile<bf16, BK, BN>, PIPE>,
            }

            /// The k-loop operands: warpgroup 0 loads them, both warpgroups drain them.
            #[pipeline(tma, producer = worker, consumer = worker, guards = [a, b], full_arrivals = 1)]
            pub struct Operands;

            /// Both warpgroups meet here every step when [`Args::lockstep`] is set.
            #[named_barrier(roles = [worker], threads = 256)]
            pub struct Step;

            /// Loads the A and B tiles of k-step `k` into the next stage once both
            /// warpgroups have released it.
            async fn load(cx: &Ctx<'_, Args>, ops: &Producer<'_, Operands>, k: usize) {
                let args = cx.args();
                let [n_tile, m_tile, _] = cx.block();
                let slot = ops.acquire().await;
                cx.tma_load(&args.a, &[m_tile * BM, k * BK], slot.a(), &slot);
                cx.tma_load(&args.b, &[k * BK, n_tile * BN], slot.b(), &slot);
                ops.commit(slot);
            }

            /// Both warpgroups run this program on their rows; warpgroup 0 also loads.
            #[role(warpgroups = 2, regs = 240)]
            pub async fn worker(
                cx: &Ctx<'_, Args>,
                loads: Producer<'_, Operands>,
                ops: Consumer<'_, Operands>,
                step: Named<'_, Step>,
            ) {
                let args = cx.args();
                let [n_tile, m_tile, _] = cx.block();
                let loader = cx.instance() == 0;
                let rows = cx.instance() * WG_ROWS;
                let steps = args.a.shape()[1].div_ceil(BK);
                // v2 peels the first K step: the kernel needs at least one.
                assert!(steps > 0);
                let mut acc = cx.fragment::<WG_ROWS, BN>(0.0);
                if loader {
                    for k in 0..steps.min(PIPE) {
                        load(cx, &loads, k).await;
                    }
                }
                if args.keep_one_in_flight {
                    // v2: issue MMA k, then wait for MMA k - 1 and refill its stage.
                    let first = ops.wait().await;
                    let mut prev = cx.wgmma(&mut acc, first.a().rows::<WG_ROWS>(rows), first.b());
                    let mut held = first;
                    for k in 1..steps {
                        let full = ops.wait().await;
                        let mma = cx.wgmma(&mut acc, full.a().rows::<WG_ROWS>(rows), full.b());
                        cx.mma_wait(prev, 1).await;
                        ops.release(held);
                        if args.lockstep {
                            step.sync().await;
                        }
                        if loader && k - 1 + PIPE < steps {
                            load(cx, &loads, k - 1 + PIPE).await;
                        }
                        prev = mma;
                        held = full;
                    }
                    cx.mma_wait(prev, 0).await;
                    ops.release(held);
                } else {
                    // v1: issue MMA k, wait for it, refill its stage.
                    for k in 0..steps {
                        let full = ops.wait().await;
                        let mma = cx.wgmma(&mut acc, full.a().rows::<WG_ROWS>(rows), full.b());
                        cx.mma_wait(mma, 0).await;
                        ops.release(full);
                        if args.lockstep {
                            step.sync().await;
                        }
                        if loader && k + PIPE < steps {
                            load(cx, &loads, k + PIPE).await;
                        }
                    }
                }
                cx.store_global(&acc, &args.c, &[m_tile * BM + rows, n_tile * BN]);
            }
        }
    };
}

/// Runs one launch of a stamped kernel: on the emulator or on the timing model.
trait Launch {
    /// What the launch returns.
    type Output;
    /// Launches kernel `K` over `grid`.
    fn launch<K: Kernel>(self, grid: Grid, args: &K::Params) -> Self::Output;
}

/// The three tensors of a launch.
struct Tensors {
    a: Global<bf16>,
    b: Global<bf16>,
    c: Global<f32>,
}

impl Tensors {
    /// `A` (`m x k`) and `B` (`k x n`) holding `a` and `b` rounded to bf16, and the output `c`,
    /// after checking the problem.
    fn new([m, n, k]: [usize; 3], a: &[f32], b: &[f32], c: Global<f32>) -> Result<Tensors, LaunchError> {
        check_dims(m, n, k)?;
        let problem = |what: &str, len: usize, want: usize| {
            LaunchError::Problem(format!("{what} has {len} values, expected {want} for {m}x{n}x{k}"))
        };
        let a = Global::from_f32(&[m, k], a).ok_or_else(|| problem("A", a.len(), m * k))?;
        let b = Global::from_f32(&[k, n], b).ok_or_else(|| problem("B", b.len(), k * n))?;
        Ok(Tensors { a, b, c })
    }
}

/// Stamps both kernels for every `(tile rows, tile columns, stages)` listed, the list
/// [`STAMPED`], and the dispatch from a [`Config`] to its kernel.
macro_rules! stamp {
    ($($ws:ident, $flat:ident: $bm:literal x $bn:literal, $pipe:literal;)*) => {
        $(
            ws_kernel!($ws, $bm, $bn, $pipe);
            flat_kernel!($flat, $bm, $bn, $pipe);
        )*

        /// Tile shapes and stage counts with a stamped kernel of every variant.
        pub const STAMPED: &[(TileShape, usize)] = &[$((TileShape { m: $bm, n: $bn }, $pipe)),*];

        /// Launches the kernel of `config` on `tensors` with `launcher`.
        fn dispatch<L: Launch>(config: Config, tensors: Tensors, launcher: L) -> Result<L::Output, LaunchError> {
            let [m, n] = [tensors.a.shape()[0], tensors.b.shape()[1]];
            let grid = grid(config.tile, m, n);
            let Tensors { a, b, c } = tensors;
            match (config.variant, config.tile.m, config.tile.n, config.pipe) {
                $(
                    (Variant::Specialized, $bm, $bn, $pipe) => {
                        Ok(launcher.launch::<$ws::Kernel>(grid, &$ws::Args { a, b, c }))
                    }
                    (variant, $bm, $bn, $pipe) => {
                        let (keep_one_in_flight, lockstep) = (variant.keeps_one_in_flight(), variant.lockstep());
                        let args = $flat::Args { a, b, c, keep_one_in_flight, lockstep };
                        Ok(launcher.launch::<$flat::Kernel>(grid, &args))
                    }
                )*
                _ => Err(LaunchError::Problem(format!("no kernel is stamped for {config}; see gemm_tradeoff::STAMPED"))),
            }
        }
    };
}

stamp! {
    ws_256x256_p2, flat_256x256_p2: 256 x 256, 2;
    ws_256x256_p3, flat_256x256_p3: 256 x 256, 3;
    ws_256x256_p4, flat_256x256_p4: 256 x 256, 4;
    ws_256x256_p5, flat_256x256_p5: 256 x 256, 5;
    ws_256x256_p6, flat_256x256_p6: 256 x 256, 6;
    ws_128x256_p2, flat_128x256_p2: 128 x 256, 2;
    ws_128x256_p4, flat_128x256_p4: 128 x 256, 4;
    ws_256x128_p2, flat_256x128_p2: 256 x 128, 2;
    ws_256x128_p4, flat_256x128_p4: 256 x 128, 4;
    ws_128x128_p2, flat_128x128_p2: 128 x 128, 2;
    ws_128x128_p4, flat_128x128_p4: 128 x 128, 4;
}

/// The launch grid for `tile`: one CTA per output tile (x over N, y over M).
pub fn grid(tile: TileShape, m: usize, n: usize) -> Grid {
    Grid::saturating(n.div_ceil(tile.n), m.div_ceil(tile.m), 1)
}

/// Runs on the emulator.
struct Emulate;

impl Launch for Emulate {
    type Output = Result<EmuReport, EmuError>;
    fn launch<K: Kernel>(self, grid: Grid, args: &K::Params) -> Self::Output {
        emu::run::<K>(grid, args)
    }
}

/// Runs on the timing model.
struct Simulate<'a> {
    machine: &'a Machine,
    opts: &'a SimOptions,
}

impl Launch for Simulate<'_> {
    type Output = Result<SimReport, SimError>;
    fn launch<K: Kernel>(self, grid: Grid, args: &K::Params) -> Self::Output {
        sim::simulate::<K>(self.machine, grid, args, self.opts)
    }
}

/// Runs on a GPU: prepares the launch, hands it to `body` (run it, time it), copies `C` back.
struct OnGpu<'a, F, R> {
    cuda: &'a Cuda,
    body: F,
    _result: PhantomData<R>,
}

impl<F: FnOnce(&Prepared<'_>) -> Result<R, CudaError>, R> Launch for OnGpu<'_, F, R> {
    type Output = Result<R, CudaError>;
    fn launch<K: Kernel>(self, grid: Grid, args: &K::Params) -> Self::Output {
        let prepared = self.cuda.prepare::<K>(grid, args)?;
        let r = (self.body)(&prepared)?;
        prepared.finish()?;
        Ok(r)
    }
}

/// `C = A · B` with the kernel of `config` on a GPU (the kernel rendered to CUDA), `C`
/// filled with NaN first so that an element the kernel does not write shows: runs `body`
/// with the prepared launch and returns `C` with what `body` returned.
pub fn with_gpu<R>(
    cuda: &Cuda,
    config: Config,
    [m, n, k]: [usize; 3],
    a: &[f32],
    b: &[f32],
    body: impl FnOnce(&Prepared<'_>) -> Result<R, CudaError>,
) -> Result<(Vec<f32>, R), CudaError> {
    check_dims(m, n, k)?;
    let poisoned = Global::<f32>::output_from_f32(&[m, n], &vec![f32::NAN; m * n]).expect("m x n values");
    let tensors = Tensors::new([m, n, k], a, b, poisoned)?;
    let c = tensors.c.clone();
    let r = dispatch(config, tensors, OnGpu { cuda, body, _result: PhantomData })??;
    Ok((c.to_f32_vec().unwrap_or_default(), r))
}

/// [`check_problem`] with the dimensions apart.
fn check_dims(m: usize, n: usize, k: usize) -> Result<(), LaunchError> {
    check_problem([m, n, k])
}

/// Checks an `m x n x k` problem for every stamped tile before any work
/// ([`crate::gemm::check_problem`]).
pub fn check_problem([m, n, k]: [usize; 3]) -> Result<(), LaunchError> {
    for &(tile, _) in STAMPED {
        crate::gemm::check_problem(m, n, k, tile.m, tile.n)?;
    }
    Ok(())
}

/// `C = A · B` with the kernel of `config` on the emulator, for `A: m x k` and `B: k x n`
/// (row-major, rounded to bf16). Returns `C` (`m x n`, row-major) and the emulator's report.
pub fn emulate(config: Config, [m, n, k]: [usize; 3], a: &[f32], b: &[f32]) -> Result<(Vec<f32>, EmuReport), EmuError> {
    let tensors = Tensors::new([m, n, k], a, b, Global::zeros(&[m, n]))?;
    let c = tensors.c.clone();
    let report = dispatch(config, tensors, Emulate)??;
    Ok((c.to_f32_vec().unwrap_or_default(), report))
}

/// Times the kernel of `config` on `machine` for an `m x n x k` GEMM (shape-only tensors).
pub fn simulate(
    config: Config,
    [m, n, k]: [usize; 3],
    machine: &Machine,
    opts: &SimOptions,
) -> Result<SimReport, SimError> {
    check_dims(m, n, k)?;
    let tensors =
        Tensors { a: Global::shape_only(&[m, k]), b: Global::shape_only(&[k, n]), c: Global::shape_only(&[m, n]) };
    dispatch(config, tensors, Simulate { machine, opts })?
}
