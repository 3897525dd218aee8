//! The derivative rule table: one entry per differentiable operation.
//!
//! Each [`Rule`] gives, for every operand, its adjoint as an [`Expr`] over the
//! operands (`x(i)`), the primal result (`ret()`) and the result's adjoint
//! (`dret()`), or `None` for an operand that carries no derivative. The
//! tangent (forward-mode) formula is derived from the adjoints by
//! substituting each operand's tangent for `dret()` and summing, unless the
//! entry writes out each operand's term (`Rule::tangents`). Rules are pure
//! data: choosing one builds no IR (see `synth::emit` for that).
//!
//! Most rules are [`Shape::Elementwise`]: scalar operands and result, or
//! vectors taken lane by lane (a vector reduction's vector operand is one
//! operand too, handled whole by `Splat`, `ProdOthers` and `FirstLaneEq`).
//! Functions of complex numbers and functions with two results are
//! [`Shape::Components`]: their operands and result are taken apart into
//! scalar components (a `{double, double}` result, a `<2 x float>` complex
//! argument), `x(i)` is the i-th component of the operands in order, and
//! `ret_at(j)`/`dret_at(j)` the j-th component of the result and its
//! adjoint; the tangent of result component j is derived with `dret_at(j)`
//! replaced by the operand's tangent and the other result adjoints by zero.
//!
//! Either way a tangent is a sum of one term per active operand
//! ([`Rule::tangent_of_output`]), so an inactive operand drops out instead
//! of contributing `0 * ...`; a hand-written term replaces the derived one
//! operand by operand, and only elementwise rules (one result) write them.

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
    /// Component `j` of the primal result ([`Shape::Components`]).
    RetAt(usize),
    /// The adjoint of component `j` of the result ([`Shape::Components`]).
    DRetAt(usize),
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

/// How a rule's operands and result are laid out (see the module
/// documentation).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Shape {
    /// Scalars, or vectors taken lane by lane.
    Elementwise,
    /// Structs and fixed vectors taken apart into scalar components.
    Components,
}

/// One derivative rule.
#[derive(Clone, Debug)]
pub(crate) struct Rule {
    pub(crate) op: OpKey,
    pub(crate) shape: Shape,
    /// Adjoint contribution to each operand; `None` = no derivative.
    pub(crate) adjoints: Vec<Option<Expr>>,
    /// Hand-written tangent terms, one per operand (operand `i`'s term is
    /// linear in `DArg(i)`), when the derived ones are wrong: type-changing
    /// casts, and vector operands of a scalar result (their term is a sum
    /// over lanes, which substituting `DArg(i)` for `DRet` cannot give).
    /// `None`: every term derived from the adjoints. Only
    /// [`Shape::Elementwise`] rules write them (see [`Rule::with_tangents`]).
    pub(crate) tangents: Option<Vec<Option<Expr>>>,
}

impl Rule {
    /// Operand `i`'s term of the tangent of result component `j`: the
    /// hand-written one, or its adjoint with `DArg(i)` for the adjoint of
    /// result component `j` (and zero for the others); `None` when the
    /// operand contributes nothing.
    fn tangent_term(&self, i: usize, j: usize) -> Option<Expr> {
        match &self.tangents {
            Some(terms) => {
                debug_assert!(j == 0, "hand-written tangents have one result");
                terms.get(i).cloned().flatten()
            }
            None => self
                .adjoints
                .get(i)?
                .as_ref()?
                .substitute_output(j, &Expr::DArg(i)),
        }
    }

    /// The forward-mode (tangent) formula: the sum of every operand's term.
    #[cfg_attr(not(test), allow(dead_code))] // forward mode's formula; tested now
    pub(crate) fn tangent(&self) -> Expr {
        self.tangent_of_output(0, &vec![true; self.adjoints.len()])
    }

    /// The tangent formula when only the operands marked in `active` carry
    /// tangents (the others contribute nothing, instead of a `* 0`).
    pub(crate) fn tangent_over(&self, active: &[bool]) -> Expr {
        self.tangent_of_output(0, active)
    }

    /// The tangent of result component `j` ([`Shape::Components`]; 0 is
    /// the whole result of an elementwise rule) when only the operands
    /// marked in `active` carry tangents: the sum of their terms.
    pub(crate) fn tangent_of_output(&self, j: usize, active: &[bool]) -> Expr {
        let mut terms = (0..self.adjoints.len())
            .filter(|i| active.get(*i).copied().unwrap_or(false))
            .filter_map(|i| self.tangent_term(i, j));
        let first = terms.next().unwrap_or(Expr::Const(0.0));
        terms.fold(first, |acc, t| acc + t)
    }
}

