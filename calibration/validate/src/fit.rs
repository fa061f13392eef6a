//! Fitting the power model (`warpspec::sim::clock`) on the calibration rows.
//!
//! Each measured sustained phase is a point on the board's power limit: SM clock `f`, board
//! power `P`, time per launch `t`. With the launch's activity counts from the model (FLOPs,
//! warp-instructions, L2 and HBM bytes: properties of the kernel, not of the timing), the
//! power model is linear in its coefficients for a fixed voltage exponent `x`:
//! `P = idle + clock s^(1+x) + e_tc s^x FLOP/s + e_is s^x instr/s + e_l2 s^x L2 B/s + e_hbm HBM B/s`.
//! The coefficients come from non-negative least squares over the calibration rows (each
//! rate over the *measured* time, so the fit does not absorb the timing model's error);
//! `x` is the grid value whose fitted model predicts the calibration rows' clocks best; the
//! drop's time constant is the median measured over the calibration rows.
//!
//! With the cycles of one launch per configuration from Nsight Compute (`--effective`,
//! `ncu_clock.py`'s `effective.csv`), the clock of a phase is the clock the SM counts its
//! cycles in (those cycles over the phase's time per launch), not NVML's reading, and two
//! more parameters are fitted: `loaded_max_ghz`, the median clock of the calibration phases
//! the power limit does not hold back (under 97% of it), and `burst_limit_w`, the median
//! power the model gives the calibration bursts that run below that clock, at their clock.

use std::collections::HashMap;
use std::fmt::Write;

use warpspec::sim::Machine;
use warpspec::sim::clock::{Activity, PowerFeatures, burst_clock, sustained_clock};

use crate::split::{Config, Set};
use crate::table::Table;

/// One measured sustained phase matched to a configuration.
#[derive(Clone, Debug)]
pub struct Point {
    /// The configuration.
    pub id: usize,
    /// Its set.
    pub set: Set,
    /// The workload as measured.
    pub workload: String,
    /// Sustained SM clock, GHz.
    pub ghz: f64,
    /// Sustained board power, W.
    pub watts: f64,
    /// Sustained time per launch, s.
    pub seconds: f64,
    /// Burst time per launch, s, and the burst clock in GHz (with `--effective` only).
    pub burst: Option<(f64, f64)>,
    /// Time constant of the drop, s.
    pub tau_s: Option<f64>,
    /// The model's counts for one launch.
    pub activity: Activity,
}

/// The id of the configuration a measured workload ran: `#id ...` from this sweep, or the
/// names `examples/gemm_gpu.rs` gives (`ws_gemm bf16 MxNxK`, `v1 128x256 p4 MxNxK`, ...).
pub fn workload_id(workload: &str, configs: &[Config]) -> Option<usize> {
    if let Some(rest) = workload.strip_prefix('#') {
        return rest.split_whitespace().next()?.parse().ok();
    }
    let words: Vec<&str> = workload.split_whitespace().collect();
    let (kernel, variant, shape) = match words[..] {
        ["ws_gemm", "bf16", shape] => ("ws_gemm_128x256_p4", "ws", shape),
        ["cluster_gemm", shape, "(bf16", "C)"] => ("cluster_gemm", "persistent", shape),
        ["ws", "128x256", "p4", shape] => ("ws_128x256_p4", "ws", shape),
        [v, "128x256", "p4", shape] => ("flat_128x256_p4", v, shape),
        _ => return None,
    };
    configs.iter().find(|c| c.kernel == kernel && c.variant == variant && c.shape() == shape).map(|c| c.id)
}

/// The model's activity counts per configuration id.
pub fn activities(model: &Table) -> HashMap<usize, Activity> {
    (0..model.len())
        .filter_map(|r| {
            let id = model.num(r, "id")? as usize;
            let a = Activity {
                flops: model.num(r, "act_flops")?,
                instructions: model.num(r, "act_instructions")?,
                l2_bytes: model.num(r, "act_l2_bytes")?,
                hbm_bytes: model.num(r, "act_hbm_bytes")?,
                cycles: model.num(r, "model_burst_cycles")?,
            };
            Some((id, a))
        })
        .collect()
}

/// SM cycles of one launch per configuration id, from `ncu_clock.py`'s `effective.csv`.
pub fn measured_cycles(effective: &Table) -> HashMap<usize, f64> {
    (0..effective.len())
        .filter_map(|r| Some((effective.get(r, "id")?.parse().ok()?, effective.num(r, "cycles")?)))
        .collect()
}

