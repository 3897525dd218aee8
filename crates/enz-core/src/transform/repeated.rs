//! Loops that repeat one computation (`analysis/repeated.rs`) keep one
//! iteration to differentiate: the earlier ones run first, as primal code
//! only, in a function of their own (`__enz_repeat_<f>.<n>`, whose calls
//! carry no derivative), and the loop's blocks become straight-line code
//! run once, the last iteration.
//!
//! ```text
//!   preheader:  more = <the exit test of the first iteration says go on>
//!               __enz_repeat_f.n(inputs..., more, start + step)
//!   header ... latch: the loop's blocks, once; the latch leaves
//!
//!   __enz_repeat_f.n(inputs..., more, second):
//!               if more: the loop's blocks from iv = second, as they were
//! ```
//!
//! So the primal work is the same (the loop still runs its `n`
//! iterations), the derivative differentiates one and caches nothing per
//! repetition, and what the earlier iterations write is written again, to
//! the same values, by the last before anything reads it.

use super::loop_clone::{clone_blocks, live_ins, PhiEdges};
use crate::analysis::cfg::Cfg;
use crate::analysis::loops::LoopNest;
use crate::analysis::repeated::{repeated_loops, Repeated};
use crate::ir::{add_internal_function, Block, Builder, Function, Ty, Value};
use std::collections::HashMap;

/// The most loops rewritten in one function (each rewrite recomputes the
/// loop nest).
const MAX_REWRITES: usize = 16;

/// Rewrites every loop of `func` that repeats one computation; how many.
pub(crate) fn run_earlier_iterations_as_primal(func: Function<'_>) -> usize {
    let mut n = 0;
    while n < MAX_REWRITES {
        let cfg = Cfg::new(func);
        let Ok(loops) = LoopNest::new(&cfg) else {
            break;
        };
        let found = repeated_loops(func, &cfg, &loops);
        let Some(r) = found.first() else {
            break;
        };
        rewrite(func, &loops, r, n);
        n += 1;
    }
    n
}

/// Rewrites loop `r` of `func` (see the module documentation); `n`
/// numbers the functions made from `func`.
fn rewrite<'m>(func: Function<'m>, loops: &LoopNest<'m>, r: &Repeated<'m>, n: usize) {
    let ctx = func.context();
    let lp = loops.get(r.lp);
    let (header, latch, pre) = (lp.header, lp.latch, lp.preheader);
    let mut blocks: Vec<Block<'m>> = vec![header];
    blocks.extend(lp.ordered.iter().copied().filter(|b| *b != header));
    let inside = |b: Block<'m>| lp.blocks.contains(&b);
    let inputs = live_ins(&blocks, inside, PhiEdges::FromInside);

    // In the preheader: whether a second iteration runs, and its IV.
    let b = Builder::new(ctx);
    b.position_before(pre.terminator().expect("a preheader ends in a branch"));
    let iv_ty = r.iv.ty();
    let step = b.const_int(iv_ty, r.exit.step);
    let second = b.add(r.exit.start, step);
    let tested = if r.exit.on_next { second } else { r.exit.start };
    let more = b.icmp(r.exit.go_on, tested, r.exit.limit);

    let i1 = Ty::int(ctx, 1);
    let mut params: Vec<Ty<'m>> = inputs.iter().map(|v| v.ty()).collect();
    params.push(i1);
    params.push(iv_ty);
    let name = func.name();
    let user = name.strip_prefix("preprocess_").unwrap_or(&name);
    let user = user.strip_suffix(".template").unwrap_or(user);
    let module = func.global_parent();
    let fty = Ty::function(Ty::void(ctx), &params, false);
    let rep = add_internal_function(
        module,
        &format!("{}{user}.{n}", crate::names::REPEAT_PREFIX),
        fty,
    );
    func.copy_function_attributes_to(rep, |_| false);
    rep.add_function_attribute("noinline");
    let ps = rep.params();
    let mut map: HashMap<Value<'m>, Value<'m>> = HashMap::new();
    for (k, v) in inputs.iter().enumerate() {
        map.insert(*v, ps[k]);
    }
    let entry = rep.append_block("entry");
    let clones = clone_blocks(&blocks, rep, &mut map, |i| i == r.iv);
    let done = rep.append_block("done");
    let rb = Builder::new(ctx);
    rb.position_at_end(done);
    rb.ret(None);
    let cheader = clones.blocks[&header];
    match cheader.first_instruction() {
        Some(i) => rb.position_before(i),
        None => rb.position_at_end(cheader),
    }
    let phi = rb.phi(iv_ty, &r.iv.name());
    map.insert(r.iv.as_value(), phi.as_value());
    clones.patch(&map, |_, to| (!inside(to)).then_some(done));
    let next =
        r.iv.incoming()
            .into_iter()
            .find(|(_, from)| *from == latch)
            .map(|(v, _)| v)
            .expect("the induction variable's next value");
    phi.add_incoming(ps[inputs.len() + 1], entry);
    phi.add_incoming(
        map.get(&next).copied().unwrap_or(next),
        clones.blocks[&latch],
    );
    rb.position_at_end(entry);
    rb.cond_br(ps[inputs.len()], cheader, done);

    // The call, then the loop's blocks once.
    let mut args = inputs.clone();
    args.push(more);
    args.push(second);
    let call = b.call(fty, rep.as_value(), &args);
    if let Some(t) = latch.terminator() {
        call.copy_debug_loc(t);
    }
    // The header's only phi was the induction variable: the first
    // iteration's value, and no back edge.
    r.iv.as_value().replace_all_uses_with(r.exit.start);
    r.iv.erase();
    let t = latch.terminator().expect("a latch ends in a branch");
    let lb = Builder::new(ctx);
    lb.position_before(t);
    lb.br(r.exit_block);
    t.erase();
}

/// `--explain`'s notes on the loops of `func` (a preprocessed clone) whose
/// earlier iterations run as primal code: one per call of a function this
/// transform made, with the loop's line when the call has one.
pub(crate) fn notes(func: Function<'_>) -> Vec<String> {
    let mut out = Vec::new();
    for b in func.blocks() {
        for i in b.instructions() {
            let Some(f) = i.called_function() else {
                continue;
            };
            let name = f.name();
            if !name.starts_with(crate::names::REPEAT_PREFIX) {
                continue;
            }
            let at = i
                .as_value()
                .debug_location()
                .map(|l| format!(" at {l}"))
                .unwrap_or_default();
            out.push(format!(
                "the loop{at} repeats one computation (each iteration computes the same from what it does not write): its iterations but the last run as primal code in `{name}`, the last is differentiated, caching nothing per repetition"
            ));
        }
    }
    out
}
