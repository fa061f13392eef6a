//! A `wgmma` group's descriptor arithmetic: how many instructions build each native MMA's
//! shared-memory descriptors, and where among the group's MMAs they issue.
//!
//! Three placements, in order of precedence:
//! - the kernel's own, read from its SASS ([`DescriptorPlacement`], a run option; ptxas
//!   hoists the arithmetic in the generated GEMMs, `ws_gemm`'s `25 42 5 0` before its four
//!   `HGMMA`, and spreads it in the attention kernels, FA3's consumer's 9-16 before each:
//!   `calibration/sass/mma_placement.py`);
//! - each MMA after its own arithmetic (`tensor.issue.wgmma.descriptors_before_each`);
//! - the group at once, the arithmetic after it while the first MMAs run.

use crate::dsl::DType;

use super::lower::{Dep, Instr, Unsupported, exec, imad};
use super::timing::{ExecPipe, Timing};

/// Per native `wgmma` of a group, the instructions the generated code spends building its
/// shared-memory descriptors, `(ALU, FMA pipe, of those IMAD)`: `LOP3`/`SHF`/`IADD3` on the
/// ALU, and `R2UR`/`MOV`/`IMAD.MOV`/`IMAD.X` counted on the FMA pipe. With both operands in
/// shared memory (`S = Q K^T`): 43 ALU and 69 others for 8 `HGMMA`; with A in registers
/// (`O += P V`): 28 and 38 for 8. Of the GEMM block's 126 `R2UR`/`MOV`/`IMAD*`, 50 are
/// `IMAD` forms (27 `IMAD.MOV`, 15 `IMAD.X`, 4 `IMAD.U32`, 2 `IMAD.WIDE`, 2 `IMAD.SHL`): 40%,
/// so 4 of the 9 and 2 of the 5 ([`super::lower::SASS_EVIDENCE`]); an `IMAD` holds the FMA pipe
/// `pipes.imad_intervals` intervals.
const WGMMA_DESCRIPTOR_INSTRS_SS: (u32, u32, u32) = (5, 9, 4);
/// As [`WGMMA_DESCRIPTOR_INSTRS_SS`], for `wgmma` with A in registers.
const WGMMA_DESCRIPTOR_INSTRS_RS: (u32, u32, u32) = (4, 5, 2);

/// Instructions the lowering counts for one native `wgmma`'s descriptors
/// (`WGMMA_DESCRIPTOR_INSTRS_SS`, `_RS`).
pub fn wgmma_descriptor_instrs(a_in_registers: bool) -> u32 {
    let (alu, moves, _) = if a_in_registers { WGMMA_DESCRIPTOR_INSTRS_RS } else { WGMMA_DESCRIPTOR_INSTRS_SS };
    alu + moves
}

/// Where one kernel's compiled code builds its `wgmma` groups' descriptors, per operand
/// form: the instructions its SASS holds before each `HGMMA` of the group in its main loop
/// (the first counted from the group's fence, `WARPGROUP.ARRIVE`). The lowering spreads its
/// own count of the group's arithmetic in those proportions. A form without an entry takes
/// the machine's rule.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DescriptorPlacement {
    /// Groups with both operands in shared memory (`wgmma` SS).
    pub ss: Option<Vec<u32>>,
    /// Groups with A in registers (`wgmma` RS).
    pub rs: Option<Vec<u32>>,
}

impl DescriptorPlacement {
    /// The placement of groups of `a_in_registers`'s form.
    pub fn of(&self, a_in_registers: bool) -> Option<&[u32]> {
        if a_in_registers { self.rs.as_deref() } else { self.ss.as_deref() }
    }
}

