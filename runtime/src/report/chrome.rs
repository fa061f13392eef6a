//! A [`Trace`] as Chrome trace-event JSON, for Perfetto (<https://ui.perfetto.dev>) and
//! `chrome://tracing`.
//!
//! - **Time.** Timestamps and durations are microseconds of simulated time at the run's
//!   clock (the format's unit), so the viewer's clock reads real time: at 1.83 GHz a span of
//!   1,830 cycles lasts 1 µs. The clock, the cycles per microsecond and the cycle numbers of
//!   every span (`args.start_cycle`, `args.end_cycle`) are in the document too
//!   (`otherData`). Values are written exactly to 10⁻⁴ µs.
//! - **Tracks.** Each SM is a process; each track a thread: the tensor cores, the TMA unit
//!   (overlapping copies go to extra "TMA unit (lane k)" threads, so that every thread's
//!   slices nest), then every warp. Slices of a thread are written in start order.
//! - **Events.** Complete events (`"ph":"X"`) with `cat` the span's class (`wait`, `sync`,
//!   `tensor`, `tma`, `memory`, `compute`) and `args`: `op` (the colour category), the
//!   cycles, and where they apply `barrier`, `stage`, `parity`, `bytes` and `source` (the
//!   kernel line).
//! - **Flows.** Each [`Flow`](super::Flow) is a flow start (`"ph":"s"`) inside the releasing
//!   slice and a flow end (`"ph":"f"`, `"bp":"e"`) inside the wait it released, with one id.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use super::trace::{Trace, Track};

