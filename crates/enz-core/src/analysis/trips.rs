//! Trip counts of loops: bounds computable before a loop nest starts (so
//! that its caches are allocated once), and exact exit iterations
//! computable at a loop's exit (so that the reverse sweep need not cache
//! them).

use super::cfg::Cfg;
use super::loops::{Loop, LoopId, LoopNest, StridedIv};
use crate::ir::{Block, Value};
use crate::ir::{LLVMIntPredicate, LLVMOpcode};

/// What bounds the number of header executions of a loop.
#[derive(Clone, Debug)]
pub(crate) enum TripBound<'m> {
    /// The least of the exits' distances (each exit an upper bound on its
    /// own: the loop leaves at the first), plus 3 (a deliberate
    /// over-estimate that covers header- and latch-tested loops and
    /// inclusive comparisons).
    Affine(Vec<AffineExit<'m>>),
    /// A constant (an IV halved each iteration until 0: its bit width).
    Constant(u64),
}

/// An exit test that an affine IV must reach: `|limit - start| / |step|`
/// iterations for an ordered comparison; for `!=` (`wraps`), the distance
/// in the direction of the step, modulo 2^64, from the value tested (the
/// IV's first value, or its second when the test is on the next value):
/// an IV counting up from 0 to -1 takes 2^64 - 1 steps, not 1, and its
/// next value reaches 0 after 2^64 - 1 steps, not 0.
///
/// The start and the limit are [`Spread`]s, each one of several
/// alternatives (a phi or select of them): the distance is the largest
/// over the alternatives. A spread that moves with an enclosing loop's IV
/// (a triangular nest: `for (j = i + 1; j < n; j++)`, `for (j = 0; j <=
/// i; j++)`) or is only known up to rounding (the vector trip count of a
/// vectorised loop) bounds ordered tests only.
#[derive(Clone, Debug)]
pub(crate) struct AffineExit<'m> {
    pub(crate) starts: Vec<Spread<'m>>,
    pub(crate) limits: Vec<Spread<'m>>,
    pub(crate) step: i64,
    pub(crate) wraps: bool,
    /// The test is on the IV's next value (`iv + step`).
    pub(crate) on_next: bool,
    /// An unsigned ordered comparison: the ends (sign-extended) may be
    /// on either side, so the distance is taken both ways. Otherwise the
    /// IV moves towards the limit: an end already past it (a loop a guard
    /// skips, whose limit may be anything) counts 0.
    pub(crate) unsigned_test: bool,
    /// The IV's width in bits: a wrapping distance is modulo 2^width.
    pub(crate) width: u32,
    /// A step known only at run time (a [`StridedIv`]'s, defined before
    /// the nest, taken as positive: `step` is then 1 and the distance is
    /// divided by it, rounding up).
    pub(crate) stride: Option<Value<'m>>,
}

/// A value computable before a loop nest starts, up to a bounded error:
/// `Σ ±terms + offset + δ` with `|δ| <= slack + Σ |step|·trips(loop)` over
/// the enclosing loops listed (whose IVs the value follows).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Spread<'m> {
    /// Values defined before the nest, each negated or not.
    pub(crate) terms: Vec<(bool, Value<'m>)>,
    pub(crate) offset: i64,
    pub(crate) slack: u64,
    pub(crate) loops: Vec<(LoopId, u64)>,
}

impl<'m> Spread<'m> {
    /// Whether the value is exactly `Σ ±terms + offset`.
    pub(crate) fn is_exact(&self) -> bool {
        self.slack == 0 && self.loops.is_empty()
    }

    fn constant(&self) -> Option<i64> {
        let mut c = self.offset;
        for (neg, t) in &self.terms {
            let k = t.const_int_sext()?;
            c = if *neg {
                c.checked_sub(k)?
            } else {
                c.checked_add(k)?
            };
        }
        self.is_exact().then_some(c)
    }

