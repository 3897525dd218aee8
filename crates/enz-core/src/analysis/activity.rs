//! Activity analysis: which values carry derivatives and which pointers
//! need shadows.
//!
//! A floating value is *active* when it is both *varied* (reached, through
//! floating-point data flow or through active memory, from an active input)
//! and *useful* (it reaches the active return, or is stored to memory that
//! has a shadow, or is passed to a differentiated call). A pointer is
//! *shadowed* when the memory it points to may hold derivatives: pointers
//! are grouped into families (connected through GEPs, casts, phis and
//! selects); a family is shadowed when it holds a `dup` argument, when a
//! varied value or a shadowed pointer is stored through it, when shadowed
//! memory is copied into it, when it is loaded from shadowed memory, or
//! when it is passed to a differentiated call with other active data (not
//! a pointer parameter declared const: the callee gets it const too); a
//! shadowed pointer loaded from memory shadows that memory, and a pointer
//! stored into shadowed memory is shadowed (the shadow memory holds its
//! shadow).
//! An MPI call that moves floats shadows all its buffers when one of them
//! is shadowed, or when it receives in a function where anything is
//! active (what it receives may carry what a peer's other call sent).
//! Integers, comparisons and calls to known-inactive functions are never
//! active.

use super::calls::{CallFacts, CallKind, CallKinds, Direction};
use crate::ir::LLVMOpcode;
use crate::ir::{Function, Inst, TyKind, Value};
use crate::names::{BlasFn, MemFn};
use std::collections::{HashMap, HashSet};

/// How a parameter enters the analysis.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum ArgFact {
    /// Inactive.
    Const,
    /// A floating value whose adjoint is wanted.
    Active,
    /// A pointer with a shadow.
    Shadowed,
}

/// The activity facts of one function for one activity signature.
#[derive(Debug, Default)]
pub(crate) struct Activity<'m> {
    varied: HashSet<Value<'m>>,
    useful: HashSet<Value<'m>>,
    family: HashMap<Value<'m>, usize>,
    shadowed_families: HashSet<usize>,
    /// Shadowed families of function pointers called with active data, and
    /// of the memory they are loaded from (their shadows are shadow
    /// tables, see `synth/function_shadow.rs`).
    function_families: HashSet<usize>,
    /// Families holding a global the user declared inactive: never
    /// shadowed, and what is stored there carries no derivative.
    inactive_families: HashSet<usize>,
    /// Families of pointer parameters declared const (and of no shadowed
    /// parameter): passing them to a differentiated call does not shadow
    /// them (the callee gets them const too); storing varied values
    /// through them still does (and then fails for want of a shadow).
    const_param_families: HashSet<usize>,
    /// Functions of the module called here that use a global of
    /// `ActivityInputs::shadowed_globals`, themselves or through their
    /// callees (`analysis::global_activity`): their calls are active
    /// whatever their arguments.
    global_callees: HashSet<Function<'m>>,
}

/// What the analysis needs to know about the world outside the function.
pub(crate) struct ActivityInputs<'m, 'a> {
    pub(crate) args: &'a [ArgFact],
    pub(crate) ret_active: bool,
    /// Whether returned pointers need shadows.
    pub(crate) ret_shadowed: bool,
    /// What the user declared about functions, for classifying calls.
    pub(crate) calls: CallFacts<'m, 'a>,
    /// Globals the user gave shadows (their memory carries derivatives).
    pub(crate) shadowed_globals: &'a HashSet<Value<'m>>,
    /// Globals the user declared inactive (`__enzyme_inactive_global`).
    pub(crate) inactive_globals: &'a HashSet<Value<'m>>,
}

/// The activities `--print-activity` and `--print-plan` assume for `f`'s
/// parameters: pointers shadowed, floats active, the rest constant.
pub(crate) fn default_args(f: Function<'_>) -> Vec<ArgFact> {
    f.params()
        .iter()
        .map(|p| match p.ty().kind() {
            TyKind::Pointer => ArgFact::Shadowed,
            _ if p.ty().is_fp_or_fp_vector() => ArgFact::Active,
            _ => ArgFact::Const,
        })
        .collect()
}

