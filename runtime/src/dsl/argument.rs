//! A kernel's launch arguments as values a backend can read without knowing the `#[params]`
//! struct: the `#[kernel]` macro lists each field (`Kernel::arguments`), so a target that
//! moves data to a device (the GPU) can upload the global tensors, pass the scalars, and
//! copy outputs back.

use super::element::{DType, Element};
use super::global::Global;

/// One field of a kernel's `#[params]` struct.
#[derive(Clone, Copy)]
pub struct Argument<'a> {
    /// The field's name.
    pub name: &'static str,
    /// Its value.
    pub value: ArgValue<'a>,
}

/// The value of a launch argument.
#[derive(Clone, Copy)]
pub enum ArgValue<'a> {
    /// A global tensor.
    Global(&'a dyn GlobalArg),
    /// An integer (`usize`, `u32`, `i32`, ...).
    Int(i64),
    /// A flag.
    Bool(bool),
    /// A floating-point scalar.
    Float(f64),
    /// A field of a type no backend passes to a device; the string is the type as written.
    Other(&'static str),
}

impl std::fmt::Debug for Argument<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.value {
            ArgValue::Global(g) => write!(f, "{}: Global<{}>{:?}", self.name, g.dtype(), g.shape()),
            ArgValue::Int(v) => write!(f, "{}: {v}", self.name),
            ArgValue::Bool(v) => write!(f, "{}: {v}", self.name),
            ArgValue::Float(v) => write!(f, "{}: {v}", self.name),
            ArgValue::Other(ty) => write!(f, "{}: {ty}", self.name),
        }
    }
}

/// A global tensor seen without its element type.
pub trait GlobalArg {
    /// Its shape, outermost first.
    fn shape(&self) -> &[usize];
    /// Its element format.
    fn dtype(&self) -> DType;
    /// Its values (already rounded to the element format), or `None` when shape only.
    fn values(&self) -> Option<Vec<f32>>;
    /// Whether kernels may write it (made with `Global::zeros` or `Global::output_from_f32`).
    fn is_output(&self) -> bool;
    /// Replaces the whole contents (row-major) with `values`, rounding to the element
    /// format. Fails on an input or shape-only tensor, or on a length that is not the
    /// tensor's.
    fn overwrite(&self, values: &[f32]) -> Result<(), String>;
}

impl<T: Element> GlobalArg for Global<T> {
    fn shape(&self) -> &[usize] {
        Global::shape(self)
    }

    fn dtype(&self) -> DType {
        T::DTYPE
    }

    fn values(&self) -> Option<Vec<f32>> {
        self.to_f32_vec()
    }

    fn is_output(&self) -> bool {
        self.is_output()
    }

    fn overwrite(&self, values: &[f32]) -> Result<(), String> {
        self.overwrite_all(values)
    }
}
