//! The emulator as a sanitizer for thread-block clusters: an arrival on a peer CTA's barrier
//! that no instance of the peer waits for before it finishes. On the GPU the peer may have
//! exited, and released its shared memory, when the arrival lands; the emulator keeps every
//! CTA of the cluster to the end, so it reports the order instead (the vector clocks of its
//! race detector). `#[kernel(unchecked)]` keeps the compile-time check (WS0026) out of the
//! way, as code the macro cannot see would.

use warpspec::Grid;
use warpspec::emu::{self, EmuError, EmuOptions, ViolationKind};
use warpspec::prelude::*;

/// Each CTA's consumer releases every stage to both CTAs; `exit_barrier` says whether the
/// roles end with the cluster barrier.
#[warpspec::kernel(cluster = [2, 1, 1], unchecked)]
mod release_to_peer {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
        pub steps: usize,
        pub exit_barrier: bool,
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
        cx.cluster_sync().await;
        for _ in 0..cx.args().steps {
            let slot = data.acquire().await;
            cx.tma_load_multicast(&cx.args().x, &[rank * 32, 0], slot.buf().rows::<32>(rank * 32), &slot, 0b11);
            data.commit(slot);
        }
        if cx.args().exit_barrier {
            cx.cluster_sync().await;
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        cx.cluster_sync().await;
        for _ in 0..cx.args().steps {
            let full = data.wait().await;
            data.release_cluster(full, 0b11); // @release
        }
        if cx.args().exit_barrier {
            cx.cluster_sync().await;
        }
    }
}

#[test]
fn a_release_no_instance_of_the_peer_waits_for_is_reported() {
    let x = || Global::from_f32(&[64, 16], &vec![1.0; 64 * 16]).unwrap_or_else(|| panic!("x"));
    for steps in [1, 3] {
        let fixed = release_to_peer::Args { x: x(), steps, exit_barrier: true };
        emu::run_with::<release_to_peer::Kernel>(Grid::new(2, 1, 1), &fixed, &EmuOptions::checked())
            .unwrap_or_else(|e| panic!("with the exit barrier: {e}"));
        let buggy = release_to_peer::Args { x: x(), steps, exit_barrier: false };
        let err = emu::run_with::<release_to_peer::Kernel>(Grid::new(2, 1, 1), &buggy, &EmuOptions::checked())
            .expect_err("a release onto a peer that may have exited");
        let EmuError::Violation(v) = &err else { panic!("expected a violation, got {err}") };
        let ViolationKind::PeerMayHaveExited { barrier, at } = &v.kind else { panic!("got {err}") };
        assert_eq!(barrier.name, "Data.empty", "{err}");
        let line = include_str!("sanitizer_cluster.rs").lines().position(|l| l.ends_with("// @release"));
        assert_eq!(at.map(|a| a.line() as usize), line.map(|l| l + 1), "{err}");
        assert!(err.to_string().contains("cx.cluster_sync()"), "{err}");
    }
}
