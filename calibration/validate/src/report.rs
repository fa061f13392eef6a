//! Predictions merged with measurements: one row per configuration, errors by family and
//! set, the ablation deltas, as CSV and as Markdown tables.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use warpspec::sim::Machine;
use warpspec::sim::clock::{burst_clock, sustained_clock};

use crate::fit::{activities, workload_id};
use crate::split::{Config, Set, Work};
use crate::table::{Table, field, opt};

/// One configuration, predicted and (where it ran) measured.
#[derive(Clone, Debug)]
pub struct Row {
    /// The configuration.
    pub config: Config,
    /// Predicted burst time, ms, at the predicted burst clock.
    pub pred_burst_ms: Option<f64>,
    /// The model's cycles of one launch (at the clock of its run).
    pub pred_cycles: Option<f64>,
    /// SM cycles of one launch measured by Nsight Compute (`--effective`).
    pub meas_cycles: Option<f64>,
    /// Predicted sustained time, ms.
    pub pred_sust_ms: Option<f64>,
    /// Predicted sustained clock, MHz.
    pub pred_sust_mhz: Option<f64>,
    /// The predicted burst clock, MHz.
    pub pred_burst_mhz: Option<f64>,
    /// Measured burst median, ms.
    pub meas_burst_ms: Option<f64>,
    /// SM clock during the burst, MHz: the measured cycles over the burst time per launch
    /// where cycles were measured, else NVML's reading.
    pub meas_burst_mhz: Option<f64>,
    /// Measured sustained mean over the last window, ms.
    pub meas_sust_ms: Option<f64>,
    /// Steady SM clock, MHz (as `meas_burst_mhz`).
    pub meas_sust_mhz: Option<f64>,
    /// Steady board power, W.
    pub meas_sust_w: Option<f64>,
    /// Time constant of the clock drop, s.
    pub meas_tau_s: Option<f64>,
    /// `ok`, `skipped`, `failed`, or `not run`.
    pub status: String,
    /// Which measured file the figures come from (0: this sweep).
    pub source: Option<usize>,
    /// Why not, if not.
    pub message: String,
}

impl Row {
    /// Relative error of the burst time (predicted / measured - 1).
    pub fn burst_error(&self) -> Option<f64> {
        Some(self.pred_burst_ms? / self.meas_burst_ms? - 1.0)
    }
    /// Relative error of the sustained time.
    pub fn sust_error(&self) -> Option<f64> {
        Some(self.pred_sust_ms? / self.meas_sust_ms? - 1.0)
    }
    /// Relative error of the model's cycles against the measured cycles.
    pub fn cycle_error(&self) -> Option<f64> {
        Some(self.pred_cycles? / self.meas_cycles? - 1.0)
    }
    /// Relative error of the burst clock (against the clock counted in cycles only).
    pub fn burst_clock_error(&self) -> Option<f64> {
        self.meas_cycles?;
        Some(self.pred_burst_mhz? / self.meas_burst_mhz? - 1.0)
    }
    /// Relative error of the sustained clock.
    pub fn clock_error(&self) -> Option<f64> {
        Some(self.pred_sust_mhz? / self.meas_sust_mhz? - 1.0)
    }
    /// TFLOP/s of `ms` per launch.
    pub fn tflops(&self, ms: Option<f64>) -> Option<f64> {
        Some(self.config.flops() / (ms? * 1e-3) / 1e12)
    }
}

