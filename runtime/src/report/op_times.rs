//! When each operation of a warp began, and how long each kernel source line holds a warp:
//! the same figures from the timing model's timeline ([`OpTimes::marks_of_trace`]) and from
//! op timestamps recorded on the GPU (`crate::gpu::timestamps`), so the two can be set side
//! by side line by line ([`OpTimes::compare`]).
//!
//! A warp's marks are the starts of its operations in order. Consecutive marks on one line (an
//! op that issues in several spans, or several ops written on one line) form one visit; a
//! visit lasts from its first mark to the next visit's (or to the warp's end). So a line's
//! time includes whatever the warp does until the next marked line starts: the loop's own
//! arithmetic, unmarked queries and views, and the stalls in between.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use super::trace::{Trace, Track};

/// Which warps of a role instance a figure covers: the first (which runs the instance's
/// single-thread work, such as TMA issue) or the others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WarpClass {
    /// Warp 0 of an instance.
    Leader,
    /// Every other warp of an instance.
    Others,
}

impl WarpClass {
    /// The class of warp `of_instance` of its instance.
    pub fn of(of_instance: u32) -> WarpClass {
        if of_instance == 0 { WarpClass::Leader } else { WarpClass::Others }
    }

    fn name(self) -> &'static str {
        match self {
            WarpClass::Leader => "leader",
            WarpClass::Others => "others",
        }
    }
}

/// One warp's marks: the cycle (on its SM's clock) each visited line began at, in order,
/// and the cycle it finished.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WarpMarks {
    /// The role it runs.
    pub role: String,
    /// Its warp number within its role instance.
    pub of_instance: u32,
    /// `(line, cycle)` per operation start, in time order.
    pub marks: Vec<(u32, u64)>,
    /// The cycle its role ended, if known.
    pub end: Option<u64>,
}

/// A source line's share of a role's warps: one row of [`OpTimes`].
#[derive(Clone, Debug, PartialEq)]
pub struct LineTime {
    /// The role.
    pub role: String,
    /// Which of its warps.
    pub class: WarpClass,
    /// The line.
    pub line: u32,
    /// Visits, summed over warps.
    pub visits: u64,
    /// Cycles per visit, mean.
    pub mean: f64,
    /// Cycles per visit, median.
    pub median: f64,
    /// Share of the warps' marked cycles (first mark to end).
    pub share: f64,
}

/// Cycles per visit of each (role, warp class, line).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct OpTimes {
    /// Rows by role, class and line.
    pub lines: Vec<LineTime>,
    /// Warps the figures come from.
    pub warps: usize,
}

impl OpTimes {
    /// The figures of `warps`.
    pub fn new(warps: &[WarpMarks]) -> OpTimes {
        type Key = (String, WarpClass, u32);
        let mut visits: BTreeMap<Key, Vec<u64>> = BTreeMap::new();
        let mut totals: HashMap<(String, WarpClass), u64> = HashMap::new();
        for w in warps {
            let class = WarpClass::of(w.of_instance);
            let mut starts: Vec<(u32, u64)> = Vec::new();
            for &(line, cycle) in &w.marks {
                if starts.last().is_none_or(|&(l, _)| l != line) {
                    starts.push((line, cycle));
                }
            }
            let ends = starts.iter().skip(1).map(|&(_, c)| Some(c)).chain([w.end]);
            for (&(line, start), end) in starts.iter().zip(ends) {
                let Some(end) = end else { continue };
                let cycles = end.saturating_sub(start);
                visits.entry((w.role.clone(), class, line)).or_default().push(cycles);
                *totals.entry((w.role.clone(), class)).or_default() += cycles;
            }
        }
        let lines = visits
            .into_iter()
            .map(|((role, class, line), mut v)| {
                v.sort_unstable();
                let sum: u64 = v.iter().sum();
                let total = totals.get(&(role.clone(), class)).copied().unwrap_or(0).max(1);
                LineTime {
                    role,
                    class,
                    line,
                    visits: v.len() as u64,
                    mean: sum as f64 / v.len() as f64,
                    median: v[v.len() / 2] as f64,
                    share: sum as f64 / total as f64,
                }
            })
            .collect();
        OpTimes { lines, warps: warps.len() }
    }

    /// The marks of every warp of `trace` on the traced SMs, each span's start a mark on its
    /// source line (spans without one, and lines `keep` refuses, are left out); a warp ends
    /// where its last span does.
    pub fn marks_of_trace(trace: &Trace, keep: impl Fn(&str, u32) -> bool) -> Vec<WarpMarks> {
        Self::marks_by_warp(trace, keep).into_values().collect()
    }

