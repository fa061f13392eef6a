//! What the SM needs to know about every CTA it runs: its instances, warps and barriers, by
//! name, for the model and for its traces and deadlock reports.

use std::sync::Arc;

use crate::dsl::{BarrierSlot, KernelSpec};
use crate::report::{BarrierStage, Track};

/// One role instance of the CTA's shape.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct InstanceShape {
    /// Index of its role.
    pub role: u16,
    /// Index within its role.
    pub index: u16,
    /// First CTA-local warp.
    pub first_warp: u32,
    /// Warps of the instance.
    pub warps: u32,
}

/// One mbarrier array of the CTA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BarrierShape {
    /// Its name, e.g. `Operands.full`.
    pub name: Arc<str>,
    /// Stages of the array.
    pub stages: u32,
    /// Arrivals per phase.
    pub arrivals: u32,
    /// The roles that arrive, described ("`producer`").
    pub arrivers: String,
}

/// One named barrier of the CTA.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct NamedShape {
    /// Its name.
    pub name: Arc<str>,
    /// Its hardware id.
    pub id: u32,
    /// Threads per use.
    pub threads: u32,
    /// The roles that use it, described.
    pub roles: String,
}

/// What the SM needs to know about every CTA it runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CtaShape {
    /// The kernel's name, for messages.
    pub kernel: &'static str,
    /// Role names.
    pub roles: Vec<&'static str>,
    /// Instances in warp order.
    pub instances: Vec<InstanceShape>,
    /// Warps per CTA.
    pub warps: u32,
    /// mbarrier arrays.
    pub barriers: Vec<BarrierShape>,
    /// Named barriers.
    pub named: Vec<NamedShape>,
}

/// The instance a CTA-local warp belongs to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct WarpOwner {
    /// Index of the instance in [`CtaShape::instances`].
    pub instance: u32,
    /// The warp's number within the instance.
    pub of_instance: u32,
}

impl CtaShape {
    /// The shape of the CTAs of `spec`.
    pub fn from_spec(spec: &'static KernelSpec) -> Self {
        CtaShape {
            kernel: spec.name,
            roles: spec.roles.iter().map(|r| r.name).collect(),
            instances: spec
                .instances()
                .map(|who| InstanceShape {
                    role: who.role,
                    index: who.instance,
                    first_warp: spec.first_warp(who),
                    warps: spec.roles[who.role as usize].warps_per_instance,
                })
                .collect(),
            warps: spec.warps(),
            barriers: spec
                .barriers
                .iter()
                .map(|b| BarrierShape {
                    name: b.name.into(),
                    stages: b.len,
                    arrivals: b.arrivals,
                    arrivers: spec.role_names(b.arrivers),
                })
                .collect(),
            named: spec
                .named_barriers
                .iter()
                .map(|n| NamedShape {
                    name: n.name.into(),
                    id: n.id,
                    threads: n.threads,
                    roles: spec.role_names(n.roles),
                })
                .collect(),
        }
    }

    /// The owner of every CTA-local warp.
    pub fn warp_owners(&self) -> Vec<WarpOwner> {
        let mut owners = vec![WarpOwner::default(); self.warps as usize];
        for (i, inst) in self.instances.iter().enumerate() {
            for w in 0..inst.warps {
                if let Some(o) = owners.get_mut((inst.first_warp + w) as usize) {
                    *o = WarpOwner { instance: i as u32, of_instance: w };
                }
            }
        }
        owners
    }

    /// A stage of an mbarrier, as traces name it.
    pub fn stage(&self, barrier: BarrierSlot) -> BarrierStage {
        let name = self.barriers.get(barrier.barrier as usize).map_or_else(|| "?".into(), |b| b.name.clone());
        BarrierStage { name, stage: u32::from(barrier.index) }
    }

    /// An instance for messages: "`consumer` #1 (warps 5-8)".
    pub fn describe(&self, inst: &InstanceShape) -> String {
        let role = self.role_name(inst);
        let last = inst.first_warp + inst.warps.max(1) - 1;
        let warps =
            if last == inst.first_warp { format!("warp {last}") } else { format!("warps {}-{last}", inst.first_warp) };
        format!("`{role}` #{} ({warps})", inst.index)
    }

    /// The role name of an instance.
    pub fn role_name(&self, inst: &InstanceShape) -> &'static str {
        self.roles.get(inst.role as usize).copied().unwrap_or("?")
    }

    /// Name of a named barrier.
    pub fn named_name(&self, barrier: u16) -> Arc<str> {
        self.named.get(barrier as usize).map_or_else(|| "?".into(), |n| n.name.clone())
    }

    /// The trace track of warp `warp` of the CTA resident at `resident`.
    pub fn warp_track(&self, resident: u32, warp: u32, owner: WarpOwner) -> Track {
        let inst = &self.instances[owner.instance as usize];
        Track::Warp { resident, warp, role: self.role_name(inst), instance: inst.index, of_instance: owner.of_instance }
    }
}
