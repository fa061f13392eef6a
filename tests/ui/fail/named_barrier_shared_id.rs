// Two named barriers use hardware id 1 (`Second` asks for it, `First` has it by default):
// their arrivals would count toward one barrier.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    #[named_barrier(roles = [group], threads = 256)]
    pub struct First;

    #[named_barrier(roles = [group], threads = 256, id = 1)]
    pub struct Second;

    #[role(warpgroups = 2, regs = 240)]
    pub async fn group(_cx: &Ctx<'_, ()>, first: Named<'_, First>, second: Named<'_, Second>) {
        first.sync().await;
        second.sync().await;
    }
}

fn main() {}