    fn plus(&self, other: &Spread<'m>, negate_other: bool) -> Option<Spread<'m>> {
        let mut out = self.clone();
        out.terms
            .extend(other.terms.iter().map(|(n, v)| (*n ^ negate_other, *v)));
        out.offset = if negate_other {
            out.offset.checked_sub(other.offset)?
        } else {
            out.offset.checked_add(other.offset)?
        };
        out.slack = out.slack.checked_add(other.slack)?;
        out.loops.extend(other.loops.iter().copied());
        (out.terms.len() <= 8 && out.offset.unsigned_abs() < 1 << 40).then_some(out)
    }
}

/// At most this many alternatives per spread.
const MAX_ALTERNATIVES: usize = 8;

impl AffineExit<'_> {
    /// Whether the exit, with constant ends, can never be the one that
    /// stops the loop in practice (over 2^40 iterations): left out.
    fn hopeless(&self) -> bool {
        let ([s], [l]) = (self.starts.as_slice(), self.limits.as_slice()) else {
            return false;
        };
        let (Some(a), Some(b)) = (s.constant(), l.constant()) else {
            return false;
        };
        let from = if self.wraps && self.on_next {
            a.wrapping_add(self.step)
        } else {
            a
        };
        let diff = b.wrapping_sub(from);
        let modulo = |d: u64| {
            if self.width < 64 {
                d & ((1u64 << self.width) - 1)
            } else {
                d
            }
        };
        let dist = if !self.wraps {
            diff.unsigned_abs()
        } else if self.step > 0 {
            modulo(diff as u64)
        } else {
            modulo(diff.wrapping_neg() as u64)
        };
        dist / self.step.unsigned_abs().max(1) > 1 << 40
    }
}