impl<'m> Activity<'m> {
    /// Analyses `func`.
    pub(crate) fn analyse(func: Function<'m>, inputs: &ActivityInputs<'m, '_>) -> Activity<'m> {
        let insts: Vec<Inst> = func
            .blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .collect();
        let mut a = Activity {
            family: pointer_families(func, &insts),
            ..Activity::default()
        };
        for (p, fact) in func.params().into_iter().zip(inputs.args) {
            match fact {
                ArgFact::Active if p.ty().carries_float() => {
                    a.varied.insert(p);
                }
                ArgFact::Shadowed if p.ty().kind() == TyKind::Pointer => {
                    a.shadow(p);
                }
                _ => {}
            }
        }
        let shadowed_params: HashSet<usize> = func
            .params()
            .into_iter()
            .zip(inputs.args)
            .filter(|(_, f)| matches!(f, ArgFact::Shadowed))
            .filter_map(|(p, _)| a.family.get(&p).copied())
            .collect();
        a.const_param_families = func
            .params()
            .into_iter()
            .zip(inputs.args)
            .filter(|(p, f)| matches!(f, ArgFact::Const) && p.ty().kind() == TyKind::Pointer)
            .filter_map(|(p, _)| a.family.get(&p).copied())
            .filter(|f| !shadowed_params.contains(f))
            .collect();
        a.inactive_families = inputs
            .inactive_globals
            .iter()
            .filter_map(|g| a.family.get(g).copied())
            .collect();
        for g in inputs.shadowed_globals {
            a.shadow(*g);
        }
        if !inputs.shadowed_globals.is_empty() {
            let callees: HashSet<Function<'m>> = insts
                .iter()
                .filter_map(|i| i.called_function())
                .filter(|f| !f.is_declaration())
                .collect();
            a.global_callees = callees
                .into_iter()
                .filter(|f| super::global_activity::reaches_globals(*f, inputs.shadowed_globals))
                .collect();
        }
        if inputs.ret_shadowed {
            for i in &insts {
                if i.opcode() == Some(LLVMOpcode::LLVMRet) && i.num_operands() == 1 {
                    a.shadow(i.operand(0));
                }
            }
        }
        // Every call classified once (the fixed points visit them often).
        let kinds = CallKinds::of(func, inputs.calls, Direction::Reverse);
        let descriptors = descriptor_globals(&insts);
        let mut changed = true;
        while changed {
            changed = false;
            for i in &insts {
                changed |= a.step_forward(*i, &kinds);
            }
            // A global whose initial contents point into a shadowed global
            // (a descriptor of an array) holds pointers needing shadows.
            for (d, targets) in &descriptors {
                let shadowed = targets
                    .iter()
                    .any(|t| a.is_shadowed(*t) || inputs.shadowed_globals.contains(t));
                if shadowed && !a.is_shadowed(*d) {
                    changed |= a.shadow(*d);
                }
            }
        }
        if inputs.ret_active {
            for i in &insts {
                if i.opcode() == Some(LLVMOpcode::LLVMRet) && i.num_operands() == 1 {
                    a.useful.insert(i.operand(0));
                }
            }
        }
        changed = true;
        while changed {
            changed = false;
            for i in insts.iter().rev() {
                changed |= a.step_backward(*i, &kinds);
            }
        }
        a
    }

    /// One forward transfer; returns whether anything changed.
    fn step_forward(&mut self, i: Inst<'m>, kinds: &CallKinds<'m>) -> bool {
        use LLVMOpcode::*;
        let mut changed = false;
        match i.opcode() {
            Some(LLVMLoad) => {
                // A function pointer needing a shadow is loaded from memory
                // that needs one (its shadow holds the shadow tables).
                if self.holds_functions(i.as_value()) {
                    changed |= self.shadow_functions(i.operand(0));
                }
                if self.is_shadowed(i.operand(0)) {
                    if i.ty().carries_float() {
                        changed |= self.varied.insert(i.into());
                    }
                    if i.ty().kind() == TyKind::Pointer {
                        changed |= self.shadow(i.into());
                    }
                } else if i.ty().kind() == TyKind::Pointer && self.is_shadowed(i.into()) {
                    // A shadowed pointer read from memory has its shadow
                    // read from that memory's shadow.
                    changed |= self.shadow(i.operand(0));
                }
            }
            Some(LLVMStore) => {
                let v = i.operand(0);
                if self.varied.contains(&v) || self.is_shadowed(v) {
                    changed |= self.shadow(i.operand(1));
                }
                // A pointer stored into shadowed memory has its shadow
                // stored into the shadow memory (a load may read it back).
                if v.ty().kind() == TyKind::Pointer && self.is_shadowed(i.operand(1)) {
                    changed |= self.shadow(v);
                }
                // A pointer stored where shadowed function pointers live
                // (a callback field, a dispatch table) needs a shadow.
                if v.ty().kind() == TyKind::Pointer && self.holds_functions(i.operand(1)) {
                    changed |= self.shadow_functions(v);
                }
            }
            Some(LLVMAtomicRMW) => {
                // `*p op= v`: like a store of v into p's memory.
                if self.varied.contains(&i.operand(1)) {
                    changed |= self.shadow(i.operand(0));
                }
            }
            Some(LLVMCall | LLVMInvoke) => {
                let kind = kinds.get(i.into());
                if kind.is_inactive() {
                    return false;
                }
                if let CallKind::Mpi(f) = kind {
                    // Data moves between the buffers of a call (and of
                    // its peers' calls): one with a shadow shadows the
                    // others, when the datatype is a float.
                    // What a receive gets may come from a peer's active
                    // data, sent by another call: in a function with
                    // anything active, receive buffers are shadowed.
                    let bufs = super::mpi::buffer_args(i, f);
                    let anything = !self.varied.is_empty() || !self.shadowed_families.is_empty();
                    let receives = bufs.iter().any(|(b, _)| b.written);
                    if super::mpi::moves_floats(i, f)
                        && (bufs.iter().any(|(_, b)| self.is_shadowed(*b))
                            || (anything && receives))
                    {
                        for (_, b) in bufs {
                            changed |= self.shadow(b);
                        }
                    }
                    return changed;
                }
                if let CallKind::Blas(f @ BlasFn::Rule(..)) = kind.filter_readable_blas(i) {
                    // Floats flow from the arrays and scalars a BLAS call
                    // reads into the arrays it writes and its result.
                    let arrays = super::blas::arrays(i, f);
                    let flows = arrays.iter().any(|(_, a, _)| self.is_shadowed(*a))
                        || super::blas::scalars(i, f)
                            .iter()
                            .any(|s| self.varied.contains(s) || self.is_shadowed(*s));
                    if flows {
                        for (_, a, written) in arrays {
                            if written {
                                changed |= self.shadow(a);
                            }
                        }
                        if i.ty().carries_float() {
                            changed |= self.varied.insert(i.into());
                        }
                    }
                    return changed;
                }
                let args = super::calls::data_arguments(i, kind);
                let mem = kind.memory();
                if mem.is_some_and(MemFn::transfers) {
                    if self.is_shadowed(args[1]) {
                        changed |= self.shadow(args[0]);
                    }
                    return changed;
                }
                if mem == Some(MemFn::Realloc) {
                    // The new block holds the old block's contents.
                    if self.is_shadowed(args[0]) {
                        changed |= self.shadow(i.into());
                    }
                    if self.is_shadowed(i.into()) {
                        changed |= self.shadow(args[0]);
                    }
                    return changed;
                }
                if mem.is_some() {
                    return false;
                }
                if let CallKind::Defined(f) = kind {
                    // A fixed-point loop's states are its results: shadowed
                    // whatever the step reads (it may read globals).
                    if let Some(l) = super::calls::fixed_point_layout(f) {
                        for j in 0..l.states {
                            changed |= self.shadow(args[2 * j]);
                        }
                    }
                }
                let any_active = args
                    .iter()
                    .any(|a| self.varied.contains(a) || self.is_shadowed(*a));
                // A callee moving derivatives through globals: its result
                // may carry them, and so may the stack memory it is given
                // (memory of this function's own, such as a checkpointed
                // loop's state: what it accumulates from the globals);
                // other pointer arguments need no shadow.
                if !any_active
                    && matches!(kind, CallKind::Defined(f) if self.global_callees.contains(&f))
                {
                    if i.ty().carries_float() {
                        changed |= self.varied.insert(i.into());
                    }
                    for a in &args {
                        let root = super::gpu::root_object(*a);
                        let local = root.opcode() == Some(LLVMAlloca)
                            || root.as_inst().is_some_and(|r| {
                                r.called_function().is_some()
                                    && kinds.get(root).memory().is_some_and(|m| m.allocates())
                            });
                        if a.ty().kind() == TyKind::Pointer && local && !self.is_shadowed(*a) {
                            changed |= self.shadow(*a);
                        }
                    }
                }
                if kind == CallKind::Indirect && (any_active || self.is_shadowed(i.as_value())) {
                    // Called through its shadow table.
                    let callee = i.called_value().expect("a call");
                    changed |= self.shadow_functions(callee);
                }
                if !any_active {
                    return changed;
                }
                if i.ty().carries_float() {
                    changed |= self.varied.insert(i.into());
                }
                // A checkpointed loop's scheme and its data are the
                // driver's, never differentiated.
                let driver = match kind {
                    CallKind::Defined(f) => {
                        super::calls::checkpoint_layout(f).map(|l| l.scheme()..l.scheme() + 2)
                    }
                    _ => None,
                };
                if !matches!(kind, CallKind::Math(_) | CallKind::Linear) {
                    for (k, a) in args.iter().enumerate() {
                        let declared_const = self
                            .family
                            .get(a)
                            .is_some_and(|f| self.const_param_families.contains(f))
                            || driver.as_ref().is_some_and(|d| d.contains(&k));
                        if a.ty().kind() == TyKind::Pointer && !declared_const {
                            changed |= self.shadow(*a);
                        }
                    }
                    if i.ty().kind() == TyKind::Pointer {
                        changed |= self.shadow(i.into());
                    }
                }
            }
            Some(LLVMFCmp | LLVMICmp | LLVMFPToSI | LLVMFPToUI | LLVMAlloca) | None => {}
            Some(_) => {
                if i.ty().carries_float()
                    && !self.varied.contains(&i)
                    && data_operands(i).iter().any(|o| self.varied.contains(o))
                {
                    changed |= self.varied.insert(i.into());
                }
            }
        }
        changed
    }

    /// One backward transfer; returns whether anything changed.
    fn step_backward(&mut self, i: Inst<'m>, kinds: &CallKinds<'m>) -> bool {
        use LLVMOpcode::*;
        let mut changed = false;
        match i.opcode() {
            Some(LLVMStore) => {
                if self.is_shadowed(i.operand(1)) && i.operand(0).ty().carries_float() {
                    changed |= self.useful.insert(i.operand(0));
                }
            }
            Some(LLVMAtomicRMW) => {
                if self.is_shadowed(i.operand(0)) && i.operand(1).ty().carries_float() {
                    changed |= self.useful.insert(i.operand(1));
                }
            }
            Some(LLVMLoad | LLVMFCmp | LLVMICmp | LLVMFPToSI | LLVMFPToUI | LLVMAlloca) | None => {}
            Some(LLVMCall | LLVMInvoke) => {
                let kind = kinds.get(i.into());
                if let CallKind::Blas(f @ BlasFn::Rule(..)) = kind.filter_readable_blas(i) {
                    // A scalar (`alpha`, `beta`) of a call whose results
                    // carry derivatives is useful: synthesis refuses it
                    // if it also varies (it has no derivative).
                    let writes_active = self.useful.contains(&i.as_value())
                        || super::blas::arrays(i, f)
                            .iter()
                            .any(|(_, a, w)| *w && self.is_shadowed(*a));
                    if writes_active {
                        for s in super::blas::scalars(i, f) {
                            if s.ty().carries_float() {
                                changed |= self.useful.insert(s);
                            }
                        }
                    }
                    return changed;
                }
                if kind.is_inactive()
                    || kind.memory().is_some_and(MemFn::transfers)
                    || matches!(kind, CallKind::Mpi(_))
                {
                    return false;
                }
                let args = super::calls::data_arguments(i, kind);
                let math = matches!(kind, CallKind::Math(_) | CallKind::Linear);
                // A callee moving derivatives through globals may write
                // them from its arguments (a global read later here, or
                // by the caller).
                let through_globals =
                    matches!(kind, CallKind::Defined(f) if self.global_callees.contains(&f));
                let writes_active =
                    !math && (through_globals || args.iter().any(|a| self.is_shadowed(*a)));
                if self.useful.contains(&i) || writes_active {
                    for a in args {
                        if a.ty().carries_float() {
                            changed |= self.useful.insert(a);
                        }
                    }
                }
            }
            Some(_) => {
                if self.useful.contains(&i) {
                    for o in data_operands(i) {
                        if o.ty().carries_float() {
                            changed |= self.useful.insert(o);
                        }
                    }
                }
            }
        }
        changed
    }

    /// Marks `p`'s family shadowed, as one holding function pointers (or
    /// pointing to them); returns whether that is new.
    fn shadow_functions(&mut self, p: Value<'m>) -> bool {
        let new = self.shadow(p);
        match self.family.get(&p) {
            Some(f) => self.function_families.insert(*f) || new,
            None => new,
        }
    }

    /// Whether `p` is (or points to) a function pointer needing a shadow.
    fn holds_functions(&self, p: Value<'m>) -> bool {
        self.family
            .get(&p)
            .is_some_and(|f| self.function_families.contains(f))
    }

    /// Marks `p`'s pointer family shadowed; returns whether that is new.
    fn shadow(&mut self, p: Value<'m>) -> bool {
        match self.family.get(&p) {
            Some(f) if self.inactive_families.contains(f) => false,
            Some(f) => self.shadowed_families.insert(*f),
            None => false,
        }
    }

    /// Whether `p` points into a global the user declared inactive:
    /// derivatives stored there are dropped, as the user asked.
    pub(crate) fn is_inactive_memory(&self, p: Value<'m>) -> bool {
        self.family
            .get(&p)
            .is_some_and(|f| self.inactive_families.contains(f))
    }

    /// Whether floating value `v` (instruction or argument) is active.
    pub(crate) fn is_active(&self, v: Value<'m>) -> bool {
        self.varied.contains(&v) && self.useful.contains(&v)
    }

    /// Whether `v` is reached from an active input (whether or not useful).
    pub(crate) fn is_varied(&self, v: Value<'m>) -> bool {
        self.varied.contains(&v)
    }

    /// Whether calls of `f` move derivatives through shadowed globals (and
    /// so are differentiated whatever their arguments).
    pub(crate) fn moves_global_derivatives(&self, f: Function<'m>) -> bool {
        self.global_callees.contains(&f)
    }

    /// Whether pointer `v` has a shadow.
    pub(crate) fn is_shadowed(&self, v: Value<'m>) -> bool {
        self.family
            .get(&v)
            .is_some_and(|f| self.shadowed_families.contains(f))
    }
}

/// The writable globals `insts` use whose initializers hold pointers into
/// other writable globals, with those globals.
fn descriptor_globals<'m>(insts: &[Inst<'m>]) -> Vec<(Value<'m>, Vec<Value<'m>>)> {
    fn pointees<'m>(c: Value<'m>, out: &mut Vec<Value<'m>>, depth: u32) {
        if depth > 8 {
            return;
        }
        match c.ty().kind() {
            TyKind::Pointer => {
                let mut p = c;
                while !p.is_global_variable() && p.is_constant_expr() && p.num_operands() > 0 {
                    p = p.operand(0);
                }
                if p.is_global_variable() && !out.contains(&p) {
                    out.push(p);
                }
            }
            TyKind::Struct | TyKind::Array => {
                for k in 0..c.ty().len() as u32 {
                    if let Some(e) = c.aggregate_element(k) {
                        pointees(e, out, depth + 1);
                    }
                }
            }
            _ => {}
        }
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for i in insts {
        for o in i.operands() {
            let mut g = o;
            while !g.is_global_variable() && g.is_constant_expr() && g.num_operands() > 0 {
                g = g.operand(0);
            }
            let Some(global) = g.as_global() else {
                continue;
            };
            if !seen.insert(g) || global.is_global_constant() {
                continue;
            }
            let Some(init) = global.initializer() else {
                continue;
            };
            let mut targets = Vec::new();
            pointees(init, &mut targets, 0);
            targets.retain(|t| t.as_global().is_some_and(|t| !t.is_global_constant()));
            if !targets.is_empty() {
                out.push((g, targets));
            }
        }
    }
    out
}

