//! The timing model driven by `#[kernel]`s: the examples' warp-specialized GEMM timed with and without
//! data, and a protocol that deadlocks in simulated time.

use warpspec::Grid;
use warpspec::prelude::*;
use warpspec::report::{Awaited, SpanKind, StallReason, Track};
use warpspec::sim::{self, Machine, SimError, SimOptions, TraceOptions};
use warpspec_examples::gemm::{ws_gemm, ws_gemm_bf16};

/// Producer and consumer loop counts come from the launch arguments: with more consumer
/// steps than producer steps, the consumer waits for a slot that is never filled.
#[warpspec::kernel]
mod one_short {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
        pub fills: usize,
        pub drains: usize,
    }

    #[shared]
    pub struct Smem {
        buf: Ring<Tile<f32, 64, 16>, 2>,
    }

    #[pipeline(tma, producer = load, consumer = math, guards = [buf])]
    pub struct Data;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, data: Producer<'_, Data>) {
        for _ in 0..cx.args().fills {
            let slot = data.acquire().await;
            cx.tma_load(&cx.args().x, &[0, 0], slot.buf(), &slot);
            data.commit(slot);
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        for _ in 0..cx.args().drains {
            let full = data.wait().await;
            data.release(full);
        }
    }
}

fn values(n: usize, seed: u32) -> Vec<f32> {
    (0..n).map(|i| (((i as u32).wrapping_mul(2654435761) ^ seed) % 17) as f32 / 8.0 - 1.0).collect()
}

#[test]
fn the_combined_mode_computes_and_times() {
    let (m, n, k) = (256, 256, 256);
    let (a, b) = (values(m * k, 1), values(k * n, 2));
    let args = ws_gemm::Args {
        a: Global::from_f32(&[m, k], &a).expect("shape"),
        b: Global::from_f32(&[k, n], &b).expect("shape"),
        c: Global::zeros(&[m, n]),
    };
    let grid = Grid::new((n / ws_gemm::BN) as u32, (m / ws_gemm::BM) as u32, 1);
    let opts = SimOptions { compute: true, ..SimOptions::default() };
    let report = sim::simulate::<ws_gemm::Kernel>(&Machine::h100_sxm(), grid, &args, &opts).expect("runs");
    let c = args.c.to_f32_vec().expect("data");
    for (i, j) in [(0, 0), (17, 200), (255, 255)] {
        let want: f32 = (0..k)
            .map(|p| warpspec::bf16::from_f32(a[i * k + p]).to_f32() * warpspec::bf16::from_f32(b[p * n + j]).to_f32())
            .sum();
        assert!((c[i * n + j] - want).abs() < 1e-3, "C[{i}][{j}] = {} != {want}", c[i * n + j]);
    }
    assert_eq!(report.mma_flops, 2 * (m * n * k) as u64);
    assert_eq!(report.ctas, 2);
    // Each CTA runs 4 k-steps of 2 x (64 x 256 x 64) MMAs: at least 2048 cycles of tensor work.
    assert!(report.cycles > 2048, "{report}");
}

/// `ws_gemm`'s arguments without data at `m x n x k`, and its grid.
fn shape_only_gemm(m: usize, n: usize, k: usize) -> (ws_gemm::Args, Grid) {
    let args = ws_gemm::Args {
        a: Global::shape_only(&[m, k]),
        b: Global::shape_only(&[k, n]),
        c: Global::shape_only(&[m, n]),
    };
    (args, Grid::new((n / ws_gemm::BN) as u32, (m / ws_gemm::BM) as u32, 1))
}

