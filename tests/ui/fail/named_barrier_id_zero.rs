// Id 0 is the CTA-wide barrier of `__syncthreads`; named barriers use 1..=15.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[named_barrier(roles = [group], threads = 256, id = 0)]
    pub struct Meet;

    #[role(warpgroups = 2, regs = 240)]
    pub async fn group(_cx: &Ctx<'_, ()>, meet: Named<'_, Meet>) {
        meet.sync().await;
    }
}

fn main() {}
