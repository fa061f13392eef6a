// The consumer never flips its parity: from the second step on its wait passes at once on
// the phase it already saw.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    pub const STEPS: usize = 3;

    #[barrier(arrive = [producer], wait = [consumer])]
    pub struct Full;

    #[barrier(arrive = [consumer], wait = [producer])]
    pub struct Empty;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(_cx: &Ctx<'_, ()>, full: Arriver<'_, Full>, empty: Waiter<'_, Empty>) {
        let mut phase = 1;
        for _ in 0..STEPS {
            empty.wait(0, phase).await;
            phase ^= 1;
            full.arrive(0);
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(_cx: &Ctx<'_, ()>, full: Waiter<'_, Full>, empty: Arriver<'_, Empty>) {
        for _ in 0..STEPS {
            full.wait(0, 0).await;
            empty.arrive(0);
        }
    }
}

fn main() {}