impl<'m> LoopNest<'m> {
    /// A bound on the iterations of `l` computable before `outside` (a
    /// loop enclosing `l`, or `l` itself) starts: an exiting test that
    /// every iteration passes (it dominates the latch) compares an affine
    /// IV (or its next value) with a limit, both computable there up to
    /// a bounded error ([`Spread`]).
    pub(crate) fn trip_bound(
        &self,
        cfg: &Cfg<'m>,
        l: LoopId,
        outside: LoopId,
    ) -> Option<TripBound<'m>> {
        let lp = self.get(l);
        let ivs = self.affine_ivs(l);
        let mut exits = Vec::new();
        for x in &lp.ordered {
            if !cfg.dominates(*x, lp.latch) {
                continue;
            }
            let Some(t) = x.terminator() else { continue };
            if t.opcode() != Some(LLVMOpcode::LLVMBr) || t.num_operands() != 3 {
                continue;
            }
            if !x.successors().iter().any(|s| !lp.blocks.contains(s)) {
                continue;
            }
            let c = t.operand(0);
            if c.opcode() != Some(LLVMOpcode::LLVMICmp) {
                continue;
            }
            let stays_true = lp.blocks.contains(&x.successors()[0]);
            if let Some(bits) = halving_iv_test(lp, c, stays_true) {
                return Some(TripBound::Constant(u64::from(bits) + 2));
            }
            for (a, b, pred) in go_on_tests(c, stays_true) {
                let Some(limits) = self.spread_of(b, l, outside, 0) else {
                    continue;
                };
                // `trunc(iv) != limit` (a wide IV compared in the width it
                // was extended from: an OpenMP chunk's `sext lb`): the
                // distance modulo the narrow width, exact ends only.
                let (a, narrow) = match a.opcode() {
                    Some(LLVMOpcode::LLVMTrunc) => (a.operand(0), a.ty().int_width()),
                    _ => (a, None),
                };
                for iv in &ivs {
                    if iv.gep_type.is_some() {
                        continue;
                    }
                    let Some(starts) = self.spread_of(iv.start, l, outside, 0) else {
                        continue;
                    };
                    let next = iv
                        .phi
                        .incoming()
                        .into_iter()
                        .find(|(_, blk)| *blk == lp.latch)
                        .map(|(v, _)| v);
                    // With a single exit, an IV that skipped the limit would
                    // loop forever in the primal too: `!=` with any step is
                    // a bound then.
                    let single_exit = lp
                        .blocks
                        .iter()
                        .filter(|b| b.successors().iter().any(|s| !lp.blocks.contains(s)))
                        .count()
                        == 1;
                    let bounded = bounded_by(pred, iv.step)
                        || (single_exit && pred == LLVMIntPredicate::LLVMIntNE && iv.step != 0);
                    // A wrapping distance is exact or nothing; but the
                    // only exit of a loop that ends is reached without
                    // wrapping, so its `!=` test bounds like an ordered one.
                    let exact = starts.iter().chain(&limits).all(Spread::is_exact);
                    let ne = pred == LLVMIntPredicate::LLVMIntNE;
                    let wraps = ne && exact;
                    let usable = (exact || !ne || single_exit) && (narrow.is_none() || wraps);
                    if (a == iv.phi.as_value() || Some(a) == next) && bounded && usable {
                        use LLVMIntPredicate::*;
                        let exit = AffineExit {
                            starts,
                            limits: limits.clone(),
                            step: iv.step,
                            wraps,
                            on_next: a != iv.phi.as_value(),
                            unsigned_test: matches!(
                                pred,
                                LLVMIntULT | LLVMIntULE | LLVMIntUGT | LLVMIntUGE
                            ),
                            width: narrow.or(iv.phi.ty().int_width()).unwrap_or(64),
                            stride: None,
                        };
                        if !exit.hopeless() {
                            exits.push(exit);
                        }
                    }
                }
                for iv in self.strided_ivs(l).into_iter().filter(|_| narrow.is_none()) {
                    if let Some(exit) = self.strided_exit(&iv, a, &limits, pred, l, outside) {
                        exits.push(exit);
                    }
                }
            }
        }
        (!exits.is_empty()).then_some(TripBound::Affine(exits))
    }

    /// The exit `a pred limit` (staying in the loop while true) of strided
    /// IV `iv`, when `a` is the IV or its next value, the test an ordered
    /// "less than" (the stride taken as positive: with a negative one the
    /// primal would not end), and the stride defined before the nest.
    fn strided_exit(
        &self,
        iv: &StridedIv<'m>,
        a: Value<'m>,
        limits: &[Spread<'m>],
        pred: LLVMIntPredicate,
        l: LoopId,
        outside: LoopId,
    ) -> Option<AffineExit<'m>> {
        use LLVMIntPredicate::*;
        let outer = self.get(outside);
        let before_nest = |v: Value<'m>| v.block_of().is_none_or(|b| !outer.blocks.contains(&b));
        if !matches!(pred, LLVMIntSLT | LLVMIntULT | LLVMIntSLE | LLVMIntULE)
            || !before_nest(iv.stride)
        {
            return None;
        }
        if a != iv.phi.as_value() && a != iv.next {
            return None;
        }
        Some(AffineExit {
            starts: self.spread_of(iv.start, l, outside, 0)?,
            limits: limits.to_vec(),
            step: 1,
            wraps: false,
            on_next: a != iv.phi.as_value(),
            unsigned_test: matches!(pred, LLVMIntULT | LLVMIntULE),
            width: iv.phi.ty().int_width().unwrap_or(64),
            stride: Some(iv.stride),
        })
    }

    /// The alternatives `v` may be, as [`Spread`]s computable before loop
    /// `outside` starts: `v` itself when defined outside `outside`; sums,
    /// differences, `sext`s, rounding down to a power of two (`and` with
    /// `-2^k`), phis and selects of such values; the IV of a loop
    /// enclosing `l` inside `outside`, from its start's spread.
    fn spread_of(
        &self,
        v: Value<'m>,
        l: LoopId,
        outside: LoopId,
        depth: u32,
    ) -> Option<Vec<Spread<'m>>> {
        let outer = self.get(outside);
        let invariant = |v: Value| v.block_of().is_none_or(|b| !outer.blocks.contains(&b));
        if invariant(v) {
            return Some(vec![Spread {
                terms: vec![(false, v)],
                ..Spread::default()
            }]);
        }
        if depth > 6 || !v.ty().is_integer() {
            return None;
        }
        let rec = |x: Value<'m>| self.spread_of(x, l, outside, depth + 1);
        let combine = |xs: Vec<Spread<'m>>, ys: Vec<Spread<'m>>, negate: bool| {
            let mut out = Vec::new();
            for x in &xs {
                for y in &ys {
                    push_alternative(&mut out, x.plus(y, negate)?)?;
                }
            }
            Some(out)
        };
        if v.is_disjoint_or() {
            return combine(rec(v.operand(0))?, rec(v.operand(1))?, false);
        }
        match v.opcode()? {
            LLVMOpcode::LLVMSExt => rec(v.operand(0)),
            LLVMOpcode::LLVMAdd => combine(rec(v.operand(0))?, rec(v.operand(1))?, false),
            LLVMOpcode::LLVMSub => combine(rec(v.operand(0))?, rec(v.operand(1))?, true),
            LLVMOpcode::LLVMAnd => {
                let mask = v.operand(1).const_int_sext()?;
                let width = v.ty().int_width()?;
                // x & -2^k = x - (x mod 2^k): below x by less than 2^k.
                // The same mask without the sign bit (`i & ~3` of an
                // `i >= 0`, an unrolled loop's trip count) is that too when
                // x >= 0; a negative x would make it at least 2^(width-2),
                // a limit no loop that ends reaches.
                let low = mask.trailing_zeros();
                let all_above = mask != 0 && mask >> low == -1;
                let sign_cleared = (2..=64).contains(&width)
                    && low < width - 1
                    && mask as u64 == ((1u64 << (width - 1)) - 1) & !((1u64 << low) - 1);
                if !(all_above || sign_cleared) {
                    // A small mask (an unrolled loop's remainder count):
                    // between 0 and the mask, whatever x is.
                    return (0..1 << 16).contains(&mask).then(|| {
                        vec![Spread {
                            slack: mask as u64,
                            ..Spread::default()
                        }]
                    });
                }
                if low == 0 || low > 40 {
                    return None;
                }
                let mut xs = rec(v.operand(0))?;
                for x in &mut xs {
                    x.slack = x.slack.checked_add((1u64 << low) - 1)?;
                }
                Some(xs)
            }
            LLVMOpcode::LLVMSelect => {
                let mut xs = rec(v.operand(1))?;
                for x in rec(v.operand(2))? {
                    push_alternative(&mut xs, x)?;
                }
                Some(xs)
            }
            LLVMOpcode::LLVMPHI => {
                let blk = v.block_of()?;
                if let Some(m) = self.header_of(blk) {
                    // The IV of an enclosing loop: its start, moved by
                    // |step| per iteration of that loop.
                    let lp = self.get(l);
                    if m == l || !self.contains(m, lp.header) || !self.contains(outside, blk) {
                        return None;
                    }
                    let iv = self
                        .affine_ivs(m)
                        .into_iter()
                        .find(|iv| iv.phi.as_value() == v && iv.gep_type.is_none())?;
                    let mut xs = rec(iv.start)?;
                    for x in &mut xs {
                        x.loops.push((m, iv.step.unsigned_abs()));
                    }
                    return Some(xs);
                }
                let mut xs = Vec::new();
                for (x, _) in v.as_inst()?.incoming() {
                    for alt in rec(x)? {
                        push_alternative(&mut xs, alt)?;
                    }
                }
                Some(xs)
            }
            _ => None,
        }
    }
}

