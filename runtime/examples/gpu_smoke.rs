//! GPU smoke test of the device library on a real Hopper GPU.
//!
//! Compiles `gpu_smoke.cu` with NVRTC for sm_90a, then runs a 256 x 256 x 512 bf16 GEMM
//! (TMA loads into 128-byte-swizzled shared memory, mbarrier ring, wgmma in both operand
//! forms, TMA store) on fresh random inputs against an f64 CPU reference, and finally
//! launches a kernel that waits on a barrier nobody arrives on to show the timeout report.
//! Exit status 0 only when both forms are correct and the hang is reported.
//!
//! Run: `cargo run --release -p warpspec --example gpu_smoke` on a machine with an H100/H200;
//! with `GPU_SMOKE_CUBIN=path` it also writes the CUBIN (for `cuobjdump --dump-sass`).

use half::bf16;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::process::ExitCode;
use std::time::{Duration, Instant};
use warpspec::gpu::{
    Arch, ElemType, Gpu, GpuError, KernelArg, LaunchConfig, Program, ResourceBudget, Swizzle, TensorMapSpec, compile,
    device_lib, probe,
};

const M: usize = 256;
const N: usize = 256;
const K: usize = 512;
const BM: u32 = 64;
const BN: u32 = 128;
const BK: u32 = 64;
const DYNAMIC_SMEM: u32 = 2 * (BM * BK * 2 + BN * BK * 2) + BM * BN * 4 + 1024;

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<bool, GpuError> {
    let (major, minor) = probe::nvrtc_version()?;
    let gpu = Gpu::new(0)?;
    println!(
        "device: {} (sm_{}{}), NVRTC {major}.{minor}",
        gpu.name(),
        gpu.compute_capability()?.0,
        gpu.compute_capability()?.1
    );

    let program = Program::new("gpu_smoke.cu", device_lib::with_kernels(include_str!("gpu_smoke.cu")), Arch::Sm90a);
    let t = Instant::now();
    let compiled = compile(&program)?;
    let res = compiled.resources("gemm_smoke")?.clone();
    println!("compiled in {:.0} ms: {res:?}", t.elapsed().as_secs_f64() * 1e3);
    for w in compiled.warnings() {
        println!("  {w}");
    }
    // With setmaxnreg, ptxas reports the largest per-warpgroup limit (the consumer's 232).
    res.check(&ResourceBudget::strict(232))?;
    if let Some(path) = std::env::var_os("GPU_SMOKE_CUBIN") {
        std::fs::write(&path, &compiled.cubin)
            .map_err(|e| GpuError::InvalidArgument(format!("cannot write {}: {e}", path.to_string_lossy())))?;
    }
    let module = gpu.load(compiled)?;
    let kernel = gpu.kernel(&module, "gemm_smoke")?;

    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(1, |d| d.as_nanos() as u64);
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    println!("seed {seed}");
    let config =
        LaunchConfig { grid: (N as u32 / BN, M as u32 / BM, 1), block: (256, 1, 1), dynamic_smem: DYNAMIC_SMEM };
    let mut all_ok = true;
    for (mode, form) in [(0, "SS (A, B from shared memory)"), (1, "RS (A from registers)")] {
        for trial in 0..2 {
            let a: Vec<bf16> = (0..M * K).map(|_| bf16::from_f32(rng.gen_range(-1.0..1.0))).collect();
            let b: Vec<bf16> = (0..N * K).map(|_| bf16::from_f32(rng.gen_range(-1.0..1.0))).collect();
            let (da, db) = (gpu.upload(&a)?, gpu.upload(&b)?);
            let dc = gpu.alloc::<f32>(M * N)?;
            gpu.fill_bytes(&dc, 0xff)?; // NaN everywhere: an unwritten element cannot pass.
            let map = |elem, rows, cols, br, bc, sw, addr| {
                TensorMapSpec::row_major(elem, &[rows as u64, cols as u64], &[br, bc], sw).encode(addr)
            };
            let args = [
                KernelArg::TensorMap(map(ElemType::Bf16, M, K, BM, BK, Swizzle::B128, da.address())?),
                KernelArg::TensorMap(map(ElemType::Bf16, N, K, BN, BK, Swizzle::B128, db.address())?),
                KernelArg::TensorMap(map(ElemType::F32, M, N, BM, BN, Swizzle::None, dc.address())?),
                KernelArg::I32((K as u32 / BK) as i32),
                KernelArg::I32(mode),
            ];
            let t = Instant::now();
            gpu.launch(&kernel, &config, &args)?.wait(Duration::from_secs(10))?;
            let us = t.elapsed().as_secs_f64() * 1e6;
            let c = gpu.download(&dc)?;
            let (err, unwritten) = relative_error(&a, &b, &c);
            let ok = unwritten == 0 && err < 1e-4;
            all_ok &= ok;
            println!(
                "{form}, trial {trial}: rel. error {err:.2e}, non-finite outputs {unwritten}, {us:.0} us launch-to-done: {}",
                if ok { "PASS" } else { "FAIL" }
            );
        }
    }

    let never = gpu.upload(&[0u8; 16])?;
    let dummy =
        TensorMapSpec::row_major(ElemType::Bf16, &[64, 64], &[64, 64], Swizzle::B128).encode(never.address())?;
    let args = [
        KernelArg::TensorMap(dummy),
        KernelArg::TensorMap(dummy),
        KernelArg::TensorMap(dummy),
        KernelArg::I32(1),
        KernelArg::I32(2),
    ];
    let hang = LaunchConfig { grid: (1, 1, 1), ..config };
    let t = Instant::now();
    let reported = match gpu.launch(&kernel, &hang, &args)?.wait(Duration::from_secs(2)) {
        Err(e @ GpuError::Timeout { .. }) => {
            println!("deliberate hang reported after {:.2} s: {e}", t.elapsed().as_secs_f64());
            true
        }
        other => {
            println!("deliberate hang NOT reported as a timeout: {other:?}");
            false
        }
    };
    println!("{}", if all_ok && reported { "smoke test PASSED" } else { "smoke test FAILED" });
    // The context is wedged by the hung kernel; exit without tearing it down.
    std::process::exit(if all_ok && reported { 0 } else { 1 });
}

/// ‖C − A·Bᵀ‖ / ‖A·Bᵀ‖ against an f64 reference, and the number of non-finite outputs.
fn relative_error(a: &[bf16], b: &[bf16], c: &[f32]) -> (f64, usize) {
    let (mut num, mut den, mut bad) = (0.0f64, 0.0f64, 0usize);
    for m in 0..M {
        for n in 0..N {
            let r: f64 = (0..K).map(|k| f64::from(a[m * K + k].to_f32()) * f64::from(b[n * K + k].to_f32())).sum();
            let v = f64::from(c[m * N + n]);
            if !v.is_finite() {
                bad += 1;
                continue;
            }
            num += (v - r) * (v - r);
            den += r * r;
        }
    }
    ((num / den).sqrt(), bad)
}
