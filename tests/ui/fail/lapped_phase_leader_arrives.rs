// Warp 0 of `workers` arrives on `Step` (count 1) and both warps then wait for the phase:
// warp 0 can run ahead and arrive again before warp 1 has seen the phase, which laps it.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub steps: usize,
    }

    #[barrier(arrive = [workers], wait = [workers], count = 1)]
    pub struct Step;

    #[role(warps = 2, regs = 40)]
    pub async fn workers(cx: &Ctx<'_, Args>, arrive: Arriver<'_, Step>, wait: Waiter<'_, Step>) {
        let mut phase = 0;
        for _ in 0..cx.args().steps {
            if cx.instance() == 0 {
                arrive.arrive(0);
            }
            wait.wait(0, phase).await;
            phase ^= 1;
        }
    }
}

fn main() {}
