//! Integers of the abstract interpreter: exact where the text decides them, otherwise linear
//! forms `mul * size + off` over a named run-time size.
//!
//! A size is a value only known at run time (a tensor extent, a launch argument, a block
//! index) or a ratio of such values (`k.div_ceil(BK)`); every size takes the scenario's trip
//! count `v`. Linear relations between uses of one size survive, so `0..n` and `1..n` give
//! `v` and `v - 1` iterations, and `(x + 63) / 64` and `x.div_ceil(64)` name the same size
//! in every role; anything non-linear (a remainder, a parity) is computed for the scenario.

use std::rc::Rc;

/// An integer: `mul * size + off` when `base` names a size, else the constant `off`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lin {
    /// The size it depends on.
    pub base: Option<Rc<str>>,
    /// Multiplier of the size.
    pub mul: i128,
    /// Constant term.
    pub off: i128,
    /// Whether the text decides it (no size involved, directly or through a scenario).
    pub exact: bool,
}

/// Arithmetic and comparison operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `%`.
    Rem,
    /// `^`.
    Xor,
    /// `&`.
    And,
    /// `|`.
    Or,
    /// `<<`.
    Shl,
    /// `>>`.
    Shr,
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

/// The result of an operation on integers.
pub enum Out {
    /// An integer.
    Int(Lin),
    /// A comparison's outcome.
    Bool(bool),
}

impl Lin {
    /// An integer the text decides.
    pub fn exact(x: i128) -> Self {
        Self { base: None, mul: 0, off: x, exact: true }
    }

    /// The size named `name`.
    pub fn size(name: Rc<str>) -> Self {
        Self { base: Some(name), mul: 1, off: 0, exact: false }
    }

    /// A constant computed from sizes in this scenario.
    fn computed(x: i128) -> Self {
        Self { base: None, mul: 0, off: x, exact: false }
    }

    /// Its value when every size is `v`.
    pub fn value(&self, v: i128) -> Option<i128> {
        match self.base {
            Some(_) => self.mul.checked_mul(v)?.checked_add(self.off),
            None => Some(self.off),
        }
    }

    /// How the integer reads in the name of a size derived from it.
    fn name(&self) -> String {
        match &self.base {
            Some(b) => format!("({b}*{}+{})", self.mul, self.off),
            None => self.off.to_string(),
        }
    }

    /// Drops the base of a form whose multiplier is 0.
    fn normal(self) -> Self {
        if self.mul == 0 { Self { base: None, mul: 0, ..self } } else { self }
    }

    /// A new size named `name`.
    fn fresh(name: String) -> Self {
        Self::size(name.into())
    }

    /// `self + sign * other`.
    fn add(&self, other: &Self, sign: i128) -> Option<Self> {
        let exact = self.exact && other.exact;
        let off = self.off.checked_add(sign.checked_mul(other.off)?)?;
        let out = match (&self.base, &other.base) {
            (_, None) => Self { base: self.base.clone(), mul: self.mul, off, exact },
            (None, Some(b)) => Self { base: Some(b.clone()), mul: sign.checked_mul(other.mul)?, off, exact },
            (Some(a), Some(b)) if a == b => {
                Self { base: Some(a.clone()), mul: self.mul.checked_add(sign.checked_mul(other.mul)?)?, off, exact }
            }
            _ => Self::fresh(format!("{}{}{}", self.name(), if sign > 0 { "+" } else { "-" }, other.name())),
        };
        Some(out.normal())
    }

    /// `self * c` for a constant `c`.
    fn scale(&self, c: &Self) -> Option<Self> {
        let exact = self.exact && c.exact;
        Some(
            Self {
                base: self.base.clone(),
                mul: self.mul.checked_mul(c.off)?,
                off: self.off.checked_mul(c.off)?,
                exact,
            }
            .normal(),
        )
    }

