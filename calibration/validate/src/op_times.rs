//! Op by op: how long each source line of a kernel holds its warps on the GPU (op
//! timestamps, `warpspec::gpu::timestamps`) and in the timing model (its timeline), set side
//! by side. `validate op-times --gpu` records on the GPU machine; `validate op-times
//! --compare` runs the model here and writes the comparison.
//!
//! Files in the output directory, per configuration `ID`:
//! - `ID_gpu.csv`, `ID_model.csv`: [`OpTimes::csv`] (role, warps, line, visits, cycles per
//!   visit, share of the warps' time);
//! - `ID_sites.csv`: `role,line,op` of every marked operation;
//! - `ID_gpu_cta0.csv`: CTA 0's raw marks (`warp,sm,role,of_instance,line,op,cycle`);
//! - `ID_model_cta0.csv`: the same of the model's first CTA on SM 0, one mark where a warp
//!   enters a line (as the GPU's: one per op visit);
//! - `ID_gpu_ctas.csv`: per recorded CTA, its SM and the cycles (its SM's `clock64`) of its
//!   first mark, of its first warp's entry into a `store_global` and of its last warp's end,
//!   and the global timer (ns) at that end, which puts every SM's cycles on one time base:
//!   how far apart the CTAs of one wave reach their epilogues;
//! - `ID_gpu.txt`: the plain and the timestamped kernel's time, marks kept, rows full;
//! - `ID_compare.txt`: [`OpTimes::compare`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;
use std::time::Duration;

use warpspec::dsl::{Global, Kernel};
use warpspec::gpu::bench::{Bench, BenchConfig};
use warpspec::gpu::codegen::{self, MarkedLines, TimestampSite, TimestampSpec};
use warpspec::gpu::timestamps::WarpRecord;
use warpspec::gpu::{Cuda, Prepared};
use warpspec::report::{LineTime, OpTimes, WarpClass, WarpMarks};
use warpspec::sim::{Machine, SimOptions, TraceOptions, simulate};
use warpspec::{Grid, bf16};
use warpspec_examples::attention::Tensors;

use crate::gpu::random;
use crate::kernels::{self, GemmTensors, Launch};
use crate::split::{Config, Work};
use crate::table::Table;

/// Marks per warp on the GPU: room for a 8192-deep K loop's ops.
pub const CAPACITY: u32 = 16381;

/// Recording `ctas` CTAs (the first wave of a one-CTA-per-SM kernel: 132), at the ops of
/// `lines` only where given.
pub fn spec(ctas: u32, lines: Option<MarkedLines>) -> TimestampSpec {
    TimestampSpec { ctas, capacity: CAPACITY, lines }
}

/// The timing of each rendering: a burst of 10 iterations after 3 of warm-up (CUDA events),
/// from a rested GPU, and a short sustained phase the bench requires.
fn bench_config() -> BenchConfig {
    BenchConfig {
        warmup: 3,
        burst: 10,
        sustained: Duration::from_millis(300),
        window: Duration::from_millis(100),
        chunk: Duration::from_millis(20),
        rest: Duration::from_millis(500),
        ..BenchConfig::default()
    }
}

/// Marked operations by `(role, line)`: the ops on each line.
type Sites = BTreeMap<(String, u32), Vec<&'static str>>;

/// `sites` grouped by role and line.
fn by_line(sites: &[TimestampSite]) -> Sites {
    let mut out = Sites::new();
    for s in sites {
        let ops = out.entry((s.role.clone(), s.line)).or_default();
        if !ops.contains(&s.op) {
            ops.push(s.op);
        }
    }
    out
}

/// The marked operations of `K` (on `lines` only, where given).
fn sites<K: Kernel>(lines: Option<MarkedLines>) -> Result<Sites, String> {
    let ir = K::ir_of().ok_or_else(|| format!("kernel `{}` has no IR", K::SPEC.name))?;
    let g = codegen::generate_timestamped(ir, spec(1, lines)).map_err(|e| e.to_string())?;
    Ok(by_line(&g.timestamps.map(|t| t.sites).unwrap_or_default()))
}

