//! The warp-specialized GEMM on the emulator: correct for several shapes against an f64
//! reference on random inputs, deterministic, and rejecting bad launches with clear errors.

use warpspec::Grid;
use warpspec::emu::EmuError;
use warpspec_examples::gemm;
use warpspec_examples::reference::{errors, matmul_f64, random_values, round_bf16};

/// f32 accumulation of bf16 products: the error relative to max |C| stays near f32 epsilon
/// times a small factor of sqrt(K); bf16 inputs are exact in f32.
const TOLERANCE: f64 = 1e-5;

fn check_shape(m: usize, n: usize, k: usize, seed: u64) {
    let a = round_bf16(&random_values(m * k, seed));
    let b = round_bf16(&random_values(k * n, seed + 1));
    let (c, report) = gemm::gemm(m, n, k, &a, &b).unwrap_or_else(|e| panic!("{m}x{n}x{k}: {e}"));
    let want = matmul_f64(m, n, k, &a, &b);
    let (max_err, rel) = errors(&c, &want);
    assert!(rel < TOLERANCE, "{m}x{n}x{k}: max error {max_err:e}, relative {rel:e}");
    assert_eq!(report.ctas, m.div_ceil(128) * n.div_ceil(256));
    assert_eq!(report.mma_flops, 2 * (m.div_ceil(128) * 128 * n.div_ceil(256) * 256 * k.div_ceil(64) * 64) as u64);
}

#[test]
fn square_multiple_of_the_tile() {
    check_shape(256, 256, 256, 1);
}

#[test]
fn non_square() {
    check_shape(128, 512, 192, 2);
}

#[test]
fn k_not_a_multiple_of_stages_times_tile() {
    // 4 stages x 64 = 256; K = 320 wraps the ring once and a bit, K = 100 ends mid-tile.
    check_shape(128, 256, 320, 3);
    check_shape(128, 256, 100, 4);
}

#[test]
fn m_and_n_not_multiples_of_the_tile() {
    check_shape(200, 300, 96, 5);
    check_shape(1, 7, 3, 6);
}

#[test]
fn rasterization_groups_cover_every_tile_once() {
    // 18 tile rows: one full group of 16 and a last group of 2, over 2 tile columns; with a
    // tile written twice or missed, C would differ from the reference.
    check_shape(17 * 128 + 5, 300, 64, 7);
}

#[test]
fn results_are_bitwise_identical_across_runs_and_thread_counts() {
    let (m, n, k) = (256, 512, 256);
    let a = round_bf16(&random_values(m * k, 7));
    let b = round_bf16(&random_values(k * n, 8));
    let run = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| gemm::gemm(m, n, k, &a, &b).unwrap().0)
    };
    let one = run(1);
    assert!(one.iter().any(|v| *v != 0.0));
    for threads in [1, 2, 3] {
        let other = run(threads);
        assert!(one.iter().zip(&other).all(|(x, y)| x.to_bits() == y.to_bits()), "{threads} threads differ");
    }
}

#[test]
fn bad_launches_are_errors_a_user_can_act_on() {
    let err = gemm::gemm(0, 4, 4, &[], &[0.0; 16]).unwrap_err();
    assert_eq!(err.to_string(), "launch failed: GEMM of 0x4x4: every dimension must be at least 1");
    let err = gemm::gemm(2, 2, 2, &[1.0; 3], &[1.0; 4]).unwrap_err();
    assert!(err.to_string().contains("A has 3 values, expected m*k = 4"), "{err}");
    let args = gemm::args(2, 2, 2, &[1.0; 4], &[1.0; 4]).unwrap();
    let err = warpspec::emu::run::<gemm::ws_gemm::Kernel>(Grid::new(0, 1, 1), &args).unwrap_err();
    assert!(matches!(err, EmuError::Launch(warpspec::LaunchError::EmptyGrid { .. })));
    assert!(err.to_string().contains("has no CTA"), "{err}");
}
