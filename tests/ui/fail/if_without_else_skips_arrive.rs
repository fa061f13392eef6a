// The arrive sits in an `if` without `else`: when the condition is false nothing arrives,
// and the consumer waits forever.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub publish: bool,
    }

    #[barrier(arrive = [producer], wait = [consumer])]
    pub struct Ready;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, ready: Arriver<'_, Ready>) {
        if cx.args().publish {
            ready.arrive(0);
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(_cx: &Ctx<'_, Args>, ready: Waiter<'_, Ready>) {
        ready.wait(0, 0).await;
    }
}

fn main() {}
