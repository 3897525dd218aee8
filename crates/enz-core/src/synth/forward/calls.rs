//! Forward mode's calls: a call of a function with a forward derivative
//! (the user's tangent function, or enz-rs's own, declared in the
//! registry), through a function pointer (its shadow table's forward
//! entry), of a memory function (mirrored on the shadows), of a masked
//! vector intrinsic, or of MPI (`mpi.rs`).

use super::Forward;
use crate::analysis::calls::CallKind;
use crate::ir::{Builder, Function, Inst, Ty, TyKind, Value};
use crate::names::{MaskedFn, MemFn};
use crate::signature::{ArgActivity, Canonical, Field, Kind, Mode, Param, Request, Signature};
use crate::synth::function_shadow::{load_entry, Entry, MAX_TABLE_WIDTH};
use crate::synth::masked;
use crate::synth::registry::Registry;

impl<'m, 'a> Forward<'m, 'a> {
    pub(super) fn call(&mut self, i: Inst<'m>, gi: Inst<'m>, registry: &mut Registry<'m>) {
        let kind = self.call_kinds.get(i.into());
        let b = Builder::new(i.context());
        b.position_after(gi);
        if let Some(m) = kind.memory() {
            return self.memory_call(i, gi, m, &b);
        }
        if let CallKind::Mpi(f) = kind {
            return self.mpi_call(i, gi, f, &b);
        }
        if let CallKind::Blas(f) = kind {
            return self.blas_call(i, gi, f, &b);
        }
        if kind.is_inactive() {
            return;
        }
        if let CallKind::Masked(m) = kind {
            return self.masked(i, m, &b);
        }
        if let CallKind::Team(f) = kind {
            return self.team_call(i, gi, f, registry);
        }
        if matches!(kind, CallKind::Defined(_) | CallKind::Custom(_)) {
            if let Some(d) = crate::synth::check_integer_arguments(i, &self.act, self.req.name) {
                return self.diags.push(d);
            }
        }
        let args: Vec<Value> = (0..i.call_num_args()).map(|k| i.operand(k)).collect();
        let active: Vec<bool> = args.iter().map(|a| self.act.is_active(*a)).collect();
        let any_shadow = args.iter().any(|a| self.act.is_shadowed(*a));
        let through_globals =
            matches!(kind, CallKind::Defined(f) if self.act.moves_global_derivatives(f));
        if !active.iter().any(|a| *a)
            && !any_shadow
            && !self.act.is_active(i.into())
            && !through_globals
        {
            return;
        }
        match kind {
            CallKind::Math(f) => self.math_call(i, gi, f, &b),
            // A registered derivative (which wins over the rule table) or
            // the body of a function of the module.
            CallKind::Custom(f) | CallKind::Defined(f) => self.user_call(i, gi, f, registry),
            CallKind::Indirect => self.indirect_call(i, gi, registry),
            // Repeated on the shadow structure by the shadow mirror.
            CallKind::Structure => {}
            _ => self
                .diags
                .push(crate::synth::undifferentiable_call(i, self.req.name)),
        }
    }

    /// A masked load or store (`b` just after the primal's copy): the same
    /// masked access on each lane's shadow memory, with the primal's mask.
    fn masked(&mut self, i: Inst<'m>, m: MaskedFn, b: &Builder<'m>) {
        let p = i.operand(m.pointer_arg());
        let value = match masked::moved_floats(i, m, |p| self.act.is_shadowed(p)) {
            Ok(Some(v)) => v,
            Ok(None) => return,
            Err(msg) => return self.unsupported(i, msg),
        };
        let mask = self.map.get(i.operand(m.pointer_arg() + 1));
        let active = if m.reads() {
            self.act.is_active(value)
        } else {
            self.act.is_shadowed(p)
        };
        if !active {
            return;
        }
        if self.shadows[0].forward(p).is_none() {
            if m.reads() && !self.act.is_shadowed(p) {
                // Inactive memory: only the pass-through lanes vary.
                let lanes = (0..self.lanes())
                    .map(|lane| {
                        let pass = self.tangent(b, i.operand(2), lane);
                        b.select(mask, b.zero(value.ty()), pass)
                    })
                    .collect();
                self.tangents.insert(value, lanes);
                return;
            }
            return self.unsupported(
                i,
                "a differentiable masked access to memory without a shadow",
            );
        }
        let mut lanes = Vec::new();
        for lane in 0..self.lanes() {
            let s = self.shadows[lane].forward(p).expect("checked");
            if m.reads() {
                let pass = self.tangent(b, i.operand(2), lane);
                lanes.push(masked::load(b, s, mask, pass));
            } else {
                masked::store(b, self.tangent(b, value, lane), s, mask);
            }
        }
        if m.reads() {
            self.tangents.insert(value, lanes);
        }
    }

