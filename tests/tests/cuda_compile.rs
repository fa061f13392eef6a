//! Compiles the device library with NVRTC (no GPU needed) and checks kernels' resources.
//!
//! Needs `libnvrtc.so.13` on the loader path (`.ci/run` installs PyPI `nvidia-cuda-nvrtc`).
//! Without it each test prints a notice and returns, except under `CI=true`, where a missing
//! NVRTC fails the test.

use warpspec::gpu::device_lib::{self, OperandForm, WgmmaVariant};
use warpspec::gpu::{Arch, Compiled, GpuError, Program, ResourceBudget, compile, probe};

/// True when NVRTC is loadable; prints a notice (or panics under CI) when it is not.
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

fn build(name: &str, kernels: &str, arch: Arch) -> std::sync::Arc<Compiled> {
    let program = Program::new(name, device_lib::with_kernels(kernels), arch);
    match compile(&program) {
        Ok(c) => c,
        Err(GpuError::Compile { log, .. }) => panic!("{name} for {}:\n{log}", arch.name()),
        Err(e) => panic!("{name}: {e}"),
    }
}

/// Every hand-written wrapper, called once; `#if` keeps the Hopper-only part to sm_90a.
const COVERAGE: &str = r#"
extern "C" __global__ void __launch_bounds__(256, 1)
    coverage(const __grid_constant__ ws::TensorMap m2, const __grid_constant__ ws::TensorMap m3,
             const __grid_constant__ ws::TensorMap m4, float* out) {
    extern __shared__ __align__(1024) unsigned char smem[];
    __shared__ ws::u64 bar;
    if (threadIdx.x == 0) {
        ws::mbar_init(&bar, 2);
        ws::fence_mbarrier_init();
    }
    __syncthreads();
    if (ws::warpgroup_idx() == 0) {
        ws::setmaxnreg_dec<40>();
        if (ws::warp_in_warpgroup() == 0 && ws::elect_one()) {
            ws::tma_prefetch_map(&m2);
            ws::mbar_expect_tx(&bar, 3 * 4096);
            ws::mbar_arrive_expect_tx(&bar, 0);
            ws::tma_load_2d(smem, &m2, &bar, 0, 1);
            ws::tma_load_3d(smem + 4096, &m3, &bar, 0, 1, 2);
            ws::tma_load_4d(smem + 8192, &m4, &bar, 0, 1, 2, 3);
            ws::mbar_arrive(&bar);
        }
        ws::named_arrive(2, 256);
        return;
    }
    ws::setmaxnreg_inc<232>();
    while (!ws::mbar_try_wait(&bar, 0)) {
    }
    ws::mbar_wait(&bar, 0);
    ws::named_sync(2, 256);
    float acc = 0.0f;
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    float d[32];
#pragma unroll
    for (int i = 0; i < 32; ++i) d[i] = 0.0f;
    ws::wgmma_fence();
    ws::wgmma_ss_m64n64k16_f32_bf16<0, 1>(d, ws::smem_desc_sw128(smem), ws::smem_desc_sw128(smem + 8192), 0);
    ws::wgmma_commit();
    ws::wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < 32; ++i) {
        ws::fence_operand(d[i]);
        acc += d[i] * (float)(ws::acc_row(i) + ws::acc_col(i));
    }
    ws::u32 r = ws::pack_bf16x2(acc, 1.0f);
    ws::fence_operand(r);
    acc += (float)(r & 0xffu);
#endif
    acc += (float)(ws::pack_f16x2(acc, 2.0f) >> 16) + (float)ws::sw128_offset(threadIdx.x, 16);
    float* stage = reinterpret_cast<float*>(smem + 16384);
    stage[ws::thread_in_warpgroup()] = acc;
    ws::fence_proxy_async();
    ws::named_sync(1, 128);
    if (ws::thread_in_warpgroup() == 0) {
        ws::tma_store_2d(&m2, stage, 0, 0);
        ws::tma_store_3d(&m3, stage, 0, 0, 0);
        ws::tma_store_4d(&m4, stage, 0, 0, 0, 0);
        ws::tma_store_commit();
        ws::tma_store_wait_read<0>();
        ws::tma_store_wait<0>();
    }
    out[threadIdx.x] = acc + (float)ws::lane_idx();
}
"#;

/// One kernel per generated wgmma variant, each issuing it four times.
fn wgmma_kernels() -> String {
    let mut src = String::new();
    for v in WgmmaVariant::all() {
        let acc = v.accumulators();
        let call = match v.form {
            OperandForm::SharedShared => format!("ws::{}(d, da + 2 * k, db + 2 * k, k > 0)", v.name()),
            OperandForm::RegisterShared => format!("ws::{}(d, a, db + 2 * k, k > 0)", v.name()),
        };
        src += &format!(
            "extern \"C\" __global__ void __launch_bounds__(128, 1) k_{name}(float* out, ws::u32 seed) {{
    extern __shared__ __align__(1024) unsigned char smem[];
    const ws::u64 da = ws::smem_desc_sw128(smem), db = ws::smem_desc_sw128(smem + 8192);
    ws::u32 a[4] = {{seed, seed + 1, seed + 2, seed + 3}};
    float d[{acc}];
    ws::wgmma_fence();
#pragma unroll
    for (int k = 0; k < 4; ++k) {call};
    ws::wgmma_commit();
    ws::wgmma_wait<0>();
#pragma unroll
    for (int i = 0; i < {acc}; ++i) out[threadIdx.x * {acc} + i] = d[i];
}}
",
            name = v.name(),
        );
    }
    src
}

