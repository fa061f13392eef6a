//! TMA tensor maps: a checked description of a tiled global tensor, encoded with
//! `cuTensorMapEncodeTiled` into the 128-byte descriptor a kernel takes as a
//! `const __grid_constant__ ws::TensorMap` parameter.

use super::error::driver as driver_err;
use super::{GpuError, probe};
use cudarc::driver::sys;

/// Element type of a tensor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElemType {
    /// bfloat16 (2 bytes).
    Bf16,
    /// IEEE half (2 bytes).
    F16,
    /// IEEE single (4 bytes).
    F32,
}

impl ElemType {
    /// Size in bytes.
    pub fn bytes(self) -> u64 {
        match self {
            ElemType::Bf16 | ElemType::F16 => 2,
            ElemType::F32 => 4,
        }
    }

    fn cu(self) -> sys::CUtensorMapDataType {
        match self {
            ElemType::Bf16 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
            ElemType::F16 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
            ElemType::F32 => sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        }
    }
}

/// How TMA lays the box's rows out in shared memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Swizzle {
    /// Plain row-major box.
    None,
    /// 128-byte swizzle: 16-byte chunk `c` of row `r` lands at chunk `c ^ (r % 8)`; what
    /// `ws::smem_desc_sw128` describes to wgmma. The box's inner extent must be 128 bytes or less.
    B128,
    /// 64-byte swizzle: 16-byte chunk `c` of row `r` (64-byte rows) lands at chunk
    /// `c ^ ((r / 2) % 4)`; the layout of wgmma's 64-byte swizzle mode. The box's inner
    /// extent must be 64 bytes or less.
    B64,
}

impl Swizzle {
    fn span(self) -> Option<u64> {
        match self {
            Swizzle::None => None,
            Swizzle::B128 => Some(128),
            Swizzle::B64 => Some(64),
        }
    }

    fn cu(self) -> sys::CUtensorMapSwizzle {
        match self {
            Swizzle::None => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            Swizzle::B128 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
            Swizzle::B64 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
        }
    }
}

/// A tiled view of a global tensor: dimensions innermost first, as `cuTensorMapEncodeTiled` takes them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorMapSpec {
    /// Element type.
    pub elem: ElemType,
    /// Extent of each dimension in elements, innermost (contiguous) first; 2 to 4 dimensions.
    pub dims: Vec<u64>,
    /// Byte stride of dimensions 1.. (the innermost is contiguous): `dims.len() - 1` entries.
    pub strides: Vec<u64>,
    /// The tile (box) one copy moves, in elements per dimension, innermost first.
    pub box_dims: Vec<u32>,
    /// Shared-memory layout of the box.
    pub swizzle: Swizzle,
}

/// An encoded tensor map, laid out as `CUtensorMap` (128 bytes, 64-byte aligned).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub struct TensorMap(pub [u64; 16]);

impl std::fmt::Debug for TensorMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TensorMap(..)")
    }
}

impl TensorMapSpec {
    /// A dense row-major tensor of `shape` (outermost first, as written `[rows, cols]`) read
    /// in boxes of `box_shape` (same order).
    pub fn row_major(elem: ElemType, shape: &[u64], box_shape: &[u32], swizzle: Swizzle) -> Self {
        let dims: Vec<u64> = shape.iter().rev().copied().collect();
        let mut strides = Vec::new();
        let mut stride = elem.bytes();
        for d in dims.iter().take(dims.len().saturating_sub(1)) {
            stride *= d;
            strides.push(stride);
        }
        TensorMapSpec { elem, dims, strides, box_dims: box_shape.iter().rev().copied().collect(), swizzle }
    }

    /// Bytes one box occupies in shared memory (the transaction count of one load).
    pub fn box_bytes(&self) -> u64 {
        self.box_dims.iter().map(|&b| u64::from(b)).product::<u64>() * self.elem.bytes()
    }