/// Every sustained phase of `phases` that matches a configuration with model counts (and,
/// given `cycles`, with measured cycles: the clocks are then cycles over time per launch).
pub fn points(configs: &[Config], model: &Table, phases: &[Table], cycles: Option<&HashMap<usize, f64>>) -> Vec<Point> {
    let acts = activities(model);
    let mut out = Vec::new();
    for t in phases {
        let burst_ms = |id: usize| {
            (0..t.len())
                .find(|&r| {
                    t.get(r, "phase") == Some("burst")
                        && t.get(r, "workload").and_then(|w| workload_id(w, configs)) == Some(id)
                })
                .and_then(|r| t.num(r, "steady_ms"))
        };
        for r in 0..t.len() {
            if t.get(r, "phase") != Some("sustained") {
                continue;
            }
            let workload = t.get(r, "workload").unwrap_or("").to_string();
            let Some(id) = workload_id(&workload, configs) else { continue };
            let (Some(config), Some(activity)) = (configs.iter().find(|c| c.id == id), acts.get(&id)) else {
                continue;
            };
            let (Some(mhz), Some(watts), Some(ms)) =
                (t.num(r, "sm_mhz_steady"), t.num(r, "power_w_steady"), t.num(r, "steady_ms"))
            else {
                continue;
            };
            let (ghz, burst) = match cycles {
                None => (mhz / 1e3, None),
                Some(map) => {
                    let Some(&n) = map.get(&id) else { continue };
                    (n / (ms * 1e6), burst_ms(id).map(|b| (b / 1e3, n / (b * 1e6))))
                }
            };
            out.push(Point {
                id,
                set: config.set,
                workload,
                ghz,
                watts,
                seconds: ms / 1e3,
                burst,
                tau_s: t.num(r, "sm_tau_s"),
                activity: Activity { cycles: ms * 1e-3 * ghz * 1e9, ..*activity },
            });
        }
    }
    out
}

/// Parses `W@MHz`.
pub fn parse_idle(s: &str) -> Result<(f64, f64), String> {
    let (w, mhz) = s.split_once('@').ok_or_else(|| format!("--idle {s:?}: expected W@MHz"))?;
    let num = |x: &str| x.trim().parse::<f64>().map_err(|_| format!("--idle {s:?}: {x:?} is not a number"));
    Ok((num(w)?, num(mhz)?))
}

/// Non-negative least squares `min |A w - y|, w >= 0` by projected coordinate descent on
/// the normal equations, columns scaled to unit norm.
pub fn nnls(a: &[Vec<f64>], y: &[f64]) -> Vec<f64> {
    let n = a.first().map_or(0, Vec::len);
    let norm: Vec<f64> = (0..n).map(|j| a.iter().map(|r| r[j] * r[j]).sum::<f64>().sqrt().max(1e-300)).collect();
    let g: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| a.iter().map(|r| r[i] * r[j]).sum::<f64>() / (norm[i] * norm[j])).collect())
        .collect();
    let h: Vec<f64> = (0..n).map(|i| a.iter().zip(y).map(|(r, y)| r[i] * y).sum::<f64>() / norm[i]).collect();
    let mut w = vec![0.0; n];
    for _ in 0..20_000 {
        for i in 0..n {
            if g[i][i] <= 0.0 {
                continue;
            }
            let grad: f64 = (0..n).map(|j| g[i][j] * w[j]).sum::<f64>() - h[i];
            w[i] = (w[i] - grad / g[i][i]).max(0.0);
        }
    }
    w.iter().zip(&norm).map(|(w, n)| w / n).collect()
}

/// The median of `values`, `None` if empty.
fn median(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    (n > 0).then(|| if n % 2 == 1 { v[n / 2] } else { 0.5 * (v[n / 2 - 1] + v[n / 2]) })
}

fn features(p: &Point, boost: f64, x: f64) -> Vec<f64> {
    let f = PowerFeatures::new(&p.activity, p.seconds, p.ghz, boost, x);
    vec![1.0, f.clock, f.tensor, f.issue, f.l2, f.hbm]
}

