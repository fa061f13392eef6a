//! Ties the operation catalogue of `warpspec-ir` to this module's source: every public
//! method of a type a kernel body calls operations on is declared there, with its operands
//! named as here, and every declared operation still exists here.

use std::collections::BTreeMap;

use warpspec_ir::{Op, Receiver};

/// Types with inherent methods that are not kernel operations: host-side construction and
/// inspection, specs the macro generates, and internals.
const HOST_TYPES: [&str; 15] = [
    "Assume",      // how shape-only runs decide a vote: a value passed to one
    "Cta",         // `__ctx`, called by generated code
    "DType",       // element format facts
    "Fragment",    // host reads of results
    "RowVec",      // host reads of results
    "Global",      // host-side tensors (launch arguments)
    "RoleSpec",    // generated spec
    "KernelSpec",  // generated spec
    "AccessKind",  // backend events
    "PipeState",   // ring arithmetic behind the endpoints
    "WaitFor",     // the future behind waits
    "TokenOwner",  // token bookkeeping
    "TileCell",    // tile storage
    "StorageView", // operand storage
    "SmemField",   // generated field table
];

/// The DSL sources, by file name.
fn sources() -> Vec<(&'static str, &'static str)> {
    vec![
        ("ctx.rs", include_str!("ctx.rs")),
        ("ctx/math.rs", include_str!("ctx/math.rs")),
        ("ctx/store.rs", include_str!("ctx/store.rs")),
        ("element.rs", include_str!("element.rs")),
        ("fragment.rs", include_str!("fragment.rs")),
        ("softexp.rs", include_str!("softexp.rs")),
        ("global.rs", include_str!("global.rs")),
        ("kernel.rs", include_str!("kernel.rs")),
        ("ops.rs", include_str!("ops.rs")),
        ("sync.rs", include_str!("sync.rs")),
        ("tile.rs", include_str!("tile.rs")),
    ]
}

/// The type an inherent `impl` header names (`None` for a trait impl).
fn impl_type(header: &str) -> Option<String> {
    let rest = header.strip_prefix("impl")?;
    let mut depth = 0i32;
    let mut start = None;
    for (i, c) in rest.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            c if depth == 0 && (c.is_alphanumeric() || c == '_') => {
                start = Some(i);
                break;
            }
            _ => {}
        }
    }
    let tail = &rest[start?..];
    let name: String = tail.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
    let after = &tail[name.len()..];
    // `impl<..> Trait<..> for Type`: not inherent.
    if after.contains(" for ") {
        return None;
    }
    Some(name)
}

/// The parameter names of a signature starting at `text` (after the method's name),
/// without the receiver.
fn params(text: &str) -> Vec<String> {
    let Some(open) = text.find('(') else { return Vec::new() };
    let text = text[open + 1..].replace("->", "  ");
    let mut depth = 0i32;
    let mut parts = Vec::new();
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' if depth > 0 => depth -= 1,
            ')' => break,
            ',' if depth == 0 => {
                parts.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    parts.push(current);
    parts
        .iter()
        .map(|p| p.trim())
        .filter(|p| !p.is_empty() && !p.ends_with("self"))
        .filter_map(|p| p.split(':').next())
        .map(|n| n.trim().trim_start_matches("mut ").to_string())
        .collect()
}

/// Every public method of every inherent impl in the DSL: (type, method) to parameters.
fn public_methods() -> BTreeMap<(String, String), Vec<String>> {
    let mut out = BTreeMap::new();
    for (file, text) in sources() {
        let lines: Vec<&str> = text.lines().collect();
        let mut ty: Option<String> = None;
        for (i, line) in lines.iter().enumerate() {
            if line.starts_with("impl") {
                ty = impl_type(line);
                continue;
            }
            if *line == "}" {
                ty = None;
                continue;
            }
            let Some(ty) = &ty else { continue };
            let trimmed = line.trim_start();
            let Some(sig) = trimmed.strip_prefix("pub fn ").or_else(|| trimmed.strip_prefix("pub const fn ")) else {
                continue;
            };
            if line.len() - trimmed.len() != 4 {
                continue;
            }
            let name: String = sig.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if name.starts_with("__") {
                continue; // hooks for generated code
            }
            let signature: String = lines[i..].iter().take(12).copied().collect::<Vec<_>>().join(" ");
            let at = signature.find(&format!("fn {name}")).map_or(0, |p| p + 3 + name.len());
            let previous = out.insert((ty.clone(), name.clone()), params(&signature[at..]));
            assert!(previous.is_none(), "{file}: {ty}::{name} found twice");
        }
    }
    out
}

#[test]
fn every_public_dsl_method_is_classified() {
    let methods = public_methods();
    let receivers: Vec<&str> = Receiver::ALL.iter().map(|r| r.type_name()).collect();
    for ((ty, name), params) in &methods {
        if HOST_TYPES.contains(&ty.as_str()) {
            continue;
        }
        assert!(
            receivers.contains(&ty.as_str()),
            "`{ty}` has public methods but is neither a receiver of the operation catalogue (warpspec-ir) nor listed as host-side here"
        );
        let receiver = Receiver::ALL.iter().copied().find(|r| r.type_name() == ty).expect("a receiver");
        let Some(op) = Op::find(receiver, name) else {
            panic!(
                "`{ty}::{name}` is a public DSL method missing from the operation catalogue in warpspec-ir/src/ops.rs"
            )
        };
        let declared: Vec<&str> = op.spec().operands.iter().map(|o| o.name).collect();
        assert_eq!(declared, *params, "operands of `{ty}::{name}` in the catalogue differ from its signature");
    }
    for op in Op::ALL {
        let key = (op.receiver().type_name().to_string(), op.name().to_string());
        assert!(
            methods.contains_key(&key),
            "the catalogue declares `{}::{}`, which the DSL does not have",
            key.0,
            key.1
        );
    }
    for ty in &HOST_TYPES {
        assert!(
            sources().iter().any(|(_, text)| text.lines().any(|l| impl_type(l).as_deref() == Some(ty))),
            "`{ty}` is listed here but has no inherent impl any more"
        );
    }
}

#[test]
fn ctx_has_the_48_documented_operations() {
    let ctx = public_methods().keys().filter(|(ty, _)| ty == "Ctx").count();
    assert_eq!(ctx, 48);
    assert_eq!(Op::ALL.iter().filter(|op| op.receiver() == Receiver::Ctx).count(), 48);
}

#[test]
fn the_scanner_reads_signatures() {
    assert_eq!(impl_type("impl<'a, P: Pipeline> Producer<'a, P> {").as_deref(), Some("Producer"));
    assert_eq!(impl_type("impl<P: Pipeline> Drop for Slot<'_, P> {"), None);
    let sig =
        "mask<const R: usize>(&self, frag: &mut Fragment<R, C>, value: f32, keep: impl Fn(usize, usize) -> bool) {";
    assert_eq!(params(sig), ["frag", "value", "keep"]);
    assert_eq!(params("instance(&self) -> usize {"), Vec::<String>::new());
}
