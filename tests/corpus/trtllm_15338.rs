//! NVIDIA/TensorRT-LLM pull request #15338 (also flashinfer-ai/flashinfer #3630): in
//! `tinygemm`, the compute warps' spin-wait polled barrier pointers computed once, before the
//! loop, for the initial stage, while the stage advanced every iteration. When the producer
//! lagged, the consumer polled the initial stage's barrier, which had already completed, so
//! the wait returned at once and the consumer read a stage the TMA had not filled yet
//! (corrupted output, or a hang). The fix polls the current stage's barrier.
//!
//! This is the fixed twin; the buggy twin, which the checker rejects, is
//! `tests/corpus/fail/trtllm_15338.rs`.

/// The fixed twin: the consumer polls the current stage's barrier.
#[warpspec::kernel]
pub mod fixed {
    use warpspec::prelude::*;

    pub const STAGES: usize = 4;

    #[params]
    pub struct Args {
        pub k_tiles: usize,
    }

    #[barrier(arrive = [producer], wait = [compute], len = 4)]
    pub struct Ready;

    #[barrier(arrive = [compute], wait = [producer], len = 4)]
    pub struct Free;

    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, ready: Arriver<'_, Ready>, free: Waiter<'_, Free>) {
        for ki in 0..cx.args().k_tiles {
            let stage = ki % STAGES;
            free.wait(stage, (((ki / STAGES) & 1) as u32) ^ 1).await;
            ready.arrive(stage);
        }
    }

    #[role(warps = 4, regs = 128)]
    pub async fn compute(cx: &Ctx<'_, Args>, ready: Waiter<'_, Ready>, free: Arriver<'_, Free>) {
        for ki in 0..cx.args().k_tiles {
            let stage = ki % STAGES;
            ready.wait(stage, ((ki / STAGES) & 1) as u32).await;
            free.arrive(stage);
        }
    }
}
