//! The timing model on thread-block clusters: a clustered kernel runs, a multicast load reads
//! L2 once for every CTA it fills, a broken cluster protocol is a deadlock in simulated time
//! as it is on the emulator, and a bad mask is a clear error.

use warpspec::Grid;
use warpspec::emu::{self, EmuError};
use warpspec::prelude::*;
use warpspec::report::MemoryLevel;
use warpspec::sim::{self, Machine, SimError, SimOptions};
use warpspec_examples::cluster_gemm::{cluster_gemm, grid};

/// Producers multicast half of each stage to the CTAs of a launch-time mask; consumers
/// release every stage to both CTAs (as `tests/deadlock.rs`'s kernel of the same name).
#[warpspec::kernel(cluster = [2, 1, 1])]
mod runtime_mask {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
        pub mask_of_rank: [u16; 2],
        pub steps: usize,
    }

    #[shared]
    pub struct Smem {
        buf: Ring<Tile<f32, 64, 16>, 2>,
    }

    #[pipeline(tma, producer = load, consumer = math, guards = [buf], empty_arrivals = 2)]
    pub struct Data;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, data: Producer<'_, Data>) {
        let rank = cx.cluster_rank();
        let mask = cx.args().mask_of_rank[rank];
        cx.cluster_sync().await;
        for _ in 0..cx.args().steps {
            let slot = data.acquire().await;
            cx.tma_load_multicast(&cx.args().x, &[rank * 32, 0], slot.buf().rows::<32>(rank * 32), &slot, mask);
            data.commit(slot);
        }
        cx.cluster_sync().await;
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        cx.cluster_sync().await;
        for _ in 0..cx.args().steps {
            let full = data.wait().await;
            data.release_cluster(full, 0b11);
        }
        cx.cluster_sync().await;
    }
}

fn args(mask_of_rank: [u16; 2], steps: usize) -> runtime_mask::Args {
    runtime_mask::Args { x: Global::shape_only(&[64, 16]), mask_of_rank, steps }
}

#[test]
fn a_multicast_load_reads_l2_once_and_fills_every_cta_of_its_mask() {
    let steps = 5;
    let report = sim::simulate::<runtime_mask::Kernel>(
        &Machine::h200(),
        Grid::new(2, 1, 1),
        &args([0b11, 0b11], steps),
        &SimOptions::default(),
    )
    .expect("the clustered kernel runs on the model");
    let bytes = |level| report.traffic.iter().find(|t| t.level == level).map_or(0, |t| t.bytes);
    // Each producer multicasts 32 x 16 f32 = 2048 bytes per step: L2 serves each request once,
    // shared memory receives it in both CTAs.
    let per_request = 32 * 16 * 4;
    assert_eq!(bytes(MemoryLevel::L2), 2 * steps as u64 * per_request);
    assert_eq!(bytes(MemoryLevel::Shared), 2 * 2 * steps as u64 * per_request);
    assert_eq!((report.ctas, report.waves.cluster_ctas), (2, 2));
    assert!(report.to_string().contains("clusters   1 of 2 CTAs; 66 resident at once"), "{report}");
}

/// Without copies (`SimOptions::copies_free`) a multicast load reads nothing from L2 and
/// still completes every destination's stage: the kernel finishes, faster.
#[test]
fn a_multicast_load_without_copies_fills_every_cta_of_its_mask_at_once() {
    let run = |copies_free| {
        sim::simulate::<runtime_mask::Kernel>(
            &Machine::h200(),
            Grid::new(2, 1, 1),
            &args([0b11, 0b11], 5),
            &SimOptions { copies_free, ..SimOptions::default() },
        )
        .expect("the clustered kernel runs on the model")
    };
    let (plain, free) = (run(false), run(true));
    let l2 =
        |r: &warpspec::report::SimReport| r.traffic.iter().find(|t| t.level == MemoryLevel::L2).map_or(0, |t| t.bytes);
    assert!(l2(&plain) > 0);
    assert_eq!(l2(&free), 0, "{free}");
    assert!(free.cycles < plain.cycles, "free {} against {}", free.cycles, plain.cycles);
}

