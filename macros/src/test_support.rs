//! Kernels for the unit tests: every `#[kernel]` module of the workspace's examples, runtime
//! tests and compile-pass cases, found by walking the source tree, including kernels stamped
//! out by `macro_rules!` (instantiated with placeholder arguments).

use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::{Item, ItemMod};

/// A kernel found in a source file.
pub struct Found {
    /// `file: module`.
    pub name: String,
    /// The `#[kernel(..)]` arguments.
    pub attr: TokenStream,
    /// The module, without its `#[kernel]` attribute.
    pub item: TokenStream,
}

/// The workspace root (the parent of this crate).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from(".."), Path::to_path_buf)
}

/// `.rs` files under `dir`, sorted, recursively.
pub fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(sources(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// Every kernel in the examples, the runtime's tests and the ui pass cases.
pub fn workspace_kernels() -> Vec<Found> {
    let root = root();
    let mut files = sources(&root.join("examples"));
    files.extend(sources(&root.join("runtime/tests")));
    files.extend(sources(&root.join("tests/ui/pass")));
    files.iter().flat_map(|f| kernels_in_file(f)).collect()
}

/// The kernels of one file.
pub fn kernels_in_file(path: &Path) -> Vec<Found> {
    let Ok(text) = std::fs::read_to_string(path) else { return Vec::new() };
    let label = path.strip_prefix(root()).unwrap_or(path).display().to_string();
    kernels_in(&text, &label)
}

/// The kernels of a source text.
pub fn kernels_in(text: &str, label: &str) -> Vec<Found> {
    let Ok(file) = syn::parse_file(text) else { return Vec::new() };
    let mut out = Vec::new();
    collect(&file.items, label, &mut out);
    out
}

fn collect(items: &[Item], label: &str, out: &mut Vec<Found>) {
    for item in items {
        match item {
            Item::Mod(m) => {
                if let Some(found) = kernel(m, label) {
                    out.push(found);
                } else if let Some((_, inner)) = &m.content {
                    collect(inner, label, out);
                }
            }
            Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                for body in instantiate(&m.mac.tokens) {
                    if let Ok(file) = syn::parse_str::<syn::File>(&body) {
                        collect(&file.items, label, out);
                    }
                }
            }
            _ => {}
        }
    }
}

fn kernel(m: &ItemMod, label: &str) -> Option<Found> {
    let attr = m.attrs.iter().find(|a| a.path().segments.last().is_some_and(|s| s.ident == "kernel"))?;
    let args = match &attr.meta {
        syn::Meta::List(l) => l.tokens.clone(),
        _ => TokenStream::new(),
    };
    let mut module = m.clone();
    module.attrs.retain(|a| a.path().segments.last().is_none_or(|s| s.ident != "kernel"));
    Some(Found { name: format!("{label}: {}", m.ident), attr: args, item: module.into_token_stream() })
}

/// The bodies of a `macro_rules!` definition's rules, with each `$fragment` replaced by a
/// placeholder of its kind.
fn instantiate(tokens: &TokenStream) -> Vec<String> {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < trees.len() {
        if let (Some(TokenTree::Group(pattern)), Some(TokenTree::Group(body))) = (trees.get(i), trees.get(i + 3)) {
            let mut text = body.stream().to_string();
            let pattern: Vec<TokenTree> = pattern.stream().into_iter().collect();
            for w in pattern.windows(4) {
                if let [TokenTree::Punct(d), TokenTree::Ident(name), TokenTree::Punct(_), TokenTree::Ident(kind)] = w
                    && d.as_char() == '$'
                {
                    let value = match kind.to_string().as_str() {
                        "ident" => "k",
                        "ty" => "bf16",
                        "literal" => "64",
                        _ => "1",
                    };
                    text = text.replace(&format!("$ {name}"), value);
                }
            }
            out.push(text);
            i += 4;
        } else {
            i += 1;
        }
    }
    out
}
