//! The arguments of `#[kernel(..)]`: `unchecked`, and the cluster shape
//! `cluster = [x, y, z]`.

use proc_macro2::TokenStream;
use syn::punctuated::Punctuated;
use syn::{Expr, Meta, Token};
use warpspec_hw::ClusterShape;

use crate::errors::{Errors, Loc};

/// What `#[kernel(..)]` was given.
#[derive(Default)]
pub struct KernelAttr {
    /// `unchecked`: skip the whole-kernel protocol checks.
    pub unchecked: bool,
    /// `cluster = [x, y, z]`, checked, with where it is written.
    pub cluster: Option<(ClusterShape, Loc)>,
}

/// The help shown for arguments `#[kernel]` does not know.
const EXPECTED: &str = "#[kernel] takes `cluster = [x, y, z]` (CTAs per thread-block cluster) and `unchecked` (skips the whole-kernel protocol checks, for kernels that demonstrate the emulator's own deadlock reports)";

/// Parses the attribute's arguments, recording problems in `errors`.
pub fn parse(attr: TokenStream, errors: &Errors) -> KernelAttr {
    let mut out = KernelAttr::default();
    if attr.is_empty() {
        return out;
    }
    let metas = match syn::parse::Parser::parse2(Punctuated::<Meta, Token![,]>::parse_terminated, attr.clone()) {
        Ok(m) => m,
        Err(_) => {
            errors.at(&attr, EXPECTED);
            return out;
        }
    };
    for meta in metas {
        match &meta {
            Meta::Path(p) if p.is_ident("unchecked") => out.unchecked = true,
            Meta::NameValue(nv) if nv.path.is_ident("cluster") => {
                if let Some(shape) = cluster(&nv.value, errors) {
                    out.cluster = Some((shape, Loc::of(&nv.value)));
                }
            }
            other => errors.at(other, EXPECTED),
        }
    }
    out
}

/// `[x, y, z]` as a checked cluster shape.
fn cluster(value: &Expr, errors: &Errors) -> Option<ClusterShape> {
    let dims: Option<Vec<u32>> = match value {
        Expr::Array(a) => a
            .elems
            .iter()
            .map(|e| match e {
                Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse().ok(),
                _ => None,
            })
            .collect(),
        _ => None,
    };
    let Some(dims) = dims.filter(|d| d.len() == 3) else {
        errors.at(
            value,
            "`cluster` takes the CTAs of a cluster along x, y and z as integer literals: `cluster = [2, 1, 1]`",
        );
        return None;
    };
    match ClusterShape::new([dims[0], dims[1], dims[2]]) {
        Ok(shape) => Some(shape),
        Err(e) => {
            errors.at(value, format!("{e}; e.g. `cluster = [2, 1, 1]`"));
            None
        }
    }
}
