//! tile-ai/tilelang pull request #3087: a synchronous `T.gemm(mbar=...)` inside
//! `T.Pipelined` waited on its explicit mbarrier with the ring parity
//! `(k / num_stages) % 2`, although that mbarrier is a single slot whose phase flips once per
//! iteration. The wait asked for a parity that had already completed, returned at once, and
//! the next iteration's copies overwrote shared memory the still-running MMA was reading
//! (wrong results at `num_stages >= 3`). The fix waits for the iteration's parity,
//! `(k - min) % 2`.
//!
//! Re-enacted: one warp writes the operand tile, issues a `tcgen05.mma` that commits onto a
//! one-slot barrier, and waits on it with the parity of a three-stage ring. Buggy twin
//! (fixed twin: `tests/corpus/tilelang_3087.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    pub const STAGES: usize = 3;

    #[params]
    pub struct Args {
        pub k_tiles: usize,
    }

    #[shared]
    pub struct Smem {
        a: Tile<bf16, 128, 64>,
        acc: TmemTile<128, 128>,
    }

    #[barrier(arrive = [mma], wait = [mma])]
    pub struct MmaDone;

    #[role(warps = 1, regs = 40)]
    pub async fn mma(
        cx: &Ctx<'_, Args>,
        done: Arriver<'_, MmaDone>,
        done_wait: Waiter<'_, MmaDone>,
        a: &Tile<bf16, 128, 64>,
        acc: &TmemTile<128, 128>,
    ) {
        for k in 0..cx.args().k_tiles {
            let operand = cx.fragment::<128, 64>(1.0);
            cx.store(&operand, a);
            cx.umma(acc, a, a.t(), k > 0);
            done.arrive_on_mma_completion(0);
            done_wait.wait(0, ((k / STAGES) & 1) as u32).await;
        }
    }
}

fn main() {}
