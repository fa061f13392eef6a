//! Model: the kernel's protocol with names resolved — roles, shared-memory buffers,
//! pipelines, barriers and each role's endpoints — plus the constants that could be
//! evaluated. Checks and expansion both read this.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::{Expr, GenericArgument, Ident, PathArguments, Type};

use crate::errors::{Errors, list};
use crate::parse::{KernelMod, RoleSize};

/// Integer constants of the module, evaluated where they are simple arithmetic.
pub struct Consts<'k> {
    /// The module's constants by name.
    exprs: HashMap<String, &'k Expr>,
}

impl<'k> Consts<'k> {
    /// The constants of `kernel`.
    fn new(kernel: &'k KernelMod) -> Self {
        Self { exprs: kernel.consts.iter().map(|(name, expr)| (name.to_string(), expr)).collect() }
    }

    /// The value of `expr`, if it is integer arithmetic over literals and module constants.
    pub fn eval(&self, expr: &Expr) -> Option<i128> {
        self.eval_depth(expr, 0)
    }

    /// [`Consts::eval`] with a recursion bound (constants may refer to each other in a cycle).
    fn eval_depth(&self, expr: &Expr, depth: u32) -> Option<i128> {
        if depth > 64 {
            return None;
        }
        match expr {
            Expr::Lit(lit) => match &lit.lit {
                syn::Lit::Int(i) => i.base10_parse().ok(),
                _ => None,
            },
            Expr::Path(p) => self.eval_name(p.path.get_ident()?, depth),
            Expr::Paren(p) => self.eval_depth(&p.expr, depth + 1),
            Expr::Group(g) => self.eval_depth(&g.expr, depth + 1),
            Expr::Block(b) if b.block.stmts.len() == 1 => match &b.block.stmts[0] {
                syn::Stmt::Expr(e, None) => self.eval_depth(e, depth + 1),
                _ => None,
            },
            Expr::Cast(c) => self.eval_depth(&c.expr, depth + 1),
            Expr::Binary(b) => {
                let (l, r) = (self.eval_depth(&b.left, depth + 1)?, self.eval_depth(&b.right, depth + 1)?);
                match b.op {
                    syn::BinOp::Add(_) => l.checked_add(r),
                    syn::BinOp::Sub(_) => l.checked_sub(r),
                    syn::BinOp::Mul(_) => l.checked_mul(r),
                    syn::BinOp::Div(_) => l.checked_div(r),
                    syn::BinOp::Rem(_) => l.checked_rem(r),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The value of constant `name`.
    fn eval_name(&self, name: &Ident, depth: u32) -> Option<i128> {
        self.eval_depth(self.exprs.get(&name.to_string())?, depth + 1)
    }

    /// The value of module constant `name`, if it is one and can be evaluated.
    pub fn value(&self, name: &str) -> Option<i128> {
        self.eval_depth(self.exprs.get(name)?, 1)
    }

    /// The value of a const generic argument (`128`, `BM`, `{ BM / 2 }`).
    pub fn eval_generic(&self, arg: &GenericArgument) -> Option<i128> {
        match arg {
            GenericArgument::Const(e) => self.eval(e),
            GenericArgument::Type(t) => match ungroup(t) {
                Type::Path(p) if p.qself.is_none() => self.eval_name(p.path.get_ident()?, 0),
                _ => None,
            },
            _ => None,
        }
    }
}

/// A role with its resolved size.
pub struct Role {
    /// The function name.
    pub name: Ident,
    /// Instances, as an expression, and its value when known.
    pub instances: TokenStream,
    /// Value of `instances`, when it could be evaluated.
    pub instances_value: Option<i128>,
    /// 1 for `warps = N`, 4 for `warpgroups = N`.
    pub warps_per_instance: u32,
    /// Register budget expression.
    pub regs: TokenStream,
    /// Value of `regs`, when known.
    pub regs_value: Option<i128>,
    /// Endpoints the role takes, in parameter order (the context excluded).
    pub endpoints: Vec<EndpointUse>,
    /// Whether every parameter resolved (the role can be spawned).
    pub resolved: bool,
}

/// The element size (bytes) and shape of a tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileShape {
    /// Bytes per element.
    pub elem: i128,
    /// Rows.
    pub rows: i128,
    /// Columns.
    pub cols: i128,
}

impl TileShape {
    /// Bytes of the tile, if they fit in an `i128`.
    pub fn bytes(self) -> Option<i128> {
        self.elem.checked_mul(self.rows)?.checked_mul(self.cols)
    }
}

/// A field of the `#[shared]` struct.
pub struct SmemField {
    /// Field name.
    pub name: Ident,
    /// Field type.
    pub ty: Type,
    /// Type of one stage (the ring's element, or the tile itself).
    pub stage_ty: Type,
    /// Stage count, when known (1 for a single tile).
    pub stages: Option<i128>,
    /// Bytes of one stage, when known.
    pub stage_bytes: Option<i128>,
    /// Shared-memory bytes and tensor-memory columns of the whole field, when known.
    pub size: Option<(i128, i128)>,
    /// Whether a pipeline can guard it (a tile or a ring of tiles).
    pub pipelined: bool,
}

/// What a role parameter is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndpointKind {
    /// `Producer<P>`.
    Producer,
    /// `Consumer<P>`.
    Consumer,
    /// `Arriver<B>`.
    Arriver,
    /// `Waiter<B>`.
    Waiter,
    /// `Named<B>`.
    Named,
    /// `&Buffer`: an on-chip buffer no pipeline guards, bound by name.
    Buffer,
}

impl EndpointKind {
    /// The endpoint kind a type named `name` is.
    fn from_ident(name: &str) -> Option<Self> {
        Some(match name {
            "Producer" => Self::Producer,
            "Consumer" => Self::Consumer,
            "Arriver" => Self::Arriver,
            "Waiter" => Self::Waiter,
            "Named" => Self::Named,
            _ => return None,
        })
    }
}

/// What an endpoint is bound to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Pipeline index.
    Pipeline(usize),
    /// Plain barrier index.
    Barrier(usize),
    /// Named barrier index.
    Named(usize),
    /// Shared-memory field index.
    Buffer(usize),
}

/// One endpoint parameter of a role.
pub struct EndpointUse {
    /// The parameter's name in the role function.
    pub binding: Ident,
    /// Which end.
    pub kind: EndpointKind,
    /// Which pipeline or barrier.
    pub target: Target,
    /// The parameter's type, for spans.
    pub ty: Type,
}

/// The resolved kernel.
pub struct Model<'k> {
    /// The parsed module.
    pub kernel: &'k KernelMod,
    /// Its constants.
    pub consts: Consts<'k>,
    /// Roles in declaration order.
    pub roles: Vec<Role>,
    /// Shared-memory buffers in declaration order.
    pub fields: Vec<SmemField>,
    /// For each pipeline: producer roles, consumer roles, guarded fields.
    pub pipelines: Vec<PipelineModel>,
    /// For each plain barrier: arriving and waiting roles.
    pub barriers: Vec<(Vec<usize>, Vec<usize>)>,
    /// For each named barrier: its roles.
    pub named: Vec<Vec<usize>>,
}

