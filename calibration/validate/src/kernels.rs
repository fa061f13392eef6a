//! The kernels of the sweep and the dispatch from a [`Config`] to one of them.
//!
//! `ws_gemm` is stamped here at every tile and stage count of the split with BK 64 (the
//! text of `examples/gemm_kernel.rs`, through its `ws_gemm_kernel!`); the trade-off
//! kernels, the cluster GEMM and the FA3 kernels are the examples' own (`cluster_gemm` is
//! `warpspec_examples::cluster_gemm`, launched over the persistent grid its `grid` sizes to
//! the clusters the launcher says fit: [`Launch::clusters`]). Both the model and the GPU launch
//! through [`Launch`], so a kernel that gains a CUDA rendering is measured with no change
//! here.

use warpspec::dsl::{Global, Kernel};
use warpspec::{Grid, bf16};
use warpspec_examples::attention::{Tensors, hopper};
use warpspec_examples::gemm_tradeoff::{self as t, TileShape};

use crate::split::{Config, Work};

/// Runs one launch of a kernel (on the model or on the GPU).
pub trait Launch {
    /// What a launch gives.
    type Output;
    /// Launches kernel `K` over `grid` with `params`.
    fn launch<K: Kernel>(&mut self, grid: Grid, params: &K::Params) -> Self::Output;
    /// Clusters of kernel `K` resident at once: the size of a persistent grid.
    fn clusters<K: Kernel>(&self) -> Result<usize, String>;
}

/// The tensors of a GEMM launch.
pub struct GemmTensors {
    /// `M x K`.
    pub a: Global<bf16>,
    /// `K x N`.
    pub b: Global<bf16>,
    /// `M x N`.
    pub c: Global<f32>,
}

impl GemmTensors {
    /// Tensors of an `m x n x k` GEMM with shapes and no data.
    pub fn shape_only(m: usize, n: usize, k: usize) -> Self {
        GemmTensors { a: Global::shape_only(&[m, k]), b: Global::shape_only(&[k, n]), c: Global::shape_only(&[m, n]) }
    }
}

/// Launches the kernel of `config` on tensors with shapes and no data (the model's
/// prediction, a compile).
pub fn launch_shape_only<L: Launch>(config: &Config, l: &mut L) -> Result<L::Output, String> {
    match &config.work {
        Work::Gemm { m, n, k, .. } => gemm(config, GemmTensors::shape_only(*m, *n, *k), l),
        Work::Attention { problem, .. } => attention(config, Tensors::shape_only(problem), l),
    }
}

macro_rules! stamps {
    ($($name:ident: $bm:literal x $bn:literal, $stages:literal;)*) => {
        $(warpspec_examples::gemm::ws_gemm_kernel!($name, bm = $bm, bn = $bn, stages = $stages, bk = 64);)*

        /// Names of the `ws_gemm` stamps.
        pub const WS_GEMM: &[&str] = &[$(stringify!($name)),*];

        fn ws_gemm<L: Launch>(kernel: &str, grid: Grid, t: GemmTensors, l: &mut L) -> Option<L::Output> {
            let GemmTensors { a, b, c } = t;
            match kernel {
                $(stringify!($name) => Some(l.launch::<$name::Kernel>(grid, &$name::Args { a, b, c })),)*
                _ => None,
            }
        }
    };
}

stamps! {
    ws_gemm_128x128_p2: 128 x 128, 2;
    ws_gemm_128x128_p3: 128 x 128, 3;
    ws_gemm_128x128_p4: 128 x 128, 4;
    ws_gemm_128x128_p5: 128 x 128, 5;
    ws_gemm_128x128_p6: 128 x 128, 6;
    ws_gemm_128x256_p2: 128 x 256, 2;
    ws_gemm_128x256_p3: 128 x 256, 3;
    ws_gemm_128x256_p4: 128 x 256, 4;
    ws_gemm_256x128_p2: 256 x 128, 2;
    ws_gemm_256x128_p3: 256 x 128, 3;
    ws_gemm_256x128_p4: 256 x 128, 4;
}

