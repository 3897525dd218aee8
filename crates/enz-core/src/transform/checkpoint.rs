//! Outlining a loop to checkpoint (see `analysis/checkpoint.rs`) out of
//! the preprocessed function, into three internal functions over the
//! loop's inputs (the values it uses from before it, in a fixed order) and
//! its state (a struct in memory: the header phis, then the values the
//! loop leaves with):
//!
//! ```text
//!   body(inputs..., state) -> i1       one iteration: the header phis are
//!                                      loaded from the state, the next
//!                                      values stored back (true: go on),
//!                                      or the exit values stored (false)
//!   driver(inputs..., state)           calls body until it says stop
//!   ranges(inputs..., state, out)      the byte ranges the loop may write
//!                                      (`out[2r]`, `out[2r+1]`: start and
//!                                      end of range r; range 0 is the
//!                                      state), computed before it runs
//! ```
//!
//! The preheader then stores the initial values in a stack slot for the
//! state, calls the driver and branches to the exit, whose phis become
//! loads from the state. The driver is differentiated by
//! `synth/checkpoint/`; the body like any function.

use super::loop_clone::PhiEdges;
use crate::analysis::checkpoint::{Candidate, Cond, StoreRange, TripFacts};
use crate::analysis::loops::LoopNest;
use crate::ir::{add_internal_function, Block, Builder, Function, Inst, LLVMOpcode, Ty, Value};
use crate::options::CacheBudget;
use std::collections::{HashMap, HashSet};

/// The functions a loop was outlined into.
#[derive(Clone, Debug)]
pub(crate) struct Outlined<'m> {
    pub(crate) driver: Function<'m>,
    pub(crate) body: Function<'m>,
    pub(crate) ranges: Function<'m>,
    /// How many ranges `ranges` writes (the state's included).
    pub(crate) count: u32,
    /// When the loop was kept beside the driver's call (`choose.rs`): its
    /// header, and the bound on its caches that chooses (`choose::bound`),
    /// if one does (else only the overlap check, `versioned`).
    pub(crate) plain: Option<(Block<'m>, Option<crate::explain::PlainBound>)>,
    /// When the loop is versioned on a run-time overlap check
    /// (`analysis::overlap`): the loop (`loop N at file:line`) and the
    /// check, in words. The plain loop runs when the ranges overlap.
    pub(crate) versioned: Option<(String, String)>,
    /// `file:line` of the loop, with debug info.
    pub(crate) location: Option<String>,
    /// The user's function it was outlined from (set by the registry).
    pub(crate) function: String,
    /// The state's type; its pointer fields, and the inputs (by index)
    /// those pointers may be: a pointer field's shadow is the shadow of
    /// the input it equals.
    pub(crate) state_ty: Ty<'m>,
    pub(crate) pointer_fields: Vec<u32>,
    pub(crate) pointer_inputs: Vec<usize>,
}