/// Merges the split, the model's rows, the measured phases (the first file that has a
/// configuration wins: this sweep, then earlier runs of the same kernels) and the sweep's
/// status files (a sweep per family: the first file that has a configuration wins).
///
/// Unless the model ran the kernel again at its burst and sustained clocks
/// (`--resimulate`), both predictions are recomputed here from the model's activity counts
/// with `machine`'s power model (the run's cycles at the burst and at the sustained clock, as
/// `sim::clock::figures` does), so a refit needs no new model run. With `cycles` (measured
/// SM cycles of one launch per id) the measured clocks are those cycles over the time per
/// launch, the clock the model's cycles tick at (no clock where no cycles were measured);
/// without, NVML's readings.
pub fn merge(
    machine: &Machine,
    configs: &[Config],
    model: &Table,
    phases: &[Table],
    status: &[Table],
    cycles: Option<&HashMap<usize, f64>>,
) -> Vec<Row> {
    let acts = activities(model);
    configs
        .iter()
        .map(|c| {
            let m = (0..model.len()).find(|&r| model.num(r, "id") == Some(c.id as f64));
            let mnum = |col: &str| m.and_then(|r| model.num(r, col));
            // A row whose sustained run was simulated again (`--resimulate`) keeps its own
            // figures; otherwise the burst cycles at the clock the power model gives now.
            let resimulated = mnum("model_sust_cycles").zip(mnum("model_burst_cycles")).is_some_and(|(s, b)| s != b);
            let (burst, sustained) = if resimulated {
                (
                    mnum("model_burst_ghz").zip(mnum("model_burst_cycles")),
                    mnum("model_sust_ghz").zip(mnum("model_sust_cycles")),
                )
            } else {
                let a = acts.get(&c.id);
                (a.map(|a| (burst_clock(machine, a), a.cycles)), a.map(|a| (sustained_clock(machine, a), a.cycles)))
            };
            let meas_cycles = cycles.and_then(|m| m.get(&c.id).copied());
            let find = |t: &Table, which: &str| {
                (0..t.len()).find(|&r| {
                    t.get(r, "phase") == Some(which)
                        && t.get(r, "workload").and_then(|w| workload_id(w, configs)) == Some(c.id)
                })
            };
            let source = phases.iter().position(|t| find(t, "sustained").is_some());
            let (t, b, s) = match source {
                Some(i) => (Some(&phases[i]), find(&phases[i], "burst"), find(&phases[i], "sustained")),
                None => (None, None, None),
            };
            let get = |row: Option<usize>, col: &str| Some(t?.num(row?, col)).flatten();
            let st = status
                .iter()
                .find_map(|t| (0..t.len()).find(|&r| t.get(r, "id") == Some(&c.id.to_string())).map(|r| (t, r)));
            let mut status_text = st.and_then(|(t, r)| t.get(r, "status")).unwrap_or("not run").to_string();
            let mut message = st.and_then(|(t, r)| t.get(r, "message")).unwrap_or("").to_string();
            if source.is_some_and(|i| i > 0) {
                message = format!("measured in an earlier run ({status_text} in this sweep: {message})");
                status_text = "ok".into();
            }
            let (meas_burst_ms, meas_sust_ms) = (get(b, "steady_ms"), get(s, "steady_ms"));
            let counted = |ms: Option<f64>| Some(meas_cycles? / (ms? * 1e3));
            Row {
                config: c.clone(),
                pred_burst_ms: burst.map(|(ghz, cycles)| cycles / (ghz * 1e9) * 1e3),
                pred_cycles: mnum("model_burst_cycles"),
                meas_cycles,
                pred_sust_ms: sustained.map(|(ghz, cycles)| cycles / (ghz * 1e9) * 1e3),
                pred_sust_mhz: sustained.map(|(ghz, _)| ghz * 1e3),
                pred_burst_mhz: burst.map(|(ghz, _)| ghz * 1e3),
                meas_burst_ms,
                meas_burst_mhz: if cycles.is_some() { counted(meas_burst_ms) } else { get(b, "sm_mhz_steady") },
                meas_sust_ms,
                meas_sust_mhz: if cycles.is_some() { counted(meas_sust_ms) } else { get(s, "sm_mhz_steady") },
                meas_sust_w: get(s, "power_w_steady"),
                meas_tau_s: get(s, "sm_tau_s"),
                status: status_text,
                source,
                message,
            }
        })
        .collect()
}

