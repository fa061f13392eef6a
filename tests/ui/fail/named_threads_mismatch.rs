// The named barrier is declared for 128 threads, but both warpgroups of `group` (256
// threads) sync on it: it completes before the second warpgroup arrives.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[named_barrier(roles = [group], threads = 128)]
    pub struct Meet;

    #[role(warpgroups = 2, regs = 240)]
    pub async fn group(_cx: &Ctx<'_, ()>, meet: Named<'_, Meet>) {
        meet.sync().await;
    }
}

fn main() {}
