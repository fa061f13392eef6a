// The consumer waits on stage 1 of a two-stage barrier; the producer only ever arrives on
// stage 0.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[barrier(arrive = [producer], wait = [consumer], len = 2)]
    pub struct Ready;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(_cx: &Ctx<'_, ()>, ready: Arriver<'_, Ready>) {
        ready.arrive(0);
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(_cx: &Ctx<'_, ()>, ready: Waiter<'_, Ready>) {
        ready.wait(1, 0).await;
    }
}

fn main() {}