#[test]
fn coverage_kernel_compiles_for_hopper_without_spills() {
    if !nvrtc_available("coverage_kernel_compiles_for_hopper_without_spills") {
        return;
    }
    let c = build("coverage.cu", COVERAGE, Arch::Sm90a);
    let r = c.resources("coverage").unwrap();
    println!("{r:?}");
    r.check(&ResourceBudget::strict(232)).unwrap();
    assert!(c.warnings().is_empty(), "warnings: {:?}", c.warnings());
    assert!(!c.cubin.is_empty());
}

#[test]
fn blackwell_compiles_the_architecture_neutral_wrappers() {
    if !nvrtc_available("blackwell_compiles_the_architecture_neutral_wrappers") {
        return;
    }
    let c = build("coverage.cu", COVERAGE, Arch::Sm100a);
    c.resources("coverage").unwrap().check(&ResourceBudget::strict(232)).unwrap();
    // wgmma is Hopper-only: calling it for sm_100a is a compile error, not a silent no-op.
    let hopper_only = "extern \"C\" __global__ void k() { ws::wgmma_fence(); }";
    let err = compile(&Program::new("hopper_only.cu", device_lib::with_kernels(hopper_only), Arch::Sm100a));
    assert!(matches!(err, Err(GpuError::Compile { .. })), "{err:?}");
}

#[test]
fn every_wgmma_variant_compiles_within_its_register_budget() {
    if !nvrtc_available("every_wgmma_variant_compiles_within_its_register_budget") {
        return;
    }
    let c = build("wgmma_variants.cu", &wgmma_kernels(), Arch::Sm90a);
    for v in WgmmaVariant::all() {
        let r = c.resources(&format!("k_{}", v.name())).unwrap();
        // Accumulators, the A fragment, addresses: well under the 255-register ceiling.
        r.check(&ResourceBudget::strict(v.accumulators() + 40)).unwrap();
    }
}

#[test]
fn smoke_kernel_compiles_and_the_cache_returns_it() {
    if !nvrtc_available("smoke_kernel_compiles_and_the_cache_returns_it") {
        return;
    }
    let src = include_str!("../../runtime/examples/gpu_smoke.cu");
    let first = build("gpu_smoke.cu", src, Arch::Sm90a);
    let r = first.resources("gemm_smoke").unwrap();
    println!("{r:?}");
    r.check(&ResourceBudget::strict(232)).unwrap();
    assert!(first.warnings().is_empty(), "warnings: {:?}", first.warnings());
    let again = build("gpu_smoke.cu", src, Arch::Sm90a);
    assert!(std::sync::Arc::ptr_eq(&first, &again), "the second compile must come from the cache");
}

#[test]
fn compile_errors_carry_nvrtcs_log() {
    if !nvrtc_available("compile_errors_carry_nvrtcs_log") {
        return;
    }
    let bad = "extern \"C\" __global__ void k() { undeclared_thing(); }";
    let err = compile(&Program::new("bad.cu", device_lib::with_kernels(bad), Arch::Sm90a)).unwrap_err();
    let GpuError::Compile { log, .. } = &err else { panic!("{err:?}") };
    assert!(log.contains("undeclared_thing"), "{log}");
    assert!(err.to_string().starts_with("NVRTC could not compile bad.cu: "), "{err}");
    assert_eq!(err.to_string().lines().count(), 1);
}

#[test]
fn a_spilling_kernel_is_over_budget() {
    if !nvrtc_available("a_spilling_kernel_is_over_budget") {
        return;
    }
    // 64 live values under a 32-register cap: ptxas must spill, and the strict budget says so.
    let live = "extern \"C\" __global__ void k(float* out) {
        float t[64];
#pragma unroll
        for (int j = 0; j < 64; ++j) t[j] = out[j * 977];
        float s = 0.0f;
#pragma unroll
        for (int j = 0; j < 64; ++j) s += t[j] * t[63 - j];
#pragma unroll
        for (int j = 0; j < 64; ++j) out[j] = t[j] * s;
    }";
    let mut program = Program::new("spill.cu", device_lib::with_kernels(live), Arch::Sm90a);
    program.extra_options.push("--maxrregcount=32".into());
    let c = compile(&program).unwrap();
    let r = c.resources("k").unwrap();
    println!("{r:?}");
    assert!(r.spill_stores > 0, "{r:?}");
    let err = r.check(&ResourceBudget::strict(255)).unwrap_err();
    assert!(err.to_string().contains("bytes spill stores"), "{err}");
}