/// A `wgmma` group of `instrs` native MMAs (`fma` each, `n` columns) and its descriptor
/// arithmetic, placed as [`DescriptorPlacement`] or the machine says (module docs).
pub(super) fn wgmma_group(
    (instrs, fma, n, dtype): (u32, u64, u32, DType),
    a_in_registers: bool,
    timing: &Timing,
    out: &mut Vec<Instr>,
) -> Result<(), Unsupported> {
    let (alu, moves, imads) = if a_in_registers { WGMMA_DESCRIPTOR_INSTRS_RS } else { WGMMA_DESCRIPTOR_INSTRS_SS };
    // The arithmetic building the descriptors, independent of any register result: per pipe
    // (ALU, FMA pipe without the IMADs, IMADs), the group's total.
    let dep = Dep::Descriptor { a_in_registers };
    let totals = [alu * instrs, (moves - imads) * instrs, imads * instrs];
    let emit = |counts: [u32; 3], out: &mut Vec<Instr>| {
        exec(ExecPipe::Alu, counts[0], dep, out);
        exec(ExecPipe::Fma, counts[1], dep, out);
        imad(counts[2], dep, timing, out);
    };
    let mma = |i: u32, out: &mut Vec<Instr>| {
        let (first, last) = (i == 0, i + 1 == instrs);
        let issue = 1 + u32::from(first) + u32::from(last);
        out.push(Instr::Mma { issue, instrs: 1, fma, n, dtype, a_in_registers, commits: last });
    };
    let placement = match timing.descriptor_placement.of(a_in_registers) {
        Some(counts) if counts.len() != instrs as usize => {
            return Err(Unsupported {
                needs: "a descriptor placement with one count per native MMA of the group (this kernel's SASS has \
                        groups of another size: read the placement from the SASS of the same kernel)",
            });
        }
        Some(counts) => Some(counts),
        None if timing.mma_descriptors_before_each => None,
        None => {
            // The group at once; the descriptors of its later MMAs built while the first
            // ones run.
            out.push(Instr::Mma { issue: instrs + 2, instrs, fma, n, dtype, a_in_registers, commits: true });
            emit(totals, out);
            return Ok(());
        }
    };
    match placement {
        // Each MMA after its own arithmetic: the group's last MMA reaches the tensor cores
        // after all of it, its first before most of it.
        None => {
            for i in 0..instrs {
                emit([alu, moves - imads, imads], out);
                mma(i, out);
            }
        }
        // The compiled code's proportions: before MMA `i`, the share of the group's
        // arithmetic its SASS holds up to that MMA (rounded on the running sum, so every
        // instruction issues once); with no arithmetic between the MMAs, all before the first.
        Some(counts) => {
            let all_first = counts.iter().all(|&c| c == 0);
            let weight = |i: usize| u64::from(if all_first { u32::from(i == 0) } else { counts[i] });
            let sum: u64 = (0..counts.len()).map(weight).sum();
            let (mut seen, mut done) = (0u64, [0u32; 3]);
            for i in 0..instrs {
                seen += weight(i as usize);
                let upto = totals.map(|t| ((u64::from(t) * seen + sum / 2) / sum) as u32);
                emit([upto[0] - done[0], upto[1] - done[1], upto[2] - done[2]], out);
                done = upto;
                mma(i, out);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsl::Op;
    use crate::sim::Machine;
    use crate::sim::lower::{Issuer, lower};

    /// A group of `m64n128k64` (4 native MMAs, SS) or, with `rs`, `m64n128k128` with A in
    /// registers (8), lowered with `placement`: per native MMA, the descriptor instructions
    /// issued before it, and those issued after the group's last MMA.
    fn pieces(rs: bool, placement: DescriptorPlacement) -> Result<(Vec<u32>, u32), Unsupported> {
        let timing = Timing { descriptor_placement: placement, ..Timing::new(&Machine::h100_sxm(), 1.83) };
        let k = if rs { 128 } else { 64 };
        let op = Op::Mma { m: 64, n: 128, k, dtype: DType::Bf16, a_in_registers: rs };
        let mut out = Vec::new();
        lower(&op, Issuer::uniform(128), &timing, &mut out)?;
        let (mut before, mut run) = (Vec::new(), 0);
        for i in &out {
            match i {
                Instr::Exec { dep: Dep::Descriptor { .. }, .. } => run += i.issues(),
                Instr::Mma { instrs: 1, .. } => before.push(std::mem::take(&mut run)),
                Instr::Mma { .. } => panic!("a placed group issues its MMAs one by one: {i:?}"),
                _ => {}
            }
        }
        Ok((before, run))
    }

    #[test]
    fn a_kernels_placement_spreads_the_groups_arithmetic_as_its_sass_does() {
        let per = wgmma_descriptor_instrs(false);
        // ws_gemm's SASS: 25 42 5 0 before its four HGMMA; the lowering's 4 x 14 in proportion.
        let hoisted = DescriptorPlacement { ss: Some(vec![25, 42, 5, 0]), rs: None };
        let (before, after) = pieces(false, hoisted).unwrap();
        assert_eq!((before.iter().sum::<u32>(), after), (4 * per, 0));
        for (got, c) in before.iter().zip([25, 42, 5, 0]) {
            // 56 x 25/72 = 19.4, 32.7, 3.9, 0: each pipe's share rounded on its own.
            assert!((f64::from(*got) - f64::from(4 * per * c) / 72.0).abs() <= 1.5, "{before:?}");
        }
        // FA3's consumer: spread, and the form without an entry keeps the machine's rule.
        let spread = DescriptorPlacement { ss: Some(vec![9, 25, 10, 12]), rs: None };
        let (before, _) = pieces(false, spread.clone()).unwrap();
        assert_eq!(before.iter().sum::<u32>(), 56);
        assert!(before.iter().zip([9, 25, 10, 12]).all(|(a, b)| a.abs_diff(b) <= 1), "{before:?}");
        let (before, after) = {
            let timing = Timing { descriptor_placement: spread, ..Timing::new(&Machine::h100_sxm(), 1.83) };
            let op = Op::Mma { m: 64, n: 128, k: 128, dtype: DType::Bf16, a_in_registers: true };
            let mut out = Vec::new();
            lower(&op, Issuer::uniform(128), &timing, &mut out).unwrap();
            let at = out.iter().position(|i| matches!(i, Instr::Mma { .. })).unwrap();
            assert!(matches!(out[at], Instr::Mma { instrs: 8, .. }), "RS: the group at once");
            (at, out.len() - at - 1)
        };
        assert_eq!((before, after), (1, 3), "the pack before the group, the arithmetic after it");
        // No arithmetic between the MMAs in the SASS: all of it before the first.
        let front = DescriptorPlacement { ss: None, rs: Some(vec![0; 8]) };
        let (before, after) = pieces(true, front).unwrap();
        assert_eq!((before[0], before[1..].iter().sum::<u32>(), after), (8 * wgmma_descriptor_instrs(true), 0, 0));
    }

    #[test]
    fn a_placement_of_another_group_size_is_refused() {
        let wrong = DescriptorPlacement { ss: Some(vec![9, 25, 10, 12, 3]), rs: None };
        let e = pieces(false, wrong).unwrap_err();
        assert!(e.needs.contains("one count per native MMA"), "{}", e.needs);
    }
}