/// How to compute, at a loop's exit, the iteration it left in: the loop's
/// only exiting block is its latch, whose test compares an affine integer
/// IV (or its next value) with a value defined outside the loop, so the
/// last iteration follows from the IV's start, the limit and the step.
#[derive(Copy, Clone, Debug)]
pub(crate) struct ExactExit<'m> {
    /// The IV's first value (defined outside the loop).
    pub(crate) start: Value<'m>,
    /// What it is compared with (defined outside the loop).
    pub(crate) limit: Value<'m>,
    pub(crate) step: i64,
    /// The predicate under which the loop goes on, the IV on the left.
    pub(crate) go_on: LLVMIntPredicate,
    /// The test is on the IV's next value (`iv + step`).
    pub(crate) on_next: bool,
}

impl<'m> LoopNest<'m> {
    /// The exact exit of `l`, if its trip count follows from values defined
    /// outside it (see [`ExactExit`]): `!=` (the loop's only exit: the
    /// distance is a multiple of the step, else the primal never ends), or
    /// an ordered comparison in the direction of the step.
    pub(crate) fn exact_exit(&self, l: LoopId) -> Option<ExactExit<'m>> {
        let lp = self.get(l);
        let exiting: Vec<Block> = lp
            .ordered
            .iter()
            .filter(|b| b.successors().iter().any(|s| !lp.blocks.contains(s)))
            .copied()
            .collect();
        if exiting != [lp.latch] {
            return None;
        }
        let t = lp.latch.terminator()?;
        if t.opcode() != Some(LLVMOpcode::LLVMBr) || t.num_operands() != 3 {
            return None;
        }
        let c = t.operand(0);
        if c.opcode() != Some(LLVMOpcode::LLVMICmp) {
            return None;
        }
        let stays_true = lp.blocks.contains(&lp.latch.successors()[0]);
        let outside = |v: Value| v.block_of().is_none_or(|b| !lp.blocks.contains(&b));
        for iv in self.affine_ivs(l) {
            if iv.gep_type.is_some() || !iv.phi.ty().is_integer() {
                continue;
            }
            let next = iv
                .phi
                .incoming()
                .into_iter()
                .find(|(_, blk)| *blk == lp.latch)
                .map(|(v, _)| v)?;
            for (a, b, go_on) in go_on_tests(c, stays_true) {
                if a != iv.phi.as_value() && a != next || !outside(b) {
                    continue;
                }
                // The only exit: an IV that skipped a `!=` limit would
                // loop forever in the primal too, so any step is exact.
                let ne = go_on == LLVMIntPredicate::LLVMIntNE && iv.step != 0;
                if !bounded_by(go_on, iv.step) && !ne {
                    continue;
                }
                return Some(ExactExit {
                    start: iv.start,
                    limit: b,
                    step: iv.step,
                    go_on,
                    on_next: a == next,
                });
            }
        }
        None
    }
}

