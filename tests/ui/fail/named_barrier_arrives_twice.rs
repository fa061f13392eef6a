// Warpgroup 1 arrives on `Meet` twice in a row while warpgroup 0 syncs twice: nothing makes
// the second arrive wait for the first use to complete, so in some schedule both arrivals
// count toward the first use, which completes without warpgroup 0.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[named_barrier(roles = [group], threads = 256)]
    pub struct Meet;

    #[role(warpgroups = 2, regs = 240)]
    pub async fn group(cx: &Ctx<'_, ()>, meet: Named<'_, Meet>) {
        if cx.instance() == 1 {
            meet.arrive();
            meet.arrive();
        } else {
            meet.sync().await;
            meet.sync().await;
        }
    }
}

fn main() {}
