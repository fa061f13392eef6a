//! Element types a kernel stores in global and shared memory.
//!
//! Data is held as `f32` inside the emulator; an [`Element`] says how many bytes one value
//! occupies on the GPU and how a value is rounded when it is stored in that format, so
//! results match what a bf16/f16 kernel would produce.

use half::{bf16, f16};

/// The storage formats a tile or tensor can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// bfloat16: 8-bit exponent, 7-bit mantissa.
    Bf16,
    /// IEEE half precision.
    F16,
    /// IEEE single precision.
    F32,
}

impl DType {
    /// Bytes one element occupies.
    pub const fn bytes(self) -> usize {
        match self {
            DType::Bf16 | DType::F16 => 2,
            DType::F32 => 4,
        }
    }

    /// Short lower-case name (`bf16`, `f16`, `f32`).
    pub const fn name(self) -> &'static str {
        match self {
            DType::Bf16 => "bf16",
            DType::F16 => "f16",
            DType::F32 => "f32",
        }
    }
}

impl std::fmt::Display for DType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A storage element type: `bf16`, `f16` or `f32`.
pub trait Element: Copy + Send + Sync + 'static {
    /// The format tag.
    const DTYPE: DType;
    /// Bytes per element on the device.
    const BYTES: usize = Self::DTYPE.bytes();
    /// Rounds an `f32` to the nearest value representable in this format (round to nearest
    /// even), returned as `f32`.
    fn round(value: f32) -> f32;
}

impl Element for bf16 {
    const DTYPE: DType = DType::Bf16;
    #[inline]
    fn round(value: f32) -> f32 {
        bf16::from_f32(value).to_f32()
    }
}

impl Element for f16 {
    const DTYPE: DType = DType::F16;
    #[inline]
    fn round(value: f32) -> f32 {
        f16::from_f32(value).to_f32()
    }
}

impl Element for f32 {
    const DTYPE: DType = DType::F32;
    #[inline]
    fn round(value: f32) -> f32 {
        value
    }
}

/// Rounds every value of `data` in place to the format `dtype`.
pub fn round_slice(dtype: DType, data: &mut [f32]) {
    match dtype {
        DType::Bf16 => data.iter_mut().for_each(|v| *v = bf16::round(*v)),
        DType::F16 => data.iter_mut().for_each(|v| *v = f16::round(*v)),
        DType::F32 => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounding_matches_the_storage_format() {
        let x = 1.0 + 1.0 / 256.0 + 1.0 / 1024.0;
        assert_eq!(bf16::round(x), 1.0 + 1.0 / 128.0);
        assert_eq!(f16::round(x), x);
        assert_eq!(<f32 as Element>::round(x), x);
        let mut v = [x, -x];
        round_slice(DType::Bf16, &mut v);
        assert_eq!(v, [bf16::round(x), -bf16::round(x)]);
    }
}
