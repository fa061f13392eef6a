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
