//! The sanitizer with parallel warps (each instance on its own OS thread): it finds the same
//! planted bugs as the default executor, reports a deadlock as soon as every live instance is
//! blocked, and its watchdog turns a wait without progress into a deadlock report.

use std::time::{Duration, Instant};

use warpspec::Grid;
use warpspec::emu::{self, EmuError, EmuOptions, ViolationKind};
use warpspec::prelude::*;
use warpspec_tests::sanitizer::{TILE_BYTES, every_lane_arrives, too_few_bytes, violation_with, wrong_initial_parity};

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