impl Expr {
    /// The formula with the adjoint of result component `j` replaced by
    /// `with` and those of the other components by zero; `None` when it is
    /// zero then (adjoints are linear in the result adjoints, so zero
    /// terms drop out instead of leaving `0 * ...`).
    fn substitute_output(&self, j: usize, with: &Expr) -> Option<Expr> {
        let s = |e: &Expr| e.substitute_output(j, with);
        let zero_if_none = |e: Option<Expr>| e.unwrap_or(Expr::Const(0.0));
        Some(match self {
            Expr::DRet | Expr::DRetAt(0) if j == 0 => with.clone(),
            Expr::DRet | Expr::DRetAt(_) if !matches!(self, Expr::DRetAt(k) if *k == j) => {
                return None
            }
            Expr::DRetAt(_) => with.clone(),
            Expr::Add(a, b) => match (s(a), s(b)) {
                (Some(a), Some(b)) => a + b,
                (a, b) => a.or(b)?,
            },
            Expr::Sub(a, b) => match (s(a), s(b)) {
                (Some(a), Some(b)) => a - b,
                (Some(a), None) => a,
                (None, b) => -b?,
            },
            Expr::Mul(a, b) => s(a)? * s(b)?,
            Expr::Div(a, b) => s(a)? / s(b)?,
            Expr::Neg(a) => -s(a)?,
            Expr::Math(f, args) => {
                Expr::Math(*f, args.iter().map(|a| zero_if_none(s(a))).collect())
            }
            Expr::Select(c, a, b) => {
                let (a, b) = (s(a), s(b));
                if a.is_none() && b.is_none() {
                    return None;
                }
                let c = match &**c {
                    Cond::Arg(i) => Cond::Arg(*i),
                    Cond::Cmp(p, l, r) => Cond::Cmp(*p, zero_if_none(s(l)), zero_if_none(s(r))),
                };
                Expr::Select(
                    Box::new(c),
                    Box::new(zero_if_none(a)),
                    Box::new(zero_if_none(b)),
                )
            }
            Expr::ToArgType(i, a) => Expr::ToArgType(*i, Box::new(s(a)?)),
            Expr::ToRetType(a) => Expr::ToRetType(Box::new(s(a)?)),
            Expr::IntToFp(a) => Expr::IntToFp(Box::new(s(a)?)),
            Expr::IntAdd(a, k) => Expr::IntAdd(Box::new(s(a)?), *k),
            Expr::Splat(i, a) => Expr::Splat(*i, Box::new(s(a)?)),
            // Not linear in its operand: a zero operand stays an operand.
            Expr::ProdOthers(a) => Expr::ProdOthers(Box::new(zero_if_none(s(a)))),
            // Linear in `val` only.
            Expr::FirstLaneEq { vec, key, val } => Expr::FirstLaneEq {
                vec: Box::new(zero_if_none(s(vec))),
                key: Box::new(zero_if_none(s(key))),
                val: Box::new(s(val)?),
            },
            leaf => leaf.clone(),
        })
    }
}

