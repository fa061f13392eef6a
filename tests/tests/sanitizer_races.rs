//! The emulator as a sanitizer of races on shared memory (classes 1 and 5 of
//! `shared/reference/barrier-bugs.md`): a tile read while the TMA write filling it is in
//! flight, overwritten while an MMA reads it, and rewritten while a TMA store reads it, each
//! planted where `#[kernel]` cannot see it (see `warpspec_tests::sanitizer`).

use warpspec::Grid;
use warpspec::dsl::AccessKind;
use warpspec::emu::{self, EmuOptions, ViolationKind};
use warpspec::prelude::*;
use warpspec_tests::sanitizer::{self, Marked, assert_by, violation, wrong_initial_parity};

const SOURCE: Marked = Marked::new("sanitizer_races.rs", include_str!("sanitizer_races.rs"));

#[test]
fn a_read_while_the_tma_write_is_in_flight_is_a_race() {
    let args = wrong_initial_parity::Args { x: Global::zeros(&[64, 16]), parity: 1 };
    let v = violation::<wrong_initial_parity::Kernel>(&args);
    let ViolationKind::Race(race) = &v.kind else { panic!("expected a race: {v}") };
    assert_eq!((race.earlier.by.role, race.earlier.kind.writes()), ("producer", true));
    assert!(matches!(race.earlier.kind, AccessKind::TmaWrite { .. }), "{v}");
    assert_eq!(race.earlier.at.map(|a| a.line()), Some(sanitizer::SOURCE.line_of("@tma-write")));
    let (barrier, phase) = race.earlier.lands_on.unwrap_or_else(|| panic!("where does the load land? {v}"));
    assert_eq!((barrier.name, barrier.stage, phase), ("Loaded", 0, 0));
    assert_eq!((race.later.by.role, race.later.kind), ("consumer", AccessKind::SharedRead));
    assert_eq!((race.later.rows.clone(), race.later.cols.clone()), (0..64, 0..16));
    assert_by(&v, "consumer", (1, 1));
    sanitizer::SOURCE.assert_at(&v, "@read-in-flight");
    let text = v.to_string();
    assert!(text.contains("data race on shared tile `buf` (filled by TMA on `Loaded[0]`)"), "{text}");
    assert!(text.contains("landing with phase 0 of `Loaded[0]`"), "{text}");
    assert!(text.contains("wait for that phase"), "{text}");
    // With the right parity the read waits for the load.
    let args = wrong_initial_parity::Args { x: Global::zeros(&[64, 16]), parity: 0 };
    emu::run_with::<wrong_initial_parity::Kernel>(Grid::new(1, 1, 1), &args, &EmuOptions::checked())
        .unwrap_or_else(|e| panic!("{e}"));
}

/// The consumer hands the slot back before waiting for the MMA that reads it: the producer's
/// next TMA load overwrites the operands under the MMA.
#[warpspec::kernel]
mod release_before_mma_wait {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub a: Global<bf16>,
        pub b: Global<bf16>,
        pub steps: usize,
        pub early: bool,
    }

    #[shared]
    pub struct Smem {
        a: Ring<Tile<bf16, 64, 16>, 2>,
        b: Ring<Tile<bf16, 16, 8>, 2>,
    }

    #[pipeline(tma, producer = producer, consumer = consumer, guards = [a, b])]
    pub struct Operands;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, ops: Producer<'_, Operands>) {
        for k in 0..cx.args().steps {
            let slot = ops.acquire().await;
            cx.tma_load(&cx.args().a, &[0, k * 16], slot.a(), &slot); // @overwrite
            cx.tma_load(&cx.args().b, &[k * 16, 0], slot.b(), &slot);
            ops.commit(slot);
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn consumer(cx: &Ctx<'_, Args>, ops: Consumer<'_, Operands>) {
        super::release_before_mma_wait_consumer(cx, &ops).await;
    }
}

