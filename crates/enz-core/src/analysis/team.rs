//! OpenMP microtasks: which adjoints a thread may add to shadow memory
//! with a plain load-add-store, because no other thread of the team
//! touches that element, and which need an atomic addition.
//!
//! An element is the thread's own when its object is indexed only by one
//! worksharing loop's induction variable plus one constant: a worksharing
//! loop (`#pragma omp for`, static, dynamic or guided) gives each
//! iteration to one thread, and its induction variable starts at the lower
//! bound the runtime wrote for this thread's chunk (`__kmpc_for_static_init_*`'s
//! or `__kmpc_dispatch_next_*`'s `plower`). The object must be the same
//! pointer in every thread (an argument or global, or a pointer loaded
//! from one that the function never writes), never passed elsewhere, and
//! every load, store and atomic of it must index it with that same
//! variable and constant, no wider than an element. Like the GPU's
//! thread-private class (`analysis/gpu.rs`), distinct shared pointers are
//! taken not to overlap. Stack objects are the thread's own.
//!
//! An object the microtask only reads, through single-index element
//! accesses of a float type or vectors of it (`x[j]` of a matrix-vector product, which
//! every thread reads whole), is *combined*: each thread sums its
//! adjoints per element in a small table of its own and adds the table to
//! the shadow atomically at the end (`synth/reverse/team.rs`), instead of
//! one contended atomic per addition. Everything else is atomic.

use super::gpu::{base_and_index, root_object, Accumulate};

/// An address as an element of its object: `root[index + offset]`, each
/// element `stride` bytes.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Element<'m> {
    pub(crate) root: Value<'m>,
    pub(crate) index: Value<'m>,
    pub(crate) offset: i64,
    pub(crate) stride: u64,
}

/// `p` as an element of its object: a one-index GEP of the object itself
/// (`root[i]`), or a constant byte offset, a multiple of the element size,
/// from such an element (`&root[i] + 16`, as a vectorised loop writes
/// `root[i + 2]`).
pub(crate) fn element_of(p: Value<'_>) -> Option<Element<'_>> {
    let (base, index) = base_and_index(p);
    if let Some((i, stride)) = index.filter(|_| root_object(base) == base) {
        return Some(Element {
            root: base,
            index: i,
            offset: 0,
            stride,
        });
    }
    // `gep i8, q, C`.
    if p.opcode() != Some(LLVMOpcode::LLVMGetElementPtr) || p.num_operands() != 2 {
        return None;
    }
    let bytes = p.operand(1).const_int_sext()?;
    if p.gep_source_type().alloc_size(p.module()) != 1 {
        return None;
    }
    let inner = element_of(p.operand(0))?;
    let stride = i64::try_from(inner.stride).ok().filter(|s| *s > 0)?;
    (bytes % stride == 0).then(|| Element {
        offset: inner.offset + bytes / stride,
        ..inner
    })
}
use crate::ir::{Function, Inst, LLVMOpcode, TyKind, Value};
use std::collections::{HashMap, HashSet};

/// The object a shared pointer designates, the same in every thread: an
/// argument or global, or the pointer loaded from one.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
enum Object<'m> {
    Direct(Value<'m>),
    LoadedFrom(Value<'m>),
}

/// What the accesses of one shared object of the microtask say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ObjectFacts<'m> {
    /// `Some(lb)` while every access is an element of the thread's own
    /// chunk of the worksharing loop whose lower bound lives in `lb`.
    own: Option<Value<'m>>,
    /// Every access is `object[i]`, one element of a float type.
    elementwise: bool,
    /// Stored to or atomically updated.
    written: bool,
    /// Its address goes somewhere other than a load, store or atomic.
    escapes: bool,
}

/// The accesses of one microtask, by object.
pub(crate) struct TeamAccesses<'m> {
    by_object: HashMap<Object<'m>, ObjectFacts<'m>>,
}

