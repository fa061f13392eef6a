// A raw two-stage ring drained by both warps of `math`: `Empty` counts one arrival per warp
// (its default), `Full` one per producer; stage and parity come from the step number.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    pub const STAGES: usize = 2;

    #[params]
    pub struct Args {
        pub steps: usize,
    }

    #[barrier(arrive = [load], wait = [math], len = STAGES)]
    pub struct Full;

    #[barrier(arrive = [math], wait = [load], len = STAGES)]
    pub struct Empty;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, full: Arriver<'_, Full>, empty: Waiter<'_, Empty>) {
        for step in 0..cx.args().steps {
            let (stage, lap) = (step % STAGES, (step / STAGES) as u32);
            empty.wait(stage, (lap & 1) ^ 1).await;
            full.arrive(stage);
        }
    }

    #[role(warps = 2, regs = 40)]
    pub async fn math(cx: &Ctx<'_, Args>, full: Waiter<'_, Full>, empty: Arriver<'_, Empty>) {
        let mut step = 0;
        while step < cx.args().steps {
            let (stage, lap) = (step % STAGES, (step / STAGES) as u32);
            full.wait(stage, lap & 1).await;
            empty.arrive(stage);
            step += 1;
        }
    }
}

fn main() {}
