//! The happens-before race detector over shared-memory and tensor-memory tiles, and the
//! barrier-order checks that make one run's verdict hold for every schedule.
//!
//! Every agent that touches on-chip memory has a component in a vector clock: each role
//! instance, the TMA unit's loads completing on each mbarrier, and each instance's queues of
//! warpgroup MMAs, TMA stores and `tcgen05` MMAs (those read, and for `tcgen05` write, tiles
//! asynchronously: a warpgroup MMA until an `mma_wait` covers it, a TMA store until a
//! `store_wait` of its group or a `store_wait_all`, a `tcgen05` MMA until the `tcgen05.commit` after it arrives; one issuer's
//! `tcgen05` MMAs run in issue order). Synchronisation carries clocks: an arrive publishes the arriver's clock
//! into the barrier (a TMA load completing its bytes publishes its own component too), and a
//! wait that passes joins the clock the barrier had when its latest phase completed; named
//! barriers do the same per use; `mma_wait`, `store_wait` and `store_wait_all` advance the
//! waiter's view of its own queues. Each access is recorded with its agent's epoch (component and value) and
//! checked against the earlier accesses of overlapping rectangles of the tile: two accesses,
//! one a write, race unless the earlier one's epoch is covered by the later one's clock.
//! Records that a later access covers (same or larger rectangle, ordered after, and at least
//! as strong) are dropped, so a tile's record list stays short.
//!
//! **Barrier order.** Two more checks use the same clocks, so that what one schedule shows
//! holds for all of them (see the module documentation of [`crate::emu`]):
//! - an arrival (or TMA bytes, or an MMA commit) on an mbarrier must be ordered after the
//!   completion of the barrier's previous phase, and an arrival on a named barrier after its
//!   previous use: otherwise another schedule lets it join that earlier phase or use;
//! - the completion of phase `p` of an mbarrier must be ordered after every wait that passed
//!   on phase `p - 1`: otherwise another schedule completes both before that wait, which then
//!   finds its parity lapped.

use std::collections::HashMap;
use std::panic::Location;

use warpspec_hw::{Epoch, VectorClock};

use crate::dsl::{AccessKind, TileAccess};

type Loc = &'static Location<'static>;

/// A rectangle of a tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Rect {
    /// First row.
    pub row: u32,
    /// First column.
    pub col: u32,
    /// Rows.
    pub rows: u32,
    /// Columns.
    pub cols: u32,
}

impl Rect {
    fn of(access: &TileAccess) -> Self {
        Self { row: access.row, col: access.col, rows: access.rows, cols: access.cols }
    }

    fn overlaps(&self, other: &Rect) -> bool {
        self.row < other.row + other.rows
            && other.row < self.row + self.rows
            && self.col < other.col + other.cols
            && other.col < self.col + self.cols
    }

    fn covers(&self, other: &Rect) -> bool {
        self.row <= other.row
            && other.row + other.rows <= self.row + self.rows
            && self.col <= other.col
            && other.col + other.cols <= self.col + self.cols
    }
}

/// One recorded access of a tile.
#[derive(Clone, Debug)]
pub(super) struct Record {
    epoch: Epoch,
    /// The instance that issued it.
    pub who: usize,
    /// What it was.
    pub kind: AccessKind,
    /// The rectangle touched.
    pub rect: Rect,
    /// Where it was issued.
    pub at: Option<Loc>,
    /// For a TMA load: the mbarrier and phase its bytes complete.
    pub lands_on: Option<(usize, u64)>,
}

/// What the detector knows of one tile.
struct Shadow {
    number: u32,
    filled_by: Option<usize>,
    records: Vec<Record>,
}

/// A race found: the two accesses, and what is known of the tile.
pub(super) struct Found {
    /// The tile's number in order of first access.
    pub tile: u32,
    /// The tile's storage ordinal ([`TileAccess::tile`]).
    pub key: usize,
    /// The mbarrier whose TMA loads fill the tile, if any.
    pub filled_by: Option<usize>,
    /// The earlier access.
    pub earlier: Record,
    /// The later access.
    pub later: Record,
}

/// An access to check: the instance, its kind and place, and what its agent is.
pub(super) struct Access {
    /// The issuing instance.
    pub who: usize,
    /// The access.
    pub access: TileAccess,
    /// Where it was issued.
    pub at: Option<Loc>,
    /// For a TMA load: the mbarrier and the phase its bytes complete.
    pub lands_on: Option<(usize, u64)>,
    /// MMA groups the instance has issued before this access.
    pub mma_issued: u64,
    /// `tcgen05.commit`s the instance has issued before this access.
    pub umma_commits: u64,
    /// TMA stores the instance has issued before this access.
    pub stores_issued: u64,
}

