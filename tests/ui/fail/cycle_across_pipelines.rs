// The producer fills every K block before the Q tile; the consumer needs Q first. With
// more K blocks than the ring has stages, the producer blocks on a K slot the consumer will
// only release after it got Q: a cycle that appears only beyond the stage count.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<bf16>,
    }

    #[shared]
    pub struct Smem {
        q: Tile<bf16, 64, 64>,
        k: Ring<Tile<bf16, 64, 64>, 2>,
    }

    #[pipeline(tma, producer = load, consumer = math, guards = [q])]
    pub struct Query;

    #[pipeline(tma, producer = load, consumer = math, guards = [k])]
    pub struct Keys;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, query: Producer<'_, Query>, keys: Producer<'_, Keys>) {
        let blocks = cx.args().x.shape()[0];
        for j in 0..blocks {
            let slot = keys.acquire().await;
            cx.tma_load(&cx.args().x, &[j, 0], slot.k(), &slot);
            keys.commit(slot);
        }
        let slot = query.acquire().await;
        cx.tma_load(&cx.args().x, &[0, 0], slot.q(), &slot);
        query.commit(slot);
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, query: Consumer<'_, Query>, keys: Consumer<'_, Keys>) {
        let blocks = cx.args().x.shape()[0];
        let q = query.wait().await;
        let mut s = cx.fragment::<64, 64>(0.0);
        for _ in 0..blocks {
            let key = keys.wait().await;
            let mma = cx.wgmma(&mut s, q.q(), key.k().t());
            cx.mma_wait(mma, 0).await;
            keys.release(key);
        }
        query.release(q);
    }
}

fn main() {}
