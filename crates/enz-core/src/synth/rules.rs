//! The derivative rule table: one entry per differentiable operation.
//!
//! Each [`Rule`] gives, for every operand, its adjoint as an [`Expr`] over the
//! operands (`x(i)`), the primal result (`ret()`) and the result's adjoint
//! (`dret()`), or `None` for an operand that carries no derivative. The
//! tangent (forward-mode) formula is derived from the adjoints by
//! substituting each operand's tangent for `dret()` and summing, unless the
//! entry writes out each operand's term. Rules are pure data: choosing one
//! builds no IR (see `synth::emit` for that).

use crate::ir::{LLVMOpcode, LLVMRealPredicate};
use crate::names::MathFn;
use std::ops::{Add, Div, Mul, Neg, Sub};
use std::sync::OnceLock;

/// What a rule applies to.
#[derive(Copy, Clone, PartialEq, Debug)]
pub(crate) enum OpKey {
    /// An instruction opcode (`fmul`, `fpext`, `select`...).
    Inst(LLVMOpcode),
    /// A call to a math function in any spelling.
    Math(MathFn),
}

/// A formula over the primal operands, result and adjoint.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Expr {
    /// The adjoint of the result (reverse mode) or, in a tangent, the
    /// tangent of the operand being summed.
    DRet,
    /// Tangent of operand `i` (only in hand-written tangents).
    DArg(usize),
    /// Primal operand `i`.
    Arg(usize),
    /// The primal result.
    Ret,
    /// A floating constant of the rule's type.
    Const(f64),
    Add(Box<Expr>, Box<Expr>),
    Sub(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
    Div(Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    /// A math function applied elementwise.
    Math(MathFn, Vec<Expr>),
    /// `cond ? a : b`.
    Select(Box<Cond>, Box<Expr>, Box<Expr>),
    /// The value converted (fpext/fptrunc) to the type of operand `i`.
    ToArgType(usize, Box<Expr>),
    /// The value converted to the result type.
    ToRetType(Box<Expr>),
    /// An integer operand converted to the rule's float type.
    IntToFp(Box<Expr>),
    /// An integer operand plus a constant (for `powi`).
    IntAdd(Box<Expr>, i64),
    /// The scalar value broadcast to every lane of (vector) operand `i`'s type.
    Splat(usize, Box<Expr>),
    /// A vector whose lane `k` is the product of every lane of the operand
    /// but `k` (no division, so zero lanes give the right derivative).
    ProdOthers(Box<Expr>),
    /// A vector of `vec`'s type that is `val` (a scalar, or the same lane of
    /// a vector) in the first lane of `vec` equal to the scalar `key`, and
    /// zero in every other lane: where a max/min reduction's result came
    /// from.
    FirstLaneEq {
        vec: Box<Expr>,
        key: Box<Expr>,
        val: Box<Expr>,
    },
    /// A value synthesis already has (e.g. the primal's own `cos(x)` where
    /// the formula asks for `cos(x)`); never written in the table.
    Given(usize),
}

/// A condition for [`Expr::Select`].
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Cond {
    /// An `i1` operand of the instruction.
    Arg(usize),
    /// A floating comparison.
    Cmp(LLVMRealPredicate, Expr, Expr),
}

/// One derivative rule.
#[derive(Clone, Debug)]
pub(crate) struct Rule {
    pub(crate) op: OpKey,
    /// Adjoint contribution to each operand; `None` = no derivative.
    pub(crate) adjoints: Vec<Option<Expr>>,
    /// Hand-written tangent terms, one per operand (operand `i`'s term is
    /// linear in `DArg(i)`), when the derived ones are wrong: type-changing
    /// casts, and vector operands of a scalar result (their term is a sum
    /// over lanes, which substituting `DArg(i)` for `DRet` cannot give).
    pub(crate) tangents: Option<Vec<Option<Expr>>>,
}

impl Rule {
    /// Operand `i`'s term of the tangent: the hand-written one, or its
    /// adjoint with `DArg(i)` for `DRet`.
    fn tangent_term(&self, i: usize) -> Option<Expr> {
        match &self.tangents {
            Some(terms) => terms.get(i).cloned().flatten(),
            None => self
                .adjoints
                .get(i)?
                .as_ref()
                .map(|a| a.substitute_dret(&Expr::DArg(i))),
        }
    }

    /// The forward-mode (tangent) formula: the sum of every operand's term.
    #[cfg_attr(not(test), allow(dead_code))] // forward mode's formula; tested now
    pub(crate) fn tangent(&self) -> Expr {
        self.tangent_over(&vec![true; self.adjoints.len()])
    }

    /// The tangent formula when only the operands marked in `active` carry
    /// tangents (the others contribute nothing, instead of a `* 0`).
    pub(crate) fn tangent_over(&self, active: &[bool]) -> Expr {
        let mut terms = (0..self.adjoints.len())
            .filter(|i| active.get(*i).copied().unwrap_or(false))
            .filter_map(|i| self.tangent_term(i));
        let first = terms.next().unwrap_or(Expr::Const(0.0));
        terms.fold(first, |acc, t| acc + t)
    }
}

impl Expr {
    fn substitute_dret(&self, with: &Expr) -> Expr {
        let s = |e: &Expr| Box::new(e.substitute_dret(with));
        match self {
            Expr::DRet => with.clone(),
            Expr::Add(a, b) => Expr::Add(s(a), s(b)),
            Expr::Sub(a, b) => Expr::Sub(s(a), s(b)),
            Expr::Mul(a, b) => Expr::Mul(s(a), s(b)),
            Expr::Div(a, b) => Expr::Div(s(a), s(b)),
            Expr::Neg(a) => Expr::Neg(s(a)),
            Expr::Math(f, args) => {
                Expr::Math(*f, args.iter().map(|a| a.substitute_dret(with)).collect())
            }
            Expr::Select(c, a, b) => {
                let c = match &**c {
                    Cond::Arg(i) => Cond::Arg(*i),
                    Cond::Cmp(p, l, r) => {
                        Cond::Cmp(*p, l.substitute_dret(with), r.substitute_dret(with))
                    }
                };
                Expr::Select(Box::new(c), s(a), s(b))
            }
            Expr::ToArgType(i, a) => Expr::ToArgType(*i, s(a)),
            Expr::ToRetType(a) => Expr::ToRetType(s(a)),
            Expr::IntToFp(a) => Expr::IntToFp(s(a)),
            Expr::IntAdd(a, k) => Expr::IntAdd(s(a), *k),
            Expr::Splat(i, a) => Expr::Splat(*i, s(a)),
            Expr::ProdOthers(a) => Expr::ProdOthers(s(a)),
            Expr::FirstLaneEq { vec, key, val } => Expr::FirstLaneEq {
                vec: s(vec),
                key: s(key),
                val: s(val),
            },
            leaf => leaf.clone(),
        }
    }
}

/// Which primal values (operands, result) a set of formulas mentions.
#[derive(Default, Debug)]
pub(crate) struct PrimalUses {
    pub(crate) args: Vec<usize>,
    pub(crate) ret: bool,
}

impl PrimalUses {
    pub(crate) fn collect(&mut self, e: &Expr) {
        match e {
            Expr::Arg(i) => {
                if !self.args.contains(i) {
                    self.args.push(*i);
                }
            }
            Expr::Ret => self.ret = true,
            Expr::DRet | Expr::DArg(_) | Expr::Const(_) | Expr::Given(_) => {}
            Expr::Add(a, b) | Expr::Sub(a, b) | Expr::Mul(a, b) | Expr::Div(a, b) => {
                self.collect(a);
                self.collect(b);
            }
            Expr::Neg(a)
            | Expr::ToArgType(_, a)
            | Expr::ToRetType(a)
            | Expr::IntToFp(a)
            | Expr::IntAdd(a, _)
            | Expr::Splat(_, a)
            | Expr::ProdOthers(a) => self.collect(a),
            Expr::FirstLaneEq { vec, key, val } => {
                self.collect(vec);
                self.collect(key);
                self.collect(val);
            }
            Expr::Math(_, args) => args.iter().for_each(|a| self.collect(a)),
            Expr::Select(c, a, b) => {
                match &**c {
                    Cond::Arg(i) => self.collect(&Expr::Arg(*i)),
                    Cond::Cmp(_, l, r) => {
                        self.collect(l);
                        self.collect(r);
                    }
                }
                self.collect(a);
                self.collect(b);
            }
        }
    }
}

macro_rules! binop {
    ($tr:ident, $m:ident, $v:ident) => {
        impl $tr for Expr {
            type Output = Expr;
            fn $m(self, rhs: Expr) -> Expr {
                Expr::$v(Box::new(self), Box::new(rhs))
            }
        }
    };
}
binop!(Add, add, Add);
binop!(Sub, sub, Sub);
binop!(Mul, mul, Mul);
binop!(Div, div, Div);

impl Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        Expr::Neg(Box::new(self))
    }
}