/// Vector clocks of a CTA's agents and barriers, and the access records of its tiles.
pub(super) struct Races {
    instances: usize,
    barriers: usize,
    clocks: Vec<VectorClock>,
    /// Loads issued per mbarrier (the TMA agent's time).
    loads: Vec<u32>,
    /// Per mbarrier: every clock published into it so far.
    published: Vec<VectorClock>,
    /// Per mbarrier: `published` as of its latest completed phase.
    completed: Vec<VectorClock>,
    /// Per named barrier: clocks published in its current use.
    named_published: Vec<VectorClock>,
    /// Per named barrier: `named_published` as of its latest completed use.
    named_completed: Vec<VectorClock>,
    /// Per mbarrier and instance (`barrier * instances + who`): the phase of the instance's
    /// latest passed wait there, its own time at the pass, and where the wait is.
    passes: Vec<Option<(i64, u32, Option<Loc>)>>,
    tiles: HashMap<usize, Shadow>,
}

/// Whose event a barrier-order check found unordered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Agent {
    /// A role instance (its flat index).
    Instance(usize),
    /// TMA loads completing bytes on an mbarrier.
    Tma(usize),
    /// An instance's warpgroup MMAs.
    Mma(usize),
    /// An instance's TMA stores.
    Store(usize),
    /// An instance's `tcgen05` MMAs and commits.
    Umma(usize),
}

/// A completion of an mbarrier phase not ordered after a wait on the phase before.
pub(super) struct Lap {
    /// The instance that waited.
    pub waiter: usize,
    /// The phase it waited for.
    pub phase: i64,
    /// Where it waited.
    pub at: Option<Loc>,
}

impl Races {
    /// A detector for `instances` role instances, `barriers` mbarriers and `named` named
    /// barriers.
    pub fn new(instances: usize, barriers: usize, named: usize) -> Self {
        let agents = 4 * instances + barriers;
        let clocks = (0..instances)
            .map(|i| {
                let mut c = VectorClock::zero(agents);
                c.tick(i);
                c
            })
            .collect();
        Self {
            instances,
            barriers,
            clocks,
            loads: vec![0; barriers],
            published: vec![VectorClock::zero(agents); barriers],
            completed: vec![VectorClock::zero(agents); barriers],
            named_published: vec![VectorClock::zero(agents); named],
            named_completed: vec![VectorClock::zero(agents); named],
            passes: vec![None; barriers * instances],
            tiles: HashMap::new(),
        }
    }

    fn tma_agent(&self, barrier: usize) -> usize {
        self.instances + barrier
    }

    fn mma_agent(&self, who: usize) -> usize {
        self.instances + self.barriers + who
    }

    fn store_agent(&self, who: usize) -> usize {
        2 * self.instances + self.barriers + who
    }

    fn umma_agent(&self, who: usize) -> usize {
        3 * self.instances + self.barriers + who
    }

    /// Instance `who`'s clock.
    pub fn clock(&self, who: usize) -> &VectorClock {
        &self.clocks[who]
    }

    fn agent(&self, component: usize) -> Agent {
        let (n, b) = (self.instances, self.barriers);
        match component {
            c if c < n => Agent::Instance(c),
            c if c < n + b => Agent::Tma(c - n),
            c if c < 2 * n + b => Agent::Mma(c - n - b),
            c if c < 3 * n + b => Agent::Store(c - 2 * n - b),
            c => Agent::Umma(c - 3 * n - b),
        }
    }

    /// The first agent whose event `required` has seen and `clock` has not, ignoring
    /// component `except` (an agent ordered with itself).
    fn unordered(&self, clock: &VectorClock, required: &VectorClock, except: Option<usize>) -> Option<Agent> {
        (0..required.agents()).find(|&c| Some(c) != except && required.get(c) > clock.get(c)).map(|c| self.agent(c))
    }

    /// Instance `who` arrives on mbarrier `barrier` (a release). Returns the agent of the
    /// barrier's previous phase the arrival is not ordered after, if any.
    pub fn arrive(&mut self, who: usize, barrier: usize) -> Option<Agent> {
        let unordered = self.unordered(&self.clocks[who], &self.completed[barrier], None);
        self.published[barrier].join(&self.clocks[who]);
        self.clocks[who].tick(who);
        unordered
    }

