//! mlc-ai/TIRx-kernels pull request #42: in FlashMLA, warp 0 publishes each phase of the
//! `tQ`-full mbarrier while all four warps of warpgroup 0 consume it; under task stealing,
//! warp 0 could publish the next phase before a lagging warp had observed the previous
//! parity, so the lagging warp waited on a parity that had moved on. The fix adds a
//! `consumed` mbarrier that each consuming warp arrives on, and warp 0 waits for that
//! consumption before republishing. (The kernel's pair of CTAs is left out: one CTA shows
//! the mechanism.)
//!
//! Re-enacted: warp 0 of a four-warp role publishes `TqFull` (count 1) each task; all four
//! warps wait on it. Buggy twin (fixed twin: `tests/corpus/tirx_kernels_42.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub tasks: usize,
    }

    #[barrier(arrive = [wg0], wait = [wg0], count = 1)]
    pub struct TqFull;

    #[role(warps = 4, regs = 128)]
    pub async fn wg0(cx: &Ctx<'_, Args>, publish: Arriver<'_, TqFull>, tq: Waiter<'_, TqFull>) {
        let mut phase = 0;
        for _ in 0..cx.args().tasks {
            if cx.instance() == 0 {
                publish.arrive(0);
            }
            tq.wait(0, phase).await;
            phase ^= 1;
        }
    }
}

fn main() {}
