//! Mixed mode for elementwise loops (`analysis/elementwise.rs`): forward
//! mode inside the iteration, reverse mode across iterations.
//!
//! In the preprocessed clone of a function a gradient is asked for, the
//! iteration of such a loop is outlined as `elem(values..., inputs...) ->
//! {outputs}`: its blocks, with the float loads replaced by parameters
//! (the inputs, then the floats from before the loop it uses) and the
//! float stores by the struct returned. In the loop, right before its
//! first store, one call of `elem`'s forward derivative with one tangent
//! lane per input (lane k seeds input k) gives the outputs and their
//! partials; each store then stores
//!
//! ```text
//!   __enz_linear(y_m, J_m1, x_1, ..., J_mN, x_N)      (= y_m)
//! ```
//!
//! whose reverse rule (`reverse/calls.rs`) adds `J_mk · dy_m` to the
//! adjoint of each `x_k`. The forward derivative's call is inactive, so
//! reverse mode caches the partials (M·N values per iteration) and nothing
//! else of the iteration: data-dependent branches inside it cost nothing
//! in the reverse sweep. The old computation is left dead for the
//! clean-up. `--mode-per-loop=reverse` turns it off.

use super::loop_clone::PhiEdges;
use crate::analysis::elementwise::Elementwise;
use crate::analysis::loops::LoopNest;
use crate::ir::{
    add_internal_function, named_function, Block, Builder, Function, Inst, LLVMOpcode, Ty, Value,
};
use crate::names::LINEAR_PREFIX as LINEAR;
use crate::signature::{ArgActivity, Field, Kind, Mode, Request, Signature};
use std::collections::{HashMap, HashSet};

/// What one mixed-mode loop became, for `--explain`.
pub(crate) struct Mixed {
    pub(crate) location: Option<String>,
    pub(crate) inputs: usize,
    pub(crate) outputs: usize,
    pub(crate) intermediates: usize,
}

/// What mixed mode needs of synthesis: the forward derivative of the
/// function an iteration is outlined into, declared now and built later
/// (the registry implements it), and that derivative kept inactive.
pub(crate) trait DeclareForward<'m> {
    /// The forward derivative for `key`, declared.
    fn declare_forward(
        &mut self,
        key: &Request<'m>,
    ) -> Result<Function<'m>, crate::diag::Diagnostic>;
    /// Calls of `f` carry no derivative.
    fn declare_inactive(&mut self, f: Function<'m>);
}

