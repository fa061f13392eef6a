//! A [`Trace`] as a self-contained timeline: one HTML file (inline SVG, CSS and a little
//! JavaScript; no external resources) or a standalone SVG.
//!
//! The page opens with a title (kernel, machine, grid, clock and run time, from the trace's
//! [`TraceMeta`](super::TraceMeta)), a summary line and a note, in red, for everything left
//! out: SMs and CTAs not recorded, the cycle window ([`TraceMeta::window`](super::TraceMeta):
//! only it is drawn, spans clipped to it), spans over the drawing limit and spans the
//! simulator did not record. Each SM is a group of rows: its unit tracks (tensor cores, TMA
//! unit) first, then one row per warp, grouped by resident CTA and labelled with the warp's
//! role and instance. Spans overlapping on a track (TMA copies) are stacked in lanes.
//!
//! Spans are coloured by the category of their kind (without counts, sizes and stages). The
//! legend is grouped by barrier: each barrier has one hue pair (`palette`), strong for its
//! arrivals and commits, pale for the waits on it; other work takes a qualitative palette and
//! other waits pale greys. Each span carries a tooltip (SVG `<title>`) with its name, start,
//! end, duration in cycles, track and kernel source line, and a `data-kind` attribute (its
//! class: `wait`, `sync`, `tensor`, `tma`, `memory`, `compute`). The HTML page zooms with the
//! mouse wheel and pans by dragging within the window. At most 50,000 spans are drawn (the
//! earliest-starting ones); the note says how many were left out and from which cycle the
//! view is incomplete (shaded).

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use super::palette::grouped_colours;
use super::trace::{CycleWindow, Span, Trace, Track};

/// Spans drawn at most.
const MAX_DRAWN_SPANS: usize = 50_000;
/// Lanes of one track at most; further overlapping spans share the least busy lane.
const MAX_LANES: usize = 8;
/// Width of the picture, pixels.
const WIDTH: f64 = 1580.0;
/// Left edge of the plot (the labels are to its left), pixels.
const PLOT_X: f64 = 350.0;
/// Width of the plot, pixels.
const PLOT_W: f64 = WIDTH - PLOT_X - 20.0;
/// Height of one lane of a track, pixels.
const LANE_H: f64 = 12.0;
/// Space above and below the lanes of a track, pixels.
const TRACK_PAD: f64 = 2.0;
/// Height of an SM header row, pixels.
const SM_ROW_H: f64 = 20.0;
/// Height of a resident-CTA header row, pixels.
const CTA_ROW_H: f64 = 16.0;
/// Legend entries shown at most.
const MAX_LEGEND: usize = 48;
/// Characters of a row label at most (the whole name is in its tooltip).
const MAX_LABEL_CHARS: usize = 52;

const STYLE: &str = "\
text{fill:#222}\
.page{fill:#fff}\
.h1{font-size:15px;font-weight:bold}\
.note{fill:#a33}\
.tick{text-anchor:middle;fill:#555}\
.sm{font-weight:bold}\
.cta{font-weight:bold;fill:#555}\
.smband{fill:#e4e8ee}\
.ctaband{fill:#f1f3f6}\
.stripe{fill:#f8f8f8}\
.bg{fill:#fff}\
.cut{fill:#999;fill-opacity:0.12}\
#grid line{stroke:#ccc;stroke-width:1px;vector-effect:non-scaling-stroke}\
.spans rect,.sw{stroke-width:0.6px;vector-effect:non-scaling-stroke}\
.spans rect:hover{stroke:#000;stroke-width:1.5px}";

