//! The configurations of the sweep, read from `split.csv` (written once by `make_split.py`
//! and committed before any fitting).

use std::fmt;

use warpspec::dsl::DType;
use warpspec_examples::attention::Problem;
use warpspec_examples::attention::hopper::Variant as Fa3Variant;

use crate::table::Table;

/// Which set a configuration belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Set {
    /// Coefficients may be fitted on it.
    Calibration,
    /// Only ever predicted and compared.
    Heldout,
}

impl Set {
    /// The name in the CSV.
    pub fn name(self) -> &'static str {
        match self {
            Set::Calibration => "calibration",
            Set::Heldout => "heldout",
        }
    }
}

/// What a configuration runs.
#[derive(Clone, Debug, PartialEq)]
pub enum Work {
    /// A GEMM `m x n x k` (bf16 in, f32 out).
    Gemm {
        /// Rows of A and C.
        m: usize,
        /// Columns of B and C.
        n: usize,
        /// Depth.
        k: usize,
        /// Output tile rows.
        bm: usize,
        /// Output tile columns.
        bn: usize,
        /// The trade-off schedule (`ws`, `v1`, `v2`, `v1+bar.sync`, `v2+bar.sync`).
        variant: String,
    },
    /// An attention forward problem with an FA3 ablation (`None`: the non-specialized kernel).
    Attention {
        /// The problem.
        problem: Problem,
        /// The schedule.
        variant: Option<Fa3Variant>,
    },
}

/// One row of the split.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    /// Row id.
    pub id: usize,
    /// `ws_gemm`, `tradeoff` or `fa3`.
    pub family: String,
    /// The stamped kernel's name.
    pub kernel: String,
    /// Its variant column, as written.
    pub variant: String,
    /// The set.
    pub set: Set,
    /// What it runs.
    pub work: Work,
}

impl Config {
    /// Floating-point operations of one launch (2 m n k; attention 4 b h s² d, halved causal).
    pub fn flops(&self) -> f64 {
        match &self.work {
            Work::Gemm { m, n, k, .. } => 2.0 * (*m as f64) * (*n as f64) * (*k as f64),
            Work::Attention { problem, .. } => problem.flops(),
        }
    }

    /// The problem shape as one word: `8192x8192x1024`, `b4h16s4096d128c`.
    pub fn shape(&self) -> String {
        match &self.work {
            Work::Gemm { m, n, k, .. } => format!("{m}x{n}x{k}"),
            Work::Attention { problem: p, .. } => {
                format!("b{}h{}s{}d{}{}", p.batch, p.heads, p.seq, p.head_dim, if p.causal { "c" } else { "" })
            }
        }
    }
}

impl fmt::Display for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{} {} {} {} ({})", self.id, self.kernel, self.variant, self.shape(), self.set.name())
    }
}

fn fa3_variant(name: &str) -> Result<Option<Fa3Variant>, String> {
    Ok(match name {
        "pingpong+overlap" => Some(Fa3Variant::FULL),
        "overlap" => Some(Fa3Variant { pingpong: false, overlap: true }),
        "pingpong" => Some(Fa3Variant { pingpong: true, overlap: false }),
        "none" => Some(Fa3Variant { pingpong: false, overlap: false }),
        "nonspecialized" => None,
        other => return Err(format!("unknown FA3 variant {other:?}")),
    })
}

/// Parses `split.csv`.
pub fn parse(text: &str) -> Result<Vec<Config>, String> {
    let table = Table::parse(text)?;
    let mut out = Vec::new();
    for row in 0..table.len() {
        let get = |col: &str| table.get(row, col).unwrap_or("");
        let num = |col: &str| -> Result<usize, String> {
            get(col).parse().map_err(|_| format!("split row {row}: column {col} is {:?}, not a number", get(col)))
        };
        let family = get("family").to_string();
        let variant = get("variant").to_string();
        let work = match family.as_str() {
            "ws_gemm" | "tradeoff" | "cluster_gemm" => {
                let (bm, bn) = get("tile")
                    .split_once('x')
                    .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
                    .ok_or_else(|| format!("split row {row}: tile {:?}", get("tile")))?;
                Work::Gemm { m: num("m")?, n: num("n")?, k: num("k")?, bm, bn, variant: variant.clone() }
            }
            "fa3" => Work::Attention {
                problem: Problem {
                    batch: num("batch")?,
                    heads: num("heads")?,
                    seq: num("seq")?,
                    head_dim: num("d")?,
                    causal: num("causal")? != 0,
                    dtype: DType::Bf16,
                },
                variant: fa3_variant(&variant)?,
            },
            other => return Err(format!("split row {row}: unknown family {other:?}")),
        };
        let set = match get("set") {
            "calibration" => Set::Calibration,
            "heldout" => Set::Heldout,
            other => return Err(format!("split row {row}: unknown set {other:?}")),
        };
        out.push(Config { id: num("id")?, family, kernel: get("kernel").to_string(), variant, set, work });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_committed_split_parses_and_holds_out_new_shapes() {
        let configs = parse(include_str!("../split.csv")).unwrap();
        assert!(configs.len() >= 60, "{}", configs.len());
        let shapes = |set| -> std::collections::BTreeSet<String> {
            configs.iter().filter(|c| c.set == set).map(Config::shape).collect()
        };
        let (cal, held) = (shapes(Set::Calibration), shapes(Set::Heldout));
        assert!(held.iter().any(|s| !cal.contains(s)), "no held-out shape is new");
        assert!(held.contains("6144x6144x6144") && !cal.contains("6144x6144x6144"));
        for (i, c) in configs.iter().enumerate() {
            assert_eq!(c.id, i);
        }
        let gemm = configs.iter().find(|c| c.kernel == "ws_gemm_128x256_p4").unwrap();
        assert_eq!(gemm.flops(), 2.0 * 8192f64.powi(3));
        assert!(configs.iter().any(|c| matches!(c.work, Work::Attention { variant: None, .. })));
    }

    #[test]
    fn bad_rows_are_errors() {
        let head = "id,family,kernel,tile,stages,bk,m,n,k,batch,heads,seq,d,causal,variant,set\n";
        let e = parse(&format!("{head}0,ws_gemm,k,128x128,2,64,x,1,1,,,,,,ws,calibration\n")).unwrap_err();
        assert!(e.contains("column m"), "{e}");
        let e = parse(&format!("{head}0,blas,k,128x128,2,64,1,1,1,,,,,,ws,calibration\n")).unwrap_err();
        assert!(e.contains("unknown family"), "{e}");
    }
}
