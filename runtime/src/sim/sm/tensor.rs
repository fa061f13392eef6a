//! The SM's tensor cores: one server for the four sub-partitions that runs MMA instructions
//! in the order they reach it. The instructions of a `wgmma` group reach it one by one, a
//! little apart (`tensor.issue.wgmma.instr_interval_per_column`), so two warpgroups issuing
//! their groups together interleave instruction by instruction (item 18); a group that has
//! reached the cores whole before another's first instruction runs first.

use std::collections::VecDeque;

use crate::dsl::DType;

/// Which group an MMA instruction belongs to: the CTA's place on the SM (and its use of that
/// place), the instance that issued it, and the group's number among the instance's `wgmma`
/// groups (`None` for groups completed through a commit, which no wait names).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct GroupOwner {
    pub resident: u32,
    pub generation: u32,
    pub instance: u32,
    pub index: Option<u32>,
}

/// A group of MMA instructions arriving at the tensor cores.
#[derive(Clone, Copy, Debug)]
pub(super) struct GroupArrival {
    /// When its first instruction reaches the cores.
    pub reach: f64,
    /// Cycles between its instructions reaching the cores.
    pub interval: f64,
    /// Instructions in the group.
    pub instrs: u32,
    /// Cycles each holds the cores.
    pub occupancy: f64,
    /// Cycles from an instruction's start to its result.
    pub latency: f64,
    /// Whether its A operand is read from registers.
    pub a_in_registers: bool,
    pub owner: GroupOwner,
    /// Its native MMAs' N and operand type, and whether its CTA is traced.
    pub n: u32,
    pub dtype: DType,
    pub traced: bool,
}

/// Back-to-back instructions of one group that have run, for the trace's tensor track.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct TensorRun {
    pub instrs: u32,
    pub n: u32,
    pub dtype: DType,
    pub start: f64,
    pub end: f64,
}

/// Where a group ran: its first start, the end of its last occupancy and its result.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct GroupRun {
    pub first_start: f64,
    pub end: f64,
    pub done: f64,
}

/// One MMA instruction on the tensor cores' plan.
#[derive(Clone, Copy, Debug)]
struct Planned {
    reach: f64,
    start: f64,
    end: f64,
    done: f64,
    occupancy: f64,
    latency: f64,
    a_in_registers: bool,
    owner: GroupOwner,
    n: u32,
    dtype: DType,
    traced: bool,
    /// The group's number among all groups the cores have planned.
    group: u64,
}

/// The SM's tensor cores.
#[derive(Debug, Default)]
pub(super) struct TensorCores {
    /// Free from this cycle.
    free: f64,
    /// Fractional cycles owed to interference, not yet applied.
    debt: f64,
    /// The end of the last instruction dropped from the plan.
    retired_end: f64,
    /// The instructions not yet finished, in the order they run.
    plan: VecDeque<Planned>,
    /// Traced instructions that have run, merged into runs of one group, not yet taken;
    /// with the group of the last.
    runs: Vec<TensorRun>,
    last_run_group: Option<(u64, GroupOwner)>,
    /// Groups planned so far.
    groups: u64,
}

impl TensorCores {
    /// Whether work is queued on the tensor cores at cycle `t`.
    pub fn busy_at(&self, t: u64) -> bool {
        (t as f64) < self.free
    }

    /// Whether an MMA with A in registers occupies the tensor cores at `at`.
    pub fn rs_running(&self, at: f64) -> bool {
        self.plan.iter().any(|p| p.a_in_registers && p.start <= at && at < p.end)
    }

