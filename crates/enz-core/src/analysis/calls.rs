//! One classification of every call, with one precedence, asked by the
//! analyses (activity, re-readable loads, types) and by both synthesis
//! modes, so that a call means the same thing everywhere.
//!
//! Precedence, first match wins ([`CallFacts::classify`]):
//!
//! 1. no callee (through a pointer, or through a function type other than
//!    the callee's): [`CallKind::Indirect`]; an OpenMP fork
//!    (`__kmpc_fork_call`) of a microtask of the module:
//!    [`CallKind::Team`];
//! 2. an `__enzyme_*` entry point (nested differentiation, lowered first);
//! 3. a function the user declared inactive (wins over everything the
//!    user or the tables say about it);
//! 4. a function with a derivative the user registered for this direction
//!    (wins over the rule table and the body);
//!    A function registered as behaving like a library function
//!    (`__enzyme_function_like`) is classified by that function's name
//!    from here on;
//! 5. a memory function (allocation, free, copy, set), by name, defined or
//!    not, as LLVM's library info treats them;
//! 6. a GPU barrier; an OpenMP synchronisation call (barrier, critical
//!    section), bookkeeping call (worksharing bounds, thread queries) or
//!    ordering call (`ordered`);
//! 7. an MPI function ([`CallKind::Mpi`]: communication differentiated
//!    by `synth/mpi.rs`; set-up, queries and clocks inactive; the barrier
//!    mirrored; any other `MPI_*` refused when passed memory with a
//!    shadow), by name, defined or not;
//!    A BLAS routine declared, not defined ([`CallKind::Blas`]:
//!    `synth/blas.rs`; one without a rule refused by name);
//! 8. a known-inactive function (I/O, clocks, random numbers, markers);
//! 9. a math function of the rule table (vector reductions included);
//! 10. a masked vector load or store (`llvm.masked.load/store`);
//! 11. a function that relinks a pointer structure of the C++ runtime
//!     (repeated on the shadow structure);
//! 12. any other intrinsic;
//! 13. a function defined in the module (differentiated through its body);
//! 14. a declaration without a rule.

use crate::ir::{Function, Inst, TyKind, Value};
use crate::names::{
    is_barrier, is_fork_call, is_iteration_count, is_known_inactive, is_openmp_bookkeeping,
    is_openmp_ordering, is_structure_function, BlasFn, EntryPoint, MaskedFn, MathFn, MemFn, MpiFn,
    OmpSync, Written,
};
use std::collections::{HashMap, HashSet};

/// A user's derivative functions registered through
/// `__enzyme_register_gradient_*` / `__enzyme_register_derivative_*`, or
/// the library function it behaves like (`__enzyme_function_like`).
#[derive(Copy, Clone, Debug, Default)]
pub struct CustomRules<'m> {
    /// (augmented forward, reverse) for reverse mode.
    pub gradient: Option<(Function<'m>, Function<'m>)>,
    /// The tangent function for forward mode.
    pub forward: Option<Function<'m>>,
    /// The spelling of the math or memory function the function is
    /// differentiated as (see [`crate::function_like_spelling`]); its
    /// calls stay calls to it.
    pub like: Option<&'static str>,
    /// The function is an allocator (`__enzyme_allocation_like`).
    pub allocation: Option<AllocationLike<'m>>,
}

/// A user's allocator, registered with `__enzyme_allocation_like`: the
/// shadow of what it returns is allocated by calling it again (and
/// zeroed), and freed with its deallocator.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct AllocationLike<'m> {
    /// The argument holding the size in bytes.
    pub size_arg: u32,
    /// The function that frees what the allocator returns.
    pub deallocator: Function<'m>,
    /// The deallocator's arguments, in order: `-1` the pointer, `k >= 0`
    /// argument `k` of the allocation call. Only the first
    /// `deallocator_argc` entries count.
    pub deallocator_args: [i32; 4],
    /// How many arguments the deallocator takes.
    pub deallocator_argc: u8,
}

