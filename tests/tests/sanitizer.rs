//! The emulator as a sanitizer: for each class of barrier bug that only shows at run time
//! (see `shared/reference/barrier-bugs.md`), a kernel with the bug planted and a test of the
//! report's content: the kind of violation, the warps and role, the barrier and phase, and
//! the kernel source line.
//!
//! `#[kernel]` rejects at compile time every bug it can see in the module's text, so the
//! planted bugs sit where it cannot look: role bodies written as functions outside the
//! `#[kernel]` module (as code shared from another module or crate would be), values it
//! cannot evaluate (`const fn` calls), and stage indices chosen at launch. The emulator is
//! what catches them.
//!
//! Source lines are found by markers (`// @name`) on the lines the report must point at.

use std::time::{Duration, Instant};

use warpspec::Grid;
use warpspec::dsl::{AccessKind, Barrier, Kernel};
use warpspec::emu::{self, EmuError, EmuOptions, Violation, ViolationKind};
use warpspec::prelude::*;

const SOURCE: &str = include_str!("sanitizer.rs");

/// The line of this file that carries `marker` (and is not a call of this function).
fn line_of(marker: &str) -> u32 {
    let tag = format!("// {marker}");
    let found = SOURCE.lines().position(|l| l.trim_end().ends_with(&tag) && !l.contains("line_of("));
    found.map_or_else(|| panic!("no line marked {marker}"), |i| i as u32 + 1)
}

/// Runs `K` on one CTA with race detection on and returns the violation it must report.
fn violation<K: Kernel>(params: &K::Params) -> Violation {
    violation_with::<K>(params, &EmuOptions::checked())
}

fn violation_with<K: Kernel>(params: &K::Params, options: &EmuOptions) -> Violation {
    match emu::run_with::<K>(Grid::new(1, 1, 1), params, options) {
        Err(EmuError::Violation(v)) => *v,
        Err(other) => panic!("expected a violation, got: {other}"),
        Ok(_) => panic!("expected a violation, the run succeeded"),
    }
}

fn assert_at(v: &Violation, marker: &str) {
    let at = v.at.unwrap_or_else(|| panic!("no source location in: {v}"));
    assert!(at.file().ends_with("sanitizer.rs"), "{at}");
    assert_eq!(at.line(), line_of(marker), "{v}");
    assert!(v.to_string().contains(&format!("sanitizer.rs:{}", at.line())), "{v}");
}

fn assert_by(v: &Violation, role: &str, warps: (u32, u32)) {
    let by = v.by.as_ref().unwrap_or_else(|| panic!("no instance in: {v}"));
    assert_eq!((by.role, by.warps), (role, warps), "{v}");
}

/// The size of one 64 x 16 f32 tile.
const TILE_BYTES: u32 = 64 * 16 * 4;

// ---- class 2: arrival-count mismatch (over-arrival) ----

/// Every lane of the producer arrives with the expected bytes, as if the elected-thread guard
/// were missing: the second arrival underflows a barrier that counts one.
#[warpspec::kernel]
mod every_lane_arrives {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
        pub lanes: usize,
    }

    #[shared]
    pub struct Smem {
        buf: Tile<f32, 64, 16>,
    }

    #[barrier(arrive = [producer], wait = [consumer], count = 1)]
    pub struct Loaded;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, loaded: Arriver<'_, Loaded>, buf: &Tile<f32, 64, 16>) {
        super::every_lane_arrives_producer(cx, &loaded, buf);
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn consumer(cx: &Ctx<'_, Args>, loaded: Waiter<'_, Loaded>, buf: &Tile<f32, 64, 16>) {
        super::load_after(cx, &loaded, buf, 0, &cx.args().x).await;
    }
}

fn every_lane_arrives_producer(
    cx: &Ctx<'_, every_lane_arrives::Args>,
    loaded: &Arriver<'_, every_lane_arrives::Loaded>,
    buf: &Tile<f32, 64, 16>,
) {
    for _ in 0..cx.args().lanes {
        loaded.arrive_expect_tx(0, TILE_BYTES); // @every-lane
    }
    cx.tma_load(&cx.args().x, &[0, 0], buf, &loaded.tx(0));
}