/// Rewrites loop `e` of preprocessed function `f` (see the module).
pub(crate) fn rewrite<'m>(
    f: Function<'m>,
    cfg: &crate::analysis::cfg::Cfg<'m>,
    loops: &LoopNest<'m>,
    e: &Elementwise<'m>,
    n: usize,
    registry: &mut impl DeclareForward<'m>,
) -> Result<Mixed, crate::diag::Diagnostic> {
    let ctx = f.context();
    let lp = loops.get(e.lp);
    let location = crate::analysis::loops::loop_location(lp);
    let header_phis: Vec<Inst> = lp
        .header
        .instructions()
        .into_iter()
        .take_while(|i| i.opcode() == Some(LLVMOpcode::LLVMPHI))
        .collect();
    // Parameters: the header phis and the other values from before the
    // loop (no shadows), then the float inputs (one tangent lane each).
    let mut consts: Vec<Value> = header_phis
        .iter()
        .map(|p| p.as_value())
        .chain(e.flags.iter().map(|l| l.as_value()))
        .collect();
    let mut seen: HashSet<Value> = consts.iter().copied().collect();
    let in_loop = |b: Block<'m>| lp.blocks.contains(&b);
    for o in super::loop_clone::live_ins(&lp.ordered, in_loop, PhiEdges::All) {
        if !e.invariants.contains(&o) && seen.insert(o) {
            consts.push(o);
        }
    }
    let floats: Vec<Value> = e
        .loads
        .iter()
        .map(|l| l.as_value())
        .chain(e.invariants.iter().copied())
        .collect();
    // One tangent lane per distinct input: loads of the same address (in
    // sibling branches, say) read the same value in an iteration (every
    // load comes before every store), so they share a lane, and the
    // partial in it is the sum of theirs.
    let mut lane_of: Vec<usize> = Vec::with_capacity(floats.len());
    let mut lane_reps: Vec<usize> = Vec::new();
    for (k, x) in floats.iter().enumerate() {
        let same = (k < e.loads.len())
            .then(|| {
                lane_reps.iter().position(|r| {
                    *r < e.loads.len() && same_address(x.operand(0), floats[*r].operand(0))
                })
            })
            .flatten();
        match same {
            Some(lane) => lane_of.push(lane),
            None => {
                lane_of.push(lane_reps.len());
                lane_reps.push(k);
            }
        }
    }
    let outputs: Vec<Ty> = e.stores.iter().map(|s| s.operand(0).ty()).collect();
    let ret_ty = Ty::literal_struct(ctx, &outputs);
    let params: Vec<Ty> = consts.iter().chain(&floats).map(|v| v.ty()).collect();
    let name = f.name();
    let user = name.strip_prefix("preprocess_").unwrap_or(&name);
    let elem = add_internal_function(
        f.global_parent(),
        &format!("{user}.elementwise{n}"),
        Ty::function(ret_ty, &params, false),
    );
    f.copy_function_attributes_to(elem, |_| false);
    let ps = elem.params();
    let mut map: HashMap<Value<'m>, Value<'m>> = HashMap::new();
    for (k, v) in consts.iter().chain(&floats).enumerate() {
        map.insert(*v, ps[k]);
    }
    // The iteration, from the header to the latch.
    let mut blocks: Vec<Block> = vec![lp.header];
    blocks.extend(lp.ordered.iter().copied().filter(|b| *b != lp.header));
    let clones = super::loop_clone::clone_blocks(&blocks, elem, &mut map, |i| {
        i.opcode() == Some(LLVMOpcode::LLVMStore)
    });
    let bb = Builder::new(ctx);
    let get = |map: &HashMap<Value<'m>, Value<'m>>, v: Value<'m>| map.get(&v).copied().unwrap_or(v);
    // Leaving the iteration: the back edge, or an exit after the stores,
    // returns the outputs; an exit before the stores is not taken (the
    // call is made at the first store, past it).
    let done = elem.append_block("outputs");
    bb.position_at_end(done);
    let mut agg = bb.poison(ret_ty);
    for (m, st) in e.stores.iter().enumerate() {
        agg = bb.insert_value(agg, get(&map, st.operand(0)), m as u32);
    }
    bb.ret(Some(agg));
    let never = elem.append_block("not_taken");
    bb.position_at_end(never);
    bb.unreachable();
    // The back edge, and an exit after the stores, end the iteration; an
    // exit before them is not taken.
    let first_store = e.stores[0].parent_block();
    clones.patch(&map, |from, target| {
        if target == lp.header && from == lp.latch {
            Some(done)
        } else if lp.blocks.contains(&target) {
            None
        } else if cfg.dominates(first_store, from) {
            Some(done)
        } else {
            Some(never)
        }
    });

    // Its forward derivative, one lane per distinct float input.
    let width = lane_reps.len() as u32;
    let args: Vec<ArgActivity> = consts
        .iter()
        .map(|_| ArgActivity::Const)
        .chain(floats.iter().map(|_| ArgActivity::Dup))
        .collect();
    let key = Request {
        function: elem,
        args,
        ret_active: true,
        ret_shadowed: false,
        mode: Mode::Forward { width },
    };
    let fwd = registry.declare_forward(&key)?;
    registry.declare_inactive(fwd);
    let sig: Signature = key.signature(Kind::Forward { width });

    // Loads that do not dominate the first store (sunk into a branch)
    // reach it through a stack slot, 0 on the paths that skip them; loads
    // sharing a lane share the slot, or all take the one among them that
    // dominates the store.
    let first = e.stores[0].parent_block();
    let fb = Builder::new(ctx);
    let mut passed: HashMap<Value<'m>, Value<'m>> = HashMap::new();
    let mut lane_slots: HashMap<usize, Value<'m>> = HashMap::new();
    for (k, ld) in e.loads.iter().enumerate() {
        let lane = lane_of[k];
        let dominating = (0..e.loads.len())
            .filter(|j| lane_of[*j] == lane)
            .map(|j| e.loads[j])
            .find(|m| cfg.dominates(m.parent_block(), first));
        match dominating {
            Some(m) => {
                passed.insert(ld.as_value(), m.as_value());
            }
            None => {
                let slot = *lane_slots
                    .entry(lane)
                    .or_insert_with(|| stash_slot(f, lp.header, ld.ty()));
                stash_after(&fb, *ld, slot);
            }
        }
    }
    for ld in &e.flags {
        if !cfg.dominates(ld.parent_block(), first) {
            let slot = stash_slot(f, lp.header, ld.ty());
            stash_after(&fb, *ld, slot);
            fb.position_before(e.stores[0]);
            passed.insert(ld.as_value(), fb.load(ld.ty(), slot));
        }
    }
    fb.position_before(e.stores[0]);
    let mut lane_values: HashMap<usize, Value<'m>> = HashMap::new();
    for (k, ld) in e.loads.iter().enumerate() {
        if let Some(slot) = lane_slots.get(&lane_of[k]).copied() {
            let v = *lane_values
                .entry(lane_of[k])
                .or_insert_with(|| fb.load(ld.ty(), slot));
            passed.insert(ld.as_value(), v);
        }
    }
    let pass = |v: Value<'m>| passed.get(&v).copied().unwrap_or(v);

    // In the loop: the call before the first store, and the stores of
    // the linearised outputs.
    fb.position_before(e.stores[0]);
    let fty = sig.function_type();
    let call_args = sig
        .arguments(|p, ty| match p {
            crate::signature::Param::Primal(k) => Ok::<_, ()>(pass(
                consts
                    .iter()
                    .chain(&floats)
                    .nth(k)
                    .copied()
                    .expect("a parameter"),
            )),
            crate::signature::Param::Shadow { of, lane } => {
                let seed = lane_of[of - consts.len()] == lane as usize;
                Ok(fb.const_float(ty, if seed { 1.0 } else { 0.0 }))
            }
            _ => Err(()),
        })
        .map_err(|_| crate::diag::Diagnostic::internal("mixed mode: an unexpected parameter"))?;
    let r = fb.call(fty, fwd, &call_args).as_value();
    if let Some(d) = e.stores[0].as_value().as_inst() {
        r.as_inst().expect("a call").copy_debug_loc(d);
    }
    let field = |fld: Field| {
        sig.fields()
            .iter()
            .position(|(x, _)| *x == fld)
            .expect("the forward derivative returns the field") as u32
    };
    let values = fb.extract_value(r, field(Field::Return));
    let lanes: Vec<Value> = (0..width)
        .map(|lane| fb.extract_value(r, field(Field::ReturnShadow { lane })))
        .collect();
    for (m, st) in e.stores.iter().enumerate() {
        let ty = outputs[m];
        fb.position_before(*st);
        let y = fb.extract_value(values, m as u32);
        let mut largs = vec![y];
        for (lane, k) in lane_reps.iter().enumerate() {
            largs.push(fb.extract_value(lanes[lane], m as u32));
            largs.push(pass(floats[*k]));
        }
        let lin = linear_fn(f, ty, lane_reps.len());
        let v = fb.call(lin.function_type(), lin, &largs);
        st.set_operand(0, v.as_value());
    }
    // The old computation of the outputs is dead now. Math calls that
    // only set errno stay calls for LLVM (which keeps them): removed here,
    // the forward derivative having made the same calls.
    let removable = |i: Inst<'m>| match i.opcode() {
        Some(LLVMOpcode::LLVMStore | LLVMOpcode::LLVMInvoke) => false,
        Some(LLVMOpcode::LLVMCall) => i.called_function().is_some_and(|g| {
            g.writes_no_memory() || crate::names::MathFn::from_callee(&g.name()).is_some()
        }),
        _ => i.parent_block().terminator() != Some(i),
    };
    loop {
        let dead: Vec<Inst> = lp
            .ordered
            .iter()
            .flat_map(|b| b.instructions())
            .filter(|i| !i.as_value().has_uses() && removable(*i))
            .collect();
        if dead.is_empty() {
            break;
        }
        for i in dead {
            i.erase();
        }
    }
    Ok(Mixed {
        location,
        inputs: lane_reps.len(),
        outputs: e.stores.len(),
        intermediates: e.intermediates,
    })
}

