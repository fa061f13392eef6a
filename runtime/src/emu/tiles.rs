//! Names of a CTA's tiles in reports: the `#[shared]` field (and stage) a tile storage
//! belongs to.

use crate::dsl::SmemField;

/// The tiles of the on-chip buffers of one CTA, or of the CTAs of a cluster allocated one
/// after the other (rank 0's first), by the ordinal of their storage.
#[derive(Clone, Copy, Debug)]
pub(super) struct TileNames {
    /// The `#[shared]` struct's fields, in declaration order.
    pub fields: &'static [SmemField],
    /// The ordinal of the buffers' first storage.
    pub base: usize,
    /// Whether the buffers are a cluster's (names then carry the CTA's rank).
    pub clustered: bool,
}

impl TileNames {
    /// Storages of one CTA's buffers.
    fn per_cta(&self) -> usize {
        self.fields.iter().map(|f| f.cells).sum::<usize>().max(1)
    }

    /// The rank of the CTA whose buffers hold the storage of ordinal `key`.
    pub fn rank_of(&self, key: usize) -> u32 {
        (key.saturating_sub(self.base) / self.per_cta()) as u32
    }

    /// The tile with storage ordinal `key`, in words ("shared tile `a` (stage 2)",
    /// "tensor-memory tile `acc`", "shared tile `b` (stage 1) of CTA rank 1"), or `None`
    /// when it is not one of the fields' tiles.
    pub fn describe(&self, key: usize) -> Option<String> {
        let name = self.describe_local(key.checked_sub(self.base)? % self.per_cta())?;
        Some(if self.clustered { format!("{name} of CTA rank {}", self.rank_of(key)) } else { name })
    }

    /// The tile at `offset` among one CTA's storages.
    fn describe_local(&self, mut offset: usize) -> Option<String> {
        for field in self.fields {
            if offset < field.cells {
                let memory = if field.tmem { "tensor-memory" } else { "shared" };
                return Some(format!("{memory} tile {}", field.describe(offset)));
            }
            offset -= field.cells;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dsl::{Ring, Tile, TmemTile};

    #[test]
    fn ordinals_map_to_fields_and_stages() {
        const FIELDS: &[SmemField] = &[
            SmemField::of::<Ring<Tile<f32, 8, 8>, 3>>("a"),
            SmemField::of::<[Tile<f32, 8, 8>; 2]>("q"),
            SmemField::of::<TmemTile<128, 16>>("acc"),
        ];
        let names = TileNames { fields: FIELDS, base: 10, clustered: false };
        assert_eq!(names.describe(11).as_deref(), Some("shared tile `a` (stage 1)"));
        assert_eq!(names.describe(14).as_deref(), Some("shared tile `q[1]`"));
        assert_eq!(names.describe(15).as_deref(), Some("tensor-memory tile `acc`"));
        assert_eq!(names.describe(9), None);
        let cluster = TileNames { clustered: true, ..names };
        assert_eq!(cluster.describe(17).as_deref(), Some("shared tile `a` (stage 1) of CTA rank 1"));
        assert_eq!((cluster.rank_of(15), cluster.rank_of(16)), (0, 1));
    }
}
