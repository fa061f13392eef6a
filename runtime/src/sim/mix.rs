//! Where the generated code interleaves element-wise fragment arithmetic across pipes.
//!
//! The lowering gives each DSL operation as a burst on its pipe ([`super::lower`]): a scale of
//! the scores as 64 `FFMA`, their `exp2` as 64 `MUFU.EX2`, the row sum's in-thread part as 62
//! `FADD`, each burst [`Dep::Stream`] on the one before. ptxas does not keep those apart: it
//! schedules a run of element-wise operations on a fragment element by element, so that in
//! the SASS of the generated FA3 consumer `FFMA`, `MUFU.EX2` and `FADD` alternate pair by
//! pair and the row sum runs beside the exponentials (`docs/validation.md`, "The FA3
//! consumer's step without memory"; `calibration/sass/fa3_d128_loop.txt`), and the H200's
//! stall sampling of the FA3 kernels finds the `MUFU.EX2`s waiting on the fixed latency of
//! the `FFMA` that feeds them (`wait`) far more than on a full special-function queue
//! (`mio_throttle`): 75% against 3% of their samples in #70, `calibration/results/
//! validate_stalls/70_sass.csv.gz`.
//!
//! [`interleave`] therefore merges a run of consecutive element-wise bursts of one instance
//! (each `Dep::Stream` on the one before; none on the shuffle pipe, whose rounds of a row
//! reduction need the whole in-thread result) into one [`Instr::Mix`]. Its warp-instructions
//! issue in the order [`Mix::next`] gives: the part furthest behind in proportion to its
//! count, among the parts whose inputs have issued (instruction `j` of a part after
//! `ceil((j + 1) * c' / c)` of the `c'` instructions of the part before it, so that a
//! per-row operation comes before the element-wise ones that use its rows). The first
//! instruction of each part waits for the first result of the part before it (one pipe
//! latency, as between bursts); the rest as the compiler pipelines them, without a wait.

use super::lower::{Dep, Instr};
use super::sites::{Queued, Site};
use super::timing::ExecPipe;

/// The most parts one [`Mix`] holds; a longer run starts another mix.
pub const MIX_PARTS: usize = 6;

/// One operation's burst inside a [`Mix`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MixPart {
    /// Its pipe.
    pub pipe: ExecPipe,
    /// Elements each thread computes per instruction (2 for packed `f32x2`).
    pub elements: u8,
    /// Warp-instructions.
    pub count: u16,
    /// The source site of the operation it came from.
    pub site: Site,
}

/// Consecutive element-wise bursts that issue interleaved, in the order [`Mix::next`] gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mix {
    parts: [MixPart; MIX_PARTS],
    len: u8,
}

impl Mix {
    /// The parts, in program order.
    pub fn parts(&self) -> &[MixPart] {
        &self.parts[..self.len as usize]
    }

    /// Part `k`.
    pub fn part(&self, k: usize) -> MixPart {
        self.parts[k]
    }

    /// Warp-instructions of all parts.
    pub fn issues(&self) -> u32 {
        self.parts().iter().map(|p| u32::from(p.count)).sum()
    }

    /// The part whose warp-instruction issues next, when `issued[k]` of part `k` have: the
    /// part furthest behind in proportion to its count (the earlier part on a tie), among
    /// those with instructions left whose inputs from the part before have issued. The
    /// earliest part not yet complete always qualifies.
    pub fn next(&self, issued: &[u16; MIX_PARTS]) -> usize {
        let parts = self.parts();
        let mut best: Option<usize> = None;
        for (k, part) in parts.iter().enumerate() {
            let (n, c) = (u64::from(issued[k]), u64::from(part.count));
            if n >= c {
                continue;
            }
            if k > 0 {
                let (n0, c0) = (u64::from(issued[k - 1]), u64::from(parts[k - 1].count));
                if n0 < c0 && n0 * c < (n + 1) * c0 {
                    continue;
                }
            }
            // Progress n / c below the best's: n * c_best < n_best * c.
            let behind = best.is_none_or(|b| n * u64::from(parts[b].count) < u64::from(issued[b]) * c);
            if behind {
                best = Some(k);
            }
        }
        best.unwrap_or(0)
    }
}

/// An element-wise burst that may join a mix: on a pipe other than the shuffles' and
/// dependent element by element on the instruction before it.
fn element_wise(q: &Queued) -> Option<MixPart> {
    match q.instr {
        Instr::Exec { pipe, count, dep: Dep::Stream, elements } if pipe != ExecPipe::Lsu => {
            let count = u16::try_from(count).ok()?;
            Some(MixPart { pipe, elements: u8::try_from(elements).ok()?, count, site: q.site })
        }
        _ => None,
    }
}

