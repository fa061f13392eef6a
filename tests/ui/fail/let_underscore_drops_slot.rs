// `let _ = ..` drops the full slot at once: it is never released.
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
        let slot = data.acquire().await;
        cx.tma_load(&cx.args().x, &[0, 0], slot.buf(), &slot);
        data.commit(slot);
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(_cx: &Ctx<'_, Args>, data: Consumer<'_, Data>) {
        let _ = data.wait().await;
    }
}

fn main() {}
