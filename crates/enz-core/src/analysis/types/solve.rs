//! The fixed point of type analysis over one function.
//!
//! A worklist of instructions: visiting one joins facts into its operands and
//! its result (both directions); a value whose tree grows puts its users and
//! its definition back on the list. The list is worked in sweeps over the
//! instructions in layout order, alternately forwards and backwards, so that
//! many changes to one value (a pointer used ten thousand times) cost one
//! revisit of its users per sweep rather than one per change. Two phases: the first derives only facts
//! the IR proves (LLVM types, memory accesses, GEPs, TBAA, known
//! functions); the second adds "integer unless shown otherwise" defaults
//! (integer arithmetic, comparisons, indices, integer parameters), so that a
//! pointer found in phase one always wins over an integer default.
//!
//! Calls are in `calls.rs`. Nothing here changes the IR.

use super::calls::{self, Interproc};
use super::tbaa::{pointee_float, tbaa_type};
use super::tree::{ConcreteType, TreeConflict, TypeTree};
use super::Conflict;
use crate::analysis::cfg::Cfg;
use crate::ir::LLVMOpcode;
use crate::ir::Module;
use crate::ir::{Block, Function, Inst, Ty, TyKind, Value};
use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap, HashSet};

mod gep;

/// Most entries a layout of one LLVM type may produce (big arrays are cut).
const MAX_LAYOUT_ENTRIES: usize = 64;

/// The facts of one solved function.
pub(super) struct Solved<'m> {
    pub(super) trees: HashMap<Value<'m>, TypeTree>,
    pub(super) ret: TypeTree,
    pub(super) conflicts: Vec<Conflict<'m>>,
}

/// The state of the fixed point over one function.
pub(super) struct Solver<'m, 'c> {
    func: Function<'m>,
    module: Module<'m>,
    trees: HashMap<Value<'m>, TypeTree>,
    ret: TypeTree,
    rets: Vec<Inst<'m>>,
    insts: Vec<Inst<'m>>,
    /// Index of each instruction in `insts`.
    members: HashMap<Value<'m>, usize>,
    params: HashSet<Value<'m>>,
    /// Per GEP: whether it steps a loop-carried pointer.
    induction: HashMap<Value<'m>, bool>,
    /// CFG edges (from, to) whose target dominates their source.
    back_edges: HashSet<(Block<'m>, Block<'m>)>,
    /// Indices of instructions to visit.
    work: BTreeSet<usize>,
    /// Phase two: integer defaults are on.
    integers: bool,
    /// The instruction being visited (blamed for conflicts).
    current: Option<Value<'m>>,
    conflicts: Vec<Conflict<'m>>,
    seen_conflicts: HashSet<(Value<'m>, Vec<i64>, ConcreteType)>,
    pub(super) calls: &'c mut Interproc<'m>,
}

/// Solves `func` (which must have a body) with `arg_seeds[i]` joined into
/// parameter `i` and `ret_seed` into the return.
pub(super) fn solve<'m>(
    func: Function<'m>,
    arg_seeds: &[TypeTree],
    ret_seed: &TypeTree,
    calls: &mut Interproc<'m>,
) -> Solved<'m> {
    let insts: Vec<Inst> = func
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .collect();
    let module = func.global_parent();
    let mut s = Solver {
        func,
        module,
        trees: HashMap::new(),
        ret: ret_seed.clone(),
        rets: insts
            .iter()
            .copied()
            .filter(|i| i.opcode() == Some(LLVMOpcode::LLVMRet))
            .collect(),
        members: insts
            .iter()
            .enumerate()
            .map(|(k, i)| (i.as_value(), k))
            .collect(),
        params: func.params().into_iter().collect(),
        induction: HashMap::new(),
        back_edges: Cfg::new(func).back_edges().into_iter().collect(),
        insts,
        work: BTreeSet::new(),
        integers: false,
        current: None,
        conflicts: Vec::new(),
        seen_conflicts: HashSet::new(),
        calls,
    };
    let ret_ty = func.function_type().return_type();
    s.ret
        .merge(&TypeTree::from_type(ConcreteType::from_ty(ret_ty)));
    for (k, p) in func.params().into_iter().enumerate() {
        let mut t = seed(p, module);
        if let Some(extra) = arg_seeds.get(k) {
            t.merge(extra);
        }
        s.trees.insert(p, t);
    }
    for i in s.insts.clone() {
        s.trees.insert(i.as_value(), seed(i.as_value(), module));
    }
    for phase_two in [false, true] {
        s.integers = phase_two;
        if phase_two {
            for p in func.params() {
                s.integer(p);
            }
            if ret_ty.is_integer() && !s.ret.root().is_known() {
                s.ret.merge(&TypeTree::from_type(ConcreteType::Integer));
            }
        }
        for i in s.insts.clone() {
            if !phase_two || has_integer_rule(i.as_value()) {
                s.enqueue(i.as_value());
            }
        }
        s.drain();
    }
    // Last, what the element types of indexed pointers hint at, where
    // neither the facts nor the integer defaults typed the element.
    for i in s.insts.clone() {
        if let Some(t) = element_hint(&s, i) {
            s.update(i.as_value(), &t);
        }
    }
    s.drain();
    Solved {
        trees: s.trees,
        ret: s.ret,
        conflicts: s.conflicts,
    }
}

