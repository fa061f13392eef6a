//! The FA3-style Hopper attention kernel on the emulator, against an f64 reference on random
//! inputs: causal and not, both head dims and formats, sequence lengths that are not a
//! multiple of the tile, large-magnitude inputs that make the row max grow, and every
//! scheduling variant.

use warpspec::dsl::DType;
use warpspec_examples::attention::hopper::{self, Variant};
use warpspec_examples::attention::reference::attention_f64;
use warpspec_examples::attention::{Problem, round_to};
use warpspec_examples::reference::{errors, random_values};

/// Relative to max |O|: P is rounded to the storage format before `P V` and O is stored in
/// it, so errors of a few units of the format's epsilon (bf16: 2^-8) are expected.
fn tolerance(dtype: DType) -> f64 {
    match dtype {
        DType::Bf16 => 2e-2,
        _ => 4e-3,
    }
}

fn check(problem: Problem, variant: Variant, magnitude: f32, seed: u64) {
    let n = problem.elements();
    let scaled =
        |seed| round_to(problem.dtype, &random_values(n, seed).iter().map(|x| x * magnitude).collect::<Vec<_>>());
    let (q, k, v) = (scaled(seed), scaled(seed + 1), round_to(problem.dtype, &random_values(n, seed + 2)));
    let (o, _) = hopper::run(&problem, variant, &q, &k, &v).unwrap_or_else(|e| panic!("{problem:?}: {e}"));
    let want = attention_f64(&problem, &q, &k, &v);
    let (max_err, rel) = errors(&o, &want);
    assert!(rel < tolerance(problem.dtype), "{problem:?} {variant:?}: max error {max_err:e}, relative {rel:e}");
}

fn problem(seq: usize, head_dim: usize, causal: bool, dtype: DType) -> Problem {
    Problem { batch: 1, heads: 2, seq, head_dim, causal, dtype }
}

#[test]
fn non_causal_bf16_d128() {
    check(problem(256, 128, false, DType::Bf16), Variant::FULL, 1.0, 1);
}

#[test]
fn causal_bf16_d64() {
    check(problem(384, 64, true, DType::Bf16), Variant::FULL, 1.0, 2);
}

#[test]
fn sequence_not_a_multiple_of_the_tile() {
    check(problem(200, 64, false, DType::Bf16), Variant::FULL, 1.0, 3);
    check(problem(331, 64, true, DType::F16), Variant::FULL, 1.0, 4);
}

#[test]
fn large_magnitudes_exercise_rescaling() {
    // Scores up to ~|8 * 8 * d| / sqrt(d): the running max changes across blocks.
    check(problem(384, 64, false, DType::F16), Variant::FULL, 8.0, 5);
    check(problem(256, 128, true, DType::Bf16), Variant::FULL, 8.0, 6);
}

#[test]
fn every_scheduling_variant_computes_the_same_attention() {
    for pingpong in [false, true] {
        for overlap in [false, true] {
            check(problem(320, 64, true, DType::Bf16), Variant { pingpong, overlap }, 2.0, 7);
        }
    }
}

#[test]
fn the_non_specialized_baseline_computes_the_same_attention() {
    for (seq, causal, dtype) in [(320, true, DType::Bf16), (200, false, DType::F16)] {
        let p = problem(seq, 64, causal, dtype);
        let n = p.elements();
        let (q, k, v) = (random_values(n, 21), random_values(n, 22), random_values(n, 23));
        let (q, k, v) = (round_to(dtype, &q), round_to(dtype, &k), round_to(dtype, &v));
        let (o, _) = hopper::run_flat(&p, &q, &k, &v).unwrap_or_else(|e| panic!("{p:?}: {e}"));
        let (max_err, rel) = errors(&o, &attention_f64(&p, &q, &k, &v));
        assert!(rel < tolerance(dtype), "{p:?}: max error {max_err:e}, relative {rel:e}");
    }
}

#[test]
fn bad_problems_are_rejected_with_a_clear_error() {
    let p = Problem { head_dim: 96, ..problem(128, 64, false, DType::Bf16) };
    let err = hopper::run(&p, Variant::FULL, &[], &[], &[]).unwrap_err();
    assert_eq!(err.to_string(), "launch failed: head dim 96 is not supported: use 64 or 128");
    let p = problem(128, 64, false, DType::Bf16);
    let err = hopper::run(&p, Variant::FULL, &[0.0; 3], &[], &[]).unwrap_err();
    assert!(err.to_string().contains("Q has 3 values, expected 16384"), "{err}");
}
