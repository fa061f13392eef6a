//! Measurements on the GPU: each configuration's kernel generated, compiled and launched by
//! `warpspec::gpu::Cuda`, checked once per kernel against an f64 reference, then timed by
//! `warpspec::gpu::bench` (burst: 10 iterations after warm-up; sustained: back-to-back for
//! at least the configured seconds; NVML clocks and power sampled during both).
//! Attention kernels are not checked here (`examples/attention_gpu.rs` checks them).
//!
//! A kernel the CUDA generator cannot render is skipped with the generator's message.

use std::collections::HashMap;
use std::fs::File;
use std::io::Write;
use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use warpspec::dsl::{Global, Kernel};
use warpspec::gpu::bench::{Bench, BenchConfig, Measurement, render};
use warpspec::gpu::{Cublas, Cuda};
use warpspec::{Grid, Target, bf16};
use warpspec_examples::attention::Tensors;
use warpspec_examples::gpu_gemm::check;

use crate::kernels::{self, GemmTensors, Launch};
use crate::split::{Config, Work};
use crate::table::field;

/// Where the measurements go.
pub struct Outputs {
    /// One row per phase ([`render::PHASE_HEADER`]); workload `#id kernel variant shape`.
    pub phases: File,
    /// The chunk and NVML series ([`render::SERIES_HEADER`]).
    pub series: Option<File>,
    /// `id,status,message` per configuration.
    pub status: File,
}

/// Random values in [-1, 1) rounded to bf16, `len` of them, in parallel and reproducibly.
pub fn random(seed: u64, len: usize) -> Vec<f32> {
    const CHUNK: usize = 1 << 20;
    let mut out = vec![0f32; len];
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(i, chunk)| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        for v in chunk {
            *v = bf16::from_f32(rng.gen_range(-1.0f32..1.0)).to_f32();
        }
    });
    out
}

/// Clusters of `K` a persistent grid on `cuda` holds: the device's SMs over the cluster's
/// CTAs (one CTA per SM, as examples/cluster_gemm_gpu.rs launches it).
pub fn device_clusters<K: Kernel>(cuda: &Cuda) -> Result<usize, String> {
    let sms = cuda.gpu().multiprocessors().map_err(|e| e.to_string())? as usize;
    Ok((sms / K::SPEC.cluster_shape().ctas().max(1) as usize).max(1))
}

/// Whether the CUDA generator renders the kernel: `Err` with its message if not.
struct Renders<'a>(&'a Cuda);

impl Launch for Renders<'_> {
    type Output = Result<(), String>;
    fn launch<K: Kernel>(&mut self, _grid: Grid, _params: &K::Params) -> Self::Output {
        self.0.source::<K>().map(drop).map_err(|e| e.to_string())
    }

    fn clusters<K: Kernel>(&self) -> Result<usize, String> {
        device_clusters::<K>(self.0)
    }
}

/// Runs the kernel once (for the correctness check).
struct Once<'a>(&'a Cuda);

impl Launch for Once<'_> {
    type Output = Result<(), String>;
    fn launch<K: Kernel>(&mut self, grid: Grid, params: &K::Params) -> Self::Output {
        self.0.launch::<K>(grid, params).map(drop).map_err(|e| e.to_string())
    }

    fn clusters<K: Kernel>(&self) -> Result<usize, String> {
        device_clusters::<K>(self.0)
    }
}

/// Launches the kernel once, untimed and unchecked (for a profiler: `run.sh` with `NCU=1`).
struct Profiled<'a>(&'a Cuda);

impl Launch for Profiled<'_> {
    type Output = Result<Measurement, String>;
    fn launch<K: Kernel>(&mut self, grid: Grid, params: &K::Params) -> Self::Output {
        let prepared = self.0.prepare::<K>(grid, params).map_err(|e| e.to_string())?;
        prepared.run().map_err(|e| e.to_string())?;
        Err(PROFILED.into())
    }

    fn clusters<K: Kernel>(&self) -> Result<usize, String> {
        device_clusters::<K>(self.0)
    }
}

/// The status of a configuration launched once for a profiler.
const PROFILED: &str = "launched once for a profiler";

/// Times the kernel with the bench.
struct Timed<'a, 'g> {
    cuda: &'a Cuda,
    bench: &'a mut Bench<'g>,
    name: String,
    flops: f64,
}

impl Launch for Timed<'_, '_> {
    type Output = Result<Measurement, String>;
    fn launch<K: Kernel>(&mut self, grid: Grid, params: &K::Params) -> Self::Output {
        let prepared = self.cuda.prepare::<K>(grid, params).map_err(|e| e.to_string())?;
        self.bench.measure(&self.name, Some(self.flops), || prepared.enqueue()).map_err(|e| e.to_string())
    }

