// A single-thread MMA (`tcgen05.mma`) reads the slot asynchronously; releasing it right
// after the issue hands it back too early: use `release_on_mma_completion`.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<bf16>,
    }

    #[shared]
    pub struct Smem {
        a: Ring<Tile<bf16, 128, 64>, 2>,
        s: TmemTile<128, 128>,
    }

    #[pipeline(tma, producer = load, consumer = mma, guards = [a])]
    pub struct Data;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, data: Producer<'_, Data>) {
        let slot = data.acquire().await;
        cx.tma_load(&cx.args().x, &[0, 0], slot.a(), &slot);
        data.commit(slot);
    }

    #[role(warps = 1, regs = 40)]
    pub async fn mma(cx: &Ctx<'_, Args>, data: Consumer<'_, Data>, s: &TmemTile<128, 128>) {
        let full = data.wait().await;
        cx.umma(s, full.a(), full.a().t(), false);
        data.release(full);
    }
}

fn main() {}
