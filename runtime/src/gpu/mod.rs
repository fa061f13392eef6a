//! The GPU layer beneath the CUDA code generator: NVRTC compilation with resource reports,
//! the device library of inline-PTX wrappers, tensor maps, and launches with a host-side
//! deadline. Everything loads the CUDA libraries at run time, so the crate builds and its
//! tests run on machines without CUDA; there, each entry point returns
//! [`GpuError::LibraryMissing`] instead of panicking.
//!
//! - [`probe`]: is the driver / NVRTC there?
//! - [`mod@compile`]: CUDA C++ -> CUBIN for [`Arch::Sm90a`] or [`Arch::Sm100a`], cached by hash.
//! - [`resources`]: registers, spills, stack and shared memory per kernel, and budgets.
//! - [`device_lib`]: the `ws::` wrappers the generated code calls (`device.cuh` + wgmma variants).
//! - [`tensor_map`]: validated `cuTensorMapEncodeTiled`.
//! - [`Gpu`], [`launch`]: device memory, module load, launch, wait with timeout.
//! - [`bench`]: burst and sustained timing with CUDA events, clocks and power from NVML.
//! - [`Cublas`]: the cuBLAS bf16 GEMM reference, on the same stream.
//! - [`timestamps`]: op timestamps of a timestamped rendering, read back per warp.
//!
//! See `docs/cuda.md`.

pub mod bench;
pub mod codegen;
pub mod compile;
mod context;
mod cublas;
pub mod device_lib;
mod error;
pub mod launch;
pub mod probe;
pub mod resources;
pub mod target;
pub mod tensor_map;
pub mod timestamps;

pub use compile::{Arch, Compiled, Program, compile};
pub use context::{DeviceBuffer, Gpu};
pub use cublas::Cublas;
pub use error::GpuError;
pub use launch::{Kernel, KernelArg, LaunchConfig, Module, Pending};
pub use resources::{KernelResources, ResourceBudget};
pub use target::{Cuda, CudaError, CudaReport, Prepared};
pub use tensor_map::{ElemType, Swizzle, TensorMap, TensorMapSpec};