    /// Instance `who`'s `tcgen05.commit` number `commits` (counting from 1) will arrive on
    /// `barrier`: the arrival also publishes the completion of the MMAs before it. Call
    /// before [`Races::arrive`]; returns what the commit is not ordered after.
    pub fn umma_commit(&mut self, who: usize, barrier: usize, commits: u64) -> Option<Agent> {
        let agent = self.umma_agent(who);
        let unordered = self.unordered(&self.clocks[who], &self.completed[barrier], Some(agent));
        self.published[barrier].raise(agent, saturate(commits));
        unordered
    }

    /// A TMA load issued by `who` completes its bytes on `barrier`. Returns what the load is
    /// not ordered after.
    pub fn load_lands(&mut self, who: usize, barrier: usize) -> Option<Agent> {
        let unordered = self.unordered(&self.clocks[who], &self.completed[barrier], None);
        self.published[barrier].join(&self.clocks[who]);
        let agent = self.tma_agent(barrier);
        let loads = self.loads[barrier];
        self.published[barrier].raise(agent, loads);
        unordered
    }

    /// Phase `phase` of `barrier` completed. Returns a wait that passed on the phase before
    /// and that the completion is not ordered after, if any.
    pub fn phase_completed(&mut self, barrier: usize, phase: u64) -> Option<Lap> {
        self.completed[barrier].clone_from(&self.published[barrier]);
        let previous = phase as i64 - 1;
        let passes = &self.passes[barrier * self.instances..][..self.instances];
        passes.iter().enumerate().find_map(|(waiter, pass)| match *pass {
            Some((phase, time, at)) if phase == previous && self.completed[barrier].get(waiter) < time => {
                Some(Lap { waiter, phase, at })
            }
            _ => None,
        })
    }

    /// Instance `who` passed a wait for phase `phase` of `barrier` at `at` (an acquire).
    pub fn waited(&mut self, who: usize, barrier: usize, phase: i64, at: Option<Loc>) {
        self.clocks[who].join(&self.completed[barrier]);
        let time = self.clocks[who].get(who);
        self.passes[barrier * self.instances + who] = Some((phase, time, at));
    }

    /// Instance `who` arrives on named barrier `named`. Returns the agent of the barrier's
    /// previous use the arrival is not ordered after, if any.
    pub fn named_arrive(&mut self, who: usize, named: usize) -> Option<Agent> {
        let unordered = self.unordered(&self.clocks[who], &self.named_completed[named], None);
        self.named_published[named].join(&self.clocks[who]);
        self.clocks[who].tick(who);
        unordered
    }

    /// A use of named barrier `named` completed.
    pub fn named_completed(&mut self, named: usize) {
        self.named_completed[named].clone_from(&self.named_published[named]);
        self.named_published[named].clear();
    }

    /// Instance `who` passed a `bar.sync` on `named`.
    pub fn named_waited(&mut self, who: usize, named: usize) {
        self.clocks[who].join(&self.named_completed[named]);
    }

    /// Instance `who` waited until its first `groups` MMA groups completed.
    pub fn mma_waited(&mut self, who: usize, groups: u64) {
        let agent = self.mma_agent(who);
        self.clocks[who].raise(agent, saturate(groups));
    }

    /// Instance `who` waited until its first `stores` TMA stores finished reading.
    pub fn stores_waited(&mut self, who: usize, stores: u64) {
        let agent = self.store_agent(who);
        self.clocks[who].raise(agent, saturate(stores));
    }

