//! The GEMM variants of the warp-specialization trade-off study compute the same product:
//! each within f32 accumulation error of an f64 reference, and bitwise equal to each other
//! (every variant issues the same MMAs on the same rows in the same k order).

use warpspec_examples::gemm_tradeoff::{self, BK, Config, STAMPED, TileShape, Variant};
use warpspec_examples::reference::{errors, matmul_f64, random_values, round_bf16};

/// Error relative to max |C| of f32 accumulation of bf16 products.
const TOLERANCE: f64 = 1e-5;

/// Runs every variant of `tile` with `pipe` stages on `m x n x k` and checks the products.
fn check(tile: TileShape, pipe: usize, [m, n, k]: [usize; 3], seed: u64) {
    let a = round_bf16(&random_values(m * k, seed));
    let b = round_bf16(&random_values(k * n, seed + 1));
    let want = matmul_f64(m, n, k, &a, &b);
    let mut first: Option<(Config, Vec<f32>)> = None;
    for variant in Variant::ALL {
        let config = Config { variant, tile, pipe };
        let (c, report) =
            gemm_tradeoff::emulate(config, [m, n, k], &a, &b).unwrap_or_else(|e| panic!("{config} {m}x{n}x{k}: {e}"));
        let (max_err, rel) = errors(&c, &want);
        assert!(rel < TOLERANCE, "{config} {m}x{n}x{k}: max error {max_err:e}, relative {rel:e}");
        assert_eq!(report.ctas, m.div_ceil(tile.m) * n.div_ceil(tile.n), "{config}");
        match &first {
            None => first = Some((config, c)),
            Some((other, expected)) => assert!(
                c.iter().zip(expected).all(|(x, y)| x.to_bits() == y.to_bits()),
                "{config} and {other} differ on {m}x{n}x{k}"
            ),
        }
    }
}

#[test]
fn every_stamped_kernel_computes_the_product() {
    // 7 k-steps (the last one partial): a multiple of no stage count.
    for &(tile, pipe) in STAMPED {
        check(tile, pipe, [tile.m, tile.n, 6 * BK + 8], 1);
    }
}

#[test]
fn k_not_a_multiple_of_pipe_times_bk() {
    let tile = TileShape { m: 256, n: 256 };
    // 4 stages x 32 = 128: K = 416 wraps the ring three times and a bit; K = 200 ends mid-step.
    check(tile, 4, [512, 256, 416], 2);
    check(tile, 4, [256, 512, 200], 3);
}

#[test]
fn fewer_k_steps_than_stages_and_partial_tiles() {
    // One partial k-step (v2 never enters its loop), then 3 steps with 6 stages, and M, N
    // that leave partial output tiles.
    check(TileShape { m: 256, n: 256 }, 4, [256, 256, 20], 4);
    check(TileShape { m: 256, n: 256 }, 6, [300, 200, 3 * BK], 5);
    check(TileShape { m: 128, n: 128 }, 4, [200, 136, 100], 6);
}

#[test]
fn unstamped_configurations_are_refused() {
    let config = Config { variant: Variant::V2, tile: TileShape { m: 256, n: 256 }, pipe: 7 };
    let one = [1.0f32];
    let err = gemm_tradeoff::emulate(config, [1, 1, 1], &one, &one).expect_err("PIPE 7 is not stamped");
    assert!(err.to_string().contains("no kernel is stamped"), "{err}");
}
