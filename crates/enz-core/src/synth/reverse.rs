//! Reverse mode: the gradient function of a preprocessed function.
//!
//! ```text
//!   entry ─ forward sweep (the primal, cloned) ─┬─ exit₁ ─► invert_exit₁ ─┐
//!                                               └─ exit₂ ─► invert_exit₂ ─┤
//!      reverse blocks walk the reversed CFG, choosing the predecessor      │
//!      from a "came from" phi recorded in the forward sweep  ◄─────────────┘
//!                                 ... ─► invert_entry ─► invert_return
//! ```
//!
//! Adjoints of SSA values live in zero-initialised stack slots (post-opt
//! turns them into registers). A primal value needed by the reverse sweep is
//! used directly when its block dominates every exit, and otherwise cached
//! in a stack slot written by the forward sweep.

use super::adjoint;
use super::emit::{emit, Operands};
use super::rules::{lookup, OpKey};
use crate::analysis::activity::Activity;
use crate::analysis::cfg::Cfg;
use crate::callsite::ArgActivity;
use crate::diag::Diagnostic;
use crate::ir::{clone_body, cstr, Block, Builder, Ty, Value, ValueMap};
use crate::names::MathFn;
use crate::preprocess::copy_function_attributes;
use llvm_sys::core::*;
use llvm_sys::{LLVMLinkage, LLVMOpcode};
use std::collections::HashMap;

/// What to differentiate and how.
pub(crate) struct GradientRequest<'a> {
    /// The preprocessed function.
    pub(crate) prep: Value,
    /// The user's name for it (for names and diagnostics).
    pub(crate) name: &'a str,
    /// Activity of each parameter.
    pub(crate) args: &'a [ArgActivity],
    /// Whether the floating return is active (seeded with 1.0).
    pub(crate) ret_active: bool,
}

/// The gradient function: takes the primal arguments and returns a literal
/// struct of the adjoints of the `Out` parameters, in order (void if none).
pub(crate) fn synthesize(req: &GradientRequest) -> Result<Value, Vec<Diagnostic>> {
    let cfg = Cfg::new(req.prep);
    if let Some((latch, header)) = cfg.back_edges().first() {
        let at = header
            .first_non_phi()
            .or(latch.terminator())
            .expect("block has a terminator");
        return Err(vec![Diagnostic::new("loops are not supported yet")
            .in_function(req.name)
            .at(at)]);
    }
    let active_args: Vec<bool> = req.args.iter().map(|a| *a == ArgActivity::Out).collect();
    let activity = Activity::analyse(req.prep, &active_args, req.ret_active);
    let mut r = Reverse::new(req, cfg, activity);
    r.build();
    if r.diags.is_empty() {
        Ok(r.g)
    } else {
        r.g.delete_function();
        Err(r.diags)
    }
}

struct Reverse<'a> {
    req: &'a GradientRequest<'a>,
    cfg: Cfg,
    act: Activity,
    /// The gradient function being built.
    g: Value,
    /// Primal (preprocessed) values to their forward-sweep clones.
    map: ValueMap,
    b: Builder,
    /// Positioned at the top of the gradient's entry block, for slots.
    top: Builder,
    adjoints: HashMap<Value, Value>,
    caches: HashMap<Value, Value>,
    rev: HashMap<Block, Block>,
    came_from: HashMap<Block, Value>,
    diags: Vec<Diagnostic>,
}