// ---- the vocabulary of the table ----

fn x(i: usize) -> Expr {
    Expr::Arg(i)
}
fn ret() -> Expr {
    Expr::Ret
}
fn dret() -> Expr {
    Expr::DRet
}
fn c(v: f64) -> Expr {
    Expr::Const(v)
}
fn call(f: MathFn, args: Vec<Expr>) -> Expr {
    Expr::Math(f, args)
}
fn sq(e: Expr) -> Expr {
    e.clone() * e
}
/// `a < b ? t : f`
fn if_lt(a: Expr, b: Expr, t: Expr, f: Expr) -> Expr {
    Expr::Select(
        Box::new(Cond::Cmp(LLVMRealPredicate::LLVMRealOLT, a, b)),
        Box::new(t),
        Box::new(f),
    )
}
/// `a > b ? t : f`
fn if_gt(a: Expr, b: Expr, t: Expr, f: Expr) -> Expr {
    Expr::Select(
        Box::new(Cond::Cmp(LLVMRealPredicate::LLVMRealOGT, a, b)),
        Box::new(t),
        Box::new(f),
    )
}
fn if_arg(i: usize, t: Expr, f: Expr) -> Expr {
    Expr::Select(Box::new(Cond::Arg(i)), Box::new(t), Box::new(f))
}

