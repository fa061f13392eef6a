//! Loading compiled modules and launching kernels, with a host-side deadline on completion.

use super::GpuError;
use super::compile::Compiled;
use super::context::{Gpu, Inner};
use super::error::{describe_driver, driver as driver_err};
use super::resources::KernelResources;
use super::tensor_map::TensorMap;
use cudarc::driver::{result, sys};
use std::ffi::{CString, c_void};
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A CUBIN loaded into a device's context.
pub struct Module {
    module: sys::CUmodule,
    inner: Arc<Inner>,
    /// What was loaded (log, resources).
    pub compiled: Arc<Compiled>,
}

// SAFETY: module and function handles are plain driver handles, valid from any thread once
// the context is current there, which every use binds first.
unsafe impl Send for Module {}
// SAFETY: as above; `Module` has no interior mutability.
unsafe impl Sync for Module {}
// SAFETY: as for `Module`.
unsafe impl Send for Kernel {}
// SAFETY: as for `Module`.
unsafe impl Sync for Kernel {}

impl Drop for Module {
    fn drop(&mut self) {
        if self.inner.is_poisoned() || self.inner.bind().is_err() {
            return;
        }
        // SAFETY: loaded by `Gpu::load`, unloaded once, here; kernels hold an `Arc<Module>`.
        let _ = unsafe { result::module::unload(self.module) };
    }
}

/// One entry function of a loaded module.
#[derive(Clone)]
pub struct Kernel {
    func: sys::CUfunction,
    name: String,
    _module: Arc<Module>,
}

impl Kernel {
    /// The entry function's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The kernel's resources as the driver reports them for the loaded CUBIN: registers per
    /// thread, local memory per thread (stack frame and spills together, reported as
    /// `stack_frame`) and static shared memory. For a CUBIN whose ptxas report is missing
    /// from NVRTC's log (NVRTC serves a program it compiled before from its cache without
    /// running ptxas again).
    pub fn driver_resources(&self) -> Result<KernelResources, GpuError> {
        use sys::CUfunction_attribute as A;
        let get = |attr: A, what: &'static str| -> Result<u32, GpuError> {
            // SAFETY: `func` is a live function handle (its module is held by `self`).
            let v = unsafe { result::function::get_function_attribute(self.func, attr) }
                .map_err(|e| driver_err(what, e))?;
            Ok(u32::try_from(v).unwrap_or(0))
        };
        let registers = get(A::CU_FUNC_ATTRIBUTE_NUM_REGS, "cuFuncGetAttribute(NUM_REGS)")?;
        let local = get(A::CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, "cuFuncGetAttribute(LOCAL_SIZE_BYTES)")?;
        let shared = get(A::CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "cuFuncGetAttribute(SHARED_SIZE_BYTES)")?;
        Ok(KernelResources {
            kernel: self.name.clone(),
            registers,
            stack_frame: local,
            static_smem: shared,
            ..KernelResources::default()
        })
    }
}

/// Grid, block and dynamic shared memory of one launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LaunchConfig {
    /// CTAs in x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per CTA in x, y, z.
    pub block: (u32, u32, u32),
    /// Bytes of dynamic shared memory per CTA.
    pub dynamic_smem: u32,
}

impl fmt::Display for LaunchConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (g, b) = (self.grid, self.block);
        write!(
            f,
            "grid ({}, {}, {}), block ({}, {}, {}), {} bytes dynamic shared memory",
            g.0, g.1, g.2, b.0, b.1, b.2, self.dynamic_smem
        )
    }
}

/// One kernel parameter, passed by value.
#[derive(Debug, Clone, Copy)]
pub enum KernelArg {
    /// A device address (`T*`).
    Ptr(u64),
    /// `unsigned int`.
    U32(u32),
    /// `int`.
    I32(i32),
    /// `unsigned long long`.
    U64(u64),
    /// `float`.
    F32(f32),
    /// `const __grid_constant__ ws::TensorMap`.
    TensorMap(TensorMap),
}

impl KernelArg {
    fn as_param(&self) -> *mut c_void {
        match self {
            KernelArg::Ptr(v) | KernelArg::U64(v) => v as *const u64 as *mut c_void,
            KernelArg::U32(v) => v as *const u32 as *mut c_void,
            KernelArg::I32(v) => v as *const i32 as *mut c_void,
            KernelArg::F32(v) => v as *const f32 as *mut c_void,
            KernelArg::TensorMap(m) => m as *const TensorMap as *mut c_void,
        }
    }
}

