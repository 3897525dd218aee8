//! Which loads may be re-read in the reverse sweep instead of cached.
//!
//! A load can be repeated after the forward sweep only if nothing the
//! function does after it (block reachability, including around loops) may
//! write the memory it read: no store, memory intrinsic, `free`/`realloc`
//! (unless the `free` is deferred to the end of the reverse sweep) or call
//! to an unknown function. Two pointers may alias unless their underlying
//! objects (found through GEPs, casts, phis and selects) are distinct
//! identified objects: allocas and allocations made by the function,
//! distinct globals, or a `noalias` argument against anything else; an
//! object the function creates cannot be reached through an argument or a
//! global.

use super::calls::{math_written_pointer, CallFacts, CallKind, Direction};
use crate::ir::LLVMOpcode;
use crate::ir::{Block, Function, Inst, Value};
use crate::names::{is_libm_without_side_effects, MemFn, MpiFn};
use std::collections::{HashMap, HashSet};

/// The loads whose memory nothing the function does after them may write.
#[derive(Debug, Default)]
pub(crate) struct Rereadable<'m> {
    loads: HashSet<Value<'m>>,
    /// (BLAS call, array it reads) where nothing after the call may write
    /// the array: its adjoint may read the primal's memory.
    blas_reads: HashSet<(Value<'m>, Value<'m>)>,
}

impl<'m> Rereadable<'m> {
    /// The calls in `deferred_frees` run only after the reverse sweep
    /// (combined mode), so they do not count as writes.
    pub(crate) fn analyse(
        func: Function<'m>,
        deferred_frees: &HashSet<Value<'m>>,
        calls: CallFacts<'m, '_>,
    ) -> Rereadable<'m> {
        let insts: Vec<Inst> = func
            .blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .collect();
        // Each write: the instruction and the objects it may write (None:
        // anything, an unknown call, a user-inactive one too: no load it
        // may follow is re-read).
        let mut written: Vec<(Inst, Option<HashSet<Value>>)> = Vec::new();
        for i in &insts {
            if deferred_frees.contains(i) {
                continue;
            }
            match written_by(*i, || calls.classify(i.as_value(), Direction::Reverse)) {
                Written::Nothing => {}
                Written::Objects(objs) => written.push((*i, Some(objs))),
                Written::Anything => written.push((*i, None)),
            }
        }
        let order = Order::new(func);
        let loads = insts
            .iter()
            .filter(|i| i.opcode() == Some(LLVMOpcode::LLVMLoad) && !i.is_volatile())
            .filter(|l| {
                let r = roots(l.operand(0));
                written.iter().all(|(w, objs)| {
                    !order.may_follow(**l, *w) || objs.as_ref().is_some_and(|o| !may_alias(&r, o))
                })
            })
            .map(|l| l.as_value())
            .collect();
        let spared = |i: Inst<'m>, p: Value<'m>| {
            let r = roots(p);
            written.iter().all(|(w, objs)| {
                !order.may_follow(i, *w) || objs.as_ref().is_some_and(|o| !may_alias(&r, o))
            })
        };
        let mut blas_reads = HashSet::new();
        for i in &insts {
            if !matches!(
                i.opcode(),
                Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke)
            ) {
                continue;
            }
            if let CallKind::Blas(f) = calls.classify(i.as_value(), Direction::Reverse) {
                for (_, a, written) in super::blas::arrays(*i, f) {
                    if !written && spared(*i, a) {
                        blas_reads.insert((i.as_value(), a));
                    }
                }
            }
        }
        Rereadable { loads, blas_reads }
    }

    pub(crate) fn contains(&self, load: Value<'m>) -> bool {
        self.loads.contains(&load)
    }

    /// Whether nothing after BLAS call `call` may write the memory of
    /// `array`, an array it reads.
    pub(crate) fn spares_blas_read(&self, call: Value<'m>, array: Value<'m>) -> bool {
        self.blas_reads.contains(&(call, array))
    }
}

