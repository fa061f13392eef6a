// `workers` has 4 warps; the barrier counts one arrival per phase, so only warp 0 arrives,
// after the 4 warps met on a named barrier. The named barrier orders every warp's work
// before the leader's arrive.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub steps: usize,
    }

    #[barrier(arrive = [workers], wait = [sink], count = 1)]
    pub struct Done;

    #[barrier(arrive = [sink], wait = [workers], count = 1)]
    pub struct Go;

    #[named_barrier(roles = [workers], threads = 128)]
    pub struct Meet;

    #[role(warps = 4, regs = 40)]
    pub async fn workers(cx: &Ctx<'_, Args>, done: Arriver<'_, Done>, go: Waiter<'_, Go>, meet: Named<'_, Meet>) {
        for step in 0..cx.args().steps {
            go.wait(0, (step & 1) as u32).await;
            meet.sync().await;
            if cx.instance() == 0 {
                done.arrive(0);
            }
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn sink(cx: &Ctx<'_, Args>, done: Waiter<'_, Done>, go: Arriver<'_, Go>) {
        for step in 0..cx.args().steps {
            go.arrive(0);
            done.wait(0, (step & 1) as u32).await;
        }
    }
}

fn main() {}
