//! The GPU as a [`Target`]: a kernel's IR rendered by [`super::codegen`], compiled with
//! NVRTC (cached by source hash), its global tensors uploaded and described by tensor maps,
//! launched with a host-side deadline, and its outputs copied back into the `Global`s.
//!
//! [`Cuda::prepare`] does everything up to the launch and returns a [`Prepared`] launch
//! that can be run many times (the benchmark's closure) before [`Prepared::finish`] copies
//! the outputs back; [`Target::launch`] is prepare, one run, finish.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use warpspec_hw::CtaLimits;

use super::codegen::{self, CodegenError, Generated, ParamSlot, TimestampSpec};
use super::timestamps::{WarpRecord, decode};
use super::{
    Arch, DeviceBuffer, ElemType, Gpu, GpuError, KernelArg, KernelResources, LaunchConfig, Program, Swizzle,
    TensorMapSpec, compile,
};
use crate::dsl::{ArgValue, DType, GlobalArg, Kernel};
use crate::error::LaunchError;
use crate::launch::Grid;
use crate::target::Target;

/// Why a launch on the GPU failed.
#[derive(Debug)]
pub enum CudaError {
    /// The launch was rejected before reaching the GPU.
    Launch(LaunchError),
    /// The kernel could not be rendered to CUDA.
    Codegen(CodegenError),
    /// The GPU layer failed: no driver, a compile error, a fault, a timeout.
    Gpu(GpuError),
    /// A launch argument does not fit the generated kernel.
    Argument(String),
    /// The kernel is rendered for an architecture the device is not (a Blackwell kernel,
    /// which uses tensor memory, on a Hopper GPU).
    WrongArchitecture {
        /// The kernel.
        kernel: String,
        /// What it is compiled for.
        arch: Arch,
        /// The device's name.
        device: String,
        /// The device's compute capability (major, minor).
        capability: (i32, i32),
    },
}

impl std::fmt::Display for CudaError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CudaError::Launch(e) => write!(f, "{e}"),
            CudaError::Codegen(e) => write!(f, "{e}"),
            CudaError::Gpu(e) => write!(f, "{e}"),
            CudaError::Argument(m) => write!(f, "launch argument: {m}"),
            CudaError::WrongArchitecture { kernel, arch, device, capability: (major, minor) } => {
                let needs = match arch {
                    Arch::Sm90a => "compute capability 9.0, a Hopper H100/H200",
                    Arch::Sm100a => "compute capability 10.0, a Blackwell B200",
                };
                write!(
                    f,
                    "kernel `{kernel}` is compiled for {} ({needs}) and cannot run on {device} (compute capability {major}.{minor}); here it can be generated and compiled, not run",
                    arch.name()
                )
            }
        }
    }
}

impl std::error::Error for CudaError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CudaError::Launch(e) => Some(e),
            CudaError::Codegen(e) => Some(e),
            CudaError::Gpu(e) => Some(e),
            CudaError::Argument(_) | CudaError::WrongArchitecture { .. } => None,
        }
    }
}

impl From<LaunchError> for CudaError {
    fn from(e: LaunchError) -> Self {
        CudaError::Launch(e)
    }
}

impl From<GpuError> for CudaError {
    fn from(e: GpuError) -> Self {
        CudaError::Gpu(e)
    }
}

impl From<CodegenError> for CudaError {
    fn from(e: CodegenError) -> Self {
        CudaError::Codegen(e)
    }
}

/// What a launch on the GPU reports.
#[derive(Clone, Debug)]
pub struct CudaReport {
    /// The kernel.
    pub kernel: String,
    /// Registers, spills and shared memory from ptxas.
    pub resources: KernelResources,
    /// Grid, block and dynamic shared memory.
    pub config: LaunchConfig,
    /// Launch to completion, host clock (includes launch overhead).
    pub elapsed: Duration,
}

/// A compiled, loaded kernel.
struct Loaded {
    generated: Generated,
    kernel: super::Kernel,
    resources: KernelResources,
}

