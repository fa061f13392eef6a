// Each of the 4 warps of `workers` arrives once per step, but the barrier completes a phase
// after 1 arrival: phases complete before every warp is done.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub steps: usize,
    }

    #[barrier(arrive = [workers], wait = [sink], count = 1)]
    pub struct Done;

    #[role(warps = 4, regs = 40)]
    pub async fn workers(cx: &Ctx<'_, Args>, done: Arriver<'_, Done>) {
        for _ in 0..cx.args().steps {
            done.arrive(0);
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn sink(cx: &Ctx<'_, Args>, done: Waiter<'_, Done>) {
        for step in 0..cx.args().steps {
            done.wait(0, (step & 1) as u32).await;
        }
    }
}

fn main() {}
