//! Tests of the lowering: the warp-instructions of each op on each pipe, the TMA issue
//! chains, global stores, the native MMAs of a `wgmma` group and where their descriptor
//! arithmetic goes, and the ops a machine lacks.

use super::*;
use crate::sim::Machine;
use crate::sim::machine::MmaIssue;

fn lowered(op: Op, threads: u32) -> Vec<Instr> {
    let timing = Timing::new(&Machine::h100_sxm(), 1.83);
    let mut out = Vec::new();
    assert_eq!(lower(&op, Issuer::uniform(threads), &timing, &mut out), Ok(()));
    out
}

#[test]
fn math_counts_elements_per_thread() {
    let fma = lowered(Op::Math { kind: MathKind::Fma, rows: 64, cols: 128 }, 128);
    assert_eq!(fma, [Instr::Exec { pipe: ExecPipe::Fma, count: 64, dep: Dep::Stream, elements: 1 }]);
    let cast = lowered(Op::Math { kind: MathKind::Cast, rows: 64, cols: 128 }, 128);
    assert_eq!(cast.iter().map(Instr::issues).sum::<u32>(), 128);
    let rows = lowered(Op::Math { kind: MathKind::Exp2, rows: 64, cols: 1 }, 128);
    assert_eq!(rows, [Instr::Exec { pipe: ExecPipe::Mufu, count: 2, dep: Dep::Stream, elements: 1 }]);
    let reduce = lowered(Op::Math { kind: MathKind::RowSum, rows: 64, cols: 128 }, 128);
    let issues: u32 = reduce.iter().map(Instr::issues).sum();
    assert_eq!(issues, 62 + 2 * (2 + 2));
    let pipes = |instrs: &[Instr]| {
        instrs
            .iter()
            .filter_map(|i| match *i {
                Instr::Exec { pipe, count, .. } => Some((pipe, count)),
                _ => None,
            })
            .collect::<Vec<_>>()
    };
    let max = lowered(Op::Math { kind: MathKind::RowMax, rows: 64, cols: 128 }, 128);
    assert_eq!(pipes(&max)[0], (ExecPipe::Alu, 62));
    assert_eq!(pipes(&reduce)[0], (ExecPipe::Fma, 62));
    // The SASS of the generated FA3 consumer: 64 F2FP and 64 IMAD.U32 for 64 elements.
    assert_eq!(pipes(&cast), [(ExecPipe::Alu, 64), (ExecPipe::Fma, 64)]);
    let mask = lowered(Op::Math { kind: MathKind::Select, rows: 64, cols: 128 }, 128);
    assert_eq!(pipes(&mask), [(ExecPipe::Alu, 128)]);
}

#[test]
fn software_exp2_runs_on_the_fma_and_alu_pipes() {
    // 128 x 32 elements over a warpgroup: 32 per thread, 16 pairs.
    let soft = lowered(Op::Math { kind: MathKind::Exp2Poly, rows: 128, cols: 32 }, 128);
    let on = |pipe| {
        soft.iter()
            .filter_map(|i| match i {
                Instr::Exec { pipe: p, count, .. } if *p == pipe => Some(*count),
                _ => None,
            })
            .sum::<u32>()
    };
    assert_eq!((on(ExecPipe::Fma), on(ExecPipe::Alu), on(ExecPipe::Mufu)), (6 * 2 * 16, 6 * 16, 0));
    let vote = lowered(Op::Math { kind: MathKind::Vote, rows: 128, cols: 1 }, 128);
    assert_eq!(vote.iter().map(Instr::issues).sum::<u32>(), 4 + 1);
}