const SCRIPT: &str = r"(function () {
  var NS = 'http://www.w3.org/2000/svg';
  var plot = document.getElementById('plot'), axis = document.getElementById('axis');
  var grid = document.getElementById('grid');
  var S = +plot.getAttribute('data-start'), T = +plot.getAttribute('data-end'), H = +plot.getAttribute('height');
  var PX = +plot.getAttribute('x'), PW = +plot.getAttribute('width'), AY = +axis.getAttribute('data-y');
  var v0 = S, v1 = T, drag = null;
  function label(v) {
    if (v >= 1e6 && v % 1e6 === 0) return v / 1e6 + 'M';
    if (v >= 1e3 && v % 1e3 === 0) return v / 1e3 + 'k';
    return String(v);
  }
  function step(range) {
    var raw = range / 10, mag = Math.pow(10, Math.floor(Math.log10(raw)));
    var s = [1, 2, 5, 10].map(function (m) { return m * mag; }).find(function (s) { return s >= raw; });
    return Math.max(1, Math.round(s));
  }
  function clamp() {
    if (v0 < S) { v1 += S - v0; v0 = S; }
    if (v1 > T) { v0 -= v1 - T; v1 = T; }
    if (v0 < S) v0 = S;
  }
  function draw() {
    plot.setAttribute('viewBox', v0 + ' 0 ' + (v1 - v0) + ' ' + H);
    while (axis.firstChild) axis.removeChild(axis.firstChild);
    while (grid.firstChild) grid.removeChild(grid.firstChild);
    var s = step(v1 - v0);
    for (var v = Math.ceil(v0 / s) * s; v <= v1; v += s) {
      var t = document.createElementNS(NS, 'text');
      t.setAttribute('x', PX + (v - v0) / (v1 - v0) * PW);
      t.setAttribute('y', AY);
      t.setAttribute('class', 'tick');
      t.textContent = label(v);
      axis.appendChild(t);
      var l = document.createElementNS(NS, 'line');
      l.setAttribute('x1', v); l.setAttribute('x2', v); l.setAttribute('y1', 0); l.setAttribute('y2', H);
      grid.appendChild(l);
    }
  }
  function at(e) {
    var r = plot.getBoundingClientRect();
    return v0 + (e.clientX - r.left) / r.width * (v1 - v0);
  }
  plot.addEventListener('wheel', function (e) {
    e.preventDefault();
    var c = at(e), f = (c - v0) / (v1 - v0);
    var w = Math.min(T - S, Math.max(10, (v1 - v0) * (e.deltaY > 0 ? 1.25 : 0.8)));
    v0 = c - f * w; v1 = v0 + w; clamp(); draw();
  }, { passive: false });
  plot.addEventListener('mousedown', function (e) {
    drag = { x: e.clientX, v0: v0, v1: v1 };
    e.preventDefault();
  });
  window.addEventListener('mousemove', function (e) {
    if (!drag) return;
    var d = (e.clientX - drag.x) / plot.getBoundingClientRect().width * (drag.v1 - drag.v0);
    v0 = drag.v0 - d; v1 = drag.v1 - d; clamp(); draw();
  });
  window.addEventListener('mouseup', function () { drag = null; });
  plot.addEventListener('dblclick', function () { v0 = S; v1 = T; draw(); });
})();
";

impl Trace {
    /// The trace as a self-contained HTML page: the timeline of [`Trace::to_svg`] inline,
    /// with wheel zoom, drag to pan and double-click to reset.
    pub fn to_html(&self) -> String {
        let svg = render(self, MAX_DRAWN_SPANS);
        let mut out = String::with_capacity(svg.len() + SCRIPT.len() + 512);
        out.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
        out.push_str("<title>");
        escape(&mut out, &title(self));
        out.push_str("</title>\n<style>");
        out.push_str("body{margin:8px;font-family:sans-serif;background:#fff}p.hint{margin:0 0 4px 12px;");
        out.push_str("color:#666;font-size:12px}</style>\n</head>\n<body>\n<p class=\"hint\">Hover a span for its ");
        out.push_str("name and cycles. Over the timeline: wheel to zoom, drag to pan, double-click to reset.</p>\n");
        out.push_str(&svg);
        out.push_str("<script>\n");
        out.push_str(SCRIPT);
        out.push_str("</script>\n</body>\n</html>\n");
        out
    }

    /// The trace as a standalone SVG document (the picture of [`Trace::to_html`], without
    /// zoom).
    pub fn to_svg(&self) -> String {
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        out.push_str(&render(self, MAX_DRAWN_SPANS));
        out
    }
}