/// A pipeline with names resolved.
pub struct PipelineModel {
    /// Producer roles.
    pub producers: Vec<usize>,
    /// Consumer roles.
    pub consumers: Vec<usize>,
    /// Guarded shared-memory fields.
    pub guards: Vec<usize>,
}

impl<'k> Model<'k> {
    /// Resolves names; unknown ones are recorded in `errors` and left out.
    pub fn build(kernel: &'k KernelMod, errors: &Errors) -> Self {
        let consts = Consts::new(kernel);
        let mut model = Model {
            kernel,
            consts,
            roles: Vec::new(),
            fields: Vec::new(),
            pipelines: Vec::new(),
            barriers: Vec::new(),
            named: Vec::new(),
        };
        model.fields = model.smem_fields(errors);
        for decl in &kernel.roles {
            let (instances, warps_per_instance) = match &decl.size {
                Some(RoleSize::Warps(e)) => (e.clone(), 1),
                Some(RoleSize::Warpgroups(e)) => (e.clone(), 4),
                None => (syn::parse_quote!(1), 1),
            };
            let regs = decl.regs.clone().unwrap_or_else(|| syn::parse_quote!(0));
            model.roles.push(Role {
                name: decl.name.clone(),
                instances_value: model.consts.eval(&instances),
                instances: instances.to_token_stream(),
                warps_per_instance,
                regs_value: model.consts.eval(&regs),
                regs: regs.to_token_stream(),
                endpoints: Vec::new(),
                resolved: false,
            });
        }
        let mut seen = HashMap::new();
        for role in &kernel.roles {
            if let Some(first) = seen.insert(role.name.to_string(), &role.name) {
                errors.at(&role.name, format!("role `{first}` is declared twice"));
            }
        }
        model.pipelines = kernel
            .pipelines
            .iter()
            .map(|p| {
                let what = format!("pipeline `{}`", p.name);
                PipelineModel {
                    producers: model.resolve_roles(&p.producers, &what, errors),
                    consumers: model.resolve_roles(&p.consumers, &what, errors),
                    guards: p.guards.iter().filter_map(|g| model.resolve_field(g, &p.name, errors)).collect(),
                }
            })
            .collect();
        model.barriers = kernel
            .barriers
            .iter()
            .map(|b| {
                let what = format!("barrier `{}`", b.name);
                (model.resolve_roles(&b.arrive, &what, errors), model.resolve_roles(&b.wait, &what, errors))
            })
            .collect();
        model.named = kernel
            .named
            .iter()
            .map(|n| model.resolve_roles(&n.roles, &format!("named barrier `{}`", n.name), errors))
            .collect();
        for (index, decl) in kernel.roles.iter().enumerate() {
            let endpoints = model.endpoints(decl, errors);
            model.roles[index].resolved = endpoints.len() + 1 == decl.func.sig.inputs.len();
            model.roles[index].endpoints = endpoints;
        }
        model
    }