    /// `self / c` (rounding down) for a constant `c > 0`.
    fn divide(&self, c: i128) -> Option<Self> {
        if c <= 0 {
            return None;
        }
        if self.base.is_none() || self.mul % c == 0 {
            return Some(
                Self { base: self.base.clone(), mul: self.mul / c, off: self.off.div_euclid(c), exact: self.exact }
                    .normal(),
            );
        }
        Some(Self::fresh(format!("{}/{c}", self.name())))
    }

    /// `self.div_ceil(c)`.
    pub fn div_ceil(&self, c: &Self) -> Option<Self> {
        if c.base.is_some() {
            return None;
        }
        self.add(&Self::exact(c.off.checked_sub(1)?), 1)?.divide(c.off)
    }

    /// Applies `op`; `None` on overflow or an operation with no integer result.
    pub fn apply(&self, op: Op, other: &Self, v: i128) -> Option<Out> {
        let (a, b) = (self.value(v)?, other.value(v)?);
        let exact = self.exact && other.exact;
        let computed = |x: Option<i128>| x.map(|x| Out::Int(if exact { Self::exact(x) } else { Self::computed(x) }));
        let shift = u32::try_from(b).ok().filter(|&s| s < 127);
        match op {
            Op::Add => self.add(other, 1).map(Out::Int),
            Op::Sub => self.add(other, -1).map(Out::Int),
            Op::Mul if self.base.is_none() => other.scale(self).map(Out::Int),
            Op::Mul if other.base.is_none() => self.scale(other).map(Out::Int),
            Op::Mul => Some(Out::Int(Self::fresh(format!("{}*{}", self.name(), other.name())))),
            Op::Div if self.base.is_some() && other.base.is_none() => self.divide(b).map(Out::Int),
            Op::Div => computed(a.checked_div(b)),
            Op::Shr if self.base.is_some() && other.base.is_none() => {
                self.divide(1i128.checked_shl(shift?)?).map(Out::Int)
            }
            Op::Shr => computed(a.checked_shr(shift?)),
            Op::Shl if other.base.is_none() => {
                self.scale(&Self { off: 1i128.checked_shl(shift?)?, ..other.clone() }).map(Out::Int)
            }
            Op::Shl => computed(a.checked_shl(shift?)),
            Op::Rem => computed(a.checked_rem(b)),
            Op::Xor => computed(Some(a ^ b)),
            Op::And => computed(Some(a & b)),
            Op::Or => computed(Some(a | b)),
            Op::Eq => Some(Out::Bool(a == b)),
            Op::Ne => Some(Out::Bool(a != b)),
            Op::Lt => Some(Out::Bool(a < b)),
            Op::Le => Some(Out::Bool(a <= b)),
            Op::Gt => Some(Out::Bool(a > b)),
            Op::Ge => Some(Out::Bool(a >= b)),
        }
    }

    /// Integer methods the interpreter computes (`min`, `div_ceil`, ..): `None` for others.
    pub fn method(&self, name: &str, arg: Option<&Self>, v: i128) -> Option<Self> {
        if matches!(name, "clone" | "into" | "to_owned") {
            return Some(self.clone());
        }
        let arg = arg?;
        let (a, b) = (self.value(v)?, arg.value(v)?);
        let exact = self.exact && arg.exact;
        let computed = |x: i128| if exact { Self::exact(x) } else { Self::computed(x) };
        match name {
            "min" => Some(if a <= b { self.clone() } else { arg.clone() }),
            "max" => Some(if a >= b { self.clone() } else { arg.clone() }),
            "div_ceil" => self.div_ceil(arg),
            "saturating_sub" if a >= b => self.add(arg, -1),
            "saturating_sub" => Some(computed(0)),
            "saturating_add" | "wrapping_add" => self.add(arg, 1),
            "pow" => Some(computed(a.checked_pow(u32::try_from(b).ok()?)?)),
            "abs_diff" => Some(computed(a.checked_sub(b)?.checked_abs()?)),
            _ => None,
        }
    }
}