/// The GPU target: one device, its stream, and the kernels loaded on it.
pub struct Cuda {
    gpu: Gpu,
    /// How long a launch may take before it is reported as hung.
    pub timeout: Duration,
    loaded: Mutex<HashMap<String, Arc<Loaded>>>,
    /// Render every kernel with op timestamps ([`Cuda::timestamped`]).
    timestamps: Option<TimestampSpec>,
    /// Build every kernel without its TMA loads ([`Cuda::without_copies`]).
    copies_free: bool,
}

/// A device copy of a global tensor.
enum Buffer {
    Half(DeviceBuffer<u16>),
    Single(DeviceBuffer<f32>),
}

impl Buffer {
    fn address(&self) -> u64 {
        match self {
            Buffer::Half(b) => b.address(),
            Buffer::Single(b) => b.address(),
        }
    }
}

/// A launch ready to run: the kernel, its configuration and arguments, device buffers.
pub struct Prepared<'a> {
    cuda: &'a Cuda,
    loaded: Arc<Loaded>,
    /// Grid, block and dynamic shared memory.
    pub config: LaunchConfig,
    args: Vec<KernelArg>,
    outputs: Vec<(&'a dyn GlobalArg, Buffer)>,
    _inputs: Vec<Buffer>,
    timestamps: Option<DeviceBuffer<u64>>,
}

impl Cuda {
    /// The GPU `ordinal`, or a one-line error when there is no driver or device.
    pub fn new(ordinal: i32) -> Result<Cuda, GpuError> {
        Ok(Cuda {
            gpu: Gpu::new(ordinal)?,
            timeout: Duration::from_secs(10),
            loaded: Mutex::new(HashMap::new()),
            timestamps: None,
            copies_free: false,
        })
    }

    /// A diagnostic build: every kernel compiled with `WS_COPIES_FREE` (`device.cuh`), so its
    /// TMA loads copy nothing and a stage is full at its producer's arrival. The kernels'
    /// results are meaningless; their time is the time without the loads' memory cost, to
    /// set beside the model's run with [`crate::sim::SimOptions::copies_free`].
    pub fn without_copies(mut self) -> Cuda {
        self.copies_free = true;
        self
    }

    /// The GPU `ordinal`, every kernel rendered with op timestamps (`spec`): after a run,
    /// [`Prepared::timestamps`] reads when each op of each warp of the first `spec.ctas`
    /// CTAs began. A timestamped kernel runs slower than the plain one (6-47% on the H200:
    /// `docs/validation.md`, "Op by op"); time the plain one with [`Cuda::new`].
    pub fn timestamped(ordinal: i32, spec: TimestampSpec) -> Result<Cuda, GpuError> {
        let mut cuda = Cuda::new(ordinal)?;
        cuda.timestamps = Some(spec);
        Ok(cuda)
    }

    /// The device.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Generates, compiles (checking ptxas' report: no spills, no stack frame, registers
    /// within the roles' budget) and loads kernel `K`, once.
    fn load<K: Kernel>(&self) -> Result<Arc<Loaded>, CudaError> {
        let Some(ir) = K::ir_of() else {
            return Err(CudaError::Argument(format!(
                "kernel `{}` has no IR (the macro could not lower it); it cannot run on the GPU",
                K::SPEC.name
            )));
        };
        if let Some(l) = self.loaded.lock().map_err(|_| CudaError::Argument("poisoned cache".into()))?.get(&ir.name) {
            return Ok(l.clone());
        }
        let generated = match self.timestamps {
            Some(spec) => codegen::generate_timestamped(ir, spec)?,
            None => codegen::generate(ir)?,
        };
        runnable(&generated.entry, generated.arch, self.gpu.name(), self.gpu.compute_capability()?)?;
        let program = Program::new(format!("{}.cu", generated.entry), generated.translation_unit(), generated.arch);
        let program = if self.copies_free { program.without_copies() } else { program };
        let compiled = compile(&program)?;
        let reported = compiled.resources(&generated.entry).cloned();
        let module = self.gpu.load(compiled)?;
        let kernel = self.gpu.kernel(&module, &generated.entry)?;
        let resources = match reported {
            Ok(r) => r,
            // NVRTC served the program from its cache without ptxas' report: ask the driver.
            Err(GpuError::NoResourceReport { .. }) => kernel.driver_resources()?,
            Err(e) => return Err(e.into()),
        };
        resources.check(&generated.resource_budget())?;
        let loaded = Arc::new(Loaded { generated, kernel, resources });
        if let Ok(mut map) = self.loaded.lock() {
            map.insert(ir.name.clone(), loaded.clone());
        }
        Ok(loaded)
    }

