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

// ---- FlashAttention-4's softmax techniques ----

use warpspec::report::MemoryLevel;
use warpspec::sim::{Machine, SimOptions};
use warpspec_examples::attention::blackwell::Variant;
use warpspec_examples::attention::fa4_variants::rescale_steps;

/// Inputs whose row maxima grow late: the keys of later blocks grow in magnitude (up to 31x
/// at the end), so scores of the last blocks exceed the running maximum by far more than the
/// rescale threshold.
fn late_growth(problem: &Problem, seed: u64) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let n = problem.elements();
    let (seq, d) = (problem.seq, problem.head_dim);
    let mut k = random_values(n, seed + 1);
    for (i, x) in k.iter_mut().enumerate() {
        let key = (i / d) % seq;
        *x *= 1.0 + 30.0 * (key as f32 / seq as f32).powi(3);
    }
    let round = |v: Vec<f32>| round_to(problem.dtype, &v);
    (round(random_values(n, seed)), round(k), round(random_values(n, seed + 2)))
}

fn check_variant(problem: Problem, variant: &Variant, inputs: &(Vec<f32>, Vec<f32>, Vec<f32>)) -> f64 {
    let (q, k, v) = inputs;
    let (o, _) = blackwell::run_variant(&problem, variant, q, k, v).unwrap_or_else(|e| panic!("{problem:?}: {e}"));
    let (max_err, rel) = errors(&o, &attention_f64(&problem, q, k, v));
    let tolerance = if problem.dtype == DType::Bf16 { 2e-2 } else { 4e-3 };
    assert!(rel < tolerance, "{problem:?} {}: max error {max_err:e}, relative {rel:e}", variant.name());
    rel
}

fn random_inputs(problem: &Problem, seed: u64) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let n = problem.elements();
    let round = |v: Vec<f32>| round_to(problem.dtype, &v);
    (round(random_values(n, seed)), round(random_values(n, seed + 1)), round(random_values(n, seed + 2)))
}

#[test]
fn software_exp2_at_every_fraction_matches_f64() {
    for (problem, seed) in [(problem(384, 128, false, DType::Bf16), 21), (problem(300, 64, true, DType::F16), 22)] {
        let inputs = random_inputs(&problem, seed);
        let baseline = check_variant(problem, &Variant::BASELINE, &inputs);
        for cols in [16, 32, 64, 128] {
            let rel = check_variant(problem, &Variant::BASELINE.with_poly_cols(cols), &inputs);
            // The polynomial's error (< 1e-4 relative) is far below the format's rounding of P.
            assert!(rel < 1.5 * baseline + 1e-3, "{cols} columns: {rel:e} against the baseline's {baseline:e}");
        }
    }
}

#[test]
fn conditional_rescaling_matches_f64_when_maxima_grow_late() {
    let threshold = Variant::FA4_THRESHOLD;
    for (problem, seed) in [(problem(640, 64, false, DType::F16), 31), (problem(512, 128, true, DType::Bf16), 32)] {
        let inputs = late_growth(&problem, seed);
        let (rescaled, steps) = rescale_steps(&problem, &inputs.0, &inputs.1, threshold);
        // Both arms of the data-dependent branch run: some steps rescale, some do not.
        assert!(rescaled > 0 && rescaled < steps, "{rescaled} of {steps} steps rescale");
        let conditional = Variant::BASELINE.with_conditional_rescale(threshold, 0.0);
        check_variant(problem, &conditional, &inputs);
        check_variant(problem, &conditional.with_poly_cols(32), &inputs);
        // Random inputs: the maximum settles in the first block and nothing rescales.
        let random = random_inputs(&problem, seed);
        assert_eq!(rescale_steps(&problem, &random.0, &random.1, threshold).0, 0);
        check_variant(problem, &conditional.with_poly_cols(32), &random);
    }
}

#[test]
fn the_variant_kernel_times_the_baseline_exactly_and_follows_the_declared_rescale_rate() {
    let problem = Problem { batch: 1, heads: 2, seq: 1024, head_dim: 128, causal: false, dtype: DType::Bf16 };
    let b200 = Machine::b200();
    let opts = SimOptions::default();
    let cycles = |variant: &Variant| blackwell::simulate_variant(&problem, variant, &b200, &opts).unwrap().cycles;
    let baseline = blackwell::simulate(&problem, &b200, &opts).unwrap().cycles;
    assert_eq!(cycles(&Variant::BASELINE), baseline);
    let conditional = |rate| Variant::BASELINE.with_conditional_rescale(Variant::FA4_THRESHOLD, rate);
    // The rescale (a tensor-memory load and store of `O_s`) happens at the declared rate. Its
    // cycles may be hidden: correction is off the critical path when softmax is the bottleneck.
    let tmem_bytes = |rate| {
        let r = blackwell::simulate_variant(&problem, &conditional(rate), &b200, &opts).unwrap();
        r.traffic.iter().filter(|t| t.level == MemoryLevel::TensorMemory).map(|t| t.bytes).sum::<u64>()
    };
    let (never, half, always) = (tmem_bytes(0.0), tmem_bytes(0.5), tmem_bytes(1.0));
    assert!(never < half && half < always, "rescale rates 0, 0.5, 1: {never}, {half}, {always} tensor-memory bytes");
    assert_eq!(always, {
        let r = blackwell::simulate(&problem, &b200, &opts).unwrap();
        r.traffic.iter().filter(|t| t.level == MemoryLevel::TensorMemory).map(|t| t.bytes).sum::<u64>()
    });
    // Software exp2 moves exponentials off MUFU.
    let mufu = |variant: &Variant| {
        let r = blackwell::simulate_variant(&problem, variant, &b200, &opts).unwrap();
        r.utilisation[warpspec::report::Unit::Mufu] * r.cycles as f64
    };
    assert!(mufu(&Variant::BASELINE.with_poly_cols(64)) < 0.6 * mufu(&Variant::BASELINE));
}
