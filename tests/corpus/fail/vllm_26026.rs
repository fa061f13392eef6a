//! vllm-project/vllm pull request #26026 (CUTLASS SM100 MLA hang under load): in the
//! persistent kernel, a compute warp with no work for a tile (`k_tile_count == 0`) returned
//! early through `NamedBarrier(...).arrive()` on the epilogue barrier and looped around to
//! arrive again, while the load warps wait there with `arrive_and_wait()`; the compute warps'
//! second arrival joins the use the load warps are still in, and the barrier uses fall out of
//! step (a hang). The fix makes the early path `arrive_and_wait()`.
//!
//! Re-enacted: a load warp and a compute warpgroup meet on a named barrier per tile; the
//! compute role's empty-work path only arrives.
//! Buggy twin (fixed twin: `tests/corpus/vllm_26026.rs`).

#[warpspec::kernel]
mod buggy {
    use warpspec::prelude::*;

    #[params]
    pub struct Args {
        pub tiles: usize,
        pub k_tiles: usize,
    }

    #[named_barrier(roles = [load, compute], threads = 160)]
    pub struct Epilogue;

    #[role(warps = 1, regs = 40)]
    pub async fn load(cx: &Ctx<'_, Args>, epilogue: Named<'_, Epilogue>) {
        for _ in 0..cx.args().tiles {
            epilogue.sync().await;
        }
    }

    #[role(warpgroups = 1, regs = 232)]
    pub async fn compute(cx: &Ctx<'_, Args>, epilogue: Named<'_, Epilogue>) {
        for _ in 0..cx.args().tiles {
            if cx.args().k_tiles == 0 {
                epilogue.arrive();
                continue;
            }
            epilogue.sync().await;
        }
    }
}

fn main() {}
