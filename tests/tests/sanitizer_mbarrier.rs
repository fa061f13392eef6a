//! The emulator as a sanitizer of mbarriers: an arrival past the barrier's count, transaction
//! bytes above or below the expected count, a wait on a phase the barrier has lapped, and a
//! stage outside its barrier array (classes 2, 3, 4 and 8 of `shared/reference/barrier-bugs.md`),
//! each planted where `#[kernel]` cannot see it (see `warpspec_tests::sanitizer`).

use warpspec::Grid;
use warpspec::emu::{self, EmuOptions, ViolationKind};
use warpspec::prelude::*;
use warpspec_tests::sanitizer::{self, Marked, TILE_BYTES, assert_by, every_lane_arrives, too_few_bytes, violation};

const SOURCE: Marked = Marked::new("sanitizer_mbarrier.rs", include_str!("sanitizer_mbarrier.rs"));

// ---- class 2: arrival-count mismatch (over-arrival) ----

#[test]
fn an_arrival_past_the_count_is_an_over_arrival() {
    let args = every_lane_arrives::Args { x: Global::zeros(&[64, 16]), lanes: 32 };
    let v = violation::<every_lane_arrives::Kernel>(&args);
    let ViolationKind::OverArrival { barrier, phase, expected, arrivals, pending_bytes } = &v.kind else {
        panic!("expected an over-arrival: {v}")
    };
    assert_eq!((barrier.name, barrier.stage, *phase, *expected), ("Loaded", 0, 0, 1));
    assert_eq!(*pending_bytes, i64::from(TILE_BYTES));
    assert_eq!(arrivals.len(), 1);
    assert_eq!(arrivals[0].at.map(|at| at.line()), Some(sanitizer::SOURCE.line_of("@every-lane")));
    assert_by(&v, "producer", (0, 0));
    sanitizer::SOURCE.assert_at(&v, "@every-lane");
    let text = v.to_string();
    assert!(text.contains("over-arrival on `Loaded[0]`: phase 0 expects 1 arrival(s)"), "{text}");
    assert!(text.contains("underflows"), "{text}");
    // One lane, as intended, runs clean.
    let args = every_lane_arrives::Args { x: Global::zeros(&[64, 16]), lanes: 1 };
    emu::run_with::<every_lane_arrives::Kernel>(Grid::new(1, 1, 1), &args, &EmuOptions::checked())
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Two producer warps each owe one arrival per phase; the leader arrives for both.
#[warpspec::kernel]
mod leader_arrives_for_both {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub leader_only: bool,
    }

    #[barrier(arrive = [producer], wait = [consumer])]
    pub struct Ready;

    #[role(warps = 2, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, ready: Arriver<'_, Ready>) {
        if !cx.args().leader_only {
            ready.arrive(0);
        } else if cx.instance() == 0 {
            ready.arrive(0);
            ready.arrive(0); // @leader-twice
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(_cx: &Ctx<'_, Args>, ready: Waiter<'_, Ready>) {
        ready.wait(0, 0).await;
    }
}

#[test]
fn one_instance_arriving_twice_in_a_phase_is_an_over_arrival() {
    let v = violation::<leader_arrives_for_both::Kernel>(&leader_arrives_for_both::Args { leader_only: true });
    let ViolationKind::OverArrival { barrier, phase, expected, arrivals, .. } = &v.kind else {
        panic!("expected an over-arrival: {v}")
    };
    assert_eq!((barrier.name, *phase, *expected, arrivals.len()), ("Ready", 0, 2, 1));
    assert_eq!(arrivals[0].by.role, "producer");
    assert_by(&v, "producer", (0, 0));
    SOURCE.assert_at(&v, "@leader-twice");
    assert!(v.to_string().contains("each arriving instance arrives once per phase"), "{v}");
    let args = leader_arrives_for_both::Args { leader_only: false };
    emu::run_with::<leader_arrives_for_both::Kernel>(Grid::new(1, 1, 1), &args, &EmuOptions::checked())
        .unwrap_or_else(|e| panic!("{e}"));
}

// ---- class 3: transaction bytes above and below the expected count ----

/// The producer also loads a second tile onto the slot's barrier: more bytes land than the
/// pipeline expects, and the phase can never complete.
#[warpspec::kernel]
mod too_many_bytes {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
        pub extra_load: bool,
    }

    #[shared]
    pub struct Smem {
        buf: Ring<Tile<f32, 64, 16>, 2>,
        extra: Tile<f32, 64, 16>,
    }

    #[pipeline(tma, producer = producer, consumer = consumer, guards = [buf])]
    pub struct Data;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, data: Producer<'_, Data>, extra: &Tile<f32, 64, 16>) {
        super::too_many_bytes_producer(cx, &data, extra).await;
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn consumer(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        let full = data.wait().await;
        let tile = cx.load(full.buf());
        data.release(full);
        cx.store_global(&tile, &cx.args().x, &[0, 0]);
    }
}

async fn too_many_bytes_producer(
    cx: &Ctx<'_, too_many_bytes::Args>,
    data: &Producer<'_, too_many_bytes::Data>,
    extra: &Tile<f32, 64, 16>,
) {
    let slot = data.acquire().await;
    cx.tma_load(&cx.args().x, &[0, 0], slot.buf(), &slot);
    if cx.args().extra_load {
        cx.tma_load(&cx.args().x, &[0, 0], extra, &slot);
    }
    data.commit(slot); // @commit-extra
}