    /// A call through a function pointer with active data: the forward
    /// derivative of this width is an entry of the pointer's shadow table,
    /// on the canonical ABI of the call's function type.
    fn indirect_call(&mut self, i: Inst<'m>, gi: Inst<'m>, registry: &mut Registry<'m>) {
        if let Some(d) = crate::synth::check_integer_arguments(i, &self.act, self.req.name) {
            return self.diags.push(d);
        }
        let width = self.req.width;
        if self.req.error {
            return self.unsupported(
                i,
                "error estimation through a call of a function pointer is not supported: call the function directly",
            );
        }
        if width > MAX_TABLE_WIDTH {
            return self.unsupported(
                i,
                &format!("a call through a function pointer in vector forward mode of width {width} (at most {MAX_TABLE_WIDTH}): call the function directly, or use a smaller enzyme_width"),
            );
        }
        if let Err(d) = registry.require_table_width(width) {
            return self.diags.push(d);
        }
        if crate::synth::is_undifferentiable_callee(i) {
            let d = crate::synth::undifferentiable_call(i, self.req.name);
            return self.diags.push(d);
        }
        let callee = i.called_value().expect("a call");
        let Some(table) = self.shadows[0].forward(callee) else {
            return self.unsupported(
                i,
                "the function called through this pointer needs a shadow (its table of derivatives), and enz-rs cannot tell where the pointer comes from: pass it with enzyme_dup (the function itself as its shadow), or call the function directly",
            );
        };
        let mode = Mode::Forward { width };
        let sig = Canonical::signature(i.call_function_type(), mode, Kind::Forward { width });
        self.call_forward(i, gi, &sig, |b| {
            load_entry(b, table, Entry::Forward { width })
        });
    }

    /// Memory functions: allocations keep their primal (shadows were made
    /// by `ShadowMap::mirror`), frees free the shadows too, copies and sets
    /// are mirrored on the shadows.
    fn memory_call(&mut self, i: Inst<'m>, gi: Inst<'m>, m: MemFn, b: &Builder<'m>) {
        if m.allocates() || m.allocates_through().is_some() {
            return;
        }
        if m.frees() {
            // The same deallocation (sized, aligned...) on each shadow.
            for lane in 0..self.lanes() {
                if let Some(s) = self.shadows[lane]
                    .forward(i.operand(0))
                    .filter(|_| self.act.is_shadowed(i.operand(0)))
                {
                    let c = gi.clone_instruction();
                    b.insert(c);
                    c.set_operand(0, s);
                }
            }
            return;
        }
        let d = i.operand(0);
        if !self.act.is_shadowed(d) {
            return;
        }
        let n = gi.operand(2);
        for lane in 0..self.lanes() {
            let Some(sd) = self.shadows[lane].forward(d) else {
                continue;
            };
            let src = m
                .transfers()
                .then(|| i.operand(1))
                .filter(|s| self.act.is_shadowed(*s))
                .and_then(|s| self.shadows[lane].forward(s));
            match src {
                Some(ss) => {
                    let c = gi.clone_instruction();
                    b.insert(c);
                    c.set_operand(0, sd);
                    c.set_operand(1, ss);
                }
                None if m.on_device() => {
                    let n = b.int_cast(n, Ty::int(i.context(), 64));
                    crate::synth::cuda_host::zero(b, sd, n);
                }
                None => {
                    b.memset_zero(sd, n);
                }
            }
        }
    }

    /// A call to a function of the module (or with a custom derivative):
    /// call its forward derivative.
    fn user_call(
        &mut self,
        i: Inst<'m>,
        gi: Inst<'m>,
        f: Function<'m>,
        registry: &mut Registry<'m>,
    ) {
        let acts: Vec<ArgActivity> = (0..i.call_num_args())
            .map(|k| {
                let a = i.operand(k);
                if (a.ty().kind() == TyKind::Pointer && self.act.is_shadowed(a))
                    || self.act.is_active(a)
                {
                    ArgActivity::Dup
                } else {
                    ArgActivity::Const
                }
            })
            .collect();
        let key = Request {
            function: f,
            args: acts,
            ret_active: false,
            ret_shadowed: false,
            mode: self.req.mode(),
        };
        let target = match registry.forward(&key) {
            Ok(t) => t,
            Err(d) => return self.diags.push(d),
        };
        let sig = key.signature(Kind::Forward {
            width: self.req.width,
        });
        self.call_forward(i, gi, &sig, |_| target.as_value());
    }

