//! Schedule exploration: each example kernel under 1000 random and 1000 PCT schedules with
//! the sanitizer on (no false positive, no hang, the same numbers as round-robin), then with
//! its warps on OS threads, and a planted bug that round-robin never shows without the
//! barrier-order check, which exploration finds and replays, and which the default run now
//! reports by itself.
//!
//! Shapes are one CTA each, small enough for the whole file to run in seconds in debug.

use std::time::Duration;

use warpspec::Grid;
use warpspec::dsl::{DType, Kernel};
use warpspec::emu::{self, EmuOptions, Exploration, Policy, ViolationKind};
use warpspec::prelude::*;
use warpspec_examples::attention::{Problem, Tensors, blackwell, hopper};
use warpspec_examples::gemm;
use warpspec_examples::reference::{random_values, round_bf16};

const SCHEDULES: usize = 1000;

/// Launches with each CTA's warps on their own threads.
const PARALLEL_RUNS: usize = 10;

/// Explores `K` under 1000 random and 1000 PCT schedules, then runs it with parallel warps;
/// all must pass.
fn explore_both<K: Kernel>(grid: Grid, params: &K::Params) {
    for exploration in [Exploration::Random { seed: 1 }, Exploration::Pct { seed: 1, depth: 3 }] {
        let report = emu::explore::<K>(grid, params, SCHEDULES, exploration).unwrap_or_else(|f| panic!("{f}"));
        assert_eq!(report.schedules, SCHEDULES);
        assert!(report.steps > 0);
    }
    let parallel = EmuOptions::checked().with_parallel_warps(Duration::from_secs(30));
    for _ in 0..PARALLEL_RUNS {
        emu::run_with::<K>(grid, params, &parallel).unwrap_or_else(|e| panic!("parallel warps: {e}"));
    }
}

#[test]
fn gemm_under_random_and_pct_schedules() {
    // One CTA; six k-steps wrap the four-stage ring.
    let (m, n, k) = (128, 256, 6 * gemm::ws_gemm::BK);
    let a = round_bf16(&random_values(m * k, 1));
    let b = round_bf16(&random_values(k * n, 2));
    let args = gemm::args(m, n, k, &a, &b).unwrap_or_else(|e| panic!("{e}"));
    emu::run_with::<gemm::ws_gemm::Kernel>(gemm::grid(m, n), &args, &EmuOptions::checked())
        .unwrap_or_else(|e| panic!("{e}"));
    let round_robin = args.c.to_f32_vec();
    explore_both::<gemm::ws_gemm::Kernel>(gemm::grid(m, n), &args);
    assert_eq!(args.c.to_f32_vec(), round_robin, "every schedule computes the same bits");
}

fn attention_inputs(problem: &Problem) -> Tensors<bf16> {
    let n = problem.elements();
    let values = |seed| round_bf16(&random_values(n, seed));
    Tensors::new(problem, &values(1), &values(2), &values(3)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn hopper_attention_under_random_and_pct_schedules() {
    // One CTA of 128 queries over two K/V blocks: both rings wrap, both warpgroups ping-pong.
    let problem = Problem { batch: 1, heads: 1, seq: 256, head_dim: 64, causal: false, dtype: DType::Bf16 };
    let t = attention_inputs(&problem);
    use hopper::fa3_bf16_d64 as fa3;
    let args = fa3::Args {
        q: t.q,
        k: t.k,
        v: t.v,
        o: t.o.clone(),
        causal: false,
        scale_log2: problem.scale_log2(),
        pingpong: true,
        overlap: true,
    };
    let grid = Grid::new(1, 1, 1);
    emu::run_with::<fa3::Kernel>(grid, &args, &EmuOptions::checked()).unwrap_or_else(|e| panic!("{e}"));
    let round_robin = t.o.to_f32_vec();
    explore_both::<fa3::Kernel>(grid, &args);
    assert_eq!(t.o.to_f32_vec(), round_robin, "every schedule computes the same bits");
}

#[test]
fn blackwell_attention_under_random_and_pct_schedules() {
    // One CTA of 256 queries over two K/V blocks: the K/V ring wraps.
    let problem = Problem { batch: 1, heads: 1, seq: 256, head_dim: 64, causal: true, dtype: DType::Bf16 };
    let t = attention_inputs(&problem);
    use blackwell::fa4_bf16_d64 as fa4;
    let args = fa4::Args { q: t.q, k: t.k, v: t.v, o: t.o.clone(), causal: true, scale_log2: problem.scale_log2() };
    let grid = blackwell::grid(&problem);
    emu::run_with::<fa4::Kernel>(grid, &args, &EmuOptions::checked()).unwrap_or_else(|e| panic!("{e}"));
    let round_robin = t.o.to_f32_vec();
    explore_both::<fa4::Kernel>(grid, &args);
    assert_eq!(t.o.to_f32_vec(), round_robin, "every schedule computes the same bits");
}

/// The classic lapped phase: only the leader of two consumer warps acknowledges each signal,
/// so the producer may signal again before the other consumer has seen the previous one.
/// Round-robin happens to run the slow consumer in time; other schedules do not. (The
/// producer's body sits outside the `#[kernel]` module, where the compile-time checker, which
/// rejects this protocol, does not look.)
#[warpspec::kernel]
mod leader_acknowledges {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub steps: usize,
    }

    #[barrier(arrive = [producer], wait = [consumer], count = 1)]
    pub struct Signal;

    #[barrier(arrive = [consumer], wait = [producer], count = 1)]
    pub struct Ack;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, signal: Arriver<'_, Signal>, ack: Waiter<'_, Ack>) {
        super::signal_and_wait_for_ack(cx, &signal, &ack).await;
    }

    #[role(warps = 2, regs = 40)]
    pub async fn consumer(cx: &Ctx<'_, Args>, signal: Waiter<'_, Signal>, ack: Arriver<'_, Ack>) {
        for step in 0..cx.args().steps {
            signal.wait(0, step as u32 & 1).await;
            if cx.instance() == 0 {
                ack.arrive(0);
            }
        }
    }
}

