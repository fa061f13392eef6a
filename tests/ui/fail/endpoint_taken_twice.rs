// A role takes the consumer end of one pipeline twice: each keeps its own ring position, so
// both would wait on the same stages.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<f32>,
    }

    #[shared]
    pub struct Smem {
        buf: Ring<Tile<f32, 64, 16>, 2>,
    }

    #[pipeline(tma, producer = load, consumer = math, guards = [buf])]
    pub struct Data;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, data: Producer<'_, Data>) {
        for _ in 0..2 {
            let slot = data.acquire().await;
            cx.tma_load(&cx.args().x, &[0, 0], slot.buf(), &slot);
            data.commit(slot);
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, even: Consumer<'_, Data>, odd: Consumer<'_, Data>) {
        let first = even.wait().await;
        let second = odd.wait().await;
        let tile = cx.load(second.buf());
        even.release(first);
        odd.release(second);
        cx.store_global(&tile, &cx.args().x, &[0, 0]);
    }
}

fn main() {}
