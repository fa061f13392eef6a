// Warpgroup 1 rewrites the unguarded shared tile `w` with a plain `store` right after the
// two warpgroups meet, while warpgroup 0's `wgmma`, issued after the meeting, may still read
// it: nothing orders the store after the MMA's completion.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub out: Global<f32>,
    }

    #[shared]
    pub struct Smem {
        w: Tile<bf16, 64, 64>,
    }

    #[named_barrier(roles = [group], threads = 256)]
    pub struct Meet;

    #[role(warpgroups = 2, regs = 232)]
    pub async fn group(cx: &Ctx<'_, Args>, meet: Named<'_, Meet>, w: &Tile<bf16, 64, 64>) {
        let mut acc = cx.fragment::<64, 64>(0.0);
        if cx.instance() == 0 {
            meet.sync().await;
            let g = cx.wgmma(&mut acc, w, w.t());
            cx.mma_wait(g, 0).await;
        } else {
            meet.sync().await;
            let fresh = cx.fragment::<64, 64>(1.0);
            cx.store(&fresh, w);
        }
        cx.store_global(&acc, &cx.args().out, &[0, 0]);
    }
}

fn main() {}
