// When `args.skip` is set the producer returns before arriving, but the consumer waits for
// that arrival unconditionally.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub skip: bool,
    }

    #[barrier(arrive = [producer], wait = [consumer])]
    pub struct Ready;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, ready: Arriver<'_, Ready>) {
        if cx.args().skip {
            return;
        }
        ready.arrive(0);
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(_cx: &Ctx<'_, Args>, ready: Waiter<'_, Ready>) {
        ready.wait(0, 0).await;
    }
}

fn main() {}