    /// The generated source of `K` (for inspection).
    pub fn source<K: Kernel>(&self) -> Result<String, CudaError> {
        Ok(self.load::<K>()?.generated.source.clone())
    }

    /// Clusters of `K` the device holds resident at once (`cuOccupancyMaxActiveClusters`
    /// with `K`'s block, shared memory and compiled-in cluster dimensions): the largest
    /// persistent grid, in clusters, that runs in a single wave. A kernel without clusters
    /// counts CTAs (clusters of one).
    pub fn max_active_clusters<K: Kernel>(&self) -> Result<usize, CudaError> {
        let loaded = self.load::<K>()?;
        let Some(ir) = K::ir_of() else {
            return Err(CudaError::Argument(format!("kernel `{}` has no IR", K::SPEC.name)));
        };
        let [x, y, z] = ir.cluster.unwrap_or([1, 1, 1]);
        let g = &loaded.generated;
        let config = LaunchConfig { grid: (x, y, z), block: (g.threads, 1, 1), dynamic_smem: g.smem_bytes };
        Ok(self.gpu.max_active_clusters(&loaded.kernel, &config)? as usize)
    }

    /// Uploads `params` and builds the launch of `K` over `grid`.
    pub fn prepare<'a, K: Kernel>(&'a self, grid: Grid, params: &'a K::Params) -> Result<Prepared<'a>, CudaError> {
        if grid.ctas() == 0 {
            return Err(LaunchError::EmptyGrid { grid: grid.dims }.into());
        }
        let loaded = self.load::<K>()?;
        let arguments = K::arguments(params);
        let find = |name: &str| arguments.iter().find(|a| a.name == name).map(|a| a.value);
        let mut buffers: HashMap<String, (Buffer, &'a dyn GlobalArg)> = HashMap::new();
        let mut args = Vec::new();
        let mut timestamps = None;
        for slot in &loaded.generated.params {
            let global = |name: &str| -> Result<&'a dyn GlobalArg, CudaError> {
                match find(name) {
                    Some(ArgValue::Global(g)) => Ok(g),
                    _ => Err(CudaError::Argument(format!("`{name}` is not a global tensor of the launch"))),
                }
            };
            match slot {
                ParamSlot::Map { global: name, rank, rows, cols, swizzle } => {
                    let g = global(name)?;
                    let address = self.upload(&mut buffers, name, g)?;
                    let elem = elem_type(g.dtype());
                    let shape: Vec<u64> = g.shape().iter().map(|&d| d as u64).collect();
                    if shape.len() != *rank {
                        return Err(CudaError::Argument(format!(
                            "`{name}` has shape {:?}; the kernel reads it with {rank} coordinates",
                            g.shape()
                        )));
                    }
                    let swizzle = if *swizzle == 64 { Swizzle::B64 } else { Swizzle::B128 };
                    let mut boxes = vec![1u32; rank.saturating_sub(2)];
                    boxes.extend([*rows, *cols]);
                    let spec = TensorMapSpec::row_major(elem, &shape, &boxes, swizzle);
                    args.push(KernelArg::TensorMap(spec.encode(address)?));
                }
                ParamSlot::Pointer { global: name } => {
                    let g = global(name)?;
                    args.push(KernelArg::Ptr(self.upload(&mut buffers, name, g)?));
                }
                ParamSlot::Extent { global: name, axis } => {
                    let g = global(name)?;
                    let Some(&d) = g.shape().get(*axis) else {
                        return Err(CudaError::Argument(format!(
                            "`{name}` has shape {:?}, no dimension {axis}",
                            g.shape()
                        )));
                    };
                    args.push(KernelArg::I32(
                        i32::try_from(d)
                            .map_err(|_| CudaError::Argument(format!("`{name}` dimension {axis} is {d}, over i32")))?,
                    ));
                }
                ParamSlot::Int(name) => match find(name) {
                    Some(ArgValue::Int(v)) => args.push(KernelArg::I32(
                        i32::try_from(v)
                            .map_err(|_| CudaError::Argument(format!("`{name}` = {v} does not fit an int")))?,
                    )),
                    _ => return Err(CudaError::Argument(format!("`{name}` is not an integer argument"))),
                },
                ParamSlot::Bool(name) => match find(name) {
                    Some(ArgValue::Bool(v)) => args.push(KernelArg::I32(i32::from(v))),
                    _ => return Err(CudaError::Argument(format!("`{name}` is not a flag argument"))),
                },
                ParamSlot::Float(name) => match find(name) {
                    Some(ArgValue::Float(v)) => args.push(KernelArg::F32(v as f32)),
                    _ => return Err(CudaError::Argument(format!("`{name}` is not a float argument"))),
                },
                ParamSlot::Timestamps => {
                    let Some(layout) = &loaded.generated.timestamps else {
                        return Err(CudaError::Argument("a timestamp buffer for a kernel rendered without".into()));
                    };
                    let buf = self.gpu.alloc::<u64>(layout.spec.words(layout.warps))?;
                    self.gpu.fill_bytes(&buf, 0)?;
                    args.push(KernelArg::Ptr(buf.address()));
                    timestamps = Some(buf);
                }
            }
        }
        let (mut outputs, mut inputs) = (Vec::new(), Vec::new());
        for (_, (buf, g)) in buffers {
            if g.is_output() { outputs.push((g, buf)) } else { inputs.push(buf) }
        }
        let [x, y, z] = grid.dims;
        let g = &loaded.generated;
        let config = LaunchConfig { grid: (x, y, z), block: (g.threads, 1, 1), dynamic_smem: g.smem_bytes };
        Ok(Prepared { cuda: self, loaded, config, args, outputs, _inputs: inputs, timestamps })
    }

