//! Register fragments: tiles held in the registers of a role instance's threads.
//!
//! A [`Fragment`] is an `R x C` matrix of `f32` distributed over the instance's threads (as a
//! wgmma accumulator is over a warpgroup); a [`RowVec`] holds one value per row (row max,
//! row sum, scale factors). Arithmetic on them goes through [`crate::dsl::Ctx`], which counts
//! the instructions each operation costs. In shape-only runs they carry no data.

/// An `R x C` matrix of `f32` in registers.
#[derive(Clone, Debug, PartialEq)]
pub struct Fragment<const R: usize, const C: usize> {
    pub(crate) data: Option<Box<[f32]>>,
}

/// One `f32` per row of an `R`-row fragment.
#[derive(Clone, Debug, PartialEq)]
pub struct RowVec<const R: usize> {
    pub(crate) data: Option<Box<[f32]>>,
}

impl<const R: usize, const C: usize> Fragment<R, C> {
    /// Rows.
    pub const ROWS: usize = R;
    /// Columns.
    pub const COLS: usize = C;

    pub(crate) fn filled(data: bool, value: f32) -> Self {
        Self { data: data.then(|| vec![value; R * C].into_boxed_slice()) }
    }

    /// The values, row-major, or `None` in a shape-only run.
    pub fn values(&self) -> Option<&[f32]> {
        self.data.as_deref()
    }

    /// Element `(row, col)`, or `None` in a shape-only run.
    ///
    /// # Panics
    /// If the position is outside the fragment.
    #[track_caller]
    pub fn get(&self, row: usize, col: usize) -> Option<f32> {
        assert!(row < R && col < C, "({row}, {col}) outside a {R}x{C} fragment");
        self.data.as_ref().map(|d| d[row * C + col])
    }
}

impl<const R: usize> RowVec<R> {
    /// Rows.
    pub const ROWS: usize = R;

    pub(crate) fn filled(data: bool, value: f32) -> Self {
        Self { data: data.then(|| vec![value; R].into_boxed_slice()) }
    }

    /// The values, or `None` in a shape-only run.
    pub fn values(&self) -> Option<&[f32]> {
        self.data.as_deref()
    }
}

/// Register storage of any shape: what shape-generic operations such as
/// [`crate::dsl::Ctx::cast`] accept.
pub trait Registers {
    /// Rows and columns.
    fn shape(&self) -> (usize, usize);
    /// The values, row-major, or `None` in a shape-only run.
    fn values_mut(&mut self) -> Option<&mut [f32]>;
}

impl<const R: usize, const C: usize> Registers for Fragment<R, C> {
    fn shape(&self) -> (usize, usize) {
        (R, C)
    }
    fn values_mut(&mut self) -> Option<&mut [f32]> {
        self.data.as_deref_mut()
    }
}

impl<const R: usize> Registers for RowVec<R> {
    fn shape(&self) -> (usize, usize) {
        (R, 1)
    }
    fn values_mut(&mut self) -> Option<&mut [f32]> {
        self.data.as_deref_mut()
    }
}

/// How a run without data (a shape-only timing run) decides a data-dependent condition such
/// as [`crate::dsl::Ctx::rows_any_below`]: it holds for a fraction `rate` of the `step`s,
/// spread evenly (step `i` holds when `floor((i + 1) · rate) > floor(i · rate)`). Runs with
/// data ignore it and decide on the values.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Assume {
    /// Fraction of the steps for which the condition holds, in `[0, 1]`.
    pub rate: f32,
    /// The step being decided: callers that must agree pass the same step.
    pub step: usize,
}

impl Assume {
    /// The condition holds for a fraction `rate` of the steps; this is step `step`.
    pub const fn rate(rate: f32, step: usize) -> Assume {
        Assume { rate, step }
    }

    /// Whether the condition holds at this step.
    pub fn holds(&self) -> bool {
        let rate = f64::from(self.rate.clamp(0.0, 1.0));
        ((self.step + 1) as f64 * rate).floor() > (self.step as f64 * rate).floor()
    }
}