fn sites_csv(sites: &Sites) -> String {
    let mut out = String::from("role,line,ops\n");
    for ((role, line), ops) in sites {
        let _ = writeln!(out, "{role},{line},{}", ops.join("+"));
    }
    out
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The model's side: one run at the top clock under load with SM 0-3's first CTA traced whole.
struct Model<'a> {
    machine: &'a Machine,
    /// The lines the GPU record marked (`None`: all).
    lines: Option<MarkedLines>,
    /// The kernel's descriptor placement and wait forms (its compiled code's, where read).
    compiled: SimOptions,
}

/// The header of a raw-marks file (`ID_gpu_cta0.csv`, `ID_model_cta0.csv`).
const RAW_HEADER: &str = "warp,sm,role,of_instance,line,op,cycle\n";

/// Appends one warp's raw marks to `out`: a row per mark, `op(i)` naming the `i`-th mark's
/// operations, then an `end` row where the warp's end is known.
fn raw_warp(out: &mut String, warp: u32, sm: u32, w: &WarpMarks, op: impl Fn(usize) -> String) {
    let (role, of_instance) = (&w.role, w.of_instance);
    for (i, &(line, cycle)) in w.marks.iter().enumerate() {
        let _ = writeln!(out, "{warp},{sm},{role},{of_instance},{line},{},{cycle}", op(i));
    }
    if let Some(end) = w.end {
        let _ = writeln!(out, "{warp},{sm},{role},{of_instance},0,end,{end}");
    }
}

/// One CTA's span in a GPU record: its SM, its warps' first mark, their first mark at a
/// store, their last end and the global timer then.
#[derive(Default)]
struct CtaSpan {
    sm: u32,
    start: Option<u64>,
    store: Option<u64>,
    end: Option<u64>,
    end_ns: Option<u64>,
}

/// Per CTA of `records`: `cta,sm,start,store,end,end_ns` (its first mark, its warps' first
/// mark at an op `is_store` names, its warps' last end and the global timer read right after
/// it; empty where there is none).
fn ctas_csv(records: &[WarpRecord], is_store: impl Fn(u32) -> bool) -> String {
    let mut ctas: BTreeMap<u32, CtaSpan> = BTreeMap::new();
    let min = |a: Option<u64>, b: Option<u64>| a.into_iter().chain(b).min();
    for r in records {
        let c = ctas.entry(r.cta).or_insert_with(|| CtaSpan { sm: r.sm, ..CtaSpan::default() });
        let first = r.marks.marks.first().map(|&(_, cycle)| cycle);
        let store = r.marks.marks.iter().zip(&r.sites).find(|&(_, &site)| is_store(site)).map(|(&(_, cycle), _)| cycle);
        c.start = min(c.start, first);
        c.store = min(c.store, store);
        if let Some(end) = r.marks.end.filter(|&e| c.end.is_none_or(|last| e > last)) {
            (c.end, c.end_ns) = (Some(end), Some(r.end_ns));
        }
    }
    let cell = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
    let mut out = String::from("cta,sm,start,store,end,end_ns\n");
    for (cta, c) in ctas {
        let (start, store, end, end_ns) = (cell(c.start), cell(c.store), cell(c.end), cell(c.end_ns));
        let _ = writeln!(out, "{cta},{},{start},{store},{end},{end_ns}", c.sm);
    }
    out
}

/// The raw marks of the model's first CTA on SM 0 in the GPU record's format: a mark where a
/// warp's spans enter a marked line, as the GPU's marks open each op's visit.
fn model_cta0_csv(warps: &BTreeMap<(u32, u32, u32), WarpMarks>, sites: &Sites) -> String {
    let mut out = String::from(RAW_HEADER);
    for (&(sm, _, warp), w) in warps.iter().filter(|&(&(sm, resident, _), _)| sm == 0 && resident == 0) {
        let mut w = w.clone();
        w.marks.dedup_by_key(|&mut (line, _)| line);
        let op = |i: usize| sites.get(&(w.role.clone(), w.marks[i].0)).map_or(String::new(), |o| o.join("+"));
        raw_warp(&mut out, warp, sm, &w, op);
    }
    out
}