/// Appends `s` escaped for XML text and attribute values; characters XML cannot carry
/// become U+FFFD.
fn escape(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
}

/// [`escape`] into a new string.
fn escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    escape(&mut out, s);
    out
}

/// Tick spacing for about ten ticks over `range` cycles: 1, 2 or 5 times a power of ten.
fn tick_step(range: u64) -> u64 {
    let raw = range as f64 / 10.0;
    let mag = 10f64.powf(raw.max(1e-9).log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * mag).find(|&s| s >= raw).unwrap_or(10.0 * mag);
    (step.round() as u64).max(1)
}

/// A tick label: "250", "12k", "3M".
fn tick_label(v: u64) -> String {
    if v >= 1_000_000 && v.is_multiple_of(1_000_000) {
        format!("{}M", v / 1_000_000)
    } else if v >= 1_000 && v.is_multiple_of(1_000) {
        format!("{}k", v / 1_000)
    } else {
        v.to_string()
    }
}

/// `n` with thousands separators.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `s` cut to `max` characters, with an ellipsis if cut.
fn truncate(s: &str, max: usize) -> String {
    if s.chars().count() <= max { s.to_string() } else { s.chars().take(max - 1).chain(['…']).collect() }
}

/// The timeline's title: kernel, machine, grid and clock, as far as the trace knows them.
fn title(trace: &Trace) -> String {
    let m = &trace.meta;
    if m.kernel.is_empty() {
        return "warpspec timeline".to_string();
    }
    let [x, y, z] = m.grid;
    let mut t = format!("`{}` on {}: grid {x}x{y}x{z} ({} CTAs)", m.kernel, m.machine, thousands(m.ctas as u64));
    if m.clock_ghz > 0.0 {
        let _ = write!(
            t,
            " at {:.3} GHz, {} cycles = {:.3} us",
            m.clock_ghz,
            thousands(m.cycles),
            m.cycles as f64 / (m.clock_ghz * 1e3)
        );
    }
    t
}

/// Notes on what the trace leaves out: SMs and CTAs not recorded, the window, spans the
/// simulator did not record.
fn coverage_notes(trace: &Trace) -> Vec<String> {
    let m = &trace.meta;
    let mut notes = Vec::new();
    if m.sms > m.sms_traced || m.ctas > m.ctas_traced {
        notes.push(format!(
            "Recorded {} of {} SMs and {} of {} CTAs; the rest ran but are not shown.",
            m.sms_traced,
            m.sms,
            thousands(m.ctas_traced as u64),
            thousands(m.ctas as u64)
        ));
    }
    if let Some(w) = m.window {
        notes.push(format!(
            "Window: cycles {} to {} of the run's {}; {} spans outside it were not recorded.",
            thousands(w.start),
            thousands(w.end),
            thousands(m.cycles),
            thousands(trace.outside_window)
        ));
    }
    notes
}

/// One row of the timeline.
struct Row {
    /// The track's full name (the row's tooltip).
    name: String,
    /// The row label.
    label: String,
    /// Drawn spans (indices into the trace's events) with their lanes.
    spans: Vec<(usize, usize)>,
    /// Lanes used.
    lanes: usize,
}

impl Row {
    /// Puts overlapping spans in separate lanes (earliest-free lane first).
    fn assign_lanes(&mut self, events: &[Span]) {
        self.spans.sort_by_key(|&(i, _)| (events[i].start, events[i].end));
        let mut lane_end: Vec<u64> = Vec::new();
        for (i, lane) in &mut self.spans {
            let e = &events[*i];
            *lane = match lane_end.iter().position(|&end| end <= e.start) {
                Some(l) => l,
                None if lane_end.len() < MAX_LANES => {
                    lane_end.push(0);
                    lane_end.len() - 1
                }
                None => lane_end.iter().enumerate().min_by_key(|(_, end)| **end).map_or(0, |(l, _)| l),
            };
            lane_end[*lane] = lane_end[*lane].max(e.end);
        }
        self.lanes = lane_end.len().max(1);
    }

