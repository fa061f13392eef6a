//! A kernel: its declarations, its roles and the module functions they call.

use crate::expr::Expr;
use crate::pos::Pos;
use crate::stmt::{Block, Pat};
use crate::ty::Ty;

/// A whole kernel, as the `#[kernel]` module declares it.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// The module's name.
    pub name: String,
    /// CTAs per cluster along x, y and z, from `#[kernel(cluster = [x, y, z])]`; `None`
    /// for a kernel without a cluster shape (one CTA per cluster). A backend launches the
    /// grid in clusters of this shape (`cudaLaunchAttributeClusterDimension`), and the
    /// cluster operations address the CTAs of one cluster by rank (x fastest):
    /// [`crate::Op::TmaLoadMulticast`] writes the same shared-memory tile of every CTA of a
    /// mask and completes its bytes on each one's barrier, [`crate::Op::ReleaseCluster`] and
    /// [`crate::Op::ArriveCluster`] arrive on the barrier of every CTA of a mask, and
    /// [`crate::Op::ClusterSync`] waits for every thread of the cluster.
    pub cluster: Option<[u32; 3]>,
    /// Its constants, in declaration order.
    pub consts: Vec<Const>,
    /// The fields of the `#[params]` struct: the launch's arguments (global tensors and
    /// scalars).
    pub params: Vec<Field>,
    /// The fields of the `#[shared]` struct: on-chip buffers.
    pub shared: Vec<Field>,
    /// `#[pipeline]`s, in declaration order.
    pub pipelines: Vec<Pipeline>,
    /// `#[barrier]`s, in declaration order.
    pub barriers: Vec<Barrier>,
    /// `#[named_barrier]`s, in declaration order.
    pub named: Vec<NamedBarrier>,
    /// `#[role]`s, in declaration order.
    pub roles: Vec<Role>,
    /// The module functions the roles call (directly or through each other), in the order
    /// first called.
    pub functions: Vec<Function>,
    /// Arrivals that follow a tensor-memory load with no arrival between, found by the
    /// protocol checker: a lowering must emit `tcgen05.wait::ld` between the two, or the
    /// arrival may hand the tile over before the load has read it.
    pub wait_ld: Vec<WaitLd>,
}

/// An arrival that must wait for an earlier tensor-memory load (`tcgen05.wait::ld`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WaitLd {
    /// The role whose code it is.
    pub role: String,
    /// The `tmem_load` call.
    pub load: Pos,
    /// The arrival that follows it (an `arrive`, `commit`, `release` or named-barrier use).
    pub arrive: Pos,
}

/// `const NAME: Ty = value;`.
#[derive(Clone, Debug, PartialEq)]
pub struct Const {
    /// The name.
    pub name: String,
    /// The type.
    pub ty: Ty,
    /// The value as written.
    pub value: Expr,
    /// The value, when it is integer arithmetic the macro evaluated.
    pub evaluated: Option<i128>,
}

/// A field of the `#[params]` or `#[shared]` struct.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    /// The name.
    pub name: String,
    /// The type (`Tensor<bf16>`, `Ring<Tile<bf16, BM, BK>, STAGES>`).
    pub ty: Ty,
}

/// `#[pipeline(producer = .., consumer = .., guards = [..], tma, stages = N)]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Pipeline {
    /// The struct's name.
    pub name: String,
    /// Filled by TMA: a commit expects the stage's bytes.
    pub tma: bool,
    /// Producing roles.
    pub producers: Vec<String>,
    /// Consuming roles.
    pub consumers: Vec<String>,
    /// The shared fields it guards.
    pub guards: Vec<String>,
    /// Its stage count, as declared.
    pub stages: Option<Expr>,
    /// Arrivals per phase on its full barrier, as declared.
    pub full_arrivals: Option<Expr>,
    /// Arrivals per phase on its empty barrier, as declared.
    pub empty_arrivals: Option<Expr>,
}

/// `#[barrier(arrive = [..], wait = [..], count = N, len = N)]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Barrier {
    /// The struct's name.
    pub name: String,
    /// Arriving roles.
    pub arrive: Vec<String>,
    /// Waiting roles.
    pub wait: Vec<String>,
    /// Arrivals per phase, as declared.
    pub count: Option<Expr>,
    /// Barriers in the array, as declared.
    pub len: Option<Expr>,
}

/// `#[named_barrier(roles = [..], threads = N, id = N)]`.
#[derive(Clone, Debug, PartialEq)]
pub struct NamedBarrier {
    /// The struct's name.
    pub name: String,
    /// Its roles.
    pub roles: Vec<String>,
    /// Its thread count, as declared.
    pub threads: Option<Expr>,
    /// Its hardware id, as declared.
    pub id: Option<Expr>,
}

/// `#[role(warps = N | warpgroups = N, regs = R)] async fn name(cx, endpoints..)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Role {
    /// Warps per instance: 1 for `warps = N`, 4 for `warpgroups = N`.
    pub warps_per_instance: u32,
    /// Instances, as declared (`1` when not given).
    pub instances: Expr,
    /// Registers per thread, as declared.
    pub regs: Option<Expr>,
    /// The role's function: its context and endpoint parameters, and its body.
    pub func: Function,
}

/// A function: a role's body or a module helper.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    /// Where it is declared.
    pub pos: Pos,
    /// Its name.
    pub name: String,
    /// `async fn`.
    pub is_async: bool,
    /// Its parameters.
    pub params: Vec<Param>,
    /// Its result type (`None` for `()`).
    pub ret: Option<Ty>,
    /// Its body.
    pub body: Block,
}

/// A parameter of a function.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    /// The pattern it binds.
    pub pat: Pat,
    /// Its type.
    pub ty: Ty,
}

impl Kernel {
    /// The role called `name`.
    pub fn role(&self, name: &str) -> Option<&Role> {
        self.roles.iter().find(|r| r.func.name == name)
    }

    /// The module function called `name`.
    pub fn function(&self, name: &str) -> Option<&Function> {
        self.functions.iter().find(|f| f.name == name)
    }
}
