//! Lowering of blocks, statements, patterns, types, paths and literals.

use warpspec_ir::{Block, Generic, Lit, Local, Member, Pat, PatKind, Path, Receiver, Segment, Stmt, StmtKind, Ty};

use super::Lowerer;

impl<'a> Lowerer<'a, '_> {
    /// A block, in a scope of its own.
    pub(super) fn block(&mut self, b: &'a syn::Block) -> Block {
        let pos = self.pos(b);
        let close = self.sources.span(b.brace_token.span.close());
        let stmts = self.scoped(|l| b.stmts.iter().filter_map(|s| l.stmt(s)).collect());
        Block { pos, close, stmts }
    }

    /// A statement (`None` for an item, which is reported).
    fn stmt(&mut self, s: &'a syn::Stmt) -> Option<Stmt> {
        let pos = self.pos(s);
        let kind = match s {
            syn::Stmt::Local(l) => {
                let init = l.init.as_ref().map(|i| self.expr(&i.expr));
                let diverge = l.init.as_ref().and_then(|i| i.diverge.as_ref()).map(|(_, e)| self.expr(e));
                let pat = self.pat(&l.pat);
                // A plain name takes the DSL type of its annotation or its value.
                let kind = match &pat.kind {
                    PatKind::Typed { ty, .. } => super::receiver_of(ty),
                    _ => init.as_ref().and_then(|e| self.kind_of(e)),
                };
                self.bind(&pat, kind);
                StmtKind::Let(Box::new(Local { pat, init, diverge }))
            }
            syn::Stmt::Expr(e, semi) => StmtKind::Expr { expr: self.expr(e), semi: semi.is_some() },
            syn::Stmt::Macro(m) => StmtKind::Macro(self.mac(&m.mac)),
            syn::Stmt::Item(item) => {
                self.unsupported(item, "an item", "declare functions, constants and types at the module's top level");
                return None;
            }
        };
        Some(Stmt { pos, kind })
    }

    /// Brings the names `pat` binds into scope: a plain name with DSL type `kind`, any
    /// other name with none.
    pub(super) fn bind(&mut self, pat: &Pat, kind: Option<Receiver>) {
        match &pat.kind {
            PatKind::Ident { name, sub, .. } => {
                if let Some(sub) = sub {
                    self.bind(sub, None);
                }
                self.scope.push((name.clone(), kind));
            }
            PatKind::Typed { pat, .. } => self.bind(pat, kind),
            PatKind::Tuple(ps) | PatKind::Slice(ps) | PatKind::Or(ps) | PatKind::TupleStruct { elems: ps, .. } => {
                ps.iter().for_each(|p| self.bind(p, None));
            }
            PatKind::Struct { fields, .. } => fields.iter().for_each(|(_, p)| self.bind(p, None)),
            PatKind::Ref(p) => self.bind(p, None),
            PatKind::Wild | PatKind::Rest | PatKind::Lit(_) | PatKind::Path(_) => {}
        }
    }

    /// A pattern.
    pub(super) fn pat(&mut self, p: &'a syn::Pat) -> Pat {
        if let syn::Pat::Paren(inner) = p {
            return self.pat(&inner.pat);
        }
        let pos = self.pos(p);
        let kind = match p {
            syn::Pat::Wild(_) => PatKind::Wild,
            syn::Pat::Rest(_) => PatKind::Rest,
            syn::Pat::Ident(i) => PatKind::Ident {
                name: i.ident.to_string(),
                mutable: i.mutability.is_some(),
                by_ref: i.by_ref.is_some(),
                sub: i.subpat.as_ref().map(|(_, s)| Box::new(self.pat(s))),
            },
            syn::Pat::Lit(l) => match self.lit(&l.lit) {
                Some(lit) => PatKind::Lit(lit),
                None => PatKind::Wild,
            },
            syn::Pat::Path(path) if path.qself.is_none() => PatKind::Path(self.path(&path.path)),
            syn::Pat::Tuple(t) => PatKind::Tuple(t.elems.iter().map(|p| self.pat(p)).collect()),
            syn::Pat::Slice(s) => PatKind::Slice(s.elems.iter().map(|p| self.pat(p)).collect()),
            syn::Pat::TupleStruct(t) if t.qself.is_none() => {
                PatKind::TupleStruct { path: self.path(&t.path), elems: t.elems.iter().map(|p| self.pat(p)).collect() }
            }
            syn::Pat::Struct(s) if s.qself.is_none() => PatKind::Struct {
                path: self.path(&s.path),
                fields: s.fields.iter().map(|f| (member(&f.member), self.pat(&f.pat))).collect(),
            },
            syn::Pat::Type(t) => PatKind::Typed { pat: Box::new(self.pat(&t.pat)), ty: self.ty(&t.ty) },
            syn::Pat::Reference(r) => PatKind::Ref(Box::new(self.pat(&r.pat))),
            syn::Pat::Or(o) => PatKind::Or(o.cases.iter().map(|p| self.pat(p)).collect()),
            other => {
                self.unsupported(
                    other,
                    "this pattern",
                    "patterns are names, `_`, `..`, literals, paths, tuples, slices, structs, references and `|`",
                );
                PatKind::Wild
            }
        };
        Pat { pos, kind }
    }

    /// A type.
    pub(super) fn ty(&mut self, t: &'a syn::Type) -> Ty {
        match t {
            syn::Type::Group(g) => self.ty(&g.elem),
            syn::Type::Paren(p) => self.ty(&p.elem),
            syn::Type::Path(p) if p.qself.is_none() => Ty::Path(self.path(&p.path)),
            syn::Type::Reference(r) => Ty::Ref { mutable: r.mutability.is_some(), elem: Box::new(self.ty(&r.elem)) },
            syn::Type::Tuple(t) => Ty::Tuple(t.elems.iter().map(|t| self.ty(t)).collect()),
            syn::Type::Array(a) => Ty::Array { elem: Box::new(self.ty(&a.elem)), len: Box::new(self.expr(&a.len)) },
            syn::Type::Slice(s) => Ty::Slice(Box::new(self.ty(&s.elem))),
            syn::Type::Infer(_) => Ty::Infer,
            syn::Type::Never(_) => Ty::Never,
            other => {
                self.unsupported(
                    other,
                    "this type",
                    "types are named types with generic arguments, references, tuples, arrays and slices",
                );
                Ty::Infer
            }
        }
    }

    /// A path (without a `<T as Trait>::` qualifier).
    pub(super) fn path(&mut self, p: &'a syn::Path) -> Path {
        let segments = p
            .segments
            .iter()
            .map(|s| {
                let generics = match &s.arguments {
                    syn::PathArguments::None => Vec::new(),
                    syn::PathArguments::AngleBracketed(a) => self.generics(a),
                    syn::PathArguments::Parenthesized(p) => {
                        self.unsupported(p, "a `Fn(..)` bound", "name the type instead");
                        Vec::new()
                    }
                };
                Segment { name: s.ident.to_string(), generics }
            })
            .collect();
        Path { global: p.leading_colon.is_some(), segments }
    }

    /// The generic arguments of a path segment or a method call.
    pub(super) fn generics(&mut self, a: &'a syn::AngleBracketedGenericArguments) -> Vec<Generic> {
        a.args
            .iter()
            .filter_map(|arg| match arg {
                syn::GenericArgument::Lifetime(l) => Some(Generic::Lifetime(l.ident.to_string())),
                syn::GenericArgument::Type(t) => Some(Generic::Type(self.ty(t))),
                syn::GenericArgument::Const(e) => Some(Generic::Const(self.expr(e))),
                other => {
                    self.unsupported(
                        other,
                        "this generic argument",
                        "generic arguments are types, constants and lifetimes",
                    );
                    None
                }
            })
            .collect()
    }

    /// A literal (`None` for a kind kernels do not use, which is reported).
    pub(super) fn lit(&mut self, l: &'a syn::Lit) -> Option<Lit> {
        Some(match l {
            syn::Lit::Int(i) => Lit::Int { digits: i.base10_digits().to_string(), suffix: i.suffix().to_string() },
            syn::Lit::Float(f) => Lit::Float { digits: f.base10_digits().to_string(), suffix: f.suffix().to_string() },
            syn::Lit::Bool(b) => Lit::Bool(b.value),
            syn::Lit::Str(s) => Lit::Str(s.value()),
            syn::Lit::Char(c) => Lit::Char(c.value()),
            other => {
                self.unsupported(
                    other,
                    "this literal",
                    "literals are integers, floats, booleans, strings and characters",
                );
                return None;
            }
        })
    }
}

/// A struct or tuple field.
pub(super) fn member(m: &syn::Member) -> Member {
    match m {
        syn::Member::Named(n) => Member::Named(n.to_string()),
        syn::Member::Unnamed(i) => Member::Index(i.index),
    }
}