/// The merged CSV.
pub fn csv(rows: &[Row]) -> String {
    let mut out = String::from(
        "id,family,kernel,variant,shape,set,flops,pred_burst_mhz,pred_burst_ms,pred_burst_tflops,pred_sust_mhz,pred_sust_ms,pred_sust_tflops,meas_burst_mhz,meas_burst_ms,meas_burst_tflops,meas_sust_mhz,meas_sust_ms,meas_sust_tflops,meas_sust_w,meas_tau_s,err_burst,err_sust,err_clock,pred_cycles,meas_cycles,err_cycles,status,source,message\n",
    );
    for r in rows {
        let c = &r.config;
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{:.4e},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            c.id,
            c.family,
            c.kernel,
            c.variant,
            c.shape(),
            c.set.name(),
            c.flops(),
            opt(r.pred_burst_mhz, 0),
            opt(r.pred_burst_ms, 5),
            opt(r.tflops(r.pred_burst_ms), 1),
            opt(r.pred_sust_mhz, 0),
            opt(r.pred_sust_ms, 5),
            opt(r.tflops(r.pred_sust_ms), 1),
            opt(r.meas_burst_mhz, 0),
            opt(r.meas_burst_ms, 5),
            opt(r.tflops(r.meas_burst_ms), 1),
            opt(r.meas_sust_mhz, 0),
            opt(r.meas_sust_ms, 5),
            opt(r.tflops(r.meas_sust_ms), 1),
            opt(r.meas_sust_w, 1),
            opt(r.meas_tau_s, 3),
            opt(r.burst_error(), 4),
            opt(r.sust_error(), 4),
            opt(r.clock_error(), 4),
            opt(r.pred_cycles, 0),
            opt(r.meas_cycles, 0),
            opt(r.cycle_error(), 4),
            r.status,
            r.source.map_or(String::new(), |i| i.to_string()),
            field(&r.message)
        );
    }
    out
}

fn pct(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{:+.1}%", 100.0 * v))
}

fn num(v: Option<f64>, digits: usize) -> String {
    v.map_or("-".into(), |v| format!("{v:.digits$}"))
}

/// Mean absolute value and mean of the values.
fn stats(v: &[f64]) -> Option<(f64, f64)> {
    (!v.is_empty()).then(|| {
        let n = v.len() as f64;
        (v.iter().map(|x| x.abs()).sum::<f64>() / n, v.iter().sum::<f64>() / n)
    })
}

fn summary(rows: &[Row], out: &mut String) {
    let _ = writeln!(
        out,
        "| family | set | measured | compared | burst MAE (bias) | sustained MAE (bias) | cycles MAE (bias) | burst clock MAE (bias) | sustained clock MAE (bias) |"
    );
    let _ = writeln!(out, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
    let mut groups: BTreeMap<(String, Set), Vec<&Row>> = BTreeMap::new();
    for r in rows {
        groups.entry((r.config.family.clone(), r.config.set)).or_default().push(r);
    }
    for ((family, set), g) in &groups {
        let col = |f: &dyn Fn(&Row) -> Option<f64>| {
            let v: Vec<f64> = g.iter().filter_map(|r| f(r)).collect();
            stats(&v).map_or("-".into(), |(mae, bias)| format!("{:.1}% ({:+.1}%)", 100.0 * mae, 100.0 * bias))
        };
        let measured = g.iter().filter(|r| r.meas_sust_ms.is_some()).count();
        // Rows with both a prediction and a measurement: the errors are over these.
        let compared = g.iter().filter(|r| r.burst_error().is_some()).count();
        let _ = writeln!(
            out,
            "| {family} | {} | {measured} of {} | {compared} | {} | {} | {} | {} | {} |",
            set.name(),
            g.len(),
            col(&Row::burst_error),
            col(&Row::sust_error),
            col(&Row::cycle_error),
            col(&Row::burst_clock_error),
            col(&Row::clock_error)
        );
    }
}

fn detail(rows: &[Row], family: &str, out: &mut String) {
    let _ = writeln!(
        out,
        "| id | kernel | variant | shape | set | burst ms pred / meas | err | sustained ms pred / meas | err | kcycles pred / meas | err | burst MHz pred / meas | sust. MHz pred / meas | err | W |"
    );
    let _ = writeln!(
        out,
        "| ---: | --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
    );
    for r in rows.iter().filter(|r| r.config.family == family) {
        let c = &r.config;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} / {} | {} | {} / {} | {} | {} / {} | {} | {} / {} | {} / {} | {} | {} |",
            c.id,
            c.kernel,
            c.variant,
            c.shape(),
            c.set.name(),
            num(r.pred_burst_ms, 3),
            num(r.meas_burst_ms, 3),
            pct(r.burst_error()),
            num(r.pred_sust_ms, 3),
            num(r.meas_sust_ms, 3),
            pct(r.sust_error()),
            num(r.pred_cycles.map(|c| c / 1e3), 0),
            num(r.meas_cycles.map(|c| c / 1e3), 0),
            pct(r.cycle_error()),
            num(r.pred_burst_mhz, 0),
            num(r.meas_burst_mhz, 0),
            num(r.pred_sust_mhz, 0),
            num(r.meas_sust_mhz, 0),
            pct(r.clock_error()),
            num(r.meas_sust_w, 0)
        );
    }
}

