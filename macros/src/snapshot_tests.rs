//! Snapshot of what `#[kernel]` generates for the warp-specialized GEMM of the examples (a
//! copy of `examples/gemm_kernel.rs`'s kernel, so the snapshot changes only with the macro).

use crate::expand::expand;

/// The GEMM kernel of `examples/gemm_kernel.rs`.
const GEMM: &str = r#"
pub mod ws_gemm {
    use warpspec::prelude::*;

    /// Rows of the output tile of one CTA.
    pub const BM: usize = 128;
    /// Columns of the output tile of one CTA.
    pub const BN: usize = 256;
    /// Depth of one k-step.
    pub const BK: usize = 64;
    /// Stages of the operand ring.
    pub const STAGES: usize = 4;
    /// Rows each consumer warpgroup owns.
    pub const WG_ROWS: usize = BM / 2;

    /// Launch arguments.
    #[params]
    pub struct Args {
        /// `M x K`, row-major.
        pub a: Global<bf16>,
        /// `K x N`, row-major.
        pub b: Global<bf16>,
        /// `M x N`, row-major, written by the kernel.
        pub c: Global<f32>,
    }

    /// Shared memory of one CTA.
    #[shared]
    pub struct Smem {
        a: Ring<Tile<bf16, BM, BK>, STAGES>,
        b: Ring<Tile<bf16, BK, BN>, STAGES>,
    }

    /// The k-loop operands: filled by TMA, drained by both consumer warpgroups.
    #[pipeline(tma, producer = producer, consumer = consumer, guards = [a, b])]
    pub struct Operands;

    /// Issues the TMA loads of every k-step.
    #[role(warps = 1, regs = 40)]
    pub async fn producer(cx: &Ctx<'_, Args>, ops: Producer<'_, Operands>) {
        let args = cx.args();
        let [n_tile, m_tile, _] = cx.block();
        for k in 0..args.a.shape()[1].div_ceil(BK) {
            let slot = ops.acquire().await;
            cx.tma_load(&args.a, &[m_tile * BM, k * BK], slot.a(), &slot);
            cx.tma_load(&args.b, &[k * BK, n_tile * BN], slot.b(), &slot);
            ops.commit(slot);
        }
    }

    /// Multiplies its 64 rows of each A tile by the B tile, then stores its accumulator.
    #[role(warpgroups = 2, regs = 232)]
    pub async fn consumer(cx: &Ctx<'_, Args>, ops: Consumer<'_, Operands>) {
        let args = cx.args();
        let [n_tile, m_tile, _] = cx.block();
        let rows = cx.instance() * WG_ROWS;
        let mut acc = cx.fragment::<WG_ROWS, BN>(0.0);
        for _ in 0..args.a.shape()[1].div_ceil(BK) {
            let full = ops.wait().await;
            let mma = cx.wgmma(&mut acc, full.a().rows::<WG_ROWS>(rows), full.b());
            cx.mma_wait(mma, 0).await;
            ops.release(full);
        }
        cx.store_global(&acc, &args.c, &[m_tile * BM + rows, n_tile * BN]);
    }
}
"#;

#[test]
fn gemm_expansion() {
    let item: proc_macro2::TokenStream = GEMM.parse().unwrap_or_default();
    let expanded = expand(proc_macro2::TokenStream::new(), item).map_err(|e| e.to_string());
    let file = expanded.and_then(|tokens| syn::parse2::<syn::File>(tokens).map_err(|e| e.to_string()));
    match file {
        Ok(file) => insta::assert_snapshot!(prettyplease::unparse(&file)),
        Err(e) => panic!("the GEMM kernel does not expand: {e}"),
    }
}
