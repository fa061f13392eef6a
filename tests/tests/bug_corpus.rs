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

#[path = "../corpus/tilelang_3087.rs"]
mod tilelang_3087;

#[path = "../corpus/triton_10035.rs"]
mod triton_10035;

#[path = "../corpus/quack_146.rs"]
mod quack_146;

#[path = "../corpus/flashinfer_4732.rs"]
mod flashinfer_4732;

#[path = "../corpus/flashinfer_5048.rs"]
mod flashinfer_5048;

#[path = "../corpus/flashinfer_3529.rs"]
mod flashinfer_3529;

#[path = "../corpus/flashinfer_3439.rs"]
mod flashinfer_3439;

#[path = "../corpus/tileops_1574.rs"]
mod tileops_1574;

#[path = "../corpus/tileops_1550.rs"]
mod tileops_1550;

#[path = "../corpus/llamacpp_13469.rs"]
mod llamacpp_13469;

#[path = "../corpus/cudnn_frontend_396.rs"]
mod cudnn_frontend_396;

#[path = "../corpus/trtllm_15338.rs"]
mod trtllm_15338;

#[path = "../corpus/trtllm_18339.rs"]
mod trtllm_18339;

#[path = "../corpus/xgboost_3293.rs"]
mod xgboost_3293;

#[path = "../corpus/cudnn_frontend_1049.rs"]
mod cudnn_frontend_1049;

#[path = "../corpus/flash_attention_1344.rs"]
mod flash_attention_1344;

#[path = "../corpus/deepep_657.rs"]
mod deepep_657;

#[path = "../corpus/tirx_kernels_42.rs"]
mod tirx_kernels_42;

#[path = "../corpus/acts_307.rs"]
mod acts_307;

#[path = "../corpus/popsift_82.rs"]
mod popsift_82;

#[path = "../corpus/llamacpp_5853.rs"]
mod llamacpp_5853;

#[path = "../corpus/llamacpp_13294.rs"]
mod llamacpp_13294;

#[path = "../corpus/vllm_xpu_411.rs"]
mod vllm_xpu_411;

#[path = "../corpus/cuml_6578.rs"]
mod cuml_6578;

#[path = "../corpus/triton_10656.rs"]
mod triton_10656;

#[path = "../corpus/fuser_5448.rs"]
mod fuser_5448;

/// Runs `K` on one CTA with the default options.
fn run<K: Kernel>(params: &K::Params) -> Result<EmuReport, emu::EmuError> {
    emu::run::<K>(Grid::new(1, 1, 1), params)
}

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