/// What a variable-index `gep T, p, %i` of a float type `T` says when
/// nothing else typed the element it addresses: that the element is a `T`
/// (`x[j]` on a `double *`, the C type of the pointer indexed). Memory
/// only moved as integers (`memcpy` of `x[j]`, a rotation of `x`) is
/// otherwise of unknown type, and whether it holds floats undecided.
fn element_hint<'m>(s: &Solver<'m, '_>, i: Inst<'m>) -> Option<TypeTree> {
    if i.opcode() != Some(LLVMOpcode::LLVMGetElementPtr) || i.num_operands() != 2 {
        return None;
    }
    if i.operand(1).is_constant() {
        return None;
    }
    if s.tree_ref(i.as_value()).at(&[0]).is_known() {
        return None;
    }
    let elem = ConcreteType::from_ty(i.gep_source_type());
    if elem.is_float() {
        return Some(TypeTree::from_path(&[0], elem));
    }
    // An element of bytes (`gep [8 x i8], p, %i`: preprocess/sort.rs's
    // gather) over memory whose known elements are all one float of that
    // size, at multiples of it: that float.
    let size = i.gep_source_type().alloc_size(s.module) as i64;
    let mut kinds = s
        .tree_ref(i.operand(0))
        .first_level()
        .map(|(o, t)| {
            let float_of_size =
                matches!(t, ConcreteType::Float(k) if k.size() == Some(size as u64));
            (o >= 0 && o % size.max(1) == 0 && float_of_size).then_some(t)
        })
        .collect::<Option<Vec<ConcreteType>>>()?;
    kinds.dedup();
    match kinds.as_slice() {
        [t] if t.is_float() => Some(TypeTree::from_path(&[0], *t)),
        _ => None,
    }
}

/// Whether phase two (integer defaults) can add facts at `i` directly.
fn has_integer_rule<'m>(i: Value<'m>) -> bool {
    use LLVMOpcode::*;
    if i.opcode() == Some(LLVMStore) {
        return stored_integer_constant(i.operand(0));
    }
    !matches!(
        i.opcode(),
        Some(
            LLVMLoad
                | LLVMStore
                | LLVMPHI
                | LLVMFreeze
                | LLVMBitCast
                | LLVMAddrSpaceCast
                | LLVMPtrToInt
        ) | Some(LLVMIntToPtr | LLVMPtrToAddr | LLVMFPExt | LLVMFPTrunc | LLVMBr | LLVMUnreachable)
            | Some(
                LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFRem | LLVMFNeg | LLVMShuffleVector
            )
            | Some(LLVMAtomicRMW | LLVMExtractValue | LLVMInsertValue)
    )
}