/// Outlines the loop of `cand` out of `f` (see the module comment); `n`
/// numbers the loops outlined from `f`.
pub(crate) fn outline<'m>(
    f: Function<'m>,
    loops: &LoopNest<'m>,
    cand: &Candidate<'m>,
    n: usize,
    budget: CacheBudget,
) -> Outlined<'m> {
    let ctx = f.context();
    let lp = loops.get(cand.lp);
    let location = crate::analysis::loops::loop_location(lp);
    let (header, latch, pre, exit) = (lp.header, lp.latch, lp.preheader, cand.exit);
    let inside = |b: Block<'m>| lp.blocks.contains(&b);
    let mut blocks: Vec<Block> = vec![header];
    blocks.extend(lp.ordered.iter().copied().filter(|b| *b != header));
    let header_phis: Vec<Inst> = phis(header);
    let exit_phis: Vec<Inst> = phis(exit);

    // The inputs: values from before the loop that it uses.
    let mut inputs = super::loop_clone::live_ins(&blocks, inside, PhiEdges::FromInside);
    let mut seen: HashSet<Value> = inputs.iter().copied().collect();
    let mut input = |v: Value<'m>| {
        let outer = v.is_argument() || v.as_inst().is_some_and(|i| !inside(i.parent_block()));
        if outer && !v.is_block_value() && seen.insert(v) {
            inputs.push(v);
        }
    };
    for p in &exit_phis {
        for (v, _) in p.incoming() {
            input(v);
        }
    }
    // And the values from before the loop that `ranges` computes from
    // (the pointers a header phi starts with, among them).
    let mut leaves = Vec::new();
    for st in &cand.stores {
        for r in &st.roots {
            range_leaves(cand, *r, &inside, &mut leaves);
        }
        for (v, _) in &st.inv {
            range_leaves(cand, *v, &inside, &mut leaves);
        }
        for t in &st.loops {
            for v in [t.exit.start, t.exit.limit] {
                range_leaves(cand, v, &inside, &mut leaves);
            }
            cond_leaves(cand, &t.guard, &inside, &mut leaves);
        }
    }
    for v in &cand.pointer_roots {
        range_leaves(cand, *v, &inside, &mut leaves);
    }
    for v in leaves {
        input(v);
    }

    let mut fields: Vec<Ty> = header_phis.iter().map(|p| p.ty()).collect();
    fields.extend(exit_phis.iter().map(|p| p.ty()));
    let state_ty = Ty::literal_struct(ctx, &fields);
    let ptr = Ty::ptr(ctx);
    let i1 = Ty::int(ctx, 1);
    let i32t = Ty::int(ctx, 32);
    let mut params: Vec<Ty> = inputs.iter().map(|v| v.ty()).collect();
    params.push(ptr);
    let module = f.global_parent();
    let name = f.name();
    let user = name.strip_prefix("preprocess_").unwrap_or(&name);
    let base = format!("{user}.checkpoint{n}");
    let new_fn = |suffix: &str, ret: Ty<'m>, extra: &[Ty<'m>]| {
        let mut ps = params.clone();
        ps.extend_from_slice(extra);
        let g = add_internal_function(
            module,
            &format!("{base}.{suffix}"),
            Ty::function(ret, &ps, false),
        );
        f.copy_function_attributes_to(g, |_| false);
        g.add_function_attribute("noinline");
        g
    };
    let body = new_fn("body", i1, &[]);
    let driver = new_fn("driver", Ty::void(ctx), &[]);
    let ranges = new_fn("ranges", Ty::void(ctx), &[ptr]);
    let field = |b: &Builder<'m>, state: Value<'m>, k: usize| {
        b.gep(
            state_ty,
            state,
            &[b.const_int(i32t, 0), b.const_int(i32t, k as i64)],
        )
    };

    // body: the loop's blocks, the header phis loaded from the state.
    let bp = body.params();
    let state = bp[inputs.len()];
    let mut map: HashMap<Value<'m>, Value<'m>> = HashMap::new();
    for (k, v) in inputs.iter().enumerate() {
        map.insert(*v, bp[k]);
    }
    // The header phis: loaded from the state on entry.
    let bb = Builder::new(ctx);
    let entry = body.append_block("state");
    bb.position_at_end(entry);
    for (k, p) in header_phis.iter().enumerate() {
        let v = bb.load(p.ty(), field(&bb, state, k));
        map.insert(p.as_value(), v);
    }
    let clones = super::loop_clone::clone_blocks(&blocks, body, &mut map, |_| false);
    bb.position_at_end(entry);
    bb.br(clones.blocks[&header]);
    let get = |v: Value<'m>| map.get(&v).copied().unwrap_or(v);
    // The edges leaving an iteration: the back edge stores the next values
    // and says go on; the exit stores what the loop leaves with.
    let go_on = body.append_block("next");
    bb.position_at_end(go_on);
    for (k, p) in header_phis.iter().enumerate() {
        let next = p
            .incoming()
            .into_iter()
            .find(|(_, from)| *from == latch)
            .map(|(v, _)| v)
            .expect("a latch value");
        bb.store(get(next), field(&bb, state, k));
    }
    bb.ret(Some(bb.const_int(i1, 1)));
    // One block per edge leaving the loop, storing what the loop leaves
    // with from that block.
    let mut stops: HashMap<Block<'m>, Block<'m>> = HashMap::new();
    for from in blocks.iter().filter(|b| b.successors().contains(&exit)) {
        let stop = body.append_block("stop");
        bb.position_at_end(stop);
        for (j, p) in exit_phis.iter().enumerate() {
            let v = p
                .incoming()
                .into_iter()
                .find(|(_, b)| b == from)
                .map(|(v, _)| v)
                .expect("an exit phi has a value from each block leaving");
            bb.store(get(v), field(&bb, state, header_phis.len() + j));
        }
        bb.ret(Some(bb.const_int(i1, 0)));
        stops.insert(*from, stop);
    }
    clones.patch(&map, |from, target| {
        if target == exit {
            Some(stops[&from])
        } else if target == header && from == latch {
            Some(go_on)
        } else {
            None
        }
    });

    // driver: call the body until it says stop.
    let dp = driver.params();
    let entry = driver.append_block("entry");
    let again = driver.append_block("iteration");
    let done = driver.append_block("done");
    bb.position_at_end(entry);
    bb.br(again);
    bb.position_at_end(again);
    let more = bb.call(body.function_type(), body, &dp);
    bb.cond_br(more.as_value(), again, done);
    bb.position_at_end(done);
    bb.ret(None);

    // ranges: what the loop may write, from its inputs.
    let count = build_ranges(ranges, &inputs, state_ty, cand, &inside);

    // The loop in `f`: the state on the heap (in split mode the reverse
    // function reads it after the augmented one has returned: a stack slot
    // would be gone), the driver called from the preheader, the exit's
    // phis loaded from the state, which is then freed. With a bound on
    // what the loop caches running plainly (`choose.rs`), the loop stays,
    // entered when the bound fits the budget; else it goes.
    let inits: Vec<Value<'m>> = header_phis
        .iter()
        .map(|p| {
            p.incoming()
                .into_iter()
                .find(|(_, from)| *from == pre)
                .map(|(v, _)| v)
                .expect("a preheader value")
        })
        .collect();
    let fb = Builder::new(ctx);
    let term = pre.terminator().expect("a preheader branch");
    fb.position_before(term);
    let choosable = (cand.estimate.as_ref()).filter(|est| super::choose::can_choose(est, budget));
    let versioned = cand.overlap.as_ref();
    let kept = (choosable.is_some() || versioned.is_some()).then(|| {
        let fits =
            choosable.map(|est| super::choose::runs_plainly(&fb, est, cand, &inside, budget));
        // Versioned: plain also when what it reads may be written after.
        let overlap = versioned.map(|check| {
            let recomputed = |b: Block<'m>| inside(b) || check.later.contains(&b);
            super::choose::overlaps(&fb, check, cand, &recomputed)
        });
        let plainly = match (fits, overlap) {
            (Some(x), Some(o)) => fb.select(x, fb.const_int(i1, 1), o),
            (Some(x), None) | (None, Some(x)) => x,
            (None, None) => unreachable!("kept without a choice"),
        };
        let run = f.append_block(&format!("{base}.run"));
        let plain = f.append_block(&format!("{base}.plain"));
        fb.cond_br(plainly, plain, run);
        fb.position_at_end(plain);
        fb.br(header);
        header.redirect_phi_incoming(pre, plain);
        fb.position_at_end(run);
        (run, choosable.map(super::choose::bound))
    });
    let i64t = Ty::int(ctx, 64);
    let size = state_ty.alloc_size(f.global_parent()).max(1);
    let slot = fb.malloc(fb.const_int(i64t, size as i64)).as_value();
    slot.set_name(&format!("{base}.state"));
    for (k, init) in inits.iter().enumerate() {
        fb.store(*init, field(&fb, slot, k));
    }
    let mut args = inputs.clone();
    args.push(slot);
    let call = fb.call(driver.function_type(), driver, &args);
    call.copy_debug_loc(term);
    if let Some((run, _)) = &kept {
        // The exit's phis take the state's values from the run block.
        for (j, p) in exit_phis.iter().enumerate() {
            let v = fb.load(p.ty(), field(&fb, slot, header_phis.len() + j));
            p.add_incoming(v, *run);
        }
        fb.free(slot);
        fb.br(exit);
        term.erase();
    } else {
        fb.br(exit);
        term.erase();
        let after = exit.first_non_phi().expect("an exit block terminator");
        fb.position_before(after);
        for (j, p) in exit_phis.iter().enumerate() {
            let v = fb.load(p.ty(), field(&fb, slot, header_phis.len() + j));
            p.replace_all_uses_with(v);
            p.erase();
        }
        fb.free(slot);
        // The loop's blocks go.
        for b in &blocks {
            for i in b.instructions() {
                if i.as_value().has_uses() {
                    i.replace_all_uses_with(fb.poison(i.ty()));
                }
            }
        }
        for b in &blocks {
            for i in b.instructions().into_iter().rev() {
                i.erase();
            }
        }
        for b in &blocks {
            b.delete();
        }
    }
    Outlined {
        driver,
        body,
        ranges,
        count,
        plain: kept.map(|(_, w)| (header, w)),
        versioned: versioned.map(|check| {
            let at = location
                .as_ref()
                .map(|a| format!(" at {a}"))
                .unwrap_or_default();
            let writes: Vec<String> = check.writes.iter().map(|w| format!("`{}`", w.trim())).collect();
            (
                format!("loop {}{at}", cand.lp.0),
                format!(
                    "the bytes {} load{} of it read{} against those written after it by {} ({} pair{} of ranges computed before it)",
                    check.reads,
                    if check.reads == 1 { "" } else { "s" },
                    if check.reads == 1 { "s" } else { "" },
                    writes.join(", "),
                    check.pairs.len(),
                    if check.pairs.len() == 1 { "" } else { "s" },
                ),
            )
        }),
        location,
        function: f.name(),
        state_ty,
        pointer_fields: fields
            .iter()
            .enumerate()
            .filter(|(_, t)| t.kind() == crate::ir::TyKind::Pointer)
            .map(|(k, _)| k as u32)
            .collect(),
        pointer_inputs: cand
            .pointer_roots
            .iter()
            .filter_map(|r| inputs.iter().position(|x| x == r))
            .collect(),
    }
}