    fn height(&self) -> f64 {
        self.lanes as f64 * LANE_H + 2.0 * TRACK_PAD
    }
}

/// The timeline as an SVG element, drawing at most `cap` spans.
fn render(trace: &Trace, cap: usize) -> String {
    // The cycles drawn: the trace's window, or the whole run.
    let last = trace.events.iter().map(|e| e.end).max().unwrap_or(0);
    let window = trace.meta.window.unwrap_or(CycleWindow { start: 0, end: last.max(1) });
    let (w0, end) = (window.start, window.end.max(window.start + 1));
    // Which spans are drawn: those in the window, or the `cap` earliest-starting of them.
    let in_window: Vec<usize> =
        (0..trace.events.len()).filter(|&i| window.overlaps(trace.events[i].start, trace.events[i].end)).collect();
    let total = in_window.len();
    let mut drawn = in_window;
    let mut cut_at = None;
    if total > cap {
        drawn.sort_by_key(|&i| (trace.events[i].start, trace.events[i].end));
        cut_at = Some(trace.events[drawn[cap]].start);
        drawn.truncate(cap);
    }
    let not_drawn = total - drawn.len();

    // Categories: counts and cycles over all spans; colours by barrier and name, legend
    // grouped by barrier, by cycles within a group.
    let mut by_name: BTreeMap<(String, bool), (u64, u64, Option<String>)> = BTreeMap::new();
    let mut event_category: Vec<String> = Vec::with_capacity(trace.events.len());
    for e in &trace.events {
        let c = e.kind.category();
        let entry = by_name.entry((c.clone(), e.kind.is_wait())).or_default();
        entry.0 += 1;
        entry.1 += e.end - e.start;
        // A TMA load names its barrier per copy; its category groups all of them.
        if !c.starts_with("TMA") {
            entry.2 = e.kind.barrier().map(str::to_string);
        }
        event_category.push(c);
    }
    let categories: Vec<(String, bool, Option<String>)> =
        by_name.iter().map(|((c, wait), v)| (c.clone(), *wait, v.2.clone())).collect();
    let palette = grouped_colours(&categories);
    let names: Vec<&str> = categories.iter().map(|(c, ..)| c.as_str()).collect();
    let class_of: HashMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let mut legend: Vec<(Option<&str>, usize, u64, u64)> = by_name
        .values()
        .enumerate()
        .map(|(i, (count, cycles, barrier))| (barrier.as_deref(), i, *count, *cycles))
        .collect();
    legend.sort_by_key(|&(barrier, i, count, cycles)| {
        (barrier.is_some(), barrier, std::cmp::Reverse(cycles), std::cmp::Reverse(count), i)
    });

    // Rows, ordered by SM, then unit tracks before warps, then resident CTA and warp.
    let mut tracks: BTreeMap<(u32, Track), Row> = BTreeMap::new();
    for (sm, track) in trace.tracks() {
        tracks.entry((sm, track)).or_insert_with(|| Row {
            name: track.to_string(),
            label: truncate(&track.row_label(), MAX_LABEL_CHARS),
            spans: Vec::new(),
            lanes: 1,
        });
    }
    for &i in &drawn {
        let e = &trace.events[i];
        if let Some(row) = tracks.get_mut(&(e.sm, e.track)) {
            row.spans.push((i, 0));
        }
    }
    tracks.values_mut().for_each(|t| t.assign_lanes(&trace.events));

    // Header: title, summary, notes, legend.
    let mut head = String::new();
    let mut y = 22.0;
    let _ = writeln!(head, "<text class=\"h1\" x=\"12\" y=\"{y}\">{}</text>", escaped(&title(trace)));
    y += 18.0;
    let sms = tracks.keys().map(|k| k.0).collect::<std::collections::BTreeSet<_>>().len();
    let summary = format!(
        "{} spans on {} tracks of {} SM{}, cycles {} to {}",
        thousands(total as u64),
        tracks.len(),
        sms,
        if sms == 1 { "" } else { "s" },
        thousands(w0),
        thousands(end)
    );
    let _ = writeln!(head, "<text x=\"12\" y=\"{y}\">{}</text>", escaped(&summary));
    let mut notes = Vec::new();
    if total == 0 {
        notes.push("The trace is empty.".to_string());
    }
    notes.extend(coverage_notes(trace));
    if let Some(cut) = cut_at {
        notes.push(format!(
            "{} spans not drawn (over the limit of {} drawn spans): the view is complete up to cycle {} \
             (shaded after it).",
            thousands(not_drawn as u64),
            thousands(cap as u64),
            thousands(cut)
        ));
    }
    if trace.dropped > 0 {
        notes.push(format!(
            "{} spans dropped by the simulator (over its per-SM event limit).",
            thousands(trace.dropped)
        ));
    }
    for note in &notes {
        y += 16.0;
        let _ = writeln!(head, "<text class=\"note\" x=\"12\" y=\"{y}\">{}</text>", escaped(note));
    }
    y += 10.0;
    let mut x = 12.0;
    if !legend.is_empty() {
        y += 6.0;
        head.push_str("<g class=\"legend\">\n");
        let mut group = None;
        for (shown, &(barrier, i, count, cycles)) in legend.iter().enumerate() {
            if shown == 0 || barrier != group {
                group = barrier;
                if shown > 0 {
                    x = 12.0;
                    y += 16.0;
                }
                let label = match barrier {
                    Some(b) => format!("barrier {b}:"),
                    None => "units and instructions:".to_string(),
                };
                let _ = writeln!(head, "<text class=\"cta\" x=\"{x}\" y=\"{}\">{}</text>", y + 9.0, escaped(&label));
                x += 6.6 * label.chars().count() as f64 + 12.0;
            }
            let text = if shown == MAX_LEGEND {
                format!("and {} more categories", legend.len() - MAX_LEGEND)
            } else {
                format!("{} ({})", names[i], thousands(count))
            };
            let w = 22.0 + 6.6 * text.chars().count() as f64 + 14.0;
            if x + w > WIDTH - 12.0 && x > 12.0 {
                x = 12.0;
                y += 16.0;
            }
            if shown == MAX_LEGEND {
                let _ = writeln!(head, "<text x=\"{x}\" y=\"{}\">{}</text>", y + 9.0, escaped(&text));
                break;
            }
            let _ = writeln!(
                head,
                "<g><title>{} cycles in {} spans</title><rect class=\"sw c{i}\" x=\"{x}\" y=\"{y}\" width=\"16\" \
                 height=\"10\"/><text x=\"{}\" y=\"{}\">{}</text></g>",
                thousands(cycles),
                thousands(count),
                x + 20.0,
                y + 9.0,
                escaped(&text)
            );
            x += w;
        }
        head.push_str("</g>\n");
        y += 16.0;
    }

    // Axis.
    y += 18.0;
    let axis_y = y;
    let top = axis_y + 8.0;
    let mut axis = format!("<text x=\"12\" y=\"{axis_y}\" class=\"cta\">cycle</text>\n");
    let _ = writeln!(axis, "<g id=\"axis\" data-y=\"{axis_y}\">");
    let step = tick_step(end - w0);
    let ticks: Vec<u64> = (w0.div_ceil(step)..=end / step).map(|k| k * step).collect();
    for &t in &ticks {
        let tx = PLOT_X + (t - w0) as f64 / (end - w0) as f64 * PLOT_W;
        let _ = writeln!(axis, "<text class=\"tick\" x=\"{tx:.1}\" y=\"{axis_y}\">{}</text>", tick_label(t));
    }
    axis.push_str("</g>\n");

    // Rows: labels on the left, bands and spans in the plot (x in cycles, y in pixels).
    let mut labels = String::from("<g class=\"labels\">\n");
    let mut bands = String::new();
    let mut spans = String::from("<g class=\"spans\">\n");
    let mut ry = 0.0;
    let mut last_sm = None;
    let mut last_resident = None;
    for (row, (&(pid, track_id), track)) in tracks.iter().enumerate() {
        let resident = track_id.resident();
        if last_sm != Some(pid) {
            last_sm = Some(pid);
            last_resident = None;
            let name = format!("SM {pid}");
            let _ = writeln!(
                bands,
                "<rect class=\"smband\" x=\"{w0}\" y=\"{ry}\" width=\"{}\" height=\"{SM_ROW_H}\"/>",
                end - w0
            );
            let _ = writeln!(
                labels,
                "<rect class=\"smband\" x=\"4\" y=\"{}\" width=\"{}\" height=\"{SM_ROW_H}\"/>\
                 <text class=\"sm\" x=\"8\" y=\"{}\">{}</text>",
                top + ry,
                PLOT_X - 8.0,
                top + ry + 14.0,
                escaped(&name)
            );
            ry += SM_ROW_H;
        }
        if resident.is_some() && resident != last_resident {
            last_resident = resident;
            let _ = writeln!(
                bands,
                "<rect class=\"ctaband\" x=\"{w0}\" y=\"{ry}\" width=\"{}\" height=\"{CTA_ROW_H}\"/>",
                end - w0
            );
            let _ = writeln!(
                labels,
                "<text class=\"cta\" x=\"18\" y=\"{}\">resident CTA {}</text>",
                top + ry + 12.0,
                resident.unwrap_or(0)
            );
            ry += CTA_ROW_H;
        }
        let h = track.height();
        if row % 2 == 1 {
            let _ =
                writeln!(bands, "<rect class=\"stripe\" x=\"{w0}\" y=\"{ry}\" width=\"{}\" height=\"{h}\"/>", end - w0);
        }
        let indent = if resident.is_some() { 30.0 } else { 18.0 };
        let _ = writeln!(
            labels,
            "<text x=\"{indent}\" y=\"{}\"><title>{}</title>{}</text>",
            top + ry + TRACK_PAD + LANE_H - 2.0,
            escaped(&track.name),
            escaped(&track.label)
        );
        for &(i, lane) in &track.spans {
            let e = &trace.events[i];
            let sy = ry + TRACK_PAD + lane as f64 * LANE_H + 1.0;
            let class = class_of.get(event_category[i].as_str()).copied().unwrap_or(0);
            // Clipped to the window.
            let (x0, x1) = (e.start.max(w0), e.end.min(end).max(e.start.max(w0)));
            let _ = write!(
                spans,
                "<rect class=\"c{class}\" data-kind=\"{}\" x=\"{x0}\" y=\"{sy}\" width=\"{}\" height=\"{}\"><title>",
                e.kind.class(),
                x1 - x0,
                LANE_H - 2.0
            );
            escape(&mut spans, &e.kind.to_string());
            let _ = write!(
                spans,
                "\nstart {}, end {}: {} cycles\n{}",
                e.start,
                e.end,
                e.end - e.start,
                escaped(&track.label)
            );
            if let Some(source) = e.source {
                spans.push('\n');
                escape(&mut spans, &source.to_string());
            }
            spans.push_str("</title></rect>\n");
        }
        ry += h;
    }
    labels.push_str("</g>\n");
    spans.push_str("</g>\n");
    let rows_h = ry.max(1.0);
    let height = top + rows_h + 24.0;

    let mut out = String::with_capacity(head.len() + labels.len() + bands.len() + spans.len() + 4096);
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"tl\" width=\"{WIDTH}\" height=\"{height}\" \
         viewBox=\"0 0 {WIDTH} {height}\" font-family=\"sans-serif\" font-size=\"11\">"
    );
    out.push_str("<style>");
    out.push_str(STYLE);
    for (i, colour) in palette.iter().enumerate() {
        let _ = write!(out, ".c{i}{{fill:{colour};stroke:{colour}}}");
    }
    out.push_str("</style>\n");
    let _ = writeln!(out, "<rect class=\"page\" x=\"0\" y=\"0\" width=\"{WIDTH}\" height=\"{height}\"/>");
    out.push_str(&head);
    out.push_str(&axis);
    out.push_str(&labels);
    let _ = writeln!(
        out,
        "<svg id=\"plot\" x=\"{PLOT_X}\" y=\"{top}\" width=\"{PLOT_W}\" height=\"{rows_h}\" \
         viewBox=\"{w0} 0 {} {rows_h}\" preserveAspectRatio=\"none\" data-start=\"{w0}\" data-end=\"{end}\">",
        end - w0
    );
    let _ = writeln!(out, "<rect class=\"bg\" x=\"{w0}\" y=\"0\" width=\"{}\" height=\"{rows_h}\"/>", end - w0);
    out.push_str(&bands);
    out.push_str("<g id=\"grid\">\n");
    for &t in &ticks {
        let _ = writeln!(out, "<line x1=\"{t}\" x2=\"{t}\" y1=\"0\" y2=\"{rows_h}\"/>");
    }
    out.push_str("</g>\n");
    if let Some(cut) = cut_at {
        let _ = writeln!(
            out,
            "<rect class=\"cut\" x=\"{cut}\" y=\"0\" width=\"{}\" height=\"{rows_h}\"/>",
            end.saturating_sub(cut)
        );
    }
    out.push_str(&spans);
    out.push_str("</svg>\n</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::super::palette::{WAIT_COLOURS, WORK_COLOURS, colours};
    use super::super::trace::tests::sample;
    use super::*;

    /// Checks that every tag of `doc` (markup outside `<script>`) is closed in order, and
    /// returns the number of elements of each name.
    fn check_tags(doc: &str) -> HashMap<String, usize> {
        let mut counts = HashMap::new();
        let mut stack: Vec<String> = Vec::new();
        let mut rest = doc;
        while let Some(open) = rest.find('<') {
            let close = rest[open..].find('>').expect("unterminated tag") + open;
            let tag = &rest[open + 1..close];
            assert!(!tag.contains('<'), "raw `<` inside a tag: {tag}");
            rest = &rest[close + 1..];
            if tag.starts_with('!') || tag.starts_with('?') || tag == "meta charset=\"utf-8\"" {
                continue;
            }
            if let Some(name) = tag.strip_prefix('/') {
                assert_eq!(stack.pop().as_deref(), Some(name), "mismatched </{name}>");
                continue;
            }
            let name = tag.split([' ', '\n', '/']).next().unwrap_or("").to_string();
            assert!(!name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric()), "bad tag <{tag}>");
            *counts.entry(name.clone()).or_default() += 1;
            if name == "script" {
                let end = rest.find("</script>").expect("unclosed script");
                rest = &rest[end + "</script>".len()..];
                continue;
            }
            if !tag.ends_with('/') {
                stack.push(name);
            }
        }
        assert!(stack.is_empty(), "unclosed: {stack:?}");
        for c in ['<', '>'] {
            assert!(!rest.contains(c));
        }
        counts
    }

    /// Span rectangles in `doc` (class `c` and a number).
    fn spans(doc: &str) -> usize {
        doc.split("<rect class=\"c").skip(1).filter(|rest| rest.starts_with(|c: char| c.is_ascii_digit())).count()
    }

    #[test]
    fn html_is_well_formed_escaped_and_self_contained() {
        let trace = sample();
        let html = trace.to_html();
        let counts = check_tags(&html);
        assert_eq!(counts["svg"], 2);
        assert_eq!(counts["script"], 1);
        assert_eq!(spans(&html), trace.events.len());
        assert!(html.contains("wait full &lt;&amp;&quot;&#39;&gt;[0] (parity 0)"), "{html}");
        assert!(html.contains("`consumer&lt;1&gt;` #0"));
        assert!(!html.contains("consumer<1>") && !html.contains("<&"));
        assert!(html.contains("start 0, end 301: 301 cycles"));
        assert!(html.contains("resident CTA 0") && html.contains("resident CTA 1") && html.contains("tensor cores"));
        // No external resources: the only URL is the SVG namespace.
        assert!(!html.contains("src=") && !html.contains("href=") && !html.contains("@import"));
        assert_eq!(html.matches("http").count(), 2, "namespace in the SVG and in the script");
        assert!(!html.contains("not drawn") && !html.contains("dropped"));
        // Overlapping TMA copies take two lanes of the TMA row (after the SM header and the
        // tensor-core row).
        let tma_row = SM_ROW_H + LANE_H + 2.0 * TRACK_PAD;
        let second = html.lines().find(|l| l.starts_with("<rect") && l.contains("full[1]")).expect("second copy");
        assert!(second.contains(&format!("y=\"{}\"", tma_row + TRACK_PAD + LANE_H + 1.0)), "{second}");
    }

    #[test]
    fn svg_is_well_formed() {
        let svg = sample().to_svg();
        assert!(svg.starts_with("<?xml"));
        let counts = check_tags(&svg);
        assert_eq!(counts["svg"], 2);
        assert_eq!(counts["title"], svg.matches("</title>").count());
        assert!(!counts.contains_key("script"));
    }

    #[test]
    fn spans_over_the_cap_are_counted() {
        let mut trace = sample();
        trace.dropped = 1234;
        let svg = render(&trace, 3);
        check_tags(&svg);
        assert_eq!(spans(&svg), 3);
        assert!(svg.contains("4 spans not drawn (over the limit of 3 drawn spans)"), "{svg}");
        // The three earliest starts are at 0, 0 and 5; the first left out starts at 10.
        assert!(svg.contains("complete up to cycle 10"));
        assert!(svg.contains("<rect class=\"cut\" x=\"10\""));
        assert!(svg.contains("1,234 spans dropped by the simulator"));
    }

    #[test]
    fn title_window_notes_and_barrier_groups() {
        let mut trace = sample();
        trace.meta.window = Some(CycleWindow { start: 50, end: 310 });
        trace.outside_window = 3;
        let html = trace.to_html();
        check_tags(&html);
        assert!(html.contains("<title>`sample` on test machine: grid 2x1x1 (8 CTAs) at 2.000 GHz"), "{html}");
        assert!(html.contains("Recorded 1 of 4 SMs and 2 of 8 CTAs"));
        assert!(html.contains("Window: cycles 50 to 310 of the run&#39;s 420; 3 spans outside it"));
        assert!(html.contains("data-start=\"50\" data-end=\"310\"") && html.contains("viewBox=\"50 0 260 "));
        // The span from 0 to 301 is clipped to start at 50; those ending by 50 or starting
        // at 400 are not drawn.
        assert!(html.contains("x=\"50\" y=") && spans(&html) == 5, "{html}");
        assert!(html.contains(">barrier empty:<") && html.contains(">units and instructions:<"));
        // A barrier's wait takes the pale colour of its pair.
        assert!(html.contains("fill:#aec7e8") || html.contains("fill:#ffbb78"), "{html}");
    }

    #[test]
    fn empty_trace() {
        let html = Trace::default().to_html();
        let counts = check_tags(&html);
        assert_eq!(spans(&html), 0);
        assert!(!counts.contains_key("title") || counts["title"] == 1);
        assert!(html.contains("The trace is empty."));
        assert!(html.contains("data-end=\"1\""));
    }

    #[test]
    fn categories_colours_and_ticks() {
        let names: Vec<(String, bool)> =
            (0..40).map(|i| (format!("kind{i}"), false)).chain([("wait a".to_string(), true)]).collect();
        let colours = colours(&names);
        let from_palette: std::collections::HashSet<&str> =
            colours[..40].iter().map(String::as_str).filter(|c| WORK_COLOURS.contains(c)).collect();
        assert_eq!(from_palette.len(), WORK_COLOURS.len(), "the palette is used up before hues");
        assert!(colours[..40].iter().filter(|c| c.starts_with("hsl(")).count() == 40 - WORK_COLOURS.len());
        assert!(WAIT_COLOURS.contains(&colours[40].as_str()));
        assert_eq!((tick_step(1), tick_step(95), tick_step(1000), tick_step(123_456)), (1, 10, 100, 20_000));
        assert_eq!(
            (tick_label(250), tick_label(12_000), tick_label(3_000_000)),
            ("250".into(), "12k".into(), "3M".into())
        );
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(escaped("a\u{1}<"), "a\u{fffd}&lt;");
        assert_eq!(truncate("abcdef", 4), "abc…");
    }
}