#[test]
fn shape_only_runs_time_the_same_program() {
    let (m, n, k) = (1024, 1024, 1024);
    let (args, grid) = shape_only_gemm(m, n, k);
    let opts = SimOptions::default().with_trace(TraceOptions::default());
    let report = sim::simulate::<ws_gemm::Kernel>(&Machine::h100_sxm(), grid, &args, &opts).expect("runs");
    println!("{report}");
    assert_eq!(report.mma_flops, 2 * (m * n * k) as u64);
    assert_eq!(report.waves.ctas_per_sm, 1);
    assert!(report.waves.waves < 1.0 && report.waves.tail_cycles > 0);
    let consumer = &report.roles[1];
    assert_eq!(consumer.warps_per_cta, 8);
    assert!(consumer.cycles.get(StallReason::LongScoreboard) + consumer.cycles.get(StallReason::Wait) > 0);
    let trace = report.trace.expect("traced");
    let json = trace.to_chrome_json();
    assert!(json.contains("wgmma") && json.contains("Operands"), "{}", &json[..json.len().min(2000)]);
    // Typed spans: MMA groups on the tensor cores, waits on barrier stages on consumer warps.
    assert!(trace.events.iter().any(|e| e.track == Track::TensorCores && matches!(e.kind, SpanKind::MmaGroup { .. })));
    assert!(trace.events.iter().any(|e| matches!(e.track, Track::Warp { role: "consumer", .. })
        && matches!(&e.kind, SpanKind::Wait(Awaited::Phase { barrier, .. }) if barrier.name.starts_with("Operands"))));
}

/// The diagnostic `copies_free` run (the model's side of `Cuda::without_copies`): the same
/// program and MMAs, no load reaches the memory system, and the kernel is no slower; at 2
/// stages, where `ws_gemm` waits on its loads, faster.
#[test]
fn copies_free_runs_the_same_program_without_the_loads() {
    let (args, grid) = shape_only_gemm(2048, 2048, 1024);
    let h200 = Machine::h200();
    let plain = sim::simulate::<ws_gemm::Kernel>(&h200, grid, &args, &SimOptions::default()).expect("runs");
    let opts = SimOptions { copies_free: true, ..SimOptions::default() };
    let free = sim::simulate::<ws_gemm::Kernel>(&h200, grid, &args, &opts).expect("runs");
    assert_eq!(free.mma_flops, plain.mma_flops);
    assert!(plain.l2_hits + plain.l2_misses > 0);
    assert_eq!(free.l2_hits + free.l2_misses, 0, "{free}");
    assert!(free.cycles < plain.cycles, "free {} against {}", free.cycles, plain.cycles);
}

/// A tile load slows the MMAs running when it lands by `tile_load_delay_per_kib`; without
/// copies nothing lands, so the figure does not matter there.
#[test]
fn only_a_tile_load_that_lands_slows_the_running_mmas() {
    let (args, grid) = shape_only_gemm(2048, 2048, 1024);
    let run = |delay: f64, copies_free: bool| {
        let mut machine = Machine::h200();
        machine.tensor.interference.tile_load_delay_per_kib.value = delay;
        let opts = SimOptions { copies_free, ..SimOptions::default() };
        sim::simulate::<ws_gemm::Kernel>(&machine, grid, &args, &opts).expect("runs").cycles
    };
    assert!(run(0.93, false) > run(0.0, false), "landing loads delay the MMAs");
    assert_eq!(run(0.93, true), run(0.0, true), "no load lands where copies are free");
}

#[test]
fn a_deadlock_in_simulated_time_names_the_barrier() {
    let args = one_short::Args { x: Global::shape_only(&[64, 16]), fills: 3, drains: 4 };
    let result =
        sim::simulate::<one_short::Kernel>(&Machine::h200(), Grid::new(1, 1, 1), &args, &SimOptions::default());
    let Err(SimError::Deadlock { deadlock, .. }) = result else { panic!("expected a deadlock, got {result:?}") };
    let text = deadlock.to_string();
    assert!(text.contains("warps 1-4 (`math` #0) waits on `Data.full[1]`"), "{text}");
    assert!(text.contains("1 of 1 arrivals missing, expected from `load`"), "{text}");
    assert!(text.contains("finished: `load` #0 (warp 0)"), "{text}");
}

#[test]
fn wgmma_is_refused_on_blackwell() {
    let args = ws_gemm::Args {
        a: Global::shape_only(&[128, 64]),
        b: Global::shape_only(&[64, 256]),
        c: Global::shape_only(&[128, 256]),
    };
    let result = sim::simulate::<ws_gemm::Kernel>(&Machine::b200(), Grid::new(1, 1, 1), &args, &SimOptions::default());
    let Err(e @ SimError::Unsupported { .. }) = result else { panic!("expected an error, got {result:?}") };
    assert!(e.to_string().contains("wgmma"), "{e}");
}