    /// As [`OpTimes::marks_of_trace`], each warp keyed by its SM, its resident CTA and its
    /// number within the CTA.
    pub fn marks_by_warp(trace: &Trace, keep: impl Fn(&str, u32) -> bool) -> BTreeMap<(u32, u32, u32), WarpMarks> {
        let mut warps: BTreeMap<(u32, u32, u32), WarpMarks> = BTreeMap::new();
        for span in &trace.events {
            let Track::Warp { resident, warp, role, of_instance, .. } = span.track else { continue };
            let w = warps.entry((span.sm, resident, warp)).or_insert_with(|| WarpMarks {
                role: role.to_string(),
                of_instance,
                marks: Vec::new(),
                end: None,
            });
            w.end = Some(w.end.unwrap_or(0).max(span.end));
            if let Some(source) = span.source
                && keep(role, source.line)
            {
                w.marks.push((source.line, span.start));
            }
        }
        for w in warps.values_mut() {
            w.marks.sort_by_key(|&(_, c)| c);
        }
        warps
    }

    /// The row of `role`, `class`, `line`.
    pub fn get(&self, role: &str, class: WarpClass, line: u32) -> Option<&LineTime> {
        self.lines.iter().find(|l| l.role == role && l.class == class && l.line == line)
    }

    /// A table of `measured` (the GPU's) beside `self` (the model's), by role, warp class and
    /// line, with `label(role, line)` naming each line's operations: cycles per visit (mean)
    /// on both, the model's error, and each line's share of its warps' time on both.
    pub fn compare(&self, measured: &OpTimes, label: impl Fn(&str, u32) -> String) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "{:<12} {:<6} {:>5}  {:<28} {:>8} {:>9} {:>9} {:>7} {:>7} {:>7}",
            "role", "warps", "line", "ops", "visits", "gpu cyc", "model cyc", "error", "gpu %", "model %"
        );
        for m in &measured.lines {
            let model = self.get(&m.role, m.class, m.line);
            let (cycles, error, share) = match model {
                Some(p) => (
                    format!("{:.0}", p.mean),
                    format!("{:+.0}%", (p.mean / m.mean.max(1.0) - 1.0) * 100.0),
                    format!("{:.1}", p.share * 100.0),
                ),
                None => ("-".into(), "-".into(), "-".into()),
            };
            let _ = writeln!(
                out,
                "{:<12} {:<6} {:>5}  {:<28} {:>8} {:>9.0} {:>9} {:>7} {:>7.1} {:>7}",
                m.role,
                m.class.name(),
                m.line,
                label(&m.role, m.line),
                m.visits,
                m.mean,
                cycles,
                error,
                m.share * 100.0,
                share
            );
        }
        out
    }

    /// One row per line: `role,warps,line,visits,mean,median,share`.
    pub fn csv(&self) -> String {
        let mut out = String::from("role,warps,line,visits,mean_cycles,median_cycles,share\n");
        for l in &self.lines {
            let _ = writeln!(
                out,
                "{},{},{},{},{:.1},{:.1},{:.4}",
                l.role,
                l.class.name(),
                l.line,
                l.visits,
                l.mean,
                l.median,
                l.share
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn warp(of_instance: u32, marks: &[(u32, u64)], end: u64) -> WarpMarks {
        WarpMarks { role: "loader".into(), of_instance, marks: marks.to_vec(), end: Some(end) }
    }

    #[test]
    fn a_visit_lasts_from_its_first_mark_to_the_next_lines_first() {
        // Line 10 twice in a row is one visit; 10 -> 20 -> 10 -> end.
        let t = OpTimes::new(&[warp(0, &[(10, 100), (10, 130), (20, 160), (10, 400)], 500)]);
        let ten = t.get("loader", WarpClass::Leader, 10).unwrap();
        assert_eq!(ten.visits, 2);
        assert_eq!(ten.mean, (60.0 + 100.0) / 2.0);
        let twenty = t.get("loader", WarpClass::Leader, 20).unwrap();
        assert_eq!((twenty.visits, twenty.mean), (1, 240.0));
        assert!((ten.share + twenty.share - 1.0).abs() < 1e-12);
        assert!((twenty.share - 240.0 / 400.0).abs() < 1e-12);
    }

    #[test]
    fn leaders_and_other_warps_are_kept_apart_and_a_warp_without_an_end_drops_its_last_visit() {
        let mut open = warp(1, &[(10, 0), (20, 50)], 0);
        open.end = None;
        let t = OpTimes::new(&[warp(0, &[(10, 0), (20, 10)], 30), open]);
        assert_eq!(t.get("loader", WarpClass::Leader, 10).unwrap().mean, 10.0);
        assert_eq!(t.get("loader", WarpClass::Others, 10).unwrap().mean, 50.0);
        assert!(t.get("loader", WarpClass::Others, 20).is_none());
        assert_eq!(t.warps, 2);
        let table = t.compare(&t, |_, l| format!("op{l}"));
        assert!(table.contains("op10") && table.contains("+0%"), "{table}");
    }
}
