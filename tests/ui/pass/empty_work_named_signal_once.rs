// The fixed twin of `fail/empty_work_named_arrives_twice.rs`: warpgroup 0 signals `Step`
// once after taking the first turn, whether or not there are tiles, so warpgroup 1's closing
// arrive always follows a completed use of `Turn`.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub tiles: usize,
    }

    #[named_barrier(roles = [group], threads = 256)]
    pub struct Turn;

    #[barrier(arrive = [group], wait = [group], count = 1)]
    pub struct Step;

    #[role(warpgroups = 2, regs = 240)]
    pub async fn group(cx: &Ctx<'_, Args>, turn: Named<'_, Turn>, step: Arriver<'_, Step>, stepped: Waiter<'_, Step>) {
        if cx.instance() == 0 {
            turn.sync().await;
            step.arrive(0);
            turn.sync().await;
        } else {
            turn.arrive();
            stepped.wait(0, 0).await;
            turn.arrive();
        }
    }
}

fn main() {}