/// Groups pointer values connected through GEPs, casts, phis, selects and
/// freezes (union-find); returns each pointer's family id.
fn pointer_families<'m>(func: Function<'m>, insts: &[Inst<'m>]) -> HashMap<Value<'m>, usize> {
    use LLVMOpcode::*;
    let mut parent: HashMap<Value, Value> = HashMap::new();
    fn find<'m>(parent: &mut HashMap<Value<'m>, Value<'m>>, v: Value<'m>) -> Value<'m> {
        let p = *parent.entry(v).or_insert(v);
        if p == v {
            return v;
        }
        let r = find(parent, p);
        parent.insert(v, r);
        r
    }
    let union = |parent: &mut HashMap<Value<'m>, Value<'m>>, a: Value<'m>, b: Value<'m>| {
        let (ra, rb) = (find(parent, a), find(parent, b));
        if ra != rb {
            parent.insert(ra, rb);
        }
    };
    // Vectors of pointers too (a GEP with vector indices, a gather's
    // addresses): one family with their base.
    let is_ptr = |v: Value| {
        let t = v.ty();
        t.kind() == TyKind::Pointer
            || (t.kind() == TyKind::Vector && t.element().kind() == TyKind::Pointer)
    };
    for p in func.params() {
        if is_ptr(p) {
            find(&mut parent, p);
        }
    }
    for i in insts {
        for o in i.operands() {
            if is_ptr(o) && !o.is_block_value() {
                find(&mut parent, o);
                // Constant GEPs and casts share their base's family.
                let mut c = o;
                while !c.is_instruction()
                    && !c.is_argument()
                    && !c.is_global_variable()
                    && !c.is_function()
                    && c.num_operands() > 0
                {
                    let base = c.operand(0);
                    if !is_ptr(base) {
                        break;
                    }
                    union(&mut parent, c, base);
                    c = base;
                }
            }
        }
        if !is_ptr(i.as_value()) {
            continue;
        }
        find(&mut parent, i.as_value());
        match i.opcode() {
            Some(LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMFreeze) => {
                union(&mut parent, i.as_value(), i.operand(0));
            }
            // An address computed from one pointer's bits (an aligned
            // buffer carved out of a larger one) points into its memory.
            Some(LLVMIntToPtr) => {
                if let Some(p) = address_bits_base(i.operand(0)) {
                    union(&mut parent, i.as_value(), p);
                }
            }
            Some(LLVMPHI) => {
                for (v, _) in i.incoming() {
                    if !v.is_undef_or_null() {
                        union(&mut parent, i.as_value(), v);
                    }
                }
            }
            Some(LLVMSelect) => {
                for k in [1, 2] {
                    if !i.operand(k).is_undef_or_null() {
                        union(&mut parent, i.as_value(), i.operand(k));
                    }
                }
            }
            // Pointers moved into, between and out of vectors of pointers.
            Some(LLVMInsertElement | LLVMShuffleVector | LLVMExtractElement) => {
                for k in 0..i.num_operands() {
                    let o = i.operand(k);
                    if is_ptr(o) && !o.is_undef_or_null() {
                        union(&mut parent, i.as_value(), o);
                    }
                }
            }
            // A thread-local global's address in this thread.
            Some(LLVMCall)
                if i.called_function()
                    .is_some_and(|f| crate::names::is_thread_local_address(&f.name())) =>
            {
                union(&mut parent, i.as_value(), i.operand(0));
            }
            _ => {}
        }
    }
    let keys: Vec<Value> = parent.keys().copied().collect();
    let mut ids: HashMap<Value, usize> = HashMap::new();
    let mut out = HashMap::new();
    for k in keys {
        let r = find(&mut parent, k);
        let n = ids.len();
        let id = *ids.entry(r).or_insert(n);
        out.insert(k, id);
    }
    out
}

