//! The CUDA that warpspec generates for the example kernels, without a GPU: for each kernel
//! asked for, writes the translation unit NVRTC compiles (`<kernel>.cu`: the device library,
//! then the generated source; line information in the CUBIN refers to it), the CUBIN NVRTC compiles for
//! the kernel's architecture (`<kernel>.cubin`, for `cuobjdump -sass`: sm_90a, or sm_100a for
//! the Blackwell kernels, which use tensor memory and can only be compiled here, not run
//! without a B200) and NVRTC's log with ptxas' report (`<kernel>.log`), and prints the
//! resources. Needs `libnvrtc.so.13` on the loader path.
//!
//! Run: `cargo run --release -p warpspec-examples --example cuda_dump -- --out dir [KERNEL..]`
//! (`--copies-free`: the diagnostic build without TMA loads).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use warpspec::gpu::codegen;
use warpspec::gpu::{Program, compile};
use warpspec::ir::Kernel as Ir;
use warpspec_examples::attention::blackwell as fa4;
use warpspec_examples::attention::hopper as fa;
use warpspec_examples::cluster_gemm::cluster_gemm;
use warpspec_examples::gemm::{ws_gemm, ws_gemm_bf16};
use warpspec_examples::gemm_tradeoff::{flat_128x256_p4, ws_128x256_p4};

/// Command line.
#[derive(Parser, Debug)]
#[command(name = "cuda_dump", version, about = "Write the generated CUDA, CUBIN and ptxas report of example kernels")]
struct Args {
    /// Directory to write into (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Compile the diagnostic build without TMA loads (`WS_COPIES_FREE`, as
    /// `Cuda::without_copies` runs it).
    #[arg(long)]
    copies_free: bool,
    /// Render the kernels with op timestamps, as `validate op-times --gpu` runs them (the
    /// first 132 CTAs record, 4093 marks a warp): the SASS the marks' cycles come from.
    #[arg(long)]
    timestamps: bool,
    /// Kernels to dump (all when none is named).
    kernels: Vec<String>,
}

/// The example kernels: Hopper's (with the trade-off study's 128 x 256 pair), then Blackwell's.
fn kernels() -> Vec<&'static Ir> {
    vec![
        ws_gemm::Kernel::ir(),
        ws_gemm_bf16::Kernel::ir(),
        cluster_gemm::Kernel::ir(),
        ws_128x256_p4::Kernel::ir(),
        flat_128x256_p4::Kernel::ir(),
        fa::fa3_bf16_d64::Kernel::ir(),
        fa::fa3_bf16_d128::Kernel::ir(),
        fa::fa3_f16_d64::Kernel::ir(),
        fa::fa3_f16_d128::Kernel::ir(),
        fa::flat_bf16_d64::Kernel::ir(),
        fa::flat_bf16_d128::Kernel::ir(),
        fa::flat_f16_d64::Kernel::ir(),
        fa::flat_f16_d128::Kernel::ir(),
        fa4::fa4_bf16_d64::Kernel::ir(),
        fa4::fa4_bf16_d128::Kernel::ir(),
        fa4::fa4_f16_d64::Kernel::ir(),
        fa4::fa4_f16_d128::Kernel::ir(),
        fa4::fa4v_bf16_d64::Kernel::ir(),
        fa4::fa4v_bf16_d128::Kernel::ir(),
        fa4::fa4v_f16_d64::Kernel::ir(),
        fa4::fa4v_f16_d128::Kernel::ir(),
    ]
}

fn main() -> ExitCode {
    match run(&Args::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: &Args) -> Result<(), Box<dyn std::error::Error>> {
    let all = kernels();
    if let Some(unknown) = args.kernels.iter().find(|k| !all.iter().any(|ir| &ir.name == *k)) {
        let names: Vec<&str> = all.iter().map(|ir| ir.name.as_str()).collect();
        return Err(format!("no example kernel `{unknown}`; the kernels are {}", names.join(", ")).into());
    }
    std::fs::create_dir_all(&args.out)?;
    for ir in all.into_iter().filter(|ir| args.kernels.is_empty() || args.kernels.contains(&ir.name)) {
        let generated = if args.timestamps {
            codegen::generate_timestamped(ir, codegen::TimestampSpec { ctas: 132, capacity: 16381, lines: None })?
        } else {
            codegen::generate(ir)?
        };
        let program = Program::new(format!("{}.cu", generated.entry), generated.translation_unit(), generated.arch);
        let program = if args.copies_free { program.without_copies() } else { program };
        let path = |ext: &str| args.out.join(format!("{}.{ext}", generated.entry));
        // The source first, so that a compile error can be read against it.
        std::fs::write(path("cu"), &program.source)?;
        let compiled = match compile(&program) {
            Ok(c) => c,
            Err(e) => {
                if let warpspec::gpu::GpuError::Compile { log, .. } = &e {
                    std::fs::write(path("log"), log)?;
                }
                return Err(e.into());
            }
        };
        std::fs::write(path("cubin"), &compiled.cubin)?;
        std::fs::write(path("log"), &compiled.log)?;
        match compiled.resources(&generated.entry) {
            Ok(r) => println!(
                "{} ({}): {r:?}; {} threads, {} registers each at launch, setmaxnreg per role {:?}",
                generated.entry,
                generated.arch.name(),
                generated.threads,
                generated.launch_registers,
                generated.roles.iter().map(|r| (r.name.as_str(), r.regs)).collect::<Vec<_>>()
            ),
            Err(e) => println!("{}: {e}", generated.entry),
        }
    }
    Ok(())
}