impl<'a> Reverse<'a> {
    fn new(req: &'a GradientRequest<'a>, cfg: Cfg, act: Activity) -> Reverse<'a> {
        let p = req.prep;
        let ctx = p.context();
        let out_tys: Vec<Ty> = p
            .params()
            .iter()
            .zip(req.args)
            .filter(|(_, a)| **a == ArgActivity::Out)
            .map(|(v, _)| v.ty())
            .collect();
        let ret_ty = if out_tys.is_empty() {
            Ty::void(ctx)
        } else {
            Ty::literal_struct(ctx, &out_tys)
        };
        let param_tys: Vec<Ty> = p.params().iter().map(|v| v.ty()).collect();
        let fty = Ty::function(ret_ty, &param_tys, false);
        let name = cstr(&format!("diffe_{}", req.name));
        let g = Value(unsafe { LLVMAddFunction(p.global_parent(), name.as_ptr(), fty.0) });
        unsafe { LLVMSetLinkage(g.0, LLVMLinkage::LLVMInternalLinkage) };
        copy_function_attributes(p, g);
        let mut map = ValueMap::default();
        for (a, b) in p.params().into_iter().zip(g.params()) {
            map.insert(a, b);
            b.set_name(&a.name());
        }
        clone_body(p, g, &mut map, true);
        let top = Builder::new(ctx);
        let entry = g.entry_block();
        match entry.first_instruction() {
            Some(i) => top.position_before(i),
            None => top.position_at_end(entry),
        }
        Reverse {
            req,
            cfg,
            act,
            g,
            map,
            b: Builder::new(ctx),
            top,
            adjoints: HashMap::new(),
            caches: HashMap::new(),
            rev: HashMap::new(),
            came_from: HashMap::new(),
            diags: Vec::new(),
        }
    }

    fn build(&mut self) {
        let ctx = self.g.context();
        let live = self.cfg.live_blocks();
        for blk in &live {
            let name = cstr(&format!("invert_{}", blk.name()));
            let nb = Block(unsafe { LLVMAppendBasicBlockInContext(ctx, self.g.0, name.as_ptr()) });
            self.rev.insert(*blk, nb);
        }
        let ret_block = Block(unsafe {
            LLVMAppendBasicBlockInContext(ctx, self.g.0, c"invert_return".as_ptr())
        });
        self.record_came_from(&live);
        self.redirect_exits();
        for blk in &live {
            self.reverse_block(*blk, ret_block);
        }
        self.build_return(ret_block);
    }

    /// For blocks with several predecessors, a phi in the forward sweep
    /// saying which one control came from.
    fn record_came_from(&mut self, live: &[Block]) {
        let i32t = Ty::int(self.g.context(), 32);
        for blk in live {
            let preds = self.cfg.unique_preds(*blk);
            if preds.len() < 2 {
                continue;
            }
            let gb = self.map.block(*blk);
            match gb.first_instruction() {
                Some(i) => self.b.position_before(i),
                None => self.b.position_at_end(gb),
            }
            let phi = self.b.phi(i32t, "came_from");
            for p in self.cfg.preds(*blk) {
                let idx = preds.iter().position(|q| q == p).unwrap_or(0);
                phi.add_incoming(self.b.i32(idx as i64), self.map.block(*p));
            }
            self.came_from.insert(*blk, phi);
        }
    }

    /// Replaces each `ret` of the forward sweep by a branch into the reverse
    /// sweep (or `unreachable` for dead exits).
    fn redirect_exits(&mut self) {
        for blk in self.cfg.blocks.clone() {
            let Some(t) = blk.terminator() else { continue };
            if t.opcode() != Some(LLVMOpcode::LLVMRet) {
                continue;
            }
            let gt = self.map.get(t);
            self.b.position_before(gt);
            match self.rev.get(&blk) {
                Some(rb) => self.b.br(*rb),
                None => self.b.unreachable(),
            };
            gt.erase();
        }
    }

    fn reverse_block(&mut self, blk: Block, ret_block: Block) {
        let rb = self.rev[&blk];
        self.b.position_at_end(rb);
        let insts = blk.instructions();
        if let Some(t) = blk.terminator() {
            if t.opcode() == Some(LLVMOpcode::LLVMRet)
                && t.num_operands() == 1
                && self.req.ret_active
            {
                let r = t.operand(0);
                let one = self.b.const_float(r.ty(), 1.0);
                self.accumulate(r, one);
            }
        }
        for i in insts.iter().rev() {
            if i.opcode() == Some(LLVMOpcode::LLVMPHI) || Some(*i) == blk.terminator() {
                continue;
            }
            self.reverse_instruction(*i);
        }
        self.reverse_phis_and_branch(blk, ret_block);
    }

    fn reverse_instruction(&mut self, i: Value) {
        use LLVMOpcode::*;
        if !self.act.is_active(i) {
            if i.opcode() == Some(LLVMStore) && self.act.is_varied(i.operand(0)) {
                self.unsupported(
                    i,
                    "storing a differentiable value to memory is not supported yet",
                );
            }
            return;
        }
        let op = i.opcode().expect("instruction");
        match op {
            LLVMExtractValue => {
                let d = self.take_adjoint(i);
                let path = i.indices();
                let agg = i.operand(0);
                let c = adjoint::zero_with(&self.b, agg.ty(), d, &path);
                self.accumulate(agg, c);
            }
            LLVMInsertValue => {
                let d = self.take_adjoint(i);
                let path = i.indices();
                let (agg, val) = (i.operand(0), i.operand(1));
                let dv = adjoint::extract_path(&self.b, d, &path);
                self.accumulate(val, dv);
                let rest = adjoint::replace_path(&self.b, d, self.b.zero(val.ty()), &path);
                self.accumulate(agg, rest);
            }
            LLVMExtractElement => {
                let d = self.take_adjoint(i);
                let vec = i.operand(0);
                let idx = self.primal(i.operand(1));
                let c = self.b.insert_element(self.b.zero(vec.ty()), d, idx);
                self.accumulate(vec, c);
            }
            LLVMInsertElement => {
                let d = self.take_adjoint(i);
                let (vec, val) = (i.operand(0), i.operand(1));
                let idx = self.primal(i.operand(2));
                let dv = self.b.extract_element(d, idx);
                self.accumulate(val, dv);
                let rest = self.b.insert_element(d, self.b.zero(val.ty()), idx);
                self.accumulate(vec, rest);
            }
            LLVMShuffleVector => self.reverse_shuffle(i),
            LLVMCall => {
                let callee = i.called_function();
                let name = callee.map(|f| f.name()).unwrap_or_default();
                match MathFn::from_callee(&name).and_then(|f| lookup(OpKey::Math(f))) {
                    Some(rule) => self.apply_rule(i, rule, i.call_num_args()),
                    None => self.no_rule_for_call(i, callee, &name),
                }
            }
            _ => match lookup(OpKey::Inst(op)) {
                Some(rule) => self.apply_rule(i, rule, i.num_operands()),
                None => {
                    let msg = format!("cannot differentiate the `{}` instruction", opcode_name(i));
                    self.unsupported(i, &msg)
                }
            },
        }
    }

    fn apply_rule(&mut self, i: Value, rule: &super::rules::Rule, nops: u32) {
        let d = self.take_adjoint(i);
        let ops: Vec<Value> = (0..nops).map(|k| i.operand(k)).collect();
        let needed: Vec<usize> = (0..ops.len())
            .filter(|k| {
                rule.adjoints.get(*k).is_some_and(Option::is_some) && self.act.is_active(ops[*k])
            })
            .collect();
        if needed.is_empty() {
            return;
        }
        let args: Vec<Value> = ops.iter().map(|o| self.primal(*o)).collect();
        let ret = Some(self.primal(i));
        for k in needed {
            let expr = rule.adjoints[k].as_ref().expect("checked");
            let o = Operands {
                args: &args,
                ret,
                dret: d,
                dargs: &[],
                ty: i.ty(),
            };
            let c = emit(&self.b, expr, &o);
            self.accumulate(ops[k], c);
        }
    }

    fn reverse_shuffle(&mut self, i: Value) {
        let d = self.take_adjoint(i);
        let (a, bv) = (i.operand(0), i.operand(1));
        let n0 = a.ty().len() as u32;
        let mut acc = [self.b.zero(a.ty()), self.b.zero(bv.ty())];
        for (j, m) in i.shuffle_mask().into_iter().enumerate() {
            let Some(m) = m else { continue };
            let (which, lane) = if m < n0 { (0, m) } else { (1, m - n0) };
            let dj = self.b.extract_element(d, self.b.i32(j as i64));
            let lane_v = self.b.i32(i64::from(lane));
            let old = self.b.extract_element(acc[which], lane_v);
            acc[which] = self
                .b
                .insert_element(acc[which], self.b.fadd(old, dj), lane_v);
        }
        self.accumulate(a, acc[0]);
        self.accumulate(bv, acc[1]);
    }

    fn no_rule_for_call(&mut self, i: Value, callee: Option<Value>, name: &str) {
        let msg = match callee {
            Some(f) if f.is_declaration() => format!(
                "no derivative rule for the external function `{name}`, which is called with a differentiable argument"
            ),
            Some(_) => format!("cannot differentiate the call to `{name}` (recursive calls are not supported yet)"),
            None => "cannot differentiate an indirect call".to_string(),
        };
        let d = Diagnostic::new(msg).in_function(self.req.name).at(i).help(
            "mark the argument enzyme_const if it needs no derivative, or register a custom gradient",
        );
        self.diags.push(d);
    }

    fn unsupported(&mut self, i: Value, msg: &str) {
        self.diags
            .push(Diagnostic::new(msg).in_function(self.req.name).at(i));
    }

    /// Adjoints of the phis of `blk` go to the incoming values of the edge
    /// control came along; then branch to that predecessor's reverse block.
    fn reverse_phis_and_branch(&mut self, blk: Block, ret_block: Block) {
        let phis: Vec<Value> = blk
            .instructions()
            .into_iter()
            .take_while(|i| i.opcode() == Some(LLVMOpcode::LLVMPHI))
            .filter(|p| self.act.is_active(*p))
            .collect();
        let ds: Vec<Value> = phis.iter().map(|p| self.take_adjoint(*p)).collect();
        let preds: Vec<Block> = self
            .cfg
            .unique_preds(blk)
            .into_iter()
            .filter(|p| self.rev.contains_key(p))
            .collect();
        if preds.is_empty() {
            self.b.br(ret_block);
            return;
        }
        let ctx = self.g.context();
        let edge_blocks: Vec<Block> = if preds.len() == 1 {
            vec![self.b.insert_block()]
        } else {
            let all_preds = self.cfg.unique_preds(blk);
            let came = self.cached_forward(self.came_from[&blk], blk);
            let blocks: Vec<Block> = preds
                .iter()
                .map(|p| {
                    let n = cstr(&format!("invert_{}_from_{}", blk.name(), p.name()));
                    Block(unsafe { LLVMAppendBasicBlockInContext(ctx, self.g.0, n.as_ptr()) })
                })
                .collect();
            let cases: Vec<(Value, Block)> = preds
                .iter()
                .zip(&blocks)
                .skip(1)
                .map(|(p, eb)| {
                    let idx = all_preds.iter().position(|q| q == p).unwrap_or(0);
                    (self.b.i32(idx as i64), *eb)
                })
                .collect();
            self.b.switch(came, blocks[0], &cases);
            blocks
        };
        for (p, eb) in preds.iter().zip(edge_blocks) {
            self.b.position_at_end(eb);
            for (phi, d) in phis.iter().zip(&ds) {
                if let Some((v, _)) = phi.incoming().into_iter().find(|(_, b)| b == p) {
                    self.accumulate(v, *d);
                }
            }
            self.b.br(self.rev[p]);
        }
    }

    fn build_return(&mut self, ret_block: Block) {
        self.b.position_at_end(ret_block);
        let mut outs = Vec::new();
        for (p, a) in self.req.prep.params().into_iter().zip(self.req.args) {
            if *a == ArgActivity::Out {
                let v = if self.act.is_active(p) {
                    let slot = self.adjoint_slot(p);
                    self.b.load(p.ty(), slot)
                } else {
                    self.b.zero(p.ty())
                };
                outs.push(v);
            }
        }
        if outs.is_empty() {
            self.b.ret(None);
            return;
        }
        let sty = self.g.function_type().return_type();
        let mut agg = self.b.poison(sty);
        for (k, v) in outs.into_iter().enumerate() {
            agg = self.b.insert_value(agg, v, k as u32);
        }
        self.b.ret(Some(agg));
    }

    // ---- adjoint slots ----

    fn adjoint_slot(&mut self, v: Value) -> Value {
        if let Some(s) = self.adjoints.get(&v) {
            return *s;
        }
        let name = if v.name().is_empty() {
            "d".to_string()
        } else {
            format!("d_{}", v.name())
        };
        let slot = self.top.alloca(v.ty(), &name);
        self.top.store(self.top.zero(v.ty()), slot);
        self.adjoints.insert(v, slot);
        slot
    }

    /// Reads the adjoint of `v` and resets it to zero.
    fn take_adjoint(&mut self, v: Value) -> Value {
        let slot = self.adjoint_slot(v);
        let d = self.b.load(v.ty(), slot);
        self.b.store(self.b.zero(v.ty()), slot);
        d
    }

    /// Adds `c` to the adjoint of `v` (no-op for inactive values and constants).
    fn accumulate(&mut self, v: Value, c: Value) {
        if !(v.is_instruction() || v.is_argument()) || !self.act.is_active(v) {
            return;
        }
        let slot = self.adjoint_slot(v);
        let old = self.b.load(v.ty(), slot);
        let new = adjoint::add(&self.b, old, c);
        self.b.store(new, slot);
    }

    // ---- primal values in the reverse sweep ----

    /// The primal value `v` as available at the reverse builder's position.
    fn primal(&mut self, v: Value) -> Value {
        if !v.is_instruction() {
            return self.map.get(v);
        }
        let blk = v.parent_block();
        self.cached_forward(self.map.get(v), blk)
    }

    /// A forward-sweep value `gv` (defined in primal block `blk`), usable in
    /// the reverse sweep: directly if `blk` dominates every exit, else via a
    /// stack slot written right after its definition.
    fn cached_forward(&mut self, gv: Value, blk: Block) -> Value {
        if self.cfg.dominates_all_exits(blk) {
            return gv;
        }
        let slot = match self.caches.get(&gv) {
            Some(s) => *s,
            None => {
                let s = self.top.alloca(gv.ty(), "cache");
                let fwd = Builder::new(self.g.context());
                fwd.position_after(gv);
                fwd.store(gv, s);
                self.caches.insert(gv, s);
                s
            }
        };
        self.b.load(gv.ty(), slot)
    }
}

/// The instruction's opcode as LLVM spells it (`fmul`, `load`, ...).
fn opcode_name(i: Value) -> String {
    i.opcode()
        .map(|op| format!("{op:?}").trim_start_matches("LLVM").to_lowercase())
        .unwrap_or_default()
}