#[test]
fn packed_fp32_halves_the_issues_not_the_fma_pipe_work() {
    let blackwell = Timing::new(&Machine::b200(), 1.856);
    let lower_on = |op: Op| {
        let mut out = Vec::new();
        assert_eq!(lower(&op, Issuer::uniform(128), &blackwell, &mut out), Ok(()));
        out
    };
    let fma = lower_on(Op::Math { kind: MathKind::Fma, rows: 128, cols: 128 });
    assert_eq!(fma, [Instr::Exec { pipe: ExecPipe::Fma, count: 64, dep: Dep::Stream, elements: 2 }]);
    // 16 pairs: 6 packed instructions each, each holding the FMA pipe for 2 elements.
    let soft = lower_on(Op::Math { kind: MathKind::Exp2Poly, rows: 128, cols: 32 });
    let fma_work: u32 = soft
        .iter()
        .filter_map(|i| match *i {
            Instr::Exec { pipe: ExecPipe::Fma, count, elements, .. } => Some(count * elements),
            _ => None,
        })
        .sum();
    assert_eq!(fma_work, 6 * 2 * 16);
    assert_eq!(soft.iter().map(Instr::issues).sum::<u32>(), 6 * 16 + 6 * 16);
}

#[test]
fn shared_loads_use_16_bytes_per_thread() {
    // A 64 x 64 bf16 tile over a warpgroup: 8 KB, 2 KB per warp, 4 x 512 B.
    let ld = lowered(Op::SharedLoad { bytes: 8192 }, 128);
    assert_eq!(ld, [Instr::Shared { count: 4, bytes: 512, load: true }]);
}

#[test]
fn tma_loads_issue_each_column_panel_as_a_box_after_its_chain() {
    let slot = BarrierSlot { barrier: 0, index: 0 };
    let src = GlobalTile { tensor: 1, origin: 1000 };
    // The B tile of a 128 x 256 GEMM k-step (32 x 256 bf16): four 128-byte panels, each
    // copied as its chain completes, from the tile's origin moved 64 columns a panel.
    let b = lowered(Op::TmaLoad { slot, bytes: 32 * 256 * 2, rows: 32, cols: 256, src }, 32);
    // A role of one instance issues on the uniform datapath.
    let chain = Instr::Exec { pipe: ExecPipe::Uniform, count: TMA_ISSUE_INSTRS_PER_BOX, dep: Dep::Chain, elements: 1 };
    let boxes: Vec<Instr> = (0..4)
        .flat_map(|p| {
            let src = Some(GlobalTile { tensor: 1, origin: 1000 + 64 * p });
            [chain, Instr::TmaLoad { barrier: slot, bytes: 32 * 64 * 2, src }]
        })
        .collect();
    assert_eq!(b, boxes);
    // A 128 x 64 bf16 tile is one panel; a 64 x 32 f32 tile too.
    for (rows, cols, elem) in [(128, 64, 2), (64, 32, 4)] {
        let op = Op::TmaLoad { slot, bytes: rows * cols * elem, rows, cols, src };
        let out = lowered(op, 128);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].issues(), TMA_ISSUE_INSTRS_PER_BOX);
        assert_eq!(out[1], Instr::TmaLoad { barrier: slot, bytes: rows * cols * elem, src: Some(src) });
    }
    let half = Op::TmaLoadMulticast { slot, bytes: 32 * 256 * 2, rows: 32, cols: 256, src, mask: 0b11 };
    let half = lowered(half, 32);
    assert_eq!((half.len(), half[0]), (8, chain));
    assert_eq!(
        half[7],
        Instr::TmaLoadMulticast {
            barrier: slot,
            bytes: 4096,
            src: Some(GlobalTile { tensor: 1, origin: 1192 }),
            mask: 0b11
        }
    );
    // A store's chains still run before its one bulk group.
    let store = lowered(Op::TmaStore { bytes: 32 * 256 * 2, rows: 32, cols: 256, dst: src }, 32);
    assert_eq!(
        store[0],
        Instr::Exec { pipe: ExecPipe::Uniform, count: 4 * TMA_ISSUE_INSTRS_PER_BOX, dep: Dep::Chain, elements: 1 }
    );
    assert_eq!(store[1], Instr::TmaStore { bytes: 32 * 256 * 2, dst: Some(src) });
    // The loader instance of a role with two warpgroups keeps the copy's operands in
    // per-thread registers: a longer chain per box, the same copies.
    let worker = RoleSpec { name: "worker", instances: 2, warps_per_instance: 4, regs: 240 };
    let producer = RoleSpec { name: "producer", instances: 1, warps_per_instance: 4, regs: 24 };
    assert_eq!(Issuer::of(&producer), Issuer::uniform(128));
    let timing = Timing::new(&Machine::h100_sxm(), 1.83);
    let mut out = Vec::new();
    let op = Op::TmaLoad { slot, bytes: 32 * 256 * 2, rows: 32, cols: 256, src };
    assert_eq!(lower(&op, Issuer::of(&worker), &timing, &mut out), Ok(()));
    let per_thread =
        Instr::Exec { pipe: ExecPipe::Alu, count: TMA_ISSUE_INSTRS_PER_BOX_PER_THREAD, dep: Dep::Chain, elements: 1 };
    assert_eq!(out.len(), 8);
    assert!(out.iter().step_by(2).all(|i| *i == per_thread));
    assert!(out.iter().skip(1).step_by(2).zip(boxes.iter().skip(1).step_by(2)).all(|(a, b)| a == b));
    // Where copies are free, only the copy, whole.
    let mut free = Timing::new(&Machine::h100_sxm(), 1.83);
    free.copies_free = true;
    let mut out = Vec::new();
    assert_eq!(lower(&op, Issuer::of(&producer), &free, &mut out), Ok(()));
    assert_eq!(out, [Instr::TmaLoad { barrier: slot, bytes: 32 * 256 * 2, src: Some(src) }]);
}

