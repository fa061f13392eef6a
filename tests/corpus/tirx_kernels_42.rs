//! mlc-ai/TIRx-kernels pull request #42: in FlashMLA, warp 0 publishes each phase of the
//! `tQ`-full mbarrier while all four warps of warpgroup 0 consume it; under task stealing,
//! warp 0 could publish the next phase before a lagging warp had observed the previous
//! parity, so the lagging warp waited on a parity that had moved on. The fix adds a
//! `consumed` mbarrier that each consuming warp arrives on, and warp 0 waits for that
//! consumption before republishing. (The kernel's pair of CTAs is left out: one CTA shows
//! the mechanism.)
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/tirx_kernels_42.rs`.

/// The fixed twin: every consuming warp arrives on `Consumed`; warp 0 waits for it before republishing.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub tasks: usize,
    }

    #[barrier(arrive = [wg0], wait = [wg0], count = 1)]
    pub struct TqFull;

    #[barrier(arrive = [wg0], wait = [wg0])]
    pub struct Consumed;

    #[role(warps = 4, regs = 128)]
    pub async fn wg0(
        cx: &Ctx<'_, Args>,
        publish: Arriver<'_, TqFull>,
        tq: Waiter<'_, TqFull>,
        consume: Arriver<'_, Consumed>,
        consumed: Waiter<'_, Consumed>,
    ) {
        let mut phase = 0;
        for t in 0..cx.args().tasks {
            if cx.instance() == 0 {
                if t > 0 {
                    consumed.wait(0, ((t - 1) & 1) as u32).await;
                }
                publish.arrive(0);
            }
            tq.wait(0, phase).await;
            phase ^= 1;
            consume.arrive(0);
        }
    }
}