/// Whether `v` is an integer constant no float of its width is written
/// as: not zero (which is also 0.0), and, at the width of a float, below
/// its smallest normal number (a float constant stored through an integer
/// of its width, as instcombine writes a small `memcpy` of constants, is
/// never so small). Stored where nothing else says what the memory holds
/// (Rust's `Dim` sizes and strides are written as `store i64 2`, then
/// copied as integers), it says that the memory holds an integer.
fn stored_integer_constant<'m>(v: Value<'m>) -> bool {
    let Some(c) = v.const_int_sext() else {
        return false;
    };
    let mantissa_bits = match v.ty().kind() {
        TyKind::Integer(16) => 10,
        TyKind::Integer(32) => 23,
        TyKind::Integer(64) => 52,
        TyKind::Integer(_) => 62,
        _ => return false,
    };
    c > 0 && c < (1i64 << mantissa_bits)
}

/// What a value's LLVM type (and, for stack slots and globals of scalar
/// type, the allocated type) says by itself.
pub(super) fn seed<'m>(v: Value<'m>, module: Module<'m>) -> TypeTree {
    let mut t = TypeTree::from_type(ConcreteType::from_ty(v.ty()));
    let slot = if let Some(a) = v
        .as_inst()
        .filter(|i| i.opcode() == Some(LLVMOpcode::LLVMAlloca))
    {
        Some(a.allocated_type())
    } else if v.is_global_variable() {
        Some(v.global_value_type())
    } else {
        None
    };
    if let Some(ty) = slot {
        if is_scalar(ty) || ty.kind() == TyKind::Vector {
            t.merge(&layout(ty, module));
        }
    }
    t
}

/// A scalar (non-aggregate, non-vector) sized type.
pub(super) fn is_scalar<'m>(ty: Ty<'m>) -> bool {
    matches!(
        ty.kind(),
        TyKind::Half
            | TyKind::Float
            | TyKind::Double
            | TyKind::OtherFloat
            | TyKind::Integer(_)
            | TyKind::Pointer
    )
}

/// The memory layout of an LLVM type as pointee facts: `[o]: T` for each
/// float or pointer leaf at byte `o` (integers stay unknown: they may be
/// copies of anything). Large arrays are cut after a few entries.
pub(super) fn layout<'m>(ty: Ty<'m>, module: Module<'m>) -> TypeTree {
    fn walk<'m>(ty: Ty<'m>, module: Module<'m>, base: i64, out: &mut Vec<(i64, ConcreteType)>) {
        if out.len() >= MAX_LAYOUT_ENTRIES || base > super::tree::MAX_OFFSET {
            return;
        }
        match ty.kind() {
            TyKind::Struct => {
                for (k, f) in ty.struct_fields().into_iter().enumerate() {
                    if let Some(off) = ty.field_offset(module, k as u32) {
                        walk(f, module, base + off as i64, out);
                    }
                }
            }
            TyKind::Array | TyKind::Vector if !ty.is_scalable_vector() => {
                let elem = ty.element();
                let Some(size) = elem.layout_size(module).filter(|s| *s > 0) else {
                    return;
                };
                for k in 0..ty.len().min(MAX_LAYOUT_ENTRIES as u64) {
                    walk(elem, module, base + (k * size) as i64, out);
                }
            }
            _ => {
                let ct = ConcreteType::from_ty(ty);
                if ct.is_known() {
                    out.push((base, ct));
                }
            }
        }
    }
    let mut entries = Vec::new();
    walk(ty, module, 0, &mut entries);
    let mut t = TypeTree::new();
    for (o, ct) in entries {
        t.insert(&[o], ct);
    }
    t
}

/// The access type a `!tbaa` tag names (`!{base, access, offset}`, or an
/// old-style scalar type node), with its size where fixed.
pub(in crate::analysis::types) fn tbaa_access<'m>(
    tag: Value<'m>,
) -> Option<(ConcreteType, Option<u64>)> {
    tbaa_type(&tbaa_access_name(tag)?)
}

/// The name of the access type a `!tbaa` tag names.
fn tbaa_access_name(tag: Value<'_>) -> Option<String> {
    let ops = tag.md_node_operands();
    let first = *ops.first()?;
    if let Some(s) = first.metadata_string() {
        return Some(s);
    }
    let access = *ops.get(1)?;
    access.md_node_operands().first()?.metadata_string()
}

