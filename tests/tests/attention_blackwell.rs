//! The five-role Blackwell attention kernel on the emulator, against an f64 reference on
//! random inputs: causal and not, both head dims and formats, sequence lengths that are not
//! a multiple of the tile, and large-magnitude inputs that make the row max grow.

use warpspec::dsl::DType;
use warpspec_examples::attention::blackwell;
use warpspec_examples::attention::reference::attention_f64;
use warpspec_examples::attention::{Problem, round_to};
use warpspec_examples::reference::{errors, random_values};

fn check(problem: Problem, magnitude: f32, seed: u64) {
    let n = problem.elements();
    let scaled =
        |seed| round_to(problem.dtype, &random_values(n, seed).iter().map(|x| x * magnitude).collect::<Vec<_>>());
    let (q, k, v) = (scaled(seed), scaled(seed + 1), round_to(problem.dtype, &random_values(n, seed + 2)));
    let (o, _) = blackwell::run(&problem, &q, &k, &v).unwrap_or_else(|e| panic!("{problem:?}: {e}"));
    let (max_err, rel) = errors(&o, &attention_f64(&problem, &q, &k, &v));
    // P and O are rounded to the storage format (bf16: 2^-8, f16: 2^-11).
    let tolerance = if problem.dtype == DType::Bf16 { 2e-2 } else { 4e-3 };
    assert!(rel < tolerance, "{problem:?}: max error {max_err:e}, relative {rel:e}");
}

fn problem(seq: usize, head_dim: usize, causal: bool, dtype: DType) -> Problem {
    Problem { batch: 2, heads: 1, seq, head_dim, causal, dtype }
}

#[test]
fn non_causal_bf16_d128() {
    check(problem(512, 128, false, DType::Bf16), 1.0, 11);
}

#[test]
fn causal_f16_d64() {
    check(problem(512, 64, true, DType::F16), 1.0, 12);
}

#[test]
fn sequence_not_a_multiple_of_the_tile() {
    check(problem(300, 64, false, DType::Bf16), 1.0, 13);
    check(problem(450, 128, true, DType::Bf16), 1.0, 14);
}

#[test]
fn large_magnitudes_exercise_rescaling() {
    check(problem(384, 64, false, DType::F16), 8.0, 15);
    check(problem(640, 64, true, DType::Bf16), 8.0, 16);
}
