//! What a Rust value of a role body is on the device: an integer or flag expression, a
//! pipeline stage, a view of a shared tile, a tensor-memory tile, a register fragment or row
//! vector; and how a kernel uses its global tensors.

use std::collections::{BTreeMap, BTreeSet};

/// A shared tile or part of one, as a DSL view names it.
#[derive(Clone, Debug)]
pub(crate) struct View {
    /// Index of the shared field.
    pub field: usize,
    /// The stage (C++ expression).
    pub stage: String,
    /// First row (C++ expression).
    pub row0: String,
    pub rows: u32,
    pub cols: u32,
    /// Read transposed (`.t()`).
    pub transposed: bool,
}

/// A register fragment in the wgmma accumulator layout: `float var[rows / 64][cols / 2]`.
#[derive(Clone, Debug)]
pub(crate) struct Frag {
    pub var: String,
    pub rows: u32,
    pub cols: u32,
}

/// A row vector (one value per fragment row): `float var[rows / 64][2]`, this thread's two
/// rows of each 64-row block (`acc_row(0)` and `acc_row(2)`), the same in the four lanes of
/// a quad.
#[derive(Clone, Debug)]
pub(crate) struct Rows {
    pub var: String,
    pub rows: u32,
}

/// What a Rust value is on the device.
#[derive(Clone, Debug)]
pub(crate) enum Val {
    Int(String),
    Bool(String),
    Float(String),
    Ctx,
    Args,
    /// `blockIdx` or `gridDim`.
    Dims(&'static str),
    Global(String),
    Shape(String),
    Producer {
        pipe: usize,
        state: String,
    },
    Consumer {
        pipe: usize,
        state: String,
    },
    Named(usize),
    /// The arriving end of plain barrier `.0` (an index into the plan's barriers).
    Arriver(usize),
    /// The waiting end of plain barrier `.0`.
    Waiter(usize),
    /// A whole shared field: a tile, a ring, or an array of tiles (indexed at run time).
    Field(usize),
    /// A tensor-memory tile of the plan's `tile`, or (`index`) one tile of that array.
    Tmem {
        tile: usize,
        index: Option<String>,
    },
    /// Coordinates into a global tensor (an array literal).
    Coords(Vec<String>),
    /// A TMA store group.
    StoreGroup,
    /// How a run without data decides a condition (`Assume`): nothing on the GPU, where the
    /// data decide.
    Assumption,
    Slot {
        pipe: usize,
        stage: String,
    },
    Full {
        pipe: usize,
        stage: String,
    },
    View(View),
    Frag(Frag),
    Rows(Rows),
    Mma,
    Unit,
}

impl Val {
    pub fn kind(&self) -> &'static str {
        match self {
            Val::Int(_) => "an integer",
            Val::Bool(_) => "a flag",
            Val::Float(_) => "a float",
            Val::Ctx => "the context",
            Val::Args => "the arguments",
            Val::Dims(_) => "grid coordinates",
            Val::Global(_) => "a global tensor",
            Val::Shape(_) => "a shape",
            Val::Producer { .. } | Val::Consumer { .. } => "a pipeline endpoint",
            Val::Named(_) => "a named barrier",
            Val::Arriver(_) | Val::Waiter(_) => "a barrier endpoint",
            Val::Field(_) => "a shared field",
            Val::Tmem { .. } => "a tensor-memory tile",
            Val::Coords(_) => "coordinates",
            Val::StoreGroup => "a TMA store group",
            Val::Assumption => "an assumption",
            Val::Slot { .. } | Val::Full { .. } => "a pipeline token",
            Val::View(_) => "a tile view",
            Val::Frag(_) => "a fragment",
            Val::Rows(_) => "a row vector",
            Val::Mma => "an MMA group",
            Val::Unit => "nothing",
        }
    }
}

/// How a kernel uses a global tensor, gathered while its bodies are rendered.
#[derive(Clone, Debug, Default)]
pub(crate) struct Uses {
    /// Globals read by TMA: the box (rows, columns) and the swizzle span in bytes.
    pub maps: BTreeMap<String, (u32, u32, u32)>,
    /// Globals written through a pointer.
    pub pointers: BTreeSet<String>,
    /// Dimensions each global is indexed with.
    pub ranks: BTreeMap<String, usize>,
    /// The operations that record a timestamp, by site number (timestamped renderings).
    pub sites: Vec<super::TimestampSite>,
}

impl Uses {
    pub fn rank(&mut self, global: &str, rank: usize) {
        let r = self.ranks.entry(global.to_string()).or_insert(rank);
        *r = (*r).max(rank);
    }
}
