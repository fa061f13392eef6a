//! The emulator as a sanitizer at teardown (class 8 of `shared/reference/barrier-bugs.md`): a
//! CTA finishing with a phase part-arrived, a pipeline token dropped without hand-over, an
//! instance returning with an MMA in flight; and the deadlock report when an early exit skips
//! an arrival that another instance waits for (class 6). Each bug is planted where `#[kernel]`
//! cannot see it (see `warpspec_tests::sanitizer`).

use warpspec::Grid;
use warpspec::emu::{self, EmuError, EmuOptions, ViolationKind};
use warpspec::prelude::*;
use warpspec_tests::sanitizer::{Marked, assert_by, violation};

const SOURCE: Marked = Marked::new("sanitizer_teardown.rs", include_str!("sanitizer_teardown.rs"));

// ---- class 8: teardown ----

/// One of two producer warps returns early and never arrives; nobody waits on the barrier.
#[warpspec::kernel]
mod early_exit {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub bail: bool,
        pub wait: bool,
    }

    #[barrier(arrive = [producer], wait = [consumer])]
    pub struct Done;

    #[role(warps = 2, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, done: Arriver<'_, Done>) {
        super::early_exit_producer(cx, &done);
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(cx: &Ctx<'_, Args>, done: Waiter<'_, Done>) {
        if cx.args().wait {
            done.wait(0, 0).await;
        }
    }
}

fn early_exit_producer(cx: &Ctx<'_, early_exit::Args>, done: &Arriver<'_, early_exit::Done>) {
    if cx.args().bail && cx.instance() == 1 {
        return;
    }
    done.arrive(0); // @done
}

#[test]
fn a_cta_finishing_with_a_phase_part_arrived_is_reported() {
    let v = violation::<early_exit::Kernel>(&early_exit::Args { bail: true, wait: false });
    let ViolationKind::PendingAtExit { barrier, phase, expected, arrivals, pending_bytes } = &v.kind else {
        panic!("expected a phase left open: {v}")
    };
    assert_eq!((barrier.name, *phase, *expected, *pending_bytes), ("Done", 0, 2, 0));
    assert_eq!(arrivals.len(), 1);
    assert_eq!((arrivals[0].by.warps, arrivals[0].at.map(|a| a.line())), ((0, 0), Some(SOURCE.line_of("@done"))));
    assert!(v.to_string().contains("1 of 2 arrival(s) (warp 0 (`producer` #0) at"), "{v}");
    let args = early_exit::Args { bail: false, wait: true };
    emu::run_with::<early_exit::Kernel>(Grid::new(1, 1, 1), &args, &EmuOptions::checked())
        .unwrap_or_else(|e| panic!("{e}"));
}

/// The consumer bails out of its loop holding a full slot.
#[warpspec::kernel]
mod token_dropped {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
        pub steps: usize,
        pub bail_at: usize,
    }

    #[shared]
    pub struct Smem {
        buf: Ring<Tile<f32, 64, 16>, 2>,
    }

    #[pipeline(tma, producer = producer, consumer = consumer, guards = [buf])]
    pub struct Data;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, data: Producer<'_, Data>) {
        for _ in 0..cx.args().steps {
            let slot = data.acquire().await;
            cx.tma_load(&cx.args().x, &[0, 0], slot.buf(), &slot);
            data.commit(slot);
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn consumer(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        for step in 0..cx.args().steps {
            let full = data.wait().await; // @taken
            if step == cx.args().bail_at {
                return;
            }
            data.release(full);
        }
    }
}

#[test]
fn a_token_dropped_without_release_is_reported_where_it_was_taken() {
    let args = token_dropped::Args { x: Global::zeros(&[64, 16]), steps: 4, bail_at: 2 };
    let v = violation::<token_dropped::Kernel>(&args);
    let ViolationKind::TokenDropped { pipeline, stage, handover, taken_at } = &v.kind else {
        panic!("expected a dropped token: {v}")
    };
    assert_eq!((*pipeline, *stage, *handover, taken_at.line()), ("Data", 0, "release", SOURCE.line_of("@taken")));
    assert_by(&v, "consumer", (1, 4));
    assert!(v.to_string().contains("dropped without `release`"), "{v}");
}

/// A warpgroup returns with its MMA still in flight.
#[warpspec::kernel]
mod mma_in_flight_at_exit {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub wait: bool,
    }

    #[shared]
    pub struct Smem {
        a: Tile<bf16, 64, 16>,
        b: Tile<bf16, 16, 8>,
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, a: &Tile<bf16, 64, 16>, b: &Tile<bf16, 16, 8>) {
        let mut acc = cx.fragment::<64, 8>(0.0);
        let mma = cx.wgmma(&mut acc, a, b); // @last-mma
        if cx.args().wait {
            cx.mma_wait(mma, 0).await;
        }
    }
}

#[test]
fn an_instance_returning_with_an_mma_in_flight_is_reported() {
    let v = violation::<mma_in_flight_at_exit::Kernel>(&mma_in_flight_at_exit::Args { wait: false });
    assert_eq!(v.kind, ViolationKind::AsyncPendingAtExit { mma_groups: 1, stores: 0 });
    assert_by(&v, "math", (0, 3));
    SOURCE.assert_at(&v, "@last-mma");
    let args = mma_in_flight_at_exit::Args { wait: true };
    emu::run_with::<mma_in_flight_at_exit::Kernel>(Grid::new(1, 1, 1), &args, &EmuOptions::checked())
        .unwrap_or_else(|e| panic!("{e}"));
}

// ---- class 6: asymmetric control flow (deadlocks, as reports) ----

#[test]
fn an_arrive_skipped_by_an_early_exit_is_a_deadlock_report() {
    let args = early_exit::Args { bail: true, wait: true };
    let err = emu::run_with::<early_exit::Kernel>(Grid::new(1, 1, 1), &args, &EmuOptions::checked()).unwrap_err();
    let EmuError::Deadlock(deadlock) = &err else { panic!("expected a deadlock: {err}") };
    assert_eq!(deadlock.blocked.len(), 1);
    let blocked = &deadlock.blocked[0];
    assert_eq!((blocked.role, blocked.warps, blocked.barrier().as_str()), ("consumer", (2, 2), "`Done[0]`"));
    assert_eq!(
        blocked.waiting_for(),
        "phase 0 (parity 0) to complete; 1 of 2 arrivals missing, expected from `producer`"
    );
    assert_eq!(deadlock.finished, ["`producer` #0 (warp 0)", "`producer` #1 (warp 1)"]);
}
