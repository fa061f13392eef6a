// Single-stage Blackwell pattern: the MMA warp commits its `tcgen05.mma` onto `Done`
// (`arrive_on_mma_completion`) and waits on `Done` itself before it releases the operand
// slot: the wait sees the MMA complete, so the plain `release` is not early.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<bf16>,
    }

    #[shared]
    pub struct Smem {
        a: Ring<Tile<bf16, 128, 64>, 1>,
        s: TmemTile<128, 128>,
    }

    #[pipeline(tma, producer = load, consumer = mma, guards = [a])]
    pub struct Data;

    #[barrier(arrive = [mma], wait = [mma])]
    pub struct Done;

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
        done: Arriver<'_, Done>,
        done_wait: Waiter<'_, Done>,
        s: &TmemTile<128, 128>,
    ) {
        for j in 0..cx.args().x.shape()[0].div_ceil(128) {
            let full = data.wait().await;
            cx.umma(s, full.a(), full.a().t(), j > 0);
            done.arrive_on_mma_completion(0);
            done_wait.wait(0, j as u32 & 1).await;
            data.release(full);
        }
    }
}

fn main() {}