/// Adds `alt` to the alternatives `xs` unless already there; `None` past
/// [`MAX_ALTERNATIVES`].
fn push_alternative<'m>(xs: &mut Vec<Spread<'m>>, alt: Spread<'m>) -> Option<()> {
    if !xs.contains(&alt) {
        xs.push(alt);
    }
    (xs.len() <= MAX_ALTERNATIVES).then_some(())
}

/// The exit test `c` read both ways round, `(a, b, pred)`: the loop goes
/// on while `a pred b` (`stays_true`: while `c` holds).
fn go_on_tests<'m>(
    c: Value<'m>,
    stays_true: bool,
) -> [(Value<'m>, Value<'m>, LLVMIntPredicate); 2] {
    let mut pred = c.icmp_predicate();
    if !stays_true {
        pred = inverse(pred);
    }
    let (x, y) = (c.operand(0), c.operand(1));
    [(x, y, pred), (y, x, swap(pred))]
}

/// Whether "go on while `iv pred limit`" stops an IV moving by `step`.
fn bounded_by(pred: LLVMIntPredicate, step: i64) -> bool {
    use LLVMIntPredicate::*;
    match pred {
        LLVMIntSLT | LLVMIntULT | LLVMIntSLE | LLVMIntULE => step > 0,
        LLVMIntSGT | LLVMIntUGT | LLVMIntSGE | LLVMIntUGE => step < 0,
        LLVMIntNE => step == 1 || step == -1,
        LLVMIntEQ => false,
    }
}

fn inverse(p: LLVMIntPredicate) -> LLVMIntPredicate {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntEQ => LLVMIntNE,
        LLVMIntNE => LLVMIntEQ,
        LLVMIntSLT => LLVMIntSGE,
        LLVMIntSGE => LLVMIntSLT,
        LLVMIntSLE => LLVMIntSGT,
        LLVMIntSGT => LLVMIntSLE,
        LLVMIntULT => LLVMIntUGE,
        LLVMIntUGE => LLVMIntULT,
        LLVMIntULE => LLVMIntUGT,
        LLVMIntUGT => LLVMIntULE,
    }
}

fn swap(p: LLVMIntPredicate) -> LLVMIntPredicate {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntSLT => LLVMIntSGT,
        LLVMIntSGT => LLVMIntSLT,
        LLVMIntSLE => LLVMIntSGE,
        LLVMIntSGE => LLVMIntSLE,
        LLVMIntULT => LLVMIntUGT,
        LLVMIntUGT => LLVMIntULT,
        LLVMIntULE => LLVMIntUGE,
        LLVMIntUGE => LLVMIntULE,
        other => other,
    }
}

/// For a loop going on while an IV shifted right each iteration is
/// non-zero (`for (s = N; s > 0; s >>= 1)`): the IV's bit width.
fn halving_iv_test<'m>(lp: &Loop<'m>, c: Value<'m>, stays_true: bool) -> Option<u32> {
    use LLVMIntPredicate::*;
    let (a, b) = (c.operand(0), c.operand(1));
    if b.const_int_sext() != Some(0) {
        return None;
    }
    let mut pred = c.icmp_predicate();
    if !stays_true {
        pred = inverse(pred);
    }
    if !matches!(pred, LLVMIntSGT | LLVMIntUGT | LLVMIntNE) {
        return None;
    }
    for phi in lp.header.instructions() {
        if phi.opcode() != Some(LLVMOpcode::LLVMPHI) {
            break;
        }
        let next = phi
            .incoming()
            .into_iter()
            .find(|(_, blk)| *blk == lp.latch)
            .map(|(v, _)| v)?;
        let halves = matches!(
            next.opcode(),
            Some(LLVMOpcode::LLVMLShr | LLVMOpcode::LLVMAShr)
        ) && next.operand(0) == phi
            && next.operand(1).const_int_sext().is_some_and(|k| k > 0);
        if halves && (a == phi || a == next) {
            if let crate::ir::TyKind::Integer(bits) = phi.ty().kind() {
                return Some(bits);
            }
        }
    }
    None
}
