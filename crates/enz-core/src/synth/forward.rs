//! Forward (tangent) mode, scalar and vector: `fwddiffe_f`.
//!
//! One pass over the cloned primal in reverse post-order computes, right
//! after each active instruction, its tangent by the rule table's tangent
//! formula — `width` tangents per value for vector mode, each lane its own
//! SSA value. Pointers get one shadow per lane (shared construction with
//! reverse mode, [`ShadowMap::mirror`]); stores write tangents to shadow
//! memory and loads read them back; memory intrinsics are mirrored on the
//! shadows. Calls left after inlining (recursion) call the callee's own
//! forward derivative. No tape, no caches: loops need nothing special.
//!
//! Signature: each primal parameter, followed by its `width` tangents or
//! shadows when duplicated; returns `{primal ret?, tangent₁ … tangent_w}`
//! (void when there is nothing to return).

mod blas;
mod calls;
mod error;
mod math;
mod mpi;
mod split;
mod zero_skip;

use super::emit::{emit, Operands};
use super::registry::Registry;
use super::rules::{lookup, OpKey};
use super::shadow::{position_at_top, Mirror, MirrorContext, ShadowMap};
use crate::analysis::activity::{Activity, ActivityInputs, ArgFact};
use crate::analysis::calls::{CallKinds, Direction};
use crate::analysis::cfg::Cfg;
use crate::diag::Diagnostic;
use crate::ir::LLVMOpcode;
use crate::ir::{clone_body, Builder, Function, Inst, TyKind, Value, ValueMap};
use crate::signature::{ArgActivity, Field, Kind, Param, Signature};
use std::collections::HashMap;

/// What to differentiate in forward mode.
pub(crate) struct ForwardRequest<'m, 'a> {
    pub(crate) prep: Function<'m>,
    pub(crate) name: &'a str,
    pub(crate) args: &'a [ArgActivity],
    pub(crate) width: u32,
    /// Forward split mode (`__enzyme_fwdsplit`, see `split.rs`): the
    /// release function of the matching split derivative, which frees the
    /// tape the function takes, with its signature.
    pub(crate) release: Option<(Function<'m>, Signature<'m>)>,
    /// Forward error estimation (`__enzyme_error_estimate`, see
    /// `error.rs`): tangents are error bounds.
    pub(crate) error: bool,
}

impl<'m> ForwardRequest<'m, '_> {
    /// The mode of the derivatives this one calls.
    fn mode(&self) -> crate::signature::Mode {
        match self.error {
            true => crate::signature::Mode::ForwardError,
            false => crate::signature::Mode::Forward { width: self.width },
        }
    }

    /// The signature of the function this request builds.
    fn signature(&self) -> Signature<'m> {
        let kind = match self.release {
            Some(_) => Kind::ForwardSplit,
            None => Kind::Forward { width: self.width },
        };
        Signature::new(kind, self.prep.function_type(), self.args, false)
    }
}