/// A launch in flight: wait on it with [`Pending::wait`].
#[must_use = "a launch is only known to have succeeded after `wait`"]
pub struct Pending {
    event: sys::CUevent,
    inner: Arc<Inner>,
    launch: String,
}

impl Pending {
    /// Polls until the kernel finishes, faults, or `timeout` passes. A fault or timeout
    /// poisons the context and names the kernel and its launch configuration.
    pub fn wait(self, timeout: Duration) -> Result<(), GpuError> {
        wait_event(&self.inner, self.event, timeout, &self.launch)
    }
}

/// Polls `event` (recorded on `inner`'s stream) until it completes, reports an error, or
/// `timeout` passes; a fault or timeout poisons the context and names `what` (the launch).
pub(crate) fn wait_event(inner: &Inner, event: sys::CUevent, timeout: Duration, what: &str) -> Result<(), GpuError> {
    inner.bind()?;
    let deadline = Instant::now() + timeout;
    let mut pause = Duration::from_micros(20);
    loop {
        // SAFETY: the caller owns the event, created and recorded in this context.
        match unsafe { result::event::query(event) } {
            Ok(()) => return Ok(()),
            Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NOT_READY => {}
            Err(e) => {
                inner.poison();
                return Err(GpuError::Fault { launch: what.to_string(), error: describe_driver(e) });
            }
        }
        if Instant::now() >= deadline {
            inner.poison();
            return Err(GpuError::Timeout { launch: what.to_string(), millis: timeout.as_millis() });
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(5));
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        if self.inner.is_poisoned() || self.inner.bind().is_err() {
            return;
        }
        // SAFETY: created in `Gpu::launch`, destroyed once, here (the driver defers the
        // destruction until recorded work completes; it does not block).
        let _ = unsafe { result::event::destroy(self.event) };
    }
}

impl Gpu {
    /// Loads a compiled program's CUBIN into this device's context.
    pub fn load(&self, compiled: Arc<Compiled>) -> Result<Arc<Module>, GpuError> {
        self.inner.check_usable()?;
        self.inner.bind()?;
        // SAFETY: the CUBIN came from NVRTC and stays alive during the call.
        let module = unsafe { result::module::load_data(compiled.cubin.as_ptr() as *const c_void) }.map_err(|e| {
            GpuError::Driver {
                call: "cuModuleLoadData",
                error: format!("{} (program {} for {})", describe_driver(e), compiled.name, compiled.arch.name()),
            }
        })?;
        Ok(Arc::new(Module { module, inner: self.inner.clone(), compiled }))
    }

    /// Looks up the entry function `name` (an `extern "C"` name or a mangled one).
    pub fn kernel(&self, module: &Arc<Module>, name: &str) -> Result<Kernel, GpuError> {
        self.inner.bind()?;
        let c_name = CString::new(name).map_err(|_| GpuError::InvalidArgument(format!("kernel name {name:?}")))?;
        // SAFETY: the module is loaded while `module` lives; the kernel keeps it alive.
        let func = unsafe { result::module::get_function(module.module, c_name) }.map_err(|e| GpuError::Driver {
            call: "cuModuleGetFunction",
            error: format!("{} (kernel {name} in {})", describe_driver(e), module.compiled.name),
        })?;
        Ok(Kernel { func, name: name.to_string(), _module: module.clone() })
    }

    /// Checks `config` against the device, raises the kernel's dynamic shared-memory limit,
    /// launches it on this device's stream, and returns a handle to wait on.
    pub fn launch(&self, kernel: &Kernel, config: &LaunchConfig, args: &[KernelArg]) -> Result<Pending, GpuError> {
        let launch = self.enqueue(kernel, config, args)?;
        let event = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
            .map_err(|e| driver_err("cuEventCreate", e))?;
        // SAFETY: fresh event, this context's stream.
        unsafe { result::event::record(event, self.inner.stream) }.map_err(|e| driver_err("cuEventRecord", e))?;
        Ok(Pending { event, inner: self.inner.clone(), launch })
    }

