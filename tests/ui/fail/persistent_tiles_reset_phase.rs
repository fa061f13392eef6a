// A persistent consumer resets its parity for each tile while the barrier's phases go on:
// with an odd number of K steps per tile, the second tile's first wait is for a parity the
// barrier already showed. The fix is to carry the position across tiles, not `phase ^= 1`.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    const TILES: usize = 2;
    const STEPS: usize = 3;

    #[barrier(arrive = [producer], wait = [consumer])]
    pub struct Full;

    #[barrier(arrive = [consumer], wait = [producer])]
    pub struct Empty;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(_cx: &Ctx<'_, ()>, full: Arriver<'_, Full>, empty: Waiter<'_, Empty>) {
        let mut phase = 1;
        for _ in 0..TILES * STEPS {
            empty.wait(0, phase).await;
            phase ^= 1;
            full.arrive(0);
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(_cx: &Ctx<'_, ()>, full: Waiter<'_, Full>, empty: Arriver<'_, Empty>) {
        for _ in 0..TILES {
            let mut phase = 0;
            for _ in 0..STEPS {
                full.wait(0, phase).await;
                phase ^= 1;
                empty.arrive(0);
            }
        }
    }
}

fn main() {}
