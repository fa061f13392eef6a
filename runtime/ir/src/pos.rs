//! Where a node of the kernel IR comes from.

/// A node's source position: the line and column of its first token, and its number among
/// the nodes of its kernel. Plain data, so the IR needs no syntax-tree crate; the `#[kernel]`
/// macro keeps a side table from node numbers back to its tokens, for diagnostics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Pos {
    /// 1-based line (0 when unknown).
    pub line: u32,
    /// 0-based column, in characters.
    pub column: u32,
    /// The node's number, unique within one kernel.
    pub node: u32,
}

impl Pos {
    /// The position of node `node`, at `line` and `column`.
    pub const fn at(line: u32, column: u32, node: u32) -> Self {
        Pos { line, column, node }
    }
}
