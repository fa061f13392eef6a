//! The types a kernel author touches: tiles and rings in shared memory, global tensors,
//! register fragments, pipeline and barrier endpoints, and the role context [`Ctx`].

mod argument;
mod ctx;
mod element;
mod fragment;
mod global;
mod kernel;
mod ops;
mod softexp;
mod source_line;
mod sync;
mod tile;

#[doc(hidden)]
pub use tile::TileCell;
pub(crate) use tile::next_cell_ordinal;

#[cfg(test)]
mod catalogue;

pub use argument::{ArgValue, Argument, GlobalArg};
pub use ctx::{Ctx, EXP2_CHUNK_COLS, MmaGroup, StoreGroup};
pub use element::{DType, Element, round_slice};
pub use fragment::{Assume, Fragment, Registers, RowVec};
pub use global::Global;
pub use kernel::{BarrierSpec, Cta, Kernel, KernelSpec, NamedBarrierSpec, PipelineSpec, RoleFuture, RoleSpec};
pub use ops::{AccessKind, Backend, BarrierSlot, Event, Fault, GlobalTile, MathKind, Op, TileAccess, Wait, Who};
pub use softexp::{POLY_EXP2_DEG3, exp2_poly, max_relative_error as exp2_poly_max_relative_error};
pub use source_line::line_hint;
pub(crate) use source_line::written_line;
pub use sync::{
    Arriver, Barrier, Consumer, Endpoint, Full, Named, NamedBarrier, PipeState, Pipeline, Producer, Slot, TxOn,
    TxTarget, Waiter,
};
pub use tile::{
    ClusterTiles, MmaOperandB, Ring, SmemBuffer, SmemField, StorageView, Tile, TileOperand, TileRef, TmemTile,
    Transposed,
};