    /// Role indices of `names`; unknown ones are reported as part of `what`.
    fn resolve_roles(&self, names: &[Ident], what: &str, errors: &Errors) -> Vec<usize> {
        names
            .iter()
            .filter_map(|name| {
                let found = self.roles.iter().position(|r| r.name == *name);
                if found.is_none() {
                    errors.at(
                        name,
                        format!(
                            "unknown role `{name}` in {what}; the roles are {}",
                            list(self.roles.iter().map(|r| &r.name))
                        ),
                    );
                }
                found
            })
            .collect()
    }

    /// The index of field `name` guarded by `pipeline`, reporting it if unknown.
    fn resolve_field(&self, name: &Ident, pipeline: &Ident, errors: &Errors) -> Option<usize> {
        let found = self.fields.iter().position(|f| f.name == *name);
        if found.is_none() {
            let owner = self
                .kernel
                .shared
                .as_ref()
                .map_or("#[shared] struct".to_string(), |s| format!("#[shared] struct `{}`", s.ident));
            errors.at(
                name,
                format!(
                    "pipeline `{pipeline}` guards `{name}`, which is not a field of the {owner}; its fields are {}",
                    list(self.fields.iter().map(|f| &f.name))
                ),
            );
        }
        found
    }

    /// The fields of the `#[shared]` struct, with their shapes where known.
    fn smem_fields(&self, errors: &Errors) -> Vec<SmemField> {
        let Some(shared) = &self.kernel.shared else { return Vec::new() };
        let syn::Fields::Named(named) = &shared.fields else {
            errors.at(
                &shared.ident,
                "the #[shared] struct needs named fields: `name: Ring<Tile<bf16, R, C>, STAGES>` or `name: Tile<..>`",
            );
            return Vec::new();
        };
        named
            .named
            .iter()
            .filter_map(|field| {
                let name = field.ident.clone()?;
                let Ok(size) = self.buffer_size(&field.ty) else {
                    errors.at(
                        &field.ty,
                        format!("on-chip field `{name}` must be a `Tile<T, R, C>`, a `Ring<Tile<T, R, C>, N>`, a `TmemTile<R, C>`, or an array `[_; N]` of them"),
                    );
                    return None;
                };
                let (stage_ty, stages) = match generic_args(&field.ty, "Ring") {
                    Some(args) if args.len() == 2 => match &args[0] {
                        GenericArgument::Type(t) => (t.clone(), self.consts.eval_generic(&args[1])),
                        _ => (field.ty.clone(), None),
                    },
                    _ => (field.ty.clone(), Some(1)),
                };
                let pipelined = generic_args(&stage_ty, "Tile").is_some();
                let stage_bytes = self.tile_bytes(&stage_ty);
                Some(SmemField { name, ty: field.ty.clone(), stage_ty, stages, stage_bytes, size, pipelined })
            })
            .collect()
    }