/// Waits on stage 0 of `loaded` with `parity`, then copies `buf` to `out`.
async fn load_after<P, B: Barrier>(
    cx: &Ctx<'_, P>,
    loaded: &Waiter<'_, B>,
    buf: &Tile<f32, 64, 16>,
    parity: u32,
    out: &Global<f32>,
) {
    loaded.wait(0, parity).await;
    let tile = cx.load(buf);
    cx.store_global(&tile, out, &[0, 0]);
}

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
    assert_eq!(arrivals[0].at.map(|at| at.line()), Some(line_of("@every-lane")));
    assert_by(&v, "producer", (0, 0));
    assert_at(&v, "@every-lane");
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
    assert_at(&v, "@leader-twice");
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
    assert_at(&v, "@commit-extra");
    assert!(v.to_string().contains("transaction bytes above the expected count on `Data.full[0]`"), "{v}");
    let args = too_many_bytes::Args { x: Global::zeros(&[64, 16]), extra_load: false };
    emu::run_with::<too_many_bytes::Kernel>(Grid::new(1, 1, 1), &args, &EmuOptions::checked())
        .unwrap_or_else(|e| panic!("{e}"));
}

/// The producer expects two tiles' bytes and loads one; nobody waits, so the CTA ends with
/// the phase open.
#[warpspec::kernel]
mod too_few_bytes {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
        pub expected: u32,
    }

    #[shared]
    pub struct Smem {
        buf: Tile<f32, 64, 16>,
    }

    #[barrier(arrive = [producer], wait = [consumer], count = 1)]
    pub struct Loaded;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, loaded: Arriver<'_, Loaded>, buf: &Tile<f32, 64, 16>) {
        super::too_few_bytes_producer(cx, &loaded, buf);
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(_cx: &Ctx<'_, Args>, _loaded: Waiter<'_, Loaded>) {}
}

fn too_few_bytes_producer(
    cx: &Ctx<'_, too_few_bytes::Args>,
    loaded: &Arriver<'_, too_few_bytes::Loaded>,
    buf: &Tile<f32, 64, 16>,
) {
    cx.tma_load(&cx.args().x, &[0, 0], buf, &loaded.tx(0));
    loaded.arrive_expect_tx(0, cx.args().expected); // @expect-bytes
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
    assert_eq!((arrivals[0].by.role, arrivals[0].at.map(|a| a.line())), ("producer", Some(line_of("@expect-bytes"))));
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
    assert_eq!((last.by.role, last.at.map(|a| a.line())), ("producer", Some(line_of("@signal"))));
    assert_by(&v, "consumer", (1, 1));
    assert_at(&v, "@lapped-wait");
    assert!(v.to_string().contains("lapped phase: a wait on `Signal[0]` for phase 0 (parity 0)"), "{v}");
}

// ---- classes 1 and 5: races on shared memory ----

/// The consumer waits with the wrong initial parity (1, the phase "before" the first, which
/// passes at once) and reads the tile while the TMA load filling it is in flight.
#[warpspec::kernel]
mod wrong_initial_parity {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
        pub parity: u32,
    }

    #[shared]
    pub struct Smem {
        buf: Tile<f32, 64, 16>,
    }

    #[barrier(arrive = [producer], wait = [consumer], count = 1)]
    pub struct Loaded;

    #[barrier(arrive = [consumer], wait = [producer], count = 1)]
    pub struct Go;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(
        cx: &Ctx<'_, Args>,
        loaded: Arriver<'_, Loaded>,
        go: Waiter<'_, Go>,
        buf: &Tile<f32, 64, 16>,
    ) {
        super::wrong_initial_parity_producer(cx, &loaded, &go, buf).await;
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(
        cx: &Ctx<'_, Args>,
        loaded: Waiter<'_, Loaded>,
        go: Arriver<'_, Go>,
        buf: &Tile<f32, 64, 16>,
    ) {
        super::wrong_initial_parity_consumer(cx, &loaded, &go, buf).await;
    }
}