impl<'m> TeamAccesses<'m> {
    /// Indexes the accesses of microtask `func` (one pass).
    pub(crate) fn of(func: Function<'m>) -> TeamAccesses<'m> {
        let module = func.global_parent();
        let written = written_roots(func);
        let worksharing = worksharing_variables(func);
        let mut by_object: HashMap<Object, ObjectFacts> = HashMap::new();
        let note = |p: Value<'m>,
                    ty: crate::ir::Ty<'m>,
                    writes: bool,
                    by_object: &mut HashMap<Object<'m>, ObjectFacts<'m>>| {
            let Some(obj) = object_of(root_object(p), &written) else {
                return;
            };
            // How many elements of the object the access covers: 1 for
            // one no wider than an element, k for a vector of k floats the
            // size of an element (a vectorised loop's `<2 x double>`).
            let width = ty.alloc_size(module);
            let direct = element_of(p).map(|e| (e.index, e.stride, e.offset));
            let span = direct.and_then(|(_, stride, _)| {
                if width <= stride {
                    Some(1)
                } else if ty.kind() == TyKind::Vector && ty.element().alloc_size(module) == stride {
                    Some(ty.len() as i64)
                } else {
                    None
                }
            });
            let own = direct
                .zip(span)
                .and_then(|((i, _, c), k)| own_chunk(i, c, k, &worksharing));
            let float_elements = if ty.kind() == TyKind::Vector {
                ty.element().is_fp_scalar()
            } else {
                ty.is_fp_scalar() && direct.is_some_and(|(_, stride, _)| width == stride)
            };
            let elementwise = float_elements && span.is_some();
            let access = ObjectFacts {
                own,
                elementwise,
                written: writes,
                escapes: false,
            };
            by_object
                .entry(obj)
                .and_modify(|e| {
                    if e.own != own {
                        e.own = None;
                    }
                    e.elementwise &= elementwise;
                    e.written |= writes;
                })
                .or_insert(access);
        };
        for b in func.blocks() {
            for i in b.instructions() {
                let address = match i.opcode() {
                    Some(LLVMOpcode::LLVMLoad) => Some((0, i.ty(), false)),
                    Some(LLVMOpcode::LLVMStore) => Some((1, i.operand(0).ty(), true)),
                    Some(LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg) => {
                        Some((0, i.operand(1).ty(), true))
                    }
                    // Derived addresses (followed from their accesses)
                    // and comparisons of addresses (a vectorised loop's
                    // overlap checks) let nothing escape.
                    Some(
                        LLVMOpcode::LLVMGetElementPtr
                        | LLVMOpcode::LLVMBitCast
                        | LLVMOpcode::LLVMICmp,
                    ) => continue,
                    _ => None,
                };
                if let Some((k, ty, writes)) = address {
                    note(i.operand(k), ty, writes, &mut by_object);
                }
                // Any other pointer operand lets the object escape.
                for (k, o) in i.operands().into_iter().enumerate() {
                    if address.is_some_and(|(a, _, _)| a == k as u32)
                        || o.ty().kind() != TyKind::Pointer
                    {
                        continue;
                    }
                    if let Some(obj) = object_of(root_object(o), &written) {
                        let e = by_object.entry(obj).or_insert(ObjectFacts {
                            own: None,
                            elementwise: false,
                            written: true,
                            escapes: true,
                        });
                        e.escapes = true;
                    }
                }
            }
        }
        TeamAccesses { by_object }
    }

    /// How an adjoint reaches the shadow of `p` (a primal pointer of the
    /// microtask): see the module documentation.
    pub(crate) fn classify(&self, p: Value<'m>) -> Accumulate {
        let root = root_object(p);
        if root.opcode() == Some(LLVMOpcode::LLVMAlloca) {
            return Accumulate::Plain;
        }
        let Some(facts) = object_of(root, &HashSet::new()).and_then(|o| self.by_object.get(&o))
        else {
            return Accumulate::Atomic;
        };
        if facts.escapes {
            Accumulate::Atomic
        } else if facts.own.is_some() {
            Accumulate::Plain
        } else if facts.elementwise && !facts.written {
            Accumulate::Combine
        } else {
            Accumulate::Atomic
        }
    }
}

/// The shared object `root` designates, unless it is not the same pointer
/// in every thread (a pointer loaded from memory the function writes,
/// computed, or a phi).
fn object_of<'m>(root: Value<'m>, written: &HashSet<Value<'m>>) -> Option<Object<'m>> {
    if root.is_argument() || root.is_global_variable() {
        return Some(Object::Direct(root));
    }
    if root.opcode() == Some(LLVMOpcode::LLVMLoad) {
        let from = root_object(root.operand(0));
        if (from.is_argument() || from.is_global_variable()) && !written.contains(&from) {
            return Some(Object::LoadedFrom(from));
        }
    }
    None
}

/// The roots of everything `func` stores to or passes to a call.
fn written_roots<'m>(func: Function<'m>) -> HashSet<Value<'m>> {
    let mut out = HashSet::new();
    for b in func.blocks() {
        for i in b.instructions() {
            match i.opcode() {
                Some(LLVMOpcode::LLVMStore) => {
                    out.insert(root_object(i.operand(1)));
                }
                Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke) => {
                    for k in 0..i.call_num_args() {
                        out.insert(root_object(i.operand(k)));
                    }
                }
                _ => {}
            }
        }
    }
    out
}

