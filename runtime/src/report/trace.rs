//! Per-warp timelines in simulated cycles, exported as Chrome trace-event JSON.
//!
//! The file opens in the Perfetto UI (<https://ui.perfetto.dev>) and in `chrome://tracing`.
//! Timestamps are simulated SM cycles written where the format expects microseconds, so one
//! "µs" in the viewer is one cycle. Each SM is a process (`pid` = SM index); each warp slot
//! of the SM is a thread (`tid` = CTA slot x warps per CTA + warp), plus two unit tracks:
//! the tensor cores (busy spans of each MMA group) and the TMA unit (each copy, from issue
//! to landing, as an asynchronous slice since copies overlap).

use std::fmt::Write as _;
use std::io;
use std::path::Path;

/// One span of a timeline.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    /// SM index (the trace's process).
    pub pid: u32,
    /// Track within the SM (the trace's thread).
    pub tid: u32,
    /// What happened.
    pub name: String,
    /// First cycle.
    pub start: u64,
    /// Cycle after the last.
    pub end: u64,
    /// Whether the span may overlap others on its track (written as an async slice).
    pub overlapping: bool,
}

impl TraceEvent {
    /// A span `[start, end)` named `name` on track `tid` of SM `pid`.
    pub fn span(pid: u32, tid: u32, name: String, start: u64, end: u64) -> Self {
        TraceEvent { pid, tid, name, start, end: end.max(start), overlapping: false }
    }

    /// The same span, marked as one that may overlap others on its track.
    pub fn asynchronous(mut self) -> Self {
        self.overlapping = true;
        self
    }
}

/// A recorded timeline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// The spans, per SM in time order of completion.
    pub events: Vec<TraceEvent>,
    /// Track names: `(pid, tid, name)`.
    pub threads: Vec<(u32, u32, String)>,
    /// SM names: `(pid, name)`.
    pub processes: Vec<(u32, String)>,
    /// Spans not recorded because the event limit was reached.
    pub dropped: u64,
}

/// Appends `s` to `out` as a JSON string literal.
fn json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl Trace {
    /// The trace as a Chrome trace-event JSON document.
    pub fn to_chrome_json(&self) -> String {
        let mut out = String::with_capacity(128 + self.events.len() * 96);
        out.push_str("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"time_unit\":\"1 us in the viewer = 1 SM cycle\"},");
        out.push_str("\"traceEvents\":[\n");
        let mut first = true;
        let mut sep = |out: &mut String| {
            if !std::mem::replace(&mut first, false) {
                out.push_str(",\n");
            }
        };
        for (pid, name) in &self.processes {
            sep(&mut out);
            let _ = write!(out, "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{pid},\"args\":{{\"name\":");
            json_string(&mut out, name);
            out.push_str("}}");
        }
        for (pid, tid, name) in &self.threads {
            sep(&mut out);
            let _ =
                write!(out, "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"name\":");
            json_string(&mut out, name);
            out.push_str("}}");
            sep(&mut out);
            let _ = write!(
                out,
                "{{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":{pid},\"tid\":{tid},\"args\":{{\"sort_index\":{tid}}}}}"
            );
        }
        for (id, e) in self.events.iter().enumerate() {
            sep(&mut out);
            if e.overlapping {
                for (ph, ts) in [("b", e.start), ("e", e.end)] {
                    let _ = write!(
                        out,
                        "{{\"ph\":\"{ph}\",\"cat\":\"copy\",\"id\":{id},\"pid\":{},\"tid\":{},\"ts\":{ts},\"name\":",
                        e.pid, e.tid
                    );
                    json_string(&mut out, &e.name);
                    out.push('}');
                    if ph == "b" {
                        out.push_str(",\n");
                    }
                }
            } else {
                let _ = write!(
                    out,
                    "{{\"ph\":\"X\",\"pid\":{},\"tid\":{},\"ts\":{},\"dur\":{},\"name\":",
                    e.pid,
                    e.tid,
                    e.start,
                    e.end - e.start
                );
                json_string(&mut out, &e.name);
                out.push('}');
            }
        }
        out.push_str("\n]}\n");
        out
    }

    /// Writes [`Trace::to_chrome_json`] to `path`.
    pub fn write_chrome_json(&self, path: impl AsRef<Path>) -> io::Result<()> {
        std::fs::write(path, self.to_chrome_json())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_well_formed_and_escaped() {
        let trace = Trace {
            events: vec![
                TraceEvent::span(0, 3, "wait \"full\"[0]".into(), 10, 25),
                TraceEvent::span(0, 100_001, "TMA".into(), 5, 400).asynchronous(),
            ],
            threads: vec![(0, 3, "warp 3".into())],
            processes: vec![(0, "SM 0".into())],
            dropped: 0,
        };
        let json = trace.to_chrome_json();
        assert!(json.contains(r#""name":"wait \"full\"[0]""#));
        assert!(json.contains(r#""ts":10,"dur":15"#));
        assert!(json.contains(r#""ph":"b""#) && json.contains(r#""ph":"e""#));
        let opens = json.matches('{').count();
        assert_eq!(opens, json.matches('}').count());
        assert!(json.trim_end().ends_with("]}"));
    }
}
