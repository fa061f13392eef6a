//! The emulator on epilogues that overlap a tile's TMA store with the next tile: with
//! `store_wait_all` before each write of the store's source the numbers are right and the race
//! detector is quiet, under every schedule tried; writing the tile before the wait races the
//! store of the previous iteration, and ending with a store in flight is reported at exit.
//! `#[kernel(unchecked)]` keeps the compile-time checks (WS0027, WS0028) out of the way, as
//! code the macro cannot see would.

use warpspec::Grid;
use warpspec::dsl::AccessKind;
use warpspec::emu::{self, EmuError, EmuOptions, Policy, Violation, ViolationKind};
use warpspec::prelude::*;
use warpspec_examples::cluster_gemm::{cluster_gemm, grid};
use warpspec_examples::reference::{errors, matmul_f64, random_values, round_bf16};

use warpspec_tests::sanitizer::Marked;

/// The markers of this file.
const SOURCE: Marked = Marked::new("sanitizer_epilogue.rs", include_str!("sanitizer_epilogue.rs"));

/// Two warpgroups each write their rows of `out` per tile and store them; `wait_first` says
/// whether they wait for their stores before the write, `wait_at_end` whether before they end.
#[warpspec::kernel(unchecked)]
mod tile_epilogue {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub c: Global<f32>,
        pub tiles: usize,
        pub wait_first: bool,
        pub wait_at_end: bool,
    }

    #[shared]
    pub struct Smem {
        out: Tile<f32, 128, 16>,
    }

    #[role(warpgroups = 2, regs = 232)]
    pub async fn epilogue(cx: &Ctx<'_, Args>, out: &Tile<f32, 128, 16>) {
        let rows = cx.instance() * 64;
        for tile in 0..cx.args().tiles {
            let acc = cx.fragment::<64, 16>((2 * tile + cx.instance()) as f32);
            if cx.args().wait_first {
                cx.store_wait_all().await;
            }
            cx.store(&acc, out.rows::<64>(rows)); // @write
            let _in_flight = cx.tma_store(out.rows::<64>(rows), &cx.args().c, &[tile * 128 + rows, 0]); // @store
        }
        if cx.args().wait_at_end {
            cx.store_wait_all().await;
        }
    }
}

fn run_epilogue(wait_first: bool, wait_at_end: bool, policy: Policy) -> (Result<emu::EmuReport, EmuError>, Vec<f32>) {
    let tiles = 3;
    let args = tile_epilogue::Args { c: Global::zeros(&[tiles * 128, 16]), tiles, wait_first, wait_at_end };
    let run =
        emu::run_with::<tile_epilogue::Kernel>(Grid::new(1, 1, 1), &args, &EmuOptions::checked().with_policy(policy));
    (run, args.c.to_f32_vec().unwrap_or_default())
}

fn violation(run: Result<emu::EmuReport, EmuError>) -> Violation {
    match run {
        Err(EmuError::Violation(v)) => *v,
        Err(other) => panic!("expected a violation, got: {other}"),
        Ok(_) => panic!("expected a violation, the run succeeded"),
    }
}

#[test]
fn waiting_for_every_store_before_the_write_is_race_free_under_every_schedule() {
    for policy in [Policy::RoundRobin, Policy::Random { seed: 1 }, Policy::Random { seed: 2 }] {
        let (run, c) = run_epilogue(true, true, policy);
        run.unwrap_or_else(|e| panic!("{policy:?}: {e}"));
        // Rows 64·b..64·(b + 1) hold block b's value: tile b / 2, warpgroup b % 2.
        for (row, values) in c.chunks(16).enumerate() {
            assert!(values.iter().all(|&v| v == (row / 64) as f32), "{policy:?}: row {row}: {values:?}");
        }
    }
}

#[test]
fn a_write_before_the_previous_tiles_store_has_read_the_tile_is_a_race() {
    let v = violation(run_epilogue(false, true, Policy::RoundRobin).0);
    let ViolationKind::Race(race) = &v.kind else { panic!("expected a race: {v}") };
    assert_eq!(
        (race.earlier.kind, race.earlier.at.map(|a| a.line())),
        (AccessKind::TmaRead, Some(SOURCE.line_of("@store")))
    );
    assert_eq!(
        (race.later.kind, race.later.at.map(|a| a.line())),
        (AccessKind::SharedWrite, Some(SOURCE.line_of("@write")))
    );
    // The same instance, its own store of the previous tile.
    assert_eq!(race.earlier.by, race.later.by, "{v}");
    assert_eq!((race.later.rows.clone(), race.later.cols.clone()), (0..64, 0..16), "{v}");
    assert!(v.to_string().contains("`store_wait_all`"), "{v}");
}

#[test]
fn ending_with_a_store_in_flight_is_reported() {
    let v = violation(run_epilogue(true, false, Policy::RoundRobin).0);
    assert_eq!(v.kind, ViolationKind::AsyncPendingAtExit { mma_groups: 0, stores: 1 }, "{v}");
    assert!(v.to_string().contains("`store_wait_all`"), "{v}");
}

/// The persistent cluster GEMM, whose consumers overlap each tile's store with the next
/// tile's main loop, checked against f64 under random schedules with race detection on.
#[test]
fn the_overlapped_cluster_gemm_is_right_and_race_free_under_random_schedules() {
    // 3 x 2 tiles of 256 x 256 over 2 clusters: each consumer stores 3 tiles.
    let (m, n, k) = (600, 400, 96);
    let a = round_bf16(&random_values(m * k, 11));
    let b = round_bf16(&random_values(k * n, 12));
    let want = matmul_f64(m, n, k, &a, &b);
    for seed in [3, 4] {
        let args = cluster_gemm::Args {
            a: Global::from_f32(&[m, k], &a).unwrap_or_else(|| panic!("A")),
            b: Global::from_f32(&[k, n], &b).unwrap_or_else(|| panic!("B")),
            c: Global::zeros(&[m, n]),
        };
        let launch = grid(m, n, 2).unwrap_or_else(|e| panic!("{e}"));
        let options = EmuOptions::checked().with_policy(Policy::Random { seed });
        emu::run_with::<cluster_gemm::Kernel>(launch, &args, &options).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        let (_, max_rel) = errors(&args.c.to_f32_vec().unwrap_or_default(), &want);
        assert!(max_rel < 8e-3, "seed {seed}: max relative error {max_rel}");
    }
}
