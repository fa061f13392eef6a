//! One launch API: the emulator and the timing model launch the examples' GEMM through the
//! `Target` trait, check launches against their own CTA limits, and return errors whose
//! `source()` is the shared cause.

use std::error::Error;

use warpspec::dsl::Global;
use warpspec::emu::{EmuError, EmuOptions};
use warpspec::hw::CtaLimits;
use warpspec::sim::{Machine, SimError, SimOptions};
use warpspec::{Emulator, Grid, LaunchError, Model, Target};
use warpspec_examples::gemm;
use warpspec_examples::reference::{errors, matmul_f64, random_values, round_bf16};

/// Launches the GEMM on any target; generic code sees only the trait.
fn launch_gemm<T: Target>(target: &T, m: usize, n: usize, args: &gemm::ws_gemm::Args) -> Result<T::Report, T::Error> {
    target.launch::<gemm::ws_gemm::Kernel>(gemm::grid(m, n), args)
}

fn shape_only(m: usize, n: usize, k: usize) -> gemm::ws_gemm::Args {
    gemm::ws_gemm::Args {
        a: Global::shape_only(&[m, k]),
        b: Global::shape_only(&[k, n]),
        c: Global::shape_only(&[m, n]),
    }
}

#[test]
fn the_emulator_computes_through_the_trait() {
    let (m, n, k) = (128, 256, 128);
    let a = round_bf16(&random_values(m * k, 7));
    let b = round_bf16(&random_values(k * n, 8));
    let args = gemm::args(m, n, k, &a, &b).unwrap();
    let emulator = Emulator::new(EmuOptions::checked());
    let report = launch_gemm(&emulator, m, n, &args).unwrap();
    assert_eq!(report.ctas, 1);
    let (_, rel) = errors(&args.c.to_f32_vec().unwrap(), &matmul_f64(m, n, k, &a, &b));
    assert!(rel < 1e-5, "relative error {rel:e}");
    assert_eq!(emulator.name(), "emulator");
}

#[test]
fn the_model_times_as_simulate_does() {
    let (m, n, k) = (256, 512, 256);
    let model = Model::new(Machine::h200(), SimOptions::default());
    let through_trait = launch_gemm(&model, m, n, &shape_only(m, n, k)).unwrap();
    let direct = warpspec::sim::simulate::<gemm::ws_gemm::Kernel>(
        &Machine::h200(),
        gemm::grid(m, n),
        &shape_only(m, n, k),
        &SimOptions::default(),
    )
    .unwrap();
    assert!(through_trait.cycles > 0);
    assert_eq!(through_trait.cycles, direct.cycles);
    assert_eq!(model.name(), "model of h200");
}

#[test]
fn each_target_checks_against_its_own_limits() {
    assert_eq!(Emulator::default().limits(), CtaLimits::ANY);
    assert_eq!(Model::new(Machine::h100_sxm(), SimOptions::default()).limits(), CtaLimits::HOPPER);
    assert_eq!(Model::new(Machine::b200(), SimOptions::default()).limits(), CtaLimits::BLACKWELL);
}

#[test]
fn a_rejected_launch_is_the_source_of_every_targets_error() {
    let empty = Grid::new(0, 1, 1);
    let args = shape_only(128, 256, 64);
    let emu = Emulator::default().launch::<gemm::ws_gemm::Kernel>(empty, &args).unwrap_err();
    let model = Model::new(Machine::h100_sxm(), SimOptions::default())
        .launch::<gemm::ws_gemm::Kernel>(empty, &args)
        .unwrap_err();
    assert!(matches!(emu, EmuError::Launch(LaunchError::EmptyGrid { .. })));
    assert!(matches!(model, SimError::Launch(LaunchError::EmptyGrid { .. })));
    for error in [&emu as &dyn Error, &model] {
        let source = error.source().expect("a launch error is the source");
        let launch = source.downcast_ref::<LaunchError>().expect("the source is the LaunchError");
        assert!(matches!(launch, LaunchError::EmptyGrid { grid: [0, 1, 1] }));
        assert!(launch.source().is_none());
        assert_eq!(error.to_string(), format!("launch failed: {launch}"));
    }
}
