//! Predicted against measured, as self-contained SVG (written directly, no plotting crate):
//! one point per configuration, coloured by family, filled for calibration and hollow for
//! held-out rows, with the diagonal and a ±5% band.

use std::fmt::Write;

use crate::report::Row;
use crate::split::Set;

const W: f64 = 520.0;
const H: f64 = 480.0;
const PAD: f64 = 60.0;

fn colour(family: &str) -> &'static str {
    match family {
        "ws_gemm" => "#1f77b4",
        "tradeoff" => "#d62728",
        _ => "#2ca02c",
    }
}

/// One scatter plot of `(family, set, predicted, measured)` points.
pub fn scatter(title: &str, unit: &str, points: &[(String, Set, f64, f64)]) -> String {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for &(_, _, p, m) in points {
        lo = lo.min(p).min(m);
        hi = hi.max(p).max(m);
    }
    if !lo.is_finite() {
        (lo, hi) = (0.0, 1.0);
    }
    let span = (hi - lo).max(1e-9);
    let (lo, hi) = ((lo - 0.05 * span).max(0.0), hi + 0.05 * span);
    let x = |v: f64| PAD + (v - lo) / (hi - lo) * (W - 1.5 * PAD);
    let y = |v: f64| H - PAD - (v - lo) / (hi - lo) * (H - 1.6 * PAD);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(s, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    let _ = writeln!(s, r#"<text x="{}" y="22" text-anchor="middle" font-size="14">{title}</text>"#, W / 2.0);
    // Axes and ticks.
    let (x0, y0, x1, y1) = (x(lo), y(lo), x(hi), y(hi));
    let _ = writeln!(s, r#"<path d="M{x0:.1},{y1:.1} V{y0:.1} H{x1:.1}" stroke="black" fill="none"/>"#);
    for i in 0..=5 {
        let v = lo + (hi - lo) * f64::from(i) / 5.0;
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{v:.0}</text><text x="{:.1}" y="{:.1}" text-anchor="end">{v:.0}</text>"#,
            x(v),
            y0 + 16.0,
            x0 - 6.0,
            y(v) + 4.0
        );
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">measured ({unit})</text>"#,
        (x0 + x1) / 2.0,
        H - 14.0
    );
    let _ = writeln!(
        s,
        r#"<text x="14" y="{:.1}" text-anchor="middle" transform="rotate(-90 14 {:.1})">predicted ({unit})</text>"#,
        (y0 + y1) / 2.0,
        (y0 + y1) / 2.0
    );
    // Diagonal and the ±5% band (x: measured, y: predicted).
    let _ = writeln!(s, r##"<path d="M{x0:.1},{y0:.1} L{x1:.1},{y1:.1}" stroke="#444"/>"##);
    for f in [0.95, 1.05] {
        // predicted = f x measured, inside the box.
        let (m0, m1) = ((lo / f).max(lo), (hi / f).min(hi));
        let _ = writeln!(
            s,
            r##"<path d="M{:.1},{:.1} L{:.1},{:.1}" stroke="#aaa" stroke-dasharray="4 3"/>"##,
            x(m0),
            y(f * m0),
            x(m1),
            y(f * m1)
        );
    }
    for (family, set, p, m) in points {
        let c = colour(family);
        let fill = if *set == Set::Calibration { c } else { "none" };
        let _ = writeln!(
            s,
            r#"<circle cx="{:.1}" cy="{:.1}" r="4" stroke="{c}" stroke-width="1.5" fill="{fill}"/>"#,
            x(*m),
            y(*p)
        );
    }
    // Legend.
    let mut ly = 44.0;
    for family in ["ws_gemm", "tradeoff", "fa3"] {
        if points.iter().any(|p| p.0 == family) {
            let _ = writeln!(
                s,
                r#"<circle cx="{:.1}" cy="{ly:.1}" r="4" fill="{}"/><text x="{:.1}" y="{:.1}">{family}</text>"#,
                PAD + 10.0,
                colour(family),
                PAD + 20.0,
                ly + 4.0
            );
            ly += 16.0;
        }
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}">filled: calibration, hollow: held-out; dashed: ±5%</text>"#,
        PAD + 4.0,
        ly + 4.0
    );
    s.push_str("</svg>\n");
    s
}

/// The plots of a report: burst and sustained TFLOP/s, sustained clock.
pub fn plots(rows: &[Row]) -> Vec<(&'static str, String)> {
    let pts = |f: &dyn Fn(&Row) -> Option<(f64, f64)>| -> Vec<(String, Set, f64, f64)> {
        rows.iter().filter_map(|r| f(r).map(|(p, m)| (r.config.family.clone(), r.config.set, p, m))).collect()
    };
    vec![
        (
            "burst.svg",
            scatter(
                "Burst (boost clock): predicted vs measured",
                "TFLOP/s",
                &pts(&|r| Some((r.tflops(r.pred_burst_ms)?, r.tflops(r.meas_burst_ms)?))),
            ),
        ),
        (
            "sustained.svg",
            scatter(
                "Sustained (700 W limit): predicted vs measured",
                "TFLOP/s",
                &pts(&|r| Some((r.tflops(r.pred_sust_ms)?, r.tflops(r.meas_sust_ms)?))),
            ),
        ),
        (
            "clock.svg",
            scatter(
                "Sustained SM clock: predicted vs measured",
                "MHz",
                &pts(&|r| Some((r.pred_sust_mhz?, r.meas_sust_mhz?))),
            ),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plot_is_one_svg_with_a_point_per_row() {
        let pts =
            vec![("ws_gemm".to_string(), Set::Calibration, 600.0, 620.0), ("fa3".into(), Set::Heldout, 400.0, 380.0)];
        let s = scatter("t", "TFLOP/s", &pts);
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        assert_eq!(s.matches("<circle").count(), 2 + 2);
        assert!(scatter("empty", "x", &[]).contains("</svg>"));
    }
}
