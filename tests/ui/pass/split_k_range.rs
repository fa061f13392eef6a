// Split-K: the producer loads `k_count` K steps and the consumer iterates the same steps as
// the range `k_start..k_start + k_count` between two run-time values. The range is as long
// as the producer's loop in every run, so the kernel is accepted.
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
        for i in 0..cx.args().k_count {
            let slot = data.acquire().await;
            cx.tma_load(&cx.args().x, &[0, (k_start + i) * 64], slot.a(), &slot);
            data.commit(slot);
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        let k_start = cx.block()[2] * cx.args().k_count;
        let mut acc = cx.fragment(0.0);
        for _k in k_start..k_start + cx.args().k_count {
            let full = data.wait().await;
            acc = cx.load(full.a());
            data.release(full);
        }
        cx.store_global(&acc, &cx.args().x, &[0, 0]);
    }
}

fn main() {}