/// A stack slot of type `ty` in `f`'s entry, zeroed at the top of each
/// iteration of the loop at `header`: a load's value on the paths that
/// skip it.
fn stash_slot<'m>(f: Function<'m>, header: Block<'m>, ty: Ty<'m>) -> Value<'m> {
    let fb = Builder::new(f.context());
    fb.position_before(f.entry_block().first_instruction().expect("an entry"));
    let slot = fb.alloca(ty, "mixed.stash");
    fb.position_before(header.first_non_phi().expect("a header terminator"));
    fb.store(fb.zero(ty), slot);
    slot
}

/// Stores load `ld`'s value into `slot` right after it.
fn stash_after<'m>(fb: &Builder<'m>, ld: Inst<'m>, slot: Value<'m>) {
    match ld.next_instruction() {
        Some(n) => fb.position_before(n),
        None => fb.position_at_end(ld.parent_block()),
    }
    fb.store(ld.as_value(), slot);
}

/// Whether addresses `a` and `b` are the same in every execution: the
/// same value, or GEPs of the same type from the same address with equal
/// indices (up to integer extensions of one value).
fn same_address<'m>(a: Value<'m>, b: Value<'m>) -> bool {
    if a == b {
        return true;
    }
    let gep = Some(LLVMOpcode::LLVMGetElementPtr);
    if a.opcode() != gep || b.opcode() != gep || a.num_operands() != b.num_operands() {
        return false;
    }
    if a.gep_source_type() != b.gep_source_type() || !same_address(a.operand(0), b.operand(0)) {
        return false;
    }
    let strip = |v: Value<'m>| match v.opcode() {
        Some(LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMZExt) => (v.opcode(), v.operand(0)),
        _ => (None, v),
    };
    (1..a.num_operands()).all(|k| {
        let (x, y) = (a.operand(k), b.operand(k));
        x == y
            || (x.ty() == y.ty() && strip(x) == strip(y) && strip(x).0.is_some())
            || (x.is_constant()
                && y.is_constant()
                && x.const_int_sext().is_some()
                && x.const_int_sext() == y.const_int_sext())
    })
}

