// Empty work: warpgroup 1 hands warpgroup 0 the first turn with a `bar.arrive`, and learns
// that the turn was taken from `Step`, which warpgroup 0 arrives on only when there are
// tiles. With no tiles (a CTA past the end of the problem) it waits for nothing between its
// two arrivals, so both can count toward one use of `Turn`, which then completes without
// warpgroup 0.
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
            if cx.args().tiles > 0 {
                step.arrive(0);
            }
            turn.sync().await;
        } else {
            turn.arrive();
            if cx.args().tiles > 0 {
                stepped.wait(0, 0).await;
            }
            turn.arrive();
        }
    }
}

fn main() {}