impl Launch for Model<'_> {
    type Output = Result<(OpTimes, Sites, String), String>;

    fn launch<K: Kernel>(&mut self, grid: Grid, params: &K::Params) -> Self::Output {
        let sites = sites::<K>(self.lines)?;
        let lines: BTreeSet<(String, u32)> = sites.keys().cloned().collect();
        let top = self.machine.power.loaded_max_ghz.value.min(self.machine.clocks.boost_ghz.value);
        let trace = TraceOptions { sms: 4, ctas_per_sm: 1, max_events_per_sm: 2_000_000, window: None };
        let opts = SimOptions { clock_ghz: Some(top), ..self.compiled.clone() }.with_trace(trace);
        let run = simulate::<K>(self.machine, grid, params, &opts).map_err(|e| e.to_string())?;
        let trace = run.trace.ok_or("the model recorded no timeline")?;
        let by_warp = OpTimes::marks_by_warp(&trace, |role, line| lines.contains(&(role.to_string(), line)));
        let raw = model_cta0_csv(&by_warp, &sites);
        let warps: Vec<WarpMarks> = by_warp.into_values().collect();
        Ok((OpTimes::new(&warps), sites, raw))
    }

    fn clusters<K: Kernel>(&self) -> Result<usize, String> {
        crate::model::resident_clusters::<K>(self.machine)
    }
}

/// The GPU's side: the plain kernel timed, the timestamped one timed and recorded.
struct Gpu<'a> {
    plain: &'a Cuda,
    timestamped: &'a Cuda,
    dir: &'a Path,
    id: usize,
}

/// The burst time of `prepared` on `cuda`'s GPU, ms per iteration (median), and the mean SM
/// clock sampled during it, MHz.
fn burst(cuda: &Cuda, name: &str, prepared: &Prepared<'_>) -> Result<(f64, Option<f64>), String> {
    let mut bench = Bench::new(cuda.gpu(), bench_config()).map_err(|e| e.to_string())?;
    let m = bench.measure(name, None, || prepared.enqueue()).map_err(|e| e.to_string())?;
    Ok((m.burst.steady_ms, m.burst.clocks.map(|c| c.sm_steady_mhz)))
}

impl Launch for Gpu<'_> {
    type Output = Result<(), String>;

    fn launch<K: Kernel>(&mut self, grid: Grid, params: &K::Params) -> Self::Output {
        let e = |e: warpspec::gpu::CudaError| e.to_string();
        let plain = self.plain.prepare::<K>(grid, params).map_err(e)?;
        let (plain_ms, plain_mhz) = burst(self.plain, "plain", &plain)?;
        drop(plain);
        let marked = self.timestamped.prepare::<K>(grid, params).map_err(e)?;
        let (marked_ms, marked_mhz) = burst(self.timestamped, "timestamped", &marked)?;
        // The record read back is the last iteration's.
        let records = marked.timestamps().map_err(e)?.ok_or("no timestamps")?;
        let layout = marked.generated().timestamps.clone().ok_or("no timestamp layout")?;
        let warps: Vec<WarpMarks> = records.iter().map(|r| r.marks.clone()).collect();
        let times = OpTimes::new(&warps);
        let id = self.id;
        write(&self.dir.join(format!("{id}_gpu.csv")), &times.csv())?;
        let mut raw = String::from(RAW_HEADER);
        for r in records.iter().filter(|r| r.cta == 0) {
            raw_warp(&mut raw, r.warp, r.sm, &r.marks, |i| layout.sites[r.sites[i] as usize].op.to_string());
        }
        write(&self.dir.join(format!("{id}_gpu_cta0.csv")), &raw)?;
        let stores: Vec<bool> = layout.sites.iter().map(|site| site.op == "store_global").collect();
        write(&self.dir.join(format!("{id}_gpu_ctas.csv")), &ctas_csv(&records, |site| stores[site as usize]))?;
        let marks: usize = records.iter().map(|r| r.marks.marks.len()).sum();
        let full = records.iter().filter(|r| r.full).count();
        let mhz = |m: Option<f64>| m.map_or("?".to_string(), |m| format!("{m:.0}"));
        let r = marked.resources();
        let summary = format!(
            "plain kernel {plain_ms:.4} ms at {} MHz, timestamped {marked_ms:.4} ms at {} MHz ({:+.1}%): burst \
             median, CUDA events\n{} warps recorded, {marks} marks, {full} rows full; timestamped: {} registers, \
             {} B spill stores, {} B spill loads\n",
            mhz(plain_mhz),
            mhz(marked_mhz),
            (marked_ms / plain_ms - 1.0) * 100.0,
            records.len(),
            r.registers,
            r.spill_stores,
            r.spill_loads
        );
        print!("{summary}");
        write(&self.dir.join(format!("{id}_gpu.txt")), &summary)?;
        write(&self.dir.join(format!("{id}_sites.csv")), &sites_csv(&by_line(&layout.sites)))
    }

    fn clusters<K: Kernel>(&self) -> Result<usize, String> {
        crate::gpu::device_clusters::<K>(self.plain)
    }
}

