//! A CUDA device with its primary context and one stream, and typed device buffers.
//!
//! Built on cudarc's thin `result` layer so that nothing synchronises behind the caller's
//! back: after a fault or a timeout the context is marked poisoned, and dropping buffers,
//! modules and the context then leaks them instead of blocking on a wedged device.

use super::error::driver as driver_err;
use super::{GpuError, probe};
use cudarc::driver::{result, sys};
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// State shared by a [`Gpu`] and everything allocated from it.
pub(crate) struct Inner {
    pub(crate) device: sys::CUdevice,
    pub(crate) ctx: sys::CUcontext,
    pub(crate) stream: sys::CUstream,
    pub(crate) name: String,
    poisoned: AtomicBool,
}

// SAFETY: CUDA contexts, streams and device pointers may be used from any thread once the
// context is made current there, which every entry point does.
unsafe impl Send for Inner {}
// SAFETY: as above; the only interior mutability is the atomic flag.
unsafe impl Sync for Inner {}

impl Inner {
    /// Makes the context current on the calling thread.
    pub(crate) fn bind(&self) -> Result<(), GpuError> {
        // SAFETY: `ctx` is the retained primary context, alive while `self` is.
        unsafe { result::ctx::set_current(self.ctx) }.map_err(|e| driver_err("cuCtxSetCurrent", e))
    }

    /// Marks the context unusable (a kernel faulted or hangs).
    pub(crate) fn poison(&self) {
        self.poisoned.store(true, Ordering::SeqCst);
    }

    /// Whether a fault or timeout has made the context unusable.
    pub(crate) fn is_poisoned(&self) -> bool {
        self.poisoned.load(Ordering::SeqCst)
    }

    pub(crate) fn check_usable(&self) -> Result<(), GpuError> {
        if self.is_poisoned() {
            Err(GpuError::InvalidArgument(format!(
                "the context on {} is unusable after an earlier fault or timeout",
                self.name
            )))
        } else {
            Ok(())
        }
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        if self.is_poisoned() || self.bind().is_err() {
            return;
        }
        // SAFETY: the stream and the primary context were created by `Gpu::new` and are
        // released once, here. Errors on teardown have no one to report to.
        unsafe {
            let _ = result::stream::destroy(self.stream);
            let _ = result::primary_ctx::release(self.device);
        }
    }
}

/// One CUDA device: its primary context and a non-blocking stream that every launch and
/// copy of this handle uses.
pub struct Gpu {
    pub(crate) inner: Arc<Inner>,
}

