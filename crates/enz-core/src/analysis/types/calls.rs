//! Calls in type analysis: known library functions (allocation, `free`,
//! `memcpy`/`memmove` with `!tbaa`/`!tbaa.struct`, `memset`), math
//! functions, and calls to defined functions, analysed interprocedurally with
//! the call's argument trees as seeds and a memo keyed by those seeds.

use super::solve::{self, tbaa_access, Solver};
use super::tree::{ConcreteType, FloatKind, TypeTree, MAX_OFFSET};
use crate::analysis::calls::{classify_callee, math_written_pointer, CallKind, Direction};
use crate::ir::{Function, Inst, Value};
use crate::names::{MemFn, MpiType, Written};
use std::collections::{HashMap, HashSet};

/// Callee analyses nest at most this deep (the top-level function is depth 1).
const MAX_CALL_DEPTH: usize = 5;

/// Distinct seeds one callee is analysed with; beyond that its calls share
/// the analysis without call-site seeds.
const MAX_CONTEXTS: usize = 8;

/// What a callee's analysis hands back to a call site.
#[derive(Clone)]
struct Summary {
    params: Vec<TypeTree>,
    ret: TypeTree,
}

/// Interprocedural state shared by the analyses of one top-level function.
#[derive(Default)]
pub(super) struct Interproc<'m> {
    /// Callee analyses by (callee, parameter seeds, return seed).
    memo: HashMap<(Function<'m>, Vec<TypeTree>, TypeTree), Summary>,
    /// How many seeds each callee has been analysed with.
    contexts: HashMap<Function<'m>, usize>,
    /// Functions being analysed, outermost first (recursion guard).
    pub(super) stack: Vec<Function<'m>>,
}

/// Arguments of a call (without the callee and bundles).
fn args<'m>(call: Inst<'m>) -> Vec<Value<'m>> {
    let n = call.call_num_args().min(call.num_operands());
    (0..n).map(|k| call.operand(k)).collect()
}

/// Visits one call instruction.
pub(super) fn visit_call<'m>(s: &mut Solver<'m, '_>, call: Inst<'m>) {
    let args = args(call);
    let Some(f) = call.called_function() else {
        return;
    };
    if let Some(microtask) = super::super::calls::team_microtask(call.into()) {
        // The microtask's `&gtid, &btid` get no seed (an integer stands in
        // for them: a type other than the parameters'), its other
        // parameters the fork's arguments after the callee.
        let mut team_args = vec![args[1], args[1]];
        team_args.extend_from_slice(&args[3..]);
        return interprocedural(s, call.into(), microtask, &team_args);
    }
    // What the user declared does not change what a call does to types.
    let none = (HashSet::new(), HashMap::new());
    match classify_callee(f, Direction::Reverse, &none.0, &none.1) {
        CallKind::Memory(m) => return memory(s, call.into(), &args, m),
        CallKind::Math(m) => {
            // Float operands and result are typed by their LLVM types; the
            // rest (powi's exponent) are integers; what frexp and modf write
            // through their pointer is an int or a float of the result type.
            for a in &args {
                s.integer(*a);
            }
            if let Some((p, what)) = math_written_pointer(call, m) {
                let ct = match what {
                    Written::Int32 => ConcreteType::Integer,
                    Written::ResultType => ConcreteType::from_ty(call.ty()),
                };
                s.update(p, &TypeTree::from_path(&[0], ct));
            }
            return;
        }
        // Typed like a load or store of the whole vector: every lane has
        // the element type, whichever lanes the mask selects.
        // (A gather's or scatter's lanes point to one element each: no
        // fact about the vector as a whole.)
        CallKind::Masked(m) if m.per_lane_pointers() => return,
        CallKind::Masked(m) => {
            let value = if m.reads() { call.as_value() } else { args[0] };
            let ptr = args[m.pointer_arg() as usize];
            return s.access(call.into(), ptr, value);
        }
        CallKind::Intrinsic(_) | CallKind::Barrier => return,
        // A buffer of MPI_DOUBLE or MPI_FLOAT holds floats.
        CallKind::Mpi(m) => {
            if let Ok(Some(t)) = super::super::mpi::float_type(call, m) {
                let ct = match t {
                    MpiType::Float => ConcreteType::Float(FloatKind::F32),
                    _ => ConcreteType::Float(FloatKind::F64),
                };
                for (_, buf) in super::super::mpi::buffer_args(call, m) {
                    s.update(buf, &TypeTree::from_path(&[0], ct));
                }
            }
        }
        // A BLAS call's arrays hold floats of its precision, its
        // dimensions are integers (Fortran: pointed to).
        CallKind::Blas(b @ crate::names::BlasFn::Rule(_, p, iface)) => {
            let ct = match p {
                crate::names::BlasPrecision::Single => ConcreteType::Float(FloatKind::F32),
                crate::names::BlasPrecision::Double => ConcreteType::Float(FloatKind::F64),
            };
            let float = TypeTree::from_path(&[0], ct);
            for (_, a, _) in super::super::blas::arrays(call, b) {
                s.update(a, &float);
            }
            let fortran = iface == crate::names::BlasInterface::Fortran;
            for v in super::super::blas::scalars(call, b) {
                if fortran {
                    s.update(v, &float);
                }
            }
            for (what, v) in super::super::blas::integers(call, b) {
                if !fortran {
                    s.integer(v);
                } else if what == crate::names::BlasArg::Int {
                    s.update(v, &TypeTree::from_path(&[0], ConcreteType::Integer));
                }
            }
            for (v, _) in super::super::blas::int_arrays(call, b) {
                s.update(v, &TypeTree::from_path(&[0], ConcreteType::Integer));
            }
            if call.ty().carries_float() {
                s.update(call.into(), &TypeTree::from_path(&[], ct));
            }
            return;
        }
        CallKind::Defined(f) if !f.blocks().is_empty() => {
            return interprocedural(s, call.into(), f, &args);
        }
        _ => {}
    }
    // An unknown external function: integers are integers.
    for a in &args {
        s.integer(*a);
    }
    s.integer(call.into());
}