    /// Checks the rules of `cuTensorMapEncodeTiled` for a tensor at `address`, so a bad
    /// argument is named here instead of coming back as `CUDA_ERROR_INVALID_VALUE`.
    pub fn validate(&self, address: u64) -> Result<(), GpuError> {
        let bad = |msg: String| Err(GpuError::InvalidArgument(format!("tensor map: {msg}")));
        let rank = self.dims.len();
        if !(2..=4).contains(&rank) {
            return bad(format!("{rank} dimensions; 2 to 4 are supported"));
        }
        if self.strides.len() != rank - 1 || self.box_dims.len() != rank {
            return bad(format!(
                "{rank} dimensions need {} strides and {rank} box extents, got {} and {}",
                rank - 1,
                self.strides.len(),
                self.box_dims.len()
            ));
        }
        if !address.is_multiple_of(16) {
            return bad(format!("global address {address:#x} is not 16-byte aligned"));
        }
        if let Some(i) = self.dims.iter().position(|&d| d == 0 || d > 1 << 32) {
            return bad(format!("dimension {i} has extent {}; it must be 1..=2^32", self.dims[i]));
        }
        let mut span = self.dims[0] * self.elem.bytes();
        for (i, &s) in self.strides.iter().enumerate() {
            if !s.is_multiple_of(16) || s >= 1 << 40 {
                return bad(format!("stride {} is {s} bytes; it must be a multiple of 16 below 2^40", i + 1));
            }
            if s < span {
                return bad(format!(
                    "stride {} is {s} bytes, less than the {span} bytes of the dimension inside it",
                    i + 1
                ));
            }
            span = s * self.dims[i + 1];
        }
        for (i, &b) in self.box_dims.iter().enumerate() {
            if b == 0 || b > 256 {
                return bad(format!("box extent {i} is {b}; it must be 1..=256"));
            }
            if u64::from(b) > self.dims[i] {
                return bad(format!("box extent {i} ({b}) exceeds the tensor's extent ({})", self.dims[i]));
            }
        }
        let inner = u64::from(self.box_dims[0]) * self.elem.bytes();
        if !inner.is_multiple_of(16) {
            return bad(format!("the box's inner extent is {inner} bytes; it must be a multiple of 16"));
        }
        if let Some(max) = self.swizzle.span()
            && inner > max
        {
            return bad(format!("the box's inner extent is {inner} bytes, more than the {max}-byte swizzle span"));
        }
        Ok(())
    }

    /// Validates, then encodes the map for the tensor at device address `address`.
    pub fn encode(&self, address: u64) -> Result<TensorMap, GpuError> {
        self.validate(address)?;
        probe::driver()?;
        let mut map = sys::CUtensorMap { opaque: [0; 16] };
        let element_strides = vec![1u32; self.dims.len()];
        // SAFETY: every array has the rank's length (validated) and outlives the call;
        // `map` is a valid out-pointer.
        let rc = unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut map,
                self.elem.cu(),
                self.dims.len() as u32,
                address as *mut std::ffi::c_void,
                self.dims.as_ptr(),
                self.strides.as_ptr(),
                self.box_dims.as_ptr(),
                element_strides.as_ptr(),
                sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                self.swizzle.cu(),
                sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        };
        rc.result().map_err(|e| driver_err("cuTensorMapEncodeTiled", e))?;
        Ok(TensorMap(map.opaque))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tile(elem: ElemType, shape: &[u64], boxes: &[u32]) -> TensorMapSpec {
        TensorMapSpec::row_major(elem, shape, boxes, Swizzle::B128)
    }

    #[test]
    fn row_major_reverses_to_innermost_first() {
        let s = tile(ElemType::Bf16, &[4, 256, 512], &[1, 64, 64]);
        assert_eq!(s.dims, vec![512, 256, 4]);
        assert_eq!(s.strides, vec![1024, 1024 * 256]);
        assert_eq!(s.box_dims, vec![64, 64, 1]);
        assert_eq!(s.box_bytes(), 64 * 64 * 2);
        assert!(s.validate(0x1000).is_ok());
    }

    #[test]
    fn rejects_what_the_driver_would() {
        let msg = |s: &TensorMapSpec, addr| s.validate(addr).unwrap_err().to_string();
        let ok = tile(ElemType::Bf16, &[256, 512], &[64, 64]);
        assert!(msg(&ok, 0x1008).contains("not 16-byte aligned"));
        assert!(msg(&tile(ElemType::Bf16, &[256, 512], &[64, 128]), 0).contains("more than the 128-byte swizzle span"));
        assert!(msg(&tile(ElemType::F32, &[256, 512], &[64, 2]), 0).contains("multiple of 16"));
        assert!(msg(&tile(ElemType::Bf16, &[256, 512], &[300, 64]), 0).contains("box extent 1 is 300"));
        assert!(msg(&tile(ElemType::Bf16, &[512], &[64]), 0).contains("1 dimensions"));
        assert!(msg(&tile(ElemType::Bf16, &[2, 2, 2, 2, 64], &[1, 1, 1, 1, 64]), 0).contains("5 dimensions"));
        let odd = tile(ElemType::Bf16, &[256, 500], &[64, 64]);
        assert!(msg(&odd, 0).contains("stride 1 is 1000 bytes"));
        let mut short = ok.clone();
        short.strides[0] = 512;
        assert!(msg(&short, 0).contains("less than the 1024 bytes"));
        let plain = TensorMapSpec::row_major(ElemType::F32, &[256, 512], &[64, 128], Swizzle::None);
        assert!(plain.validate(0).is_ok());
    }
}