/// What one instruction may write.
pub(crate) enum Written<'m> {
    Nothing,
    /// Memory in these underlying objects.
    Objects(HashSet<Value<'m>>),
    /// Anything (an unknown call).
    Anything,
}

impl<'m> Written<'m> {
    /// Whether these writes leave what pointer `p` points into alone.
    pub(crate) fn spares(&self, p: Value<'m>) -> bool {
        match self {
            Written::Nothing => true,
            Written::Objects(objs) => !may_point_into(p, objs),
            Written::Anything => false,
        }
    }
}

/// What instruction `i` may write; `kind` classifies it if it is a call.
pub(crate) fn written_by<'m>(i: Inst<'m>, kind: impl FnOnce() -> CallKind<'m>) -> Written<'m> {
    match i.opcode() {
        Some(LLVMOpcode::LLVMStore) => Written::Objects(roots(i.operand(1))),
        Some(LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg) => {
            Written::Objects(roots(i.operand(0)))
        }
        Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke) => {
            if i.called_function().is_some_and(|f| f.writes_no_memory()) {
                return Written::Nothing;
            }
            match kind() {
                CallKind::Memory(m)
                    if m.transfers()
                        || m.frees()
                        || m.sets()
                        || m.allocates_through().is_some() =>
                {
                    Written::Objects(roots(i.operand(0)))
                }
                CallKind::Masked(m) if !m.reads() => Written::Objects(roots(i.operand(1))),
                // Through its pointer arguments only (the analysis of
                // repeated loops checks it).
                CallKind::Repeated => Written::Objects(
                    (0..i.call_num_args())
                        .map(|k| i.operand(k))
                        .filter(|a| a.ty().kind() == crate::ir::TyKind::Pointer)
                        .flat_map(roots)
                        .collect(),
                ),
                // Relinks the nodes its pointers reach.
                CallKind::Structure => Written::Objects(
                    (0..i.call_num_args())
                        .map(|k| i.operand(k))
                        .filter(|a| a.ty().kind() == crate::ir::TyKind::Pointer)
                        .flat_map(roots)
                        .collect(),
                ),
                // What an MPI call receives into (a non-blocking
                // receive's buffer is written by its wait: anything).
                CallKind::Mpi(m) => mpi_written(i, m),
                // The arrays a BLAS routine writes.
                CallKind::Blas(f @ crate::names::BlasFn::Rule(..))
                    if crate::analysis::blas::check_arguments(i, f).is_ok() =>
                {
                    Written::Objects(
                        crate::analysis::blas::arrays(i, f)
                            .into_iter()
                            .filter(|(_, _, w)| *w)
                            .map(|(_, a, _)| a)
                            // LAPACK's pivots and `info`.
                            .chain(
                                crate::analysis::blas::int_arrays(i, f)
                                    .into_iter()
                                    .filter(|(_, w)| *w)
                                    .map(|(a, _)| a),
                            )
                            .flat_map(roots)
                            .collect(),
                    )
                }
                // frexp's exponent, modf's integer part.
                CallKind::Math(f) => match math_written_pointer(i, f) {
                    Some((p, _)) => Written::Objects(roots(p)),
                    None => Written::Nothing,
                },
                CallKind::Memory(_)
                | CallKind::Masked(_)
                | CallKind::KnownInactive
                | CallKind::Linear
                | CallKind::Barrier => Written::Nothing,
                CallKind::External(f) if is_libm_without_side_effects(&f.name()) => {
                    Written::Nothing
                }
                _ => Written::Anything,
            }
        }
        _ => Written::Nothing,
    }
}

