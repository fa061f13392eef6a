// The barrier is declared with 2 arrivals per phase, but its only arriving role is one warp
// that arrives once per step.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[barrier(arrive = [producer], wait = [consumer], count = 2)]
    pub struct Ready;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(_cx: &Ctx<'_, ()>, ready: Arriver<'_, Ready>) {
        ready.arrive(0);
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(_cx: &Ctx<'_, ()>, ready: Waiter<'_, Ready>) {
        ready.wait(0, 0).await;
    }
}

fn main() {}
