//! warpspec: warp-specialized GPU kernels in Rust.
//!
//! Write a kernel as a `#[kernel] mod` of role functions joined by typed pipelines and
//! barriers; misuse of the protocol is a compile error. Run the same kernel on a CPU
//! emulation of the SM's warps ([`emu`]), which computes real numbers and reports deadlocks
//! instead of hanging, and time it on a cycle-level model of an H100, H200 or B200 ([`sim`]).
//!
//! This page is the guide: it walks through one kernel from declaration to timeline, then
//! lists every attribute and option. Every example on it is compiled and run by
//! `cargo test --workspace`.
//!
//! # A kernel in three lines
//!
//! Given a kernel module `tiny_gemm` (declared in the next section), these run it on the
//! emulator with data and time it on the H100 model with shape-only tensors:
//!
//! ```
//! # use warpspec::{Grid, dsl::Global, emu, sim};
//! # #[warpspec::kernel]
//! # pub mod tiny_gemm {
//! #     use warpspec::prelude::*;
//! #     pub const BM: usize = 64; pub const BN: usize = 64; pub const BK: usize = 32;
//! #     #[params] pub struct Args { pub a: Global<bf16>, pub b: Global<bf16>, pub c: Global<f32> }
//! #     #[shared] pub struct Smem { a: Ring<Tile<bf16, BM, BK>, 2>, b: Ring<Tile<bf16, BK, BN>, 2> }
//! #     #[pipeline(tma, producer = load, consumer = math, guards = [a, b])] pub struct Operands;
//! #     #[role(warps = 1, regs = 40)]
//! #     pub async fn load(cx: &Ctx<'_, Args>, ops: Producer<'_, Operands>) {
//! #         let args = cx.args(); let [n, m, _] = cx.block();
//! #         for k in 0..args.a.shape()[1].div_ceil(BK) {
//! #             let slot = ops.acquire().await;
//! #             cx.tma_load(&args.a, &[m * BM, k * BK], slot.a(), &slot);
//! #             cx.tma_load(&args.b, &[k * BK, n * BN], slot.b(), &slot);
//! #             ops.commit(slot);
//! #         }
//! #     }
//! #     #[role(warpgroups = 1, regs = 232)]
//! #     pub async fn math(cx: &Ctx<'_, Args>, ops: Consumer<'_, Operands>) {
//! #         let args = cx.args(); let [n, m, _] = cx.block();
//! #         let mut acc = cx.fragment::<BM, BN>(0.0);
//! #         for _ in 0..args.a.shape()[1].div_ceil(BK) {
//! #             let full = ops.wait().await;
//! #             let mma = cx.wgmma(&mut acc, full.a(), full.b());
//! #             cx.mma_wait(mma, 0).await;
//! #             ops.release(full);
//! #         }
//! #         cx.store_global(&acc, &args.c, &[m * BM, n * BN]);
//! #     }
//! # }
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let (a, b) = (vec![1.0; 128 * 96], vec![0.5; 96 * 128]);
//! let args = tiny_gemm::Args { a: Global::from_f32(&[128, 96], &a).unwrap(), b: Global::from_f32(&[96, 128], &b).unwrap(), c: Global::zeros(&[128, 128]) };
//! emu::run::<tiny_gemm::Kernel>(Grid::new(2, 2, 1), &args)?;
//! let report = sim::simulate::<tiny_gemm::Kernel>(&sim::Machine::h100_sxm(), Grid::new(2, 2, 1), &args, &Default::default())?;
//! # assert_eq!(args.c.to_f32_vec().unwrap()[0], 48.0);
//! # assert!(report.cycles > 0);
//! # Ok(())
//! # }
//! ```
//!
//! # 1. Declare a kernel
//!
//! A kernel is an inline module under [`#[kernel]`](kernel). Inside it, attributes mark
//! what the macro gives meaning to; everything else (constants, helper functions, `use`)
//! passes through, and module functions the roles call are followed by the checker.
//!
//! ```
//! #[warpspec::kernel]
//! pub mod tiny_gemm {
//!     use warpspec::prelude::*;
//!
//!     // Integer constants: the checker evaluates them wherever they are used.
//!     pub const BM: usize = 64;
//!     pub const BN: usize = 64;
//!     pub const BK: usize = 32;
//!     pub const STAGES: usize = 2;
//!
//!     /// Launch arguments: what every CTA reads (`cx.args()`).
//!     #[params]
//!     pub struct Args {
//!         pub a: Global<bf16>,
//!         pub b: Global<bf16>,
//!         pub c: Global<f32>,
//!     }
//!
//!     /// Shared memory of one CTA: tiles, rings of tiles (one tile per stage), and on
//!     /// Blackwell tensor-memory tiles.
//!     #[shared]
//!     pub struct Smem {
//!         a: Ring<Tile<bf16, BM, BK>, STAGES>,
//!         b: Ring<Tile<bf16, BK, BN>, STAGES>,
//!     }
//!
//!     /// A ring guarded by a `full` and an `empty` mbarrier per stage, filled by TMA.
//!     #[pipeline(tma, producer = load, consumer = math, guards = [a, b])]
//!     pub struct Operands;
//!
//!     /// One warp issues the TMA loads of every k-step as soon as a stage is free.
//!     #[role(warps = 1, regs = 40)]
//!     pub async fn load(cx: &Ctx<'_, Args>, ops: Producer<'_, Operands>) {
//!         let args = cx.args();
//!         let [n, m, _] = cx.block();
//!         for k in 0..args.a.shape()[1].div_ceil(BK) {
//!             let slot = ops.acquire().await; // waits on `Operands.empty`
//!             cx.tma_load(&args.a, &[m * BM, k * BK], slot.a(), &slot);
//!             cx.tma_load(&args.b, &[k * BK, n * BN], slot.b(), &slot);
//!             ops.commit(slot); // the TMA bytes complete `Operands.full`
//!         }
//!     }
//!
//!     /// One warpgroup multiplies each stage into its accumulator, then stores it.
//!     #[role(warpgroups = 1, regs = 232)]
//!     pub async fn math(cx: &Ctx<'_, Args>, ops: Consumer<'_, Operands>) {
//!         let args = cx.args();
//!         let [n, m, _] = cx.block();
//!         let mut acc = cx.fragment::<BM, BN>(0.0);
//!         for _ in 0..args.a.shape()[1].div_ceil(BK) {
//!             let full = ops.wait().await; // waits on `Operands.full`
//!             let mma = cx.wgmma(&mut acc, full.a(), full.b());
//!             cx.mma_wait(mma, 0).await; // the MMA read the stage: now it may be refilled
//!             ops.release(full); // arrives on `Operands.empty`
//!         }
//!         cx.store_global(&acc, &args.c, &[m * BM, n * BN]);
//!     }
//! }
//! # fn main() {}
//! ```
//!
//! The macro generates `tiny_gemm::Kernel` (the type every launch names), a
//! [`KernelSpec`](dsl::KernelSpec) with the roles, barriers and shared-memory size, and the
//! typed endpoints each role takes: a role's parameters after `cx` are the ends of the
//! pipelines and barriers it is declared for ([`Producer`](dsl::Producer),
//! [`Consumer`](dsl::Consumer), [`Arriver`](dsl::Arriver), [`Waiter`](dsl::Waiter),
//! [`Named`](dsl::Named)) or a `&` reference to an unguarded `#[shared]` field. Taking the
//! wrong end, or an end of a barrier the role is not declared for, is a compile error.
//!
//! ## Every attribute and option
//!
//! | attribute | option | default | what the checker does with it |
//! |---|---|---|---|
//! | `#[kernel]` | `unchecked` | checked | skips the whole-kernel protocol checks (the declaration checks still run); for kernels that demonstrate the emulator's own reports |
//! | | `cluster = [x, y, z]` | one CTA per cluster | CTAs per thread-block cluster (integer literals): at most 16 in all (8 is the portable maximum; 9..=16 are non-portable, H100/H200 only: CUDA C++ Programming Guide, Thread Block Clusters); a launch's grid must be a whole number of clusters. The checker runs every CTA of the cluster together: multicast bytes land on each destination CTA's `full` barrier, `release_cluster`/`arrive_cluster` arrive on each CTA of their mask, so counts and bytes must include the peers'; a mask naming a rank outside the cluster, and a cluster operation (`tma_load_multicast`, `cluster_sync`, `release_cluster`, `arrive_cluster`) in a kernel without this option, are errors; each names the peer CTAs and the fix (an `empty` count of every CTA in the mask, the mask a peer's multicast leaves this CTA out of). A mask the text does not decide (a launch argument) is left to the emulator. The emulator runs a cluster's CTAs together with their own shared memory each; a protocol that cannot finish across a cluster stops with a deadlock report naming each blocked instance's CTA rank, role and barrier. The CUDA backend renders them for sm_90a (`__cluster_dims__`, multicast TMA, `mapa` + remote `mbarrier.arrive`, `barrier.cluster`); the timing model refuses them for now |
//! | `#[params]` | – | – | one struct per kernel: the launch arguments, `cx.args()` |
//! | `#[shared]` | – | no shared memory | one struct per kernel; its size must fit the 227 KB a CTA may have, its tensor-memory tiles the 512 columns of an SM |
//! | `#[pipeline]` | `producer = r` / `[r, ..]` | required | the roles that may take [`Producer`](dsl::Producer) |
//! | | `consumer = r` / `[r, ..]` | required | the roles that may take [`Consumer`](dsl::Consumer) |
//! | | `guards = [field, ..]` | none | the `Tile`/`Ring` fields a slot gives access to; a buffer has one guard; a `tma` pipeline must guard at least one |
//! | | `tma` | off | `commit` expects the guarded stage's bytes as TMA transaction bytes on the `full` barrier; the checker replays them against what the loads deliver |
//! | | `stages = N` | the guarded rings' stage count (1 without a ring) | must agree with every guarded ring |
//! | | `full_arrivals = N` | one per instance of the producer roles | arrivals completing a phase of `full`; replayed against the commits |
//! | | `empty_arrivals = N` | one per instance of the consumer roles | arrivals completing a phase of `empty`; replayed against the releases |
//! | `#[barrier]` | `arrive = [r, ..]` | required | roles that may take [`Arriver`](dsl::Arriver) |
//! | | `wait = [r, ..]` | required | roles that may take [`Waiter`](dsl::Waiter) |
//! | | `count = N` | one per instance of the arriving roles | arrivals that complete a phase; too few or too many on some path is an error |
//! | | `len = N` | 1 | mbarriers in the array (one per stage); an index outside is a use of an uninitialised barrier |
//! | `#[named_barrier]` | `roles = [r, ..]` | required | roles that may take [`Named`](dsl::Named) (`bar.sync`/`bar.arrive`) |
//! | | `threads = N` | every thread of the roles | threads per use: a multiple of 32 in 32..=1024, matched against the instances that sync and arrive |
//! | | `id = N` | 1, 2, .. in declaration order | the hardware barrier id: 1..=15 (0 is `__syncthreads`), one per barrier |
//! | `#[role]` | `warps = N` | one of `warps`/`warpgroups` required | N instances of one warp |
//! | | `warpgroups = N` | | N instances of four warps (`wgmma` is issued by a warpgroup) |
//! | | `regs = R` | required | `setmaxnreg` budget: a multiple of 8 in 24..=256; all roles together within the 65536 registers of an SM |
//!
//! A CTA has 1 to 1024 threads in all. Roles are `async fn`s whose first parameter is
//! `cx: &Ctx<'_, Args>`; each barrier wait is an `.await`. An instance waits for its own
//! asynchronous operations: [`mma_wait(group, n)`](dsl::Ctx::mma_wait) (`wgmma.wait_group n`:
//! every group but the newest `n`), [`store_wait(group)`](dsl::Ctx::store_wait) (that TMA
//! store and every earlier one have read shared memory) and
//! [`store_wait_all()`](dsl::Ctx::store_wait_all) (every TMA store it issued; it names no
//! group, so a persistent epilogue can wait for the previous tile's store just before
//! writing its output tile again, as `examples/cluster_gemm_kernel.rs` does). The protocol
//! checks (arrival counts, transaction bytes, parities, stages released while an MMA or TMA
//! store still reads them, a tile written while the role's own TMA store still reads it, a
//! role that ends with a store in flight, cycles of waits, named-barrier counts) are listed
//! with a wrong and a right example each in `docs/checks.md`. A protocol error is a compile error. Below, the
//! producer arrives with nothing holding it back, and the compiler says "lapped phase on
//! `Ready`: `producer` arrives ... for phase 1 without having waited for anything that
//! follows `consumer`'s wait"; the consumer never flips its parity, and it says "`consumer`
//! waits on `Ready` for parity 0 again ... flip the parity after every wait". The
//! `handshake` kernel after it is the fixed protocol: a second barrier back, and
//! `step & 1` as the parity.
//!
//! ```compile_fail
//! #[warpspec::kernel]
//! mod broken {
//!     use warpspec::prelude::*;
//!     #[params]
//!     pub struct Args { pub steps: usize }
//!     #[barrier(arrive = [producer], wait = [consumer])]
//!     pub struct Ready;
//!     #[role(warps = 1, regs = 40)]
//!     pub async fn producer(cx: &Ctx<'_, Args>, ready: Arriver<'_, Ready>) {
//!         for _ in 0..cx.args().steps {
//!             ready.arrive(0);
//!         }
//!     }
//!     #[role(warps = 1, regs = 40)]
//!     pub async fn consumer(cx: &Ctx<'_, Args>, ready: Waiter<'_, Ready>) {
//!         for _ in 0..cx.args().steps {
//!             ready.wait(0, 0).await;
//!         }
//!     }
//! }
//! # fn main() {}
//! ```
//!
//! Plain barriers and named barriers, with `count`, `threads` and the leader-warp idiom:
//!
//! ```
//! #[warpspec::kernel]
//! pub mod handshake {
//!     use warpspec::prelude::*;
//!
//!     #[params]
//!     pub struct Args { pub steps: usize }
//!
//!     /// Only warp 0 of `workers` arrives, after the 4 warps met on `Meet`.
//!     #[barrier(arrive = [workers], wait = [sink], count = 1)]
//!     pub struct Done;
//!
//!     #[barrier(arrive = [sink], wait = [workers], count = 1)]
//!     pub struct Go;
//!
//!     #[named_barrier(roles = [workers], threads = 128)]
//!     pub struct Meet;
//!
//!     #[role(warps = 4, regs = 40)]
//!     pub async fn workers(cx: &Ctx<'_, Args>, done: Arriver<'_, Done>, go: Waiter<'_, Go>, meet: Named<'_, Meet>) {
//!         for step in 0..cx.args().steps {
//!             go.wait(0, (step & 1) as u32).await;
//!             meet.sync().await;
//!             if cx.instance() == 0 {
//!                 done.arrive(0);
//!             }
//!         }
//!     }
//!
//!     #[role(warps = 1, regs = 40)]
//!     pub async fn sink(cx: &Ctx<'_, Args>, done: Waiter<'_, Done>, go: Arriver<'_, Go>) {
//!         for step in 0..cx.args().steps {
//!             go.arrive(0);
//!             done.wait(0, (step & 1) as u32).await;
//!         }
//!     }
//! }
//!
//! # fn main() -> Result<(), warpspec::emu::EmuError> {
//! let report = warpspec::emu::run::<handshake::Kernel>(warpspec::Grid::new(1, 1, 1), &handshake::Args { steps: 5 })?;
//! assert_eq!(report.ctas, 1);
//! # Ok(())
//! # }
//! ```
//!
//! # 2. Run it on the emulator
//!
//! Tensors are [`Global`](dsl::Global)s: [`Global::from_f32`](dsl::Global::from_f32) rounds
//! host values to the element type (`None` if the count does not match the shape),
//! [`Global::zeros`](dsl::Global::zeros) makes an output, and
//! [`Global::shape_only`](dsl::Global::shape_only) a tensor without data for timing runs.
//! [`emu::run`] runs every CTA of the grid on rayon's threads with the default
//! [`EmuOptions`](emu::EmuOptions); [`emu::run_with`] takes others (race detection, random
//! or PCT schedules, one OS thread per warp). A deadlock, a protocol violation, a race or a
//! fault is an [`EmuError`](emu::EmuError) naming the CTA, the role instances, the barrier
//! and the kernel source line; it never hangs.
//!
//! ```
//! # #[warpspec::kernel]
//! # pub mod tiny_gemm {
//! #     use warpspec::prelude::*;
//! #     pub const BM: usize = 64; pub const BN: usize = 64; pub const BK: usize = 32;
//! #     #[params] pub struct Args { pub a: Global<bf16>, pub b: Global<bf16>, pub c: Global<f32> }
//! #     #[shared] pub struct Smem { a: Ring<Tile<bf16, BM, BK>, 2>, b: Ring<Tile<bf16, BK, BN>, 2> }
//! #     #[pipeline(tma, producer = load, consumer = math, guards = [a, b])] pub struct Operands;
//! #     #[role(warps = 1, regs = 40)]
//! #     pub async fn load(cx: &Ctx<'_, Args>, ops: Producer<'_, Operands>) {
//! #         let args = cx.args(); let [n, m, _] = cx.block();
//! #         for k in 0..args.a.shape()[1].div_ceil(BK) {
//! #             let slot = ops.acquire().await;
//! #             cx.tma_load(&args.a, &[m * BM, k * BK], slot.a(), &slot);
//! #             cx.tma_load(&args.b, &[k * BK, n * BN], slot.b(), &slot);
//! #             ops.commit(slot);
//! #         }
//! #     }
//! #     #[role(warpgroups = 1, regs = 232)]
//! #     pub async fn math(cx: &Ctx<'_, Args>, ops: Consumer<'_, Operands>) {
//! #         let args = cx.args(); let [n, m, _] = cx.block();
//! #         let mut acc = cx.fragment::<BM, BN>(0.0);
//! #         for _ in 0..args.a.shape()[1].div_ceil(BK) {
//! #             let full = ops.wait().await;
//! #             let mma = cx.wgmma(&mut acc, full.a(), full.b());
//! #             cx.mma_wait(mma, 0).await;
//! #             ops.release(full);
//! #         }
//! #         cx.store_global(&acc, &args.c, &[m * BM, n * BN]);
//! #     }
//! # }
//! use warpspec::dsl::Global;
//! use warpspec::emu::{self, EmuOptions};
//! use warpspec::{Emulator, Grid, Target};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (m, n, k) = (128, 128, 96);
//! let a: Vec<f32> = (0..m * k).map(|i| (i % 7) as f32).collect();
//! let b: Vec<f32> = (0..k * n).map(|i| (i % 5) as f32 - 2.0).collect();
//! let args = tiny_gemm::Args {
//!     a: Global::from_f32(&[m, k], &a).expect("m * k values"),
//!     b: Global::from_f32(&[k, n], &b).expect("k * n values"),
//!     c: Global::zeros(&[m, n]),
//! };
//! // One CTA per 64 x 64 tile of C: x over N, y over M. `Grid::try_new` checks sizes
//! // computed in usize against the launch limits instead of wrapping them.
//! let grid = Grid::try_new(n.div_ceil(tiny_gemm::BN), m.div_ceil(tiny_gemm::BM), 1)?;
//! let report = emu::run_with::<tiny_gemm::Kernel>(grid, &args, &EmuOptions::checked())?;
//! assert_eq!(report.ctas, 4);
//!
//! let c = args.c.to_f32_vec().expect("C holds data");
//! let want: f32 = (0..k).map(|l| a[l] * b[l * n]).sum();
//! assert_eq!(c[0], want);
//!
//! // The same launch through the `Target` trait, which the timing model (and next the GPU)
//! // implement too.
//! let emulator = Emulator::new(EmuOptions::default());
//! emulator.launch::<tiny_gemm::Kernel>(grid, &args)?;
//! # Ok(())
//! # }
//! ```
//!
//! Every launch is checked before any work ([`launch::check`]): an empty grid, a dimension
//! above CUDA's `gridDim` limits ([`launch::MAX_GRID_DIMS`]), shared memory or threads above
//! what a CTA may have; the emulator also estimates the host memory it needs per worker
//! thread ([`emu::memory`]) and refuses above what the machine has available. Each is a
//! [`LaunchError`] with a message that says what to change.
//!
//! # 3. Time it on the model
//!
//! [`sim::simulate`] runs the same kernel on a cycle-level model of a
//! [`Machine`](sim::Machine) (`h100_sxm`, `h200`, `b200`: every parameter with its source,
//! `Machine::parameters`). Tensors may be shape-only: the model times, it does not compute.
//! [`SimOptions`](sim::SimOptions) sets the clock, the warp-scheduler policy, progress
//! callbacks and the timeline to record.
//!
//! ```
//! # #[warpspec::kernel]
//! # pub mod tiny_gemm {
//! #     use warpspec::prelude::*;
//! #     pub const BM: usize = 64; pub const BN: usize = 64; pub const BK: usize = 32;
//! #     #[params] pub struct Args { pub a: Global<bf16>, pub b: Global<bf16>, pub c: Global<f32> }
//! #     #[shared] pub struct Smem { a: Ring<Tile<bf16, BM, BK>, 2>, b: Ring<Tile<bf16, BK, BN>, 2> }
//! #     #[pipeline(tma, producer = load, consumer = math, guards = [a, b])] pub struct Operands;
//! #     #[role(warps = 1, regs = 40)]
//! #     pub async fn load(cx: &Ctx<'_, Args>, ops: Producer<'_, Operands>) {
//! #         let args = cx.args(); let [n, m, _] = cx.block();
//! #         for k in 0..args.a.shape()[1].div_ceil(BK) {
//! #             let slot = ops.acquire().await;
//! #             cx.tma_load(&args.a, &[m * BM, k * BK], slot.a(), &slot);
//! #             cx.tma_load(&args.b, &[k * BK, n * BN], slot.b(), &slot);
//! #             ops.commit(slot);
//! #         }
//! #     }
//! #     #[role(warpgroups = 1, regs = 232)]
//! #     pub async fn math(cx: &Ctx<'_, Args>, ops: Consumer<'_, Operands>) {
//! #         let args = cx.args(); let [n, m, _] = cx.block();
//! #         let mut acc = cx.fragment::<BM, BN>(0.0);
//! #         for _ in 0..args.a.shape()[1].div_ceil(BK) {
//! #             let full = ops.wait().await;
//! #             let mma = cx.wgmma(&mut acc, full.a(), full.b());
//! #             cx.mma_wait(mma, 0).await;
//! #             ops.release(full);
//! #         }
//! #         cx.store_global(&acc, &args.c, &[m * BM, n * BN]);
//! #     }
//! # }
//! use warpspec::dsl::Global;
//! use warpspec::report::Unit;
//! use warpspec::sim::{self, Machine, SimOptions, TraceOptions};
//! use warpspec::{Grid, Model, Target};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let (m, n, k) = (1024, 1024, 1024);
//! let args = tiny_gemm::Args {
//!     a: Global::shape_only(&[m, k]),
//!     b: Global::shape_only(&[k, n]),
//!     c: Global::shape_only(&[m, n]),
//! };
//! let grid = Grid::try_new(n / tiny_gemm::BN, m / tiny_gemm::BM, 1)?;
//! let options = SimOptions::default().with_trace(TraceOptions::default());
//! let report = sim::simulate::<tiny_gemm::Kernel>(&Machine::h100_sxm(), grid, &args, &options)?;
//!
//! // The report: time, throughput, unit utilisation, stall reasons per role.
//! println!("{report}");
//! assert!(report.cycles > 0 && report.tflops() > 0.0);
//! assert!(report.utilisation[Unit::TensorCores] > 0.0);
//! let load = &report.roles[0];
//! let (top_reason, share) = load.ranked()[0];
//! println!("`{}` spends {:.0}% of its warp-cycles in {top_reason}", load.role, 100.0 * share);
//!
//! // The timeline of the first CTAs of SM 0: Chrome JSON (Perfetto), HTML or SVG, by the
//! // file's extension.
//! let trace = report.trace.as_ref().expect("tracing was on");
//! let path = std::env::temp_dir().join(format!("tiny_gemm-{}.html", std::process::id()));
//! trace.write(&path)?;
//! # std::fs::remove_file(&path)?;
//!
//! // Or through the `Target` trait.
//! let model = Model::new(Machine::h200(), SimOptions::default());
//! let on_h200 = model.launch::<tiny_gemm::Kernel>(grid, &args)?;
//! assert!(on_h200.cycles > 0);
//! # Ok(())
//! # }
//! ```
//!
//! **Reading the report.** `time` is the simulated cycles until the last CTA retired and
//! their duration at the clock; `tensor` the MMA throughput against the machine's dense
//! BF16 peak; `busy` the share of cycles each unit (tensor cores, TMA, issue, the pipes,
//! shared memory) was busy, `memory` that of L2 and HBM; `stalls` the share of each role's
//! warp-cycles in each reason, in Nsight Compute's vocabulary (`long_scoreboard`: waiting on
//! memory or an mbarrier, `wait`: a fixed-latency dependency, `selected`: issuing, ...).
//! **Reading the timeline.** One track per warp (named by role, instance and warp), one for
//! the tensor cores and one for the TMA unit; spans are instructions, waits (with the
//! barrier, stage and phase), MMA groups and TMA copies. Open the `.json` in
//! <https://ui.perfetto.dev>, the `.html` or `.svg` in a browser.
//!
//! # 4. On a GPU
//!
//! [`gpu`] is the layer the CUDA target is built on: NVRTC compilation for `sm_90a` and
//! `sm_100a` with resource reports, the device library of inline-PTX wrappers the generated
//! code calls, tensor maps, and launches with a host-side deadline. It loads the CUDA
//! libraries at run time, so everything builds without CUDA. The target that renders a
//! `#[kernel]` to CUDA and implements [`Target`] on a GPU is not part of this release yet.
//!
//! # Layout
//!
//! [`dsl`] holds what kernel code touches, [`emu`] the functional executor, [`sim`] the
//! timing model, [`report`] what a timing run reports; [`launch`] the launch configuration
//! shared by the executions, [`target`] the one launch API over them ([`Target`],
//! implemented by [`Emulator`] and [`Model`]) and [`error`] the errors they share. [`hw`] is
//! the hardware semantics (mbarrier, named barrier, vector clock, CTA limits) that the
//! `#[kernel]` checker, the emulator and the model all run. `docs/architecture.md` follows a
//! kernel from `#[kernel]` to each target.

