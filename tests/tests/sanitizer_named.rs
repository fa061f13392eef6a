//! The emulator as a sanitizer of named barriers (class 7 of
//! `shared/reference/barrier-bugs.md`): more threads arriving than the barrier counts, two
//! named barriers with one hardware id in use at once, and a CTA finishing with a named
//! barrier part-way through a use, each planted where `#[kernel]` cannot see it (see
//! `warpspec_tests::sanitizer`).

use warpspec::emu::ViolationKind;
use warpspec::prelude::*;
use warpspec_tests::sanitizer::{Marked, assert_by, violation};

const SOURCE: Marked = Marked::new("sanitizer_named.rs", include_str!("sanitizer_named.rs"));

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
    SOURCE.assert_at(&v, "@meet");
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
    SOURCE.assert_at(&v, "@second");
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
