//! Tests of the SM model on hand-built instruction streams: pipe rates and latencies,
//! `wgmma` groups and their descriptor arithmetic, TMA and L2 bandwidth, barriers,
//! interference between the tensor cores and the other pipes, deadlocks and traces, each
//! against the calibration measurements it cites.

use super::*;
use crate::dsl::BarrierSlot;
use crate::report::StallReason;
use crate::sim::SchedulerPolicy;
use crate::sim::descriptors::DescriptorPlacement;
use crate::sim::lower::Dep;
use crate::sim::machine::MmaIssue;
use crate::sim::timing::ExecPipe;

/// The H100 without the compiler's mean fixed stall: these streams stand for the
/// calibration kernels' own loops, whose measured rates (128 `FFMA` a clock, one
/// instruction a cycle a sub-partition) leave their instructions no wait beyond the issue
/// cycle, not for the generated kernels' code the mean was read from (calibration item 39).
fn h100() -> Machine {
    let mut machine = Machine::h100_sxm();
    machine.issue.fixed_stall_cycles.value = 1.0;
    machine
}

fn warp(name: &'static str, program: Vec<Instr>) -> MicroInstance {
    MicroInstance { name, warps: 1, program }
}

fn run(kernel: &MicroKernel) -> SimReport {
    match simulate_micro(&h100(), kernel, &SimOptions::default()) {
        Ok(report) => report,
        Err(e) => panic!("{e}"),
    }
}

fn exec(pipe: ExecPipe, count: u32, dep: Dep) -> Instr {
    Instr::Exec { pipe, count, dep, elements: 1 }
}

#[test]
fn interleaved_softmax_bursts_run_at_the_special_function_rate() {
    // One warp's softmax of 64 elements a thread: the scale (64 FFMA), `exp2` (64
    // MUFU.EX2) and the row sum's in-thread adds (62 FADD), each element-wise on the one
    // before. As bursts the FFMA and FADD run before and after the exponentials; issued
    // interleaved (`issue.interleave_element_wise`) they run beside them, at MUFU's rate.
    let program = vec![
        exec(ExecPipe::Fma, 64, Dep::Stream),
        exec(ExecPipe::Mufu, 64, Dep::Stream),
        exec(ExecPipe::Fma, 62, Dep::Stream),
    ];
    let time = |interleave: bool| {
        let mut machine = h100();
        machine.issue.interleave_element_wise.value = interleave;
        let kernel = MicroKernel::new(vec![warp("softmax", program.clone())]);
        match simulate_micro(&machine, &kernel, &SimOptions::default()) {
            Ok(r) => r.cycles,
            Err(e) => panic!("{e}"),
        }
    };
    // A run ends when its last instruction issues; the last MUFU.EX2s then still sit in
    // the sub-partition's MIO queue.
    let interval = Timing::new(&h100(), 1.83).pipe(ExecPipe::Mufu).interval;
    let queued = u64::from(h100().issue.mio_queue_instructions.value) * interval;
    let (bursts, mixed) = (time(false), time(true));
    assert!(bursts >= mixed + 100, "bursts {bursts}, interleaved {mixed} cycles");
    assert!((64 * interval - queued..64 * interval).contains(&mixed), "interleaved: {mixed} cycles");
}

#[test]
fn a_fixed_stall_spaces_one_warps_instructions_not_the_sub_partitions() {
    // ptxas' mean stall count in the FA3 consumer's loop (calibration item 39).
    let stall = 2.2;
    let n = 1000;
    let time = |warps: u32, dep: Dep| {
        let mut machine = h100();
        machine.issue.fixed_stall_cycles.value = stall;
        let kernel =
            MicroKernel::new(vec![MicroInstance { name: "ffma", warps, program: vec![exec(ExecPipe::Fma, n, dep)] }]);
        match simulate_micro(&machine, &kernel, &SimOptions::default()) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        }
    };
    // One warp: an instruction every 2.2 cycles, the rest of each held as `wait`.
    let one = time(1, Dep::None);
    let per_instruction = one.cycles as f64 / f64::from(n);
    assert!((per_instruction - stall).abs() < 0.01 * stall, "{per_instruction} cycles per FFMA");
    let waits = one.roles[0].cycles.get(StallReason::Wait) as f64;
    assert!((waits - (stall - 1.0) * f64::from(n)).abs() < 0.02 * waits, "{waits} cycles of wait");
    // Two warps of one sub-partition (warps 0 and 4 of 5) fill each other's stalls.
    let two = time(5, Dep::None);
    assert!(two.cycles.abs_diff(one.cycles) < one.cycles / 50, "{} against {} cycles", two.cycles, one.cycles);
    // A dependent chain already waits its latency (4 cycles): the stall adds nothing.
    let chain = time(1, Dep::Chain).cycles as f64 / f64::from(n);
    let latency = f64::from(h100().pipes.fma.latency_cycles.value);
    assert!((chain - latency).abs() < 0.01 * latency, "{chain} cycles per chained FFMA");
}

