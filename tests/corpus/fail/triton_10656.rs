//! triton-lang/triton pull request #10656 (and its release cherry-pick #11731;
//! facebookexperimental/triton #1105 for the same mechanism in TLX): a multi-CTA kernel
//! returned without a terminal cluster barrier, so one CTA of a cluster could exit while a
//! peer still accessed its shared memory through a `shared::cluster` address (#11731: an
//! unspecified launch failure on sm_120; #1105: CUDA_EXCEPTION_17, "cluster target block not
//! present"). The fix inserts a cluster barrier before every return of a multi-CTA kernel.
//! (There the late access was a read of the peer's shared memory; here it is the other
//! access the DSL has to a peer: each CTA's consumer releases every stage on the `empty`
//! barriers of both CTAs, as multicast GEMMs do, and no producer waits for the last round's
//! releases.)
//!
//! This is the buggy twin; the fixed twin is `tests/corpus/triton_10656.rs`. The roles end
//! after their last release, with no cluster barrier between it and the exit.

/// The buggy twin: the cluster barrier only publishes the initialised barriers; a CTA may exit
/// while its peer still releases the last stages on it.
#[warpspec::kernel(cluster = [2, 1, 1])]
pub mod buggy {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
        pub steps: usize,
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
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        cx.cluster_sync().await;
        for _ in 0..cx.args().steps {
            let full = data.wait().await;
            data.release_cluster(full, 0b11);
        }
    }
}

fn main() {}