/// One CTA's epilogue writes a 128 x 256 f32 tile with `store_global`, one 8-byte store per
/// column pair: the tile leaves the SM no faster than one SM's measured store rate
/// (`l1.store_bytes_per_clk_per_sm`, calibration item 17), and that rate is what bounds it.
#[test]
fn a_tile_of_fragment_stores_leaves_the_sm_at_its_measured_rate() {
    let (m, n, k) = (ws_gemm::BM, ws_gemm::BN, 64);
    let args = ws_gemm::Args {
        a: Global::shape_only(&[m, k]),
        b: Global::shape_only(&[k, n]),
        c: Global::shape_only(&[m, n]),
    };
    let grid = Grid::new(1, 1, 1);
    let cycles = |machine: &Machine| {
        sim::simulate::<ws_gemm::Kernel>(machine, grid, &args, &SimOptions::default()).expect("runs").cycles
    };
    let h200 = Machine::h200();
    let tile_bytes = (m * n * 4) as f64;
    let bound = tile_bytes / h200.l1.store_bytes_per_clk_per_sm.value;
    let measured = cycles(&h200);
    assert!(measured as f64 >= bound, "{measured} cycles for a tile that needs {bound:.0} to leave the SM");
    // Without the rate, the L1's one wavefront per line bounds the tile: 8 lines per store,
    // 64 stores per thread, 8 warps. The rate adds at least what it asks beyond that.
    let wavefronts = (8 * 64 * 8) as f64;
    let mut unbounded = h200;
    unbounded.l1.store_bytes_per_clk_per_sm.value = 1e9;
    let fast = cycles(&unbounded);
    assert!(
        (measured - fast) as f64 >= bound - wavefronts,
        "the store rate bounds the epilogue: {measured} cycles at the measured rate, {fast} without it"
    );
}

/// The same tile rounded to bf16 is half the bytes in as many store instructions, 16 bytes of
/// each 32-byte sector per line: measured, it leaves one SM at 5.52 B/clk and takes about
/// twice as long as the f32 tile (11880 against 6078 cycles, calibration item 22). The model
/// charges it at that rate, not by its bytes at the f32 one.
#[test]
fn a_bf16_tile_of_fragment_stores_leaves_the_sm_at_the_partial_sector_rate() {
    let (m, n, k) = (ws_gemm_bf16::BM, ws_gemm_bf16::BN, 64);
    let grid = Grid::new(1, 1, 1);
    let h200 = Machine::h200();
    let run = |c| {
        let args = ws_gemm_bf16::Args { a: Global::shape_only(&[m, k]), b: Global::shape_only(&[k, n]), c };
        sim::simulate::<ws_gemm_bf16::Kernel>(&h200, grid, &args, &SimOptions::default()).expect("runs").cycles
    };
    let bf16 = run(Global::shape_only(&[m, n]));
    let bound = (m * n * 2) as f64 / h200.l1.partial_store_bytes_per_clk_per_sm.value;
    assert!(bf16 as f64 >= bound, "{bf16} cycles for a bf16 tile that needs {bound:.0} to leave the SM");
    let f32_args = ws_gemm::Args {
        a: Global::shape_only(&[m, k]),
        b: Global::shape_only(&[k, n]),
        c: Global::shape_only(&[m, n]),
    };
    let f32 = sim::simulate::<ws_gemm::Kernel>(&h200, grid, &f32_args, &SimOptions::default()).expect("runs").cycles;
    assert!(bf16 > f32, "half the bytes in partial sectors take longer: bf16 {bf16} cycles, f32 {f32}");
}

#[test]
fn burst_and_sustained_runs_settle_at_their_own_clocks() {
    use warpspec::sim::clock::{Activity, SETTLE_TOLERANCE, burst_clock, sustained_clock};
    let (args, grid) = shape_only_gemm(2048, 2048, 1024);
    let machine = Machine::h200();
    let run = sim::simulate_clocked::<ws_gemm::Kernel>(&machine, grid, &args, &SimOptions::default()).expect("runs");
    println!("{run}");
    // Each figure's clock is the one its own run's activity gives, and the run ran there.
    let burst = burst_clock(&machine, &Activity::of(&machine, &run.burst));
    let sustained = sustained_clock(&machine, &Activity::of(&machine, &run.sustained));
    assert_eq!((run.burst_ghz, run.sustained_ghz), (burst, sustained));
    assert!((run.burst.clock_ghz - burst).abs() <= SETTLE_TOLERANCE * burst, "{} {burst}", run.burst.clock_ghz);
    assert!((run.sustained.clock_ghz - sustained).abs() <= SETTLE_TOLERANCE * sustained);
    assert!(sustained < burst && burst <= machine.power.loaded_max_ghz.value, "{sustained} {burst}");
}

