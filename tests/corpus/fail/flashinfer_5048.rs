//! flashinfer-ai/flashinfer pull request #5048 (fixes #5001): the SM120 sparse-MLA swapAB
//! prefill kernel runs four IO warps, but only the first `BI` IO threads gather; the others
//! do no work and no barrier counts them, yet they still wait on the pipeline's mbarrier every
//! tile. The phases advance without them, so a spectator warp that falls a full phase behind
//! waits on a parity that never completes again (an intermittent hang). The fix retires the
//! spectator threads before the pipeline loop.
//!
//! Re-enacted: two of the four IO warps gather (arrive on `Full`, count 2); all four wait on
//! `Empty`, which only the math warpgroup's releases complete. Buggy twin (fixed twin:
//! `tests/corpus/flashinfer_5048.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub tiles: usize,
    }

    #[barrier(arrive = [io], wait = [math], count = 2)]
    pub struct Full;

    #[barrier(arrive = [math], wait = [io])]
    pub struct Empty;

    #[role(warps = 4, regs = 40)]
    pub async fn io(cx: &Ctx<'_, Args>, full: Arriver<'_, Full>, empty: Waiter<'_, Empty>) {
        let mut phase = 1;
        for _ in 0..cx.args().tiles {
            empty.wait(0, phase).await;
            phase ^= 1;
            if cx.instance() < 2 {
                full.arrive(0);
            }
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, full: Waiter<'_, Full>, empty: Arriver<'_, Empty>) {
        let mut phase = 0;
        for _ in 0..cx.args().tiles {
            full.wait(0, phase).await;
            phase ^= 1;
            empty.arrive(0);
        }
    }
}

fn main() {}