async fn signal_and_wait_for_ack(
    cx: &Ctx<'_, leader_acknowledges::Args>,
    signal: &Arriver<'_, leader_acknowledges::Signal>,
    ack: &Waiter<'_, leader_acknowledges::Ack>,
) {
    for step in 0..cx.args().steps {
        signal.arrive(0);
        ack.wait(0, step as u32 & 1).await;
    }
}

/// Exploration used to be the only way to see this bug: round-robin runs the slow consumer
/// in time. The barrier-order check of the default run now reports it from the round-robin
/// schedule itself (phase 1 of `Signal` completes unordered with the slow consumer's wait for
/// phase 0), so exploration is not needed for it: see the module documentation of
/// `warpspec::emu` for why no class of bug is left that only exploration finds.
#[test]
fn the_default_run_reports_the_lapped_phase_that_only_exploration_used_to_find() {
    let args = leader_acknowledges::Args { steps: 4 };
    let grid = Grid::new(1, 1, 1);
    let err = emu::run::<leader_acknowledges::Kernel>(grid, &args).expect_err("the default run sees the hazard");
    let Some(v) = err.violation() else { panic!("expected a violation: {err}") };
    let ViolationKind::LapHazard { barrier, phase, waiter, waited, completed_by } = &v.kind else {
        panic!("expected a lap hazard: {err}")
    };
    assert_eq!((barrier.name, *phase, *waited), ("Signal", 1, 0));
    assert_eq!((waiter.by.role, waiter.by.index, completed_by.by.role), ("consumer", 1, "producer"));
    assert!(waiter.at.is_some_and(|at| at.file().ends_with("explore.rs")), "{err}");
    assert!(err.to_string().contains("lapped phase possible: phase 1 of `Signal[0]`"), "{err}");

    // The hazard is real: without the check, round-robin passes and other schedules lap.
    let unchecked = EmuOptions::default().with_race_detection(false);
    emu::run_with::<leader_acknowledges::Kernel>(grid, &args, &unchecked)
        .unwrap_or_else(|e| panic!("round-robin alone runs clean: {e}"));
    let lapped = (0..200).find_map(|seed| {
        let options = unchecked.with_policy(Policy::Random { seed });
        emu::run_with::<leader_acknowledges::Kernel>(grid, &args, &options).err()
    });
    let lapped = lapped.unwrap_or_else(|| panic!("some random schedule laps the slow consumer"));
    let Some(v) = lapped.violation() else { panic!("expected a violation: {lapped}") };
    assert!(matches!(&v.kind, ViolationKind::LappedPhase { barrier, .. } if barrier.name == "Signal"), "{lapped}");

    // Exploration (which checks barrier order too) fails on its first schedule, and the
    // printed policy replays the failure exactly.
    for exploration in [Exploration::Random { seed: 7 }, Exploration::Pct { seed: 7, depth: 2 }] {
        let failure = emu::explore::<leader_acknowledges::Kernel>(grid, &args, 50, exploration)
            .expect_err("every schedule shows the hazard");
        assert_eq!(failure.schedule, 0, "{failure}");
        let text = failure.to_string();
        assert!(text.contains("replay it with: warpspec::emu::run_with::<leader_acknowledges::Kernel>"), "{text}");
        let replay = EmuOptions::checked().with_policy(failure.policy);
        let again = emu::run_with::<leader_acknowledges::Kernel>(grid, &args, &replay).unwrap_err();
        assert_eq!(again, failure.error);
    }
}