/// `machine` with the fitted coefficients `w` (idle, clock, tensor, issue, l2, hbm) and `x`.
pub fn with_coefficients(machine: &Machine, w: &[f64], x: f64, tau: f64) -> Machine {
    let mut m = *machine;
    let p = &mut m.power;
    p.idle_w.value = w[0];
    p.clock_w.value = w[1];
    p.tensor_pj_per_flop.value = w[2];
    p.issue_pj_per_instruction.value = w[3];
    p.l2_pj_per_byte.value = w[4];
    p.hbm_pj_per_byte.value = w[5];
    p.voltage_exponent.value = x;
    p.drop_tau_s.value = tau;
    m
}

/// Fits on the calibration points; returns a report (coefficients, errors per row).
pub fn fit(
    machine: &Machine,
    configs: &[Config],
    model: &Table,
    phases: &[Table],
    idle: Option<(f64, f64)>,
    effective: Option<&Table>,
) -> Result<String, String> {
    let cycles = effective.map(measured_cycles);
    let all = points(configs, model, phases, cycles.as_ref());
    let cal: Vec<&Point> = all.iter().filter(|p| p.set == Set::Calibration).collect();
    if cal.len() < 6 {
        return Err(format!("only {} calibration points with model counts; need at least 6", cal.len()));
    }
    let boost = machine.clocks.boost_ghz.value;
    let mut taus: Vec<f64> = cal.iter().filter_map(|p| p.tau_s).collect();
    taus.sort_by(f64::total_cmp);
    let tau = taus.get(taus.len() / 2).copied().unwrap_or(machine.power.drop_tau_s.value);
    let mut machine = *machine;
    let mut top_note = String::from("loaded_max_ghz and burst_limit_w kept (no --effective)");
    if cycles.is_some() {
        let free: Vec<f64> =
            cal.iter().filter(|p| p.watts < 0.97 * machine.power.limit_w.value).map(|p| p.ghz).collect();
        let top = median(&free).ok_or("no calibration phase under 97% of the power limit to fix loaded_max_ghz")?;
        machine.power.loaded_max_ghz.value = top;
        top_note =
            format!("loaded_max_ghz = {top:.4} (median of {} calibration phases under 97% of the limit)", free.len());
    }
    let machine = &machine;
    let clock_error = |m: &Machine, p: &Point| sustained_clock(m, &p.activity) / p.ghz - 1.0;
    let mut best: Option<(f64, Vec<f64>, f64)> = None;
    for x in [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0] {
        let mut a: Vec<Vec<f64>> = cal.iter().map(|p| features(p, boost, x)).collect();
        let mut y: Vec<f64> = cal.iter().map(|p| p.watts).collect();
        if let Some((w, mhz)) = idle {
            let s = mhz / 1e3 / boost;
            a.push(vec![1.0, s.powf(1.0 + x), 0.0, 0.0, 0.0, 0.0]);
            y.push(w);
        }
        let w = nnls(&a, &y);
        let m = with_coefficients(machine, &w, x, tau);
        let mae = cal.iter().map(|p| clock_error(&m, p).abs()).sum::<f64>() / cal.len() as f64;
        if best.as_ref().is_none_or(|b| mae < b.2) {
            best = Some((x, w, mae));
        }
    }
    let (x, w, mae) = best.ok_or("no fit")?;
    let mut m = with_coefficients(machine, &w, x, tau);
    // The bursts the fast limiter holds below the top clock: the power the model gives each
    // at its measured clock and time.
    let top = m.power.loaded_max_ghz.value;
    let held: Vec<f64> = cal
        .iter()
        .filter_map(|p| {
            let (secs, ghz) = p.burst?;
            (ghz < 0.98 * top).then(|| {
                let a = Activity { cycles: secs * ghz * 1e9, ..p.activity };
                PowerFeatures::new(&a, secs, ghz, boost, x).terms(&m.power).total()
            })
        })
        .collect();
    if let Some(limit) = median(&held) {
        m.power.burst_limit_w.value = limit;
        top_note +=
            &format!("\n  burst_limit_w = {limit:.1} (median over {} calibration bursts below 98% of it)", held.len());
    }
    let mut out = String::new();
    let _ = writeln!(out, "power model fitted on {} calibration points (+ idle point: {:?})", cal.len(), idle);
    let names =
        ["idle_w", "clock_w", "tensor_pj_per_flop", "issue_pj_per_instruction", "l2_pj_per_byte", "hbm_pj_per_byte"];
    for (n, v) in names.iter().zip(&w) {
        let _ = writeln!(out, "  {n} = {v:.4}");
    }
    let _ = writeln!(out, "  voltage_exponent = {x}\n  drop_tau_s = {tau:.3} (median of {} measured)", taus.len());
    let _ = writeln!(out, "  {top_note}");
    let _ =
        writeln!(out, "  calibration clock MAE {:.2}% (clock from measured time; the power model alone)", 100.0 * mae);
    let _ = writeln!(
        out,
        "\nset          id  workload                                         MHz meas  MHz pred   err %   W meas  W model at meas"
    );
    for p in &all {
        let pred = sustained_clock(&m, &p.activity);
        let f = PowerFeatures::new(&p.activity, p.seconds, p.ghz, boost, x).terms(&m.power).total();
        let _ = writeln!(
            out,
            "{:<12} {:>3}  {:<46} {:>8.0} {:>9.0} {:>7.2} {:>8.0} {:>8.0}",
            p.set.name(),
            p.id,
            p.workload,
            p.ghz * 1e3,
            pred * 1e3,
            100.0 * (pred / p.ghz - 1.0),
            p.watts,
            f
        );
    }
    let held: Vec<&Point> = all.iter().filter(|p| p.set == Set::Heldout).collect();
    if !held.is_empty() {
        let mae = held.iter().map(|p| clock_error(&m, p).abs()).sum::<f64>() / held.len() as f64;
        let _ = writeln!(
            out,
            "held-out clock MAE {:.2}% over {} points (power model alone, measured time)",
            100.0 * mae,
            held.len()
        );
    }
    let bursts: Vec<(&Point, f64, f64)> =
        all.iter().filter_map(|p| p.burst.map(|(_, ghz)| (p, ghz, burst_clock(&m, &p.activity)))).collect();
    if !bursts.is_empty() {
        let _ = writeln!(out, "\nburst clocks (measured cycles over burst time; predicted from the same counts)");
        let _ = writeln!(
            out,
            "set          id  workload                                         MHz meas  MHz pred   err %"
        );
        for (p, meas, pred) in &bursts {
            let _ = writeln!(
                out,
                "{:<12} {:>3}  {:<46} {:>8.0} {:>9.0} {:>7.2}",
                p.set.name(),
                p.id,
                p.workload,
                meas * 1e3,
                pred * 1e3,
                100.0 * (pred / meas - 1.0)
            );
        }
        for set in [Set::Calibration, Set::Heldout] {
            let e: Vec<f64> = bursts.iter().filter(|b| b.0.set == set).map(|(_, m, p)| (p / m - 1.0).abs()).collect();
            if !e.is_empty() {
                let _ = writeln!(
                    out,
                    "{} burst clock MAE {:.2}% over {} points (power model alone, measured time)",
                    set.name(),
                    100.0 * e.iter().sum::<f64>() / e.len() as f64,
                    e.len()
                );
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nnls_recovers_non_negative_coefficients() {
        let a: Vec<Vec<f64>> = (0..20).map(|i| vec![1.0, i as f64, (i * i) as f64 * 0.1]).collect();
        let y: Vec<f64> = a.iter().map(|r| 3.0 + 0.5 * r[1] + 2.0 * r[2]).collect();
        let w = nnls(&a, &y);
        assert!((w[0] - 3.0).abs() < 1e-3 && (w[1] - 0.5).abs() < 1e-3 && (w[2] - 2.0).abs() < 1e-3, "{w:?}");
        let y: Vec<f64> = a.iter().map(|r| 3.0 - 0.5 * r[1]).collect();
        assert!(nnls(&a, &y).iter().all(|&v| v >= 0.0));
    }

    #[test]
    fn earlier_runs_map_to_split_rows() {
        let configs = crate::split::parse(include_str!("../split.csv")).unwrap();
        let ws = workload_id("ws_gemm bf16 8192x8192x8192", &configs).unwrap();
        assert_eq!(configs[ws].kernel, "ws_gemm_128x256_p4");
        let v2 = workload_id("v2+bar.sync 128x256 p4 8192x8192x8192", &configs).unwrap();
        assert_eq!((configs[v2].kernel.as_str(), configs[v2].variant.as_str()), ("flat_128x256_p4", "v2+bar.sync"));
        assert_eq!(workload_id("#17 anything", &configs), Some(17));
        assert_eq!(workload_id("cublas bf16 8192x8192x8192", &configs), None);
        assert_eq!(parse_idle("87@405"), Ok((87.0, 405.0)));
    }
}