/// `v` as `iv + c` (through integer extensions and additions of
/// constants): the variable and the constant.
fn variable_plus_constant(v: Value<'_>) -> Option<(Value<'_>, i64)> {
    let mut v = v;
    let mut c = 0i64;
    for _ in 0..8 {
        match v.opcode() {
            Some(LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMZExt) => v = v.operand(0),
            Some(LLVMOpcode::LLVMAdd) => {
                match (v.operand(0).const_int_sext(), v.operand(1).const_int_sext()) {
                    (_, Some(k)) => {
                        c = c.checked_add(k)?;
                        v = v.operand(0);
                    }
                    (Some(k), _) => {
                        c = c.checked_add(k)?;
                        v = v.operand(1);
                    }
                    _ => return Some((v, c)),
                }
            }
            _ => return Some((v, c)),
        }
    }
    Some((v, c))
}

/// A worksharing loop's induction variable: the lower bound's slot of
/// its chunk and its step.
#[derive(Copy, Clone)]
struct Worksharing<'m> {
    lower_bound: Value<'m>,
    step: i64,
}

/// Whether index `i` is an element of the thread's own chunk of a
/// worksharing loop: the lower bound itself, or a worksharing variable
/// stepping by `S` plus `c` with `0 <= c < S` (an unrolled loop's
/// elements); the slot of that loop's lower bound.
fn own_chunk<'m>(
    i: Value<'m>,
    offset: i64,
    span: i64,
    worksharing: &HashMap<Value<'m>, Worksharing<'m>>,
) -> Option<Value<'m>> {
    let (w, c) = variable_plus_constant(i)?;
    let c = c.checked_add(offset)?;
    if let Some(ws) = worksharing.get(&w) {
        return (0 <= c && c + span <= ws.step).then_some(ws.lower_bound);
    }
    if c == 0 && span == 1 && w.opcode() == Some(LLVMOpcode::LLVMLoad) {
        let slot = root_object(w.operand(0));
        if worksharing.values().any(|ws| ws.lower_bound == slot) {
            return Some(slot);
        }
    }
    None
}

/// The induction variables of `func`'s worksharing loops: loop phis
/// stepping by a positive constant whose every other incoming value
/// derives from the lower bound a worksharing call wrote for the thread's
/// chunk (`__kmpc_for_static_init_*`'s or `__kmpc_dispatch_next_*`'s
/// `plower`), through constants and phis of such values.
fn worksharing_variables<'m>(func: Function<'m>) -> HashMap<Value<'m>, Worksharing<'m>> {
    let mut lower_bounds: HashSet<Value<'m>> = HashSet::new();
    for b in func.blocks() {
        for i in b.instructions() {
            let Some(name) = i.called_function().map(|f| f.name()) else {
                continue;
            };
            let Some(k) = crate::names::lower_bound_argument(&name) else {
                continue;
            };
            if k < i.call_num_args() {
                lower_bounds.insert(root_object(i.operand(k)));
            }
        }
    }
    let mut out = HashMap::new();
    for b in func.blocks() {
        for i in b.instructions() {
            if i.opcode() != Some(LLVMOpcode::LLVMPHI) || !i.ty().is_integer() {
                continue;
            }
            if let Some(ws) = worksharing_phi(i, &lower_bounds) {
                out.insert(i.as_value(), ws);
            }
        }
    }
    out
}

/// `phi` as a worksharing variable: each incoming value is `phi + S`
/// (one positive `S`) or derives from one lower bound's slot.
fn worksharing_phi<'m>(
    phi: Inst<'m>,
    lower_bounds: &HashSet<Value<'m>>,
) -> Option<Worksharing<'m>> {
    let mut step = None;
    let mut slot = None;
    for (v, _) in phi.incoming() {
        match variable_plus_constant(v) {
            Some((w, s)) if w == phi.as_value() && s > 0 && step.is_none_or(|t| t == s) => {
                step = Some(s)
            }
            _ => {
                let from = lower_bound_of(v, phi.as_value(), lower_bounds, 0)?;
                if slot.is_some_and(|f| f != from) {
                    return None;
                }
                slot = Some(from);
            }
        }
    }
    Some(Worksharing {
        lower_bound: slot?,
        step: step?,
    })
}

