//! Run-time compilation with NVRTC to a CUBIN for one architecture, with a cache of
//! compiled programs keyed by a hash of source, options and architecture.

use super::error::nvrtc as nvrtc_err;
use super::resources::{KernelResources, parse_ptxas_log};
use super::{GpuError, probe};
use cudarc::nvrtc::{result, sys};
use std::collections::HashMap;
use std::ffi::{CString, c_char};
use std::sync::{Arc, Mutex, OnceLock};

/// The architecture a program is compiled for; the `a` variants enable the
/// architecture-specific instructions (wgmma and setmaxnreg on Hopper, tcgen05 on Blackwell).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Arch {
    /// Hopper (H100, H200), compute capability 9.0 with its specific features.
    Sm90a,
    /// Blackwell (B200), compute capability 10.0 with its specific features; compile-only here.
    Sm100a,
}

impl Arch {
    /// The name NVRTC takes after `--gpu-architecture=`.
    pub fn name(self) -> &'static str {
        match self {
            Arch::Sm90a => "sm_90a",
            Arch::Sm100a => "sm_100a",
        }
    }
}

/// A CUDA C++ translation unit to compile.
#[derive(Debug, Clone)]
pub struct Program {
    /// Name used in diagnostics (`gemm.cu`).
    pub name: String,
    /// Full source: usually [`super::device_lib::source`] followed by the kernels.
    pub source: String,
    /// Target architecture.
    pub arch: Arch,
    /// Extra NVRTC options, after the defaults of [`Program::options`].
    pub extra_options: Vec<String>,
}

impl Program {
    /// A program for `arch` with the default options.
    pub fn new(name: impl Into<String>, source: impl Into<String>, arch: Arch) -> Self {
        Program { name: name.into(), source: source.into(), arch, extra_options: Vec::new() }
    }

    /// The diagnostic build without TMA loads: `WS_COPIES_FREE` defined (`device.cuh`: no TMA
    /// load copies anything, `mbarrier.arrive.expect_tx` expects no bytes); used by
    /// `Cuda::without_copies`.
    pub fn without_copies(mut self) -> Self {
        self.extra_options.push("-DWS_COPIES_FREE".to_string());
        self
    }

    /// All NVRTC options: architecture, C++17, line info, ptxas' resource report, then extras.
    pub fn options(&self) -> Vec<String> {
        let mut o = vec![
            format!("--gpu-architecture={}", self.arch.name()),
            "-std=c++17".to_string(),
            "-lineinfo".to_string(),
            "--ptxas-options=-v".to_string(),
        ];
        o.extend(self.extra_options.iter().cloned());
        o
    }

    /// Cache key: FNV-1a over source, options and architecture.
    pub fn key(&self) -> u64 {
        let mut h = Fnv::new();
        h.write(self.source.as_bytes());
        for o in self.options() {
            h.write(&[0]);
            h.write(o.as_bytes());
        }
        h.0
    }
}

/// 64-bit FNV-1a: stable across runs and Rust versions (unlike `DefaultHasher`).
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// A compiled program: the CUBIN, NVRTC's log and each kernel's resources.
#[derive(Debug)]
pub struct Compiled {
    /// The program's name.
    pub name: String,
    /// Architecture compiled for.
    pub arch: Arch,
    /// Cache key of the program.
    pub key: u64,
    /// The CUBIN image, loadable with `cuModuleLoadData`.
    pub cubin: Vec<u8>,
    /// NVRTC's log (ptxas' report and any warnings).
    pub log: String,
    /// Resources of every entry function.
    pub kernels: Vec<KernelResources>,
}

impl Compiled {
    /// Resources of `kernel`, or [`GpuError::NoResourceReport`].
    pub fn resources(&self, kernel: &str) -> Result<&KernelResources, GpuError> {
        self.kernels.iter().find(|k| k.kernel == kernel).ok_or_else(|| GpuError::NoResourceReport {
            kernel: kernel.to_string(),
            reported: self.kernels.iter().map(|k| k.kernel.clone()).collect(),
            log_head: self.log.chars().take(400).collect(),
        })
    }

    /// ptxas and NVRTC warnings in the log (e.g. C7508: `setmaxnreg` ignored).
    pub fn warnings(&self) -> Vec<&str> {
        self.log.lines().filter(|l| l.contains("warning")).collect()
    }
}