    /// Records an access, and returns the race it makes with an earlier access, if any. A TMA
    /// load must come with the barrier it lands on (`lands_on`); one without is not recorded.
    pub fn access(&mut self, a: Access) -> Option<Box<Found>> {
        let epoch = match a.access.kind {
            AccessKind::TmaWrite { .. } => {
                let (barrier, _) = a.lands_on?;
                self.loads[barrier] += 1;
                Epoch { agent: self.tma_agent(barrier) as u32, time: self.loads[barrier] }
            }
            AccessKind::MmaRead => Epoch { agent: self.mma_agent(a.who) as u32, time: saturate(a.mma_issued + 1) },
            AccessKind::TmaRead => Epoch { agent: self.store_agent(a.who) as u32, time: saturate(a.stores_issued + 1) },
            AccessKind::UmmaRead | AccessKind::UmmaWrite => {
                Epoch { agent: self.umma_agent(a.who) as u32, time: saturate(a.umma_commits + 1) }
            }
            AccessKind::SharedRead | AccessKind::SharedWrite | AccessKind::TmemRead | AccessKind::TmemWrite => {
                Epoch { agent: a.who as u32, time: self.clocks[a.who].get(a.who) }
            }
        };
        // One issuer's `tcgen05` MMAs run in issue order: each is ordered after the earlier.
        let in_order = matches!(a.access.kind, AccessKind::UmmaRead | AccessKind::UmmaWrite)
            .then(|| self.umma_agent(a.who) as u32);
        let record = Record {
            epoch,
            who: a.who,
            kind: a.access.kind,
            rect: Rect::of(&a.access),
            at: a.at,
            lands_on: a.lands_on,
        };
        let next = self.tiles.len() as u32;
        let shadow =
            self.tiles.entry(a.access.tile).or_insert(Shadow { number: next, filled_by: None, records: vec![] });
        if let Some((barrier, _)) = a.lands_on {
            shadow.filled_by.get_or_insert(barrier);
        }
        let clock = &self.clocks[a.who];
        let writes = record.kind.writes();
        let ordered = |r: &Record| clock.covers(r.epoch) || Some(r.epoch.agent) == in_order;
        let conflict =
            shadow.records.iter().find(|r| (writes || r.kind.writes()) && r.rect.overlaps(&record.rect) && !ordered(r));
        if let Some(earlier) = conflict {
            return Some(Box::new(Found {
                tile: shadow.number,
                key: a.access.tile,
                filled_by: shadow.filled_by,
                earlier: earlier.clone(),
                later: record,
            }));
        }
        shadow.records.retain(|r| {
            let superseded = record.rect.covers(&r.rect) && ordered(r) && (writes || !r.kind.writes());
            !superseded
        });
        shadow.records.push(record);
        None
    }
}

fn saturate(value: u64) -> u32 {
    u32::try_from(value).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsl::BarrierSlot;

    fn access(who: usize, kind: AccessKind, row: u32, rows: u32, lands_on: Option<(usize, u64)>) -> Access {
        Access {
            who,
            access: TileAccess { tile: 7, row, col: 0, rows, cols: 16, kind },
            at: None,
            lands_on,
            mma_issued: 0,
            stores_issued: 0,
            umma_commits: 0,
        }
    }

    const LOAD: AccessKind = AccessKind::TmaWrite { on: BarrierSlot { barrier: 0, index: 0 } };

    #[test]
    fn a_read_after_the_loads_phase_is_ordered_and_one_before_is_not() {
        // Instance 0 loads into the tile on barrier 0 and arrives; instance 1 reads.
        let mut r = Races::new(2, 1, 0);
        assert!(r.access(access(0, LOAD, 0, 64, Some((0, 0)))).is_none());
        assert!(r.load_lands(0, 0).is_none());
        assert!(r.arrive(0, 0).is_none());
        let early = r.access(access(1, AccessKind::SharedRead, 0, 64, None)).expect("read before the wait races");
        assert_eq!((early.earlier.who, early.later.who, early.tile), (0, 1, 0));
        assert!(r.phase_completed(0, 0).is_none());
        r.waited(1, 0, 0, None);
        assert!(r.access(access(1, AccessKind::SharedRead, 0, 64, None)).is_none());
    }

    #[test]
    fn disjoint_rows_do_not_conflict_and_covered_records_are_dropped() {
        let mut r = Races::new(2, 1, 0);
        assert!(r.access(access(0, AccessKind::SharedWrite, 0, 32, None)).is_none());
        assert!(r.access(access(1, AccessKind::SharedWrite, 32, 32, None)).is_none());
        assert_eq!(r.tiles[&7].records.len(), 2);
        assert!(r.access(access(0, AccessKind::SharedWrite, 0, 16, None)).is_none());
        // The second write of instance 0 is ordered after its first but covers only part.
        assert_eq!(r.tiles[&7].records.len(), 3);
        assert!(r.access(access(0, AccessKind::SharedWrite, 0, 32, None)).is_none());
        assert_eq!(r.tiles[&7].records.len(), 2);
    }

    #[test]
    fn an_mma_read_lasts_until_its_wait() {
        let mut r = Races::new(1, 0, 0);
        assert!(r.access(access(0, AccessKind::MmaRead, 0, 64, None)).is_none());
        let overwrite = access(0, AccessKind::SharedWrite, 0, 64, None);
        assert!(r.access(overwrite).is_some(), "write while the MMA reads");
        r.mma_waited(0, 1);
        assert!(r.access(access(0, AccessKind::SharedWrite, 0, 64, None)).is_none());
    }
}
