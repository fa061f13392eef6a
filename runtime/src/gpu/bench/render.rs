//! Measurements as a text table (one row per workload, burst beside sustained) and as CSV:
//! one row per phase, and one row per chunk and per device reading for the time series.

use super::phase::{Measurement, Phase};
use std::fmt::Write;

fn opt(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "-".to_string(), |x| format!("{x:.decimals$}"))
}

/// The summary table: per workload, the burst and sustained time, TFLOP/s, mean SM clock
/// and mean power, the time constant of the clock's drop, and the throttle reasons seen
/// while sustained.
pub fn table(measurements: &[Measurement]) -> String {
    let header = [
        "workload",
        "burst ms",
        "TFLOP/s",
        "SM MHz",
        "W",
        "sust. ms",
        "TFLOP/s",
        "SM MHz",
        "W",
        "tau s",
        "throttle (sustained)",
    ];
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for m in measurements {
        let mut row = vec![m.name.clone()];
        for p in m.phases() {
            row.push(format!("{:.3}", p.steady_ms));
            row.push(opt(m.tflops(p.steady_ms), 0));
            row.push(opt(p.clocks.map(|c| c.sm_steady_mhz), 0));
            row.push(opt(p.power.map(|w| w.steady_w), 0));
        }
        row.push(opt(m.sustained.clocks.and_then(|c| c.sm_tau_s), 2));
        row.push(if m.sustained.throttle.is_empty() { "-".into() } else { m.sustained.throttle.join("+") });
        rows.push(row);
    }
    let widths: Vec<usize> = (0..header.len()).map(|i| rows.iter().map(|r| r[i].len()).max().unwrap_or(0)).collect();
    let mut out = String::new();
    for (n, row) in rows.iter().enumerate() {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, w))| if i == 0 || i + 1 == row.len() { format!("{c:<w$}") } else { format!("{c:>w$}") })
            .collect();
        let _ = writeln!(out, "{}", cells.join("  ").trim_end());
        if n == 0 {
            let _ = writeln!(out, "{}", "-".repeat(widths.iter().sum::<usize>() + 2 * (widths.len() - 1)));
        }
    }
    out
}

/// How each phase's figures were taken, one line per phase (for logs).
pub fn details(m: &Measurement) -> String {
    let mut out = String::new();
    for p in m.phases() {
        let t = p.times_ms;
        let _ = write!(
            out,
            "{} {}: {} iterations in {:.3} s; ms/iter median {:.4} min {:.4} max {:.4}",
            m.name,
            p.kind.name(),
            p.iterations,
            p.gpu_s,
            t.median,
            t.min,
            t.max
        );
        if p.window_s > 0.0 {
            let _ = write!(out, ", last {:.1} s mean {:.4}", p.window_s, p.steady_ms);
        }
        if let Some(c) = p.clocks {
            let _ = write!(out, "; SM {:.0}-{:.0} MHz (n {})", c.sm_mhz.min, c.sm_mhz.max, c.sm_mhz.n);
        }
        if let Some(w) = p.power {
            let _ = write!(out, "; power {:.0}-{:.0} W", w.watts.min, w.watts.max);
            if let Some(e) = w.energy_w {
                let _ = write!(out, ", energy counter {e:.0} W");
            }
        }
        if let Some(tau) = p.time_tau_s {
            let _ = write!(out, "; time series tau {tau:.2} s");
        }
        out.push('\n');
    }
    out
}

/// Header of [`phase_rows`].
pub const PHASE_HEADER: &str = "workload,phase,iterations,gpu_s,median_ms,min_ms,max_ms,steady_ms,window_s,tflops,\
sm_mhz_mean,sm_mhz_steady,mem_mhz,power_w_mean,power_w_steady,power_instant,energy_power_w,temp_max_c,sm_tau_s,\
time_tau_s,throttle";

/// One CSV row per phase, in [`PHASE_HEADER`]'s columns; absent values are empty.
pub fn phase_rows(m: &Measurement) -> Vec<String> {
    m.phases()
        .iter()
        .map(|p| {
            let t = p.times_ms;
            let c = p.clocks;
            let w = p.power;
            [
                csv_text(&m.name),
                p.kind.name().to_string(),
                p.iterations.to_string(),
                format!("{:.6}", p.gpu_s),
                format!("{:.6}", t.median),
                format!("{:.6}", t.min),
                format!("{:.6}", t.max),
                format!("{:.6}", p.steady_ms),
                format!("{:.3}", p.window_s),
                cell(m.tflops(p.steady_ms), 2),
                cell(c.map(|c| c.sm_mhz.mean), 1),
                cell(c.map(|c| c.sm_steady_mhz), 1),
                cell(c.and_then(|c| c.mem_mhz), 1),
                cell(w.map(|w| w.watts.mean), 1),
                cell(w.map(|w| w.steady_w), 1),
                w.map_or(String::new(), |w| w.instant.to_string()),
                cell(w.and_then(|w| w.energy_w), 1),
                p.temp_max_c.map_or(String::new(), |v| v.to_string()),
                cell(c.and_then(|c| c.sm_tau_s), 3),
                cell(p.time_tau_s, 3),
                p.throttle.join("+"),
            ]
            .join(",")
        })
        .collect()
}