#[test]
fn global_stores_go_out_one_column_pair_per_instruction() {
    // A 64 x 256 f32 accumulator over a warpgroup: 128 values, 64 pairs per thread, each
    // pair an 8-byte store; a warp-instruction spans 8 rows, so 8 cache lines.
    let st = lowered(Op::GlobalStore { bytes: 64 * 256 * 4, elements: 64 * 256 }, 128);
    assert_eq!(
        st,
        [
            Instr::Exec { pipe: ExecPipe::Alu, count: 64 * STORE_GLOBAL_INSTRS_PER_PAIR, dep: Dep::None, elements: 1 },
            Instr::GlobalStore { count: 64, bytes: 8 * 32, lines: 8 },
        ]
    );
    // bf16 output: 4 bytes per thread and pair.
    let bf16 = lowered(Op::GlobalStore { bytes: 64 * 64 * 2, elements: 64 * 64 }, 128);
    assert_eq!(bf16[1], Instr::GlobalStore { count: 16, bytes: 4 * 32, lines: 8 });
}

#[test]
fn wgmma_splits_into_native_instructions() {
    let op = Op::Mma { m: 64, n: 256, k: 64, dtype: DType::Bf16, a_in_registers: false };
    let [Instr::Mma { issue, instrs, fma, n, commits: true, .. }, alu, moves, imads] = lowered(op, 128)[..] else {
        panic!("one MMA group and its descriptor arithmetic")
    };
    assert_eq!((issue, instrs, fma, n), (6, 4, 64 * 256 * 16, 256));
    assert_eq!((alu.issues(), moves.issues() + imads.issues()), (4 * 5, 4 * 9));
    assert!(matches!(imads, Instr::Exec { pipe: ExecPipe::Fma, count: 16, elements: 2, .. }));
    let tf32 = Op::Mma { m: 128, n: 64, k: 32, dtype: DType::F32, a_in_registers: false };
    let [Instr::Mma { instrs, fma, .. }, ..] = lowered(tf32, 128)[..] else { panic!("one MMA group") };
    assert_eq!((instrs, fma), (8, 64 * 64 * 8));
    // P V of FA3 (d 128): P (64 x 128, f32) is packed, 32 F2FP per thread, before the group.
    let rs = Op::Mma { m: 64, n: 128, k: 128, dtype: DType::Bf16, a_in_registers: true };
    let [pack, Instr::Mma { instrs: 8, .. }, alu, moves, imads] = lowered(rs, 128)[..] else {
        panic!("pack, MMA group, descriptor arithmetic")
    };
    assert_eq!(pack, Instr::Exec { pipe: ExecPipe::Alu, count: 32, dep: Dep::Stream, elements: 1 });
    assert_eq!((alu.issues(), moves.issues() + imads.issues()), (8 * 4, 8 * 5));
}

/// One native MMA of a lowered group, `(issue, instrs, commits)`, and the ALU and
/// FMA-pipe warp-instructions issued before it.
type GroupPart = ((u32, u32, bool), (u32, u32));

