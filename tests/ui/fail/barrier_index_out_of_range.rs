// `Ready` is a single barrier (no `len`), so stage 1 does not exist.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[barrier(arrive = [producer], wait = [consumer])]
    pub struct Ready;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(_cx: &Ctx<'_, ()>, ready: Arriver<'_, Ready>) {
        ready.arrive(1);
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(_cx: &Ctx<'_, ()>, ready: Waiter<'_, Ready>) {
        ready.wait(0, 0).await;
    }
}

fn main() {}
