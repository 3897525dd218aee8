//! Type analysis: what every value of a function holds, and what the memory
//! behind every pointer holds, as Enzyme's TypeAnalysis computes it. With
//! opaque pointers this is the only way to know which memory holds floats.
//!
//! **What it is.** A [`TypeTree`] per value maps byte-offset paths to a
//! [`ConcreteType`] (`[]`: the value itself; `[o]`: the data at byte `o`
//! behind a pointer; `[o, o2]`: behind the pointer stored there; `-1`:
//! every offset). [`TypeAnalysis::analyse`] computes them by a fixed point
//! over the function's instructions in both directions (`solve.rs`), from
//! LLVM types, loads and stores, GEP offsets from the data layout, `!tbaa`,
//! casts, phis and selects (what all inputs agree on), known library
//! functions and interprocedurally through calls to defined functions
//! (`calls.rs`). Integers stay `Unknown` until used as integers (their bits
//! may be a copied float); those defaults come in a second phase, after
//! everything the IR proves.
//!
//! **Variable GEP indices** (`solve/gep.rs`). A variable index of stride
//! `s` on the pointer itself (`gep T, p, %i`) makes the data periodic with
//! an unknown extent: facts fold into the first period (offsets modulo `s`),
//! and a period one type tiles exactly becomes `-1`. So `double *a; a[i]`
//! gives `a: {[]:Pointer, [-1]:Float@double}` (never `[0]`), and `struct
//! {double x; int *p;} *s; s[i].p` gives `s: {[]:Pointer, [8]:Pointer}`
//! (the first element stands for all). A variable index inside a
//! fixed-size array (`gep [16 x double], p, 0, %i`) lays the facts out over
//! that array explicitly (`[0]`, `[8]`, ... `[120]`). A pointer stepped by
//! a constant around a loop or a recursion counts as a variable index.
//! Offsets above 4096 and paths deeper than 6 are dropped. Last, after
//! everything the IR proves and the integer defaults, a variable-index `gep double, p, %i` whose element is still untyped says
//! it is a `double` (the C type of the pointer indexed), so that doubles
//! only ever moved as integers (a `memcpy` of `x[j]`) are known as such.
//!
//! **What it owns.** The lattice and trees (`tree.rs`), the fixed point, the
//! facts API below used by synthesis, the undecided values the pipeline
//! reports, and `--print-type-analysis` output ([`print`]). Library
//! functions come from `names.rs` (`MemFn`, `MathFn`); TBAA type names are
//! in `tbaa.rs`.
//!
//! **What it must not do.** Mutate IR, or panic on any input: instructions it
//! does not know add no facts, and conflicting facts are recorded (the first
//! one kept), not fatal.

// Synthesis and the pipeline consume this API next.
#![allow(dead_code)]

mod calls;
mod solve;
mod tbaa;
#[cfg(test)]
mod tests;
mod tree;

#[allow(unused_imports)] // FloatKind: synthesis matches on it next.
pub(crate) use tree::{ConcreteType, FloatKind, TypeTree};

use crate::analysis::calls::{classify_callee, Direction};
use crate::ir::LLVMOpcode;
use crate::ir::{Function, Inst, TyKind, Value};
use crate::names::Marker;
use crate::names::MemFn;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

/// What the `!tbaa` tag of load or store `access` says it accesses
/// (`Integer` for `long`, `Float` for `double`, ...), if it has one that
/// names a scalar type.
pub(crate) fn tbaa_access_type<'m>(access: Inst<'m>) -> Option<ConcreteType> {
    access
        .metadata_node("tbaa")
        .and_then(solve::tbaa_access)
        .map(|(t, _)| t)
}

/// Two facts that disagree about one place (e.g. `Float` vs `Pointer`).
#[derive(Clone, Debug)]
pub(crate) struct Conflict<'m> {
    /// The value whose tree refused the fact.
    pub(crate) value: Value<'m>,
    /// The instruction whose rule produced it, if any.
    pub(crate) instruction: Option<Value<'m>>,
    /// Where in the tree.
    pub(crate) path: Vec<i64>,
    /// The type kept (found first).
    pub(crate) kept: ConcreteType,
    /// The type refused.
    pub(crate) rejected: ConcreteType,
}

/// Why a value's type matters but stays unknown.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum UndecidedKind {
    /// A `memcpy`/`memmove` whose bytes no fact types.
    UntypedCopy,
    /// An integer load stored elsewhere unchanged: it may be a copied float.
    IntegerCopy,
}