#![deny(missing_docs)]

pub mod deadlock;
pub mod dsl;
pub mod emu;
pub mod error;
pub mod gpu;
pub mod launch;
pub mod report;
mod rng;
pub mod sim;
pub mod target;

pub use error::{RoleFault, RolePanic};
pub use launch::{Grid, LaunchError};
pub use target::{Emulator, Model, Target};
pub use warpspec_hw as hw;
/// The kernel IR and the DSL's operation catalogue: what `Kernel::ir()` of every
/// `#[kernel]` returns, for backends to render.
pub use warpspec_ir as ir;
pub use warpspec_macros::kernel;

/// Storage formats re-exported for kernel code.
pub use half::{bf16, f16};

/// Everything kernel code needs: `use warpspec::prelude::*;`.
pub mod prelude {
    pub use crate::dsl::{
        Arriver, Consumer, Ctx, Fragment, Full, Global, MmaGroup, Named, Producer, Ring, RowVec, Slot, StoreGroup,
        Tile, TileRef, TmemTile, Waiter,
    };
    pub use crate::kernel;
    pub use crate::launch::Grid;
    pub use half::{bf16, f16};
}

/// Items generated code refers to. Not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::dsl::{
        ArgValue, Argument, Barrier, BarrierSpec, Cta, Endpoint, Kernel, KernelSpec, NamedBarrier, NamedBarrierSpec,
        Pipeline, PipelineSpec, RoleFuture, RoleSpec, SmemBuffer, SmemField, TileCell, Who, line_hint,
    };
    pub use std::boxed::Box;
    pub use std::future::Future;
    pub use std::sync::OnceLock;
    pub use warpspec_ir as ir;
}