/// The fixed twins of the bugs added from the second search run clean, at several sizes
/// (the empty one included).
#[test]
fn fixed_twins_run_clean_at_every_size() {
    for n in [0, 1, 2, 5, 9] {
        run::<tilelang_3087::fixed::Kernel>(&tilelang_3087::fixed::Args { k_tiles: n })
            .unwrap_or_else(|e| panic!("{e}"));
        run::<triton_10035::fixed::Kernel>(&triton_10035::fixed::Args { k: n }).unwrap_or_else(|e| panic!("{e}"));
        run::<flashinfer_4732::fixed::Kernel>(&flashinfer_4732::fixed::Args { tiles: n })
            .unwrap_or_else(|e| panic!("{e}"));
        run::<flashinfer_5048::fixed::Kernel>(&flashinfer_5048::fixed::Args { tiles: n })
            .unwrap_or_else(|e| panic!("{e}"));
        run::<flashinfer_3529::fixed::Kernel>(&flashinfer_3529::fixed::Args { rounds: n })
            .unwrap_or_else(|e| panic!("{e}"));
        let c = Global::zeros(&[64 * n.max(1), 64]);
        run::<tileops_1550::fixed::Kernel>(&tileops_1550::fixed::Args { c, waves: n })
            .unwrap_or_else(|e| panic!("{e}"));
        let dkv = Global::zeros(&[128 * n.max(1), 256]);
        run::<cudnn_frontend_396::fixed::Kernel>(&cudnn_frontend_396::fixed::Args { blocks: n, dkv })
            .unwrap_or_else(|e| panic!("{e}"));
        run::<trtllm_15338::fixed::Kernel>(&trtllm_15338::fixed::Args { k_tiles: n }).unwrap_or_else(|e| panic!("{e}"));
        run::<xgboost_3293::fixed::Kernel>(&xgboost_3293::fixed::Args { features: n })
            .unwrap_or_else(|e| panic!("{e}"));
        let dk = Global::zeros(&[64 * n.max(1), 64]);
        run::<cudnn_frontend_1049::fixed::Kernel>(&cudnn_frontend_1049::fixed::Args { dk, blocks: n })
            .unwrap_or_else(|e| panic!("{e}"));
        run::<tirx_kernels_42::fixed::Kernel>(&tirx_kernels_42::fixed::Args { tasks: n })
            .unwrap_or_else(|e| panic!("{e}"));
        let rows = 64 * n.max(1);
        let src = Global::from_f32(&[rows, 64], &vec![0.5; rows * 64]).unwrap_or_else(|| panic!("src"));
        let copy = deepep_657::fixed::Args { src, dst: Global::zeros(&[rows, 64]) };
        run::<deepep_657::fixed::Kernel>(&copy).unwrap_or_else(|e| panic!("{e}"));
        assert!(copy.dst.to_f32_vec().unwrap_or_default().iter().all(|&x| x == 0.5));
        run::<llamacpp_13294::fixed::Kernel>(&llamacpp_13294::fixed::Args { tiles: n })
            .unwrap_or_else(|e| panic!("{e}"));
        run::<vllm_xpu_411::fixed::Kernel>(&vllm_xpu_411::fixed::Args { chunks: n }).unwrap_or_else(|e| panic!("{e}"));
        run::<cuml_6578::fixed::Kernel>(&cuml_6578::fixed::Args { rows: n }).unwrap_or_else(|e| panic!("{e}"));
        // A cluster of two CTAs, each multicasting its half of every stage to both.
        let x = Global::from_f32(&[64, 16], &vec![1.0; 64 * 16]).unwrap_or_else(|| panic!("x"));
        let cluster = triton_10656::fixed::Args { x, steps: n };
        emu::run::<triton_10656::fixed::Kernel>(Grid::new(2, 1, 1), &cluster).unwrap_or_else(|e| panic!("{e}"));
        let results = fuser_5448::fixed::Args { out: Global::zeros(&[128 * n.max(1), 64]), tiles: n };
        run::<fuser_5448::fixed::Kernel>(&results).unwrap_or_else(|e| panic!("{e}"));
        assert!(n == 0 || results.out.to_f32_vec().unwrap_or_default().iter().all(|&x| x == 1.0));
    }
    run::<quack_146::fixed::Kernel>(&()).unwrap_or_else(|e| panic!("{e}"));
    let o = flash_attention_1344::fixed::Args { o: Global::zeros(&[128, 64]) };
    run::<flash_attention_1344::fixed::Kernel>(&o).unwrap_or_else(|e| panic!("{e}"));
    assert!(o.o.to_f32_vec().unwrap_or_default().iter().all(|&x| x == 1.0));
    run::<llamacpp_5853::fixed::Kernel>(&()).unwrap_or_else(|e| panic!("{e}"));
    run::<acts_307::fixed::Kernel>(&()).unwrap_or_else(|e| panic!("{e}"));
    run::<popsift_82::fixed::Kernel>(&()).unwrap_or_else(|e| panic!("{e}"));
    run::<llamacpp_13469::fixed::Kernel>(&()).unwrap_or_else(|e| panic!("{e}"));
    run::<trtllm_18339::fixed::Kernel>(&()).unwrap_or_else(|e| panic!("{e}"));
    let out = Global::zeros(&[64, 64]);
    run::<flashinfer_3439::fixed::Kernel>(&flashinfer_3439::fixed::Args { out }).unwrap_or_else(|e| panic!("{e}"));
    let c = Global::zeros(&[64, 64]);
    run::<tileops_1574::fixed::Kernel>(&tileops_1574::fixed::Args { c }).unwrap_or_else(|e| panic!("{e}"));
}

/// The buggy twins the checker rejects at compile time, with their reviewed diagnostics.
#[test]
fn buggy_twins_caught_at_compile_time() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("corpus/fail/*.rs");
}