    /// As [`Gpu::launch`], without a completion event: for back-to-back launches timed by
    /// [`super::bench`], whose events on the same stream observe completion and faults.
    /// Returns the launch's description (kernel, device, configuration).
    pub fn enqueue(&self, kernel: &Kernel, config: &LaunchConfig, args: &[KernelArg]) -> Result<String, GpuError> {
        self.inner.check_usable()?;
        self.inner.bind()?;
        let launch = format!("kernel {} on {}: {config}", kernel.name, self.inner.name);
        self.validate(config).map_err(|msg| GpuError::InvalidArgument(format!("{launch}: {msg}")))?;
        let attr = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
        // SAFETY: `func` is a live function handle (its module is held by `kernel`).
        unsafe { result::function::set_function_attribute(kernel.func, attr, config.dynamic_smem as i32) }
            .map_err(|e| driver_err("cuFuncSetAttribute", e))?;
        let mut params: Vec<*mut c_void> = args.iter().map(KernelArg::as_param).collect();
        // SAFETY: each parameter points into `args`, alive for the call (the driver copies
        // them); the argument list must match the kernel's signature, which the code generator owns.
        unsafe {
            result::launch_kernel(
                kernel.func,
                config.grid,
                config.block,
                config.dynamic_smem,
                self.inner.stream,
                &mut params,
            )
        }
        .map_err(|e| GpuError::Driver {
            call: "cuLaunchKernel",
            error: format!("{} ({launch})", describe_driver(e)),
        })?;
        Ok(launch)
    }

    /// Clusters of `kernel` (compiled with fixed cluster dimensions whose CTA count is
    /// `config.grid`'s) that the device can hold resident at once with `config`'s block and
    /// dynamic shared memory (`cuOccupancyMaxActiveClusters`): the size of a persistent grid
    /// that runs in one wave. A cluster lives in one GPC, so this can be less than the SMs
    /// divided by the cluster size.
    pub fn max_active_clusters(&self, kernel: &Kernel, config: &LaunchConfig) -> Result<u32, GpuError> {
        self.inner.check_usable()?;
        self.inner.bind()?;
        self.validate(config).map_err(|msg| GpuError::InvalidArgument(format!("kernel {}: {msg}", kernel.name)))?;
        let attr = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
        // SAFETY: `func` is a live function handle (its module is held by `kernel`).
        unsafe { result::function::set_function_attribute(kernel.func, attr, config.dynamic_smem as i32) }
            .map_err(|e| driver_err("cuFuncSetAttribute", e))?;
        let launch = sys::CUlaunchConfig {
            gridDimX: config.grid.0,
            gridDimY: config.grid.1,
            gridDimZ: config.grid.2,
            blockDimX: config.block.0,
            blockDimY: config.block.1,
            blockDimZ: config.block.2,
            sharedMemBytes: config.dynamic_smem,
            hStream: self.inner.stream,
            attrs: std::ptr::null_mut(),
            numAttrs: 0,
        };
        let mut clusters: std::ffi::c_int = 0;
        // SAFETY: `launch` and `clusters` outlive the call; no attributes are passed (the
        // kernel's cluster dimensions are compiled in).
        unsafe { sys::cuOccupancyMaxActiveClusters(&mut clusters, kernel.func, &launch) }
            .result()
            .map_err(|e| driver_err("cuOccupancyMaxActiveClusters", e))?;
        u32::try_from(clusters).map_err(|_| GpuError::InvalidArgument(format!("{clusters} active clusters")))
    }

    fn validate(&self, c: &LaunchConfig) -> Result<(), String> {
        use sys::CUdevice_attribute::*;
        let (g, b) = (c.grid, c.block);
        if [g.0, g.1, g.2, b.0, b.1, b.2].contains(&0) {
            return Err("a grid or block extent is 0".into());
        }
        let threads = u64::from(b.0) * u64::from(b.1) * u64::from(b.2);
        let max_threads = self.attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK).map_err(|e| e.to_string())?;
        if threads > max_threads as u64 {
            return Err(format!("{threads} threads per block, the device allows {max_threads}"));
        }
        let max_smem =
            self.attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN).map_err(|e| e.to_string())?;
        if c.dynamic_smem as i64 > max_smem as i64 {
            return Err(format!("{} bytes dynamic shared memory, the device allows {max_smem}", c.dynamic_smem));
        }
        Ok(())
    }
}