/// The pointer an integer address is computed from: `ptrtoint p` through
/// additions, subtractions and bit masks with operands that hold no
/// pointer (`(p + 31) & -32`); `None` when no pointer, or more than one,
/// is involved.
pub(crate) fn address_bits_base<'m>(v: Value<'m>) -> Option<Value<'m>> {
    fn walk<'m>(v: Value<'m>, depth: usize, found: &mut Vec<Value<'m>>) -> bool {
        match v.opcode() {
            Some(LLVMOpcode::LLVMPtrToInt) => {
                found.push(v.operand(0));
                true
            }
            Some(
                LLVMOpcode::LLVMAdd
                | LLVMOpcode::LLVMSub
                | LLVMOpcode::LLVMAnd
                | LLVMOpcode::LLVMOr
                | LLVMOpcode::LLVMXor,
            ) if v.is_instruction() && depth > 0 => {
                walk(v.operand(0), depth - 1, found) && walk(v.operand(1), depth - 1, found)
            }
            _ => v.is_constant() && !v.is_instruction(),
        }
    }
    let mut found = Vec::new();
    (walk(v, 8, &mut found) && found.len() == 1).then(|| found[0])
}

/// The operands of `i` that carry data (not blocks, not the callee).
pub(crate) fn data_operands<'m>(i: Inst<'m>) -> Vec<Value<'m>> {
    if matches!(
        i.opcode(),
        Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke)
    ) {
        return (0..i.call_num_args()).map(|k| i.operand(k)).collect();
    }
    if i.opcode() == Some(LLVMOpcode::LLVMPHI) {
        return i.incoming().into_iter().map(|(v, _)| v).collect();
    }
    i.operands()
        .into_iter()
        .filter(|o| !o.is_block_value())
        .collect()
}

#[cfg(test)]
mod tests;