/// The native MMAs of a group lowered with `descriptors_before_each`, and the descriptor
/// instructions before each.
fn group_parts(op: Op) -> Vec<GroupPart> {
    let mut machine = Machine::h100_sxm();
    let MmaIssue::WarpgroupWgmma { descriptors_before_each, .. } = &mut machine.tensor.issue else {
        panic!("a wgmma machine")
    };
    descriptors_before_each.value = true;
    let mut lowered = Vec::new();
    assert_eq!(lower(&op, Issuer::uniform(128), &Timing::new(&machine, 1.83), &mut lowered), Ok(()));
    let (mut parts, mut alu, mut fma) = (Vec::new(), 0, 0);
    for i in lowered.iter().skip_while(|i| matches!(i, Instr::Exec { dep: Dep::Stream, .. })) {
        match *i {
            Instr::Exec { pipe: ExecPipe::Alu, count, .. } => alu += count,
            Instr::Exec { pipe: ExecPipe::Fma, count, .. } => fma += count,
            Instr::Mma { issue, instrs, commits, .. } => {
                parts.push(((issue, instrs, commits), (alu, fma)));
                (alu, fma) = (0, 0);
            }
            _ => panic!("only arithmetic and MMAs in a group: {i:?}"),
        }
    }
    assert_eq!((alu, fma), (0, 0), "no arithmetic after the group's last MMA");
    parts
}

#[test]
fn wgmma_can_issue_each_native_instruction_after_its_descriptors() {
    // Each of the 4 native MMAs after its descriptors (5 ALU, 9 FMA-pipe of which 4 IMAD),
    // the fence with the first and the commit with the last: 6 issue cycles in all.
    let ss = Op::Mma { m: 64, n: 256, k: 64, dtype: DType::Bf16, a_in_registers: false };
    assert_eq!(
        group_parts(ss),
        [((2, 1, false), (5, 9)), ((1, 1, false), (5, 9)), ((1, 1, false), (5, 9)), ((2, 1, true), (5, 9))]
    );
    // One MMA alone carries the fence and the commit.
    let one = Op::Mma { m: 64, n: 128, k: 16, dtype: DType::Bf16, a_in_registers: false };
    assert_eq!(group_parts(one), [((3, 1, true), (5, 9))]);
    // P V of FA3 (d 128): after the packing, 8 MMAs each after 4 ALU and 5 FMA-pipe.
    let rs = Op::Mma { m: 64, n: 128, k: 128, dtype: DType::Bf16, a_in_registers: true };
    let parts = group_parts(rs);
    assert_eq!(parts.len(), 8);
    assert!(parts.iter().all(|&(_, desc)| desc == (4, 5)));
    assert_eq!(parts.iter().map(|&((issue, ..), _)| issue).sum::<u32>(), 8 + 2);
}

#[test]
fn tcgen05_ops_need_a_blackwell_machine() {
    let hopper = Timing::new(&Machine::h100_sxm(), 1.83);
    let umma = Op::Umma { m: 128, n: 256, k: 64, dtype: DType::Bf16, a_in_tmem: false };
    assert!(lower(&umma, Issuer::uniform(32), &hopper, &mut Vec::new()).is_err());
    let blackwell = Timing::new(&Machine::b200(), 1.856);
    let mut out = Vec::new();
    assert_eq!(lower(&umma, Issuer::uniform(32), &blackwell, &mut out), Ok(()));
    assert_eq!(out, [Instr::Umma { instrs: 4, fma: 128 * 256 * 16, n: 256, dtype: DType::Bf16, a_in_tmem: false }]);
    let wgmma = Op::Mma { m: 64, n: 256, k: 16, dtype: DType::Bf16, a_in_registers: false };
    assert!(lower(&wgmma, Issuer::uniform(128), &blackwell, &mut Vec::new()).is_err());
    out.clear();
    assert_eq!(lower(&Op::TmemLoad { bytes: 128 * 128 * 4 }, Issuer::uniform(128), &blackwell, &mut out), Ok(()));
    assert_eq!(out, [Instr::Tmem { count: 4, bytes: 4096, load: true }]);
}
