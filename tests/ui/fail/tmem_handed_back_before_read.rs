// `softmax` hands the tensor-memory tile `s` back to the MMA warp (`s_empty.arrive`) before
// it reads it (`tmem_load`): the next `tcgen05.mma` may overwrite `s` under the read. The
// fixed twin is `pass/mma_completion_release.rs`.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<bf16>,
        pub out: Global<f32>,
    }

    #[shared]
    pub struct Smem {
        a: Ring<Tile<bf16, 128, 64>, 2>,
        s: TmemTile<128, 128>,
    }

    #[pipeline(tma, producer = load, consumer = mma, guards = [a])]
    pub struct Data;

    #[barrier(arrive = [mma], wait = [softmax])]
    pub struct SFull;

    #[barrier(arrive = [softmax], wait = [mma])]
    pub struct SEmpty;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, data: Producer<'_, Data>) {
        for j in 0..cx.args().x.shape()[0].div_ceil(128) {
            let slot = data.acquire().await;
            cx.tma_load(&cx.args().x, &[j * 128, 0], slot.a(), &slot);
            data.commit(slot);
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn mma(
        cx: &Ctx<'_, Args>,
        data: Consumer<'_, Data>,
        s_full: Arriver<'_, SFull>,
        s_empty: Waiter<'_, SEmpty>,
        s: &TmemTile<128, 128>,
    ) {
        for j in 0..cx.args().x.shape()[0].div_ceil(128) {
            let full = data.wait().await;
            s_empty.wait(0, (j as u32 & 1) ^ 1).await;
            cx.umma(s, full.a(), full.a().t(), false);
            s_full.arrive_on_mma_completion(0);
            data.release_on_mma_completion(full);
        }
    }

    #[role(warpgroups = 1, regs = 192)]
    pub async fn softmax(
        cx: &Ctx<'_, Args>,
        s_full: Waiter<'_, SFull>,
        s_empty: Arriver<'_, SEmpty>,
        s: &TmemTile<128, 128>,
    ) {
        for j in 0..cx.args().x.shape()[0].div_ceil(128) {
            s_full.wait(0, j as u32 & 1).await;
            s_empty.arrive(0);
            let mut p = cx.tmem_load(s);
            cx.exp2(&mut p);
            cx.store_global(&p, &cx.args().out, &[j * 128, 0]);
        }
    }
}

fn main() {}