/// A memory function: copies carry their source's facts to their
/// destination, `realloc`'s result holds what its argument held, and
/// sizes, alignments and fill bytes are integers.
fn memory<'m>(s: &mut Solver<'m, '_>, call: Value<'m>, args: &[Value<'m>], m: MemFn) {
    if m.transfers() {
        if args.len() >= 3 {
            mem_transfer(s, call, args[0], args[1], args[2]);
        }
        return;
    }
    if m == MemFn::Realloc && !args.is_empty() {
        s.flow(call, args[0]);
    }
    for k in m.integer_arguments() {
        if let Some(a) = args.get(*k as usize).filter(|a| a.ty().is_integer()) {
            s.integer(*a);
        }
    }
}

/// The constant length of a memory transfer, if any.
pub(super) fn const_len<'m>(len: Value<'m>) -> Option<i64> {
    len.const_int_sext().filter(|n| *n >= 0)
}

/// The copied bytes of `p`'s pointee tree: offsets below `len` (all when
/// unknown) and `-1` entries.
pub(super) fn copied(t: &TypeTree, len: Option<i64>) -> TypeTree {
    t.filter_first(|o| o == -1 || len.is_none_or(|n| o < n))
}

/// `memcpy(dst, src, len)`: each side's pointee facts over the copied bytes
/// flow to the other; `!tbaa.struct` triples and a scalar `!tbaa` type them.
fn mem_transfer<'m>(
    s: &mut Solver<'m, '_>,
    call: Value<'m>,
    dst: Value<'m>,
    src: Value<'m>,
    len: Value<'m>,
) {
    s.integer(len);
    let n = const_len(len);
    let from_src = copied(&s.tree(src), n);
    s.update(dst, &from_src);
    let from_dst = copied(&s.tree(dst), n);
    s.update(src, &from_dst);
    let mut typed = TypeTree::new();
    if let Some(md) = call.metadata_node("tbaa.struct") {
        let ops = md.md_node_operands();
        for triple in ops.chunks(3) {
            let [off, _size, tag] = triple else { break };
            let Some(off) = off
                .const_int_sext()
                .filter(|o| (0..=MAX_OFFSET).contains(o))
            else {
                continue;
            };
            if let Some((ct, _)) = tbaa_access(*tag) {
                typed.insert(&[off], ct);
            }
        }
    }
    if let Some((ct, size)) = call.metadata_node("tbaa").and_then(tbaa_access) {
        match (n, size) {
            (Some(n), Some(size)) if size > 0 => {
                let mut o = 0;
                while o < n && o <= MAX_OFFSET {
                    typed.insert(&[o], ct);
                    o += size as i64;
                }
            }
            (None, _) => {
                typed.insert(&[-1], ct);
            }
            _ => {
                typed.insert(&[0], ct);
            }
        }
    }
    s.update(dst, &typed);
    s.update(src, &typed);
}

/// A call to a defined function: analyse the callee with the argument
/// trees (and the call's tree as the return seed), and join its parameter
/// and return trees back. Direct recursion joins the arguments with the
/// function's own parameters; a call back into a function further up the
/// analysis stack (mutual recursion), or nested too deep, adds nothing.
fn interprocedural<'m>(
    s: &mut Solver<'m, '_>,
    call: Value<'m>,
    f: Function<'m>,
    args: &[Value<'m>],
) {
    let params = f.params();
    if f == s.function() {
        // Direct recursion: the callee's parameters are ours.
        for (a, p) in args.iter().zip(&params) {
            if a.ty() == p.ty() {
                s.flow(*a, *p);
            }
        }
        if !call.ty().is_void() {
            let r = s.ret_tree().clone();
            s.update(call, &r);
            let t = s.tree(call);
            s.update_ret(&t);
        }
        return;
    }
    if s.calls.stack.contains(&f) || s.calls.stack.len() >= MAX_CALL_DEPTH {
        return;
    }
    let seeds: Vec<TypeTree> = params
        .iter()
        .enumerate()
        .map(|(k, p)| match args.get(k) {
            Some(a) if a.ty() == p.ty() => s.tree(*a),
            _ => TypeTree::new(),
        })
        .collect();
    let ret_seed = if call.ty().is_void() {
        TypeTree::new()
    } else {
        s.tree(call)
    };
    let mut key = (f, seeds, ret_seed);
    if !s.calls.memo.contains_key(&key)
        && s.calls.contexts.get(&f).copied().unwrap_or(0) >= MAX_CONTEXTS
    {
        key = (f, vec![TypeTree::new(); params.len()], TypeTree::new());
    }
    let summary = match s.calls.memo.get(&key) {
        Some(sum) => sum.clone(),
        None => {
            s.calls.stack.push(f);
            let solved = solve::solve(f, &key.1, &key.2, s.calls);
            s.calls.stack.pop();
            let sum = Summary {
                params: params
                    .iter()
                    .map(|p| solved.trees.get(p).cloned().unwrap_or_default())
                    .collect(),
                ret: solved.ret,
            };
            *s.calls.contexts.entry(f).or_default() += 1;
            s.calls.memo.insert(key, sum.clone());
            sum
        }
    };
    for (k, a) in args.iter().enumerate() {
        if let (Some(t), Some(p)) = (summary.params.get(k), params.get(k)) {
            if a.ty() == p.ty() {
                s.update(*a, t);
            }
        }
    }
    if !call.ty().is_void() {
        s.update(call, &summary.ret);
    }
}