/// Launches `config` through `l`: shape-only tensors for the model, random ones for the GPU.
fn launch<L: Launch>(config: &Config, data: bool, l: &mut L) -> Result<L::Output, String> {
    match &config.work {
        Work::Gemm { m, n, k, .. } => {
            let (m, n, k) = (*m, *n, *k);
            let t = if data {
                GemmTensors {
                    a: Global::from_f32(&[m, k], &random(3, m * k)).ok_or("A")?,
                    b: Global::from_f32(&[k, n], &random(4, k * n)).ok_or("B")?,
                    c: Global::zeros(&[m, n]),
                }
            } else {
                GemmTensors::shape_only(m, n, k)
            };
            kernels::gemm(config, t, l)
        }
        Work::Attention { problem, .. } => {
            let t = if data {
                let len = problem.elements();
                let (q, k, v) = (random(5, len), random(6, len), random(7, len));
                Tensors::<bf16>::new(problem, &q, &k, &v).map_err(|e| e.to_string())?
            } else {
                Tensors::<bf16>::shape_only(problem)
            };
            kernels::attention(config, t, l)
        }
    }
}

/// Records every configuration on GPU 0 into `dir`, the first `ctas` CTAs of each, at the ops
/// of `lines` only where given.
pub fn record(configs: &[Config], dir: &Path, ctas: u32, lines: Option<MarkedLines>) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let plain = Cuda::new(0).map_err(|e| e.to_string())?;
    let timestamped = Cuda::timestamped(0, spec(ctas, lines)).map_err(|e| e.to_string())?;
    println!("device: {}", plain.gpu().name());
    for c in configs {
        println!("{c}");
        let mut gpu = Gpu { plain: &plain, timestamped: &timestamped, dir, id: c.id };
        if let Err(e) = launch(c, true, &mut gpu).and_then(|r| r) {
            println!("  failed: {e}");
        }
    }
    Ok(())
}

fn parse_times(text: &str) -> Result<OpTimes, String> {
    let t = Table::parse(text)?;
    let mut lines = Vec::new();
    for i in 0..t.len() {
        let class = match t.get(i, "warps") {
            Some("leader") => WarpClass::Leader,
            Some("others") => WarpClass::Others,
            other => return Err(format!("row {i}: warps {other:?}")),
        };
        let num = |c: &str| t.num(i, c).ok_or_else(|| format!("row {i}: no {c}"));
        lines.push(LineTime {
            role: t.get(i, "role").unwrap_or_default().to_string(),
            class,
            line: num("line")? as u32,
            visits: num("visits")? as u64,
            mean: num("mean_cycles")?,
            median: num("median_cycles")?,
            share: num("share")?,
        });
    }
    Ok(OpTimes { lines, warps: 0 })
}