/// Appends `s` to `out` as a JSON string literal.
pub(crate) fn json_string(out: &mut String, s: &str) {
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

/// Cycles to microseconds at a clock, written exactly to 10⁻⁴ µs.
struct Clock {
    cycles_per_us: f64,
}

impl Clock {
    /// `cycle` in units of 10⁻⁴ µs.
    fn tick(&self, cycle: u64) -> u64 {
        (cycle as f64 * 1e4 / self.cycles_per_us).round() as u64
    }

    /// A value in 10⁻⁴ µs as a JSON number.
    fn us(t: u64) -> String {
        format!("{}.{:04}", t / 10_000, t % 10_000)
    }
}

impl Trace {
    /// The trace as a Chrome trace-event JSON document (see the module documentation for the
    /// units, tracks, `args` and flows). A trace whose clock is unknown is written at 1 GHz.
    pub fn to_chrome_json(&self) -> String {
        let meta = &self.meta;
        let clock_ghz = if meta.clock_ghz > 0.0 { meta.clock_ghz } else { 1.0 };
        let clock = Clock { cycles_per_us: clock_ghz * 1e3 };
        let mut out = String::with_capacity(512 + self.events.len() * 200);
        out.push_str(
            "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"time_unit\":\"microseconds of simulated time at the clock\",",
        );
        let _ = write!(out, "\"clock_ghz\":{clock_ghz},\"cycles_per_us\":{},\"kernel\":", clock.cycles_per_us);
        json_string(&mut out, meta.kernel);
        out.push_str(",\"machine\":");
        json_string(&mut out, meta.machine);
        let [x, y, z] = meta.grid;
        let _ = write!(
            out,
            ",\"grid\":\"{x}x{y}x{z}\",\"ctas\":{},\"ctas_traced\":{},\"sms\":{},\"sms_traced\":{},\"cycles\":{},\
             \"dropped_spans\":{},\"spans_outside_window\":{}",
            meta.ctas, meta.ctas_traced, meta.sms, meta.sms_traced, meta.cycles, self.dropped, self.outside_window
        );
        if let Some(w) = meta.window {
            let _ = write!(out, ",\"window\":\"{w}\"");
        }
        out.push_str("},\"traceEvents\":[\n");

        // Thread ids: each track's position among its SM's tracks; TMA lanes after them.
        let mut tids: HashMap<(u32, Track), u32> = HashMap::new();
        let mut next_tid: BTreeMap<u32, u32> = BTreeMap::new();
        let mut names: Vec<(u32, u32, String)> = Vec::new();
        for key in self.tracks() {
            if let std::collections::hash_map::Entry::Vacant(slot) = tids.entry(key) {
                let next = next_tid.entry(key.0).or_default();
                slot.insert(*next);
                names.push((key.0, *next, key.1.to_string()));
                *next += 1;
            }
        }
        // Spans per track in start order; overlapping TMA copies in lanes.
        let mut per_track: BTreeMap<(u32, u32), Vec<usize>> = BTreeMap::new();
        let mut by_track: BTreeMap<(u32, Track), Vec<usize>> = BTreeMap::new();
        for (i, e) in self.events.iter().enumerate() {
            by_track.entry((e.sm, e.track)).or_default().push(i);
        }
        let mut thread_of = vec![(0u32, 0u32); self.events.len()];
        for ((sm, track), mut spans) in by_track {
            spans.sort_by_key(|&i| (self.events[i].start, self.events[i].end, i));
            let base = tids[&(sm, track)];
            let mut lane_end: Vec<u64> = Vec::new();
            let mut lane_tid: Vec<u32> = Vec::new();
            for i in spans {
                let e = &self.events[i];
                let lane = if track.overlapping() {
                    match lane_end.iter().position(|&end| end <= e.start) {
                        Some(l) => l,
                        None => {
                            lane_end.push(0);
                            let tid = if lane_tid.is_empty() {
                                base
                            } else {
                                let next = next_tid.entry(sm).or_default();
                                *next += 1;
                                names.push((sm, *next - 1, format!("{track} (lane {})", lane_tid.len())));
                                *next - 1
                            };
                            lane_tid.push(tid);
                            lane_end.len() - 1
                        }
                    }
                } else {
                    lane_end.resize(1, 0);
                    lane_tid.resize(1, base);
                    0
                };
                lane_end[lane] = lane_end[lane].max(e.end);
                thread_of[i] = (sm, lane_tid[lane]);
                per_track.entry((sm, lane_tid[lane])).or_default().push(i);
            }
        }

        let mut first = true;
        let mut sep = |out: &mut String| {
            if !std::mem::replace(&mut first, false) {
                out.push_str(",\n");
            }
        };
        for pid in self.sms() {
            sep(&mut out);
            let _ = write!(out, "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{pid},\"args\":{{\"name\":");
            json_string(&mut out, &format!("SM {pid}"));
            out.push_str("}}");
        }
        for (pid, tid, name) in &names {
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
        for (&(pid, tid), spans) in &per_track {
            for &i in spans {
                let e = &self.events[i];
                sep(&mut out);
                let (ts, te) = (clock.tick(e.start), clock.tick(e.end));
                let _ = write!(
                    out,
                    "{{\"ph\":\"X\",\"cat\":\"{}\",\"pid\":{pid},\"tid\":{tid},\"ts\":{},\"dur\":{},\"name\":",
                    e.kind.class(),
                    Clock::us(ts),
                    Clock::us(te - ts)
                );
                json_string(&mut out, &e.kind.to_string());
                out.push_str(",\"args\":{\"op\":");
                json_string(&mut out, &e.kind.category());
                let _ =
                    write!(out, ",\"start_cycle\":{},\"end_cycle\":{},\"cycles\":{}", e.start, e.end, e.end - e.start);
                if let Some(barrier) = e.kind.barrier() {
                    out.push_str(",\"barrier\":");
                    json_string(&mut out, barrier);
                }
                if let Some(stage) = e.kind.stage() {
                    let _ = write!(out, ",\"stage\":{}", stage.stage);
                }
                if let Some(parity) = e.kind.parity() {
                    let _ = write!(out, ",\"parity\":{parity}");
                }
                if let Some(bytes) = e.kind.bytes() {
                    let _ = write!(out, ",\"bytes\":{bytes}");
                }
                if let Some(source) = e.source {
                    out.push_str(",\"source\":");
                    json_string(&mut out, &source.to_string());
                }
                out.push_str("}}");
            }
        }
        for (id, flow) in self.flows.iter().enumerate() {
            let (Some(from), Some(to)) = (self.events.get(flow.from), self.events.get(flow.to)) else { continue };
            for (ph, i, e) in [("s", flow.from, from), ("f", flow.to, to)] {
                let (pid, tid) = thread_of[i];
                // Inside the slice: its last cycle.
                let at = clock.tick(e.end.saturating_sub(1).max(e.start));
                let bind = if ph == "f" { ",\"bp\":\"e\"" } else { "" };
                sep(&mut out);
                let _ = write!(
                    out,
                    "{{\"ph\":\"{ph}\",\"cat\":\"flow\",\"name\":\"release\",\"id\":{},\"pid\":{pid},\"tid\":{tid},\"ts\":{}{bind}}}",
                    id + 1,
                    Clock::us(at)
                );
            }
        }
        out.push_str("\n]}\n");
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::trace::tests::sample;

    #[test]
    fn json_is_well_formed_escaped_and_timed_at_the_clock() {
        let json = sample().to_chrome_json();
        assert!(json.contains(r#""name":"wait full <&\"'>[0] (parity 0)""#), "{json}");
        // 301 cycles at 2 GHz: 0.1505 us.
        assert!(json.contains(r#""ts":0.0000,"dur":0.1505"#), "{json}");
        assert!(json.contains(r#""clock_ghz":2,"cycles_per_us":2000"#));
        assert!(
            json.contains(r#""cat":"wait""#) && json.contains(r#""parity":0"#) && json.contains(r#""bytes":32768"#)
        );
        assert!(json.contains(r#""name":"TMA unit""#) && json.contains(r#""name":"SM 0""#));
        assert!(json.contains(r#""name":"TMA unit (lane 1)""#), "overlapping copies go to a second lane");
        assert!(!json.contains(r#""ph":"b""#));
        // One flow: from the first copy (ends at 300: last cycle 299) to the wait (last 300).
        assert!(
            json.contains(r#""ph":"s","cat":"flow","name":"release","id":1,"pid":0,"tid":1,"ts":0.1495"#),
            "{json}"
        );
        assert!(json.contains(r#""ph":"f","cat":"flow","name":"release","id":1,"pid":0,"tid":2,"ts":0.1500,"bp":"e""#));
        let opens = json.matches('{').count();
        assert_eq!(opens, json.matches('}').count());
        assert!(json.trim_end().ends_with("]}"));
    }
}