/// `e` in every lane of operand `i`'s vector type.
fn splat(i: usize, e: Expr) -> Expr {
    Expr::Splat(i, Box::new(e))
}
/// `start + Σ lanes of v`.
fn reduce_sum(start: Expr, v: Expr) -> Expr {
    call(MathFn::ReduceFAdd, vec![start, v])
}
/// Lane `k`: the product of every other lane of `v`.
fn prod_others(v: Expr) -> Expr {
    Expr::ProdOthers(Box::new(v))
}
/// `val` in the first lane of `vec` equal to `key`, zero elsewhere.
fn first_lane_eq(vec: Expr, key: Expr, val: Expr) -> Expr {
    Expr::FirstLaneEq {
        vec: Box::new(vec),
        key: Box::new(key),
        val: Box::new(val),
    }
}
/// `llvm.vector.reduce.fmax/fmin(v)`: the result's adjoint goes to the
/// first lane holding the result (ties: the first, like `Min`/`Max`).
fn reduce_extremum(f: MathFn) -> Rule {
    Rule {
        op: OpKey::Math(f),
        adjoints: vec![Some(first_lane_eq(x(0), ret(), dret()))],
        // A vector operand: the tangent is the chosen lane of its tangent.
        tangents: Some(vec![Some(reduce_sum(
            c(-0.0),
            first_lane_eq(x(0), ret(), Expr::DArg(0)),
        ))]),
    }
}

fn inst(op: LLVMOpcode, adjoints: Vec<Option<Expr>>) -> Rule {
    Rule {
        op: OpKey::Inst(op),
        adjoints,
        tangents: None,
    }
}
fn math(f: MathFn, adjoints: Vec<Option<Expr>>) -> Rule {
    Rule {
        op: OpKey::Math(f),
        adjoints,
        tangents: None,
    }
}
/// A function whose derivative is zero almost everywhere.
fn flat(f: MathFn) -> Rule {
    math(f, vec![None])
}

