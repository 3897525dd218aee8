//! `qsort` rewritten as a permutation that synthesis can differentiate.
//!
//! `qsort(base, n, size, cmp)` permutes the elements of `base` inside
//! libc, out of reach of synthesis: their derivatives would stay where the
//! elements were. The call becomes the same sort told in IR: an index
//! array `idx = 0..n` sorted by `qsort_r` with a comparator that compares
//! the elements `idx` names (`__enz_sort_by_index`: the user's `cmp`,
//! ties broken by index, so the sort is stable), then a gather of the
//! elements into a temporary in that order and a copy back. `qsort_r`
//! only permutes integers (a known-inactive call); the gather and the copy
//! are copies of the elements, which synthesis differentiates by their
//! type (forward: the tangents move with the elements; reverse: each
//! adjoint goes back to where its element came from). Equal elements may
//! end in another order than libc's `qsort` would leave them, which C
//! does not fix either.

use crate::ir::{add_internal_function, named_function, Builder, Function, Inst, LLVMOpcode};
use crate::ir::{Block, LLVMIntPredicate, Ty, Value};
use crate::names::{QSORT, QSORT_R, SORT_BY_INDEX};

/// Rewrites every `qsort` call of `func` (module documentation).
pub(super) fn rewrite_qsort_calls(func: Function<'_>) {
    let calls: Vec<Inst> = func
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| {
            i.opcode() == Some(LLVMOpcode::LLVMCall)
                && i.called_function().is_some_and(|f| f.name() == QSORT)
                && i.call_num_args() == 4
        })
        .collect();
    for call in calls {
        rewrite(call);
    }
}

fn rewrite(call: Inst<'_>) {
    let ctx = call.context();
    let (i64t, ptr, i8t) = (Ty::int(ctx, 64), Ty::ptr(ctx), Ty::int(ctx, 8));
    let f = call.parent_block().parent();
    let b = Builder::new(ctx);
    // The comparator's context {base, size, cmp}, in the entry block.
    let entry = f.blocks()[0];
    b.position_before(entry.first_instruction().expect("an entry block"));
    let cx = b.array_alloca(i64t, b.const_int(i64t, 3));
    b.position_before(call);
    let base = call.operand(0);
    let n = b.int_cast(call.operand(1), i64t);
    let size = b.int_cast(call.operand(2), i64t);
    let cmp = call.operand(3);
    let eight = b.const_int(i64t, 8);
    let idx = b.malloc(b.mul(n, eight)).as_value();
    let tmp = b.malloc(b.mul(n, size)).as_value();
    b.store(base, cx);
    b.store(size, b.byte_gep(cx, 8));
    b.store(cmp, b.byte_gep(cx, 16));
    let start = call.parent_block();
    let rest = call.split_block_after("sort.done");
    // idx[k] = k
    let filled = counted_loop(&b, f, start, n, |b, k| {
        b.store(k, b.gep(i64t, idx, &[k]));
    });
    // qsort_r(idx, n, 8, __enz_sort_by_index, cx)
    b.position_at_end(filled);
    let by_index = by_index_fn(call);
    let qsort_r = Ty::function(Ty::void(ctx), &[ptr, i64t, i64t, ptr, ptr], false);
    b.call_named(QSORT_R, qsort_r, &[idx, n, eight, by_index.as_value(), cx]);
    // tmp[k] = base[idx[k]], indexed by element (`[size x i8]` where
    // the size is a constant) so that type analysis sees the period.
    let element = size.const_int_sext().and_then(|s| u64::try_from(s).ok());
    let gathered = counted_loop(&b, f, filled, n, |b, k| {
        let from = b.load(i64t, b.gep(i64t, idx, &[k]));
        let (src, dst) = match element {
            Some(s) => {
                let t = i8t.array(s);
                (b.gep(t, base, &[from]), b.gep(t, tmp, &[k]))
            }
            None => (
                b.gep(i8t, base, &[b.mul(from, size)]),
                b.gep(i8t, tmp, &[b.mul(k, size)]),
            ),
        };
        b.memcpy(dst, src, size);
    });
    b.position_at_end(gathered);
    b.memcpy(base, tmp, b.mul(n, size));
    b.free(tmp);
    b.free(idx);
    b.br(rest);
    call.erase();
}

/// Ends block `from` (open: no terminator yet) with `for (k = 0; k < n;
/// k++) body(k)`; returns the block after the loop, left open.
fn counted_loop<'m>(
    b: &Builder<'m>,
    f: Function<'m>,
    from: Block<'m>,
    n: Value<'m>,
    body: impl Fn(&Builder<'m>, Value<'m>),
) -> Block<'m> {
    let head = f.append_block("sort.loop");
    let after = f.append_block("sort.next");
    let i64t = n.ty();
    b.position_at_end(from);
    let zero = b.const_int(i64t, 0);
    let empty = b.icmp(LLVMIntPredicate::LLVMIntEQ, n, zero);
    b.cond_br(empty, after, head);
    b.position_at_end(head);
    let k = b.phi(i64t, "k");
    body(b, k.as_value());
    let next = b.add(k.as_value(), b.const_int(i64t, 1));
    k.add_incoming(zero, from);
    k.add_incoming(next, head);
    let more = b.icmp(LLVMIntPredicate::LLVMIntULT, next, n);
    b.cond_br(more, head, after);
    after
}

/// `int __enz_sort_by_index(const i64 *a, const i64 *b, cx)`: the user's
/// comparator on `base + *a * size` and `base + *b * size`, ties broken
/// by index.
fn by_index_fn<'m>(at: Inst<'m>) -> Function<'m> {
    let ctx = at.context();
    let module = at.parent_block().parent().global_parent();
    if let Some(f) = named_function(module, SORT_BY_INDEX) {
        return f;
    }
    let (i32t, i64t, ptr, i8t) = (
        Ty::int(ctx, 32),
        Ty::int(ctx, 64),
        Ty::ptr(ctx),
        Ty::int(ctx, 8),
    );
    let f = add_internal_function(
        module,
        SORT_BY_INDEX,
        Ty::function(i32t, &[ptr, ptr, ptr], false),
    );
    let ps = f.params();
    let b = Builder::new(ctx);
    let entry = f.append_block("entry");
    let tie = f.append_block("tie");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let (i, j) = (b.load(i64t, ps[0]), b.load(i64t, ps[1]));
    let base = b.load(ptr, ps[2]);
    let size = b.load(i64t, b.byte_gep(ps[2], 8));
    let cmp = b.load(ptr, b.byte_gep(ps[2], 16));
    let x = b.gep(i8t, base, &[b.mul(i, size)]);
    let y = b.gep(i8t, base, &[b.mul(j, size)]);
    let r = b
        .call(Ty::function(i32t, &[ptr, ptr], false), cmp, &[x, y])
        .as_value();
    let zero = b.const_int(i32t, 0);
    let equal = b.icmp(LLVMIntPredicate::LLVMIntEQ, r, zero);
    b.cond_br(equal, tie, done);
    b.position_at_end(tie);
    let gt = b.int_cast(b.icmp(LLVMIntPredicate::LLVMIntUGT, i, j), i32t);
    let lt = b.int_cast(b.icmp(LLVMIntPredicate::LLVMIntULT, i, j), i32t);
    let by_idx = b.sub(gt, lt);
    b.br(done);
    b.position_at_end(done);
    let out = b.phi(i32t, "r");
    out.add_incoming(r, entry);
    out.add_incoming(by_idx, tie);
    b.ret(Some(out.as_value()));
    f
}
