//! The spans an SM records: each warp's instructions and waits on its own track, MMA groups
//! on the tensor cores' track, copies on the TMA unit's track, as typed [`SpanKind`]s.

use crate::dsl::{BarrierSlot, Wait};
use crate::report::{Awaited, Flow, Issued, Span, SpanKind, TmaCopy, Track};

use super::super::lower::Instr;
use super::super::sites::Site;
use super::{Env, Sm, ceil};

impl Sm {
    /// Records a span of `site`; returns its index in [`Sm::trace`] if it was recorded (not
    /// outside the window, not over the limit).
    fn record(
        &mut self,
        env: &Env<'_>,
        track: Track,
        kind: SpanKind,
        site: Site,
        start: u64,
        end: u64,
    ) -> Option<usize> {
        if env.trace_window.is_some_and(|w| !w.overlaps(start, end.max(start))) {
            self.trace_outside += 1;
            None
        } else if self.trace.len() < env.trace_limit {
            self.trace.push(Span::new(self.id as u32, track, kind, start, end));
            self.trace_sites.push(site);
            Some(self.trace.len() - 1)
        } else {
            self.trace_dropped += 1;
            None
        }
    }

    /// The recorded span `span` arrived on `barrier` of the CTA at `resident` (an arrive, a
    /// commit or a TMA load's copy): a wait that passes a phase of it links back to it.
    pub(super) fn note_arrival(&mut self, resident: usize, barrier: BarrierSlot, span: Option<usize>) {
        if let Some(span) = span {
            self.residents[resident].mbar(barrier).last_arrival = Some(span);
        }
    }

    /// The track of warp `w`.
    fn track_of(&self, w: usize, env: &Env<'_>) -> Track {
        let per_cta = env.shape.warps as usize;
        let (resident, warp) = (w / per_cta, w % per_cta);
        env.shape.warp_track(resident as u32, warp as u32, self.owners[warp])
    }

    /// Warp `w` issued `instr` of `site` over `[start, end)`; returns the span's index if
    /// recorded.
    pub(super) fn trace_issued(
        &mut self,
        w: usize,
        instr: &Instr,
        site: Site,
        start: u64,
        end: u64,
        env: &Env<'_>,
    ) -> Option<usize> {
        let issued = issued(instr, env)?;
        let track = self.track_of(w, env);
        self.record(env, track, SpanKind::Issued(issued), site, start, end)
    }

    /// Warp `w` waited in `wait` of `site` over `[start, end)`; a passed phase links back to
    /// the latest arrival recorded on its stage ([`Flow`]).
    pub(super) fn trace_wait(&mut self, w: usize, wait: &Wait, site: Site, start: u64, end: u64, env: &Env<'_>) {
        let awaited = match *wait {
            Wait::Parity { slot, parity } => Awaited::Phase { barrier: env.shape.stage(slot), parity },
            Wait::Mma { pending } => Awaited::MmaGroups { pending },
            Wait::Store { pending } => Awaited::Stores { pending },
            Wait::NamedSync { barrier } => Awaited::NamedSync { name: env.shape.named_name(barrier) },
            Wait::ClusterSync => Awaited::NamedSync { name: "barrier.cluster".into() },
        };
        let track = self.track_of(w, env);
        let Some(to) = self.record(env, track, SpanKind::Wait(awaited), site, start, end) else { return };
        if let Wait::Parity { slot, .. } = *wait {
            let resident = self.warps[w].resident as usize;
            if let Some(from) = self.residents[resident].mbar(slot).last_arrival
                && self.trace[from].start <= end
            {
                self.trace_flows.push(Flow { from, to });
            }
        }
    }

    /// Records the tensor cores' finished runs of MMAs of one group each (every run with
    /// `all`: the simulation is over). A run is recorded once it can no longer move: a group
    /// issued later may still run instructions between a planned group's.
    pub(crate) fn trace_tensor_runs(&mut self, all: bool, env: &Env<'_>) {
        for run in self.tensor.take_runs(all) {
            let kind = SpanKind::MmaGroup { instrs: run.instrs, n: run.n, dtype: run.dtype };
            self.record(env, Track::TensorCores, kind, Site::NONE, ceil(run.start), ceil(run.end));
        }
    }

    /// The TMA unit ran `copy` from `start` (issue) to `end` (landing); returns the span's
    /// index if recorded.
    pub(super) fn trace_copy(&mut self, copy: TmaCopy, start: u64, end: u64, env: &Env<'_>) -> Option<usize> {
        self.record(env, Track::Tma, SpanKind::Copy(copy), Site::NONE, start, end)
    }

    /// The tracks of this SM: its units, then every warp of every resident CTA.
    pub fn trace_tracks(&self, env: &Env<'_>) -> Vec<Track> {
        let mut out = vec![Track::TensorCores, Track::Tma];
        for resident in 0..self.residents.len() {
            for (warp, &owner) in self.owners.iter().enumerate() {
                out.push(env.shape.warp_track(resident as u32, warp as u32, owner));
            }
        }
        out
    }
}

/// What a warp's span shows for a non-wait instruction it issued.
fn issued(instr: &Instr, env: &Env<'_>) -> Option<Issued> {
    use crate::report::Direction::{Load, Store};
    let dir = |load: bool| if load { Load } else { Store };
    Some(match *instr {
        Instr::Exec { pipe, count, .. } => Issued::Exec { pipe, count },
        Instr::Mix(mix) => Issued::Interleaved { count: mix.issues(), ops: mix.parts().len() as u32 },
        Instr::Shared { count, load, .. } => Issued::Shared { dir: dir(load), count },
        Instr::GlobalLoad { count, .. } => Issued::Global { dir: Load, count },
        Instr::GlobalStore { count, .. } => Issued::Global { dir: Store, count },
        Instr::Mma { instrs, n, .. } => Issued::Wgmma { instrs, n },
        Instr::Umma { instrs, n, .. } => Issued::Tcgen05Mma { instrs, n },
        Instr::MmaCommit { barrier } => Issued::MmaCommit { barrier: env.shape.stage(barrier) },
        Instr::Tmem { count, load, .. } => Issued::Tmem { dir: dir(load), count },
        Instr::TmaLoad { barrier, bytes, .. } => {
            Issued::Tma(TmaCopy::Load { bytes, barrier: env.shape.stage(barrier) })
        }
        Instr::TmaLoadMulticast { barrier, bytes, .. } => {
            Issued::Tma(TmaCopy::Load { bytes, barrier: env.shape.stage(barrier) })
        }
        Instr::ClusterArrive { barrier, .. } => Issued::Arrive { barrier: env.shape.stage(barrier) },
        Instr::TmaStore { bytes, .. } => Issued::Tma(TmaCopy::Store { bytes }),
        Instr::Arrive { barrier, .. } => Issued::Arrive { barrier: env.shape.stage(barrier) },
        Instr::NamedArrive { barrier } => Issued::NamedArrive { name: env.shape.named_name(barrier) },
        Instr::TryWait { .. } | Instr::Wait(_) => return None,
    })
}
