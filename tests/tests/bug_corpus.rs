//! The bug corpus: barrier and synchronisation bugs from public kernel projects, each
//! re-enacted in the DSL as a buggy kernel and its fixed twin (`tests/corpus/*.rs`, each with
//! a header citing the repository, the issue or pull request and the mechanism;
//! `docs/bug-corpus.md` tabulates them). Every fixed twin compiles (the checker accepts it)
//! and runs clean on the emulator; every buggy twin is caught: at compile time
//! (`tests/corpus/fail/*.rs`, run by trybuild) or by the default emulator run, whose report
//! is asserted here.

use warpspec::Grid;
use warpspec::dsl::Kernel;
use warpspec::emu::{self, EmuReport};
use warpspec::prelude::*;

#[path = "../corpus/tilelang_2613.rs"]
mod tilelang_2613;

#[path = "../corpus/cuda_oxide_1066.rs"]
mod cuda_oxide_1066;

#[path = "../corpus/vllm_26026.rs"]
mod vllm_26026;

#[path = "../corpus/hipfire_575.rs"]
mod hipfire_575;

#[path = "../corpus/fuser_3863.rs"]
mod fuser_3863;

#[path = "../corpus/flashinfer_2996.rs"]
mod flashinfer_2996;

#[path = "../corpus/flashinfer_4533.rs"]
mod flashinfer_4533;

/// Runs `K` on one CTA with the default options.
fn run<K: Kernel>(params: &K::Params) -> Result<EmuReport, emu::EmuError> {
    emu::run::<K>(Grid::new(1, 1, 1), params)
}

/// The fixed twins of the bugs caught at compile time run clean.
#[test]
fn fixed_twins_of_compile_time_bugs_run_clean() {
    let a = Global::from_f32(&[64, 64], &vec![0.5; 64 * 64]).unwrap_or_else(|| panic!("A"));
    let b = Global::from_f32(&[64, 8], &vec![0.25; 64 * 8]).unwrap_or_else(|| panic!("B"));
    let args = fuser_3863::fixed::Args { a, b, c: Global::zeros(&[64, 8]) };
    run::<fuser_3863::fixed::Kernel>(&args).unwrap_or_else(|e| panic!("{e}"));
    assert!(args.c.to_f32_vec().unwrap_or_default().iter().all(|&x| x == 64.0 * 0.5 * 0.25));
    run::<flashinfer_2996::fixed::Kernel>(&()).unwrap_or_else(|e| panic!("{e}"));
    run::<flashinfer_4533::fixed::Kernel>(&()).unwrap_or_else(|e| panic!("{e}"));
    let mailbox = cuda_oxide_1066::fixed::Args { tiles: 3 };
    run::<cuda_oxide_1066::fixed::Kernel>(&mailbox).unwrap_or_else(|e| panic!("{e}"));
    run::<tilelang_2613::fixed::Kernel>(&tilelang_2613::fixed::Args { c: Global::zeros(&[64, 8]), k_tiles: 3 })
        .unwrap_or_else(|e| panic!("{e}"));
    run::<hipfire_575::fixed::Kernel>(&()).unwrap_or_else(|e| panic!("{e}"));
    for k_tiles in [0, 4] {
        run::<vllm_26026::fixed::Kernel>(&vllm_26026::fixed::Args { tiles: 2, k_tiles })
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

/// The buggy twins the checker rejects at compile time, with their reviewed diagnostics.
#[test]
fn buggy_twins_caught_at_compile_time() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("corpus/fail/*.rs");
}