/// Cycles a group of one warpgroup issuing 50 groups of `m64nNk128` bf16 (8 native MMAs
/// each) on `machine`, each group waited to one pending.
fn mma_group_cycles(machine: &Machine, n: u32, a_in_registers: bool) -> f64 {
    placed_group_cycles(machine, n, a_in_registers, DescriptorPlacement::default(), 1)
}

/// As [`mma_group_cycles`], the groups lowered with `placement` and waited to `pending`.
fn placed_group_cycles(
    machine: &Machine,
    n: u32,
    a_in_registers: bool,
    placement: DescriptorPlacement,
    pending: u32,
) -> f64 {
    use crate::dsl::Op;
    use crate::sim::lower::{Issuer, lower};
    let groups = 50;
    let timing = Timing { descriptor_placement: placement.clone(), ..Timing::new(machine, 1.83) };
    let op = Op::Mma { m: 64, n, k: 128, dtype: DType::Bf16, a_in_registers };
    let mut group = Vec::new();
    assert_eq!(lower(&op, Issuer::uniform(128), &timing, &mut group), Ok(()));
    let mut program = Vec::new();
    for _ in 0..groups {
        program.extend(group.iter().copied());
        program.push(Instr::Wait(Wait::Mma { pending }));
    }
    program.push(Instr::Wait(Wait::Mma { pending: 0 }));
    let kernel = MicroKernel::new(vec![MicroInstance { name: "wgmma", warps: 4, program }]);
    let opts = SimOptions { descriptor_placement: placement, ..SimOptions::default() };
    match simulate_micro(machine, &kernel, &opts) {
        Ok(r) => r.cycles as f64 / f64::from(groups),
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn a_placed_groups_later_mmas_start_as_they_issue() {
    // `group_start_cycles` delays a group's first MMA only: where the descriptor
    // arithmetic sits between the MMAs (a kernel's SASS placement, FA3's spread), the
    // later MMAs reach the tensor cores as they issue, so the first one's start hides
    // under the arithmetic after it. Each group waited to none: N = 64, 8 MMAs of 32
    // tensor cycles, each after about 33 cycles of its own arithmetic.
    let time = |start: u32| {
        let mut machine = h100();
        if let MmaIssue::WarpgroupWgmma { group_start_cycles, group_start_cycles_placed, .. } =
            &mut machine.tensor.issue
        {
            (group_start_cycles.value, group_start_cycles_placed.value) = (start, start);
        }
        let spread = DescriptorPlacement { ss: Some(vec![14; 8]), rs: None };
        placed_group_cycles(&machine, 64, false, spread, 0)
    };
    let (started, at_once) = (time(49), time(0));
    assert!(started - at_once < 10.0, "the start shows once, hidden: {at_once:.0} -> {started:.0} cycles a group");
    // The group at once, its arithmetic after its MMAs, shows more of it.
    let whole = |start: u32| {
        let mut machine = h100();
        if let MmaIssue::WarpgroupWgmma { group_start_cycles, .. } = &mut machine.tensor.issue {
            group_start_cycles.value = start;
        }
        placed_group_cycles(&machine, 64, false, DescriptorPlacement::default(), 0)
    };
    assert!(whole(49) - whole(0) > 20.0, "{:.0} -> {:.0}", whole(0), whole(49));
}

#[test]
fn a_group_start_from_the_fence_hides_under_the_arithmetic_ahead_of_the_first_mma() {
    // All of a group's descriptor arithmetic ahead of its first MMA (front-loaded, as
    // ptxas hoists it in the GEMMs): from the first `wgmma` the start adds to the
    // arithmetic, from the fence (`group_start_from_fence`) it runs under it. The group
    // at once, its arithmetic after it, has no arithmetic ahead: the switch changes nothing.
    let time = |start: u32, from_fence: bool, placement: DescriptorPlacement| {
        let mut machine = h100();
        if let MmaIssue::WarpgroupWgmma {
            group_start_cycles, group_start_cycles_placed, group_start_from_fence, ..
        } = &mut machine.tensor.issue
        {
            (group_start_cycles.value, group_start_cycles_placed.value) = (start, start);
            group_start_from_fence.value = from_fence;
        }
        placed_group_cycles(&machine, 64, false, placement, 0)
    };
    let front = || DescriptorPlacement { ss: Some(vec![40, 0, 0, 0, 0, 0, 0, 0]), rs: None };
    let from_issue = time(49, false, front()) - time(0, false, front());
    let from_fence = time(49, true, front()) - time(0, true, front());
    assert!(from_issue > 40.0, "the start after the arithmetic: {from_issue:.0} cycles a group");
    assert!(from_fence < 5.0, "the start under the arithmetic: {from_fence:.0} cycles a group");
    let whole = |from_fence: bool| time(49, from_fence, DescriptorPlacement::default());
    assert_eq!(whole(true), whole(false));
}

/// Cycles a pass of calibration item 45's timed warpgroup: groups of 4 `wgmma`
/// m64n128k16 SS lowered with `placement`, each waited to none, beside the other
/// warpgroup idle or running groups of its own (the group at once) back to back.
fn item45_pass(machine: &Machine, placement: DescriptorPlacement, other: bool) -> f64 {
    use crate::dsl::Op;
    use crate::sim::lower::{Issuer, lower};
    let passes = 100;
    let group = |placement: &DescriptorPlacement| {
        let timing = Timing { descriptor_placement: placement.clone(), ..Timing::new(machine, 1.98) };
        let op = Op::Mma { m: 64, n: 128, k: 64, dtype: DType::Bf16, a_in_registers: false };
        let mut group = Vec::new();
        assert_eq!(lower(&op, Issuer::uniform(128), &timing, &mut group), Ok(()));
        group.push(Instr::Wait(Wait::Mma { pending: 0 }));
        group
    };
    let timed: Vec<Instr> = (0..passes).flat_map(|_| group(&placement)).collect();
    let mut instances = vec![MicroInstance { name: "timed", warps: 4, program: timed }];
    if other {
        let busy = (0..4 * passes).flat_map(|_| group(&DescriptorPlacement::default())).collect();
        instances.push(MicroInstance { name: "other", warps: 4, program: busy });
    }
    let opts = SimOptions { descriptor_placement: placement, clock_ghz: Some(1.98), ..SimOptions::default() };
    let report = simulate_micro(machine, &MicroKernel::new(instances), &opts).expect("runs");
    let timed = &report.roles[0];
    timed.cycles.total() as f64 / f64::from(timed.warps_per_cta) / f64::from(passes)
}

#[test]
fn front_loaded_descriptors_cost_a_lone_group_what_item_45_measured() {
    // Item 45 (H200): descriptors built in the loop, front-loaded by ptxas (23 and 17
    // instructions before the first two of 4 HGMMA), against built once: 7.5 cycles more
    // a group with the other warpgroup idle, 12 fewer beside its SS groups. Counting the
    // arithmetic ahead of the first MMA and a start fitted with it uncounted on top of
    // it would charge it twice (62 more idle).
    let machine = Machine::h200();
    let front = || DescriptorPlacement { ss: Some(vec![23, 17, 4, 4]), rs: None };
    let idle = item45_pass(&machine, front(), false) - item45_pass(&machine, DescriptorPlacement::default(), false);
    let beside = item45_pass(&machine, front(), true) - item45_pass(&machine, DescriptorPlacement::default(), true);
    assert!((0.0..25.0).contains(&idle), "front-loaded against the group at once, idle: {idle:+.1} cycles a group");
    assert!(beside.abs() < 15.0, "beside the other warpgroup's groups: {beside:+.1} cycles a group");
}

#[test]
fn descriptor_arithmetic_holds_its_warp_for_the_compilers_stalls() {
    // Calibration item 41: ptxas's fixed stalls between two MMAs of a group.
    let (ss, rs) = (33.2, 28.4);
    let time = |n: u32, a_in_registers: bool, (s, r): (f64, f64)| {
        let mut machine = h100();
        if let MmaIssue::WarpgroupWgmma { descriptor_cycles_ss, descriptor_cycles_rs, .. } = &mut machine.tensor.issue {
            (descriptor_cycles_ss.value, descriptor_cycles_rs.value) = (s, r);
        }
        mma_group_cycles(&machine, n, a_in_registers)
    };
    // N = 64: an MMA keeps the tensor cores 32 cycles, under the 33.2 of its descriptors,
    // so the warp's issue sets the pace (8 MMAs a group): no faster than the stalls, and
    // slower than the pipes' intervals alone (slowed beside the running MMAs) make it.
    let (free, held) = (time(64, false, (0.0, 0.0)), time(64, false, (ss, rs)));
    assert!(held >= 8.0 * ss && held > free * 1.05, "N = 64 SS: {free:.0} -> {held:.0} cycles a group");
    let (free_rs, held_rs) = (time(64, true, (0.0, 0.0)), time(64, true, (ss, rs)));
    assert!(held_rs >= 8.0 * rs && held_rs > free_rs * 1.05, "N = 64 RS: {free_rs:.0} -> {held_rs:.0} cycles a group");
    // N = 256: 128 cycles an MMA hide the arithmetic.
    let (free, held) = (time(256, false, (0.0, 0.0)), time(256, false, (ss, rs)));
    assert!((held - free).abs() < 0.02 * free, "N = 256 SS: {free:.0} -> {held:.0} cycles a group");
}

#[test]
fn placed_descriptor_arithmetic_stretches_while_its_own_group_runs() {
    // `tensor.interference.descriptor_latency_factor_own`: the descriptors of a group of 8
    // m64n64k16 SS (32 tensor cycles an MMA, under the 33.2 cycles of each MMA's
    // arithmetic), placed before each MMA as the compiled code places them, run with the
    // group in flight, so the factor paces the warp's issue.
    let placed = || DescriptorPlacement { ss: Some(vec![1; 8]), rs: None };
    let time = |factor: f64, placement: DescriptorPlacement| {
        let mut machine = h100();
        machine.tensor.interference.descriptor_latency_factor_own.value = factor;
        placed_group_cycles(&machine, 64, false, placement, 1)
    };
    let (plain, stretched) = (time(1.0, placed()), time(1.6, placed()));
    assert_eq!(stretched, time(h100().tensor.interference.descriptor_latency_factor_own.value, placed()));
    assert!(stretched >= 8.0 * 33.2 * 1.6 * 0.9, "{plain:.0} -> {stretched:.0} cycles a group");
    // Unstretched, the pipes' intervals beside the running MMAs (item 11) set the pace.
    assert!(stretched > plain * 1.15, "{plain:.0} -> {stretched:.0} cycles a group");
    // The group at once, its arithmetic after it, is not stretched: its start was fitted
    // without the stretch.
    let at_once = |factor: f64| time(factor, DescriptorPlacement::default());
    assert_eq!(at_once(1.0), at_once(1.6));
}

#[test]
fn a_dependent_ffma_chain_pays_the_latency_per_instruction() {
    let n = 1000;
    let report = run(&MicroKernel::new(vec![warp("chain", vec![exec(ExecPipe::Fma, n, Dep::Chain)])]));
    let latency = h100().pipes.fma.latency_cycles.value as f64;
    let per_instruction = report.cycles as f64 / f64::from(n);
    assert!((per_instruction - latency).abs() < 0.01 * latency, "{per_instruction} cycles per FFMA");
    let stalls = &report.roles[0].cycles;
    assert_eq!(stalls.get(StallReason::Selected), u64::from(n));
    assert!(stalls.get(StallReason::Wait) >= u64::from(n - 1) * 3);
}

#[test]
fn independent_ffmas_from_four_warps_reach_128_per_clock() {
    let n = 10_000;
    let one = |name| warp(name, vec![exec(ExecPipe::Fma, n, Dep::None)]);
    let report = run(&MicroKernel::new(vec![one("w0"), one("w1"), one("w2"), one("w3")]));
    let lanes_per_clk = 4.0 * f64::from(n) * 32.0 / report.cycles as f64;
    assert!(lanes_per_clk > 0.99 * 128.0, "{lanes_per_clk} FFMA lanes per clock");
    assert!(report.utilisation[crate::report::Unit::Fma] > 0.99 / 132.0, "one SM of 132 is busy");
    // One warp keeps only its own sub-partition busy: a quarter of the SM's rate.
    let report = run(&MicroKernel::new(vec![one("w0")]));
    let lanes_per_clk = f64::from(n) * 32.0 / report.cycles as f64;
    assert!((lanes_per_clk - 32.0).abs() < 0.5, "{lanes_per_clk} FFMA lanes per clock from one warp");
}

#[test]
fn mufu_reaches_16_per_clock() {
    let n = 1000;
    let instances = (0..8).map(|_| warp("ex2", vec![exec(ExecPipe::Mufu, n, Dep::None)])).collect();
    let report = run(&MicroKernel::new(instances));
    let per_clk = 8.0 * f64::from(n) * 32.0 / report.cycles as f64;
    assert!((per_clk - 16.0).abs() < 0.2, "{per_clk} MUFU lanes per clock");
    assert!(report.roles[0].cycles.get(StallReason::MioThrottle) > 0);
}

#[test]
fn back_to_back_wgmmas_reach_the_tensor_rate() {
    let fma = 64 * 256 * 16;
    let mma = Instr::Mma { issue: 3, instrs: 1, fma, n: 256, dtype: DType::Bf16, a_in_registers: false, commits: true };
    // Keep one group in flight, as the calibration's throughput loop does.
    let mut program = Vec::new();
    for _ in 0..256 {
        program.push(mma);
        program.push(Instr::Wait(Wait::Mma { pending: 1 }));
    }
    program.push(Instr::Wait(Wait::Mma { pending: 0 }));
    let kernel = MicroKernel::new(vec![MicroInstance { name: "wg", warps: 4, program }]);
    let report = run(&kernel);
    let per_clk = 256.0 * fma as f64 / report.cycles as f64;
    assert!(per_clk > 0.98 * 2048.0, "{per_clk} FMA per clock");
    assert!((report.mma_flops as f64 - 2.0 * 256.0 * fma as f64).abs() < 1.0);
    // Waiting for every MMA exposes its latency (54 + N/2 cycles against an N/2 interval).
    let program = (0..64).flat_map(|_| [mma, Instr::Wait(Wait::Mma { pending: 0 })]).collect();
    let report = run(&MicroKernel::new(vec![MicroInstance { name: "wg", warps: 4, program }]));
    let per_clk = 64.0 * fma as f64 / report.cycles as f64;
    assert!(per_clk < 0.75 * 2048.0, "{per_clk} FMA per clock when each MMA is waited for");
}

fn tma_kernel(loads: u32, bytes: u32, ctas: usize) -> MicroKernel {
    let bar = BarrierSlot { barrier: 0, index: 0 };
    let mut program = vec![Instr::Arrive { barrier: bar, tx_bytes: loads * bytes }];
    program.extend((0..loads).map(|_| Instr::TmaLoad { barrier: bar, bytes, src: None }));
    program.push(Instr::Wait(Wait::Parity { slot: bar, parity: 0 }));
    MicroKernel { barriers: vec![1], ctas, ..MicroKernel::new(vec![warp("load", program)]) }
}

#[test]
fn tma_reaches_its_bandwidth_on_one_sm_and_l2_bounds_the_gpu() {
    let machine = h100();
    let timing = Timing::new(&machine, machine.clocks.spec_ghz.value);
    let (loads, bytes) = (256, 16384);
    let report = run(&tma_kernel(loads, bytes, 1));
    let per_clk = f64::from(loads * bytes) / report.cycles as f64;
    let rate = timing.tma_bytes_per_clk;
    assert!(per_clk > 0.95 * rate && per_clk <= rate, "{per_clk} B/clk on one SM");
    // Every SM loading at once: the shared L2 bandwidth is the limit.
    let sms = machine.sm_count.value as usize;
    let report = run(&tma_kernel(64, bytes, sms));
    let per_clk = sms as f64 * 64.0 * f64::from(bytes) / report.cycles as f64;
    let l2 = timing.l2_bytes_per_clk;
    assert!(per_clk > 0.9 * l2 && per_clk <= 1.001 * l2, "{per_clk} B/clk over the GPU, L2 {l2}");
    assert!(report.utilisation[crate::report::Unit::L2] > 0.9);
}

/// End-to-end latencies measured on an H200 (calibration/README.md), reproduced by the
/// model within a few percent.
#[test]
fn latencies_match_the_h200_calibration() {
    let bar = BarrierSlot { barrier: 0, index: 0 };
    let machine = Machine::h200();
    let cycles = |kernel: &MicroKernel| simulate_micro(&machine, kernel, &SimOptions::default()).map(|r| r.cycles);
    let within = |model: u64, measured: f64, tolerance: f64| {
        let error = (model as f64 - measured).abs() / measured;
        assert!(error < tolerance, "model {model} cycles, measured {measured}");
    };
    // TMA 2D load, L2 hit, issue to the waiting thread resuming: 397 (8 KB), 462 (16 KB).
    for (bytes, measured, tolerance) in [(8192, 397.0, 0.03), (16384, 462.0, 0.08)] {
        let program = vec![
            Instr::Arrive { barrier: bar, tx_bytes: bytes },
            Instr::TmaLoad { barrier: bar, bytes, src: None },
            Instr::Wait(Wait::Parity { slot: bar, parity: 0 }),
        ];
        let kernel = MicroKernel { barriers: vec![1], ..MicroKernel::new(vec![warp("tma", program)]) };
        within(cycles(&kernel).unwrap_or(0), measured, tolerance);
    }
    // mbarrier arrive to a waiter in another warp resuming: 89 cycles.
    let arrive = vec![exec(ExecPipe::Fma, 100, Dep::Chain), Instr::Arrive { barrier: bar, tx_bytes: 0 }];
    let waiter = vec![Instr::Wait(Wait::Parity { slot: bar, parity: 0 })];
    let kernel = MicroKernel { barriers: vec![1], ..MicroKernel::new(vec![warp("a", arrive), warp("w", waiter)]) };
    within(cycles(&kernel).unwrap_or(0), 4.0 * 100.0 + 89.0, 0.01);
    // One warpgroup waiting for every group of 4 m64n256k16 wgmmas: 1815 FMA/clk/SM where
    // the loop has its descriptors in uniform registers before it and one fence (item 7,
    // the group starting at once: no start delay), 613 cycles per group where each
    // `wgmma` first moves its descriptor into uniform registers, as generated code does
    // (item 18: the machine's `group_start_cycles`).
    let fma = 64 * 256 * 16;
    let group =
        Instr::Mma { issue: 6, instrs: 4, fma, n: 256, dtype: DType::Bf16, a_in_registers: false, commits: true };
    let program = (0..32).flat_map(|_| [group, Instr::Wait(Wait::Mma { pending: 0 })]).collect();
    let kernel = MicroKernel::new(vec![MicroInstance { name: "wg", warps: 4, program }]);
    let mut prestarted = machine;
    if let MmaIssue::WarpgroupWgmma { group_start_cycles, .. } = &mut prestarted.tensor.issue {
        group_start_cycles.value = 0;
    }
    let cycles_on = |m: &Machine| simulate_micro(m, &kernel, &SimOptions::default()).map(|r| r.cycles);
    let rate = 32.0 * 4.0 * fma as f64 / cycles_on(&prestarted).unwrap_or(u64::MAX) as f64;
    assert!((rate - 1815.0).abs() < 0.02 * 1815.0, "{rate} FMA/clk with wait_group 0");
    within(cycles(&kernel).unwrap_or(0) / 32, 613.4, 0.03);
}

#[test]
fn a_deadlock_in_simulated_time_is_reported() {
    let bar = BarrierSlot { barrier: 0, index: 0 };
    let program = vec![Instr::Arrive { barrier: bar, tx_bytes: 0 }, Instr::Wait(Wait::Parity { slot: bar, parity: 0 })];
    let kernel = MicroKernel { barriers: vec![2], ..MicroKernel::new(vec![warp("lonely", program)]) };
    match simulate_micro(&h100(), &kernel, &SimOptions::default()) {
        Err(SimError::Deadlock { deadlock, .. }) => {
            assert_eq!(deadlock.blocked.len(), 1);
            assert_eq!(deadlock.blocked[0].barrier(), "`bar0[0]`");
            assert!(deadlock.blocked[0].waiting_for().contains("1 of 2 arrivals missing"), "{deadlock}");
        }
        other => panic!("expected a deadlock, got {other:?}"),
    }
}

#[test]
fn named_barriers_release_every_warp_after_the_last_arrives() {
    let slow = vec![exec(ExecPipe::Fma, 100, Dep::Chain), Instr::Wait(Wait::NamedSync { barrier: 0 })];
    let fast = vec![Instr::Wait(Wait::NamedSync { barrier: 0 }), exec(ExecPipe::Fma, 1, Dep::None)];
    let kernel =
        MicroKernel { named_barriers: vec![64], ..MicroKernel::new(vec![warp("slow", slow), warp("fast", fast)]) };
    let report = run(&kernel);
    let named = u64::from(h100().sync.named_barrier_cycles.value);
    assert!(report.cycles >= 400 + named, "{} cycles", report.cycles);
    assert!(report.roles[1].cycles.get(StallReason::Barrier) >= 390);
}

#[test]
fn the_last_warp_to_arrive_passes_its_bar_sync_before_the_waiters_resume() {
    // The same work after the barrier, on the warp that arrived last or on one that waited.
    let after = |on_last: bool| {
        let tail = |here: bool| if here { vec![exec(ExecPipe::Fma, 50, Dep::Chain)] } else { Vec::new() };
        let mut slow = vec![exec(ExecPipe::Fma, 100, Dep::Chain), Instr::Wait(Wait::NamedSync { barrier: 0 })];
        slow.extend(tail(on_last));
        let mut fast = vec![Instr::Wait(Wait::NamedSync { barrier: 0 })];
        fast.extend(tail(!on_last));
        let kernel =
            MicroKernel { named_barriers: vec![64], ..MicroKernel::new(vec![warp("slow", slow), warp("fast", fast)]) };
        run(&kernel).cycles
    };
    let sync = &h100().sync;
    let (waiters, last) = (sync.named_barrier_cycles.value, sync.named_barrier_last_arrival_cycles.value);
    assert!(last < waiters, "{last} / {waiters}");
    assert_eq!(after(false) - after(true), u64::from(waiters - last));
}

/// Calibration item 29's loop (`results/bar_last/bar_last.csv`): four late warps run `w`
/// dependent ALU instructions, then all eight meet at a `bar.sync`. The late warpgroup,
/// arriving last, pays 22.2-22.5 cycles a pass for the barrier on the H200 when two
/// independent instructions and a branch follow it (the trade-off GEMM's shape).
#[test]
fn a_late_warpgroup_pays_its_bar_sync_what_the_h200_measured() {
    const PASSES: usize = 64;
    let per_pass = |w: u32, sync: bool| {
        let step = |chain: bool| {
            let mut step = Vec::new();
            if chain {
                step.push(exec(ExecPipe::Alu, w, Dep::Chain));
            }
            if sync {
                step.push(Instr::Wait(Wait::NamedSync { barrier: 0 }));
            }
            step
        };
        let late = MicroInstance { name: "late", warps: 4, program: step(true).repeat(PASSES) };
        let early = MicroInstance { name: "early", warps: 4, program: step(false).repeat(PASSES) };
        let kernel = MicroKernel { named_barriers: vec![256], ..MicroKernel::new(vec![late, early]) };
        run(&kernel).cycles as f64 / PASSES as f64
    };
    for w in [32, 64, 128] {
        let cost = per_pass(w, true) - per_pass(w, false);
        assert!((20.0..=25.0).contains(&cost), "w = {w}: {cost:.1} cycles a pass");
    }
}

/// Calibration item 33's loop (`results/wait_shape/`): one warpgroup, each pass a group of
/// 4 `wgmma` m64n128k16 SS, a wait on a phase completed long before, then `wait_group 0`.
/// On the H200 the wait resolves while the group runs: from the fence to `wait_group`'s
/// return the pass takes 313-330 cycles with it (uniform address, a ring of phases
/// completed by copies) against 326 without. The model's pass is the loop's period, which
/// item 18 measured for this group: 4 x 64 + 101-112 cycles.
#[test]
fn a_passing_wait_right_after_a_group_hides_under_it() {
    const PASSES: usize = 32;
    let bar = BarrierSlot { barrier: 0, index: 0 };
    let group = wgmma_group(4, 128, false);
    let per_pass = |wait: bool| {
        let mut program = vec![Instr::Arrive { barrier: bar, tx_bytes: 0 }];
        for _ in 0..PASSES {
            program.push(group);
            if wait {
                program.push(Instr::Wait(Wait::Parity { slot: bar, parity: 0 }));
            }
            program.push(Instr::Wait(Wait::Mma { pending: 0 }));
        }
        let kernel = MicroKernel {
            barriers: vec![1],
            ..MicroKernel::new(vec![MicroInstance { name: "wg", warps: 4, program }])
        };
        match simulate_micro(&Machine::h200(), &kernel, &SimOptions::default()) {
            Ok(r) => r.cycles as f64 / PASSES as f64,
            Err(e) => panic!("{e}"),
        }
    };
    let (without, with) = (per_pass(false), per_pass(true));
    assert!((with - without).abs() < 0.02 * without, "{without:.1} cycles a pass without the wait, {with:.1} with");
    assert!((357.0..=368.0).contains(&with), "{with:.1} cycles a pass");
}

#[test]
fn warps_hide_each_others_global_load_latency() {
    // Each warp: one L2 load, then 32 dependent-on-it FFMAs. More warps, more overlap.
    let program =
        vec![Instr::GlobalLoad { count: 1, bytes: 128, from_hbm: false }, exec(ExecPipe::Fma, 32, Dep::Stream)];
    let time = |warps: usize, policy| {
        let kernel = MicroKernel::new((0..warps).map(|_| warp("w", program.clone())).collect());
        let opts = SimOptions { policy: Some(policy), ..SimOptions::default() };
        simulate_micro(&h100(), &kernel, &opts).map(|r| r.cycles).unwrap_or(u64::MAX)
    };
    let one = time(1, SchedulerPolicy::GreedyThenOldest);
    let sixteen = time(16, SchedulerPolicy::GreedyThenOldest);
    assert!(sixteen < one + 4 * 32 + 10, "16 warps take {sixteen} cycles, one takes {one}");
    assert_eq!(time(16, SchedulerPolicy::LooseRoundRobin), sixteen);
}

#[test]
fn traces_name_warps_and_units() {
    let opts = SimOptions::default().with_trace(Default::default());
    let report = simulate_micro(&h100(), &tma_kernel(4, 1024, 1), &opts);
    let trace = report.ok().and_then(|r| r.trace).unwrap_or_default();
    let names: Vec<String> = trace.events.iter().map(|e| e.kind.to_string()).collect();
    assert!(names.iter().any(|n| n.starts_with("TMA load 1024 B")), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("wait bar0[0]")), "{names:?}");
    assert!(trace.to_chrome_json().contains("\"process_name\""));
}

#[test]
fn busy_tensor_cores_slow_the_other_pipes_as_measured() {
    // Measured (calibration/results/interfere/interfere.log): while wgmma runs, ALU ops
    // (F2FP, FMNMX) run at half rate and MUFU at 1/1.38; the tensor rate is unchanged.
    let machine = h100();
    for (pipe, n) in [(ExecPipe::Alu, 10_000u32), (ExecPipe::Mufu, 2_500)] {
        let stream = MicroInstance { name: "stream", warps: 4, program: vec![exec(pipe, n, Dep::None)] };
        let timing = Timing::new(&machine, 1.83);
        let interval = timing.pipe(pipe).interval as f64;
        let alone = run(&MicroKernel::new(vec![stream.clone()])).cycles as f64;
        assert!((alone - f64::from(n) * interval).abs() < 0.01 * alone, "{pipe:?} alone: {alone} cycles");
        // 40 groups keep the tensor cores busy for 40 x 4 x 64 = 10 240 cycles.
        let busy = 10_240.0;
        let both = run(&MicroKernel::new(vec![MicroInstance::wgmma_stream(40, false), stream])).cycles as f64;
        let factor = timing.tensor_busy_factor[pipe.index()];
        let expected = busy + (f64::from(n) - busy / (interval * factor)) * interval;
        assert!((both - expected).abs() < 0.02 * expected, "{pipe:?} with wgmma: {both} cycles, expected {expected}");
    }
    // The tensor cores keep their rate next to a saturating ALU stream.
    let alu = MicroInstance { name: "alu", warps: 4, program: vec![exec(ExecPipe::Alu, 2_000, Dep::None)] };
    let report = run(&MicroKernel::new(vec![MicroInstance::wgmma_stream(40, false), alu]));
    let per_clk = 40.0 * 4.0 * (64 * 128 * 16) as f64 / report.cycles as f64;
    assert!(per_clk > 0.97 * 2048.0, "{per_clk} FMA per clock");
}

#[test]
fn bookkeeping_slows_while_its_own_mmas_run_as_measured() {
    // Calibration item 38: the per-thread bookkeeping takes x1.60 its latency while its
    // own warpgroup's group is in flight (`chain_latency_factor_own`), and the machine's
    // `chain_latency_factor_other` while only another warpgroup's MMAs run. A chain longer
    // than the MMAs runs stretched while they run and at its latency after:
    // T(both) - T(chain) = T(MMAs) (1 - 1 / factor).
    let machine = Machine::h200();
    let interference = &machine.tensor.interference;
    let (own, other) = (interference.chain_latency_factor_own.value, interference.chain_latency_factor_other.value);
    let group = wgmma_group(8, 256, false);
    let chain = exec(ExecPipe::Alu, 2_000, Dep::Bookkeeping);
    let cycles = |instances: Vec<MicroInstance>| match simulate_micro(
        &machine,
        &MicroKernel::new(instances),
        &SimOptions::default(),
    ) {
        Ok(r) => r.cycles as f64,
        Err(e) => panic!("{e}"),
    };
    let wg = |program: Vec<Instr>| MicroInstance { name: "wg", warps: 4, program };
    let wait = Instr::Wait(Wait::Mma { pending: 0 });
    let alone = cycles(vec![wg(vec![chain])]);
    let factor = |mmas: f64, both: f64| 1.0 / (1.0 - (both - alone) / mmas);
    let mmas = cycles(vec![wg(vec![group, wait])]);
    let measured = factor(mmas, cycles(vec![wg(vec![group, chain, wait])]));
    assert!((measured - own).abs() < 0.03 * own, "own group in flight: x{measured:.2}, expected x{own}");
    // Any other dependent chain (the copies' issue) keeps its latency.
    let plain = exec(ExecPipe::Alu, 2_000, Dep::Chain);
    assert_eq!(cycles(vec![wg(vec![plain])]), alone);
    let measured = factor(mmas, cycles(vec![wg(vec![group, plain, wait])]));
    assert!((measured - 1.0).abs() < 0.03, "a plain chain beside its group: x{measured:.2}");
    let stream = MicroInstance::wgmma_stream(10, false);
    let mmas = cycles(vec![stream.clone()]);
    let measured = factor(mmas, cycles(vec![stream, wg(vec![chain])]));
    assert!((measured - other).abs() < 0.03 * other, "another warpgroup's MMAs: x{measured:.2}, expected x{other}");
}

#[test]
fn fma_traffic_delays_register_sourced_wgmma_when_configured() {
    // Hopper ships with the delay off (see `tensor.interference.rs_delay_per_fma_instr`);
    // with the burst-stream value on, FFMA streams slow an RS wgmma but not an SS one.
    let mut machine = h100();
    machine.tensor.interference.rs_delay_per_fma_instr.value = 0.25;
    // 4 warps x 2000 FFMAs finish long before the 40 groups of wgmma (10 240 cycles), so
    // the run ends with the last MMA; each FFMA under an RS wgmma costs it 0.25 cycles.
    let ffmas = 4 * 2_000;
    let time = |a_in_registers: bool, ffma: bool| {
        let mut instances = vec![MicroInstance::wgmma_stream(40, a_in_registers)];
        if ffma {
            let program = vec![exec(ExecPipe::Fma, ffmas / 4, Dep::None)];
            instances.push(MicroInstance { name: "ffma", warps: 4, program });
        }
        match simulate_micro(&machine, &MicroKernel::new(instances), &SimOptions::default()) {
            Ok(r) => r.cycles as f64,
            Err(e) => panic!("{e}"),
        }
    };
    let rs_delay = time(true, true) - time(true, false);
    let expected = 0.25 * f64::from(ffmas);
    assert!((rs_delay - expected).abs() < 0.05 * expected, "RS wgmma delayed {rs_delay} cycles, expected {expected}");
    // An SS wgmma pays only the issue slots its warps share in turn with the FFMA warps.
    let ss_delay = time(false, true) - time(false, false);
    assert!(ss_delay.abs() < 0.01 * expected, "SS wgmma delayed {ss_delay} cycles");
    // The shipped Hopper value is 0: no delay.
    let plain = |ffma: bool| {
        let mut instances = vec![MicroInstance::wgmma_stream(40, true)];
        if ffma {
            let program = vec![exec(ExecPipe::Fma, ffmas / 4, Dep::None)];
            instances.push(MicroInstance { name: "ffma", warps: 4, program });
        }
        run(&MicroKernel::new(instances)).cycles as f64
    };
    let plain_delay = plain(true) - plain(false);
    assert!(plain_delay.abs() < 0.01 * expected, "RS wgmma delayed {plain_delay} cycles with the delay off");
}
