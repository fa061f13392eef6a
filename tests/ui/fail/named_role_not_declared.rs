// `loader` syncs on `Meet`, which is declared for `group` only.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[named_barrier(roles = [group], threads = 256)]
    pub struct Meet;

    #[role(warpgroups = 2, regs = 232)]
    pub async fn group(_cx: &Ctx<'_, ()>, meet: Named<'_, Meet>) {
        meet.sync().await;
    }

    #[role(warps = 1, regs = 40)]
    pub async fn loader(_cx: &Ctx<'_, ()>, meet: Named<'_, Meet>) {
        meet.sync().await;
    }
}

fn main() {}
