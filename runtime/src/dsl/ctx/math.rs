//! Fragment arithmetic: element-wise maps, row reductions and the operations on row vectors
//! that a role instance runs on its registers, each counted as math of its kind.

use super::super::element::Element;
use super::super::fragment::{Assume, Fragment, Registers, RowVec};
use super::super::ops::MathKind;
use super::Ctx;

impl<P> Ctx<'_, P> {
    /// `x = x * factor` for every element.
    pub fn scale<const R: usize, const C: usize>(&self, frag: &mut Fragment<R, C>, factor: f32) {
        self.map(frag, MathKind::Fma, |x| x * factor);
    }

    /// `x = exp2(x)` for every element.
    pub fn exp2<const R: usize, const C: usize>(&self, frag: &mut Fragment<R, C>) {
        self.map(frag, MathKind::Exp2, f32::exp2);
    }

    /// `x = exp2(x)` for every element, `poly_cols` columns of each row in software
    /// ([`crate::dsl::exp2_poly`]: FlashAttention-4's range reduction and degree-3 polynomial on
    /// the FMA and ALU pipes), the others with MUFU.EX2. As FlashAttention-4 interleaves
    /// emulated and MUFU exponentials so that both pipes work at once, the columns go in
    /// chunks of [`EXP2_CHUNK_COLS`], each with its share of software columns first; the ops
    /// follow chunk by chunk. Software exponentials go in pairs (packed `f32x2`): `poly_cols`
    /// is capped at `C` and rounded down to even; below 2 this is [`Ctx::exp2`].
    pub fn exp2_split<const R: usize, const C: usize>(&self, frag: &mut Fragment<R, C>, poly_cols: usize) {
        // Software exponentials go in pairs (packed `f32x2`).
        let pairs = poly_cols.min(C) / 2;
        if pairs == 0 {
            return self.exp2(frag);
        }
        let chunks = C.div_ceil(EXP2_CHUNK_COLS);
        // Software columns of chunk `i`: the pairs spread evenly over the chunks.
        let soft = |i: usize| (2 * (pairs * (i + 1) / chunks - pairs * i / chunks)).min(EXP2_CHUNK_COLS);
        if let Some(data) = frag.data.as_mut() {
            for row in data.chunks_exact_mut(C) {
                for (i, chunk) in row.chunks_mut(EXP2_CHUNK_COLS).enumerate() {
                    let (poly, hard) = chunk.split_at_mut(soft(i).min(chunk.len()));
                    poly.iter_mut().for_each(|x| *x = super::super::softexp::exp2_poly(*x));
                    hard.iter_mut().for_each(|x| *x = x.exp2());
                }
            }
        }
        for i in 0..chunks {
            let cols = EXP2_CHUNK_COLS.min(C - i * EXP2_CHUNK_COLS);
            let poly = soft(i).min(cols);
            if poly > 0 {
                self.math(MathKind::Exp2Poly, R, poly);
            }
            if poly < cols {
                self.math(MathKind::Exp2, R, cols - poly);
            }
        }
    }

    /// Rounds every element to the format `T` (as a conversion to bf16/f16 registers does):
    /// `cx.cast::<bf16>(&mut p)`.
    pub fn cast<T: Element>(&self, regs: &mut impl Registers) {
        let (rows, cols) = regs.shape();
        if let Some(values) = regs.values_mut() {
            values.iter_mut().for_each(|x| *x = T::round(*x));
        }
        self.math(MathKind::Cast, rows, cols);
    }

    /// `x = x * factor - rows[r]` for element `x` of row `r` (one FFMA each): the softmax
    /// exponent `S * scale - m`.
    pub fn scale_sub_rows<const R: usize, const C: usize>(
        &self,
        frag: &mut Fragment<R, C>,
        factor: f32,
        rows: &RowVec<R>,
    ) {
        self.zip_rows(frag, rows, MathKind::Fma, |x, r| x * factor - r);
    }

    /// `x = x * rows[r]` for element `x` of row `r`: rescaling an accumulator.
    pub fn mul_rows<const R: usize, const C: usize>(&self, frag: &mut Fragment<R, C>, rows: &RowVec<R>) {
        self.zip_rows(frag, rows, MathKind::Fma, |x, r| x * r);
    }

    /// Sets the elements where `keep(row, col)` is false to `value` (a causal mask, or the
    /// columns past the end of a sequence).
    pub fn mask<const R: usize, const C: usize>(
        &self,
        frag: &mut Fragment<R, C>,
        value: f32,
        keep: impl Fn(usize, usize) -> bool,
    ) {
        if let Some(data) = frag.data.as_mut() {
            for (i, x) in data.iter_mut().enumerate() {
                if !keep(i / C, i % C) {
                    *x = value;
                }
            }
        }
        self.math(MathKind::Select, R, C);
    }

    /// The maximum of each row.
    pub fn row_max<const R: usize, const C: usize>(&self, frag: &Fragment<R, C>) -> RowVec<R> {
        self.reduce_rows(frag, MathKind::RowMax, f32::NEG_INFINITY, f32::max)
    }

    /// The sum of each row.
    pub fn row_sum<const R: usize, const C: usize>(&self, frag: &Fragment<R, C>) -> RowVec<R> {
        self.reduce_rows(frag, MathKind::RowSum, 0.0, |a, b| a + b)
    }

    /// Element-wise maximum of two row vectors.
    pub fn rows_max<const R: usize>(&self, a: &RowVec<R>, b: &RowVec<R>) -> RowVec<R> {
        self.rows_zip(a, b, MathKind::Max, f32::max)
    }

    /// Element-wise `a - b`.
    pub fn rows_sub<const R: usize>(&self, a: &RowVec<R>, b: &RowVec<R>) -> RowVec<R> {
        self.rows_zip(a, b, MathKind::Fma, |x, y| x - y)
    }

    /// Element-wise `a * b + c`.
    pub fn rows_fma<const R: usize>(&self, a: &RowVec<R>, b: &RowVec<R>, c: &RowVec<R>) -> RowVec<R> {
        let data = match (&a.data, &b.data, &c.data) {
            (Some(a), Some(b), Some(c)) => {
                Some(a.iter().zip(b.iter()).zip(c.iter()).map(|((a, b), c)| a * b + c).collect())
            }
            _ => None,
        };
        self.math(MathKind::Fma, R, 1);
        RowVec { data }
    }

    /// Element-wise `a * factor`.
    pub fn rows_scale<const R: usize>(&self, a: &RowVec<R>, factor: f32) -> RowVec<R> {
        self.rows_unary(a, MathKind::Fma, |x| x * factor)
    }

    /// Element-wise `exp2(a * factor)`.
    pub fn rows_exp2<const R: usize>(&self, a: &RowVec<R>, factor: f32) -> RowVec<R> {
        self.math(MathKind::Fma, R, 1);
        self.rows_unary(a, MathKind::Exp2, |x| (x * factor).exp2())
    }

    /// Per row, `new` where it exceeds `old` by more than `threshold` (or `old` is `-inf`),
    /// else `old`: FlashAttention-4's conditional rescaling keeps a running maximum that grew
    /// by at most `threshold` (in the `exp2` domain), so `exp2(x - m)` stays below
    /// `2^threshold` and the rescale factor `exp2(old - kept)` is exactly 1. One subtraction
    /// and one select per row.
    pub fn rows_keep_unless_grew<const R: usize>(&self, old: &RowVec<R>, new: &RowVec<R>, threshold: f32) -> RowVec<R> {
        self.math(MathKind::Fma, R, 1);
        self.rows_zip(
            old,
            new,
            MathKind::Select,
            |o, n| if o == f32::NEG_INFINITY || n - o > threshold { n } else { o },
        )
    }

    /// Whether any value of `a` is below `bound`: a vote (`FSETP` per value, `VOTE.ANY`) whose
    /// result may steer control flow, such as skipping a rescale whose factors are all 1.
    /// A run without data (shape-only timing) has no values: it decides by `assume`, which
    /// states the fraction of steps for which the condition is taken to hold.
    pub fn rows_any_below<const R: usize>(&self, a: &RowVec<R>, bound: f32, assume: Assume) -> bool {
        self.math(MathKind::Vote, R, 1);
        match &a.data {
            Some(values) => values.iter().any(|x| *x < bound),
            None => assume.holds(),
        }
    }

    /// Element-wise reciprocal.
    pub fn rows_recip<const R: usize>(&self, a: &RowVec<R>) -> RowVec<R> {
        self.rows_unary(a, MathKind::Recip, |x| 1.0 / x)
    }

    fn map<const R: usize, const C: usize>(&self, frag: &mut Fragment<R, C>, kind: MathKind, f: impl Fn(f32) -> f32) {
        if let Some(data) = frag.data.as_mut() {
            data.iter_mut().for_each(|x| *x = f(*x));
        }
        self.math(kind, R, C);
    }

    fn zip_rows<const R: usize, const C: usize>(
        &self,
        frag: &mut Fragment<R, C>,
        rows: &RowVec<R>,
        kind: MathKind,
        f: impl Fn(f32, f32) -> f32,
    ) {
        if let (Some(data), Some(rows)) = (frag.data.as_mut(), rows.data.as_ref()) {
            for (row, r) in data.chunks_exact_mut(C).zip(rows.iter()) {
                row.iter_mut().for_each(|x| *x = f(*x, *r));
            }
        }
        self.math(kind, R, C);
    }

    fn reduce_rows<const R: usize, const C: usize>(
        &self,
        frag: &Fragment<R, C>,
        kind: MathKind,
        init: f32,
        f: impl Fn(f32, f32) -> f32,
    ) -> RowVec<R> {
        let data =
            frag.data.as_ref().map(|d| d.chunks_exact(C).map(|row| row.iter().copied().fold(init, &f)).collect());
        self.math(kind, R, C);
        RowVec { data }
    }

    fn rows_zip<const R: usize>(
        &self,
        a: &RowVec<R>,
        b: &RowVec<R>,
        kind: MathKind,
        f: impl Fn(f32, f32) -> f32,
    ) -> RowVec<R> {
        let data = match (&a.data, &b.data) {
            (Some(a), Some(b)) => Some(a.iter().zip(b.iter()).map(|(x, y)| f(*x, *y)).collect()),
            _ => None,
        };
        self.math(kind, R, 1);
        RowVec { data }
    }

    fn rows_unary<const R: usize>(&self, a: &RowVec<R>, kind: MathKind, f: impl Fn(f32) -> f32) -> RowVec<R> {
        let data = a.data.as_ref().map(|a| a.iter().map(|x| f(*x)).collect());
        self.math(kind, R, 1);
        RowVec { data }
    }
}

/// Columns of one chunk of [`Ctx::exp2_split`]: the granularity at which software and MUFU
/// exponentials are interleaved (FlashAttention-4 interleaves them within each thread's
/// row fragment).
pub const EXP2_CHUNK_COLS: usize = 8;