/// Which primal values (operands, result) a set of formulas mentions.
#[derive(Default, Debug)]
pub(crate) struct PrimalUses {
    pub(crate) args: Vec<usize>,
    pub(crate) ret: bool,
    /// Components of the result ([`Expr::RetAt`]).
    pub(crate) rets: Vec<usize>,
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
            Expr::RetAt(j) => {
                if !self.rets.contains(j) {
                    self.rets.push(*j);
                }
            }
            Expr::DRet | Expr::DRetAt(_) | Expr::DArg(_) | Expr::Const(_) | Expr::Given(_) => {}
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
fn ret_at(j: usize) -> Expr {
    Expr::RetAt(j)
}
fn dret_at(j: usize) -> Expr {
    Expr::DRetAt(j)
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
/// `a == b ? t : f`
fn if_eq(a: Expr, b: Expr, t: Expr, f: Expr) -> Expr {
    Expr::Select(
        Box::new(Cond::Cmp(LLVMRealPredicate::LLVMRealOEQ, a, b)),
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
    let pick = |v| first_lane_eq(x(0), ret(), v);
    math(f, vec![Some(pick(dret()))])
        // A vector operand: the tangent is the chosen lane of its tangent.
        .with_tangents(vec![Some(reduce_sum(c(-0.0), pick(Expr::DArg(0))))])
}
/// `fpext`/`fptrunc`: the adjoint converted back to the operand's type,
/// the tangent to the result's (a derived one would keep the operand's).
fn float_cast(op: LLVMOpcode) -> Rule {
    inst(op, vec![Some(Expr::ToArgType(0, Box::new(dret())))])
        .with_tangents(vec![Some(Expr::ToRetType(Box::new(Expr::DArg(0))))])
}

fn inst(op: LLVMOpcode, adjoints: Vec<Option<Expr>>) -> Rule {
    Rule {
        op: OpKey::Inst(op),
        shape: Shape::Elementwise,
        adjoints,
        tangents: None,
    }
}
fn math(f: MathFn, adjoints: Vec<Option<Expr>>) -> Rule {
    Rule {
        op: OpKey::Math(f),
        shape: Shape::Elementwise,
        adjoints,
        tangents: None,
    }
}
/// A rule over scalar components ([`Shape::Components`]).
fn components(f: MathFn, adjoints: Vec<Option<Expr>>) -> Rule {
    Rule {
        shape: Shape::Components,
        ..math(f, adjoints)
    }
}
/// The adjoint of the real and imaginary parts of the argument of a
/// holomorphic function with derivative `u + iv` at it: conj(f') times the
/// result's adjoint `(dret_at(0), dret_at(1))`.
fn holomorphic(u: Expr, v: Expr) -> [Option<Expr>; 2] {
    [
        Some(dret_at(0) * u.clone() + dret_at(1) * v.clone()),
        Some(dret_at(1) * u - dret_at(0) * v),
    ]
}
impl Rule {
    /// The rule with hand-written tangent terms, one per operand, instead
    /// of those derived from the adjoints. Elementwise rules only: a rule
    /// over components derives the tangent of each result component.
    fn with_tangents(self, terms: Vec<Option<Expr>>) -> Rule {
        assert_eq!(self.shape, Shape::Elementwise, "{:?}", self.op);
        assert_eq!(terms.len(), self.adjoints.len(), "{:?}", self.op);
        Rule {
            tangents: Some(terms),
            ..self
        }
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
        float_cast(LLVMFPExt),
        float_cast(LLVMFPTrunc),
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
        math(
            M::Erfc,
            vec![Some(
                -(dret() * c(TWO_OVER_SQRT_PI) * call(M::Exp, vec![-sq(x(0))])),
            )],
        ),
        math(
            M::Asinh,
            vec![Some(dret() / call(M::Sqrt, vec![sq(x(0)) + c(1.0)]))],
        ),
        math(
            M::Acosh,
            vec![Some(dret() / call(M::Sqrt, vec![sq(x(0)) - c(1.0)]))],
        ),
        math(M::Atanh, vec![Some(dret() / (c(1.0) - sq(x(0))))]),
        math(M::Exp10, vec![Some(dret() * ret() * c(LN10))]),
        // fdim(a, b) = a > b ? a - b : 0
        math(
            M::Fdim,
            vec![
                Some(if_gt(x(0), x(1), dret(), c(0.0))),
                Some(if_gt(x(0), x(1), -dret(), c(0.0))),
            ],
        ),
        // remainder(a, b) = a - b roundeven(a / b)
        math(
            M::Remainder,
            vec![
                Some(dret()),
                Some(-(dret() * call(M::RoundEven, vec![x(0) / x(1)]))),
            ],
        ),
        // j0' = -j1, y0' = -y1; j1' = j0 - j1 / x (1/2 at 0), y1' = y0 - y1 / x
        math(M::J0, vec![Some(-(dret() * call(M::J1, vec![x(0)])))]),
        math(
            M::J1,
            vec![Some(
                dret() * if_eq(x(0), c(0.0), c(0.5), call(M::J0, vec![x(0)]) - ret() / x(0)),
            )],
        ),
        math(M::Y0, vec![Some(-(dret() * call(M::Y1, vec![x(0)])))]),
        math(
            M::Y1,
            vec![Some(dret() * (call(M::Y0, vec![x(0)]) - ret() / x(0)))],
        ),
        // lgamma' = ψ, tgamma' = Γ ψ
        math(M::Lgamma, vec![Some(dret() * call(M::Digamma, vec![x(0)]))]),
        // lgamma_r(x, &sign): the same derivative; the sign is an integer.
        math(
            M::LgammaR,
            vec![Some(dret() * call(M::Digamma, vec![x(0)])), None],
        ),
        math(
            M::Tgamma,
            vec![Some(dret() * ret() * call(M::Digamma, vec![x(0)]))],
        ),
        // ---- exponent manipulation: x 2^n and its inverses ----
        math(
            M::Ldexp,
            vec![Some(call(M::Ldexp, vec![dret(), x(1)])), None],
        ),
        math(
            M::Scalbn,
            vec![Some(call(M::Scalbn, vec![dret(), x(1)])), None],
        ),
        math(
            M::Scalbln,
            vec![Some(call(M::Scalbln, vec![dret(), x(1)])), None],
        ),
        // frexp(x, &e) = x 2^-e exactly, so 2^-e = ret / x (e = 0 at x = 0).
        math(
            M::Frexp,
            vec![
                Some(if_eq(x(0), c(0.0), dret(), dret() * (ret() / x(0)))),
                None,
            ],
        ),
        // modf(x, &ip) (or llvm.modf(x) = {frac, int}): frac' = 1, int' = 0.
        components(M::Modf, vec![Some(dret_at(0)), None]),
        flat(M::Ilogb),
        flat(M::Logb),
        // ---- complex numbers, as (re, im) components ----
        components(
            M::Cabs,
            vec![Some(dret() * x(0) / ret()), Some(dret() * x(1) / ret())],
        ),
        // carg(a + ib) = atan2(b, a)
        components(
            M::Carg,
            vec![
                Some(-(dret() * x(1)) / (sq(x(0)) + sq(x(1)))),
                Some(dret() * x(0) / (sq(x(0)) + sq(x(1)))),
            ],
        ),
        // cexp' = cexp
        components(M::Cexp, holomorphic(ret_at(0), ret_at(1)).to_vec()),
        // (a + ib)(c + id): d/d(a + ib) = c + id, d/d(c + id) = a + ib
        components(M::CMul, {
            let mut v = holomorphic(x(2), x(3)).to_vec();
            v.extend(holomorphic(x(0), x(1)));
            v
        }),
        // q = (a + ib)/(c + id): d/d(a + ib) = 1/(c + id), d/d(c + id) = -q/(c + id)
        components(M::CDiv, {
            let den = || sq(x(2)) + sq(x(3));
            let mut v = holomorphic(x(2) / den(), -x(3) / den()).to_vec();
            v.extend(holomorphic(
                -(ret_at(0) * x(2) + ret_at(1) * x(3)) / den(),
                -(ret_at(1) * x(2) - ret_at(0) * x(3)) / den(),
            ));
            v
        }),
        // ---- vector reductions (operand 1 / 0 is the vector) ----
        // Tangent terms are written out: the adjoint of a vector operand is
        // a vector, its tangent contribution the sum over lanes.
        math(M::ReduceFAdd, vec![Some(dret()), Some(splat(1, dret()))]).with_tangents(vec![
            Some(Expr::DArg(0)),
            Some(reduce_sum(c(-0.0), Expr::DArg(1))),
        ]),
        // start · Π v: d start = Π v, d v_k = start · Π_{j≠k} v_j.
        math(
            M::ReduceFMul,
            vec![
                Some(dret() * call(M::ReduceFMul, vec![c(1.0), x(1)])),
                Some(splat(1, dret() * x(0)) * prod_others(x(1))),
            ],
        )
        .with_tangents(vec![
            Some(Expr::DArg(0) * call(M::ReduceFMul, vec![c(1.0), x(1)])),
            Some(x(0) * reduce_sum(c(-0.0), prod_others(x(1)) * Expr::DArg(1))),
        ]),
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
    #[cfg(feature = "fault-injection")]
    if fault::active(fault::Fault::DropFmulTerm) && op == OpKey::Inst(LLVMOpcode::LLVMFMul) {
        static WRONG: OnceLock<Rule> = OnceLock::new();
        return Some(
            WRONG.get_or_init(|| inst(LLVMOpcode::LLVMFMul, vec![Some(dret() * x(1)), None])),
        );
    }
    table().iter().find(|r| r.op == op)
}

#[cfg(feature = "fault-injection")]
pub mod fault;

#[cfg(test)]
mod tests;