/// Ablation deltas: each schedule's time against its family's baseline at the same shape
/// (`ws` for the trade-off study, ping-pong + overlap for FA3), predicted and measured.
fn deltas(rows: &[Row], out: &mut String) {
    let _ = writeln!(
        out,
        "| family | shape | set | schedule | burst: pred | meas | diff (points) | sustained: pred | meas | diff (points) |"
    );
    let _ = writeln!(out, "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |");
    for r in rows {
        let base_variant = match &r.config.work {
            Work::Gemm { .. } if r.config.family == "tradeoff" => "ws",
            Work::Attention { .. } => "pingpong+overlap",
            _ => continue,
        };
        if r.config.variant == base_variant {
            continue;
        }
        let Some(base) = rows.iter().find(|b| {
            b.config.family == r.config.family
                && b.config.variant == base_variant
                && b.config.shape() == r.config.shape()
        }) else {
            continue;
        };
        let delta = |x: Option<f64>, y: Option<f64>| Some(x? / y? - 1.0);
        let (pb, mb) = (delta(r.pred_burst_ms, base.pred_burst_ms), delta(r.meas_burst_ms, base.meas_burst_ms));
        let (ps, ms) = (delta(r.pred_sust_ms, base.pred_sust_ms), delta(r.meas_sust_ms, base.meas_sust_ms));
        let diff = |p: Option<f64>, m: Option<f64>| {
            let (p, m) = (p?, m?);
            let sign = if (p >= 0.0) == (m >= 0.0) { "" } else { ", sign wrong" };
            Some(format!("{:.1}{sign}", 100.0 * (p - m).abs()))
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} vs {base_variant} | {} | {} | {} | {} | {} | {} |",
            r.config.family,
            r.config.shape(),
            r.config.set.name(),
            r.config.variant,
            pct(pb),
            pct(mb),
            diff(pb, mb).unwrap_or("-".into()),
            pct(ps),
            pct(ms),
            diff(ps, ms).unwrap_or("-".into())
        );
    }
}

/// The Markdown tables of a report.
pub fn markdown(rows: &[Row]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### Errors by family and set\n");
    summary(rows, &mut out);
    let skipped: Vec<&Row> = rows.iter().filter(|r| r.status != "ok").collect();
    if !skipped.is_empty() {
        let _ = writeln!(out, "\nNot measured: {} configurations.", skipped.len());
        let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
        for r in &skipped {
            *reasons.entry(format!("{} ({}): {}", r.config.family, r.status, r.message)).or_default() += 1;
        }
        for (why, n) in reasons.iter().take(6) {
            let _ = writeln!(out, "- {n} x {why}");
        }
    }
    let _ = writeln!(out, "\n### Ablation deltas (time against the baseline schedule at the same shape)\n");
    deltas(rows, &mut out);
    for family in ["ws_gemm", "tradeoff", "fa3", "cluster_gemm"] {
        let _ = writeln!(out, "\n### {family}: every configuration\n");
        detail(rows, family, &mut out);
    }
    out
}
