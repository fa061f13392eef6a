//! Names of a CTA's tiles in reports: the `#[shared]` field (and stage) a tile storage
//! belongs to.

use crate::dsl::SmemField;

/// The tiles of one CTA's on-chip buffers, by the ordinal of their storage.
#[derive(Clone, Copy, Debug)]
pub(super) struct TileNames {
    /// The `#[shared]` struct's fields, in declaration order.
    pub fields: &'static [SmemField],
    /// The ordinal of the buffers' first storage.
    pub base: usize,
}

impl TileNames {
    /// The tile with storage ordinal `key`, in words ("shared tile `a` (stage 2)",
    /// "tensor-memory tile `acc`"), or `None` when it is not one of the fields' tiles.
    pub fn describe(&self, key: usize) -> Option<String> {
        let mut offset = key.checked_sub(self.base)?;
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
        let names = TileNames { fields: FIELDS, base: 10 };
        assert_eq!(names.describe(11).as_deref(), Some("shared tile `a` (stage 1)"));
        assert_eq!(names.describe(14).as_deref(), Some("shared tile `q[1]`"));
        assert_eq!(names.describe(15).as_deref(), Some("tensor-memory tile `acc`"));
        assert_eq!((names.describe(9), names.describe(16)), (None, None));
    }
}
