//! The kernel IR as Rust: an expression that builds a [`warpspec_ir::Kernel`] equal to the
//! one the macro lowered, for the expansion to embed (the runtime's backends read it).
//! Generated code names the IR's types (and `String`, `Box`, `Some`, `None`, `vec!`)
//! unqualified, inside a block that imports them, so no item of the kernel's module can
//! shadow them.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};
use warpspec_ir as ir;

/// A value the expansion can rebuild at run time.
pub trait Lift {
    /// An expression that evaluates to a value equal to `self`.
    fn lift(&self) -> TokenStream;
}

impl Lift for String {
    fn lift(&self) -> TokenStream {
        quote!(String::from(#self))
    }
}

impl Lift for bool {
    fn lift(&self) -> TokenStream {
        quote!(#self)
    }
}

impl Lift for char {
    fn lift(&self) -> TokenStream {
        quote!(#self)
    }
}

impl Lift for u32 {
    fn lift(&self) -> TokenStream {
        let l = Literal::u32_unsuffixed(*self);
        quote!(#l)
    }
}

impl Lift for i128 {
    fn lift(&self) -> TokenStream {
        let l = Literal::i128_unsuffixed(*self);
        quote!(#l)
    }
}

impl<T: Lift> Lift for Vec<T> {
    fn lift(&self) -> TokenStream {
        let items = self.iter().map(Lift::lift);
        quote!(vec![#(#items),*])
    }
}

impl<T: Lift> Lift for Option<T> {
    fn lift(&self) -> TokenStream {
        match self {
            Some(x) => {
                let x = x.lift();
                quote!(Some(#x))
            }
            None => quote!(None),
        }
    }
}

impl<T: Lift, const N: usize> Lift for [T; N] {
    fn lift(&self) -> TokenStream {
        let items = self.iter().map(Lift::lift);
        quote!([#(#items),*])
    }
}

impl<T: Lift> Lift for Box<T> {
    fn lift(&self) -> TokenStream {
        let x = (**self).lift();
        quote!(Box::new(#x))
    }
}

impl<A: Lift, B: Lift> Lift for (A, B) {
    fn lift(&self) -> TokenStream {
        let (a, b) = (self.0.lift(), self.1.lift());
        quote!((#a, #b))
    }
}

/// Implements [`Lift`] for IR structs, field by field.
macro_rules! lift_structs {
    ($($ty:ident { $($field:ident),* })*) => {$(
        impl Lift for ir::$ty {
            fn lift(&self) -> TokenStream {
                $(let $field = self.$field.lift();)*
                quote!($ty { $($field: #$field),* })
            }
        }
    )*};
}

lift_structs! {
    Path { global, segments }
    Segment { name, generics }
    Macro { path, args, idents }
    Arm { pat, guard, body }
    Expr { pos, kind }
    Block { pos, close, stmts }
    Stmt { pos, kind }
    Local { pat, init, diverge }
    Pat { pos, kind }
    Kernel { name, cluster, consts, params, shared, pipelines, barriers, named, roles, functions, wait_ld }
    WaitLd { role, load, arrive }
    Const { name, ty, value, evaluated }
    Field { name, ty }
    Pipeline { name, tma, producers, consumers, guards, stages, full_arrivals, empty_arrivals }
    Barrier { name, arrive, wait, count, len }
    NamedBarrier { name, roles, threads, id }
    Role { warps_per_instance, instances, regs, func }
    Function { pos, name, is_async, params, ret, body }
    Param { pat, ty }
}

impl Lift for ir::Pos {
    fn lift(&self) -> TokenStream {
        let (line, column, node) = (self.line.lift(), self.column.lift(), self.node.lift());
        quote!(Pos::at(#line, #column, #node))
    }
}

/// Implements [`Lift`] for field-less IR enums by their variants' names.
macro_rules! lift_unit_enums {
    ($($ty:ident)*) => {$(
        impl Lift for ir::$ty {
            fn lift(&self) -> TokenStream {
                let variant = format_ident!("{self:?}");
                quote!($ty::#variant)
            }
        }
    )*};
}

lift_unit_enums! { Op UnOp BinOp }

impl Lift for ir::Generic {
    fn lift(&self) -> TokenStream {
        match self {
            ir::Generic::Type(t) => {
                let t = t.lift();
                quote!(Generic::Type(#t))
            }
            ir::Generic::Const(e) => {
                let e = e.lift();
                quote!(Generic::Const(#e))
            }
            ir::Generic::Lifetime(l) => {
                let l = l.lift();
                quote!(Generic::Lifetime(#l))
            }
        }
    }
}

impl Lift for ir::Ty {
    fn lift(&self) -> TokenStream {
        match self {
            ir::Ty::Path(p) => {
                let p = p.lift();
                quote!(Ty::Path(#p))
            }
            ir::Ty::Ref { mutable, elem } => {
                let elem = elem.lift();
                quote!(Ty::Ref { mutable: #mutable, elem: #elem })
            }
            ir::Ty::Tuple(ts) => {
                let ts = ts.lift();
                quote!(Ty::Tuple(#ts))
            }
            ir::Ty::Array { elem, len } => {
                let (elem, len) = (elem.lift(), len.lift());
                quote!(Ty::Array { elem: #elem, len: #len })
            }
            ir::Ty::Slice(t) => {
                let t = t.lift();
                quote!(Ty::Slice(#t))
            }
            ir::Ty::Infer => quote!(Ty::Infer),
            ir::Ty::Never => quote!(Ty::Never),
        }
    }
}

impl Lift for ir::Lit {
    fn lift(&self) -> TokenStream {
        match self {
            ir::Lit::Int { digits, suffix } => {
                let (digits, suffix) = (digits.lift(), suffix.lift());
                quote!(Lit::Int { digits: #digits, suffix: #suffix })
            }
            ir::Lit::Float { digits, suffix } => {
                let (digits, suffix) = (digits.lift(), suffix.lift());
                quote!(Lit::Float { digits: #digits, suffix: #suffix })
            }
            ir::Lit::Bool(b) => quote!(Lit::Bool(#b)),
            ir::Lit::Str(s) => {
                let s = s.lift();
                quote!(Lit::Str(#s))
            }
            ir::Lit::Char(c) => quote!(Lit::Char(#c)),
        }
    }
}

impl Lift for ir::Member {
    fn lift(&self) -> TokenStream {
        match self {
            ir::Member::Named(n) => {
                let n = n.lift();
                quote!(Member::Named(#n))
            }
            ir::Member::Index(i) => {
                let i = i.lift();
                quote!(Member::Index(#i))
            }
        }
    }
}

impl Lift for ir::StmtKind {
    fn lift(&self) -> TokenStream {
        match self {
            ir::StmtKind::Let(l) => {
                let l = l.lift();
                quote!(StmtKind::Let(#l))
            }
            ir::StmtKind::Expr { expr, semi } => {
                let expr = expr.lift();
                quote!(StmtKind::Expr { expr: #expr, semi: #semi })
            }
            ir::StmtKind::Macro(m) => {
                let m = m.lift();
                quote!(StmtKind::Macro(#m))
            }
        }
    }
}

impl Lift for ir::PatKind {
    fn lift(&self) -> TokenStream {
        use ir::PatKind as P;
        match self {
            P::Wild => quote!(PatKind::Wild),
            P::Rest => quote!(PatKind::Rest),
            P::Ident { name, mutable, by_ref, sub } => {
                let (name, sub) = (name.lift(), sub.lift());
                quote!(PatKind::Ident { name: #name, mutable: #mutable, by_ref: #by_ref, sub: #sub })
            }
            P::Lit(l) => {
                let l = l.lift();
                quote!(PatKind::Lit(#l))
            }
            P::Path(p) => {
                let p = p.lift();
                quote!(PatKind::Path(#p))
            }
            P::Tuple(ps) => {
                let ps = ps.lift();
                quote!(PatKind::Tuple(#ps))
            }
            P::Slice(ps) => {
                let ps = ps.lift();
                quote!(PatKind::Slice(#ps))
            }
            P::Or(ps) => {
                let ps = ps.lift();
                quote!(PatKind::Or(#ps))
            }
            P::TupleStruct { path, elems } => {
                let (path, elems) = (path.lift(), elems.lift());
                quote!(PatKind::TupleStruct { path: #path, elems: #elems })
            }
            P::Struct { path, fields } => {
                let (path, fields) = (path.lift(), fields.lift());
                quote!(PatKind::Struct { path: #path, fields: #fields })
            }
            P::Typed { pat, ty } => {
                let (pat, ty) = (pat.lift(), ty.lift());
                quote!(PatKind::Typed { pat: #pat, ty: #ty })
            }
            P::Ref(p) => {
                let p = p.lift();
                quote!(PatKind::Ref(#p))
            }
        }
    }
}

impl Lift for ir::ExprKind {
    fn lift(&self) -> TokenStream {
        use ir::ExprKind as E;
        match self {
            E::Lit(l) => {
                let l = l.lift();
                quote!(ExprKind::Lit(#l))
            }
            E::Path(p) => {
                let p = p.lift();
                quote!(ExprKind::Path(#p))
            }
            E::Paren(x) => {
                let x = x.lift();
                quote!(ExprKind::Paren(#x))
            }
            E::Await(x) => {
                let x = x.lift();
                quote!(ExprKind::Await(#x))
            }
            E::Try(x) => {
                let x = x.lift();
                quote!(ExprKind::Try(#x))
            }
            E::Return(x) => {
                let x = x.lift();
                quote!(ExprKind::Return(#x))
            }
            E::Tuple(xs) => {
                let xs = xs.lift();
                quote!(ExprKind::Tuple(#xs))
            }
            E::Array(xs) => {
                let xs = xs.lift();
                quote!(ExprKind::Array(#xs))
            }
            E::Macro(m) => {
                let m = m.lift();
                quote!(ExprKind::Macro(#m))
            }
            E::Ref { mutable, expr } => {
                let expr = expr.lift();
                quote!(ExprKind::Ref { mutable: #mutable, expr: #expr })
            }
            E::Cast { expr, ty } => {
                let (expr, ty) = (expr.lift(), ty.lift());
                quote!(ExprKind::Cast { expr: #expr, ty: #ty })
            }
            E::Unary { op, expr } => {
                let (op, expr) = (op.lift(), expr.lift());
                quote!(ExprKind::Unary { op: #op, expr: #expr })
            }
            E::Binary { op, left, right } => {
                let (op, left, right) = (op.lift(), left.lift(), right.lift());
                quote!(ExprKind::Binary { op: #op, left: #left, right: #right })
            }
            E::AssignOp { op, left, right } => {
                let (op, left, right) = (op.lift(), left.lift(), right.lift());
                quote!(ExprKind::AssignOp { op: #op, left: #left, right: #right })
            }
            E::Assign { left, right } => {
                let (left, right) = (left.lift(), right.lift());
                quote!(ExprKind::Assign { left: #left, right: #right })
            }
            E::Block { label, block } => {
                let (label, block) = (label.lift(), block.lift());
                quote!(ExprKind::Block { label: #label, block: #block })
            }
            E::If { cond, then, els } => {
                let (cond, then, els) = (cond.lift(), then.lift(), els.lift());
                quote!(ExprKind::If { cond: #cond, then: #then, els: #els })
            }
            E::Match { scrutinee, arms } => {
                let (scrutinee, arms) = (scrutinee.lift(), arms.lift());
                quote!(ExprKind::Match { scrutinee: #scrutinee, arms: #arms })
            }
            E::For { label, pat, iter, body } => {
                let (label, pat, iter, body) = (label.lift(), pat.lift(), iter.lift(), body.lift());
                quote!(ExprKind::For { label: #label, pat: #pat, iter: #iter, body: #body })
            }
            E::While { label, cond, body } => {
                let (label, cond, body) = (label.lift(), cond.lift(), body.lift());
                quote!(ExprKind::While { label: #label, cond: #cond, body: #body })
            }
            E::Loop { label, body } => {
                let (label, body) = (label.lift(), body.lift());
                quote!(ExprKind::Loop { label: #label, body: #body })
            }
            E::Break { label, value } => {
                let (label, value) = (label.lift(), value.lift());
                quote!(ExprKind::Break { label: #label, value: #value })
            }
            E::Continue { label } => {
                let label = label.lift();
                quote!(ExprKind::Continue { label: #label })
            }
            E::Let { pat, expr } => {
                let (pat, expr) = (pat.lift(), expr.lift());
                quote!(ExprKind::Let { pat: #pat, expr: #expr })
            }
            E::Call { func, args } => {
                let (func, args) = (func.lift(), args.lift());
                quote!(ExprKind::Call { func: #func, args: #args })
            }
            E::Method { receiver, method, generics, args } => {
                let (receiver, method, generics, args) = (receiver.lift(), method.lift(), generics.lift(), args.lift());
                quote!(ExprKind::Method { receiver: #receiver, method: #method, generics: #generics, args: #args })
            }
            E::Op { op, receiver, generics, operands } => {
                let (op, receiver, generics, operands) = (op.lift(), receiver.lift(), generics.lift(), operands.lift());
                quote!(ExprKind::Op { op: #op, receiver: #receiver, generics: #generics, operands: #operands })
            }
            E::Closure { params, body } => {
                let (params, body) = (params.lift(), body.lift());
                quote!(ExprKind::Closure { params: #params, body: #body })
            }
            E::Repeat { value, len } => {
                let (value, len) = (value.lift(), len.lift());
                quote!(ExprKind::Repeat { value: #value, len: #len })
            }
            E::Struct { path, fields, rest } => {
                let (path, fields, rest) = (path.lift(), fields.lift(), rest.lift());
                quote!(ExprKind::Struct { path: #path, fields: #fields, rest: #rest })
            }
            E::Field { base, member } => {
                let (base, member) = (base.lift(), member.lift());
                quote!(ExprKind::Field { base: #base, member: #member })
            }
            E::Index { base, index } => {
                let (base, index) = (base.lift(), index.lift());
                quote!(ExprKind::Index { base: #base, index: #index })
            }
            E::Range { start, end, closed } => {
                let (start, end) = (start.lift(), end.lift());
                quote!(ExprKind::Range { start: #start, end: #end, closed: #closed })
            }
        }
    }
}

/// The items generated code builds the IR from, imported into the building block.
pub fn imports(private: &TokenStream) -> TokenStream {
    quote! {
        use ::std::boxed::Box;
        use ::std::option::Option::{None, Some};
        use ::std::string::String;
        use ::std::vec;
        #[allow(unused_imports)]
        use #private::ir::{
            Arm, Barrier, BinOp, Block, Const, Expr, ExprKind, Field, Function, Generic, Kernel, Lit, Local, Macro,
            Member, NamedBarrier, Op, Param, Pat, PatKind, Path, Pipeline, Pos, Role, Segment, Stmt, StmtKind, Ty,
            UnOp, WaitLd,
        };
    }
}

/// `impl Kernel { pub fn ir() }`: the kernel's IR, built once on first use.
pub fn ir_fn(kernel: &ir::Kernel, private: &TokenStream) -> TokenStream {
    let imports = imports(private);
    let built = kernel.lift();
    // Integer constants the macro could not evaluate (`super::BK`) take their value from
    // the compiled constant, so backends see every size.
    let fill: Vec<TokenStream> = kernel
        .consts
        .iter()
        .filter(|c| c.evaluated.is_none())
        .filter(|c| {
            matches!(c.ty.name(), Some("usize" | "u64" | "u32" | "u16" | "u8" | "isize" | "i64" | "i32" | "i16" | "i8"))
        })
        .map(|c| {
            let name = &c.name;
            let ident = quote::format_ident!("{}", name);
            quote! {
                if let Some(c) = k.consts.iter_mut().find(|c| c.name == #name) {
                    c.evaluated = Some(#ident as i128);
                }
            }
        })
        .collect();
    let built = if fill.is_empty() {
        built
    } else {
        quote! {{
            let mut k = #built;
            #(#fill)*
            k
        }}
    };
    quote! {
        impl Kernel {
            /// The kernel's IR: its declarations, and its roles' bodies and the module
            /// functions they call as typed statements and expressions, DSL calls resolved
            /// to operations of the catalogue. Built on first use.
            pub fn ir() -> &'static #private::ir::Kernel {
                static IR: #private::OnceLock<#private::ir::Kernel> = #private::OnceLock::new();
                IR.get_or_init(|| {
                    #imports
                    #built
                })
            }
        }
        #[doc(hidden)]
        fn __warpspec_ir() -> ::std::option::Option<&'static #private::ir::Kernel> {
            ::std::option::Option::Some(Kernel::ir())
        }
    }
}

/// For a kernel that did not lower: `Kernel::ir_of()` is `None`.
pub fn no_ir_fn(private: &TokenStream) -> TokenStream {
    quote! {
        #[doc(hidden)]
        fn __warpspec_ir() -> ::std::option::Option<&'static #private::ir::Kernel> {
            ::std::option::Option::None
        }
    }
}
