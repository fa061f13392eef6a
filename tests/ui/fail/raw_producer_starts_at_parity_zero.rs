// A producer waits on its `Empty` barrier for parity 0 on the first lap: phase 0 of `Empty`
// needs the consumer's arrival, and the consumer waits for the producer. A producer waiting
// for buffers that start free must begin at parity 1.
#[warpspec::kernel]
mod k {
    use warpspec::prelude::*;

    pub const STEPS: usize = 4;

    #[barrier(arrive = [producer], wait = [consumer])]
    pub struct Full;

    #[barrier(arrive = [consumer], wait = [producer])]
    pub struct Empty;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(_cx: &Ctx<'_, ()>, full: Arriver<'_, Full>, empty: Waiter<'_, Empty>) {
        for k in 0..STEPS {
            empty.wait(0, (k & 1) as u32).await;
            full.arrive(0);
        }
    }

    #[role(warps = 1, regs = 40)]
    pub async fn consumer(_cx: &Ctx<'_, ()>, full: Waiter<'_, Full>, empty: Arriver<'_, Empty>) {
        for k in 0..STEPS {
            full.wait(0, (k & 1) as u32).await;
            empty.arrive(0);
        }
    }
}

fn main() {}