/// Header of [`series_rows`].
pub const SERIES_HEADER: &str =
    "workload,phase,row,t_s,iterations,ms_per_iteration,sm_mhz,mem_mhz,power_w,power_instant_w,temp_c,throttle";

/// The time series of each phase: a `chunk` row per timed chunk (GPU time since the
/// phase's first event) and a `sample` row per device reading (host time since the
/// phase began).
pub fn series_rows(m: &Measurement) -> Vec<String> {
    let mut rows = Vec::new();
    for p in m.phases() {
        rows.extend(chunk_rows(&m.name, p));
        for s in &p.samples {
            rows.push(format!(
                "{},{},sample,{:.4},,,{},{},{},{},{},{}",
                csv_text(&m.name),
                p.kind.name(),
                s.t_s,
                s.sm_mhz.map_or(String::new(), |v| v.to_string()),
                s.mem_mhz.map_or(String::new(), |v| v.to_string()),
                cell(s.power_w, 2),
                cell(s.power_instant_w, 2),
                s.temp_c.map_or(String::new(), |v| v.to_string()),
                s.throttle.map_or(String::new(), |v| format!("{v:#x}")),
            ));
        }
    }
    rows
}

fn chunk_rows<'a>(name: &'a str, p: &'a Phase) -> impl Iterator<Item = String> + 'a {
    p.chunks.iter().map(move |c| {
        format!(
            "{},{},chunk,{:.6},{},{:.6},,,,,,",
            csv_text(name),
            p.kind.name(),
            c.start_s,
            c.iterations,
            c.ms_per_iteration
        )
    })
}

fn cell(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(String::new, |x| format!("{x:.decimals$}"))
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
fn csv_text(s: &str) -> String {
    if s.contains([',', '"', '\n']) { format!("\"{}\"", s.replace('"', "\"\"")) } else { s.to_string() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::bench::phase::tests::sustained;

    fn measurement(name: &str) -> Measurement {
        let p = sustained();
        Measurement { name: name.into(), flop: Some(2.0 * 8192f64.powi(3)), burst: p.clone(), sustained: p }
    }

    #[test]
    fn table_has_a_row_per_workload_with_aligned_columns() {
        let t = table(&[measurement("cublas bf16 8192x8192x8192"), measurement("cublas bf16 4096x4096x4096")]);
        let lines: Vec<&str> = t.lines().collect();
        assert_eq!(lines.len(), 4, "{t}");
        assert!(lines[0].starts_with("workload") && lines[0].contains("tau s"));
        assert!(lines[1].chars().all(|c| c == '-'));
        // 1.2375 ms per iteration at 1.1e12 flop: 888 TFLOP/s; the clock falls to 1600 MHz.
        assert!(lines[2].starts_with("cublas bf16 8192x8192x8192"), "{t}");
        for cell in ["1.237", "888", "1600", "700", "0.20", "SW_POWER_CAP"] {
            assert!(lines[2].contains(cell), "{cell} missing in {}", lines[2]);
        }
        assert_eq!(lines[2].find("SW_POWER_CAP"), lines[3].find("SW_POWER_CAP"));
    }

    #[test]
    fn phase_rows_match_the_header() {
        let rows = phase_rows(&measurement("a, \"b\""));
        let columns = PHASE_HEADER.split(',').count();
        assert_eq!(rows.len(), 2);
        assert!(rows[0].starts_with("\"a, \"\"b\"\"\",sustained,3000,"), "{}", rows[0]);
        // The quoted name holds one comma.
        assert_eq!(rows[0].split(',').count(), columns + 1);
        assert!(rows[0].contains(",true,695.0,69,0.200,") && rows[0].ends_with(",SW_POWER_CAP"), "{}", rows[0]);
    }

    #[test]
    fn series_rows_hold_chunks_and_samples() {
        let rows = series_rows(&measurement("g"));
        let columns = SERIES_HEADER.split(',').count();
        assert_eq!(rows.len(), 2 * (60 + 300));
        assert!(rows.iter().all(|r| r.split(',').count() == columns), "{}", rows[0]);
        assert!(rows[0].starts_with("g,sustained,chunk,0.000000,50,1.000000"), "{}", rows[0]);
        assert!(rows[60].starts_with("g,sustained,sample,0.0000,,,1980,3201,690.00,700.00,40,0x0"), "{}", rows[60]);
    }

    #[test]
    fn details_name_each_phase() {
        let d = details(&measurement("g"));
        assert_eq!(d.lines().count(), 2);
        assert!(d.contains("g sustained: 3000 iterations") && d.contains("last 1.0 s mean 1.2375"), "{d}");
    }
}
