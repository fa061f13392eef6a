// The barrier counts one arrival per instance of `producer` (2 warps), but only instance 0
// arrives.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[barrier(arrive = [producer], wait = [consumer])]
    pub struct Ready;

    #[role(warps = 2, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, ()>, ready: Arriver<'_, Ready>) {
        if cx.instance() == 0 {
            ready.arrive(0);
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(_cx: &Ctx<'_, ()>, ready: Waiter<'_, Ready>) {
        ready.wait(0, 0).await;
    }
}

fn main() {}
