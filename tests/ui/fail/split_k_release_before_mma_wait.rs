// Split-K: the K loop runs over `k_start..k_start + k_count`, a range between two run-time
// values. Its body releases the slot while the `wgmma` reading it may still run; the check
// must see the body (the range is not empty in every run).
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<bf16>,
        pub k_count: usize,
    }

    #[shared]
    pub struct Smem {
        a: Ring<Tile<bf16, 64, 64>, 2>,
    }

    #[pipeline(tma, producer = load, consumer = math, guards = [a])]
    pub struct Data;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, data: Producer<'_, Data>) {
        let k_start = cx.block()[2] * cx.args().k_count;
        for k in k_start..k_start + cx.args().k_count {
            let slot = data.acquire().await;
            cx.tma_load(&cx.args().x, &[0, k * 64], slot.a(), &slot);
            data.commit(slot);
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        let k_start = cx.block()[2] * cx.args().k_count;
        let mut acc = cx.fragment(0.0);
        for _k in k_start..k_start + cx.args().k_count {
            let full = data.wait().await;
            let g = cx.wgmma(&mut acc, full.a(), full.a().t());
            data.release(full);
            cx.mma_wait(g, 0).await;
        }
        cx.store_global(&acc, &cx.args().x, &[0, 0]);
    }
}

fn main() {}