/// What MPI call `i` of `m` writes: its receive buffers and status (a
/// wait, which completes non-blocking receives, and what enz-rs does not
/// know may write anything).
fn mpi_written<'m>(i: Inst<'m>, m: MpiFn) -> Written<'m> {
    let status = match m {
        MpiFn::Recv => Some(6),
        MpiFn::Sendrecv => Some(11),
        MpiFn::Isend | MpiFn::Irecv => Some(6),
        _ => None,
    };
    match m {
        MpiFn::Barrier | MpiFn::Send => Written::Nothing,
        MpiFn::Wait | MpiFn::Waitall | MpiFn::Inactive | MpiFn::Other => Written::Anything,
        _ => Written::Objects(
            crate::analysis::mpi::buffer_args(i, m)
                .into_iter()
                .filter(|(b, _)| b.written && m != MpiFn::Irecv)
                .map(|(_, v)| v)
                .chain(
                    status
                        .filter(|k| *k < i.call_num_args())
                        .map(|k| i.operand(k)),
                )
                .flat_map(roots)
                .collect(),
        ),
    }
}

/// Whether what pointer `p` points into may be among `objects`.
pub(crate) fn may_point_into<'m>(p: Value<'m>, objects: &HashSet<Value<'m>>) -> bool {
    may_alias(&roots(p), objects)
}

/// Whether pointers `a` and `b` may point into the same object.
pub(crate) fn may_alias_pointers<'m>(a: Value<'m>, b: Value<'m>) -> bool {
    may_alias(&roots(a), &roots(b))
}

/// Execution order between instructions of one function, from block
/// reachability: a write that cannot run after a load cannot change what
/// the load read (so a buffer filled once and then only read is re-read).
/// Which instructions of a function may run after which (block
/// reachability, around loops too).
pub(crate) struct Order<'m> {
    /// Blocks reachable from each block through at least one edge.
    reach: HashMap<Block<'m>, HashSet<Block<'m>>>,
    /// Position of each instruction in its block.
    index: HashMap<Inst<'m>, usize>,
}

impl<'m> Order<'m> {
    pub(crate) fn new(func: Function<'m>) -> Order<'m> {
        let blocks = func.blocks();
        let mut reach = HashMap::new();
        let mut index = HashMap::new();
        for b in &blocks {
            for (k, i) in b.instructions().into_iter().enumerate() {
                index.insert(i, k);
            }
            let mut seen: HashSet<Block> = HashSet::new();
            let mut stack = b.successors();
            while let Some(s) = stack.pop() {
                if seen.insert(s) {
                    stack.extend(s.successors());
                }
            }
            reach.insert(*b, seen);
        }
        Order { reach, index }
    }

    /// Whether `later` may execute after `earlier` (in the same call).
    pub(crate) fn may_follow(&self, earlier: Inst<'m>, later: Inst<'m>) -> bool {
        let (eb, lb) = (earlier.parent_block(), later.parent_block());
        if self.reach.get(&eb).is_some_and(|r| r.contains(&lb)) {
            return true;
        }
        eb == lb && self.index.get(&later) > self.index.get(&earlier)
    }
}

/// The underlying objects `p` may point into.
pub(crate) fn roots<'m>(p: Value<'m>) -> HashSet<Value<'m>> {
    let mut out = HashSet::new();
    let mut seen = HashSet::new();
    let mut stack = vec![p];
    while let Some(v) = stack.pop() {
        if !seen.insert(v) {
            continue;
        }
        match v.opcode() {
            Some(
                LLVMOpcode::LLVMGetElementPtr
                | LLVMOpcode::LLVMBitCast
                | LLVMOpcode::LLVMAddrSpaceCast
                | LLVMOpcode::LLVMFreeze,
            ) => stack.push(v.operand(0)),
            Some(LLVMOpcode::LLVMPHI) => {
                let phi = v.as_inst().expect("a phi is an instruction");
                stack.extend(phi.incoming().into_iter().map(|(x, _)| x))
            }
            Some(LLVMOpcode::LLVMSelect) => {
                stack.push(v.operand(1));
                stack.push(v.operand(2));
            }
            _ if !v.is_instruction()
                && !v.is_argument()
                && v.num_operands() > 0
                && !v.is_global_variable() =>
            {
                // Constant expressions (GEPs of globals).
                stack.push(v.operand(0));
            }
            _ => {
                out.insert(v);
            }
        }
    }
    out
}