const LN2: f64 = std::f64::consts::LN_2;
const LN10: f64 = std::f64::consts::LN_10;
const TWO_OVER_SQRT_PI: f64 = std::f64::consts::FRAC_2_SQRT_PI;

fn build_table() -> Vec<Rule> {
    use LLVMOpcode::*;
    use MathFn as M;
    vec![
        // ---- instructions ----
        inst(LLVMFAdd, vec![Some(dret()), Some(dret())]),
        inst(LLVMFSub, vec![Some(dret()), Some(-dret())]),
        inst(LLVMFMul, vec![Some(dret() * x(1)), Some(dret() * x(0))]),
        inst(
            LLVMFDiv,
            vec![Some(dret() / x(1)), Some(-(dret() * ret()) / x(1))],
        ),
        // frem(a, b) = a - b * trunc(a / b)
        inst(
            LLVMFRem,
            vec![
                Some(dret()),
                Some(-(dret() * call(M::Trunc, vec![x(0) / x(1)]))),
            ],
        ),
        inst(LLVMFNeg, vec![Some(-dret())]),
        inst(LLVMFreeze, vec![Some(dret())]),
        Rule {
            op: OpKey::Inst(LLVMFPExt),
            adjoints: vec![Some(Expr::ToArgType(0, Box::new(dret())))],
            tangents: Some(vec![Some(Expr::ToRetType(Box::new(Expr::DArg(0))))]),
        },
        Rule {
            op: OpKey::Inst(LLVMFPTrunc),
            adjoints: vec![Some(Expr::ToArgType(0, Box::new(dret())))],
            tangents: Some(vec![Some(Expr::ToRetType(Box::new(Expr::DArg(0))))]),
        },
        inst(
            LLVMSelect,
            vec![
                None,
                Some(if_arg(0, dret(), c(0.0))),
                Some(if_arg(0, c(0.0), dret())),
            ],
        ),
        // ---- math functions ----
        math(M::Sqrt, vec![Some(dret() / (c(2.0) * ret()))]),
        math(M::Sin, vec![Some(dret() * call(M::Cos, vec![x(0)]))]),
        math(M::Cos, vec![Some(-(dret() * call(M::Sin, vec![x(0)])))]),
        math(M::Tan, vec![Some(dret() * (c(1.0) + sq(ret())))]),
        math(M::Exp, vec![Some(dret() * ret())]),
        math(M::Exp2, vec![Some(dret() * ret() * c(LN2))]),
        math(M::Expm1, vec![Some(dret() * (ret() + c(1.0)))]),
        math(M::Log, vec![Some(dret() / x(0))]),
        math(M::Log2, vec![Some(dret() / (x(0) * c(LN2)))]),
        math(M::Log10, vec![Some(dret() / (x(0) * c(LN10)))]),
        math(M::Log1p, vec![Some(dret() / (x(0) + c(1.0)))]),
        math(
            M::Pow,
            vec![
                Some(dret() * x(1) * call(M::Pow, vec![x(0), x(1) - c(1.0)])),
                Some(dret() * ret() * call(M::Log, vec![x(0)])),
            ],
        ),
        math(
            M::Powi,
            vec![
                Some(
                    dret()
                        * Expr::IntToFp(Box::new(x(1)))
                        * call(M::Powi, vec![x(0), Expr::IntAdd(Box::new(x(1)), -1)]),
                ),
                None,
            ],
        ),
        math(
            M::Fabs,
            vec![Some(dret() * call(M::CopySign, vec![c(1.0), x(0)]))],
        ),
        math(
            M::Fma,
            vec![Some(dret() * x(1)), Some(dret() * x(0)), Some(dret())],
        ),
        math(
            M::FMulAdd,
            vec![Some(dret() * x(1)), Some(dret() * x(0)), Some(dret())],
        ),
        // copysign(a, b) = |a| sgn(b): d/da = sgn(a) sgn(b)
        math(
            M::CopySign,
            vec![
                Some(
                    dret()
                        * call(M::CopySign, vec![c(1.0), x(0)])
                        * call(M::CopySign, vec![c(1.0), x(1)]),
                ),
                None,
            ],
        ),
        // Ties go to the first operand.
        math(
            M::Min,
            vec![
                Some(if_gt(x(0), x(1), c(0.0), dret())),
                Some(if_gt(x(0), x(1), dret(), c(0.0))),
            ],
        ),
        math(
            M::Max,
            vec![
                Some(if_lt(x(0), x(1), c(0.0), dret())),
                Some(if_lt(x(0), x(1), dret(), c(0.0))),
            ],
        ),
        flat(M::Floor),
        flat(M::Ceil),
        flat(M::Trunc),
        flat(M::Round),
        flat(M::RoundEven),
        flat(M::Rint),
        flat(M::NearbyInt),
        math(M::Tanh, vec![Some(dret() * (c(1.0) - sq(ret())))]),
        math(M::Sinh, vec![Some(dret() * call(M::Cosh, vec![x(0)]))]),
        math(M::Cosh, vec![Some(dret() * call(M::Sinh, vec![x(0)]))]),
        math(M::Atan, vec![Some(dret() / (c(1.0) + sq(x(0))))]),
        // atan2(y, x): d/dy = x / (x² + y²), d/dx = -y / (x² + y²)
        math(
            M::Atan2,
            vec![
                Some(dret() * x(1) / (sq(x(0)) + sq(x(1)))),
                Some(-(dret() * x(0)) / (sq(x(0)) + sq(x(1)))),
            ],
        ),
        math(
            M::Asin,
            vec![Some(dret() / call(M::Sqrt, vec![c(1.0) - sq(x(0))]))],
        ),
        math(
            M::Acos,
            vec![Some(-dret() / call(M::Sqrt, vec![c(1.0) - sq(x(0))]))],
        ),
        math(
            M::Hypot,
            vec![Some(dret() * x(0) / ret()), Some(dret() * x(1) / ret())],
        ),
        math(M::Cbrt, vec![Some(dret() / (c(3.0) * sq(ret())))]),
        // fmod(a, b) = a - b * trunc(a / b), like frem
        math(
            M::Fmod,
            vec![
                Some(dret()),
                Some(-(dret() * call(M::Trunc, vec![x(0) / x(1)]))),
            ],
        ),
        math(
            M::Erf,
            vec![Some(
                dret() * c(TWO_OVER_SQRT_PI) * call(M::Exp, vec![-sq(x(0))]),
            )],
        ),
        // ---- vector reductions (operand 1 / 0 is the vector) ----
        // Tangent terms are written out: the adjoint of a vector operand is
        // a vector, its tangent contribution the sum over lanes.
        Rule {
            op: OpKey::Math(M::ReduceFAdd),
            adjoints: vec![Some(dret()), Some(splat(1, dret()))],
            tangents: Some(vec![
                Some(Expr::DArg(0)),
                Some(reduce_sum(c(-0.0), Expr::DArg(1))),
            ]),
        },
        // start · Π v: d start = Π v, d v_k = start · Π_{j≠k} v_j.
        Rule {
            op: OpKey::Math(M::ReduceFMul),
            adjoints: vec![
                Some(dret() * call(M::ReduceFMul, vec![c(1.0), x(1)])),
                Some(splat(1, dret() * x(0)) * prod_others(x(1))),
            ],
            tangents: Some(vec![
                Some(Expr::DArg(0) * call(M::ReduceFMul, vec![c(1.0), x(1)])),
                Some(x(0) * reduce_sum(c(-0.0), prod_others(x(1)) * Expr::DArg(1))),
            ]),
        },
        reduce_extremum(M::ReduceFMax),
        reduce_extremum(M::ReduceFMin),
    ]
}

/// The rule table, built once.
pub(crate) fn table() -> &'static [Rule] {
    static TABLE: OnceLock<Vec<Rule>> = OnceLock::new();
    TABLE.get_or_init(build_table)
}

/// The rule for `op`, if there is one.
pub(crate) fn lookup(op: OpKey) -> Option<&'static Rule> {
    table().iter().find(|r| r.op == op)
}

#[cfg(test)]
mod tests;