    /// Replaces call `gi` by a call of the forward derivative with
    /// signature `sig` (made by `callee` at the call's position).
    fn call_forward(
        &mut self,
        i: Inst<'m>,
        gi: Inst<'m>,
        sig: &Signature<'m>,
        callee: impl FnOnce(&Builder<'m>) -> Value<'m>,
    ) {
        let b = Builder::new(i.context());
        b.position_after(gi);
        let call_args = sig.arguments(|p, _| {
            let (k, lane) = match p {
                Param::Primal(k) => return Ok(self.map.get(i.operand(k as u32))),
                Param::Shadow { of, lane } => (of, lane as usize),
                Param::ReturnAdjoint | Param::Tape => unreachable!("not forward parameters"),
            };
            let op = i.operand(k as u32);
            if op.ty().kind() == TyKind::Pointer {
                self.shadows[lane].forward(op).ok_or(())
            } else {
                Ok(self.tangent(&b, op, lane))
            }
        });
        let Ok(call_args) = call_args else {
            return self.unsupported(i, "a pointer argument has no shadow");
        };
        let callee = callee(&b);
        let res = b.call(sig.function_type(), callee, &call_args);
        crate::synth::unwind::replaced_call(&mut self.detached, gi, res);
        let ret = i.ty();
        if ret.is_void() {
            gi.erase();
            return;
        }
        let primal = b.extract_value(
            res.as_value(),
            sig.field_index(Field::Return).expect("a return"),
        );
        gi.replace_all_uses_with(primal);
        gi.erase();
        self.map.insert(i, primal);
        if sig.field_index(Field::ReturnShadow { lane: 0 }).is_some() {
            let lanes: Vec<Value> = (0..self.req.width)
                .filter_map(|lane| sig.field_index(Field::ReturnShadow { lane }))
                .map(|k| b.extract_value(res.as_value(), k))
                .collect();
            if ret.kind() == TyKind::Pointer {
                for (lane, s) in lanes.into_iter().enumerate() {
                    self.shadows[lane].insert(i.into(), s);
                }
            } else {
                self.tangents.insert(i.into(), lanes);
            }
        }
    }

    /// An OpenMP parallel region (`__kmpc_fork_call(loc, argc, microtask,
    /// args...)`): fork the microtask's forward derivative, itself a
    /// microtask, with the shadows (`synth/openmp.rs`).
    fn team_call(
        &mut self,
        i: Inst<'m>,
        gi: Inst<'m>,
        f: Function<'m>,
        registry: &mut Registry<'m>,
    ) {
        // Microtask parameter k is fork operand k + 1 (k >= 2).
        let operand = |k: usize| i.operand(k as u32 + 1);
        let acts = match crate::synth::openmp::team_activities(i, &self.act) {
            Ok(Some(acts)) => acts,
            Ok(None) => return,
            Err(why) => return self.unsupported(i, why),
        };
        let width = self.req.width;
        let key = Request {
            function: f,
            args: acts,
            ret_active: false,
            ret_shadowed: false,
            mode: self.req.mode(),
        };
        let target = match registry.forward(&key) {
            Ok(t) => t,
            Err(d) => return self.diags.push(d),
        };
        if let Err(why) = crate::synth::openmp::check_microtask_derivative(target, false) {
            return self.unsupported(
                i,
                &format!("cannot fork this parallel region's derivative: {why}"),
            );
        }
        let sig = key.signature(Kind::Forward { width });
        let args = sig.arguments(|p, t| match p {
            Param::Primal(0 | 1) => Ok(t.null_constant()),
            Param::Primal(k) => Ok(self.map.get(operand(k))),
            Param::Shadow { of, lane } => {
                self.shadows[lane as usize].forward(operand(of)).ok_or(())
            }
            Param::ReturnAdjoint | Param::Tape => unreachable!("not forward parameters"),
        });
        let Ok(args) = args else {
            return self.unsupported(
                i,
                "a pointer argument of this parallel region has no shadow",
            );
        };
        let b = Builder::new(i.context());
        b.position_after(gi);
        let loc = self.map.get(i.operand(0));
        crate::synth::openmp::fork(&b, gi, loc, target, &args[2..]);
        gi.erase();
    }
}
