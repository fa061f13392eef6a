//! Probes for the CUDA driver and NVRTC before cudarc touches them.
//!
//! cudarc loads `libcuda` and `libnvrtc` lazily and panics when they are missing; every entry
//! point of this module's parent calls [`driver`] or [`nvrtc`] first, so a machine without
//! CUDA gets a [`GpuError::LibraryMissing`] with a one-line message instead.

use super::GpuError;
use std::sync::OnceLock;

/// Ok when the CUDA driver library can be loaded.
pub fn driver() -> Result<(), GpuError> {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: loading the library runs its initialisers, which the driver supports.
    let present = *PRESENT.get_or_init(|| unsafe { cudarc::driver::sys::is_culib_present() });
    if present {
        Ok(())
    } else {
        Err(GpuError::LibraryMissing {
            library: "libcuda.so.1",
            hint: "no NVIDIA driver found; the gpu target needs a driver",
        })
    }
}

/// Ok when NVRTC can be loaded.
pub fn nvrtc() -> Result<(), GpuError> {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: as for the driver; NVRTC has no process-wide side effects on load.
    let present = *PRESENT.get_or_init(|| unsafe { cudarc::nvrtc::sys::is_culib_present() });
    if present {
        Ok(())
    } else {
        Err(GpuError::LibraryMissing {
            library: "libnvrtc.so.13",
            hint: "NVRTC compiles the kernels; install PyPI nvidia-cuda-nvrtc and put site-packages/nvidia/cu13/lib on LD_LIBRARY_PATH",
        })
    }
}

/// NVRTC's version as (major, minor), after probing for the library.
pub fn nvrtc_version() -> Result<(i32, i32), GpuError> {
    nvrtc()?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: the library is present (probed above) and the out-pointers are valid.
    unsafe { cudarc::nvrtc::sys::nvrtcVersion(&mut major, &mut minor) }
        .result()
        .map_err(|e| super::error::nvrtc("nvrtcVersion", e))?;
    Ok((major, minor))
}

/// Ok when cuBLAS can be loaded (the vendor reference of the benchmarks).
pub fn cublas() -> Result<(), GpuError> {
    static PRESENT: OnceLock<bool> = OnceLock::new();
    // SAFETY: as for the driver; cuBLAS has no process-wide side effects on load.
    let present = *PRESENT.get_or_init(|| unsafe { cudarc::cublas::sys::is_culib_present() });
    if present {
        Ok(())
    } else {
        Err(GpuError::LibraryMissing {
            library: "libcublas.so.13",
            hint: "the cuBLAS reference needs the CUDA 13 cuBLAS (CUDA toolkit, or PyPI nvidia-cublas) on LD_LIBRARY_PATH",
        })
    }
}