/// Fills in `f`, declared with the forward [`Signature`] of the request.
pub(crate) fn synthesize_forward<'m>(
    req: &ForwardRequest<'m, '_>,
    f: Function<'m>,
    registry: &mut Registry<'m>,
) -> Result<(), Vec<Diagnostic>> {
    let p = req.prep;
    let start = std::time::Instant::now();
    let cfg = Cfg::new(p);
    let facts: Vec<ArgFact> = p
        .params()
        .iter()
        .zip(req.args)
        .map(|(v, a)| match a {
            _ if !a.has_shadow() => ArgFact::Const,
            _ if v.ty().kind() == TyKind::Pointer => ArgFact::Shadowed,
            _ => ArgFact::Active,
        })
        .collect();
    let ret_ty = p.function_type().return_type();
    registry.shadow_globals_reached_from(p);
    let act = Activity::analyse(
        p,
        &ActivityInputs {
            args: &facts,
            ret_active: ret_ty.carries_float(),
            ret_shadowed: ret_ty.kind() == TyKind::Pointer,
            calls: registry.call_facts(),
            shadowed_globals: registry.user_shadowed_globals(),
            inactive_globals: registry.user_inactive_globals(),
        },
    );
    registry.out.timings.analyses += start.elapsed();
    let w = req.width as usize;
    let mut map = ValueMap::default();
    let mut tangents: HashMap<Value, Vec<Value>> = HashMap::new();
    let mut lane_params: Vec<HashMap<Value, Value>> = vec![HashMap::new(); w];
    let params = p.params();
    let sig = req.signature();
    let mut tape = None;
    for ((param, _), v) in sig.params().iter().zip(f.params()) {
        match *param {
            Param::Primal(k) => {
                map.insert(params[k], v);
                v.set_name(&params[k].name());
            }
            Param::Shadow { of, lane } => {
                let a = params[of];
                v.set_name(&format!("d{lane}_{}", a.name()));
                lane_params[lane as usize].insert(a, v);
                if a.ty().kind() != TyKind::Pointer {
                    tangents.entry(a).or_default().push(v);
                }
            }
            Param::Tape => {
                v.set_name("tape");
                tape = Some(v);
            }
            Param::ReturnAdjoint => {}
        }
    }
    if req.release.is_some() {
        split::check_replayable(req, registry)?;
    }
    clone_body(p, f, &mut map, false);
    let detached = super::unwind::detach_invokes(p, &mut map);
    let mut fw = Forward {
        req,
        act,
        call_kinds: CallKinds::of(p, registry.call_facts(), Direction::Forward),
        map,
        tangents,
        shadows: lane_params
            .into_iter()
            .enumerate()
            .map(|(lane, p)| ShadowMap::new(p).in_lane(lane))
            .collect(),
        phis: Vec::new(),
        detached,
        tape,
        diags: Vec::new(),
    };
    for blk in cfg.rpo() {
        for i in blk.instructions() {
            fw.instruction(i, registry);
        }
    }
    fw.finish();
    let reattached = super::unwind::reattach_invokes(std::mem::take(&mut fw.detached));
    // The primal's invokes now map to the invokes their calls became.
    let continuations = super::unwind::remap_reattached(p, &mut fw.map, &reattached);
    if fw.diags.is_empty() && req.release.is_none() && !super::gpu::is_gpu_module(p) {
        let primal = super::disjoint::primal_pointers(p, &fw.map);
        let shadow: std::collections::HashSet<Value<'m>> =
            fw.shadows.iter().flat_map(|s| s.values()).collect();
        super::disjoint::tag(f, &primal, &shadow);
    }
    let mut notes = Vec::new();
    if fw.diags.is_empty() && req.release.is_none() && !super::gpu::is_gpu_module(p) {
        notes = zero_skip::version_loops(&zero_skip::Facts {
            p,
            f,
            cfg: &cfg,
            kinds: &fw.call_kinds,
            map: &fw.map,
            tangents: &fw.tangents,
            shadows: &fw.shadows,
            continuations: &continuations,
        });
    }
    if fw.diags.is_empty() {
        let mut explanation = forward_explanation(req, f, &cfg);
        explanation.notes.extend(notes);
        registry.out.explanations.push(explanation);
        Ok(())
    } else {
        Err(fw.diags)
    }
}

