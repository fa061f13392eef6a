//! The CUDA code generator on the GEMM kernels: `ws_gemm` and every buildable trade-off
//! variant render, compile for sm_90a with NVRTC (no GPU needed) without spills, stack
//! frames or registers over the roles' budget; kernels that cannot run on a GPU are refused
//! with an error naming kernel, target and reason; the source of `ws_gemm` is snapshotted.
//!
//! Needs `libnvrtc.so.13` on the loader path (`.ci/run` installs PyPI `nvidia-cuda-nvrtc`);
//! without it the compile test prints a notice and passes, except under `CI=true`.

use warpspec::gpu::codegen::{self, Generated};
use warpspec::gpu::{Arch, GpuError, Program, ResourceBudget, compile, probe};
use warpspec::ir::Kernel as Ir;
use warpspec_examples::attention::hopper as fa;
use warpspec_examples::cluster_gemm::cluster_gemm;
use warpspec_examples::gemm::{ws_gemm, ws_gemm_bf16};
use warpspec_examples::gemm_tradeoff as t;

fn nvrtc_available(test: &str) -> bool {
    match probe::nvrtc() {
        Ok(()) => true,
        Err(e) if std::env::var("CI").is_ok_and(|v| v == "true") => panic!("CI=true but {e}"),
        Err(e) => {
            eprintln!("note: {test} skipped: {e}");
            false
        }
    }
}

macro_rules! kernels {
    ($($path:path),* $(,)?) => {
        vec![$(<$path>::ir()),*]
    };
}

/// Kernels that run on Hopper: `ws_gemm` (f32 and bf16 C) and the trade-off stamps whose f32 accumulator fits.
fn buildable() -> Vec<&'static Ir> {
    kernels![
        ws_gemm::Kernel,
        ws_gemm_bf16::Kernel,
        t::ws_128x256_p2::Kernel,
        t::ws_128x256_p4::Kernel,
        t::ws_256x128_p2::Kernel,
        t::ws_256x128_p4::Kernel,
        t::ws_128x128_p2::Kernel,
        t::ws_128x128_p4::Kernel,
        t::flat_128x256_p2::Kernel,
        t::flat_128x256_p4::Kernel,
        t::flat_256x128_p2::Kernel,
        t::flat_256x128_p4::Kernel,
        t::flat_128x128_p2::Kernel,
        t::flat_128x128_p4::Kernel,
    ]
}

/// The Hopper attention kernels: FA3-style and the non-specialized baseline, bf16 and f16,
/// head dimensions 64 and 128.
fn attention() -> Vec<&'static Ir> {
    kernels![
        fa::fa3_bf16_d64::Kernel,
        fa::fa3_bf16_d128::Kernel,
        fa::fa3_f16_d64::Kernel,
        fa::fa3_f16_d128::Kernel,
        fa::flat_bf16_d64::Kernel,
        fa::flat_bf16_d128::Kernel,
        fa::flat_f16_d64::Kernel,
        fa::flat_f16_d128::Kernel,
    ]
}

