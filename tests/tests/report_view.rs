//! The report and the timeline as a person sees them: the terminal summary of a small GEMM
//! answers which barrier each role waits on and which source lines stall; the Chrome JSON
//! passes a Perfetto-format check; the HTML timeline renders in headless Chromium without
//! console errors and shows the roles, the waits and the tensor-core track.

use warpspec::dsl::Global;
use warpspec::report::{MemoryLevel, SimReport, SiteOp, StallReason, WaitTarget};
use warpspec::sim::{Machine, SimOptions, TraceOptions};
use warpspec_examples::gemm;

/// The GEMM of the golden test (512^3 on an H200), traced.
fn small_gemm(trace: TraceOptions) -> SimReport {
    let (m, n, k) = (512, 512, 512);
    let args = gemm::ws_gemm::Args {
        a: Global::shape_only(&[m, k]),
        b: Global::shape_only(&[k, n]),
        c: Global::shape_only(&[m, n]),
    };
    let opts = SimOptions { trace: Some(trace), ..SimOptions::default() };
    match warpspec::sim::simulate::<gemm::ws_gemm::Kernel>(&Machine::h200(), gemm::grid(m, n), &args, &opts) {
        Ok(report) => report,
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn the_summary_names_barriers_bytes_and_source_lines() {
    let r = small_gemm(TraceOptions::default());
    let summary = r.to_string();
    println!("{summary}");
    // Every role's mbarrier waits are broken down by barrier and stage, and they add up to
    // no more than the role's long_scoreboard cycles.
    for role in &r.roles {
        let phase: u64 = role
            .waits
            .iter()
            .filter(|w| matches!(w.target, WaitTarget::Phase(_)))
            .map(|w| w.cycles.get(StallReason::LongScoreboard))
            .sum();
        assert!(phase <= role.cycles.get(StallReason::LongScoreboard), "{}", role.role);
        assert!(phase > 0, "role {} waits on no mbarrier", role.role);
    }
    assert!(summary.contains("waiting on mbarrier "), "{summary}");
    // Bytes per level, and L2/HBM bandwidth at the clock.
    let l2 = r.traffic.iter().find(|t| t.level == MemoryLevel::L2).expect("L2 traffic");
    assert!(l2.bytes >= 3 * 512 * 512 * 2, "A, B read and C written at least once: {}", l2.bytes);
    assert!(r.gb_per_s(MemoryLevel::Shared) > 0.0 && r.gb_per_s(MemoryLevel::Hbm) > 0.0);
    assert!(!r.traffic.iter().any(|t| t.level == MemoryLevel::TensorMemory), "no tensor memory on Hopper");
    assert!(summary.contains("traffic    shared "), "{summary}");
    // The source view names kernel lines of the GEMM, with their operations.
    let top = &r.sources[0];
    assert!(top.file.ends_with("gemm_kernel.rs") && top.line > 0, "{top:?}");
    assert!(r.sources.iter().any(|s| matches!(s.op, SiteOp::Op("mma"))));
    assert!(summary.contains("gemm_kernel.rs:"), "{summary}");
    // Cycles per site add up to the roles' cycles.
    let by_sites: u64 = r.sources.iter().map(|s| s.cycles.total()).sum();
    let by_roles: u64 = r.roles.iter().map(|role| role.cycles.total()).sum();
    assert!(by_sites <= by_roles && by_sites * 10 >= by_roles * 9, "{by_sites} of {by_roles}");
    assert!(summary.contains("tensor ") && !summary.contains("bottleneck"));
}

/// Checks `json` as Perfetto reads the Chrome trace-event format: every event has a phase and
/// the fields its phase needs, complete events of a thread start in order and nest or follow
/// each other, and every flow id has one start and one end. Returns the event count per phase.
fn check_perfetto(json: &str) -> std::collections::BTreeMap<String, usize> {
    use serde_json::Value;
    let doc: Value = serde_json::from_str(json).expect("valid JSON");
    let other = &doc["otherData"];
    assert!(other["clock_ghz"].as_f64().is_some_and(|c| c > 0.0), "the clock is declared");
    assert!(other["time_unit"].as_str().is_some_and(|u| u.contains("microseconds")));
    let events = doc["traceEvents"].as_array().expect("traceEvents");
    let mut phases = std::collections::BTreeMap::new();
    let mut last_start: std::collections::HashMap<(u64, u64), (f64, f64)> = Default::default();
    let mut flows: std::collections::HashMap<u64, (usize, usize)> = Default::default();
    let num = |e: &Value, k: &str| e[k].as_f64().unwrap_or_else(|| panic!("`{k}` missing or not a number: {e}"));
    for e in events {
        let ph = e["ph"].as_str().unwrap_or_else(|| panic!("no ph: {e}"));
        *phases.entry(ph.to_string()).or_default() += 1;
        let (pid, tid) = (num(e, "pid") as u64, e["tid"].as_f64().map(|t| t as u64));
        match ph {
            "M" => {
                assert!(e["name"].is_string() && e["args"].is_object(), "{e}");
            }
            "X" => {
                let (ts, dur) = (num(e, "ts"), num(e, "dur"));
                assert!(e["name"].is_string() && e["cat"].is_string() && dur >= 0.0, "{e}");
                let args = &e["args"];
                assert!(args["op"].is_string() && args["start_cycle"].is_u64() && args["end_cycle"].is_u64(), "{e}");
                let key = (pid, tid.expect("tid"));
                if let Some(&(prev_ts, prev_end)) = last_start.get(&key) {
                    assert!(ts >= prev_ts, "thread {key:?} is not in start order: {e}");
                    // Slices of one thread nest or follow: a slice starting inside the
                    // previous one ends inside it too (allowing the 1e-4 rounding).
                    assert!(ts >= prev_end - 1e-4 || ts + dur <= prev_end + 1e-4, "overlap on {key:?}: {e}");
                }
                last_start.insert(key, (ts, ts + dur));
            }
            "s" | "f" => {
                let id = num(e, "id") as u64;
                num(e, "ts");
                assert!(tid.is_some(), "{e}");
                let entry = flows.entry(id).or_default();
                if ph == "s" {
                    entry.0 += 1;
                } else {
                    assert_eq!(e["bp"], "e", "{e}");
                    entry.1 += 1;
                }
            }
            other => panic!("unexpected phase {other}: {e}"),
        }
    }
    for (id, (starts, ends)) in &flows {
        assert_eq!((*starts, *ends), (1, 1), "flow {id}");
    }
    phases
}

#[test]
fn the_chrome_trace_passes_a_perfetto_format_check() {
    let r = small_gemm(TraceOptions::default());
    let trace = r.trace.as_ref().expect("traced");
    let json = trace.to_chrome_json();
    let phases = check_perfetto(&json);
    assert_eq!(phases["X"], trace.events.len());
    assert!(phases.get("s").copied().unwrap_or(0) > 0, "arrivals link to the waits they release");
    assert_eq!(phases.get("s"), phases.get("f"));
    // Every wait on a full stage of the ring is released by a TMA copy or an arrive.
    for flow in &trace.flows {
        assert!(trace.events[flow.to].kind.is_wait());
        assert!(trace.events[flow.from].start <= trace.events[flow.to].end);
    }
    assert!(json.contains("\"source\":\"") && json.contains("gemm_kernel.rs:"));
    // A window keeps only its spans.
    let window = warpspec::report::CycleWindow { start: 2_000, end: 4_000 };
    let r = small_gemm(TraceOptions { window: Some(window), ..TraceOptions::default() });
    let windowed = r.trace.as_ref().expect("traced");
    assert!(windowed.outside_window > 0 && !windowed.events.is_empty());
    assert!(windowed.events.iter().all(|e| e.end >= window.start && e.start < window.end));
    check_perfetto(&windowed.to_chrome_json());
    assert!(windowed.to_html().contains("Window: cycles 2,000 to 4,000"));
}

/// The Chromium binary, if one is installed.
fn chromium() -> Option<std::path::PathBuf> {
    ["chromium", "chromium-browser", "google-chrome"].iter().find_map(|name| {
        std::env::var_os("PATH")?
            .to_str()?
            .split(':')
            .map(|dir| std::path::Path::new(dir).join(name))
            .find(|p| p.is_file())
    })
}

#[test]
fn the_html_timeline_renders_in_headless_chromium() {
    let Some(chromium) = chromium() else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but no chromium on PATH: .ci/run installs Debian's `chromium`"
        );
        println!("skipped: no chromium on PATH (install Debian's `chromium` to run this test)");
        return;
    };
    let r = small_gemm(TraceOptions::default());
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/report-view");
    std::fs::create_dir_all(&dir).expect("artefact directory");
    let dir = dir.canonicalize().expect("artefact directory");
    let html = dir.join("ws_gemm_timeline.html");
    r.trace.as_ref().expect("traced").write(&html).expect("written");
    let run = |extra: &[&str]| {
        let profile = dir.join("profile");
        let out = std::process::Command::new(&chromium)
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--enable-logging=stderr", "--v=0"])
            .arg(format!("--user-data-dir={}", profile.display()))
            .args(extra)
            .arg(format!("file://{}", html.display()))
            .output()
            .expect("chromium runs");
        assert!(out.status.success(), "chromium failed: {}", String::from_utf8_lossy(&out.stderr));
        (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let (dom, log) = run(&["--dump-dom", "--virtual-time-budget=2000"]);
    // Console messages of the page reach stderr as `CONSOLE` lines (errors with level 2+).
    let console: Vec<&str> = log.lines().filter(|l| l.contains("CONSOLE") || l.contains("Uncaught")).collect();
    assert!(console.is_empty(), "console messages: {console:#?}");
    assert!(dom.contains("<svg") && dom.contains("id=\"plot\""), "{dom}");
    for needle in [
        "`producer`",
        "`consumer`",
        "tensor cores",
        "TMA unit",
        "data-kind=\"wait\"",
        "data-kind=\"tensor\"",
        "barrier Operands.full:",
        "`ws_gemm` on NVIDIA H200",
    ] {
        assert!(dom.contains(needle), "the rendered page lacks {needle}");
    }
    // The script ran: it drew the axis ticks into the DOM.
    assert!(dom.matches("class=\"tick\"").count() >= 5);
    let png = dir.join("ws_gemm_timeline.png");
    let _ = std::fs::remove_file(&png);
    run(&["--screenshot=".to_string() + &png.display().to_string(), "--window-size=1600,1000".into()]
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>());
    assert!(std::fs::metadata(&png).is_ok_and(|m| m.len() > 10_000), "screenshot {}", png.display());
    println!("screenshot: {}", png.display());
}
