//! Integers of the abstract interpreter: exact where the text decides them, otherwise linear
//! forms `mul * size + off` over a named run-time size.
//!
//! A size is a value only known at run time (a tensor extent, a launch argument, a block
//! index) or a ratio of such values (`k.div_ceil(BK)`); every size takes the scenario's trip
//! count `v`. Linear relations between uses of one size survive, so `0..n` and `1..n` give
//! `v` and `v - 1` iterations, and `(x + 63) / 64` and `x.div_ceil(64)` name the same size
//! in every role; anything non-linear (a remainder, a parity) is computed for the scenario.
//!
//! A sum of different sizes is a size of its own whose value follows its parts
//! (`k_start + k_count` is `2v`, so `k_start..k_start + k_count` makes `v` iterations), and a
//! distance between different sizes (`k_end - k_start`) is taken as a size `v`: it is not
//! known to be empty. Comparisons between different sizes are not decided here (the
//! scenario explores them both ways), and a comparison of a size with a constant names the
//! trip counts at which it flips ([`Lin::threshold`]), so the scenarios can take both sides.

use std::rc::Rc;

/// An integer: `mul * size + off` when `base` names a size, else the constant `off`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lin {
    /// The size it depends on.
    pub base: Option<Rc<str>>,
    /// The size's value in units of the scenario's `v` (1 for a size the text names; 2 for
    /// the sum of two such sizes).
    pub unit: i32,
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
        Self { base: None, unit: 1, mul: 0, off: x, exact: true }
    }

    /// The size named `name`.
    pub fn size(name: Rc<str>) -> Self {
        Self { base: Some(name), unit: 1, mul: 1, off: 0, exact: false }
    }

    /// A constant computed from sizes in this scenario.
    pub fn computed(x: i128) -> Self {
        Self { base: None, unit: 1, mul: 0, off: x, exact: false }
    }

    /// Its value when every size the text names is `v`.
    pub fn value(&self, v: i128) -> Option<i128> {
        match self.base {
            Some(_) => self.mul.checked_mul(i128::from(self.unit))?.checked_mul(v)?.checked_add(self.off),
            None => Some(self.off),
        }
    }

    /// The trip count `v` around which `self` compared with the constant `c` flips: the
    /// first at which `self` reaches `c` (none when `self` is a constant or shrinks).
    pub fn threshold(&self, c: &Self) -> Option<i128> {
        if self.base.is_none() || c.base.is_some() {
            return None;
        }
        let step = self.mul.checked_mul(i128::from(self.unit))?;
        if step <= 0 {
            return None;
        }
        c.off.checked_sub(self.off)?.checked_add(step - 1).map(|x| x.div_euclid(step))
    }

    /// The values of the size itself (not of `v`) around which `self` compared with the
    /// constant `c` flips, with the size's name: a size of the text (`mul` 1 over a size
    /// that is not a sum), for runs in which it alone takes those values.
    pub fn size_threshold(&self, c: &Self) -> Option<(Rc<str>, i128)> {
        let base = self.base.clone()?;
        if c.base.is_some() || self.unit != 1 || self.mul <= 0 {
            return None;
        }
        let first = c.off.checked_sub(self.off)?.checked_add(self.mul - 1)?.div_euclid(self.mul);
        Some((base, first))
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
        if self.mul == 0 { Self { base: None, mul: 0, unit: 1, ..self } } else { self }
    }

    /// A new size named `name`.
    fn fresh(name: String) -> Self {
        Self::size(name.into())
    }

    /// `self + sign * other`.
    fn add(&self, other: &Self, sign: i128) -> Option<Self> {
        let exact = self.exact && other.exact;
        let off = self.off.checked_add(sign.checked_mul(other.off)?)?;
        let unit = self.unit;
        let out = match (&self.base, &other.base) {
            (_, None) => Self { base: self.base.clone(), unit, mul: self.mul, off, exact },
            (None, Some(b)) => {
                Self { base: Some(b.clone()), unit: other.unit, mul: sign.checked_mul(other.mul)?, off, exact }
            }
            (Some(a), Some(b)) if a == b => Self {
                base: Some(a.clone()),
                unit,
                mul: self.mul.checked_add(sign.checked_mul(other.mul)?)?,
                off,
                exact,
            },
            (Some(a), Some(b)) => {
                // A size of its own, named by its parts without their constants (which it
                // keeps as its own), worth what its parts are worth; a distance between
                // different sizes is taken as a size `v`, not as empty.
                let units = self
                    .mul
                    .checked_mul(i128::from(self.unit))?
                    .checked_add(sign.checked_mul(other.mul)?.checked_mul(i128::from(other.unit))?)?;
                let name = format!("({a}*{}){}({b}*{})", self.mul, if sign > 0 { "+" } else { "-" }, other.mul);
                let unit = i32::try_from(units).ok().filter(|&u| u > 0).unwrap_or(1);
                Self { unit, off, ..Self::fresh(name) }
            }
        };
        Some(out.normal())
    }

    /// Whether `self` and `other` are comparable in every scenario: a constant and anything,
    /// or two forms of one size.
    fn comparable(&self, other: &Self) -> bool {
        match (&self.base, &other.base) {
            (Some(a), Some(b)) => a == b,
            _ => true,
        }
    }

    /// `self * c` for a constant `c`.
    fn scale(&self, c: &Self) -> Option<Self> {
        let exact = self.exact && c.exact;
        Some(
            Self {
                base: self.base.clone(),
                unit: self.unit,
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
                Self {
                    base: self.base.clone(),
                    unit: self.unit,
                    mul: self.mul / c,
                    off: self.off.div_euclid(c),
                    exact: self.exact,
                }
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
            // Different sizes: the scenario decides.
            Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge if !self.comparable(other) => None,
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