async fn release_before_mma_wait_consumer(
    cx: &Ctx<'_, release_before_mma_wait::Args>,
    ops: &Consumer<'_, release_before_mma_wait::Operands>,
) {
    let mut acc = cx.fragment::<64, 8>(0.0);
    for _ in 0..cx.args().steps {
        let full = ops.wait().await;
        let mma = cx.wgmma(&mut acc, full.a(), full.b()); // @mma-read
        if cx.args().early {
            ops.release(full);
            cx.mma_wait(mma, 0).await;
        } else {
            cx.mma_wait(mma, 0).await;
            ops.release(full);
        }
    }
}

#[test]
fn a_slot_overwritten_while_an_mma_reads_it_is_a_race() {
    let args = |early| release_before_mma_wait::Args {
        a: Global::zeros(&[64, 64]),
        b: Global::zeros(&[64, 8]),
        steps: 4,
        early,
    };
    let v = violation::<release_before_mma_wait::Kernel>(&args(true));
    let ViolationKind::Race(race) = &v.kind else { panic!("expected a race: {v}") };
    assert_eq!((race.earlier.by.role, race.earlier.kind), ("consumer", AccessKind::MmaRead));
    assert_eq!(race.earlier.at.map(|a| a.line()), Some(SOURCE.line_of("@mma-read")));
    assert_eq!(race.later.by.role, "producer");
    let (barrier, phase) = race.later.lands_on.unwrap_or_else(|| panic!("where does the load land? {v}"));
    // The third load reuses stage 0, in the ring's second round.
    assert_eq!((barrier.name, barrier.stage, phase), ("Operands.full", 0, 1));
    assert_by(&v, "producer", (0, 0));
    SOURCE.assert_at(&v, "@overwrite");
    let text = v.to_string();
    assert!(text.contains("wgmma (read) of rows 0..64, columns 0..16 by warps 1-4 (`consumer` #0)"), "{text}");
    assert!(text.contains("wait for the MMA before releasing the slot"), "{text}");
    emu::run_with::<release_before_mma_wait::Kernel>(Grid::new(1, 1, 1), &args(false), &EmuOptions::checked())
        .unwrap_or_else(|e| panic!("{e}"));
}

/// A tile is stored to global memory with a TMA store and rewritten without `store_wait`.
#[warpspec::kernel]
mod rewrite_before_store_wait {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub y: Global<f32>,
    }

    #[shared]
    pub struct Smem {
        out: Tile<f32, 64, 16>,
    }

    #[role(warps = 1, regs = 40)]
    pub async fn epilogue(cx: &Ctx<'_, Args>, out: &Tile<f32, 64, 16>) {
        super::rewrite_before_store_wait_epilogue(cx, out).await;
    }
}

async fn rewrite_before_store_wait_epilogue(cx: &Ctx<'_, rewrite_before_store_wait::Args>, out: &Tile<f32, 64, 16>) {
    for i in 0..2 {
        let values = cx.fragment::<64, 16>(i as f32);
        cx.store(&values, out); // @rewrite
        let store = cx.tma_store(out, &cx.args().y, &[0, 0]); // @tma-store
        if i == 1 {
            cx.store_wait(store).await;
        }
    }
}

#[test]
fn a_tile_rewritten_while_a_tma_store_reads_it_is_a_race() {
    let v = violation::<rewrite_before_store_wait::Kernel>(&rewrite_before_store_wait::Args {
        y: Global::zeros(&[64, 16]),
    });
    let ViolationKind::Race(race) = &v.kind else { panic!("expected a race: {v}") };
    assert_eq!(
        (race.earlier.kind, race.earlier.at.map(|a| a.line())),
        (AccessKind::TmaRead, Some(SOURCE.line_of("@tma-store")))
    );
    assert_eq!(race.later.kind, AccessKind::SharedWrite);
    assert_by(&v, "epilogue", (0, 0));
    SOURCE.assert_at(&v, "@rewrite");
    assert!(v.to_string().contains("`store_wait`"), "{v}");
}