/// Merges each run of two or more consecutive element-wise bursts of `queue` (one instance's
/// instructions between two waits) into [`Instr::Mix`]es of at most [`MIX_PARTS`] parts.
pub fn interleave(queue: &mut Vec<Queued>) {
    if queue.windows(2).all(|w| element_wise(&w[0]).is_none() || element_wise(&w[1]).is_none()) {
        return;
    }
    let mut out = Vec::with_capacity(queue.len());
    let mut run: Vec<Queued> = Vec::new();
    let flush = |run: &mut Vec<Queued>, out: &mut Vec<Queued>| {
        if run.len() < 2 {
            out.append(run);
            return;
        }
        let empty = MixPart { pipe: ExecPipe::Alu, elements: 1, count: 0, site: Site::NONE };
        let mut parts = [empty; MIX_PARTS];
        for (slot, part) in parts.iter_mut().zip(run.iter().filter_map(element_wise)) {
            *slot = part;
        }
        out.push(Queued { instr: Instr::Mix(Mix { parts, len: run.len() as u8 }), site: run[0].site });
        run.clear();
    };
    for q in queue.drain(..) {
        if element_wise(&q).is_some() {
            if run.len() == MIX_PARTS {
                flush(&mut run, &mut out);
            }
            run.push(q);
        } else {
            flush(&mut run, &mut out);
            out.push(q);
        }
    }
    flush(&mut run, &mut out);
    *queue = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::wait_forms::WaitForm;

    fn burst(pipe: ExecPipe, count: u32, site: u32) -> Queued {
        Queued { instr: Instr::Exec { pipe, count, dep: Dep::Stream, elements: 1 }, site: Site(site) }
    }

    /// The order in which `mix` issues, as part indices.
    fn order(mix: &Mix) -> Vec<usize> {
        let mut issued = [0u16; MIX_PARTS];
        (0..mix.issues())
            .map(|_| {
                let k = mix.next(&issued);
                issued[k] += 1;
                k
            })
            .collect()
    }

    fn mix_of(queue: &[Queued]) -> Mix {
        match queue {
            [Queued { instr: Instr::Mix(mix), .. }] => *mix,
            other => panic!("not one mix: {other:?}"),
        }
    }

    #[test]
    fn element_wise_bursts_alternate_one_for_one() {
        let mut queue = vec![burst(ExecPipe::Fma, 4, 1), burst(ExecPipe::Mufu, 4, 2), burst(ExecPipe::Fma, 4, 3)];
        interleave(&mut queue);
        let mix = mix_of(&queue);
        assert_eq!(mix.issues(), 12);
        assert_eq!(order(&mix), [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2]);
        assert_eq!(queue[0].site, Site(1));
    }

    #[test]
    fn a_per_row_op_comes_before_the_elements_that_use_its_row() {
        // Two per-row instructions (one per row the thread holds), then 8 element-wise ones:
        // the first four use row 0, the last four row 1.
        let mut queue = vec![burst(ExecPipe::Alu, 2, 1), burst(ExecPipe::Fma, 8, 2)];
        interleave(&mut queue);
        assert_eq!(order(&mix_of(&queue)), [0, 1, 1, 1, 1, 0, 1, 1, 1, 1]);
    }

    #[test]
    fn shuffles_chains_and_waits_break_a_run() {
        let shuffle = burst(ExecPipe::Lsu, 2, 9);
        let chain = Queued {
            instr: Instr::Exec { pipe: ExecPipe::Alu, count: 3, dep: Dep::Chain, elements: 1 },
            site: Site(7),
        };
        let wait = Queued::unsited(Instr::TryWait { form: WaitForm::Uniform });
        let mut queue = vec![burst(ExecPipe::Alu, 62, 1), shuffle, burst(ExecPipe::Alu, 2, 1), chain, wait];
        let before = queue.clone();
        interleave(&mut queue);
        assert_eq!(queue, before, "no two element-wise bursts in a row");
        let mut long: Vec<Queued> = (0..8).map(|i| burst(ExecPipe::ALL[i % 3], 2, i as u32)).collect();
        interleave(&mut long);
        assert_eq!(long.len(), 2, "six parts, then two");
        assert!(long.iter().all(|q| matches!(q.instr, Instr::Mix(_))));
    }
}