/// Runs the model for every configuration with a GPU record in `dir` and writes the
/// comparison beside it, the model's marks on `lines` only where given (as the record's), on
/// `machine` (the H200's description, or one with some parameters in its place).
/// `how` gives each kernel its compiled code's descriptor placement and wait forms, where
/// it has their tables (nothing else of it is read).
pub fn compare(
    configs: &[Config],
    dir: &Path,
    lines: Option<MarkedLines>,
    machine: &Machine,
    how: crate::model::How<'_>,
) -> Result<(), String> {
    for c in configs {
        let gpu_path = dir.join(format!("{}_gpu.csv", c.id));
        let Ok(text) = std::fs::read_to_string(&gpu_path) else {
            println!("{c}: no {}", gpu_path.display());
            continue;
        };
        let measured = parse_times(&text)?;
        let compiled = crate::model::compiled_options(c, how);
        let (model, sites, raw) = launch(c, false, &mut Model { machine, lines, compiled })??;
        write(&dir.join(format!("{}_model.csv", c.id)), &model.csv())?;
        write(&dir.join(format!("{}_model_cta0.csv", c.id)), &raw)?;
        let label = |role: &str, line: u32| sites.get(&(role.to_string(), line)).map_or(String::new(), |o| o.join("+"));
        let mut text = format!("{c}\n");
        if let Ok(s) = std::fs::read_to_string(dir.join(format!("{}_gpu.txt", c.id))) {
            text.push_str(&s);
        }
        text.push_str(&model.compare(&measured, label));
        println!("{text}");
        write(&dir.join(format!("{}_compare.txt", c.id)), &text)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_as_written_and_a_bad_row_is_an_error() {
        let warps = [WarpMarks {
            role: "producer".into(),
            of_instance: 0,
            marks: vec![(111, 0), (112, 40), (111, 100)],
            end: Some(130),
        }];
        let times = OpTimes::new(&warps);
        let back = parse_times(&times.csv()).unwrap();
        assert_eq!(back.lines.len(), times.lines.len());
        for (a, b) in back.lines.iter().zip(&times.lines) {
            assert_eq!((&a.role, a.class, a.line, a.visits), (&b.role, b.class, b.line, b.visits));
            assert!((a.mean - b.mean).abs() < 0.1 && (a.share - b.share).abs() < 1e-3);
        }
        let bad = "role,warps,line,visits,mean_cycles,median_cycles,share\nproducer,all,111,1,1,1,1\n";
        assert!(parse_times(bad).unwrap_err().contains("warps"));
    }

    #[test]
    fn a_cta_spans_its_warps_first_mark_first_store_and_last_end() {
        let warp = |cta, warp, marks: Vec<(u32, u64)>, sites, end: Option<u64>| WarpRecord {
            cta,
            warp,
            sm: 7 + cta,
            full: false,
            end_ns: end.map_or(0, |e| 5000 + e / 2),
            marks: WarpMarks { role: "worker".into(), of_instance: warp, marks, end },
            sites,
        };
        // Site 2 is the store; CTA 1's only warp never reaches it.
        let records = [
            warp(0, 0, vec![(10, 100), (20, 500)], vec![0, 2], Some(900)),
            warp(0, 1, vec![(10, 90), (11, 300), (20, 450)], vec![0, 1, 2], Some(950)),
            warp(1, 0, vec![(10, 120)], vec![0], None),
        ];
        let csv = ctas_csv(&records, |site| site == 2);
        assert_eq!(csv, "cta,sm,start,store,end,end_ns\n0,7,90,450,950,5475\n1,8,120,,,\n");
    }

    #[test]
    fn the_sites_of_a_kernel_are_its_marked_ops_by_line() {
        let sites = sites::<crate::kernels::ws_gemm_128x128_p2::Kernel>(None).unwrap();
        let ops: Vec<&str> = sites.values().flatten().copied().collect();
        assert!(ops.contains(&"acquire") && ops.contains(&"wgmma") && ops.contains(&"release"), "{ops:?}");
        assert!(sites_csv(&sites).starts_with("role,line,ops\n"));
    }
}
