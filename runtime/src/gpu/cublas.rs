//! cuBLAS, through cudarc and loaded at run time: the vendor reference the generated
//! kernels are measured against (bf16 GEMM, fp32 accumulation, tensor-op algorithm).

use super::context::{DeviceBuffer, Gpu, Inner};
use super::{GpuError, probe};
use crate::dsl::{DType, Element};
use cudarc::cublas::{result, sys};
use half::bf16;
use std::ffi::c_void;
use std::sync::Arc;

/// A cuBLAS handle bound to a [`Gpu`]'s stream: its calls are ordered with the GPU's
/// launches and timed by the same events.
pub struct Cublas {
    handle: sys::cublasHandle_t,
    inner: Arc<Inner>,
}

fn cublas_err(call: &'static str, e: result::CublasError) -> GpuError {
    GpuError::Driver { call, error: format!("{:?}", e.0) }
}

impl Cublas {
    /// Creates a handle on `gpu`'s stream, after probing for the library.
    pub fn new(gpu: &Gpu) -> Result<Cublas, GpuError> {
        probe::cublas()?;
        gpu.inner.check_usable()?;
        gpu.inner.bind()?;
        let handle = result::create_handle().map_err(|e| cublas_err("cublasCreate", e))?;
        let cublas = Cublas { handle, inner: gpu.inner.clone() };
        // SAFETY: a fresh handle and this context's stream (the driver and runtime share
        // stream handles).
        unsafe { result::set_stream(handle, gpu.inner.stream as sys::cudaStream_t) }
            .map_err(|e| cublas_err("cublasSetStream", e))?;
        Ok(cublas)
    }

    /// Enqueues `C = A · Bᵀ` with row-major bf16 `A` (m × k) and `B` (n × k) and a row-major
    /// `C` (m × n) of element type `C` (bf16, f16 or f32), accumulating in fp32 with the
    /// default tensor-op algorithm: the "TN" layout (both operands K-major) that the
    /// generated GEMM kernels use.
    pub fn gemm_bf16_tn<C: Element>(
        &self,
        a: &DeviceBuffer<bf16>,
        b: &DeviceBuffer<bf16>,
        c: &DeviceBuffer<C>,
        (m, n, k): (usize, usize, usize),
    ) -> Result<(), GpuError> {
        if a.len() < m * k || b.len() < n * k || c.len() < m * n {
            return Err(GpuError::InvalidArgument(format!(
                "cuBLAS GEMM {m}x{n}x{k}: buffers of {}, {} and {} elements are too small",
                a.len(),
                b.len(),
                c.len()
            )));
        }
        let dim = |x: usize| {
            i32::try_from(x).map_err(|_| GpuError::InvalidArgument(format!("cuBLAS GEMM: extent {x} over i32")))
        };
        let (mi, ni, ki) = (dim(m)?, dim(n)?, dim(k)?);
        self.inner.check_usable()?;
        self.inner.bind()?;
        let (alpha, beta) = (1.0f32, 0.0f32);
        // Column-major view: Cᵀ (n × m, ld n) = op(B buffer: k × n, ld k)ᵀ · (A buffer: k × m, ld k).
        // SAFETY: the buffers hold at least the extents checked above and live for the call;
        // alpha and beta are host f32s, as the f32 compute type expects.
        unsafe {
            result::gemm_ex(
                self.handle,
                sys::cublasOperation_t::CUBLAS_OP_T,
                sys::cublasOperation_t::CUBLAS_OP_N,
                ni,
                mi,
                ki,
                &alpha as *const f32 as *const c_void,
                b.address() as *const c_void,
                sys::cudaDataType::CUDA_R_16BF,
                ki,
                a.address() as *const c_void,
                sys::cudaDataType::CUDA_R_16BF,
                ki,
                &beta as *const f32 as *const c_void,
                c.address() as *mut c_void,
                match C::DTYPE {
                    DType::Bf16 => sys::cudaDataType::CUDA_R_16BF,
                    DType::F16 => sys::cudaDataType::CUDA_R_16F,
                    DType::F32 => sys::cudaDataType::CUDA_R_32F,
                },
                ni,
                sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
                sys::cublasGemmAlgo_t::CUBLAS_GEMM_DEFAULT_TENSOR_OP,
            )
        }
        .map_err(|e| cublas_err("cublasGemmEx", e))
    }
}

impl Drop for Cublas {
    fn drop(&mut self) {
        if self.inner.is_poisoned() || self.inner.bind().is_err() {
            return;
        }
        // SAFETY: created in `new`, destroyed once, here.
        let _ = unsafe { result::destroy_handle(self.handle) };
    }
}