fn phis<'m>(b: Block<'m>) -> Vec<Inst<'m>> {
    b.instructions()
        .into_iter()
        .take_while(|i| i.opcode() == Some(LLVMOpcode::LLVMPHI))
        .collect()
}

/// Fills in `ranges(inputs..., state, out)`: range 0 is the state; then
/// one per store and root. Returns how many.
fn build_ranges<'m>(
    ranges: Function<'m>,
    inputs: &[Value<'m>],
    state_ty: Ty<'m>,
    cand: &Candidate<'m>,
    inside: &dyn Fn(Block<'m>) -> bool,
) -> u32 {
    let ctx = ranges.context();
    let ps = ranges.params();
    let (state, out) = (ps[inputs.len()], ps[inputs.len() + 1]);
    let b = Builder::new(ctx);
    b.position_at_end(ranges.append_block("entry"));
    let i64t = Ty::int(ctx, 64);
    let i8t = Ty::int(ctx, 8);
    let ptr = Ty::ptr(ctx);
    let mut r = Recompute {
        b: &b,
        map: inputs.iter().copied().zip(ps.iter().copied()).collect(),
        inside,
        choices: &cand.choices,
        finals: &cand.finals,
        in_place: false,
    };
    let mut count = 0u32;
    let mut put = |b: &Builder<'m>, lo: Value<'m>, hi: Value<'m>| {
        let at = |k: u32| b.gep(ptr, out, &[b.const_int(i64t, i64::from(k))]);
        b.store(lo, at(2 * count));
        b.store(hi, at(2 * count + 1));
        count += 1;
    };
    let size = state_ty.alloc_size(ranges.global_parent());
    put(
        &b,
        state,
        b.gep(i8t, state, &[b.const_int(i64t, size as i64)]),
    );
    for st in &cand.stores {
        let (lo, hi) = store_offsets(&mut r, st);
        for root in &st.roots {
            let root = r.value(*root);
            put(&b, b.gep(i8t, root, &[lo]), b.gep(i8t, root, &[hi]));
        }
    }
    b.ret(None);
    count
}

