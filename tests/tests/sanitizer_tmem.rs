//! The race detector over tensor memory: a `tcgen05` MMA writes its accumulator (and reads
//! its operands) until the `tcgen05.commit` after it arrives; `tmem_load` reads and
//! `tmem_store` writes. Planted bugs: an accumulator handed back to the MMA warp before the
//! epilogue read it, and an accumulator read before the MMA's commit was waited for. The
//! buggy role bodies sit outside the `#[kernel]` module, where the compile-time checker does
//! not look, so the default emulator run is what catches them.

use warpspec::Grid;
use warpspec::dsl::AccessKind;
use warpspec::emu::{self, EmuError, Violation, ViolationKind};
use warpspec::prelude::*;

use warpspec_tests::sanitizer::Marked;

/// The markers of this file.
const SOURCE: Marked = Marked::new("sanitizer_tmem.rs", include_str!("sanitizer_tmem.rs"));

/// How the epilogue misbehaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Epilogue {
    /// Waits for the commit, reads, then hands the accumulator back.
    Correct,
    /// Hands the accumulator back before reading it.
    HandBackFirst,
    /// Reads the accumulator without waiting for the MMA's commit.
    NoWait,
}

/// An MMA warp computes one accumulator per tile into tensor memory and commits it; an
/// epilogue warpgroup reads each and hands the accumulator back.
#[warpspec::kernel]
mod tmem_handoff {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub c: Global<f32>,
        pub tiles: usize,
        pub epilogue: super::Epilogue,
    }

    #[shared]
    pub struct Smem {
        a: Tile<bf16, 128, 16>,
        b: Tile<bf16, 16, 16>,
        acc: TmemTile<128, 16>,
    }

    #[barrier(arrive = [mma], wait = [epilogue], count = 1)]
    pub struct AccFull;

    #[barrier(arrive = [epilogue], wait = [mma], count = 1)]
    pub struct AccEmpty;

    #[role(warps = 1, regs = 48)]
    pub async fn mma(
        cx: &Ctx<'_, Args>,
        acc_full: Arriver<'_, AccFull>,
        acc_empty: Waiter<'_, AccEmpty>,
        a: &Tile<bf16, 128, 16>,
        b: &Tile<bf16, 16, 16>,
        acc: &TmemTile<128, 16>,
    ) {
        super::mma_loop(cx, &acc_full, &acc_empty, a, b, acc).await;
    }

    #[role(warpgroups = 1, regs = 192)]
    pub async fn epilogue(
        cx: &Ctx<'_, Args>,
        acc_full: Waiter<'_, AccFull>,
        acc_empty: Arriver<'_, AccEmpty>,
        acc: &TmemTile<128, 16>,
    ) {
        super::epilogue_loop(cx, &acc_full, &acc_empty, acc).await;
    }
}

async fn mma_loop(
    cx: &Ctx<'_, tmem_handoff::Args>,
    acc_full: &Arriver<'_, tmem_handoff::AccFull>,
    acc_empty: &Waiter<'_, tmem_handoff::AccEmpty>,
    a: &Tile<bf16, 128, 16>,
    b: &Tile<bf16, 16, 16>,
    acc: &TmemTile<128, 16>,
) {
    for tile in 0..cx.args().tiles {
        if tile > 0 {
            acc_empty.wait(0, (tile as u32 - 1) & 1).await;
        }
        cx.umma(acc, a, b, false); // @umma
        acc_full.arrive_on_mma_completion(0);
    }
}

async fn epilogue_loop(
    cx: &Ctx<'_, tmem_handoff::Args>,
    acc_full: &Waiter<'_, tmem_handoff::AccFull>,
    acc_empty: &Arriver<'_, tmem_handoff::AccEmpty>,
    acc: &TmemTile<128, 16>,
) {
    let tiles = cx.args().tiles;
    for tile in 0..tiles {
        let values = match cx.args().epilogue {
            Epilogue::Correct => {
                acc_full.wait(0, tile as u32 & 1).await;
                let values = cx.tmem_load(acc);
                if tile + 1 < tiles {
                    acc_empty.arrive(0);
                }
                values
            }
            Epilogue::HandBackFirst => {
                acc_full.wait(0, tile as u32 & 1).await;
                if tile + 1 < tiles {
                    acc_empty.arrive(0);
                }
                cx.tmem_load(acc) // @late-read
            }
            Epilogue::NoWait => cx.tmem_load(acc), // @unwaited-read
        };
        cx.store_global(&values, &cx.args().c, &[0, 0]);
    }
}

fn run(epilogue: Epilogue) -> Result<emu::EmuReport, EmuError> {
    let args = tmem_handoff::Args { c: Global::zeros(&[128, 16]), tiles: 3, epilogue };
    emu::run::<tmem_handoff::Kernel>(Grid::new(1, 1, 1), &args)
}

fn race(epilogue: Epilogue) -> (Violation, Box<warpspec::emu::Race>) {
    let err = run(epilogue).expect_err("the default run reports the race");
    let v = err.violation().unwrap_or_else(|| panic!("expected a violation: {err}")).clone();
    let ViolationKind::Race(race) = &v.kind else { panic!("expected a race: {err}") };
    let race = race.clone();
    (v, race)
}

#[test]
fn the_correct_hand_off_runs_clean() {
    run(Epilogue::Correct).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn an_accumulator_handed_back_before_it_was_read_is_a_race() {
    let (v, race) = race(Epilogue::HandBackFirst);
    assert_eq!(race.tile, "tensor-memory tile `acc`", "{v}");
    assert_eq!((race.earlier.by.role, race.earlier.kind), ("epilogue", AccessKind::TmemRead), "{v}");
    assert_eq!(race.earlier.at.map(|a| a.line()), Some(SOURCE.line_of("@late-read")), "{v}");
    assert_eq!((race.later.by.role, race.later.kind), ("mma", AccessKind::UmmaWrite), "{v}");
    assert_eq!(race.later.at.map(|a| a.line()), Some(SOURCE.line_of("@umma")), "{v}");
    let text = v.to_string();
    assert!(text.contains("handed back to the MMA before it was read"), "{text}");
    assert!(text.contains("`tmem_load`"), "{text}");
}

#[test]
fn an_accumulator_read_before_the_commit_was_waited_for_is_a_race() {
    let (v, race) = race(Epilogue::NoWait);
    assert_eq!(race.tile, "tensor-memory tile `acc`", "{v}");
    assert_eq!((race.earlier.by.role, race.earlier.kind), ("mma", AccessKind::UmmaWrite), "{v}");
    assert_eq!((race.later.by.role, race.later.kind), ("epilogue", AccessKind::TmemRead), "{v}");
    assert_eq!(race.later.at.map(|a| a.line()), Some(SOURCE.line_of("@unwaited-read")), "{v}");
    assert!(v.to_string().contains("until the `tcgen05.commit` after it arrives"), "{v}");
}

#[test]
fn race_detection_can_be_turned_off() {
    let args = tmem_handoff::Args { c: Global::zeros(&[128, 16]), tiles: 3, epilogue: Epilogue::HandBackFirst };
    let off = emu::EmuOptions::default().with_race_detection(false);
    emu::run_with::<tmem_handoff::Kernel>(Grid::new(1, 1, 1), &args, &off)
        .unwrap_or_else(|e| panic!("without race detection the hand-back goes unseen: {e}"));
}