async fn wrong_initial_parity_producer(
    cx: &Ctx<'_, wrong_initial_parity::Args>,
    loaded: &Arriver<'_, wrong_initial_parity::Loaded>,
    go: &Waiter<'_, wrong_initial_parity::Go>,
    buf: &Tile<f32, 64, 16>,
) {
    cx.tma_load(&cx.args().x, &[0, 0], buf, &loaded.tx(0)); // @tma-write
    if cx.args().parity == 1 {
        go.wait(0, 0).await;
    }
    loaded.arrive_expect_tx(0, TILE_BYTES);
}

async fn wrong_initial_parity_consumer(
    cx: &Ctx<'_, wrong_initial_parity::Args>,
    loaded: &Waiter<'_, wrong_initial_parity::Loaded>,
    go: &Arriver<'_, wrong_initial_parity::Go>,
    buf: &Tile<f32, 64, 16>,
) {
    loaded.wait(0, cx.args().parity).await;
    let tile = cx.load(buf); // @read-in-flight
    if cx.args().parity == 1 {
        go.arrive(0);
    }
    cx.store_global(&tile, &cx.args().x, &[0, 0]);
}

#[test]
fn a_read_while_the_tma_write_is_in_flight_is_a_race() {
    let args = wrong_initial_parity::Args { x: Global::zeros(&[64, 16]), parity: 1 };
    let v = violation::<wrong_initial_parity::Kernel>(&args);
    let ViolationKind::Race(race) = &v.kind else { panic!("expected a race: {v}") };
    assert_eq!((race.earlier.by.role, race.earlier.kind.writes()), ("producer", true));
    assert!(matches!(race.earlier.kind, AccessKind::TmaWrite { .. }), "{v}");
    assert_eq!(race.earlier.at.map(|a| a.line()), Some(line_of("@tma-write")));
    let (barrier, phase) = race.earlier.lands_on.unwrap_or_else(|| panic!("where does the load land? {v}"));
    assert_eq!((barrier.name, barrier.stage, phase), ("Loaded", 0, 0));
    assert_eq!((race.later.by.role, race.later.kind), ("consumer", AccessKind::SharedRead));
    assert_eq!((race.later.rows.clone(), race.later.cols.clone()), (0..64, 0..16));
    assert_by(&v, "consumer", (1, 1));
    assert_at(&v, "@read-in-flight");
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
    assert_eq!(race.earlier.at.map(|a| a.line()), Some(line_of("@mma-read")));
    assert_eq!(race.later.by.role, "producer");
    let (barrier, phase) = race.later.lands_on.unwrap_or_else(|| panic!("where does the load land? {v}"));
    // The third load reuses stage 0, in the ring's second round.
    assert_eq!((barrier.name, barrier.stage, phase), ("Operands.full", 0, 1));
    assert_by(&v, "producer", (0, 0));
    assert_at(&v, "@overwrite");
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
        (AccessKind::TmaRead, Some(line_of("@tma-store")))
    );
    assert_eq!(race.later.kind, AccessKind::SharedWrite);
    assert_by(&v, "epilogue", (0, 0));
    assert_at(&v, "@rewrite");
    assert!(v.to_string().contains("`store_wait`"), "{v}");
}

// ---- class 8: initialisation and teardown ----

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
    assert_at(&v, "@stage");
    assert!(v.to_string().contains("barrier used before initialisation: stage 2 of `Flags`"), "{v}");
    let huge = violation::<stage_out_of_range::Kernel>(&stage_out_of_range::Args { stage: 1 << 40 });
    assert!(matches!(huge.kind, ViolationKind::UninitialisedBarrier { .. }), "indices never wrap: {huge}");
}

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
    assert_eq!((arrivals[0].by.warps, arrivals[0].at.map(|a| a.line())), ((0, 0), Some(line_of("@done"))));
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
    assert_eq!((*pipeline, *stage, *handover, taken_at.line()), ("Data", 0, "release", line_of("@taken")));
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
    assert_at(&v, "@last-mma");
    let args = mma_in_flight_at_exit::Args { wait: true };
    emu::run_with::<mma_in_flight_at_exit::Kernel>(Grid::new(1, 1, 1), &args, &EmuOptions::checked())
        .unwrap_or_else(|e| panic!("{e}"));
}