/// Each CTA starts `dispatch.cta_start_cycles` after its SM's slot frees (calibration item
/// 27: the H200's gap between one CTA's end and the next one's first op on the same SM): two
/// waves of a small kernel take two start-ups more than without them, and a CTA's first op
/// on the timeline comes no earlier than its start-up.
#[test]
fn every_cta_pays_its_start_up_before_its_first_op() {
    let h200 = Machine::h200();
    let args = one_short::Args { x: Global::shape_only(&[64, 16]), fills: 4, drains: 4 };
    let run_on = |grid: Grid, machine: &Machine, opts: &SimOptions| {
        sim::simulate::<one_short::Kernel>(machine, grid, &args, opts).expect("runs")
    };
    let capacity = run_on(Grid::new(1, 1, 1), &h200, &SimOptions::default()).waves.capacity as u32;
    let grid = Grid::new(2 * capacity, 1, 1);
    let run = |machine: &Machine, opts: &SimOptions| run_on(grid, machine, opts);
    let start = u64::from(h200.dispatch.cta_start_cycles.value);
    assert!(start > 0);
    let mut none = h200;
    none.dispatch.cta_start_cycles.value = 0;
    let without = run(&none, &SimOptions::default());
    let with = run(&h200, &SimOptions::default());
    assert_eq!(with.waves.waves, 2.0);
    let added = with.cycles - without.cycles;
    assert!(
        added.abs_diff(2 * start) <= 2 * start / 10,
        "{} cycles against {} without start-ups",
        with.cycles,
        without.cycles
    );
    let traced = run(&h200, &SimOptions::default().with_trace(TraceOptions::default()));
    let trace = traced.trace.expect("traced");
    let first = trace.events.iter().filter(|e| matches!(e.track, Track::Warp { .. })).map(|e| e.start).min();
    assert!(first.is_some_and(|t| t >= start), "first warp span at {first:?}, start-up {start}");
}

/// The kernel source line of this file that holds `text` (1-based).
fn line_of(text: &str) -> u32 {
    let at = include_str!("sim_kernels.rs").lines().position(|l| l.contains(text)).expect("in this file");
    at as u32 + 1
}

/// A wait the compiled code addresses per thread (`SimOptions::wait_forms`, read from the SASS
/// by `calibration/sass/wait_forms.py`) passes a completed phase after
/// `sync.mbarrier_passed_wait_cycles_per_thread`, the uniform form after
/// `sync.mbarrier_passed_wait_cycles`; a table that names other lines changes nothing.
#[test]
fn a_wait_addressed_per_thread_passes_a_completed_phase_later() {
    use warpspec::sim::wait_forms::WaitForms;
    let h200 = Machine::h200();
    let steps = 64;
    let args = one_short::Args { x: Global::shape_only(&[64, 16]), fills: steps, drains: steps };
    // The loads land at once: the consumer finds each stage full and passes its wait.
    let run = |forms: WaitForms| {
        let opts = SimOptions { copies_free: true, wait_forms: forms, ..SimOptions::default() };
        sim::simulate::<one_short::Kernel>(&h200, Grid::new(1, 1, 1), &args, &opts).expect("runs").cycles
    };
    let wait = line_of("let full = data.wait().await;");
    let uniform = run(WaitForms::default());
    let elsewhere = run(WaitForms::per_thread([wait + 1]));
    let per_thread = run(WaitForms::per_thread([wait]));
    assert_eq!(elsewhere, uniform, "a table naming other lines");
    let extra = u64::from(h200.sync.mbarrier_passed_wait_cycles_per_thread.value)
        - u64::from(h200.sync.mbarrier_passed_wait_cycles.value);
    assert!(extra > 0);
    let added = per_thread - uniform;
    let want = steps as u64 * extra;
    assert!(added.abs_diff(want) <= want / 10, "{added} cycles more over {steps} waits; {extra} a wait expected");
}