impl<'m, 'c> Solver<'m, 'c> {
    /// The function being solved.
    pub(super) fn function(&self) -> Function<'m> {
        self.func
    }

    /// The tree of the function's return value so far.
    pub(super) fn ret_tree(&self) -> &TypeTree {
        &self.ret
    }

    /// Joins `t` into the return tree (requeueing the `ret`s on growth).
    pub(super) fn update_ret(&mut self, t: &TypeTree) {
        if self.ret.merge(t) {
            for r in self.rets.clone() {
                self.enqueue(r.as_value());
            }
        }
    }

    /// Whether phase two (integer defaults) is on.
    pub(super) fn phase_two(&self) -> bool {
        self.integers
    }

    fn enqueue(&mut self, i: Value<'m>) {
        if let Some(k) = self.members.get(&i) {
            self.work.insert(*k);
        }
    }

    /// Visits queued instructions until none is left, in alternating sweeps.
    fn drain(&mut self) {
        let mut forward = true;
        while !self.work.is_empty() {
            let mut cursor: Option<usize> = None;
            loop {
                let next = if forward {
                    self.work
                        .range(cursor.map_or(0, |c| c + 1)..)
                        .next()
                        .copied()
                } else {
                    self.work
                        .range(..cursor.unwrap_or(usize::MAX))
                        .next_back()
                        .copied()
                };
                let Some(k) = next else { break };
                self.work.remove(&k);
                cursor = Some(k);
                let i = self.insts[k];
                self.current = Some(i.as_value());
                self.visit(i);
            }
            forward = !forward;
        }
        self.current = None;
    }

    /// The current tree of `v` (constants: what their type says).
    pub(super) fn tree(&self, v: Value<'m>) -> TypeTree {
        self.tree_ref(v).into_owned()
    }

    /// The current tree of `v`, borrowed where it is tracked.
    pub(super) fn tree_ref(&self, v: Value<'m>) -> Cow<'_, TypeTree> {
        match self.trees.get(&v) {
            Some(t) => Cow::Borrowed(t),
            None => Cow::Owned(seed(v, self.module)),
        }
    }

    /// The root type of `v`.
    pub(super) fn root(&self, v: Value<'m>) -> ConcreteType {
        self.trees
            .get(&v)
            .map(TypeTree::root)
            .unwrap_or_else(|| ConcreteType::from_ty(v.ty()))
    }

    /// Joins `t` into the tree of `v` (instructions, arguments and global
    /// variables; other constants carry no facts). Growth requeues `v`'s
    /// definition and users.
    pub(super) fn update(&mut self, v: Value<'m>, t: &TypeTree) {
        if t.is_empty() {
            return;
        }
        let trackable =
            self.members.contains_key(&v) || self.params.contains(&v) || v.is_global_variable();
        if !trackable {
            return;
        }
        let module = self.module;
        let entry = self.trees.entry(v).or_insert_with(|| seed(v, module));
        if entry.covers_all(t) {
            return;
        }
        let mut found = Vec::new();
        let changed = entry.merge_checked(t, &mut found);
        for c in found {
            self.record(v, c);
        }
        if changed {
            self.enqueue(v);
            for u in v.users() {
                self.enqueue(u);
            }
        }
    }

    fn record(&mut self, value: Value<'m>, c: TreeConflict) {
        if self
            .seen_conflicts
            .insert((value, c.path.clone(), c.rejected))
        {
            self.conflicts.push(Conflict {
                value,
                instruction: self.current,
                path: c.path,
                kept: c.kept,
                rejected: c.rejected,
            });
        }
    }

    /// Phase two: an integer-typed `v` whose type is still open is `Integer`.
    pub(super) fn integer(&mut self, v: Value<'m>) {
        if !self.integers {
            return;
        }
        let ty = v.ty();
        let int_like =
            ty.is_integer() || (ty.kind() == TyKind::Vector && ty.element().is_integer());
        if int_like && matches!(self.root(v), ConcreteType::Unknown | ConcreteType::Anything) {
            self.update(v, &TypeTree::from_type(ConcreteType::Integer));
        }
    }

    /// Both directions between `a` and `b`, whole trees.
    pub(super) fn flow(&mut self, a: Value<'m>, b: Value<'m>) {
        let tb = self.tree_ref(b).into_owned();
        self.update(a, &tb);
        let ta = self.tree_ref(a).into_owned();
        self.update(b, &ta);
    }

    fn visit(&mut self, i: Inst<'m>) {
        use LLVMOpcode::*;
        let Some(op) = i.opcode() else { return };
        let n = i.num_operands();
        let opnd = |k: u32| (k < n).then(|| i.operand(k));
        match op {
            LLVMLoad => self.access(i.as_value(), i.operand(0), i.as_value()),
            LLVMStore if n >= 2 => self.access(i.into(), i.operand(1), i.operand(0)),
            LLVMGetElementPtr => self.gep(i.into()),
            LLVMPHI => {
                // Values entering along a loop's back edge are derived from
                // the phi itself (`p.next = p + 8`): feeding the phi back
                // into them would shift its facts round the loop forever.
                let block = i.parent_block();
                let (mut inputs, mut up) = (Vec::new(), Vec::new());
                for (v, from) in i.incoming() {
                    inputs.push(v);
                    if !self.back_edges.contains(&(from, block)) {
                        up.push(v);
                    }
                }
                self.merge_into(i.into(), &inputs, &up);
            }
            LLVMSelect if n == 3 => {
                let inputs = [i.operand(1), i.operand(2)];
                self.merge_into(i.into(), &inputs, &inputs);
                self.integer(i.operand(0));
            }
            LLVMFreeze | LLVMAddrSpaceCast | LLVMPtrToInt | LLVMPtrToAddr | LLVMIntToPtr
                if n >= 1 =>
            {
                self.flow(i.into(), i.operand(0))
            }
            LLVMBitCast if n >= 1 => {
                let (a, b) = (
                    ConcreteType::from_ty(i.ty()),
                    ConcreteType::from_ty(i.operand(0).ty()),
                );
                // A float of one kind reinterpreted as another: no relation.
                if !(a.is_known() && b.is_known() && a != b) {
                    self.flow(i.into(), i.operand(0));
                }
            }
            LLVMZExt | LLVMSExt | LLVMTrunc | LLVMSIToFP | LLVMUIToFP => {
                if op != LLVMSIToFP && op != LLVMUIToFP {
                    self.integer(i.into());
                }
                if let Some(o) = opnd(0) {
                    self.integer(o);
                }
            }
            LLVMFPToSI | LLVMFPToUI | LLVMFCmp => self.integer(i.into()),
            LLVMAdd | LLVMSub | LLVMMul | LLVMUDiv | LLVMSDiv | LLVMURem | LLVMSRem | LLVMShl
            | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor
                if n == 2 =>
            {
                self.int_binop(i.into(), op)
            }
            LLVMICmp if n == 2 => {
                self.integer(i.into());
                self.integer(i.operand(0));
                self.integer(i.operand(1));
            }
            LLVMExtractElement | LLVMInsertElement | LLVMShuffleVector => {
                // Lanes share the vector's root type.
                let vecs = if op == LLVMShuffleVector { 2 } else { 1 };
                for k in 0..vecs.min(n) {
                    self.flow_root(i.into(), i.operand(k));
                }
                if op == LLVMInsertElement && n == 3 {
                    self.flow_root(i.into(), i.operand(1));
                    self.integer(i.operand(2));
                } else if op == LLVMExtractElement && n == 2 {
                    self.integer(i.operand(1));
                }
            }
            LLVMAtomicRMW if n >= 2 => {
                self.access(i.into(), i.operand(0), i.operand(1));
                self.flow(i.into(), i.operand(1));
            }
            LLVMCall | LLVMInvoke => calls::visit_call(self, i),
            LLVMRet if n == 1 => {
                let t = self.tree(i.operand(0));
                self.update_ret(&t);
                let r = self.ret.clone();
                self.update(i.operand(0), &r);
            }
            LLVMSwitch if n >= 1 => self.integer(i.operand(0)),
            LLVMAlloca if n >= 1 => self.integer(i.operand(0)),
            _ => {}
        }
    }

    /// Root types only, both directions (vector lanes).
    fn flow_root(&mut self, a: Value<'m>, b: Value<'m>) {
        let rb = TypeTree::from_type(self.root(b));
        self.update(a, &rb);
        let ra = TypeTree::from_type(self.root(a));
        self.update(b, &ra);
    }

    /// Phi and select, as Enzyme: the result joins what all its inputs agree
    /// on (constants such as `0` or `null` say nothing and are left out);
    /// the inputs in `up` get the result back without `Anything` (one
    /// input's bytes say nothing of another's).
    fn merge_into(&mut self, i: Value<'m>, inputs: &[Value<'m>], up: &[Value<'m>]) {
        let mut meet: Option<TypeTree> = None;
        for v in inputs {
            if *v == i || (v.is_constant() && !v.is_global_variable()) {
                continue;
            }
            let t = self.tree_ref(*v);
            meet = Some(match meet {
                None => t.into_owned(),
                Some(m) => m.intersect(&t),
            });
        }
        if let Some(m) = meet {
            self.update(i, &m);
        }
        let back = self.tree_ref(i).purge_anything();
        for v in up {
            self.update(*v, &back);
        }
    }

    /// A load or store of `value` through `ptr` (`inst` carries the TBAA).
    pub(super) fn access(&mut self, inst: Value<'m>, ptr: Value<'m>, value: Value<'m>) {
        let ty = value.ty();
        if is_scalar(ty) {
            // Most visits find both sides already agreeing: the trees
            // (hundreds of entries through a `std::vector` at -O0) are only
            // rebuilt as the pointee or the pointer when they would add
            // something.
            let ptr_tree = self.tree_ref(ptr);
            let root = ptr_tree.at(&[0]);
            let open = !root.is_known() || root == ConcreteType::Anything;
            if !self.tree_ref(value).covers_pointee_at(&ptr_tree, 0) {
                let t = ptr_tree.pointee_at(0);
                self.update(value, &t);
            }
            if self.integers && open && stored_integer_constant(value) {
                // Phase two: memory nothing else typed, written a small
                // integer constant, holds an integer.
                let t = TypeTree::from_type(ConcreteType::Integer).as_pointee_at(0);
                self.update(ptr, &t);
            } else if !self
                .tree_ref(ptr)
                .covers_as_pointee_at(&self.tree_ref(value), 0)
            {
                let t = self.tree_ref(value).as_pointee_at(0);
                self.update(ptr, &t);
            }
        } else {
            let l = layout(ty, self.module);
            self.update(ptr, &l);
        }
        let tag = inst.metadata_node("tbaa");
        if let Some((ct, _)) = tag.and_then(tbaa_access) {
            self.update(ptr, &TypeTree::from_path(&[0], ct));
            if is_scalar(ty) {
                self.update(value, &TypeTree::from_type(ct));
            }
        }
        // A `double *` loaded or stored under clang's pointer TBAA (`p1
        // double`) points to a double.
        let pointee = tag
            .and_then(tbaa_access_name)
            .and_then(|n| pointee_float(&n));
        if let (Some(ct), true) = (pointee, is_scalar(ty)) {
            self.update(value, &TypeTree::from_path(&[0], ct));
            self.update(ptr, &TypeTree::from_path(&[0, 0], ct));
        }
    }

    /// Integer arithmetic. Phase one: pointer arithmetic on `ptrtoint`
    /// values stays `Pointer` (a difference of pointers is `Integer`).
    /// Phase two: everything not a pointer is `Integer`.
    fn int_binop(&mut self, i: Value<'m>, op: LLVMOpcode) {
        use LLVMOpcode::*;
        let (a, b) = (i.operand(0), i.operand(1));
        let (ra, rb) = (self.root(a), self.root(b));
        let ptr = ConcreteType::Pointer;
        match op {
            LLVMAdd | LLVMOr | LLVMAnd | LLVMXor if (ra == ptr) != (rb == ptr) => {
                self.update(i, &TypeTree::from_type(ptr));
            }
            LLVMSub if ra == ptr && rb != ptr => self.update(i, &TypeTree::from_type(ptr)),
            LLVMSub if ra == ptr && rb == ptr => {
                self.update(i, &TypeTree::from_type(ConcreteType::Integer))
            }
            _ => {}
        }
        if self.root(i) != ptr {
            self.integer(i);
        }
        for v in [a, b] {
            if self.root(v) != ptr {
                self.integer(v);
            }
        }
    }
}