/// Which derivative a custom rule must provide to count.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Direction {
    /// Forward mode (tangents): a registered tangent function.
    Forward,
    /// Reverse mode (adjoints), and analyses shared by both modes: a
    /// registered augmented-forward/reverse pair.
    Reverse,
}

/// What a call is.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum CallKind<'m> {
    /// Through a pointer, or through another function type than the
    /// callee's (see `Value::callee_with_other_type`).
    Indirect,
    /// A call to an `__enzyme_*` entry point.
    EntryPoint(EntryPoint),
    /// A function the user declared inactive.
    UserInactive,
    /// A function with a user-registered derivative for the direction.
    Custom(Function<'m>),
    /// A memory function.
    Memory(MemFn),
    /// A GPU barrier (`__syncthreads`).
    Barrier,
    /// `__kmpc_fork_call(loc, argc, microtask, args...)`: an OpenMP
    /// parallel region, `microtask(&gtid, &btid, args...)` run by every
    /// thread of a team (`synth/openmp.rs`). Analyses take it as a call
    /// of the microtask with `args`.
    Team(Function<'m>),
    /// OpenMP bookkeeping (worksharing bounds, thread queries): no
    /// derivative, but it may write integers through its pointer
    /// arguments.
    OmpRuntime,
    /// An OpenMP synchronisation call, mirrored by the reverse sweep.
    OmpSync(OmpSync),
    /// An OpenMP call ordering iterations (`ordered`): refused in reverse
    /// mode, run as is in forward mode.
    OmpOrdering,
    /// An MPI function (`synth/mpi.rs`).
    Mpi(MpiFn),
    /// A BLAS routine with no body in the module (`synth/blas.rs`).
    Blas(BlasFn),
    /// A function known to carry no derivative.
    KnownInactive,
    /// `__enz_repeat_*(inputs...)`: the earlier iterations of a loop that
    /// repeats one computation, run as primal code only
    /// (`transform/repeated.rs`): no derivative (the last iteration,
    /// differentiated, writes the same again), but it writes what its
    /// pointer arguments point into.
    Repeated,
    /// A math function of the rule table.
    Math(MathFn),
    /// `__enz_linear_*(y, J_1, x_1, ...)` of mixed mode (`synth/mixed.rs`):
    /// `y`, whose adjoint adds `J_k · dy` to each `x_k`'s.
    Linear,
    /// A masked vector load or store (`llvm.masked.load/store`).
    Masked(MaskedFn),
    /// A function that only relinks a pointer structure (the C++
    /// runtime's tree and list nodes): the shadow structure gets the same
    /// call on shadow pointers.
    Structure,
    /// Another intrinsic (no derivative known).
    Intrinsic(Function<'m>),
    /// A function defined in the module.
    Defined(Function<'m>),
    /// A declaration without a rule.
    External(Function<'m>),
}

impl<'m> CallKind<'m> {
    /// Whether derivatives never flow through the call (its results are
    /// constants and it writes no active memory).
    pub(crate) fn is_inactive(self) -> bool {
        matches!(
            self,
            CallKind::UserInactive
                | CallKind::KnownInactive
                | CallKind::Repeated
                | CallKind::Barrier
                | CallKind::OmpRuntime
                | CallKind::OmpSync(_)
                | CallKind::OmpOrdering
                | CallKind::Mpi(MpiFn::Inactive | MpiFn::Barrier)
        ) || matches!(self, CallKind::Blas(b) if b.is_inactive())
    }

    /// The kind, less a BLAS routine whose arguments enz-rs cannot read
    /// at call `i` (taken as any other external call: synthesis refuses
    /// it by name if it carries derivatives).
    pub(crate) fn filter_readable_blas(self, i: Inst<'m>) -> CallKind<'m> {
        match self {
            CallKind::Blas(f) if crate::analysis::blas::check_arguments(i, f).is_err() => {
                CallKind::Blas(BlasFn::Other)
            }
            k => k,
        }
    }

    /// The memory function, if the call is one.
    pub(crate) fn memory(self) -> Option<MemFn> {
        match self {
            CallKind::Memory(m) => Some(m),
            _ => None,
        }
    }
}

/// What the user declared that decides how calls are classified.
#[derive(Copy, Clone)]
pub(crate) struct CallFacts<'m, 'a> {
    /// Functions declared inactive.
    pub(crate) inactive: &'a HashSet<Function<'m>>,
    /// Registered custom derivatives, by function.
    pub(crate) custom: &'a HashMap<Function<'m>, CustomRules<'m>>,
}

impl<'m, 'a> CallFacts<'m, 'a> {
    /// The kind of `call` (a call or invoke instruction) for `direction`.
    pub(crate) fn classify(&self, call: Value<'m>, direction: Direction) -> CallKind<'m> {
        let Some(f) = call.called_function() else {
            return CallKind::Indirect;
        };
        if let Some(microtask) = team_microtask(call) {
            return CallKind::Team(microtask);
        }
        classify_callee(f, direction, self.inactive, self.custom)
    }
}

/// The kind of every call of one function, classified once before
/// synthesis reads them (instead of re-matching names per use).
#[derive(Default)]
pub(crate) struct CallKinds<'m>(HashMap<Value<'m>, CallKind<'m>>);

impl<'m> CallKinds<'m> {
    /// Classifies every call and invoke of `func` for `direction`.
    pub(crate) fn of(
        func: Function<'m>,
        facts: CallFacts<'m, '_>,
        direction: Direction,
    ) -> CallKinds<'m> {
        CallKinds(
            func.blocks()
                .into_iter()
                .flat_map(|b| b.instructions())
                .filter(|i| i.called_value().is_some())
                .map(|i| (i.as_value(), facts.classify(i.into(), direction)))
                .collect(),
        )
    }

    /// The kind of `call` (a call of the function classified; anything
    /// else is [`CallKind::Indirect`]).
    pub(crate) fn get(&self, call: Value<'m>) -> CallKind<'m> {
        self.0.get(&call).copied().unwrap_or(CallKind::Indirect)
    }
}

/// The pointer a call of math function `f` writes a second result through
/// (`frexp`'s exponent, `modf`'s integer part), and what it writes.
pub(crate) fn math_written_pointer<'m>(call: Inst<'m>, f: MathFn) -> Option<(Value<'m>, Written)> {
    let (k, what) = f.writes_through()?;
    (k < call.call_num_args())
        .then(|| call.operand(k))
        .filter(|p| p.ty().kind() == TyKind::Pointer)
        .map(|p| (p, what))
}

/// The microtask of an OpenMP fork call (`__kmpc_fork_call(loc, argc,
/// microtask, args...)` whose microtask is a function of the module).
pub(crate) fn team_microtask<'m>(call: Value<'m>) -> Option<Function<'m>> {
    let f = call.called_function()?;
    let call = call.as_inst()?;
    if !is_fork_call(&f.name()) || call.call_num_args() < 3 {
        return None;
    }
    call.operand(2)
        .as_function()
        .filter(|m| !m.is_declaration())
}

/// The arguments of `call` that carry data to its callee: an OpenMP
/// fork's after its location, count and microtask; every argument of
/// any other call.
pub(crate) fn data_arguments<'m>(call: Inst<'m>, kind: CallKind<'m>) -> Vec<Value<'m>> {
    let first = if matches!(kind, CallKind::Team(_)) {
        3
    } else {
        0
    };
    (first..call.call_num_args())
        .map(|k| call.operand(k))
        .collect()
}

/// The layout of `f` if it is the loop function a `__enzyme_fixed_point`
/// call was lowered to (its derivatives: `synth/fixed_point.rs`).
pub(crate) fn fixed_point_layout(f: Function<'_>) -> Option<crate::names::FixedPointLayout> {
    f.string_attribute_at(u32::MAX, crate::names::FIXED_POINT_LOOP)
        .and_then(|v| crate::names::FixedPointLayout::parse(&v))
}

/// The layout of `f` if it is the loop function a
/// `__enzyme_checkpoint_for` or `__enzyme_checkpoint_while` call was
/// lowered to (its reverse derivative: `synth/checkpoint_loop.rs`).
pub(crate) fn checkpoint_layout(f: Function<'_>) -> Option<crate::names::CheckpointLayout> {
    f.string_attribute_at(u32::MAX, crate::names::CHECKPOINT_LOOP)
        .and_then(|v| crate::names::CheckpointLayout::parse(&v))
}

/// Whether `f` is a loop function of the Enzyme API (fixed-point or
/// checkpointed), whose derivatives enz-core builds from its step's.
pub(crate) fn is_api_loop(f: Function<'_>) -> bool {
    fixed_point_layout(f).is_some() || checkpoint_layout(f).is_some()
}

/// The kind of a call to `f` (see the module documentation).
pub(crate) fn classify_callee<'m>(
    f: Function<'m>,
    direction: Direction,
    inactive: &HashSet<Function<'m>>,
    custom: &HashMap<Function<'m>, CustomRules<'m>>,
) -> CallKind<'m> {
    let name = f.name();
    if let Some(e) = EntryPoint::from_callee(&name) {
        return CallKind::EntryPoint(e);
    }
    if is_iteration_count(&name) {
        // `__enzyme_iter`: an integer, replaced after synthesis.
        return CallKind::KnownInactive;
    }
    if inactive.contains(&f) {
        return CallKind::UserInactive;
    }
    if name.starts_with(crate::names::LINEAR_PREFIX) {
        return CallKind::Linear;
    }
    if name.starts_with(crate::names::REPEAT_PREFIX) {
        return CallKind::Repeated;
    }
    if let Some(rules) = custom.get(&f) {
        let registered = match direction {
            Direction::Forward => rules.forward.is_some(),
            Direction::Reverse => rules.gradient.is_some(),
        };
        if registered {
            return CallKind::Custom(f);
        }
    }
    if let Some(a) = custom.get(&f).and_then(|r| r.allocation) {
        return CallKind::Memory(MemFn::Allocation {
            size_arg: a.size_arg,
        });
    }
    // A function like a library function is classified by that name.
    let name = match custom.get(&f).and_then(|r| r.like) {
        Some(like) => like.to_string(),
        None => name,
    };
    if let Some(m) = MemFn::from_callee(&name) {
        return CallKind::Memory(m);
    }
    if is_barrier(&name) {
        return CallKind::Barrier;
    }
    if let Some(s) = OmpSync::from_callee(&name) {
        return CallKind::OmpSync(s);
    }
    if is_openmp_bookkeeping(&name) {
        return CallKind::OmpRuntime;
    }
    if is_openmp_ordering(&name) {
        return CallKind::OmpOrdering;
    }
    if let Some(m) = MpiFn::from_callee(&name) {
        return CallKind::Mpi(m);
    }
    if f.is_declaration() {
        if let Some(b) = BlasFn::from_callee(&name) {
            return CallKind::Blas(b);
        }
    }
    if is_known_inactive(&name) {
        return CallKind::KnownInactive;
    }
    if let Some(m) = MathFn::from_callee(&name) {
        return CallKind::Math(m);
    }
    if let Some(m) = MaskedFn::from_callee(&name) {
        return CallKind::Masked(m);
    }
    if is_structure_function(&name) {
        return CallKind::Structure;
    }
    if f.intrinsic_id() != 0 {
        return CallKind::Intrinsic(f);
    }
    if !f.is_declaration() {
        return CallKind::Defined(f);
    }
    if crate::names::is_rust_runtime_inactive(&name) {
        return CallKind::KnownInactive;
    }
    CallKind::External(f)
}

#[cfg(test)]
mod tests;
