//! `cluster_gemm` (2-CTA clusters, B multicast, persistent, TMA-store epilogue) on the timing
//! model: shape-only operands, a persistent grid of the clusters the machine holds at once,
//! and the full report (occupancy and cluster waves, burst and sustained clock, utilisation,
//! stall reasons per role).
//!
//! ```text
//! cargo run --release -p warpspec-examples --example cluster_gemm_model -- [M N K ...] [--machine h200]
//! ```
//! With no shapes it runs the four shapes measured on the H200
//! (calibration/gpu/cluster_gemm/h200_run4).

use std::process::ExitCode;

use warpspec::dsl::{Global, Kernel};
use warpspec::sim::{Machine, SimOptions, kernel_occupancy, simulate_clocked};
use warpspec_examples::cluster_gemm::{cluster_gemm, grid};

fn run() -> Result<(), String> {
    let mut machine = Machine::h200();
    let mut dims = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--machine" {
            let name = args.next().ok_or("--machine needs a name")?;
            machine = Machine::by_name(&name)
                .ok_or_else(|| format!("unknown machine {name:?}; known: {}", Machine::names().join(", ")))?;
        } else {
            dims.push(arg.parse::<usize>().map_err(|_| format!("{arg:?} is not a dimension (M N K ...)"))?);
        }
    }
    if dims.is_empty() {
        dims = vec![8192, 8192, 8192, 4096, 4096, 4096, 16384, 16384, 4096, 8192, 8192, 1024];
    }
    if dims.len() % 3 != 0 || dims.contains(&0) {
        return Err("give shapes as M N K triples of positive dimensions".into());
    }
    let spec = &cluster_gemm::Kernel::SPEC;
    let occupancy = kernel_occupancy(&machine, spec).map_err(|e| e.to_string())?;
    let clusters =
        spec.cluster_shape().resident_clusters(machine.clusters.gpc_sms.value, occupancy.ctas_per_sm) as usize;
    for shape in dims.chunks(3) {
        let (m, n, k) = (shape[0], shape[1], shape[2]);
        let args = cluster_gemm::Args {
            a: Global::shape_only(&[m, k]),
            b: Global::shape_only(&[k, n]),
            c: Global::shape_only(&[m, n]),
        };
        let launch = grid(m, n, clusters).map_err(|e| e.to_string())?;
        let run = simulate_clocked::<cluster_gemm::Kernel>(&machine, launch, &args, &SimOptions::default())
            .map_err(|e| e.to_string())?;
        let flops = 2.0 * (m * n * k) as f64;
        let tflops = |cycles: u64, ghz: f64| flops / (cycles as f64 / (ghz * 1e9)) / 1e12;
        println!("=== cluster_gemm {m}x{n}x{k}, {clusters} persistent clusters of 2 CTAs ===");
        println!("{}", run.burst);
        let (burst_ghz, top) = (run.burst.clock_ghz, machine.power.loaded_max_ghz.value);
        println!(
            "burst     {} cycles at {:.3} GHz = {:.1} TFLOP/s; {:.0} W predicted at the top clock ({top:.3} GHz)",
            run.burst.cycles,
            burst_ghz,
            tflops(run.burst.cycles, burst_ghz),
            run.power_at_top_w
        );
        println!(
            "sustained {} cycles at {:.3} GHz = {:.1} TFLOP/s",
            run.sustained.cycles,
            run.sustained_ghz,
            tflops(run.sustained.cycles, run.sustained_ghz)
        );
        println!("host      {:.1} s", run.burst.host.wall.as_secs_f64() + run.sustained.host.wall.as_secs_f64());
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
