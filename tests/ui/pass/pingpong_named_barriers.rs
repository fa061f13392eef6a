// Two consumer warpgroups take turns issuing their MMAs (FlashAttention-3's ping-pong):
// warpgroup 0 syncs on `Wg0Turn` and hands over on `Wg1Turn`, warpgroup 1 the other way;
// warpgroup 1 lets 0 go first and keeps its last turn. Each use has 128 threads syncing
// and 128 arriving.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<bf16>,
    }

    #[shared]
    pub struct Smem {
        k: Ring<Tile<bf16, 64, 64>, 2>,
    }

    #[pipeline(tma, producer = load, consumer = math, guards = [k])]
    pub struct Keys;

    #[named_barrier(roles = [math], threads = 256)]
    pub struct Wg0Turn;

    #[named_barrier(roles = [math], threads = 256)]
    pub struct Wg1Turn;

    /// Waits for this warpgroup's turn.
    async fn take_turn(wg: usize, wg0: &Named<'_, Wg0Turn>, wg1: &Named<'_, Wg1Turn>) {
        if wg == 0 { wg0.sync().await } else { wg1.sync().await }
    }

    /// Hands the turn to the other warpgroup.
    fn pass_turn(wg: usize, last: bool, wg0: &Named<'_, Wg0Turn>, wg1: &Named<'_, Wg1Turn>) {
        if wg == 0 {
            wg1.arrive();
        } else if !last {
            wg0.arrive();
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, keys: Producer<'_, Keys>) {
        for j in 0..cx.args().x.shape()[0] {
            let slot = keys.acquire().await;
            cx.tma_load(&cx.args().x, &[j, 0], slot.k(), &slot);
            keys.commit(slot);
        }
    }

    #[role(warpgroups = 2, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, keys: Consumer<'_, Keys>, wg0: Named<'_, Wg0Turn>, wg1: Named<'_, Wg1Turn>) {
        let wg = cx.instance();
        let steps = cx.args().x.shape()[0];
        if wg == 1 {
            wg0.arrive();
        }
        let mut s = cx.fragment::<64, 64>(0.0);
        for j in 0..steps {
            let key = keys.wait().await;
            take_turn(wg, &wg0, &wg1).await;
            let mma = cx.wgmma(&mut s, key.k(), key.k().t());
            pass_turn(wg, j + 1 == steps, &wg0, &wg1);
            cx.mma_wait(mma, 0).await;
            keys.release(key);
        }
    }
}

fn main() {}