/// `__enz_linear_<ty>_<n>(y, J_1, x_1, ..., J_n, x_n) = y`, emitted once
/// per type and arity (always inlined after differentiation:
/// [`finish_linear_fns`]; not before, as preprocessing's module-wide
/// `always-inline` would take the calls out of a clone another derivative
/// is still to be made from).
fn linear_fn<'m>(f: Function<'m>, ty: Ty<'m>, n: usize) -> Function<'m> {
    let module = f.global_parent();
    let suffix = if ty == Ty::double(ty.context()) {
        "f64"
    } else {
        "f32"
    };
    let name = format!("{LINEAR}{suffix}_{n}");
    if let Some(g) = named_function(module, &name) {
        return g;
    }
    let params: Vec<Ty> = std::iter::repeat_n(ty, 1 + 2 * n).collect();
    let g = add_internal_function(module, &name, Ty::function(ty, &params, false));
    let b = Builder::new(ty.context());
    b.position_at_end(g.append_block("entry"));
    b.ret(Some(g.params()[0]));
    g
}

/// After differentiation: the `__enz_linear_*` functions of `module` that
/// nothing calls go, the others are always inlined.
pub(crate) fn finish_linear_fns(module: crate::ir::Module<'_>) {
    for f in crate::ir::functions(module) {
        if !f.name().starts_with(LINEAR) {
            continue;
        }
        if f.as_value().has_uses() {
            f.add_function_attribute("alwaysinline");
        } else {
            f.delete_function();
        }
    }
}

