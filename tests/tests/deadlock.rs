//! A kernel whose protocol cannot finish stops with a report naming each blocked warp, the
//! barrier and phase it waits on and the roles expected to arrive; it never hangs.

use std::time::{Duration, Instant};

use warpspec::Grid;
use warpspec::emu::{self, EmuError};
use warpspec::prelude::*;

/// The producer fills `fills` slots and the consumer waits for `waits` (launch arguments,
/// so the macro cannot see the mismatch): with one wait too many the consumer blocks on
/// `Data.full` and nobody is left to arrive.
#[warpspec::kernel]
mod one_short {
    use warpspec::prelude::*;

    #[params]
    #[derive(Clone)]
    pub struct Args {
        pub x: Global<f32>,
        pub fills: usize,
        pub waits: usize,
    }

    #[shared]
    pub struct Smem {
        buf: Ring<Tile<f32, 64, 16>, 2>,
    }

    #[pipeline(tma, producer = load, consumer = math, guards = [buf])]
    pub struct Data;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, data: Producer<'_, Data>) {
        for _ in 0..cx.args().fills {
            let slot = data.acquire().await;
            cx.tma_load(&cx.args().x, &[0, 0], slot.buf(), &slot);
            data.commit(slot);
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        for _ in 0..cx.args().waits {
            let full = data.wait().await;
            data.release(full);
        }
    }
}

/// Two warpgroups meet at a named barrier `meetings` times each, except that the second
/// one comes to one meeting fewer (launch arguments again).
#[warpspec::kernel]
mod short_named_barrier {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub meetings: [usize; 2],
    }

    #[named_barrier(roles = [group], threads = 256)]
    pub struct Meet;

    #[role(warpgroups = 2, regs = 240)]
    pub async fn group(cx: &Ctx<'_, Args>, meet: Named<'_, Meet>) {
        for _ in 0..cx.args().meetings[cx.instance()] {
            meet.sync().await;
        }
    }
}

#[test]
fn a_consumer_waiting_for_a_slot_never_filled_is_reported() {
    let args = one_short::Args { x: Global::zeros(&[64, 16]), fills: 3, waits: 4 };
    let balanced = one_short::Args { waits: 3, ..args.clone() };
    emu::run::<one_short::Kernel>(Grid::new(2, 1, 1), &balanced).expect("a balanced protocol finishes");
    let start = Instant::now();
    let err = emu::run::<one_short::Kernel>(Grid::new(2, 1, 1), &args).unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(5), "the deadlock must be reported promptly");
    let EmuError::Deadlock(deadlock) = &err else { panic!("expected a deadlock, got {err}") };
    assert_eq!(deadlock.kernel, "one_short");
    assert_eq!(deadlock.block, [0, 0, 0]);
    assert_eq!(deadlock.blocked.len(), 1);
    let blocked = &deadlock.blocked[0];
    assert_eq!((blocked.role, blocked.instance, blocked.warps), ("math", 0, (1, 4)));
    // The fourth wait is on stage 1 (3 % 2) for its second phase (parity 1).
    assert_eq!(blocked.barrier(), "`Data.full[1]`");
    assert_eq!(blocked.waiting_for(), "phase 1 (parity 1) to complete; 1 of 1 arrivals missing, expected from `load`");
    assert_eq!(deadlock.finished, ["`load` #0 (warp 0)"]);
    let text = err.to_string();
    assert!(text.contains("deadlock in kernel `one_short`, CTA [0, 0, 0]"), "{text}");
    assert!(text.contains("warps 1-4 (`math` #0) waits on `Data.full[1]`"), "{text}");
}

#[test]
fn a_named_barrier_short_of_threads_is_reported() {
    let args = short_named_barrier::Args { meetings: [3, 2] };
    let err = emu::run::<short_named_barrier::Kernel>(Grid::new(1, 1, 1), &args).unwrap_err();
    let EmuError::Deadlock(deadlock) = &err else { panic!("expected a deadlock, got {err}") };
    assert_eq!(deadlock.blocked.len(), 1);
    let blocked = &deadlock.blocked[0];
    assert_eq!((blocked.role, blocked.instance, blocked.warps), ("group", 0, (0, 3)));
    assert_eq!(blocked.barrier(), "named barrier `Meet` (id 1)");
    assert_eq!(blocked.waiting_for(), "128 of 256 threads arrived, expected from `group`");
    assert_eq!(deadlock.finished, ["`group` #1 (warps 4-7)"]);
    let balanced = short_named_barrier::Args { meetings: [3, 3] };
    emu::run::<short_named_barrier::Kernel>(Grid::new(1, 1, 1), &balanced).expect("balanced meetings finish");
}

/// A 2-CTA cluster whose producers multicast half of each stage's bytes to the CTAs of a mask
/// given at launch: with the mask of both CTAs each `full` barrier receives both halves; with
/// only the producer's own CTA in it, every CTA's `full` barrier waits for the peer's half,
/// which never comes. The macro cannot see a launch-time mask.
#[warpspec::kernel(cluster = [2, 1, 1])]
mod runtime_mask {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
        pub mask_of_rank: [u16; 2],
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
        for _ in 0..3 {
            let slot = data.acquire().await;
            cx.tma_load_multicast(&cx.args().x, &[rank * 32, 0], slot.buf().rows::<32>(rank * 32), &slot, mask);
            data.commit(slot);
        }
        cx.cluster_sync().await;
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        cx.cluster_sync().await;
        for _ in 0..3 {
            let full = data.wait().await;
            data.release_cluster(full, 0b11);
        }
        cx.cluster_sync().await;
    }
}

#[test]
fn a_cluster_waiting_for_a_peer_multicast_never_sent_names_ctas_roles_and_barriers() {
    let x = || Global::zeros(&[64, 16]);
    let both = runtime_mask::Args { x: x(), mask_of_rank: [0b11, 0b11] };
    emu::run::<runtime_mask::Kernel>(Grid::new(2, 1, 1), &both).expect("multicast to both CTAs finishes");
    let own = runtime_mask::Args { x: x(), mask_of_rank: [0b01, 0b10] };
    let start = Instant::now();
    let err = emu::run::<runtime_mask::Kernel>(Grid::new(2, 1, 1), &own).unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(5), "the deadlock must be reported promptly");
    let EmuError::Deadlock(deadlock) = &err else { panic!("expected a deadlock, got {err}") };
    assert_eq!(deadlock.kernel, "runtime_mask");
    let text = err.to_string();
    assert!(text.contains("deadlock in kernel `runtime_mask`, the cluster of CTA [0, 0, 0]"), "{text}");
    // Each CTA's consumer waits on its own `full` barrier with the peer's half outstanding.
    for rank in 0..2 {
        let math = deadlock
            .blocked
            .iter()
            .find(|b| b.role == "math" && b.cta == Some(rank))
            .unwrap_or_else(|| panic!("CTA rank {rank}'s `math` is blocked: {text}"));
        assert_eq!(math.barrier(), "`Data.full[0]`", "{text}");
        let waiting = math.waiting_for();
        assert!(waiting.contains("2048 transaction bytes outstanding"), "{waiting}");
        assert!(text.contains(&format!("CTA rank {rank}, warps 1-4 (`math` #0) waits on `Data.full[0]`")), "{text}");
    }
}
