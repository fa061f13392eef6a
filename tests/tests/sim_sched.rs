//! The sub-partition schedulers against calibration item 23 (`calibration/results/sched/`):
//! warps of one sub-partition that are ready together share its issue slot in turn, so
//! identical throughput-bound streams finish together, not one after the other.

use warpspec::report::Track;
use warpspec::sim::lower::{Dep, Instr};
use warpspec::sim::timing::ExecPipe;
use warpspec::sim::{Machine, MicroInstance, MicroKernel, SchedulerPolicy, SimOptions, TraceOptions, simulate_micro};

/// Chunks per warp, as in `bench_sched.cu`.
const CHUNKS: usize = 32;

/// One chunk of item 23's stream of `pipe`: 16 steps of 8 independent chains.
fn program(pipe: ExecPipe) -> Vec<Instr> {
    let chunk = Instr::Exec { pipe, count: 128, dep: Dep::Stream, elements: 1 };
    vec![chunk; CHUNKS]
}

/// When each warp of a one-CTA run of `warps` warps, all running `pipe`'s stream, issues its
/// last instruction.
fn ends(warps: u32, pipe: ExecPipe, policy: Option<SchedulerPolicy>) -> Vec<u64> {
    let instances = (0..warps).map(|_| MicroInstance { name: "w", warps: 1, program: program(pipe) }).collect();
    let kernel = MicroKernel { sms: Some(1), ..MicroKernel::new(instances) };
    let trace = TraceOptions { ctas_per_sm: 1, ..TraceOptions::default() };
    let opts = SimOptions { policy, ..SimOptions::default().with_trace(trace) };
    // Item 23's streams are its own CUDA loops: one warp alone issued an instruction a
    // cycle, so they carry no wait beyond the issue cycle, not the generated kernels' mean
    // fixed stall (item 39).
    let mut machine = Machine::h200();
    machine.issue.fixed_stall_cycles.value = 1.0;
    let report = simulate_micro(&machine, &kernel, &opts).expect("runs");
    let mut ends = vec![0; warps as usize];
    for span in &report.trace.expect("traced").events {
        if let Track::Warp { warp, .. } = span.track {
            ends[warp as usize] = ends[warp as usize].max(span.end);
        }
    }
    ends
}

/// On the H200, with two warps on each sub-partition, the other warp had come 90-99% of its
/// way when the first finished, and both took 1.71-1.94 times one warp's time alone (item 23:
/// FFMA, MUFU.EX2 and softmax-mix streams). The machine's scheduler shares the slot in turn;
/// a greedy one (the override) runs one warp to its end first.
#[test]
fn warps_ready_together_share_their_sub_partition_in_turn() {
    for pipe in [ExecPipe::Fma, ExecPipe::Mufu] {
        let alone = *ends(4, pipe, None).iter().max().unwrap() as f64;
        let shared = ends(8, pipe, None);
        for smsp in 0..4 {
            let (a, b) = (shared[smsp] as f64, shared[smsp + 4] as f64);
            assert!(a.min(b) / a.max(b) > 0.9, "{pipe:?}: warps {smsp} and {} end at {a} and {b}", smsp + 4);
            assert!((1.7..=2.05).contains(&(a.max(b) / alone)), "{pipe:?}: {a}, {b} against {alone} alone");
        }
        let greedy = ends(8, pipe, Some(SchedulerPolicy::GreedyThenOldest));
        assert!(greedy[0] as f64 / greedy[4] as f64 <= 0.55, "{pipe:?} greedy: {greedy:?}");
    }
}
