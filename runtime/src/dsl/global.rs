//! Global-memory tensors: what a kernel's parameters point at.

use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use super::element::{DType, Element};
use super::ops::GlobalTile;

/// A dense row-major tensor in global memory, shared by every CTA of a launch.
///
/// Cloning is cheap (the storage is reference counted). Values are stored rounded to `T` and
/// read back as `f32`. A tensor is either an input ([`Global::from_f32`]: kernels read it,
/// never write it, so tile loads are plain copies), an output ([`Global::zeros`],
/// [`Global::output_from_f32`]: CTAs on different threads may write it), or shape only
/// ([`Global::shape_only`]: timing runs, no memory).
pub struct Global<T: Element> {
    inner: Arc<Storage>,
    _element: PhantomData<T>,
}

struct Storage {
    shape: Vec<usize>,
    data: Data,
}

/// The values of a tensor.
enum Data {
    /// Timing runs: no values.
    ShapeOnly,
    /// Read-only during a launch.
    Input(Box<[f32]>),
    /// `f32` bit patterns; atomics let CTAs on different threads write disjoint tiles.
    Output(Box<[AtomicU32]>),
}

impl<T: Element> Clone for Global<T> {
    fn clone(&self) -> Self {
        Self { inner: Arc::clone(&self.inner), _element: PhantomData }
    }
}

impl<T: Element> std::fmt::Debug for Global<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Global<{}>{:?}", T::DTYPE, self.inner.shape)?;
        f.write_str(match self.inner.data {
            Data::ShapeOnly => " (shape only)",
            Data::Input(_) => " (input)",
            Data::Output(_) => " (output)",
        })
    }
}

impl<T: Element> Global<T> {
    /// An output tensor of the given shape filled with zeros.
    pub fn zeros(shape: &[usize]) -> Self {
        let len = shape.iter().product();
        let data = (0..len).map(|_| AtomicU32::new(0)).collect();
        Self::from_storage(shape, Data::Output(data))
    }

    /// An input tensor holding `values` (row-major), each rounded to `T`. Kernels may read it
    /// but not write it.
    ///
    /// Returns `None` if `values.len()` is not the product of `shape`.
    pub fn from_f32(shape: &[usize], values: &[f32]) -> Option<Self> {
        if values.len() != shape.iter().product::<usize>() {
            return None;
        }
        Some(Self::from_storage(shape, Data::Input(values.iter().map(|&v| T::round(v)).collect())))
    }

    /// An output tensor holding `values` (row-major), each rounded to `T`, that kernels may
    /// read and write.
    ///
    /// Returns `None` if `values.len()` is not the product of `shape`.
    pub fn output_from_f32(shape: &[usize], values: &[f32]) -> Option<Self> {
        if values.len() != shape.iter().product::<usize>() {
            return None;
        }
        let data = values.iter().map(|&v| AtomicU32::new(T::round(v).to_bits())).collect();
        Some(Self::from_storage(shape, Data::Output(data)))
    }

    /// A tensor with a shape and no data, for timing runs.
    pub fn shape_only(shape: &[usize]) -> Self {
        Self::from_storage(shape, Data::ShapeOnly)
    }

    fn from_storage(shape: &[usize], data: Data) -> Self {
        Self { inner: Arc::new(Storage { shape: shape.to_vec(), data }), _element: PhantomData }
    }

    /// The tensor's shape, outermost dimension first.
    pub fn shape(&self) -> &[usize] {
        &self.inner.shape
    }

    /// Number of dimensions.
    pub fn rank(&self) -> usize {
        self.inner.shape.len()
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.inner.shape.iter().product()
    }

    /// Whether the tensor has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element format.
    pub fn dtype(&self) -> DType {
        T::DTYPE
    }

    /// Whether the tensor holds data (false for [`Global::shape_only`]).
    pub fn has_data(&self) -> bool {
        !matches!(self.inner.data, Data::ShapeOnly)
    }