/// A place whose type stays `Unknown` although synthesis needs it.
#[derive(Clone, Debug)]
pub(crate) struct Undecided<'m> {
    /// The function it is in.
    pub(crate) function: String,
    /// The instruction.
    pub(crate) instruction: Value<'m>,
    /// Its `file:line:col`, when debug info has it.
    pub(crate) location: Option<String>,
    /// What is undecided.
    pub(crate) kind: UndecidedKind,
}

impl<'m> Undecided<'m> {
    /// One line saying what is not known.
    pub(crate) fn message(&self) -> String {
        match self.kind {
            UndecidedKind::UntypedCopy => format!(
                "type analysis cannot tell what the bytes copied by `{}` hold",
                self.instruction.to_ir()
            ),
            UndecidedKind::IntegerCopy => format!(
                "type analysis cannot tell whether the integer copied by `{}` is floating-point data",
                self.instruction.to_ir()
            ),
        }
    }

    /// What annotation resolves it.
    pub(crate) fn help(&self) -> String {
        format!(
            "add TBAA by compiling with -O1 or above, or pass the pointer as {}",
            Marker::Const.name()
        )
    }
}

/// The type facts of one function.
#[derive(Debug)]
pub(crate) struct TypeAnalysis<'m> {
    func: Function<'m>,
    trees: HashMap<Value<'m>, TypeTree>,
    ret: TypeTree,
    conflicts: Vec<Conflict<'m>>,
    undecided: Vec<Undecided<'m>>,
}

impl<'m> TypeAnalysis<'m> {
    /// Analyses `func`, seeded by its parameter types and, when present,
    /// the `"enzyme_type"` attributes of its parameters and return value
    /// (rustc's type trees).
    pub(crate) fn analyse(func: Function<'m>) -> TypeAnalysis<'m> {
        let declared = |index: u32| {
            func.string_attribute_at(index, crate::names::DECLARED_TYPE)
                .and_then(|s| TypeTree::parse_enzyme(&s))
                .unwrap_or_default()
        };
        let args: Vec<TypeTree> = (1..=func.params().len() as u32).map(declared).collect();
        TypeAnalysis::analyse_with(func, &args, &declared(0))
    }

    /// Analyses `func` with `arg_seeds[i]` known of parameter `i` (e.g. from
    /// a call site or an annotation) and `ret_seed` of the return value.
    pub(crate) fn analyse_with(
        func: Function<'m>,
        arg_seeds: &[TypeTree],
        ret_seed: &TypeTree,
    ) -> TypeAnalysis<'m> {
        if !func.is_function() || func.blocks().is_empty() {
            return TypeAnalysis {
                func,
                trees: HashMap::new(),
                ret: ret_seed.clone(),
                conflicts: Vec::new(),
                undecided: Vec::new(),
            };
        }
        let mut calls = calls::Interproc::default();
        calls.stack.push(func);
        let solved = solve::solve(func, arg_seeds, ret_seed, &mut calls);
        let mut ta = TypeAnalysis {
            func,
            trees: solved.trees,
            ret: solved.ret,
            conflicts: solved.conflicts,
            undecided: Vec::new(),
        };
        ta.undecided = ta.find_undecided();
        ta
    }

