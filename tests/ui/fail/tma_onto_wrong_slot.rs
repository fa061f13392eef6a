// The producer loads the tile of its `Keys` slot but completes the bytes on its `Values`
// slot: `Keys.full` never gets them.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub x: Global<bf16>,
    }

    #[shared]
    pub struct Smem {
        k: Ring<Tile<bf16, 64, 64>, 2>,
        v: Ring<Tile<bf16, 64, 64>, 2>,
    }

    #[pipeline(tma, producer = load, consumer = math, guards = [k])]
    pub struct Keys;

    #[pipeline(tma, producer = load, consumer = math, guards = [v])]
    pub struct Values;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, keys: Producer<'_, Keys>, values: Producer<'_, Values>) {
        let key = keys.acquire().await;
        let value = values.acquire().await;
        cx.tma_load(&cx.args().x, &[0, 0], key.k(), &value);
        cx.tma_load(&cx.args().x, &[0, 0], value.v(), &value);
        keys.commit(key);
        values.commit(value);
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn math(cx: &Ctx<'_, Args>, keys: Consumer<'_, Keys>, values: Consumer<'_, Values>) {
        let key = keys.wait().await;
        let value = values.wait().await;
        let mut acc = cx.fragment::<64, 64>(0.0);
        let mma = cx.wgmma(&mut acc, key.k(), value.v());
        cx.mma_wait(mma, 0).await;
        keys.release(key);
        values.release(value);
    }
}

fn main() {}
