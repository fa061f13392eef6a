//! The CUDA that warpspec generates for the example kernels, without a GPU: for each kernel
//! asked for, writes the translation unit NVRTC compiles (`<kernel>.cu`: the device library,
//! then the generated source; line information in the CUBIN refers to it), the CUBIN NVRTC compiles for
//! sm_90a (`<kernel>.cubin`, for `cuobjdump -sass`) and NVRTC's log with ptxas' report
//! (`<kernel>.log`), and prints the resources. Needs `libnvrtc.so.13` on the loader path.
//!
//! Run: `cargo run --release -p warpspec-examples --example cuda_dump -- --out dir [KERNEL..]`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use warpspec::gpu::codegen;
use warpspec::gpu::{Arch, Program, compile};
use warpspec::ir::Kernel as Ir;
use warpspec_examples::attention::hopper as fa;
use warpspec_examples::gemm::{ws_gemm, ws_gemm_bf16};

/// Command line.
#[derive(Parser, Debug)]
#[command(name = "cuda_dump", version, about = "Write the generated CUDA, CUBIN and ptxas report of example kernels")]
struct Args {
    /// Directory to write into (created if missing).
    #[arg(long)]
    out: PathBuf,
    /// Kernels to dump (all when none is named).
    kernels: Vec<String>,
}

/// The example kernels that render for Hopper.
fn kernels() -> Vec<&'static Ir> {
    vec![
        ws_gemm::Kernel::ir(),
        ws_gemm_bf16::Kernel::ir(),
        fa::fa3_bf16_d64::Kernel::ir(),
        fa::fa3_bf16_d128::Kernel::ir(),
        fa::fa3_f16_d64::Kernel::ir(),
        fa::fa3_f16_d128::Kernel::ir(),
        fa::flat_bf16_d64::Kernel::ir(),
        fa::flat_bf16_d128::Kernel::ir(),
        fa::flat_f16_d64::Kernel::ir(),
        fa::flat_f16_d128::Kernel::ir(),
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
        let generated = codegen::generate(ir)?;
        let program = Program::new(format!("{}.cu", generated.entry), generated.translation_unit(), Arch::Sm90a);
        let compiled = compile(&program)?;
        let path = |ext: &str| args.out.join(format!("{}.{ext}", generated.entry));
        std::fs::write(path("cu"), &program.source)?;
        std::fs::write(path("cubin"), &compiled.cubin)?;
        std::fs::write(path("log"), &compiled.log)?;
        match compiled.resources(&generated.entry) {
            Ok(r) => println!("{}: {r:?}", generated.entry),
            Err(e) => println!("{}: {e}", generated.entry),
        }
    }
    Ok(())
}