fn generate(k: &Ir) -> Generated {
    codegen::generate(k).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_gemm_kernel_compiles_within_its_budget() {
    compile_within_budget("every_gemm_kernel_compiles_within_its_budget", &buildable());
}

/// The 2-CTA cluster GEMM: multicast loads, remote arrivals, the cluster barrier, the
/// persistent schedule and the TMA-store epilogue.
#[test]
fn the_cluster_gemm_compiles_within_its_budget() {
    compile_within_budget("the_cluster_gemm_compiles_within_its_budget", &[cluster_gemm::Kernel::ir()]);
}

#[test]
fn the_cluster_gemm_renders_its_cluster_operations() {
    let g = generate(cluster_gemm::Kernel::ir());
    let src = &g.source;
    for needle in [
        "__cluster_dims__(2, 1, 1)",
        "wsg::tma_load_multicast_2d(",
        "wsg::mbar_arrive_cluster(&S.Operands_empty[",
        "wsg::cluster_linear()",
        "wsg::store_frag_smem<wsg::Bf16, 128, 64, 128>(",
        "ws::tma_store_2d(P.c_map,",
    ] {
        assert!(src.contains(needle), "the generated source lacks `{needle}`");
    }
    // The mbarrier inits are visible to the cluster before any role starts.
    let init = src.find("ws::fence_mbarrier_init();").expect("barrier init fence");
    let dispatch = src.find("const ws::u32 warp = ws::warp_idx();").expect("dispatch");
    assert!(src[init..dispatch].contains("wsg::cluster_sync();"), "no cluster barrier after the inits");
    // B is multicast in half-tile boxes; C is stored in boxes of one warpgroup's rows.
    use codegen::ParamSlot;
    let map = |name: &str| {
        g.params.iter().find_map(|p| match p {
            ParamSlot::Map { global, rows, cols, .. } if global == name => Some((*rows, *cols)),
            _ => None,
        })
    };
    assert_eq!((map("a"), map("b"), map("c")), (Some((128, 64)), Some((32, 64)), Some((64, 64))));
}

#[test]
fn cluster_gemm_source() {
    insta::assert_snapshot!(generate(cluster_gemm::Kernel::ir()).source);
}

#[test]
fn every_attention_kernel_compiles_within_its_budget() {
    compile_within_budget("every_attention_kernel_compiles_within_its_budget", &attention());
}

/// Renders, compiles for sm_90a and checks ptxas' report of every kernel: no spills, no
/// stack frame, registers within the roles' budget, `setmaxnreg` honoured.
fn compile_within_budget(test: &str, kernels: &[&Ir]) {
    let generated: Vec<Generated> = kernels.iter().map(|k| generate(k)).collect();
    if !nvrtc_available(test) {
        return;
    }
    for g in &generated {
        let program = Program::new(format!("{}.cu", g.entry), g.translation_unit(), Arch::Sm90a);
        let compiled = match compile(&program) {
            Ok(c) => c,
            Err(GpuError::Compile { log, .. }) => panic!("{}:\n{log}", g.entry),
            Err(e) => panic!("{}: {e}", g.entry),
        };
        let res = compiled.resources(&g.entry).unwrap_or_else(|e| panic!("{e}"));
        eprintln!("{}: {res:?}, {} threads, {} bytes dynamic shared memory", g.entry, g.threads, g.smem_bytes);
        res.check(&ResourceBudget::strict(g.register_budget())).unwrap_or_else(|e| panic!("{e}"));
        let ignored: Vec<&str> = compiled.warnings().into_iter().filter(|w| w.contains("C7508")).collect();
        assert!(ignored.is_empty(), "{}: ptxas ignored setmaxnreg: {ignored:?}", g.entry);
    }
}

#[test]
fn a_256_row_f32_accumulator_per_warpgroup_is_refused() {
    let e = codegen::generate(t::ws_256x256_p4::Kernel::ir()).expect_err("256 registers per thread do not fit");
    let msg = e.to_string();
    assert!(msg.contains("ws_256x256_p4") && msg.contains("sm_90a") && msg.contains("registers"), "{msg}");
}

#[test]
fn fa3_source() {
    insta::assert_snapshot!(generate(fa::fa3_bf16_d128::Kernel::ir()).source);
}

#[test]
fn ws_gemm_source() {
    insta::assert_snapshot!(generate(ws_gemm::Kernel::ir()).source);
}

#[test]
fn a_blackwell_kernel_is_refused_with_kernel_target_and_reason() {
    use warpspec_examples::attention::blackwell;
    let e = codegen::generate(blackwell::fa4_bf16_d128::Kernel::ir()).expect_err("tcgen05 is not rendered for sm_90a");
    let msg = e.to_string();
    assert!(msg.contains("fa4_bf16_d128") && msg.contains("sm_90a") && !msg.contains('\n'), "{msg}");
}
