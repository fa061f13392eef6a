// Empty work: the consumer peels the first K step out of its loop and waits for it
// unconditionally, but the producer's loop over the run-time K extent loads nothing when the
// extent is 0 (an empty K split): the peeled wait never completes.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<bf16>,
        pub k_tiles: usize,
    }

    #[shared]
    pub struct Smem {
        a: Ring<Tile<bf16, 64, 64>, 2>,
    }

    #[pipeline(tma, producer = load, consumer = math, guards = [a])]
    pub struct Data;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, data: Producer<'_, Data>) {
        for k in 0..cx.args().k_tiles {
            let slot = data.acquire().await;
            cx.tma_load(&cx.args().x, &[0, k * 64], slot.a(), &slot);
            data.commit(slot);
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        let first = data.wait().await;
        let mut acc = cx.load(first.a());
        data.release(first);
        for _ in 1..cx.args().k_tiles {
            let full = data.wait().await;
            acc = cx.load(full.a());
            data.release(full);
        }
        cx.store_global(&acc, &cx.args().x, &[0, 0]);
    }
}

fn main() {}