    /// Plans group `g`, which the cores learn of at `now`: its instructions go after every
    /// instruction that reached the cores before them, ahead of those that reach later (which
    /// have not started: they reach after `now`). Returns where `g` runs and, for each earlier
    /// group pushed back, where it now runs.
    pub fn run(&mut self, now: f64, g: GroupArrival) -> (GroupRun, Vec<(GroupOwner, GroupRun)>) {
        while let Some(p) = self.plan.front().copied().filter(|p| p.end <= now && p.done <= now) {
            self.retired_end = self.retired_end.max(p.end);
            self.plan.pop_front();
            self.note_run(&p);
        }
        let keep = self.plan.iter().position(|p| p.reach > g.reach).unwrap_or(self.plan.len());
        let mut queued: Vec<Planned> = self.plan.drain(keep..).collect();
        if !queued.is_empty() {
            self.free = self.plan.back().map_or(self.retired_end, |p| p.end);
        }
        let moved: Vec<(u64, GroupOwner)> = dedup(queued.iter().map(|p| (p.group, p.owner)));
        let group = self.groups;
        self.groups += 1;
        queued.extend((0..g.instrs).map(|i| Planned {
            reach: g.reach + f64::from(i) * g.interval,
            start: 0.0,
            end: 0.0,
            done: 0.0,
            occupancy: g.occupancy,
            latency: g.latency,
            a_in_registers: g.a_in_registers,
            owner: g.owner,
            n: g.n,
            dtype: g.dtype,
            traced: g.traced,
            group,
        }));
        // In order of reaching the cores; the stable sort keeps the earlier group first on a tie.
        queued.sort_by(|a, b| a.reach.total_cmp(&b.reach));
        for mut p in queued {
            p.start = self.free.max(p.reach);
            p.end = p.start + p.occupancy;
            p.done = p.start + p.latency;
            self.free = p.end;
            self.plan.push_back(p);
        }
        let pushed = moved.into_iter().map(|(id, o)| (o, self.group_run(id))).collect();
        (self.group_run(group), pushed)
    }

    /// Adds a traced instruction that has run to the runs.
    fn note_run(&mut self, p: &Planned) {
        if !p.traced {
            return;
        }
        match self.runs.last_mut() {
            Some(r)
                if self.last_run_group.is_some_and(|last| same_group(last, (p.group, p.owner))) && r.end >= p.start =>
            {
                r.instrs += 1;
                r.end = p.end;
            }
            _ => self.runs.push(TensorRun { instrs: 1, n: p.n, dtype: p.dtype, start: p.start, end: p.end }),
        }
        self.last_run_group = Some((p.group, p.owner));
    }

    /// Takes the runs of traced instructions that have finished (all of them with `all`: the
    /// simulation is over).
    pub fn take_runs(&mut self, all: bool) -> Vec<TensorRun> {
        if all {
            while let Some(p) = self.plan.pop_front() {
                self.note_run(&p);
            }
            self.last_run_group = None;
            return std::mem::take(&mut self.runs);
        }
        // The last run may still grow.
        let keep = self.runs.pop();
        let out = std::mem::take(&mut self.runs);
        self.runs.extend(keep);
        out
    }

    /// Where the planned instructions of group number `group` run.
    fn group_run(&self, group: u64) -> GroupRun {
        let mut run = GroupRun { first_start: f64::INFINITY, end: 0.0, done: 0.0 };
        for p in self.plan.iter().filter(|p| p.group == group) {
            run.first_start = run.first_start.min(p.start);
            run.end = run.end.max(p.end);
            run.done = run.done.max(p.done);
        }
        run
    }

    /// Adds `cycles` of delay to the work not finished by `at`; returns the whole cycles the
    /// work shifts now (the fraction is kept for later).
    pub fn delay(&mut self, at: u64, cycles: f64) -> Option<f64> {
        self.debt += cycles;
        let shift = self.debt.floor();
        if shift < 1.0 {
            return None;
        }
        self.debt -= shift;
        self.free += shift;
        let at = at as f64;
        for p in &mut self.plan {
            if p.start > at {
                p.start += shift;
            }
            if p.end > at {
                p.end += shift;
            }
            if p.done > at {
                p.done += shift;
            }
        }
        Some(shift)
    }
}

/// Whether two planned instructions belong to one group: planned together, or MMAs of one
/// `wgmma` group fired one by one (the same numbered group of the same instance).
fn same_group(a: (u64, GroupOwner), b: (u64, GroupOwner)) -> bool {
    a.0 == b.0 || (a.1.index.is_some() && a.1 == b.1)
}