/// The byte offsets `[lo, hi)` from its roots a store writes over the
/// loop (both 0 when it never runs).
pub(crate) fn store_offsets<'m>(
    r: &mut Recompute<'m, '_>,
    st: &StoreRange<'m>,
) -> (Value<'m>, Value<'m>) {
    use crate::ir::LLVMIntPredicate::*;
    let b = r.b;
    let i64t = Ty::int(b.ctx(), 64);
    let c = |v: i64| b.const_int(i64t, v);
    let mut at = c(st.konst);
    for (v, scale) in &st.inv {
        let v = b.sext(r.value(*v), i64t);
        at = b.add(at, b.mul(v, c(*scale)));
    }
    let (mut lo, mut hi) = (at, b.add(at, c(st.size as i64)));
    let mut runs = b.const_int(Ty::int(b.ctx(), 1), 1);
    for t in &st.loops {
        let n = r.iterations(t);
        runs = b.select(
            b.icmp(LLVMIntEQ, n, c(0)),
            b.const_int(Ty::int(b.ctx(), 1), 0),
            runs,
        );
        let Some((_, per)) = st.per_iteration.iter().find(|(l, _)| *l == t.lp) else {
            continue;
        };
        let span = b.mul(b.sub(n, c(1)), c(*per));
        if *per < 0 {
            lo = b.add(lo, span);
        } else {
            hi = b.add(hi, span);
        }
    }
    (b.select(runs, lo, c(0)), b.select(runs, hi, c(0)))
}

