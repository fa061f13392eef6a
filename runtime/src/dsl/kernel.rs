//! What `#[kernel]` generates: a static description of the kernel ([`KernelSpec`]) and a
//! [`Kernel`] impl that spawns each role instance of a CTA.

use std::future::Future;
use std::pin::Pin;

use super::ops::{Backend, Who};
use super::tile::SmemBuffer;

/// A role: a warp-specialized program run by `instances` instances of `warps_per_instance`
/// warps each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoleSpec {
    /// The role's name (the function name).
    pub name: &'static str,
    /// Number of instances (warps, or warpgroups).
    pub instances: u32,
    /// Warps per instance: 1, or 4 for a warpgroup.
    pub warps_per_instance: u32,
    /// Registers per thread (`setmaxnreg` budget).
    pub regs: u32,
}

impl RoleSpec {
    /// Warps the role occupies in total.
    pub const fn warps(&self) -> u32 {
        self.instances * self.warps_per_instance
    }

    /// Threads of one instance.
    pub const fn threads_per_instance(&self) -> u32 {
        self.warps_per_instance * 32
    }
}

/// An array of `len` mbarriers (one per stage) with the roles that arrive on and wait for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarrierSpec {
    /// Name in messages, e.g. `Operands.full`.
    pub name: &'static str,
    /// Number of mbarriers (stages).
    pub len: u32,
    /// Arrivals that complete one phase.
    pub arrivals: u32,
    /// Roles that arrive.
    pub arrivers: &'static [u16],
    /// Roles that wait.
    pub waiters: &'static [u16],
}

/// A pipeline: a `full` and an `empty` barrier array guarding a ring of `stages` slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineSpec {
    /// The pipeline's name.
    pub name: &'static str,
    /// Stages (slots) of the ring.
    pub stages: u32,
    /// Barrier that signals a slot filled (producer → consumer).
    pub full: u16,
    /// Barrier that signals a slot drained (consumer → producer).
    pub empty: u16,
    /// Bytes a TMA producer expects per slot (0 for a plain-arrive pipeline).
    pub tx_bytes: u32,
}

/// A named barrier (`bar.sync id, threads`) shared by whole role instances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NamedBarrierSpec {
    /// The barrier's name.
    pub name: &'static str,
    /// Hardware barrier id (1..=15; 0 is `__syncthreads`).
    pub id: u32,
    /// Threads that must arrive per use.
    pub threads: u32,
    /// Roles that use it.
    pub roles: &'static [u16],
}

/// Everything static about a kernel: roles, barriers, pipelines, shared memory.
#[derive(Clone, Copy, Debug)]
pub struct KernelSpec {
    /// The kernel's name (its module name).
    pub name: &'static str,
    /// Roles in declaration order; warps are numbered in this order.
    pub roles: &'static [RoleSpec],
    /// mbarrier arrays, including the full/empty sides of every pipeline.
    pub barriers: &'static [BarrierSpec],
    /// Pipelines.
    pub pipelines: &'static [PipelineSpec],
    /// Named barriers.
    pub named_barriers: &'static [NamedBarrierSpec],
    /// Shared memory bytes per CTA.
    pub smem_bytes: usize,
    /// CTAs per cluster along x, y and z (`#[kernel(cluster = [x, y, z])]`; `[1, 1, 1]`
    /// without a cluster). A launch's grid must be a whole number of clusters.
    pub cluster: [u32; 3],
}

impl KernelSpec {
    /// The cluster shape.
    pub const fn cluster_shape(&self) -> warpspec_hw::ClusterShape {
        warpspec_hw::ClusterShape { dims: self.cluster }
    }

    /// Whether the kernel runs in clusters of more than one CTA.
    pub const fn clustered(&self) -> bool {
        self.cluster_shape().ctas() > 1
    }

    /// Warps per CTA.
    pub fn warps(&self) -> u32 {
        self.roles.iter().map(RoleSpec::warps).sum()
    }

    /// Threads per CTA.
    pub fn threads(&self) -> u32 {
        self.warps() * 32
    }

    /// The first warp of an instance, counting warps in role declaration order.
    pub fn first_warp(&self, who: Who) -> u32 {
        let before: u32 = self.roles[..who.role as usize].iter().map(RoleSpec::warps).sum();
        before + who.instance as u32 * self.roles[who.role as usize].warps_per_instance
    }

    /// Every role instance of a CTA, in warp order.
    pub fn instances(&self) -> impl Iterator<Item = Who> + '_ {
        self.roles.iter().enumerate().flat_map(|(role, spec)| {
            (0..spec.instances).map(move |instance| Who { role: role as u16, instance: instance as u16 })
        })
    }

    /// Names of a list of roles, for messages: "`producer`, `consumer`".
    pub fn role_names(&self, roles: &[u16]) -> String {
        let names: Vec<String> = roles.iter().map(|&r| format!("`{}`", self.roles[r as usize].name)).collect();
        names.join(", ")
    }

    /// A description of an instance for messages: "`consumer` #1 (warps 4-7)".
    pub fn describe(&self, who: Who) -> String {
        let role = &self.roles[who.role as usize];
        let first = self.first_warp(who);
        let warps = if role.warps_per_instance == 1 {
            format!("warp {first}")
        } else {
            format!("warps {first}-{}", first + role.warps_per_instance - 1)
        };
        format!("`{}` #{} ({warps})", role.name, who.instance)
    }
}

/// A role instance's program, borrowing its CTA.
pub type RoleFuture<'a> = Pin<Box<dyn Future<Output = ()> + 'a>>;

/// A kernel generated by `#[kernel]`.
pub trait Kernel: Sized + 'static {
    /// Launch arguments (the `#[params]` struct).
    type Params: Sync;
    /// Shared memory of one CTA (the `#[shared]` struct).
    type Smem: SmemBuffer;
    /// The static description.
    const SPEC: KernelSpec;
    /// Starts the program of role `who.role`, instance `who.instance`, in `cta`.
    fn spawn<'a>(cta: &'a Cta<'a, Self>, who: Who) -> RoleFuture<'a>;
    /// The fields of `params`, in declaration order, for targets that move them to a device.
    fn arguments(params: &Self::Params) -> Vec<super::Argument<'_>>;
    /// The kernel's IR, for backends that render it; `None` when the macro could not lower it.
    fn ir_of() -> Option<&'static warpspec_ir::Kernel>;
}

/// One CTA being executed: its launch arguments, shared memory and backend.
pub struct Cta<'a, K: Kernel> {
    /// Launch arguments.
    pub params: &'a K::Params,
    /// Shared memory.
    pub smem: &'a K::Smem,
    /// Where ops go.
    pub backend: &'a dyn Backend,
    /// `blockIdx` (x, y, z).
    pub block: [u32; 3],
    /// `gridDim` (x, y, z).
    pub grid: [u32; 3],
    /// The CTA's rank in its cluster (0 without a cluster).
    pub rank: u32,
    /// The tile storages of every CTA of the cluster, for multicast copies (empty without
    /// data).
    pub tiles: super::ClusterTiles<'a>,
}