    /// The function analysed.
    pub(crate) fn function(&self) -> Function<'m> {
        self.func
    }

    /// The tree of `v` (for constants: what their type says).
    pub(crate) fn tree(&self, v: Value<'m>) -> TypeTree {
        match self.trees.get(&v) {
            Some(t) => t.clone(),
            None if v.is_function() => TypeTree::from_type(ConcreteType::Pointer),
            None => solve::seed(v, self.func.global_parent()),
        }
    }

    /// The tree of the function's return value.
    pub(crate) fn return_tree(&self) -> &TypeTree {
        &self.ret
    }

    /// The type of the data at byte `offset` behind pointer `ptr`.
    pub(crate) fn pointee_type(&self, ptr: Value<'m>, offset: i64) -> ConcreteType {
        self.tree(ptr).at(&[offset])
    }

    /// Whether the memory directly behind `ptr` holds floats anywhere.
    pub(crate) fn pointee_has_float(&self, ptr: Value<'m>) -> bool {
        self.tree(ptr).first_level().any(|(_, t)| t.is_float())
    }

    /// Whether the memory directly behind `ptr` holds pointers anywhere.
    pub(crate) fn pointee_has_pointer(&self, ptr: Value<'m>) -> bool {
        self.tree(ptr)
            .first_level()
            .any(|(_, t)| t == ConcreteType::Pointer)
    }

    /// Whether everything type analysis knows of the memory parameter `k`
    /// points to (and of the memory reachable through pointers stored
    /// there) is integers or pointers, and it knows something: memory that
    /// holds no derivative.
    pub(crate) fn param_memory_holds_no_floats(&self, k: usize) -> bool {
        let Some(p) = self.func.params().get(k).copied() else {
            return false;
        };
        let tree = self.tree(p);
        let below: Vec<(Vec<i64>, ConcreteType)> = tree
            .entries()
            .filter(|(path, _)| !path.is_root())
            .map(|(path, t)| (path.to_vec(), t))
            .collect();
        // A pointer inside must point to memory known too (a `float *`
        // field whose loads happen elsewhere would otherwise look like an
        // integer-only struct).
        let pointee_known = |at: &Vec<i64>| {
            below
                .iter()
                .any(|(q, _)| q.len() > at.len() && q[..at.len()] == at[..])
        };
        !below.is_empty()
            && below.iter().all(|(path, t)| match t {
                ConcreteType::Integer => true,
                ConcreteType::Pointer => pointee_known(path),
                _ => false,
            })
    }

    /// Places whose type matters but stays unknown, for diagnostics.
    pub(crate) fn undecided(&self) -> &[Undecided<'m>] {
        &self.undecided
    }

    /// Facts that disagreed (the first was kept).
    pub(crate) fn conflicts(&self) -> &[Conflict<'m>] {
        &self.conflicts
    }

    fn find_undecided(&self) -> Vec<Undecided<'m>> {
        let mut out = Vec::new();
        let fname = self.func.name();
        for b in self.func.blocks() {
            for i in b.instructions() {
                let kind = match i.opcode() {
                    Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke) => self.untyped_copy(i),
                    Some(LLVMOpcode::LLVMLoad) => self.integer_copy(i.into()),
                    _ => None,
                };
                if let Some(kind) = kind {
                    out.push(Undecided {
                        function: fname.clone(),
                        instruction: i.into(),
                        location: i.debug_location(),
                        kind,
                    });
                }
            }
        }
        out
    }

    /// Whether `call` copies memory (memcpy, memmove) of which type
    /// analysis knows nothing, at either end: whether it moves floats is
    /// unknown.
    pub(crate) fn is_untyped_copy(&self, call: Inst<'m>) -> bool {
        self.untyped_copy(call).is_some()
    }

    fn untyped_copy(&self, call: Inst<'m>) -> Option<UndecidedKind> {
        let f = call.called_function()?;
        let none = (HashSet::new(), HashMap::new());
        let kind = classify_callee(f, Direction::Reverse, &none.0, &none.1);
        if !kind.memory().is_some_and(MemFn::transfers) || call.call_num_args() < 3 {
            return None;
        }
        let n = calls::const_len(call.operand(2));
        // Fewer bytes than the smallest float (`half`, `bfloat`: 2) hold
        // none: a BLAS `char` option copied byte by byte.
        if n.is_some_and(|n| n < 2) {
            return None;
        }
        let dst = calls::copied(&self.tree(call.operand(0)), n);
        let src = calls::copied(&self.tree(call.operand(1)), n);
        (dst.is_empty() && src.is_empty()).then_some(UndecidedKind::UntypedCopy)
    }

    fn integer_copy(&self, load: Value<'m>) -> Option<UndecidedKind> {
        let TyKind::Integer(bits) = load.ty().kind() else {
            return None;
        };
        let stored = load
            .users()
            .into_iter()
            .any(|u| u.opcode() == Some(LLVMOpcode::LLVMStore) && u.operand(0) == load);
        (bits >= 16 && stored && !self.tree(load).root().is_known())
            .then_some(UndecidedKind::IntegerCopy)
    }
}

/// `-enzyme-print-type` style: each argument, then each instruction with a
/// result, one per line as `<IR>: <tree>`.
pub(crate) fn print<'m>(func: Function<'m>, ta: &TypeAnalysis<'m>) -> String {
    let mut out = String::new();
    for p in func.params() {
        let _ = writeln!(out, "{}: {}", p.to_ir(), ta.tree(p));
    }
    let results: Vec<Inst> = func
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| !i.ty().is_void())
        .collect();
    // Printing instructions one by one renumbers the whole function each
    // time; take their lines from one print of the function instead (each
    // instruction with a result is one line `  %name = ...`, in order).
    let text = func.to_ir_full();
    let lines: Vec<&str> = text.lines().filter(|l| l.starts_with("  %")).collect();
    let by_line = lines.len() == results.len();
    for (k, i) in results.iter().enumerate() {
        let ir = if by_line {
            let l = lines[k].trim();
            l.find(", !").map_or(l, |c| &l[..c]).to_string()
        } else {
            i.to_ir()
        };
        let _ = writeln!(out, "{ir}: {}", ta.tree(i.as_value()));
    }
    out
}