/// Launches the GEMM kernel of `config` on `t` (shapes from the tensors' extents).
pub fn gemm<L: Launch>(config: &Config, t: GemmTensors, l: &mut L) -> Result<L::Output, String> {
    let Work::Gemm { m, n, bm, bn, variant, .. } = &config.work else {
        return Err(format!("{config} is not a GEMM"));
    };
    if config.family == "cluster_gemm" {
        return cluster_gemm(config, t, l);
    }
    let grid = t::grid(TileShape { m: *bm, n: *bn }, *m, *n);
    if config.family == "ws_gemm" {
        return ws_gemm(&config.kernel, grid, t, l)
            .ok_or_else(|| format!("{config}: no such ws_gemm stamp; stamped: {}", WS_GEMM.join(", ")));
    }
    let GemmTensors { a, b, c } = t;
    let flat = |keep_one_in_flight, lockstep| t::flat_128x256_p4::Args {
        a: a.clone(),
        b: b.clone(),
        c: c.clone(),
        keep_one_in_flight,
        lockstep,
    };
    match (config.kernel.as_str(), variant.as_str()) {
        ("ws_128x256_p4", "ws") => Ok(l.launch::<t::ws_128x256_p4::Kernel>(grid, &t::ws_128x256_p4::Args { a, b, c })),
        ("flat_128x256_p4", "v1") => Ok(l.launch::<t::flat_128x256_p4::Kernel>(grid, &flat(false, false))),
        ("flat_128x256_p4", "v2") => Ok(l.launch::<t::flat_128x256_p4::Kernel>(grid, &flat(true, false))),
        ("flat_128x256_p4", "v1+bar.sync") => Ok(l.launch::<t::flat_128x256_p4::Kernel>(grid, &flat(false, true))),
        ("flat_128x256_p4", "v2+bar.sync") => Ok(l.launch::<t::flat_128x256_p4::Kernel>(grid, &flat(true, true))),
        _ => Err(format!("{config}: no trade-off kernel of that name and schedule")),
    }
}

/// Launches the cluster GEMM (bf16 C: a C of the sweep's `f32` tensors is replaced by a bf16
/// one of its shape, with data when the sweep's has data).
fn cluster_gemm<L: Launch>(config: &Config, t: GemmTensors, l: &mut L) -> Result<L::Output, String> {
    use warpspec_examples::cluster_gemm::{cluster_gemm as k, grid};
    let GemmTensors { a, b, c } = t;
    let (m, n) = (c.shape()[0], c.shape()[1]);
    let c = if c.has_data() { Global::zeros(&[m, n]) } else { Global::shape_only(&[m, n]) };
    let clusters = l.clusters::<k::Kernel>()?;
    let grid = grid(m, n, clusters).map_err(|e| format!("{config}: {e}"))?;
    Ok(l.launch::<k::Kernel>(grid, &k::Args { a, b, c }))
}

/// Launches the attention kernel of `config` on `t`.
pub fn attention<L: Launch>(config: &Config, t: Tensors<bf16>, l: &mut L) -> Result<L::Output, String> {
    let Work::Attention { problem, variant } = &config.work else {
        return Err(format!("{config} is not attention"));
    };
    let grid = hopper::grid(problem);
    Ok(match (problem.head_dim, variant) {
        (64, Some(v)) => l.launch::<hopper::fa3_bf16_d64::Kernel>(grid, &hopper::fa3_bf16_d64::args(problem, t, *v)),
        (128, Some(v)) => l.launch::<hopper::fa3_bf16_d128::Kernel>(grid, &hopper::fa3_bf16_d128::args(problem, t, *v)),
        (64, None) => l.launch::<hopper::flat_bf16_d64::Kernel>(grid, &hopper::flat_bf16_d64::args(problem, t)),
        (128, None) => l.launch::<hopper::flat_bf16_d128::Kernel>(grid, &hopper::flat_bf16_d128::args(problem, t)),
        (d, _) => return Err(format!("{config}: head dimension {d} has no kernel")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ws_gemm_row_of_the_split_has_a_stamp() {
        let configs = crate::split::parse(include_str!("../split.csv")).unwrap();
        for c in configs.iter().filter(|c| c.family == "ws_gemm") {
            assert!(WS_GEMM.contains(&c.kernel.as_str()), "{c}");
        }
        assert_eq!(WS_GEMM.len(), 11);
    }
}