/// Whether `f` reads and writes no memory but its own stack (and errno),
/// through the functions it calls too: a function of its scalar
/// arguments, so that running it again anywhere gives the same results
/// and changes nothing the program can see. Clang -O0 leaves such a
/// function without the attributes that say so (`accesses_only_errno`):
/// every local variable is a stack slot. A function reached again on the
/// way (recursion) is assumed to qualify while it is being checked.
pub(crate) fn touches_only_its_stack<'m>(f: Function<'m>, facts: CallFacts<'m, '_>) -> bool {
    let mut seen = HashSet::new();
    stack_only(f, facts, &mut seen)
}

fn stack_only<'m>(
    f: Function<'m>,
    facts: CallFacts<'m, '_>,
    seen: &mut HashSet<Function<'m>>,
) -> bool {
    if f.accesses_only_errno() || !seen.insert(f) {
        return true;
    }
    if f.is_declaration() {
        return false;
    }
    let on_stack = |p: Value<'m>| {
        let r = roots(p);
        !r.is_empty() && r.iter().all(|o| o.opcode() == Some(LLVMOpcode::LLVMAlloca))
    };
    let kinds = super::calls::CallKinds::of(f, facts, Direction::Reverse);
    let insts: Vec<Inst<'m>> = f.blocks().iter().flat_map(|b| b.instructions()).collect();
    insts.into_iter().all(|i| match i.opcode() {
        Some(LLVMOpcode::LLVMLoad) => on_stack(i.operand(0)),
        Some(LLVMOpcode::LLVMStore) => on_stack(i.operand(1)),
        Some(LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg | LLVMOpcode::LLVMFence) => {
            false
        }
        Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke) => {
            if i.called_function().is_some_and(|g| g.accesses_only_errno()) {
                return true;
            }
            match kinds.get(i.as_value()) {
                CallKind::Defined(g) => stack_only(g, facts, seen),
                CallKind::Math(m) => math_written_pointer(i, m).is_none_or(|(p, _)| on_stack(p)),
                CallKind::External(g) => is_libm_without_side_effects(&g.name()),
                CallKind::Memory(m) if m.transfers() => {
                    on_stack(i.operand(0)) && on_stack(i.operand(1))
                }
                CallKind::Memory(MemFn::Memset) => on_stack(i.operand(0)),
                CallKind::KnownInactive => i.called_function().is_some_and(|g| {
                    g.name().starts_with("llvm.lifetime.") || g.name().starts_with("llvm.dbg.")
                }),
                _ => false,
            }
        }
        _ => true,
    })
}

/// Whether every object `p` may point into was created by the function
/// (an alloca or an allocation), so that running the function again makes
/// it afresh.
pub(crate) fn points_into_local_objects<'m>(p: Value<'m>) -> bool {
    let r = roots(p);
    !r.is_empty() && r.iter().all(|o| local_object(*o))
}

/// Objects created inside the function (allocas, allocations).
fn local_object<'m>(v: Value<'m>) -> bool {
    match v.opcode() {
        Some(LLVMOpcode::LLVMAlloca) => true,
        Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke) => v
            .called_function()
            .and_then(|f| MemFn::from_callee(&f.name()))
            .is_some_and(|m| m.allocates() && m != MemFn::Realloc),
        _ => false,
    }
}

/// Whether two underlying objects may be the same memory.
fn roots_may_alias<'m>(x: Value<'m>, y: Value<'m>) -> bool {
    if x == y {
        return true;
    }
    let noalias_arg = |v: Value| v.is_argument() && v.param_has_noalias();
    if noalias_arg(x) || noalias_arg(y) {
        return false;
    }
    let identified = |v: Value| local_object(v) || v.is_global_variable();
    if identified(x) && identified(y) {
        return false;
    }
    // A local object cannot be reached through an argument or a global.
    let outer = |v: Value| v.is_argument() || v.is_global_variable();
    !(local_object(x) && outer(y) || local_object(y) && outer(x))
}

fn may_alias<'m>(a: &HashSet<Value<'m>>, b: &HashSet<Value<'m>>) -> bool {
    a.iter().any(|x| b.iter().any(|y| roots_may_alias(*x, *y)))
}