/// Values of the loop known before it, computed again in `ranges` (or in
/// the loop's own function, before it: `in_place`, where values from
/// before the loop are themselves).
pub(crate) struct Recompute<'m, 'a> {
    pub(crate) b: &'a Builder<'m>,
    pub(crate) map: HashMap<Value<'m>, Value<'m>>,
    pub(crate) inside: &'a dyn Fn(Block<'m>) -> bool,
    pub(crate) choices: &'a HashMap<Value<'m>, Vec<(Value<'m>, Cond<'m>)>>,
    pub(crate) finals: &'a HashMap<Value<'m>, crate::analysis::checkpoint::Final<'m>>,
    pub(crate) in_place: bool,
}

impl<'m, 'a> Recompute<'m, 'a> {
    /// `v` (an input, a constant, or pure arithmetic on them inside the
    /// loop: `analysis::checkpoint::known_before`) in `ranges`.
    pub(crate) fn value(&mut self, v: Value<'m>) -> Value<'m> {
        if let Some(m) = self.map.get(&v) {
            return *m;
        }
        let Some(i) = v.as_inst() else {
            return v;
        };
        if self.in_place && !(self.inside)(i.parent_block()) {
            return v;
        }
        if let Some(f) = self.finals.get(&v).copied() {
            // start + step·(n - 1 + extra), n the loop's iterations.
            let n = self.trips(&f.exit);
            let b = self.b;
            let ty = v.ty();
            let i64t = Ty::int(b.ctx(), 64);
            let steps = b.add(n, b.const_int(i64t, f.extra - 1));
            let start = self.value(f.start);
            let moved = b.mul(b.int_cast(steps, ty), b.const_int(ty, f.step));
            let m = b.add(start, moved);
            self.map.insert(v, m);
            return m;
        }
        if let Some(x) = crate::analysis::checkpoint::single_incoming(v) {
            let m = self.value(x);
            self.map.insert(v, m);
            return m;
        }
        if let Some(choice) = self.choices.get(&v) {
            // The value of the first edge whose condition holds (the
            // last one needs none: one of them entered the join).
            let (last, _) = choice.last().expect("a phi has incoming values");
            let mut m = self.value(*last);
            for (x, c) in choice.iter().rev().skip(1) {
                let x = self.value(*x);
                let c = self.condition(c);
                m = self.b.select(c, x, m);
            }
            self.map.insert(v, m);
            return m;
        }
        debug_assert!((self.inside)(i.parent_block()));
        let ops: Vec<Value> = (0..i.num_operands())
            .map(|k| self.value(i.operand(k)))
            .collect();
        let c = i.clone_instruction();
        self.b.insert(c);
        c.clear_debug_loc();
        for (k, o) in ops.into_iter().enumerate() {
            c.set_operand(k as u32, o);
        }
        self.map.insert(v, c.as_value());
        c.as_value()
    }

    /// How many times the loop of `t` runs its body per entry of its
    /// parent: 0 when its guard says it is skipped, else the iterations up
    /// to and including the one its exact exit leaves in.
    pub(crate) fn iterations(&mut self, t: &TripFacts<'m>) -> Value<'m> {
        let n = self.trips(&t.exit);
        let b = self.b;
        let i64t = Ty::int(b.ctx(), 64);
        let entered = self.condition(&t.guard);
        b.select(entered, n, b.const_int(i64t, 0))
    }

    /// The iterations of a loop with exact exit `x`, once entered.
    pub(crate) fn trips(&mut self, x: &crate::analysis::trips::ExactExit<'m>) -> Value<'m> {
        let start = self.value(x.start);
        let limit = self.value(x.limit);
        let b = self.b;
        let i64t = Ty::int(b.ctx(), 64);
        let k = super::loop_exit::exit_iteration(b, x, start, limit);
        b.add(k, b.const_int(i64t, 1))
    }

    /// Condition `c` as an i1.
    fn condition(&mut self, c: &Cond<'m>) -> Value<'m> {
        let b = self.b;
        let i1 = Ty::int(b.ctx(), 1);
        match c {
            Cond::True => b.const_int(i1, 1),
            Cond::Is(v, taken) => {
                let v = self.value(*v);
                if *taken {
                    v
                } else {
                    b.select(v, b.const_int(i1, 0), b.const_int(i1, 1))
                }
            }
            Cond::All(cs) => {
                let mut acc = b.const_int(i1, 1);
                for c in cs {
                    let x = self.condition(c);
                    acc = b.select(acc, x, b.const_int(i1, 0));
                }
                acc
            }
            Cond::Any(cs) => {
                let mut acc = b.const_int(i1, 0);
                for c in cs {
                    let x = self.condition(c);
                    acc = b.select(acc, b.const_int(i1, 1), x);
                }
                acc
            }
        }
    }
}

/// Outlines every loop of preprocessed function `f` that can be
/// checkpointed (`analysis::checkpoint`), after rotating its loops (so
/// that each leaves from its latch, the form the analysis accepts; clang
/// emits the `for` test at the top at -O0). Also says why each other
/// outermost loop containing a loop is not checkpointed.
/// `past_final_stores`: the clone is a combined gradient's, which makes its
/// final stores and frees after the reverse sweep
/// (`analysis::deferred_stores`), so they do not stop a loop from running
/// again.
pub(crate) fn outline_checkpointed<'m>(
    f: Function<'m>,
    facts: crate::analysis::calls::CallFacts<'m, '_>,
    budget: CacheBudget,
    past_final_stores: bool,
) -> Result<(Vec<Outlined<'m>>, Vec<String>), String> {
    use crate::analysis::calls::{CallKinds, Direction};
    use crate::analysis::cfg::Cfg;
    crate::ir::run_function_passes(f, "loop(loop-rotate),simplifycfg,loop-simplify,lcssa")?;
    crate::preprocess::give_invokes_their_own_normal_edge(f);
    let mut out: Vec<Outlined<'m>> = Vec::new();
    // One at a time: outlining changes the function the analyses saw.
    let result = loop {
        let cfg = Cfg::new(f);
        let Ok(loops) = LoopNest::new(&cfg) else {
            break (out, Vec::new());
        };
        let kinds = CallKinds::of(f, facts, Direction::Reverse);
        // The loops kept beside their drivers are done.
        let kept = |l: &crate::analysis::loops::LoopId| {
            let h = loops.get(*l).header;
            out.iter()
                .any(|o| o.plain.as_ref().is_some_and(|(p, _)| *p == h))
        };
        // Under the machine's budget (the default) a loop whose caches
        // have no bound before it is left plain: checkpointing it would
        // run it through its outlined body even when it fits.
        let deferred = if past_final_stores {
            crate::analysis::deferred_stores::deferred_to_the_end(f, &cfg, &loops, facts)
        } else {
            HashSet::new()
        };
        let found: Vec<_> =
            crate::analysis::checkpoint::candidates(&cfg, &loops, &kinds, &deferred)
                .into_iter()
                .filter(|(l, _)| !kept(l))
                .map(|(l, c)| match c {
                    Ok(c) if c.estimate.is_none() && budget == CacheBudget::Machine => (
                        l,
                        Err(
                            "no bound on its caches is known before it (the trip count of a loop \
                         inside it is not), and under the machine's budget such a loop runs \
                         plainly (--cache-budget MB checkpoints it regardless)"
                                .to_string(),
                        ),
                    ),
                    // A run-time overlap check keeps an explicit budget's
                    // promise; the machine's runs such a loop plainly.
                    Ok(c) if c.overlap.is_some() && !matches!(budget, CacheBudget::Bytes(_)) => (
                        l,
                        Err(format!(
                            "what it reads may be written after it: {} (it is versioned on a run-time overlap check under --cache-budget MB only)",
                            c.overlap.as_ref().map_or("", |o| o.writes[0].trim())
                        )),
                    ),
                    c => (l, c),
                })
                .collect();
        let Some(cand) = found.iter().find_map(|(_, c)| c.as_ref().ok()) else {
            let notes = found
                .iter()
                .filter_map(|(l, c)| {
                    let why = c.as_ref().err()?;
                    let at = crate::analysis::loops::loop_location(loops.get(*l))
                        .map(|a| format!(" at {a}"))
                        .unwrap_or_default();
                    Some(format!("loop {}{at} is not checkpointed: {why}", l.0))
                })
                .collect();
            break (out, notes);
        };
        let o = outline(f, &loops, cand, out.len(), budget);
        out.push(o);
    };
    // A kept loop's exit is entered from the driver's call too: it gets
    // a block of its own again.
    if result.0.iter().any(|o| o.plain.is_some()) {
        crate::ir::run_function_passes(f, "loop-simplify,lcssa")?;
    }
    Ok(result)
}

/// The values from outside the loop (arguments, instructions before it)
/// that computing `v` again in `ranges` reads (see [`Recompute::value`]).
fn range_leaves<'m>(
    cand: &Candidate<'m>,
    v: Value<'m>,
    inside: &dyn Fn(Block<'m>) -> bool,
    out: &mut Vec<Value<'m>>,
) {
    let mut seen = HashSet::new();
    let mut work = vec![v];
    while let Some(v) = work.pop() {
        if !seen.insert(v) || v.is_constant() || v.is_block_value() {
            continue;
        }
        let Some(i) = v.as_inst().filter(|i| inside(i.parent_block())) else {
            out.push(v);
            continue;
        };
        if let Some(f) = cand.finals.get(&v) {
            work.extend([f.start, f.exit.start, f.exit.limit]);
        } else if let Some(x) = crate::analysis::checkpoint::single_incoming(v) {
            work.push(x);
        } else if let Some(choice) = cand.choices.get(&v) {
            for (x, c) in choice {
                work.push(*x);
                cond_leaves(cand, c, inside, out);
            }
        } else {
            work.extend((0..i.num_operands()).map(|k| i.operand(k)));
        }
    }
}

fn cond_leaves<'m>(
    cand: &Candidate<'m>,
    c: &Cond<'m>,
    inside: &dyn Fn(Block<'m>) -> bool,
    out: &mut Vec<Value<'m>>,
) {
    match c {
        Cond::True => {}
        Cond::Is(v, _) => range_leaves(cand, *v, inside, out),
        Cond::All(cs) | Cond::Any(cs) => {
            for c in cs {
                cond_leaves(cand, c, inside, out);
            }
        }
    }
}