    /// Uploads global `name` once; its device address.
    fn upload<'a>(
        &self,
        buffers: &mut HashMap<String, (Buffer, &'a dyn GlobalArg)>,
        name: &str,
        g: &'a dyn GlobalArg,
    ) -> Result<u64, CudaError> {
        if let Some((b, _)) = buffers.get(name) {
            return Ok(b.address());
        }
        let len: usize = g.shape().iter().product();
        let values = g.values();
        let buf = match (g.dtype(), values) {
            (DType::F32, Some(v)) => Buffer::Single(self.gpu.upload(&v)?),
            (DType::F32, None) => Buffer::Single(self.gpu.alloc(len)?),
            (DType::Bf16, Some(v)) => Buffer::Half(
                self.gpu.upload(&v.iter().map(|x| half::bf16::from_f32(*x).to_bits()).collect::<Vec<_>>())?,
            ),
            (DType::F16, Some(v)) => {
                Buffer::Half(self.gpu.upload(&v.iter().map(|x| half::f16::from_f32(*x).to_bits()).collect::<Vec<_>>())?)
            }
            (_, None) => Buffer::Half(self.gpu.alloc(len)?),
        };
        let address = buf.address();
        buffers.insert(name.to_string(), (buf, g));
        Ok(address)
    }
}

/// Whether a kernel compiled for `arch` runs on a device of compute capability
/// `capability`: the `a` targets' architecture-specific instructions (wgmma, tcgen05) run
/// only on their own compute capability (CUDA Programming Guide, "Feature Availability":
/// `sm_90a` code on 9.0, `sm_100a` on 10.0).
pub(crate) fn runnable(kernel: &str, arch: Arch, device: &str, capability: (i32, i32)) -> Result<(), CudaError> {
    let needs = match arch {
        Arch::Sm90a => (9, 0),
        Arch::Sm100a => (10, 0),
    };
    if capability == needs {
        return Ok(());
    }
    Err(CudaError::WrongArchitecture { kernel: kernel.to_string(), arch, device: device.to_string(), capability })
}