#[test]
fn more_bytes_than_expected_is_reported_at_the_commit() {
    let args = too_many_bytes::Args { x: Global::zeros(&[64, 16]), extra_load: true };
    let v = violation::<too_many_bytes::Kernel>(&args);
    let ViolationKind::TxOverflow { barrier, phase, expected_bytes, landed_bytes } = &v.kind else {
        panic!("expected a transaction overflow: {v}")
    };
    assert_eq!((barrier.name, barrier.stage, *phase), ("Data.full", 0, 0));
    assert_eq!((*expected_bytes, *landed_bytes), (u64::from(TILE_BYTES), 2 * u64::from(TILE_BYTES)));
    assert_by(&v, "producer", (0, 0));
    SOURCE.assert_at(&v, "@commit-extra");
    assert!(v.to_string().contains("transaction bytes above the expected count on `Data.full[0]`"), "{v}");
    let args = too_many_bytes::Args { x: Global::zeros(&[64, 16]), extra_load: false };
    emu::run_with::<too_many_bytes::Kernel>(Grid::new(1, 1, 1), &args, &EmuOptions::checked())
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn bytes_still_pending_when_the_cta_ends_are_reported() {
    let args = too_few_bytes::Args { x: Global::zeros(&[64, 16]), expected: 2 * TILE_BYTES };
    let v = violation::<too_few_bytes::Kernel>(&args);
    let ViolationKind::PendingAtExit { barrier, phase, expected, arrivals, pending_bytes } = &v.kind else {
        panic!("expected a phase left open: {v}")
    };
    assert_eq!((barrier.name, *phase, *expected, *pending_bytes), ("Loaded", 0, 1, i64::from(TILE_BYTES)));
    assert_eq!(arrivals.len(), 1);
    assert_eq!(
        (arrivals[0].by.role, arrivals[0].at.map(|a| a.line())),
        ("producer", Some(sanitizer::SOURCE.line_of("@expect-bytes")))
    );
    assert!(v.by.is_none(), "an end-of-CTA check concerns the CTA: {v}");
    let text = v.to_string();
    assert!(text.contains("phase 0 of `Loaded[0]` open"), "{text}");
    assert!(text.contains(&format!("{TILE_BYTES} transaction byte(s) expected and never landed")), "{text}");
}

// ---- class 4: lapped phase ----

/// The producer signals every step without waiting for the consumer to see the previous
/// signal: the barrier runs phases ahead of the consumer.
#[warpspec::kernel]
mod no_back_pressure {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub steps: usize,
    }

    #[barrier(arrive = [producer], wait = [consumer], count = 1)]
    pub struct Signal;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, signal: Arriver<'_, Signal>) {
        for _ in 0..cx.args().steps {
            super::signal(&signal);
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(cx: &Ctx<'_, Args>, signal: Waiter<'_, Signal>) {
        for step in 0..cx.args().steps {
            signal.wait(0, step as u32 & 1).await; // @lapped-wait
        }
    }
}

fn signal(signal: &Arriver<'_, no_back_pressure::Signal>) {
    signal.arrive(0); // @signal
}

#[test]
fn a_wait_on_a_phase_the_barrier_has_lapped_is_reported() {
    let v = violation::<no_back_pressure::Kernel>(&no_back_pressure::Args { steps: 3 });
    let ViolationKind::LappedPhase { barrier, phase, parity, completed, last_completed_by } = &v.kind else {
        panic!("expected a lapped phase: {v}")
    };
    assert_eq!((barrier.name, barrier.stage, *phase, *parity, *completed), ("Signal", 0, 0, 0, 3));
    let last = last_completed_by.as_ref().unwrap_or_else(|| panic!("who completed the phase? {v}"));
    assert_eq!((last.by.role, last.at.map(|a| a.line())), ("producer", Some(SOURCE.line_of("@signal"))));
    assert_by(&v, "consumer", (1, 1));
    SOURCE.assert_at(&v, "@lapped-wait");
    assert!(v.to_string().contains("lapped phase: a wait on `Signal[0]` for phase 0 (parity 0)"), "{v}");
}

// ---- class 8: initialisation ----

/// A stage index computed at run time falls outside the barrier array.
#[warpspec::kernel]
mod stage_out_of_range {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub stage: usize,
    }

    #[barrier(arrive = [producer], wait = [consumer], len = 2)]
    pub struct Flags;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, flags: Arriver<'_, Flags>) {
        flags.arrive(cx.args().stage); // @stage
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(cx: &Ctx<'_, Args>, flags: Waiter<'_, Flags>) {
        flags.wait(cx.args().stage % 2, 0).await;
    }
}

#[test]
fn a_barrier_stage_never_initialised_is_reported() {
    let v = violation::<stage_out_of_range::Kernel>(&stage_out_of_range::Args { stage: 2 });
    assert_eq!(v.kind, ViolationKind::UninitialisedBarrier { name: "Flags", stage: 2, stages: 2 });
    assert_by(&v, "producer", (0, 0));
    SOURCE.assert_at(&v, "@stage");
    assert!(v.to_string().contains("barrier used before initialisation: stage 2 of `Flags`"), "{v}");
    let huge = violation::<stage_out_of_range::Kernel>(&stage_out_of_range::Args { stage: 1 << 40 });
    assert!(matches!(huge.kind, ViolationKind::UninitialisedBarrier { .. }), "indices never wrap: {huge}");
}