    /// A copy of the contents as `f32`, or `None` for a shape-only tensor.
    pub fn to_f32_vec(&self) -> Option<Vec<f32>> {
        match &self.inner.data {
            Data::ShapeOnly => None,
            Data::Input(data) => Some(data.to_vec()),
            Data::Output(data) => Some(data.iter().map(|v| f32::from_bits(v.load(Ordering::Relaxed))).collect()),
        }
    }

    /// Reads the 2-D box of `rows x cols` elements whose top-left corner is at `coords`
    /// (one coordinate per dimension; the box spans the last two) into `out`, row `r` at
    /// `out[offset + r * stride..]`. Elements outside the tensor read as zero, as a TMA load
    /// fills them.
    pub(crate) fn read_box(
        &self,
        coords: &[usize],
        rows: usize,
        cols: usize,
        out: &mut [f32],
        offset: usize,
        stride: usize,
    ) {
        let (base, row_stride, valid_rows, valid_cols) = self.box_geometry(coords, rows, cols);
        for r in 0..rows {
            let dst = &mut out[offset + r * stride..offset + r * stride + cols];
            if r >= valid_rows {
                dst.fill(0.0);
                continue;
            }
            let start = base + r * row_stride;
            match &self.inner.data {
                Data::ShapeOnly => return,
                Data::Input(data) => dst[..valid_cols].copy_from_slice(&data[start..start + valid_cols]),
                Data::Output(data) => {
                    for (d, s) in dst.iter_mut().zip(&data[start..start + valid_cols]) {
                        *d = f32::from_bits(s.load(Ordering::Relaxed));
                    }
                }
            }
            dst[valid_cols..].fill(0.0);
        }
    }