/// The lower bound's slot `v` derives from (a load of it plus constants,
/// or a phi of such values or of `within`'s steps), if any.
fn lower_bound_of<'m>(
    v: Value<'m>,
    within: Value<'m>,
    lower_bounds: &HashSet<Value<'m>>,
    depth: u32,
) -> Option<Value<'m>> {
    if depth > 4 {
        return None;
    }
    let (w, _) = variable_plus_constant(v)?;
    match w.opcode() {
        Some(LLVMOpcode::LLVMLoad) => {
            let slot = root_object(w.operand(0));
            lower_bounds.contains(&slot).then_some(slot)
        }
        // A phi merging bounds (an unrolled loop's prologue), not a loop's
        // own variable (a loop nested in an iteration, whose values reach
        // past the chunk).
        Some(LLVMOpcode::LLVMPHI) if w != within => {
            let mut slot = None;
            for (x, _) in w.as_inst()?.incoming() {
                if variable_plus_constant(x).is_some_and(|(y, _)| y == w) {
                    return None;
                }
                let from = lower_bound_of(x, within, lower_bounds, depth + 1)?;
                if slot.is_some_and(|f| f != from) {
                    return None;
                }
                slot = Some(from);
            }
            slot
        }
        _ => None,
    }
}

/// Whether every float the critical section starting at `critical` (a
/// `__kmpc_critical` call) stores to memory outside the thread's stack is
/// an addition to what is there (`*p = *p + v`, `*p = *p - v`, with `v`
/// not read from `*p`): the sections' reverses then give the same adjoints
/// in any order, as the mirrored lock runs them. Otherwise the store that
/// is not (a product, an assignment: their adjoints depend on the order the
/// threads took the lock in).
pub(crate) fn critical_section_adds_only<'m>(critical: Inst<'m>) -> Result<(), Inst<'m>> {
    let mut seen: HashSet<crate::ir::Block<'m>> = HashSet::new();
    let mut work: Vec<(crate::ir::Block<'m>, bool)> = vec![(critical.parent_block(), false)];
    while let Some((b, from_top)) = work.pop() {
        if from_top && !seen.insert(b) {
            continue;
        }
        let insts = b.instructions();
        let start = if from_top {
            0
        } else {
            insts
                .iter()
                .position(|i| *i == critical)
                .map_or(0, |k| k + 1)
        };
        let mut ended = false;
        for i in &insts[start..] {
            let ends = i.called_function().is_some_and(|f| {
                crate::names::OmpSync::from_callee(&f.name())
                    == Some(crate::names::OmpSync::EndCritical)
            });
            if ends {
                ended = true;
                break;
            }
            if i.opcode() == Some(LLVMOpcode::LLVMStore) && i.operand(0).ty().carries_float() {
                let p = i.operand(1);
                if root_object(p).opcode() != Some(LLVMOpcode::LLVMAlloca)
                    && !adds_to(i.operand(0), p)
                {
                    return Err(*i);
                }
            }
        }
        if !ended {
            work.extend(b.successors().into_iter().map(|s| (s, true)));
        }
    }
    Ok(())
}

/// Whether `v` is `*p + w`, `w + *p` or `*p - w` with `w` not read from
/// the load of `*p` (in a wider type and rounded back, `float s += double
/// t`, too: its adjoint with respect to `*p` is 1 all the same).
fn adds_to<'m>(v: Value<'m>, p: Value<'m>) -> bool {
    let unwiden = |x: Value<'m>| match x.opcode() {
        Some(LLVMOpcode::LLVMFPExt | LLVMOpcode::LLVMFPTrunc) => x.operand(0),
        _ => x,
    };
    let v = unwiden(v);
    let is_load_of_p = |x: Value<'m>| {
        let x = unwiden(x);
        x.opcode() == Some(LLVMOpcode::LLVMLoad) && x.operand(0) == p
    };
    let (a, b) = match v.opcode() {
        Some(LLVMOpcode::LLVMFAdd) => (v.operand(0), v.operand(1)),
        Some(LLVMOpcode::LLVMFSub) => (v.operand(0), v.operand(1)),
        _ => return false,
    };
    let (load, w) = if is_load_of_p(a) {
        (a, b)
    } else if v.opcode() == Some(LLVMOpcode::LLVMFAdd) && is_load_of_p(b) {
        (b, a)
    } else {
        return false;
    };
    !uses(w, unwiden(load), 16)
}

/// Whether `v` is computed from `x` (within `depth` operands).
fn uses<'m>(v: Value<'m>, x: Value<'m>, depth: u32) -> bool {
    if v == x {
        return true;
    }
    if depth == 0 {
        return true;
    }
    // (A phi, a loop's variable, is not followed: the load inside the
    // section reaches no phi before the store.)
    if !v.is_instruction() || v.opcode() == Some(LLVMOpcode::LLVMPHI) {
        return false;
    }
    v.operands().into_iter().any(|o| uses(o, x, depth - 1))
}

#[cfg(test)]
mod tests;
