// When `args.stop` is set the producer leaves its loop early, skipping the arrivals the
// consumer waits for in every round.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub rounds: usize,
        pub stop: bool,
    }

    #[barrier(arrive = [producer], wait = [consumer])]
    pub struct Ready;

    #[barrier(arrive = [consumer], wait = [producer])]
    pub struct Done;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, ready: Arriver<'_, Ready>, done: Waiter<'_, Done>) {
        for round in 0..cx.args().rounds {
            if cx.args().stop {
                break;
            }
            ready.arrive(0);
            done.wait(0, (round & 1) as u32).await;
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(cx: &Ctx<'_, Args>, ready: Waiter<'_, Ready>, done: Arriver<'_, Done>) {
        for round in 0..cx.args().rounds {
            ready.wait(0, (round & 1) as u32).await;
            done.arrive(0);
        }
    }
}

fn main() {}
