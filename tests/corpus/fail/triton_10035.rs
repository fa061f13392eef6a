//! triton-lang/triton pull request #10035: an mbarrier arrive of a warp-specialized partition
//! is executed by its leader warp. In a ring between two partitions, the consumer's leader
//! warp could leave its wait on `ready[k]`, mark the buffer consumed on `empty[k]` and loop
//! on before the partition's other warps had finished waiting; the producer then refilled
//! the buffer and completed `ready[k]`'s next phase, and the lagging warps waited on a parity
//! that had moved on: the partitions deadlocked. The fix emits a barrier of the partition's
//! warps before every mbarrier arrive.
//!
//! Re-enacted: a one-stage ring between a producer warp and a four-warp consumer whose warp 0
//! alone arrives on `Empty`. Buggy twin (fixed twin: `tests/corpus/triton_10035.rs`, where
//! the consumer's warps meet on a named barrier before the leader arrives).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub k: usize,
    }

    #[barrier(arrive = [producer], wait = [consumer])]
    pub struct Ready;

    #[barrier(arrive = [consumer], wait = [producer], count = 1)]
    pub struct Empty;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, ready: Arriver<'_, Ready>, empty: Waiter<'_, Empty>) {
        let mut phase = 1;
        for _ in 0..cx.args().k {
            empty.wait(0, phase).await;
            phase ^= 1;
            ready.arrive(0);
        }
    }

    #[role(warps = 4, regs = 40)]
    pub async fn consumer(cx: &Ctx<'_, Args>, ready: Waiter<'_, Ready>, empty: Arriver<'_, Empty>) {
        let mut phase = 0;
        for _ in 0..cx.args().k {
            ready.wait(0, phase).await;
            phase ^= 1;
            if cx.instance() == 0 {
                empty.arrive(0);
            }
        }
    }
}

fn main() {}