// ---- class 7: named barriers ----

/// A thread count the compile-time checker cannot evaluate.
const fn meet_threads() -> u32 {
    192
}

/// Two warpgroups (256 threads) meet at a named barrier that counts 192.
#[warpspec::kernel]
mod named_count_mismatch {
    use warpspec::prelude::*;

    #[named_barrier(roles = [group], threads = super::meet_threads())]
    pub struct Meet;

    #[role(warpgroups = 2, regs = 240)]
    pub async fn group(_cx: &Ctx<'_, ()>, meet: Named<'_, Meet>) {
        meet.sync().await; // @meet
    }
}

#[test]
fn more_threads_at_a_named_barrier_than_it_counts_is_reported() {
    let v = violation::<named_count_mismatch::Kernel>(&());
    assert_eq!(v.kind, ViolationKind::NamedOverflow { name: "Meet", id: 1, threads: 192, arrived: 256 });
    assert_by(&v, "group", (4, 7));
    assert_at(&v, "@meet");
}

/// A hardware id the compile-time checker cannot evaluate.
const fn shared_id() -> u32 {
    3
}

/// Two named barriers given one hardware id: `left` arrives on the first and syncs on the
/// second while the first is part-way through its use.
#[warpspec::kernel]
mod named_id_shared {
    use warpspec::prelude::*;

    #[named_barrier(roles = [left, right], threads = 64, id = super::shared_id())]
    pub struct First;

    #[named_barrier(roles = [left, right], threads = 64, id = super::shared_id())]
    pub struct Second;

    #[role(warps = 1, regs = 40)]
    pub async fn left(_cx: &Ctx<'_, ()>, first: Named<'_, First>, second: Named<'_, Second>) {
        first.arrive();
        second.sync().await; // @second
    }

    #[role(warps = 1, regs = 40)]
    pub async fn right(_cx: &Ctx<'_, ()>, first: Named<'_, First>, second: Named<'_, Second>) {
        second.sync().await;
        first.sync().await;
    }
}

#[test]
fn two_named_barriers_sharing_an_id_in_use_together_are_reported() {
    let v = violation::<named_id_shared::Kernel>(&());
    assert_eq!(v.kind, ViolationKind::NamedIdShared { name: "Second", other: "First", id: 3 });
    assert_by(&v, "left", (0, 0));
    assert_at(&v, "@second");
}

/// One warp signals a named barrier with `bar.arrive` and nobody ever syncs on it.
#[warpspec::kernel]
mod named_left_open {
    use warpspec::prelude::*;

    #[named_barrier(roles = [signaller, sleeper], threads = 64)]
    pub struct Handoff;

    #[role(warps = 1, regs = 40)]
    pub async fn signaller(_cx: &Ctx<'_, ()>, handoff: Named<'_, Handoff>) {
        super::hand_off(&handoff);
    }

    #[role(warps = 1, regs = 40)]
    pub async fn sleeper(_cx: &Ctx<'_, ()>, _handoff: Named<'_, Handoff>) {}
}

fn hand_off(handoff: &Named<'_, named_left_open::Handoff>) {
    handoff.arrive();
}