/// The distinct groups, in order of first appearance.
fn dedup(owners: impl Iterator<Item = (u64, GroupOwner)>) -> Vec<(u64, GroupOwner)> {
    let mut out: Vec<(u64, GroupOwner)> = Vec::new();
    for o in owners {
        if !out.contains(&o) {
            out.push(o);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(instance: u32) -> GroupOwner {
        GroupOwner { resident: 0, generation: 0, instance, index: Some(0) }
    }

    fn group(reach: f64, interval: f64, instance: u32) -> GroupArrival {
        GroupArrival {
            reach,
            interval,
            instrs: 4,
            occupancy: 128.0,
            latency: 182.0,
            a_in_registers: false,
            owner: owner(instance),
            n: 256,
            dtype: DType::Bf16,
            traced: true,
        }
    }

    #[test]
    fn a_group_that_reached_the_cores_whole_runs_first() {
        let mut tc = TensorCores::default();
        let (a, _) = tc.run(0.0, group(100.0, 28.0, 0));
        assert_eq!(a, GroupRun { first_start: 100.0, end: 612.0, done: 666.0 });
        // The second group's first instruction reaches the cores after the first's last.
        let (b, pushed) = tc.run(150.0, group(200.0, 28.0, 1));
        assert!(pushed.is_empty());
        assert_eq!(b.first_start, 612.0);
        assert_eq!(b.done, 612.0 + 3.0 * 128.0 + 182.0);
    }

    /// Item 18's pair at N = 256, G = 4 (`calibration/results/wgmma_pair/wgmma_pair.csv`):
    /// warpgroup 0's first `wgmma` 62 cycles after the barrier, warpgroup 1's 106; each
    /// group reaches the cores 49 cycles after its first `wgmma`, one instruction every
    /// 0.11 N = 28.16 cycles. The H200 finishes warpgroup 0's group 885 cycles after the
    /// barrier, 256 (two MMAs) later than when the second group comes 95 cycles after it.
    #[test]
    fn groups_reaching_together_interleave_instruction_by_instruction() {
        let alone = TensorCores::default().run(0.0, group(111.0, 28.16, 0)).0;
        let mut tc = TensorCores::default();
        tc.run(62.0, group(111.0, 28.16, 0));
        let (b, pushed) = tc.run(106.0, group(155.0, 28.16, 1));
        assert_eq!(pushed.len(), 1);
        let (o, a) = pushed[0];
        assert_eq!(o, owner(0));
        // Order a a b a b a b b: the first group's last MMA runs sixth, behind two of the
        // second's, which starts third and ends eighth.
        assert_eq!(a.done - alone.done, 256.0);
        assert_eq!(b.first_start, 111.0 + 2.0 * 128.0);
        assert_eq!(b.done, 111.0 + 7.0 * 128.0 + 182.0);
    }

    #[test]
    fn the_trace_shows_interleaved_groups_as_runs_that_do_not_overlap() {
        let mut tc = TensorCores::default();
        tc.run(62.0, group(111.0, 28.16, 0));
        tc.run(106.0, group(155.0, 28.16, 1));
        let runs = tc.take_runs(true);
        let instrs: Vec<u32> = runs.iter().map(|r| r.instrs).collect();
        assert_eq!(instrs, [2, 1, 1, 1, 1, 2]);
        assert!(runs.windows(2).all(|w| w[0].end <= w[1].start));
        assert_eq!(runs[0].start, 111.0);
        assert_eq!(runs[5].end, 111.0 + 8.0 * 128.0);
    }

    #[test]
    fn a_group_fired_mma_by_mma_shows_as_one_run() {
        let mut tc = TensorCores::default();
        let part = |reach: f64| GroupArrival { instrs: 1, ..group(reach, 0.0, 0) };
        tc.run(0.0, part(10.0));
        tc.run(20.0, part(30.0));
        tc.run(60.0, part(70.0));
        let runs = tc.take_runs(true);
        assert_eq!(runs.len(), 1);
        assert_eq!((runs[0].instrs, runs[0].start, runs[0].end), (3, 10.0, 10.0 + 3.0 * 128.0));
    }

    #[test]
    fn groups_reaching_at_once_keep_their_order() {
        let mut tc = TensorCores::default();
        tc.run(0.0, group(100.0, 0.0, 0));
        let (b, pushed) = tc.run(100.0, group(100.0, 0.0, 1));
        assert!(pushed.is_empty());
        assert_eq!(b.first_start, 612.0);
    }

    #[test]
    fn delay_shifts_the_unfinished_work() {
        let mut tc = TensorCores::default();
        tc.run(0.0, group(0.0, 0.0, 0));
        assert_eq!(tc.delay(10, 0.5), None);
        assert_eq!(tc.delay(10, 2.0), Some(2.0));
        let run = tc.group_run(0);
        assert_eq!(run.first_start, 0.0);
        assert_eq!(run.end, 514.0);
        assert!(tc.busy_at(513));
        assert!(!tc.busy_at(514));
    }
}
