// The fixed twin of `fail/empty_work_peeled_first_wait.rs`: the peeled first K step runs only
// when there is K work, so an empty K split waits for nothing.
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
        if cx.args().k_tiles > 0 {
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
}

fn main() {}