    /// Shared-memory bytes and tensor-memory columns of an on-chip buffer type, when its
    /// shape is known; `Err` if the type is not an on-chip buffer.
    fn buffer_size(&self, ty: &Type) -> Result<Option<(i128, i128)>, ()> {
        if let Type::Array(array) = ungroup(ty) {
            let inner = self.buffer_size(&array.elem)?;
            return Ok(inner
                .zip(self.consts.eval(&array.len))
                .and_then(|((b, c), n)| Some((b.checked_mul(n)?, c.checked_mul(n)?))));
        }
        if let Some(args) = generic_args(ty, "Ring") {
            let [GenericArgument::Type(inner), stages] = args.as_slice() else { return Err(()) };
            let inner = self.buffer_size(inner)?;
            return Ok(inner
                .zip(self.consts.eval_generic(stages))
                .and_then(|((b, c), n)| Some((b.checked_mul(n)?, c.checked_mul(n)?))));
        }
        if generic_args(ty, "Tile").is_some() {
            return Ok(self.tile_bytes(ty).map(|b| (b, 0)));
        }
        if let Some(args) = generic_args(ty, "TmemTile") {
            return Ok(args.get(1).and_then(|c| self.consts.eval_generic(c)).map(|c| (0, c)));
        }
        Err(())
    }

    /// Bytes of a `Tile<T, R, C>` type, when its element and shape are known.
    fn tile_bytes(&self, ty: &Type) -> Option<i128> {
        self.tile_shape(ty)?.bytes()
    }

    /// Element size and shape of a `Tile<T, R, C>` type, when known.
    pub fn tile_shape(&self, ty: &Type) -> Option<TileShape> {
        let args = generic_args(ty, "Tile")?;
        let [GenericArgument::Type(elem), rows, cols] = args.as_slice() else { return None };
        let Type::Path(elem) = ungroup(elem) else { return None };
        let elem = match elem.path.segments.last()?.ident.to_string().as_str() {
            "bf16" | "f16" => 2,
            "f32" => 4,
            _ => return None,
        };
        Some(TileShape { elem, rows: self.consts.eval_generic(rows)?, cols: self.consts.eval_generic(cols)? })
    }

    /// The shape of one tile of an on-chip buffer type: the tile itself, or the element of a
    /// ring or array of tiles.
    pub fn unit_shape(&self, ty: &Type) -> Option<TileShape> {
        if let Type::Array(array) = ungroup(ty) {
            return self.unit_shape(&array.elem);
        }
        if let Some(args) = generic_args(ty, "Ring") {
            return match args.first() {
                Some(GenericArgument::Type(inner)) => self.unit_shape(inner),
                _ => None,
            };
        }
        self.tile_shape(ty)
    }

    /// The endpoints a role takes, after its context parameter.
    fn endpoints(&self, decl: &crate::parse::RoleDecl, errors: &Errors) -> Vec<EndpointUse> {
        let mut inputs = decl.func.sig.inputs.iter();
        let first = inputs.next();
        let first_is_ctx = matches!(first, Some(syn::FnArg::Typed(pt)) if is_ctx(&pt.ty));
        if !first_is_ctx {
            let span: TokenStream =
                first.map_or_else(|| decl.func.sig.ident.to_token_stream(), |f| f.to_token_stream());
            errors.at(
                span,
                format!("the first parameter of role `{}` must be its context: `cx: &Ctx<'_, Params>`", decl.name),
            );
        }
        let rest = if first_is_ctx { inputs.collect::<Vec<_>>() } else { decl.func.sig.inputs.iter().collect() };
        rest.into_iter()
            .filter_map(|arg| {
                let syn::FnArg::Typed(pt) = arg else {
                    errors.at(arg, "roles are free functions: no `self` parameter");
                    return None;
                };
                let binding = match &*pt.pat {
                    syn::Pat::Ident(i) => i.ident.clone(),
                    other => {
                        errors.at(other, "bind each endpoint to a plain name");
                        return None;
                    }
                };
                self.endpoint(&decl.name, binding, &pt.ty, errors)
            })
            .collect()
    }

