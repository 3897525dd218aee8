//! The iteration at which a counted loop leaves by an exit whose test is
//! exact (`analysis::trips::ExactExit`), computed before the loop runs.

use crate::analysis::trips::ExactExit;
use crate::ir::LLVMIntPredicate;
use crate::ir::{Builder, Ty, Value};

/// The iteration (from 0) in which a loop with exact exit `x` leaves, from
/// the values of its IV's `start` and `limit`, built with `b`: the first
/// `k` for which the go-on test of `start + (k + on_next)·step` against
/// the limit fails (0 when the first test fails: the body ran once).
pub(crate) fn exit_iteration<'m>(
    b: &Builder<'m>,
    x: &ExactExit<'m>,
    start: Value<'m>,
    limit: Value<'m>,
) -> Value<'m> {
    use LLVMIntPredicate::*;
    let ty = start.ty();
    let i64t = Ty::int(ty.context(), 64);
    let on_next = i64::from(x.on_next);
    if x.go_on == LLVMIntNE {
        // Exact modulo 2^width, a multiple of the step (the loop ends).
        let dist = if x.step > 0 {
            b.sub(limit, start)
        } else {
            b.sub(start, limit)
        };
        let steps = match x.step.unsigned_abs() {
            1 => dist,
            s => b.udiv(dist, b.const_int(ty, s as i64)),
        };
        let k = b.sub(steps, b.const_int(ty, on_next));
        return b.int_cast(k, i64t);
    }
    let signed = matches!(x.go_on, LLVMIntSLT | LLVMIntSLE | LLVMIntSGT | LLVMIntSGE);
    let ext = |v: Value<'m>| {
        if signed {
            b.sext(v, i64t)
        } else {
            b.int_cast(v, i64t)
        }
    };
    let (s, l) = (ext(start), ext(limit));
    // The distance towards the limit, in the direction of the step.
    let dist = if x.step > 0 { b.sub(l, s) } else { b.sub(s, l) };
    let step = b.const_int(i64t, x.step.unsigned_abs() as i64);
    let zero = b.const_int(i64t, 0);
    let strict = matches!(x.go_on, LLVMIntSLT | LLVMIntULT | LLVMIntSGT | LLVMIntUGT);
    // Values tested before the first failing one: ceil(dist / step) for a
    // strict test, floor(dist / step) + 1 otherwise; 0 when the first
    // value already fails.
    let tested = if strict {
        let pos = b.icmp(LLVMIntSGT, dist, zero);
        let up = b.add(dist, b.const_int(i64t, x.step.unsigned_abs() as i64 - 1));
        b.select(pos, b.udiv(up, step), zero)
    } else {
        let nonneg = b.icmp(LLVMIntSGE, dist, zero);
        let q = b.add(b.udiv(dist, step), b.const_int(i64t, 1));
        b.select(nonneg, q, zero)
    };
    // Minus the value not tested at all when the test is on the next
    // value; at least 0 (the body ran once).
    let o = b.const_int(i64t, on_next);
    let more = b.icmp(LLVMIntUGT, tested, o);
    b.select(more, b.sub(tested, o), zero)
}
