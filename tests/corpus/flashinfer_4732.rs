//! flashinfer-ai/flashinfer pull request #4732 (closes #3700): SM120 sparse-MLA prefill used
//! CTA barrier 1 (384 threads) as an asymmetric handshake: the 256 math threads
//! `barrier.cta.arrive` when done with a tile, the 128 IO threads `barrier.cta.sync` before
//! reusing its buffer. Because the IO warps gather tile `ti + 1` before syncing for `ti`, the
//! math warps could arrive for `ti`, run `ti + 1` and arrive again before the IO warps synced
//! for `ti`: the surplus arrival completed a use without the IO threads, and a later use
//! starved (a hang on GB10). The fix alternates the handshake between ids 1 and 5 by tile
//! parity, so a run-ahead arrival lands on the other barrier.
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/flashinfer_4732.rs`.

/// The fixed twin: the handshake alternates between ids 1 and 5 by tile parity.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub tiles: usize,
    }

    #[barrier(arrive = [io], wait = [math], len = 2)]
    pub struct KvReady;

    #[named_barrier(roles = [io, math], threads = 384, id = 1)]
    pub struct HandshakeEven;

    #[named_barrier(roles = [io, math], threads = 384, id = 5)]
    pub struct HandshakeOdd;

    #[role(warpgroups = 1, regs = 40)]
    pub async fn io(
        cx: &Ctx<'_, Args>,
        kv: Arriver<'_, KvReady>,
        even: Named<'_, HandshakeEven>,
        odd: Named<'_, HandshakeOdd>,
    ) {
        let n = cx.args().tiles;
        if n > 0 {
            kv.arrive(0);
        }
        for ti in 0..n {
            if ti + 1 < n {
                kv.arrive((ti + 1) & 1);
            }
            if ti & 1 == 0 {
                even.sync().await;
            } else {
                odd.sync().await;
            }
        }
    }

    #[role(warpgroups = 2, regs = 232)]
    pub async fn math(
        cx: &Ctx<'_, Args>,
        kv: Waiter<'_, KvReady>,
        even: Named<'_, HandshakeEven>,
        odd: Named<'_, HandshakeOdd>,
    ) {
        for ti in 0..cx.args().tiles {
            kv.wait(ti & 1, ((ti >> 1) & 1) as u32).await;
            if ti & 1 == 0 {
                even.arrive();
            } else {
                odd.arrive();
            }
        }
    }
}