fn elem_type(d: DType) -> ElemType {
    match d {
        DType::Bf16 => ElemType::Bf16,
        DType::F16 => ElemType::F16,
        DType::F32 => ElemType::F32,
    }
}

impl Prepared<'_> {
    /// Runs the kernel once and waits for it (deadline: [`Cuda::timeout`]).
    pub fn run(&self) -> Result<Duration, CudaError> {
        let start = Instant::now();
        self.cuda.gpu.launch(&self.loaded.kernel, &self.config, &self.args)?.wait(self.cuda.timeout)?;
        Ok(start.elapsed())
    }

    /// Enqueues one run on the GPU's stream without waiting (for timed back-to-back runs).
    pub fn enqueue(&self) -> Result<(), GpuError> {
        self.cuda.gpu.enqueue(&self.loaded.kernel, &self.config, &self.args).map(|_| ())
    }

    /// The kernel's resources from ptxas.
    pub fn resources(&self) -> &KernelResources {
        &self.loaded.resources
    }

    /// The generated kernel's layout (roles, and with timestamps the sites).
    pub fn generated(&self) -> &Generated {
        &self.loaded.generated
    }

    /// The op timestamps of the last run, per recording warp (`None`: the kernel was not
    /// rendered with timestamps). Call after [`Prepared::run`].
    pub fn timestamps(&self) -> Result<Option<Vec<WarpRecord>>, CudaError> {
        let (Some(buf), Some(layout)) = (&self.timestamps, &self.loaded.generated.timestamps) else {
            return Ok(None);
        };
        let words = self.cuda.gpu.download(buf)?;
        decode(layout, &self.loaded.generated.roles, &words).map(Some).map_err(|e| CudaError::Argument(e.to_string()))
    }

    /// Copies the outputs back into their `Global`s.
    pub fn finish(self) -> Result<(), CudaError> {
        for (g, buf) in &self.outputs {
            let values: Vec<f32> = match buf {
                Buffer::Single(b) => self.cuda.gpu.download(b)?,
                Buffer::Half(b) => {
                    let bits = self.cuda.gpu.download(b)?;
                    match g.dtype() {
                        DType::F16 => bits.iter().map(|&x| half::f16::from_bits(x).to_f32()).collect(),
                        _ => bits.iter().map(|&x| half::bf16::from_bits(x).to_f32()).collect(),
                    }
                }
            };
            g.overwrite(&values).map_err(CudaError::Argument)?;
        }
        Ok(())
    }
}

impl Target for Cuda {
    type Report = CudaReport;
    type Error = CudaError;

    fn name(&self) -> String {
        format!("gpu ({})", self.gpu.name())
    }

    fn limits(&self) -> CtaLimits {
        CtaLimits::HOPPER
    }

    fn launch<K: Kernel>(&self, grid: Grid, params: &K::Params) -> Result<CudaReport, CudaError> {
        let prepared = self.prepare::<K>(grid, params)?;
        let elapsed = prepared.run()?;
        let report = CudaReport {
            kernel: prepared.loaded.generated.entry.clone(),
            resources: prepared.resources().clone(),
            config: prepared.config,
            elapsed,
        };
        prepared.finish()?;
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blackwell_kernel_is_refused_on_a_hopper_device_in_one_line() {
        assert!(runnable("k", Arch::Sm90a, "NVIDIA H200", (9, 0)).is_ok());
        assert!(runnable("k", Arch::Sm100a, "NVIDIA B200", (10, 0)).is_ok());
        let e = runnable("fa4_bf16_d128", Arch::Sm100a, "NVIDIA H200", (9, 0)).unwrap_err();
        let msg = e.to_string();
        assert!(
            msg.contains("fa4_bf16_d128") && msg.contains("sm_100a") && msg.contains("B200") && msg.contains("9.0"),
            "{msg}"
        );
        assert!(!msg.contains('\n'), "{msg}");
        // Neither runs the other's architecture-specific code.
        assert!(runnable("k", Arch::Sm90a, "NVIDIA B200", (10, 0)).is_err());
    }
}