fn cache() -> &'static Mutex<HashMap<u64, Arc<Compiled>>> {
    static CACHE: OnceLock<Mutex<HashMap<u64, Arc<Compiled>>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Number of compiled programs held by the cache.
pub fn cached_programs() -> usize {
    cache().lock().map(|c| c.len()).unwrap_or(0)
}

/// Compiles `program`, or returns the cached result of an identical earlier compile.
pub fn compile(program: &Program) -> Result<Arc<Compiled>, GpuError> {
    probe::nvrtc()?;
    let key = program.key();
    if let Some(hit) = cache().lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(hit);
    }
    let compiled = Arc::new(compile_uncached(program, key)?);
    if let Ok(mut c) = cache().lock() {
        c.insert(key, compiled.clone());
    }
    Ok(compiled)
}

fn compile_uncached(program: &Program, key: u64) -> Result<Compiled, GpuError> {
    let invalid = |what: &str| GpuError::InvalidArgument(format!("{what} of {} contains a NUL byte", program.name));
    let src = CString::new(program.source.as_str()).map_err(|_| invalid("source"))?;
    let name = CString::new(program.name.as_str()).map_err(|_| invalid("name"))?;
    let options = program.options();
    if options.iter().any(|o| o.contains('\0')) {
        return Err(invalid("an option"));
    }
    let prog = result::create_program(&src, Some(&name)).map_err(|e| nvrtc_err("nvrtcCreateProgram", e))?;
    // SAFETY: `prog` is a live program until the destroy below; options hold no NUL (checked).
    let outcome = unsafe { result::compile_program(prog, &options) };
    // SAFETY: `prog` is live.
    let log = unsafe { result::get_program_log(prog) }.map(|l| c_chars_to_string(&l)).unwrap_or_default();
    let cubin = match outcome {
        // SAFETY: `prog` compiled successfully, so its CUBIN exists.
        Ok(()) => unsafe { get_cubin(prog) },
        Err(_) => Err(GpuError::Compile { program: program.name.clone(), log: log.clone() }),
    };
    // SAFETY: `prog` is not used after this.
    let _ = unsafe { result::destroy_program(prog) };
    let cubin = cubin?;
    Ok(Compiled { name: program.name.clone(), arch: program.arch, key, kernels: parse_ptxas_log(&log), cubin, log })
}

/// # Safety
/// `prog` must be a successfully compiled, live NVRTC program.
unsafe fn get_cubin(prog: sys::nvrtcProgram) -> Result<Vec<u8>, GpuError> {
    let mut size = 0usize;
    // SAFETY: per the function's contract.
    unsafe { sys::nvrtcGetCUBINSize(prog, &mut size) }.result().map_err(|e| nvrtc_err("nvrtcGetCUBINSize", e))?;
    let mut buf = vec![0u8; size];
    // SAFETY: `buf` holds `size` bytes, as NVRTC asked for.
    unsafe { sys::nvrtcGetCUBIN(prog, buf.as_mut_ptr() as *mut c_char) }
        .result()
        .map_err(|e| nvrtc_err("nvrtcGetCUBIN", e))?;
    Ok(buf)
}

fn c_chars_to_string(chars: &[c_char]) -> String {
    let bytes: Vec<u8> = chars.iter().take_while(|&&c| c != 0).map(|&c| c as u8).collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_depends_on_source_options_and_arch() {
        let a = Program::new("a.cu", "x", Arch::Sm90a);
        let mut b = a.clone();
        assert_eq!(a.key(), b.key());
        b.arch = Arch::Sm100a;
        assert_ne!(a.key(), b.key());
        let mut c = a.clone();
        c.extra_options.push("-DX=1".into());
        assert_ne!(a.key(), c.key());
        assert_ne!(a.key(), Program::new("a.cu", "y", Arch::Sm90a).key());
    }

    #[test]
    fn options_name_the_architecture_and_request_the_report() {
        let o = Program::new("a.cu", "", Arch::Sm100a).options();
        assert!(o.contains(&"--gpu-architecture=sm_100a".to_string()));
        assert!(o.contains(&"--ptxas-options=-v".to_string()));
    }
}
