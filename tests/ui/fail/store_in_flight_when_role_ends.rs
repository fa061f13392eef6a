// The epilogue ends with its TMA store still reading `out`: once the CTA's roles have ended,
// its shared memory may go to the next CTA while the copy reads it.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub c: Global<f32>,
    }

    #[shared]
    pub struct Smem {
        out: Tile<f32, 64, 16>,
    }

    #[role(warps = 1, regs = 40)]
    pub async fn epilogue(cx: &Ctx<'_, Args>, out: &Tile<f32, 64, 16>) {
        let acc = cx.fragment::<64, 16>(1.0);
        cx.store(&acc, out);
        let _store = cx.tma_store(out, &cx.args().c, &[0, 0]);
    }
}

fn main() {}