/// `--explain` for a forward derivative: every loop runs once, with its
/// tangents alongside (nothing is cached).
fn forward_explanation<'m>(
    req: &ForwardRequest<'m, '_>,
    f: Function<'m>,
    cfg: &Cfg<'m>,
) -> crate::explain::Explanation {
    use crate::explain::{Allocation, Explanation, LoopPlan, Strategy};
    let loops = crate::analysis::loops::LoopNest::new(cfg)
        .map(|nest| {
            nest.ids()
                .map(|l| {
                    let lp = nest.get(l);
                    LoopPlan {
                        id: l.0,
                        parent: lp.parent.map(|p| p.0),
                        location: super::reverse::loop_location(lp),
                        strategy: Strategy::Forward,
                        cached: Vec::new(),
                        recomputed: 0,
                        reread: 0,
                        allocation: Allocation::None,
                        exit_recomputed: false,
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let lanes = if req.width > 1 {
        format!(", {} tangents per value", req.width)
    } else {
        String::new()
    };
    Explanation {
        function: req.name.to_string(),
        made: format!("forward derivative `{}`{lanes}", f.name()),
        loops,
        slots: Vec::new(),
        notes: Vec::new(),
    }
}

/// Tangent formula `expr` of the instruction cloned as `gi` (operands
/// `args`, operand tangents `dargs`), emitted with `b`.
fn emit_tangent<'m>(
    b: &Builder<'m>,
    expr: &super::rules::Expr,
    args: &[Value<'m>],
    gi: Inst<'m>,
    dargs: &[Option<Value<'m>>],
) -> Value<'m> {
    let o = Operands {
        args,
        ret: Some(gi.as_value()),
        rets: &[],
        dret: gi.as_value(),
        drets: &[],
        dargs,
        ty: gi.ty(),
        given: &[],
    };
    emit(b, expr, &o)
}

struct Forward<'m, 'a> {
    req: &'a ForwardRequest<'m, 'a>,
    act: Activity<'m>,
    /// The kind of every call of the primal.
    call_kinds: CallKinds<'m>,
    map: ValueMap<'m>,
    tangents: HashMap<Value<'m>, Vec<Value<'m>>>,
    shadows: Vec<ShadowMap<'m>>,
    /// Calls that were invokes in the primal (see `synth::unwind`).
    detached: Vec<super::unwind::Detached<'m>>,
    /// Forward split mode: the tape parameter.
    tape: Option<Value<'m>>,
    /// Tangent phis to complete: (primal phi, one phi per lane).
    phis: Vec<(Inst<'m>, Vec<Inst<'m>>)>,
    diags: Vec<Diagnostic>,
}

impl<'m, 'a> Forward<'m, 'a> {
    fn lanes(&self) -> usize {
        self.req.width as usize
    }

    /// The tangent of `v` in `lane`: zero for constants and inactive values.
    fn tangent(&self, b: &Builder<'m>, v: Value<'m>, lane: usize) -> Value<'m> {
        match self.tangents.get(&v) {
            Some(t) => t[lane],
            None => b.zero(v.ty()),
        }
    }

    fn unsupported(&mut self, i: impl Into<Value<'m>>, msg: &str) {
        self.diags
            .push(Diagnostic::new(msg).in_function(self.req.name).at(i));
    }

    fn instruction(&mut self, i: Inst<'m>, registry: &mut Registry<'m>) {
        use LLVMOpcode::*;
        let Some(op) = i.opcode() else { return };
        let gi = self.map.inst(i);
        for lane in 0..self.lanes() {
            let cx = MirrorContext {
                act: &self.act,
                kinds: &self.call_kinds,
                direction: Direction::Forward,
                heap_allocas: false,
            };
            let mirrored = self.shadows[lane].mirror(i, gi, &cx, registry);
            match mirrored {
                Mirror::Built if lane + 1 == self.lanes() => return,
                Mirror::Built => {}
                Mirror::Failed(d) => return self.diags.push(d),
                Mirror::Impossible => {
                    return self.unsupported(i, "cannot build a shadow for this pointer");
                }
                // Every lane still takes the shadows of constant
                // operands (each lane has its own shadow globals).
                Mirror::NotShadowed => {}
            }
        }
        let b = Builder::new(i.context());
        match op {
            LLVMStore => return self.store(i, gi),
            LLVMAtomicRMW => return self.atomic_update(i, gi),
            LLVMCall | LLVMInvoke => return self.call(i, gi, registry),
            LLVMRet => return self.ret(i, gi),
            _ => {}
        }
        if !self.act.is_active(i.as_value()) {
            return;
        }
        if op == LLVMPHI {
            position_at_top(&b, gi.parent_block());
            let lanes: Vec<Inst> = (0..self.lanes())
                .map(|_| b.phi(i.ty(), "tangent"))
                .collect();
            self.tangents
                .insert(i.as_value(), lanes.iter().map(|l| l.as_value()).collect());
            self.phis.push((i, lanes));
            return;
        }
        b.position_after(gi);
        let lanes: Vec<Value> = match op {
            LLVMLoad => {
                let Some(_) = self.shadows[0].forward(i.operand(0)) else {
                    return self
                        .unsupported(i, "a differentiable load from memory without a shadow");
                };
                (0..self.lanes())
                    .map(|lane| {
                        let s = self.shadows[lane].forward(i.operand(0)).expect("checked");
                        let t = b.load(i.ty(), s);
                        t.set_alignment(i.alignment());
                        t
                    })
                    .collect()
            }
            // Linear in their data operands: apply them to the tangents.
            LLVMExtractValue | LLVMInsertValue | LLVMExtractElement | LLVMInsertElement
            | LLVMShuffleVector | LLVMFreeze | LLVMSelect => {
                let data: &[u32] = match op {
                    LLVMInsertValue | LLVMInsertElement | LLVMShuffleVector => &[0, 1],
                    LLVMSelect => &[1, 2],
                    _ => &[0],
                };
                (0..self.lanes())
                    .map(|lane| {
                        let c = gi.clone_instruction();
                        b.insert(c);
                        for k in data {
                            c.set_operand(*k, self.tangent(&b, i.operand(*k), lane));
                        }
                        c.as_value()
                    })
                    .collect()
            }
            _ => match lookup(OpKey::Inst(op)) {
                Some(rule) => {
                    let active: Vec<bool> = (0..i.num_operands())
                        .map(|k| self.act.is_active(i.operand(k)))
                        .collect();
                    let args: Vec<Value> = (0..i.num_operands())
                        .map(|k| self.map.get(i.operand(k)))
                        .collect();
                    self.apply(&b, i.as_value(), gi, rule, &args, &active)
                }
                None => {
                    let msg =
                        format!("cannot differentiate this instruction in forward mode ({op:?})");
                    return self.unsupported(i, &msg);
                }
            },
        };
        self.tangents.insert(i.as_value(), lanes);
    }

    /// The rule's tangent in every lane.
    fn apply(
        &self,
        b: &Builder<'m>,
        i: Value<'m>,
        gi: Inst<'m>,
        rule: &super::rules::Rule,
        args: &[Value<'m>],
        active: &[bool],
    ) -> Vec<Value<'m>> {
        if self.req.error {
            if let Some(err) = self.error_bound(b, i, gi, rule, args, active) {
                return vec![err];
            }
        }
        if let Some(lanes) = self.apply_by_partials(b, i, gi, rule, args, active) {
            return lanes;
        }
        let expr = rule.tangent_over(active);
        (0..self.lanes())
            .map(|lane| {
                let dargs: Vec<Option<Value>> = (0..args.len())
                    .map(|k| active[k].then(|| self.tangent(b, i.operand(k as u32), lane)))
                    .collect();
                emit_tangent(b, &expr, args, gi, &dargs)
            })
            .collect()
    }

    /// With several lanes, a float rule whose active operands have the
    /// result's type: each operand's partial once (the rule with that
    /// operand's tangent 1), then every lane's tangent as their sum
    /// weighted by the lane's tangents, instead of the rule once per lane
    /// (a division or a math call per lane, for mixed mode's many lanes).
    fn apply_by_partials(
        &self,
        b: &Builder<'m>,
        i: Value<'m>,
        gi: Inst<'m>,
        rule: &super::rules::Rule,
        args: &[Value<'m>],
        active: &[bool],
    ) -> Option<Vec<Value<'m>>> {
        let ty = i.ty();
        let operands: Vec<usize> = (0..args.len()).filter(|k| active[*k]).collect();
        let same_type = operands.iter().all(|k| args[*k].ty() == ty);
        if self.lanes() < 2 || !ty.is_fp_scalar() || operands.is_empty() || !same_type {
            return None;
        }
        let partials: Vec<(usize, Value<'m>)> = operands
            .iter()
            .map(|&k| {
                let only: Vec<bool> = (0..args.len()).map(|j| j == k).collect();
                let dargs: Vec<Option<Value>> = (0..args.len())
                    .map(|j| (j == k).then(|| b.const_float(ty, 1.0)))
                    .collect();
                (
                    k,
                    emit_tangent(b, &rule.tangent_over(&only), args, gi, &dargs),
                )
            })
            .collect();
        Some(
            (0..self.lanes())
                .map(|lane| {
                    let mut sum: Option<Value> = None;
                    for (k, p) in &partials {
                        let t = self.tangent(b, i.operand(*k as u32), lane);
                        let term = b.fmul(*p, t).allow_reassoc();
                        sum = Some(match sum {
                            None => term,
                            Some(s) => b.fadd_reassoc(s, term),
                        });
                    }
                    sum.expect("an active operand")
                })
                .collect(),
        )
    }

    fn store(&mut self, i: Inst<'m>, gi: Inst<'m>) {
        let (v, p) = (i.operand(0), i.operand(1));
        if !self.act.is_shadowed(p) {
            if self.act.is_active(v) && !self.act.is_inactive_memory(p) {
                self.unsupported(
                    i,
                    "a differentiable value is stored to memory that has no shadow",
                );
            }
            return;
        }
        #[cfg(feature = "fault-injection")]
        if super::rules::fault::active(super::rules::fault::Fault::SkipShadowStore)
            && v.ty().carries_float()
        {
            return;
        }
        let b = Builder::new(i.context());
        b.position_after(gi);
        for lane in 0..self.lanes() {
            let Some(sp) = self.shadows[lane].forward(p) else {
                return;
            };
            let t = if v.ty().kind() == TyKind::Pointer {
                match self.shadows[lane].forward(v) {
                    Some(s) => s,
                    None => continue,
                }
            } else if v.ty().carries_float() {
                self.tangent(&b, v, lane)
            } else if v.is_plain_integer_constant() {
                // A constant's bits (a float moved as an integer and
                // constant-folded, or a null pointer, or integer data):
                // its tangent, or shadow, is zero.
                b.zero(v.ty())
            } else {
                continue;
            };
            b.store(t, sp).set_alignment(i.alignment());
        }
    }

    /// `atomicrmw fadd/fsub p, v` (`#pragma omp atomic`, CUDA's
    /// `atomicAdd`): the same update of the shadow by the tangent; the old
    /// value's tangent is what the shadow held. Like a store, it writes
    /// memory whether or not its result is used.
    fn atomic_update(&mut self, i: Inst<'m>, gi: Inst<'m>) {
        use crate::ir::LLVMAtomicRMWBinOp::*;
        let (p, v) = (i.operand(0), i.operand(1));
        if !v.ty().carries_float() {
            return;
        }
        if !self.act.is_shadowed(p) {
            if self.act.is_active(v) && !self.act.is_inactive_memory(p) {
                self.unsupported(
                    i,
                    "a differentiable value is added atomically to memory that has no shadow",
                );
            }
            return;
        }
        let negate =
            match i.atomic_rmw_op() {
                LLVMAtomicRMWBinOpFAdd => false,
                LLVMAtomicRMWBinOpFSub => true,
                _ => return self.unsupported(
                    i,
                    "forward mode differentiates atomic additions and subtractions of floats only",
                ),
            };
        let b = Builder::new(i.context());
        b.position_after(gi);
        let mut olds = Vec::new();
        for lane in 0..self.lanes() {
            let Some(sp) = self.shadows[lane].forward(p) else {
                return self.unsupported(i, "an atomic update of memory without a shadow");
            };
            let t = self.tangent(&b, v, lane);
            let t = if negate { b.fneg(t) } else { t };
            olds.push(b.atomic_fadd(sp, t));
        }
        if self.act.is_active(i.as_value()) {
            self.tangents.insert(i.as_value(), olds);
        }
    }

    fn ret(&mut self, i: Inst<'m>, gi: Inst<'m>) {
        let b = Builder::new(i.context());
        b.position_before(gi);
        self.release_tape(&b);
        let f = gi.parent_block().parent();
        let rty = f.function_type().return_type();
        if rty.is_void() {
            b.ret(None);
            gi.erase();
            return;
        }
        let r = i.operand(0);
        let sig = self.req.signature();
        let mut agg = b.poison(rty);
        for (k, (field, _)) in sig.fields().iter().enumerate() {
            let v = match *field {
                Field::Return => self.map.get(r),
                Field::ReturnShadow { lane } if r.ty().kind() == TyKind::Pointer => self.shadows
                    [lane as usize]
                    .forward(r)
                    .unwrap_or_else(|| b.zero(r.ty())),
                Field::ReturnShadow { lane } => self.tangent(&b, r, lane as usize),
                Field::Tape | Field::Adjoint(_) => unreachable!("not forward fields"),
            };
            agg = b.insert_value(agg, v, k as u32);
        }
        b.ret(Some(agg));
        gi.erase();
    }

    fn finish(&mut self) {
        for (phi, lanes) in std::mem::take(&mut self.phis) {
            for (v, blk) in phi.incoming() {
                let gb = self.map.block(blk);
                let b = Builder::new(phi.context());
                for (lane, tphi) in lanes.iter().enumerate() {
                    tphi.add_incoming(self.tangent(&b, v, lane), gb);
                }
            }
        }
        for s in &mut self.shadows {
            s.finish_phis(&self.map);
        }
    }
}