    /// Writes the 2-D box `values` (row-major, `cols` per row) at `coords`, rounding to `T`.
    /// Elements outside the tensor are dropped, as a TMA store clips them. Fails on an input
    /// tensor.
    pub(crate) fn write_box(&self, coords: &[usize], rows: usize, cols: usize, values: &[f32]) -> Result<(), String> {
        let data = match &self.inner.data {
            Data::ShapeOnly => return Ok(()),
            Data::Input(_) => {
                return Err(format!(
                    "the {}{:?} tensor is an input (made with Global::from_f32) and cannot be written; make outputs with Global::zeros or Global::output_from_f32",
                    T::DTYPE,
                    self.inner.shape
                ));
            }
            Data::Output(data) => data,
        };
        let (base, row_stride, valid_rows, valid_cols) = self.box_geometry(coords, rows, cols);
        for r in 0..valid_rows {
            let src = &values[r * cols..r * cols + valid_cols];
            let dst = &data[base + r * row_stride..base + r * row_stride + valid_cols];
            for (d, s) in dst.iter().zip(src) {
                d.store(T::round(*s).to_bits(), Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// Whether kernels may write this tensor.
    pub(crate) fn is_output(&self) -> bool {
        matches!(self.inner.data, Data::Output(_))
    }

    /// Replaces the whole contents (row-major) with `values`, rounding to `T`: how a device
    /// target hands a kernel's output back. Fails on an input or shape-only tensor and on a
    /// wrong length.
    pub(crate) fn overwrite_all(&self, values: &[f32]) -> Result<(), String> {
        let Data::Output(data) = &self.inner.data else {
            return Err(format!("the {}{:?} tensor is not an output", T::DTYPE, self.inner.shape));
        };
        if values.len() != data.len() {
            return Err(format!("{} values for a tensor of shape {:?}", values.len(), self.inner.shape));
        }
        for (d, s) in data.iter().zip(values) {
            d.store(T::round(*s).to_bits(), Ordering::Relaxed);
        }
        Ok(())
    }

    /// Checks that `coords` addresses this tensor: one coordinate per dimension, outer
    /// coordinates inside the tensor. The last two may run past the edge (that part of the
    /// box is filled with zeros on load and dropped on store).
    pub(crate) fn check_coords(&self, coords: &[usize]) -> Result<(), String> {
        let shape = &self.inner.shape;
        if shape.len() < 2 {
            return Err(format!("tile copies need a tensor of rank >= 2, this one has shape {shape:?}"));
        }
        if coords.len() != shape.len() {
            return Err(format!(
                "{} coordinates given for a tensor of rank {} (shape {shape:?})",
                coords.len(),
                shape.len()
            ));
        }
        let outer = shape.len() - 2;
        if let Some(d) = (0..outer).find(|&d| coords[d] >= shape[d]) {
            return Err(format!("coordinate {d} is {} but the tensor's shape is {shape:?}", coords[d]));
        }
        Ok(())
    }

    /// Where a box at `coords` starts, for the timing model (`coords` checked by
    /// [`Global::check_coords`]).
    pub(crate) fn tile_at(&self, coords: &[usize]) -> GlobalTile {
        let (origin, ..) = self.box_geometry(coords, 1, 1);
        GlobalTile { tensor: Arc::as_ptr(&self.inner) as usize as u64, origin: origin as u64 }
    }

    /// Start offset, row stride, and the rows and columns of the box inside the tensor.
    fn box_geometry(&self, coords: &[usize], rows: usize, cols: usize) -> (usize, usize, usize, usize) {
        let shape = &self.inner.shape;
        let rank = shape.len();
        let (height, width) = (shape[rank - 2], shape[rank - 1]);
        let mut base = 0;
        for d in 0..rank - 2 {
            base = base * shape[d] + coords[d];
        }
        let (row0, col0) = (coords[rank - 2], coords[rank - 1]);
        base = (base * height + row0.min(height)) * width + col0.min(width);
        let valid_rows = height.saturating_sub(row0).min(rows);
        let valid_cols = width.saturating_sub(col0).min(cols);
        (base, width, valid_rows, valid_cols)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::bf16;

    #[test]
    fn boxes_fill_zeros_outside_and_clip_stores() {
        let values: Vec<f32> = (0..12).map(|v| v as f32).collect();
        let t = Global::<f32>::output_from_f32(&[3, 4], &values).unwrap();
        let mut out = vec![-1.0; 4];
        t.read_box(&[2, 3], 2, 2, &mut out, 0, 2);
        assert_eq!(out, [11.0, 0.0, 0.0, 0.0]);
        t.write_box(&[2, 2], 2, 2, &[100.0, 101.0, 102.0, 103.0]).unwrap();
        assert_eq!(&t.to_f32_vec().unwrap()[8..], &[8.0, 9.0, 100.0, 101.0]);
        let input = Global::<f32>::from_f32(&[3, 4], &values).unwrap();
        let mut out = vec![-1.0; 4];
        input.read_box(&[2, 3], 2, 2, &mut out, 0, 2);
        assert_eq!(out, [11.0, 0.0, 0.0, 0.0]);
        let err = input.write_box(&[0, 0], 1, 1, &[1.0]).unwrap_err();
        assert!(err.contains("f32[3, 4] tensor is an input"), "{err}");
    }

    #[test]
    fn values_are_rounded_to_the_element_type() {
        let t = Global::<bf16>::from_f32(&[1, 2], &[1.0 + 1.0 / 512.0, 3.0]).unwrap();
        assert_eq!(t.to_f32_vec().unwrap(), [1.0, 3.0]);
        assert!(Global::<bf16>::from_f32(&[2, 2], &[1.0]).is_none());
    }

    #[test]
    fn outer_dimensions_select_the_matrix() {
        let values: Vec<f32> = (0..24).map(|v| v as f32).collect();
        let t = Global::<f32>::from_f32(&[2, 3, 4], &values).unwrap();
        let mut out = vec![0.0; 3];
        t.read_box(&[1, 1, 1], 1, 2, &mut out, 1, 2);
        assert_eq!(out[0], 0.0);
        let out = &out[1..];
        assert_eq!(out, [17.0, 18.0]);
        assert!(t.check_coords(&[2, 0, 0]).is_err());
        assert!(t.check_coords(&[1, 0]).is_err());
        assert!(t.check_coords(&[1, 5, 9]).is_ok());
    }
}