#[test]
fn a_cta_finishing_with_a_named_barrier_part_way_is_reported() {
    let v = violation::<named_left_open::Kernel>(&());
    assert_eq!(v.kind, ViolationKind::NamedPendingAtExit { name: "Handoff", id: 1, arrived: 32, threads: 64 });
    assert!(v.by.is_none(), "{v}");
    assert!(v.to_string().contains("named barrier `Handoff` (id 1) part-way: 32 of 64 threads"), "{v}");
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

// ---- parallel warps ----

fn parallel(watchdog: Duration) -> EmuOptions {
    EmuOptions::checked().with_parallel_warps(watchdog)
}

#[test]
fn parallel_warps_find_the_same_bugs() {
    let args = wrong_initial_parity::Args { x: Global::zeros(&[64, 16]), parity: 1 };
    let v = violation_with::<wrong_initial_parity::Kernel>(&args, &parallel(Duration::from_secs(10)));
    let ViolationKind::Race(race) = &v.kind else { panic!("expected a race: {v}") };
    let mut roles = [race.earlier.by.role, race.later.by.role];
    roles.sort_unstable();
    assert_eq!(roles, ["consumer", "producer"]);
    let v = violation_with::<every_lane_arrives::Kernel>(
        &every_lane_arrives::Args { x: Global::zeros(&[64, 16]), lanes: 32 },
        &parallel(Duration::from_secs(10)),
    );
    assert!(matches!(v.kind, ViolationKind::OverArrival { .. }), "{v}");
}

#[test]
fn parallel_warps_report_a_deadlock_at_once() {
    let args = too_few_bytes::Args { x: Global::zeros(&[64, 16]), expected: TILE_BYTES };
    emu::run_with::<too_few_bytes::Kernel>(Grid::new(1, 1, 1), &args, &parallel(Duration::from_secs(10)))
        .unwrap_or_else(|e| panic!("{e}"));
    let start = Instant::now();
    let err = emu::run_with::<named_count_mismatch_short::Kernel>(
        Grid::new(1, 1, 1),
        &(),
        &parallel(Duration::from_secs(30)),
    )
    .unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(5), "found by the all-blocked check, not the watchdog");
    let EmuError::Deadlock(deadlock) = &err else { panic!("expected a deadlock: {err}") };
    assert_eq!(deadlock.blocked.len(), 2);
    assert!(
        deadlock.blocked.iter().all(|b| b.waiting_for() == "256 of 384 threads arrived, expected from `group`"),
        "{err}"
    );
}

/// A thread count the compile-time checker cannot evaluate.
const fn three_warpgroups() -> u32 {
    384
}

/// Two warpgroups meet at a named barrier that counts 384 threads: one short.
#[warpspec::kernel]
mod named_count_mismatch_short {
    use warpspec::prelude::*;

    #[named_barrier(roles = [group], threads = super::three_warpgroups())]
    pub struct Meet;

    #[role(warpgroups = 2, regs = 240)]
    pub async fn group(_cx: &Ctx<'_, ()>, meet: Named<'_, Meet>) {
        meet.sync().await;
    }
}

/// The producer computes on the host for longer than the watchdog allows before it arrives.
#[warpspec::kernel]
mod slow_producer {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub delay: std::time::Duration,
    }

    #[barrier(arrive = [producer], wait = [consumer], count = 1)]
    pub struct Ready;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, ready: Arriver<'_, Ready>) {
        std::thread::sleep(cx.args().delay);
        ready.arrive(0);
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(_cx: &Ctx<'_, Args>, ready: Waiter<'_, Ready>) {
        ready.wait(0, 0).await;
    }
}

#[test]
fn the_watchdog_turns_a_wait_without_progress_into_a_deadlock_report() {
    let args = slow_producer::Args { delay: Duration::from_millis(400) };
    let err = emu::run_with::<slow_producer::Kernel>(Grid::new(1, 1, 1), &args, &parallel(Duration::from_millis(50)))
        .unwrap_err();
    let EmuError::Deadlock(deadlock) = &err else { panic!("expected a deadlock: {err}") };
    let consumer = deadlock.blocked.iter().find(|b| b.role == "consumer").unwrap_or_else(|| panic!("{err}"));
    assert_eq!(consumer.barrier(), "`Ready[0]`");
    assert!(consumer.waiting_for().ends_with("(no progress for 50ms: stopped by the watchdog)"), "{err}");
    // With a patient watchdog the same launch completes.
    let args = slow_producer::Args { delay: Duration::from_millis(20) };
    emu::run_with::<slow_producer::Kernel>(Grid::new(1, 1, 1), &args, &parallel(Duration::from_secs(10)))
        .unwrap_or_else(|e| panic!("{e}"));
}