    fn clusters<K: Kernel>(&self) -> Result<usize, String> {
        device_clusters::<K>(self.cuda)
    }
}

/// The sweep on the GPU.
pub struct Sweep<'a> {
    cuda: &'a Cuda,
    bench: Bench<'a>,
    out: Outputs,
    /// Kernel (and schedule) -> result of its correctness check.
    checked: HashMap<String, Result<(), String>>,
    /// The GEMM operands of the last shape, reused by every kernel at that shape.
    operands: Option<([usize; 3], GemmTensors)>,
    /// Launch each kernel once, unchecked and untimed, instead of measuring it.
    profile: bool,
    /// Time the GEMMs without checking their results (a diagnostic build whose results are
    /// meaningless, `Cuda::without_copies`).
    unchecked: bool,
}

impl<'a> Sweep<'a> {
    /// A sweep on `cuda`, sustained phases of `sustained_s` seconds after `rest_s` of rest.
    /// With `profile`, each kernel is launched once instead (for a profiler).
    pub fn new(
        cuda: &'a Cuda,
        sustained_s: f64,
        rest_s: f64,
        profile: bool,
        mut out: Outputs,
    ) -> Result<Sweep<'a>, String> {
        let config = BenchConfig {
            sustained: Duration::from_secs_f64(sustained_s),
            rest: Duration::from_secs_f64(rest_s),
            ..BenchConfig::default()
        };
        let bench = Bench::new(cuda.gpu(), config).map_err(|e| e.to_string())?;
        println!("{}", bench.telemetry());
        writeln!(out.phases, "{}", render::PHASE_HEADER).map_err(|e| e.to_string())?;
        if let Some(series) = &mut out.series {
            writeln!(series, "{}", render::SERIES_HEADER).map_err(|e| e.to_string())?;
        }
        writeln!(out.status, "id,status,message").map_err(|e| e.to_string())?;
        Ok(Sweep { cuda, bench, out, checked: HashMap::new(), operands: None, profile, unchecked: false })
    }

    /// Times the GEMMs without checking their results.
    pub fn unchecked(&mut self) {
        self.unchecked = true;
    }

    fn status(&mut self, id: &str, status: &str, message: &str) {
        println!("  {id}: {status} {message}");
        let _ = writeln!(self.out.status, "{id},{status},{}", field(message));
        let _ = self.out.status.flush();
    }

    fn record(&mut self, m: &Measurement) {
        for row in render::phase_rows(m) {
            let _ = writeln!(self.out.phases, "{row}");
        }
        let _ = self.out.phases.flush();
        if let Some(series) = &mut self.out.series {
            for row in render::series_rows(m) {
                let _ = writeln!(series, "{row}");
            }
            let _ = series.flush();
        }
        print!("{}", render::table(std::slice::from_ref(m)).lines().nth(2).map_or(String::new(), |l| format!("{l}\n")));
    }

    /// Checks the GEMM kernel of `config` once on 1000 x 1000 x 1000 (no dimension a tile
    /// multiple) against f64; the result is kept per kernel and schedule.
    fn check_gemm(&mut self, config: &Config) -> Result<(), String> {
        if self.unchecked {
            return Ok(());
        }
        let key = format!("{} {}", config.kernel, config.variant);
        if let Some(done) = self.checked.get(&key) {
            return done.clone();
        }
        if config.family == "cluster_gemm" {
            // Its C is bf16, which this f32 check does not read: examples/cluster_gemm_gpu.rs
            // checks it against f64 on every shape it times.
            return Err("cluster_gemm is measured by examples/cluster_gemm_gpu.rs (bf16 C, its own f64 check)".into());
        }
        let (m, n, k) = (1000, 1000, 1000);
        let (ha, hb) = (random(1, m * k), random(2, k * n));
        let t = GemmTensors {
            a: Global::from_f32(&[m, k], &ha).ok_or("A")?,
            b: Global::from_f32(&[k, n], &hb).ok_or("B")?,
            c: Global::<f32>::output_from_f32(&[m, n], &vec![f32::NAN; m * n]).ok_or("C")?,
        };
        let c = t.c.clone();
        let mut small = config.clone();
        if let Work::Gemm { m: cm, n: cn, k: ck, .. } = &mut small.work {
            (*cm, *cn, *ck) = (m, n, k);
        }
        let result = kernels::gemm(&small, t, &mut Once(self.cuda)).and_then(|r| r).and_then(|()| {
            let (rel, bad) = check(m, n, k, &ha, &hb, &c.to_f32_vec().unwrap_or_default());
            println!("  check {key} at 1000^3: rel. error {rel:.2e}, non-finite {bad}");
            if rel < 1e-4 && bad == 0 {
                Ok(())
            } else {
                Err(format!("wrong result: rel. error {rel:.2e}, {bad} non-finite"))
            }
        });
        self.checked.insert(key, result.clone());
        result
    }

    fn gemm_operands(&mut self, [m, n, k]: [usize; 3]) -> Result<GemmTensors, String> {
        if self.operands.as_ref().map(|o| o.0) != Some([m, n, k]) {
            self.operands = None;
            let a = Global::from_f32(&[m, k], &random(3, m * k)).ok_or("A")?;
            let b = Global::from_f32(&[k, n], &random(4, k * n)).ok_or("B")?;
            self.operands = Some(([m, n, k], GemmTensors { a, b, c: Global::zeros(&[m, n]) }));
        }
        let t = &self.operands.as_ref().ok_or("operands")?.1;
        Ok(GemmTensors { a: t.a.clone(), b: t.b.clone(), c: t.c.clone() })
    }

    /// Measures one configuration; a failure or skip is written to the status file.
    pub fn measure(&mut self, config: &Config) {
        let id = config.id.to_string();
        let name = format!("#{} {} {} {}", config.id, config.kernel, config.variant, config.shape());
        let result = match &config.work {
            Work::Gemm { m, n, k, .. } if self.profile => {
                self.gemm_operands([*m, *n, *k]).and_then(|t| kernels::gemm(config, t, &mut Profiled(self.cuda))?)
            }
            Work::Gemm { m, n, k, .. } => self.check_gemm(config).and_then(|()| {
                let t = self.gemm_operands([*m, *n, *k])?;
                let mut timed = Timed { cuda: self.cuda, bench: &mut self.bench, name, flops: config.flops() };
                kernels::gemm(config, t, &mut timed)?
            }),
            Work::Attention { problem, .. } => {
                match kernels::attention(config, Tensors::shape_only(problem), &mut Renders(self.cuda)) {
                    Ok(Ok(())) => {
                        let len = problem.elements();
                        let (q, k, v) = (random(5, len), random(6, len), random(7, len));
                        Tensors::<bf16>::new(problem, &q, &k, &v).map_err(|e| e.to_string()).and_then(|t| {
                            if self.profile {
                                return kernels::attention(config, t, &mut Profiled(self.cuda))?;
                            }
                            let mut timed =
                                Timed { cuda: self.cuda, bench: &mut self.bench, name, flops: config.flops() };
                            kernels::attention(config, t, &mut timed)?
                        })
                    }
                    Ok(Err(why)) | Err(why) => {
                        self.status(
                            &id,
                            "skipped",
                            &format!("no GPU run: the CUDA generator does not render this kernel: {why}"),
                        );
                        return;
                    }
                }
            }
        };
        match result {
            Ok(m) => {
                self.record(&m);
                self.status(&id, "ok", "");
            }
            Err(e) if e == PROFILED => self.status(&id, "profiled", ""),
            Err(e) => self.status(&id, "failed", &e),
        }
    }

    /// cuBLAS bf16 (C = A Bᵀ) at `[m, n, k]`, measured in the same run for reference.
    pub fn cublas(&mut self, [m, n, k]: [usize; 3]) {
        let id = format!("cublas {m}x{n}x{k}");
        let mut run = || -> Result<Measurement, String> {
            let gpu = self.cuda.gpu();
            let cublas = Cublas::new(gpu).map_err(|e| e.to_string())?;
            let to_bf16 = |v: Vec<f32>| v.into_iter().map(bf16::from_f32).collect::<Vec<_>>();
            let da = gpu.upload(&to_bf16(random(8, m * k))).map_err(|e| e.to_string())?;
            let db = gpu.upload(&to_bf16(random(9, n * k))).map_err(|e| e.to_string())?;
            let dc = gpu.alloc::<bf16>(m * n).map_err(|e| e.to_string())?;
            let flops = 2.0 * (m * n * k) as f64;
            if self.profile {
                cublas.gemm_bf16_tn(&da, &db, &dc, (m, n, k)).map_err(|e| e.to_string())?;
                gpu.download(&dc).map_err(|e| e.to_string())?;
                return Err(PROFILED.into());
            }
            self.bench
                .measure(&format!("cublas bf16 {m}x{n}x{k}"), Some(flops), || {
                    cublas.gemm_bf16_tn(&da, &db, &dc, (m, n, k))
                })
                .map_err(|e| e.to_string())
        };
        match run() {
            Ok(m) => {
                self.record(&m);
                self.status(&id, "ok", "");
            }
            Err(e) if e == PROFILED => self.status(&id, "profiled", ""),
            Err(e) => self.status(&id, "failed", &e),
        }
    }
}