/// A GPU kernel body without loops (one element per thread, `hmlstm`)
/// made a loop of one iteration in preprocessed clone `p`, so that mixed
/// mode applies to it as to an elementwise loop's iteration: the forward
/// sweep computes the partials in the primal's own branches, and the
/// reverse sweep only multiplies them, with none of the body's branches
/// to diverge on again. The float stores must all run before the single
/// `ret void` on every path that reaches it through them; paths that skip
/// them (an `if (i >= n) return;` guard) leave the loop. Whether the loop
/// then qualifies is `analysis::elementwise`'s call; post-optimisation
/// unrolls it away; [`OneElementLoop::remove`] undoes it.
pub(crate) fn loop_around_gpu_body<'m>(p: Function<'m>) -> Option<OneElementLoop<'m>> {
    let cfg = crate::analysis::cfg::Cfg::new(p);
    if !crate::analysis::gpu::is_gpu_module(p)
        || !p.function_type().return_type().is_void()
        || crate::analysis::loops::LoopNest::new(&cfg).map_or(true, |l| !l.loops.is_empty())
    {
        return None;
    }
    let blocks = p.blocks();
    let mut rets = Vec::new();
    let mut store_blocks = Vec::new();
    for b in &blocks {
        for i in b.instructions() {
            match i.opcode() {
                Some(LLVMOpcode::LLVMRet) => rets.push(*b),
                Some(LLVMOpcode::LLVMAlloca) => return None,
                Some(LLVMOpcode::LLVMStore) if i.operand(0).ty().is_fp_scalar() => {
                    store_blocks.push(*b)
                }
                _ => {}
            }
        }
    }
    let [ret] = rets[..] else { return None };
    if store_blocks.is_empty() || ret.first_instruction() != ret.terminator() {
        return None;
    }
    // The ways to the return through every store (the others skip them).
    let after: Vec<Block<'m>> = cfg
        .preds(ret)
        .iter()
        .copied()
        .filter(|q| store_blocks.iter().all(|s| cfg.dominates(*s, *q)))
        .collect();
    if after.is_empty() {
        return None;
    }
    let ctx = p.context();
    let i32t = Ty::int(ctx, 32);
    let entry = p.entry_block();
    let pre = entry.insert_block_before("one_element");
    let latch = ret.insert_block_before("one_element.latch");
    let b = Builder::new(ctx);
    b.position_at_end(pre);
    b.br(entry);
    b.position_before(entry.first_instruction().expect("a block has a terminator"));
    let iv = b.phi(i32t, "one_element.iv");
    b.position_at_end(latch);
    let next = b.add(iv.as_value(), b.const_int(i32t, 1));
    let again = b.icmp(
        crate::ir::LLVMIntPredicate::LLVMIntULT,
        next,
        b.const_int(i32t, 1),
    );
    b.cond_br(again, entry, ret);
    iv.add_incoming(b.const_int(i32t, 0), pre);
    iv.add_incoming(next, latch);
    for q in &after {
        retarget(*q, ret, latch);
    }
    Some(OneElementLoop {
        pre,
        latch,
        iv,
        after,
        ret,
    })
}

/// What [`loop_around_gpu_body`] added, to take it away again.
pub(crate) struct OneElementLoop<'m> {
    pre: Block<'m>,
    latch: Block<'m>,
    iv: Inst<'m>,
    after: Vec<Block<'m>>,
    ret: Block<'m>,
}

impl<'m> OneElementLoop<'m> {
    /// Puts the body back as it was (its loop did not qualify).
    pub(crate) fn remove(self) {
        for q in &self.after {
            retarget(*q, self.latch, self.ret);
        }
        self.ret.remove_phi_incoming_from(self.latch);
        // The counter and its increment (in the latch) use each other: the
        // counter's uses go first, so that each is unused when erased.
        self.iv.replace_all_uses_with(self.iv.ty().undef_constant());
        self.iv.erase();
        self.latch.delete();
        self.pre.delete();
    }
}

/// Makes the branches of `from` that go to `old` go to `new`.
fn retarget<'m>(from: Block<'m>, old: Block<'m>, new: Block<'m>) {
    let t = from.terminator().expect("a block has a terminator");
    for k in 0..t.num_operands() {
        let op = t.operand(k);
        if op.is_block_value() && Block::from_value(op) == old {
            t.set_operand(k, new.as_value());
        }
    }
}