    /// The endpoint a role parameter `binding: ty` is, reporting what it cannot be.
    fn endpoint(&self, role: &Ident, binding: Ident, ty: &Type, errors: &Errors) -> Option<EndpointUse> {
        let help = "role parameters after the context are endpoints: `Producer<'_, P>`, `Consumer<'_, P>` of a #[pipeline], `Arriver<'_, B>`, `Waiter<'_, B>` of a #[barrier], `Named<'_, B>` of a #[named_barrier], or `name: &Type` for a #[shared] field `name` that no pipeline guards";
        if let Type::Reference(_) = ty
            && let Some(field) = self.fields.iter().position(|f| f.name == binding)
        {
            if let Some(p) = self.kernel.pipelines.iter().position(|p| p.guards.contains(&binding)) {
                let pipeline = &self.kernel.pipelines[p].name;
                errors.at(
                    &binding,
                    format!("role `{role}` takes `{binding}` directly, but pipeline `{pipeline}` guards it: reach its slots through the tokens of `{pipeline}`"),
                );
                return None;
            }
            return Some(EndpointUse {
                binding,
                kind: EndpointKind::Buffer,
                target: Target::Buffer(field),
                ty: ty.clone(),
            });
        }
        let Type::Path(path) = ty else {
            errors.at(ty, format!("role `{role}` takes `{binding}: {}`: {help}; shared memory is reached only through pipeline tokens", ty.to_token_stream()));
            return None;
        };
        let last = path.path.segments.last()?;
        let Some(kind) = EndpointKind::from_ident(&last.ident.to_string()) else {
            errors.at(ty, format!("role `{role}` takes `{binding}: {}`: {help}", ty.to_token_stream()));
            return None;
        };
        let target_name = match &last.arguments {
            PathArguments::AngleBracketed(a) => a.args.iter().find_map(|arg| match arg {
                GenericArgument::Type(Type::Path(p)) => p.path.get_ident().cloned(),
                _ => None,
            }),
            _ => None,
        };
        let Some(target_name) = target_name else {
            errors.at(
                ty,
                format!(
                    "`{}` needs the pipeline or barrier it belongs to, e.g. `{}<'_, Name>`",
                    last.ident, last.ident
                ),
            );
            return None;
        };
        let k = self.kernel;
        let target = if let Some(i) = k.pipelines.iter().position(|p| p.name == target_name) {
            Target::Pipeline(i)
        } else if let Some(i) = k.barriers.iter().position(|b| b.name == target_name) {
            Target::Barrier(i)
        } else if let Some(i) = k.named.iter().position(|n| n.name == target_name) {
            Target::Named(i)
        } else {
            errors.at(
                &target_name,
                format!(
                    "unknown pipeline or barrier `{target_name}` in role `{role}`; declared: {}",
                    list(
                        k.pipelines
                            .iter()
                            .map(|p| &p.name)
                            .chain(k.barriers.iter().map(|b| &b.name))
                            .chain(k.named.iter().map(|n| &n.name))
                    )
                ),
            );
            return None;
        };
        Some(EndpointUse { binding, kind, target, ty: ty.clone() })
    }

    /// A constant expression for the instance count of a list of roles.
    pub fn instances_sum(&self, roles: &[usize]) -> TokenStream {
        let terms = roles.iter().map(|&r| {
            let n = &self.roles[r].instances;
            quote!((#n) as u32)
        });
        quote!(0u32 #(+ #terms)*)
    }
}

/// The generic arguments of `ty` if its last path segment is `name`.
pub fn generic_args(ty: &Type, name: &str) -> Option<Vec<GenericArgument>> {
    let Type::Path(p) = ungroup(ty) else { return None };
    let last = p.path.segments.last()?;
    if last.ident != name {
        return None;
    }
    match &last.arguments {
        PathArguments::AngleBracketed(a) => Some(a.args.iter().cloned().collect()),
        _ => None,
    }
}

/// The type inside the invisible groups (and parentheses) that `macro_rules!` fragments
/// such as `$t:ty` leave around it.
pub fn ungroup(ty: &Type) -> &Type {
    match ty {
        Type::Group(g) => ungroup(&g.elem),
        Type::Paren(p) => ungroup(&p.elem),
        other => other,
    }
}

/// Whether `ty` is `&Ctx<..>`.
fn is_ctx(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => generic_args(&r.elem, "Ctx").is_some(),
        _ => false,
    }
}