#[test]
fn a_peer_arrival_costs_the_remote_latency() {
    // One step: the consumers' release reaches the peer's `empty` barrier over the SM-to-SM
    // network; with a slower network the run is longer by about the difference.
    let run = |remote: u32| {
        let mut machine = Machine::h200();
        machine.clusters.remote_arrive_cycles.value = remote;
        sim::simulate::<runtime_mask::Kernel>(
            &machine,
            Grid::new(2, 1, 1),
            &args([0b11, 0b11], 6),
            &SimOptions::default(),
        )
        .expect("runs")
        .cycles
    };
    let (fast, slow) = (run(10), run(1010));
    assert!(slow >= fast + 1000, "a remote arrival orders the peer's refill after it: {fast} vs {slow}");
}

#[test]
fn a_peer_multicast_never_sent_is_a_deadlock_on_the_model_as_on_the_emulator() {
    let own = args([0b01, 0b10], 3);
    let emu_err = emu::run::<runtime_mask::Kernel>(Grid::new(2, 1, 1), &own).unwrap_err();
    assert!(matches!(emu_err, EmuError::Deadlock(_)), "{emu_err}");
    let result =
        sim::simulate::<runtime_mask::Kernel>(&Machine::h200(), Grid::new(2, 1, 1), &own, &SimOptions::default());
    let Err(SimError::Deadlock { deadlock, .. }) = result else { panic!("expected a deadlock, got {result:?}") };
    let text = deadlock.to_string();
    assert!(text.contains("`Data.full[0]`"), "{text}");
    assert!(text.contains("2048 transaction bytes outstanding"), "{text}");
}

#[test]
fn a_mask_outside_the_cluster_is_a_clear_error() {
    let result = sim::simulate::<runtime_mask::Kernel>(
        &Machine::h200(),
        Grid::new(2, 1, 1),
        &args([0b101, 0b11], 2),
        &SimOptions::default(),
    );
    let Err(err @ SimError::Fault(_)) = result else { panic!("expected a fault, got {result:?}") };
    assert!(err.to_string().contains("names rank 2, but the cluster has 2 CTAs"), "{err}");
    // A grid that is not a whole number of clusters is refused before anything runs.
    let odd = sim::simulate::<runtime_mask::Kernel>(
        &Machine::h200(),
        Grid::new(3, 1, 1),
        &args([0b11, 0b11], 1),
        &SimOptions::default(),
    );
    assert!(odd.is_err(), "{odd:?}");
}

#[test]
fn clusters_wait_for_a_whole_gpc_slot_and_run_in_waves() {
    // 3 clusters on a machine of one GPC of 2 SMs at 1 CTA per SM: one cluster at a time.
    let mut machine = Machine::h200();
    machine.sm_count.value = 4;
    machine.clusters.gpc_sms.value = &[2, 2];
    let report = sim::simulate::<runtime_mask::Kernel>(
        &machine,
        Grid::new(10, 1, 1),
        &args([0b11, 0b11], 2),
        &SimOptions::default(),
    )
    .expect("runs");
    assert_eq!(report.waves.capacity, 4);
    assert!((report.waves.waves - 2.5).abs() < 1e-9, "{:?}", report.waves);
    // A layout that does not add up to the SMs is an error, not a guess.
    machine.clusters.gpc_sms.value = &[2, 1];
    let err = sim::simulate::<runtime_mask::Kernel>(
        &machine,
        Grid::new(2, 1, 1),
        &args([0b11, 0b11], 1),
        &SimOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, SimError::Clusters(_)), "{err}");
    // A GPC of one SM holds no cluster of 2.
    machine.clusters.gpc_sms.value = &[1, 1, 1, 1];
    let err = sim::simulate::<runtime_mask::Kernel>(
        &machine,
        Grid::new(2, 1, 1),
        &args([0b11, 0b11], 1),
        &SimOptions::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("does not fit in any GPC"), "{err}");
}

#[test]
fn the_cluster_gemm_runs_persistent_on_the_model() {
    let (m, n, k) = (1024, 512, 256);
    let a = Global::shape_only(&[m, k]);
    let b = Global::shape_only(&[k, n]);
    let c = Global::shape_only(&[m, n]);
    let launch = grid(m, n, 3).expect("grid");
    let report = sim::simulate::<cluster_gemm::Kernel>(
        &Machine::h200(),
        launch,
        &cluster_gemm::Args { a, b, c },
        &SimOptions::default(),
    )
    .expect("the cluster GEMM runs on the model");
    assert_eq!(report.ctas, 6);
    assert_eq!(report.mma_flops, 2 * (m * n * k) as u64);
}
