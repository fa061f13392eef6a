// Conditional rescaling written wrongly: the arrive that lets the MMA go on sits inside the
// data-dependent branch, so when the vote finds nothing to rescale nobody arrives and the
// waiter never wakes. (Both arms must arrive; only the rescale itself may be skipped.)
#[warpspec::kernel]
mod k {
    use warpspec::dsl::Assume;
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub rate: f32,
    }

    #[shared]
    pub struct Smem {
        stats: Tile<f32, 128, 1>,
    }

    #[barrier(arrive = [correction], wait = [mma])]
    pub struct Rescaled;

    #[role(warpgroups = 1, regs = 80)]
    pub async fn correction(cx: &Ctx<'_, Args>, rescaled: Arriver<'_, Rescaled>, stats: &Tile<f32, 128, 1>) {
        let factor = cx.load_rows(stats);
        if cx.rows_any_below(&factor, 1.0, Assume::rate(cx.args().rate, 0)) {
            rescaled.arrive(0);
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn mma(_cx: &Ctx<'_, Args>, rescaled: Waiter<'_, Rescaled>) {
        rescaled.wait(0, 0).await;
    }
}

fn main() {}
