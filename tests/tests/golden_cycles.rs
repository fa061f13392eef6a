//! Golden timing: the exact cycle counts, stall cycles, L2 traffic and timeline spans the
//! timing model gives the example kernels on small problems. These pin the model's
//! behaviour: a refactor must leave every number as it is, and a deliberate model change
//! updates them here in the same commit, saying why.

use warpspec::dsl::DType;
use warpspec::report::SimReport;
use warpspec::sim::{Machine, SchedulerPolicy, SimOptions, TraceOptions};
use warpspec_examples::attention::{Problem, blackwell, hopper};
use warpspec_examples::gemm;
use warpspec_examples::gemm_tradeoff::{self, Config, TileShape, Variant};

/// One line that changes whenever any pinned number changes.
fn fingerprint(r: &SimReport) -> String {
    let mut s =
        format!("cycles={} flops={} l2={}/{}/{}", r.cycles, r.mma_flops, r.l2_hits, r.l2_misses, r.l2_coalesced);
    for role in &r.roles {
        s += &format!(" {}={:?}", role.role, role.cycles.0);
    }
    if let Some(trace) = &r.trace {
        let busy: u64 = trace.events.iter().map(|e| e.end - e.start).sum();
        s += &format!(
            " spans={} busy={} tracks={} dropped={}",
            trace.events.len(),
            busy,
            trace.threads.len(),
            trace.dropped
        );
    }
    s
}

fn traced() -> SimOptions {
    SimOptions { trace: Some(TraceOptions::default()), ..SimOptions::default() }
}

fn attention(seq: usize, causal: bool) -> Problem {
    Problem { batch: 1, heads: 2, seq, head_dim: 128, causal, dtype: DType::Bf16 }
}

/// Every pinned case: its name and its fingerprint.
fn cases() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let h100 = Machine::h100_sxm();
    let h200 = Machine::h200();
    let b200 = Machine::b200();

    let (m, n, k) = (512, 512, 512);
    let args = gemm::ws_gemm::Args {
        a: warpspec::dsl::Global::shape_only(&[m, k]),
        b: warpspec::dsl::Global::shape_only(&[k, n]),
        c: warpspec::dsl::Global::shape_only(&[m, n]),
    };
    let r = warpspec::sim::simulate::<gemm::ws_gemm::Kernel>(&h200, gemm::grid(m, n), &args, &traced()).unwrap();
    out.push(("ws_gemm 512^3 h200 traced".to_string(), fingerprint(&r)));
    let gto = SimOptions { policy: Some(SchedulerPolicy::GreedyThenOldest), ..SimOptions::default() };
    let r = warpspec::sim::simulate::<gemm::ws_gemm::Kernel>(&h200, gemm::grid(m, n), &args, &gto).unwrap();
    out.push(("ws_gemm 512^3 h200 gto".to_string(), fingerprint(&r)));

    for variant in Variant::ALL {
        let config = Config { variant, tile: TileShape { m: 128, n: 128 }, pipe: 2 };
        let r = gemm_tradeoff::simulate(config, [512, 512, 256], &h100, &SimOptions::default()).unwrap();
        out.push((format!("tradeoff {config} h100"), fingerprint(&r)));
    }

    for causal in [false, true] {
        let p = attention(512, causal);
        let r = hopper::simulate(&p, Some(hopper::Variant::FULL), &h200, &traced()).unwrap();
        out.push((format!("fa3 full causal={causal} h200 traced"), fingerprint(&r)));
        let r = blackwell::simulate(&p, &b200, &traced()).unwrap();
        out.push((format!("fa4 causal={causal} b200 traced"), fingerprint(&r)));
    }
    let p = attention(384, false);
    for (pingpong, overlap) in [(false, true), (true, false), (false, false)] {
        let v = hopper::Variant { pingpong, overlap };
        let r = hopper::simulate(&p, Some(v), &h200, &SimOptions::default()).unwrap();
        out.push((format!("fa3 pingpong={pingpong} overlap={overlap} s384 h200"), fingerprint(&r)));
    }
    let r = hopper::simulate(&p, None, &h200, &SimOptions::default()).unwrap();
    out.push(("attention non-specialized s384 h200".to_string(), fingerprint(&r)));
    out
}

const GOLDEN: &str = include_str!("golden_cycles.txt");

#[test]
fn timing_model_matches_the_golden_numbers() {
    let actual: String = cases().into_iter().map(|(name, f)| format!("{name}: {f}\n")).collect();
    if std::env::var_os("WARPSPEC_BLESS").is_some() {
        std::fs::write(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden_cycles.txt"), &actual).unwrap();
        return;
    }
    let mut diffs = Vec::new();
    for (want, got) in GOLDEN.lines().zip(actual.lines()) {
        if want != got {
            diffs.push(format!("  want {want}\n  got  {got}"));
        }
    }
    assert_eq!(GOLDEN.lines().count(), actual.lines().count(), "the set of golden cases changed:\n{actual}");
    assert!(diffs.is_empty(), "the timing model's numbers changed:\n{}", diffs.join("\n"));
}
