//! Software `exp2` as FlashAttention-4 computes part of its exponentials: range reduction
//! and a degree-3 polynomial on the FMA and ALU pipes instead of MUFU.EX2.
//!
//! `2^x = 2^floor(x) · 2^f` with `f = x - floor(x)` in `[0, 1)`. `floor(x)` comes from adding
//! `1.5 · 2^23` with rounding toward minus infinity (the integer lands in the low mantissa
//! bits) and subtracting it again; `2^f` is a degree-3 polynomial in Horner form (three
//! FMAs); the integer part is added to the exponent field (a shift and an integer add).
//! The coefficients are those of FlashAttention-4's `ex2_emulation`
//! (`flash_attn/cute/utils.py`, `POLY_EX2[3]`). Inputs are clamped to `[-127, ∞)`; like the
//! original, the result is only meaningful for `x <= 127`.

/// Coefficients of `2^f ≈ c0 + c1 f + c2 f² + c3 f³` on `[0, 1)` (FlashAttention-4,
/// `POLY_EX2[3]`: 0.695146143436431884765625, 0.227564394474029541015625 and
/// 0.077119089663028717041015625, exact `f32` values written here in their shortest form).
pub const POLY_EXP2_DEG3: [f32; 4] = [1.0, 0.695_146_14, 0.227_564_4, 0.077_119_09];

/// `2^x` by range reduction and the degree-3 polynomial, rounded as the FMA pipe rounds
/// (each Horner step one fused multiply-add in `f32`).
pub fn exp2_poly(x: f32) -> f32 {
    let x = x.max(-127.0);
    // `add.rm` of 1.5·2^23, then subtracting it back: floor(x), exact for |x| < 2^22.
    let floor = x.floor();
    let frac = x - floor;
    let [c0, c1, c2, c3] = POLY_EXP2_DEG3;
    let p = c3.mul_add(frac, c2).mul_add(frac, c1).mul_add(frac, c0);
    // `shl.b32` of the integer part by 23, `add.s32` onto the polynomial's bits.
    f32::from_bits((p.to_bits() as i32).wrapping_add((floor as i32) << 23) as u32)
}

/// The largest relative error of [`exp2_poly`] against `f64` over `n` evenly spaced points of
/// `[lo, hi]`, and where it occurs.
pub fn max_relative_error(lo: f32, hi: f32, n: usize) -> (f64, f32) {
    let mut worst = (0.0, lo);
    for i in 0..n {
        let x = lo + (hi - lo) * i as f32 / (n.max(2) - 1) as f32;
        let exact = 2f64.powf(f64::from(x));
        let err = ((f64::from(exp2_poly(x)) - exact) / exact).abs();
        if err > worst.0 {
            worst = (err, x);
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_exact_and_the_polynomial_error_is_below_bf16_rounding() {
        for j in -126..=20 {
            assert_eq!(exp2_poly(j as f32), 2f32.powi(j), "2^{j}");
        }
        // The softmax range after subtracting the row max (x <= 0), and the 2^8 headroom of
        // conditional rescaling.
        let (err, at) = max_relative_error(-100.0, 8.0, 200_001);
        assert!(err < 1.0e-4, "relative error {err:e} at {at}");
        // bf16 keeps 8 significant bits: its rounding error reaches 2^-9 = 1.95e-3.
        assert!(err < 2f64.powi(-9) / 10.0);
        // It is an approximation: MUFU-accurate it is not.
        assert!(err > 1.0e-6, "relative error {err:e}");
    }

    #[test]
    fn large_negative_inputs_clamp_and_stay_tiny() {
        assert!(exp2_poly(-1000.0) < 1.0e-37);
        assert!(exp2_poly(f32::NEG_INFINITY) < 1.0e-37);
        assert!(exp2_poly(-1000.0) >= 0.0);
    }
}

#[cfg(test)]
mod assume_tests {
    use crate::dsl::Assume;

    #[test]
    fn assumed_rates_hold_for_that_fraction_of_steps_spread_evenly() {
        let held = |rate: f32| (0..1000).filter(|&step| Assume::rate(rate, step).holds()).count();
        assert_eq!((held(0.0), held(0.25), held(1.0), held(7.0), held(-1.0)), (0, 250, 1000, 1000, 0));
        let quarter: Vec<usize> = (0..8).filter(|&step| Assume::rate(0.25, step).holds()).collect();
        assert_eq!(quarter, [3, 7]);
    }
}