impl Gpu {
    /// Opens device `ordinal`, after probing for the driver library.
    pub fn new(ordinal: i32) -> Result<Gpu, GpuError> {
        probe::driver()?;
        result::init().map_err(|e| driver_err("cuInit", e))?;
        let count = result::device::get_count().map_err(|e| driver_err("cuDeviceGetCount", e))?;
        if ordinal < 0 || ordinal >= count {
            return Err(GpuError::InvalidArgument(format!("device {ordinal} requested, {count} present")));
        }
        let device = result::device::get(ordinal).map_err(|e| driver_err("cuDeviceGet", e))?;
        let name = result::device::get_name(device).map_err(|e| driver_err("cuDeviceGetName", e))?;
        // SAFETY: `device` came from cuDeviceGet.
        let ctx =
            unsafe { result::primary_ctx::retain(device) }.map_err(|e| driver_err("cuDevicePrimaryCtxRetain", e))?;
        // SAFETY: `ctx` was just retained.
        unsafe { result::ctx::set_current(ctx) }.map_err(|e| driver_err("cuCtxSetCurrent", e))?;
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)
            .map_err(|e| driver_err("cuStreamCreate", e))?;
        Ok(Gpu { inner: Arc::new(Inner { device, ctx, stream, name, poisoned: AtomicBool::new(false) }) })
    }

    /// The device's name, e.g. `NVIDIA H200`.
    pub fn name(&self) -> &str {
        &self.inner.name
    }

    /// Streaming multiprocessors of the device: the size of a persistent grid.
    pub fn multiprocessors(&self) -> Result<u32, GpuError> {
        let n = self.attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
        Ok(n.max(1) as u32)
    }

    /// A device attribute.
    pub fn attribute(&self, attr: sys::CUdevice_attribute) -> Result<i32, GpuError> {
        // SAFETY: the device handle is valid for the life of `inner`.
        unsafe { result::device::get_attribute(self.inner.device, attr) }
            .map_err(|e| driver_err("cuDeviceGetAttribute", e))
    }

    /// Compute capability as (major, minor).
    pub fn compute_capability(&self) -> Result<(i32, i32), GpuError> {
        use sys::CUdevice_attribute::*;
        Ok((
            self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            self.attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        ))
    }

    /// Allocates `len` uninitialised elements.
    pub fn alloc<T: Copy>(&self, len: usize) -> Result<DeviceBuffer<T>, GpuError> {
        self.inner.check_usable()?;
        self.inner.bind()?;
        let bytes = len.max(1) * size_of::<T>();
        // SAFETY: a plain device allocation in the current context.
        let ptr = unsafe { result::malloc_sync(bytes) }.map_err(|e| driver_err("cuMemAlloc", e))?;
        Ok(DeviceBuffer { ptr, len, inner: self.inner.clone(), _elem: PhantomData })
    }

    /// Allocates a buffer holding a copy of `data`.
    pub fn upload<T: Copy>(&self, data: &[T]) -> Result<DeviceBuffer<T>, GpuError> {
        let buf = self.alloc(data.len())?;
        // SAFETY: `buf` holds `data.len()` elements of `T`.
        unsafe { result::memcpy_htod_sync(buf.ptr, data) }.map_err(|e| driver_err("cuMemcpyHtoD", e))?;
        Ok(buf)
    }

    /// Fills `buf` with the byte `value` (poisoning outputs before a run).
    pub fn fill_bytes<T: Copy>(&self, buf: &DeviceBuffer<T>, value: u8) -> Result<(), GpuError> {
        self.inner.check_usable()?;
        self.inner.bind()?;
        // SAFETY: `buf` is a live allocation of `byte_len` bytes.
        unsafe { result::memset_d8_sync(buf.ptr, value, buf.byte_len()) }.map_err(|e| driver_err("cuMemsetD8", e))
    }

    /// Copies `buf` back to the host. Call after [`super::Pending::wait`] so the kernel has finished.
    pub fn download<T: Copy + Default>(&self, buf: &DeviceBuffer<T>) -> Result<Vec<T>, GpuError> {
        self.inner.check_usable()?;
        self.inner.bind()?;
        let mut out = vec![T::default(); buf.len];
        // SAFETY: `out` and `buf` both hold `len` elements of `T`.
        unsafe { result::memcpy_dtoh_sync(&mut out, buf.ptr) }.map_err(|e| driver_err("cuMemcpyDtoH", e))?;
        Ok(out)
    }
}

/// `len` elements of `T` in device memory, freed on drop (leaked if the context is poisoned).
pub struct DeviceBuffer<T> {
    ptr: sys::CUdeviceptr,
    len: usize,
    inner: Arc<Inner>,
    _elem: PhantomData<T>,
}

impl<T> DeviceBuffer<T> {
    /// The device address, for kernel arguments and tensor maps.
    pub fn address(&self) -> u64 {
        self.ptr
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Size in bytes.
    pub fn byte_len(&self) -> usize {
        self.len * size_of::<T>()
    }
}

impl<T> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        if self.inner.is_poisoned() || self.inner.bind().is_err() {
            return;
        }
        // SAFETY: `ptr` was allocated by `Gpu::alloc` and is freed once, here.
        let _ = unsafe { result::free_sync(self.ptr) };
    }
}
