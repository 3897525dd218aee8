//! Integer copies made copies of memory again.
//!
//! instcombine turns a small `memcpy` into a load and a store of an
//! integer (`load i64` of two floats or of one double), and GVN may merge
//! such loads through phis and selects. Synthesis treats integers as data
//! without derivatives, so the floats copied this way silently lost
//! theirs: whenever the copy's target escaped to a call (no SROA to split
//! it), when LICM hoisted the load out of a loop, when the source was
//! written between the load and the store, or when a branch chose which
//! bytes were copied. Here each such copy becomes a `memmove`/`memcpy`
//! again, which synthesis differentiates by the type of the memory copied
//! (shadow memory copied and adjoints moved back for floats, shadow
//! pointers copied for pointers, nothing for integers).
//!
//! A *copy web* is a set of integer values (scalars or fixed vectors)
//! connected by moves only: simple loads, phis and selects of them,
//! vector element moves (`shufflevector`, `insertelement`,
//! `extractelement` with constant lanes), `freeze`, integer constants, and the
//! stores of any of them; every use of a member is a store of it or
//! another member. A web of one load whose stores may read the source
//! directly (nothing that may run between the load and a store may write
//! it) becomes `memmove(q, p, n)` at each store. Any other web gives each
//! member a place in memory holding its bytes from where it is computed
//! on: a load copies what it reads into a stack temporary of its own, a
//! phi copies from the place of the incoming value into its own (all phis
//! of a block at once, as phis take their values), a select chooses
//! between its operands' places, an extract points into its vector's
//! place, a shuffle or insert assembles its lanes in a temporary of its
//! own; each store copies from its value's place. Loads that C typed as
//! integers (`!tbaa` `long`), and webs that type analysis knows hold
//! integers, are left alone.

use super::moves::{use_of, visit_moved_operands, Use};
use crate::analysis::calls::{classify_callee, CallKind, Direction};
use crate::analysis::types::{tbaa_access_type, ConcreteType};
use crate::analysis::writes::{written_by, Order, Written};
use crate::ir::LLVMOpcode;
use crate::ir::{Builder, Function, Inst, Ty, TyKind, Value};
use std::collections::{HashMap, HashSet};

/// One copy web: its members (loads, phis, selects, vector element
/// moves), in the order found, and the stores of any of them.
struct Web<'m> {
    members: Vec<Inst<'m>>,
    stores: Vec<Inst<'m>>,
}

impl<'m> Web<'m> {
    fn loads(&self) -> impl Iterator<Item = Inst<'m>> + '_ {
        self.members
            .iter()
            .copied()
            .filter(|m| m.opcode() == Some(LLVMOpcode::LLVMLoad))
    }
}

/// Rewrites the copy webs of `func` as copies of memory (module doc),
/// except those with a load in `integers` (known to read integers).
pub(super) fn restore_integer_copies<'m>(func: Function<'m>, integers: &HashSet<Inst<'m>>) {
    let mut in_web = HashSet::new();
    let mut webs = Vec::new();
    for load in integer_loads(func) {
        if in_web.contains(&load) {
            continue;
        }
        if let Some(web) = copy_web(load) {
            in_web.extend(web.loads());
            if !web.loads().any(|l| integers.contains(&l)) {
                webs.push(web);
            }
        }
    }
    if webs.is_empty() {
        return;
    }
    // The function's writes and their order, computed when first needed
    // and again after each rewrite (which erases stores: the old lists
    // would hold stale handles).
    let mut writes: Option<(Vec<(Inst<'m>, Written<'m>)>, Order<'m>)> = None;
    for web in webs {
        if let [load] = web.members[..] {
            let (w, order) = writes.get_or_insert_with(|| (writes_of(func), Order::new(func)));
            if stores_may_read_source(load, &web.stores, w, order) {
                copy_directly(load, &web.stores);
                writes = None;
                continue;
            }
        }
        if web.members.iter().all(|m| phi_copies_fit(*m)) {
            copy_through_temporaries(func, &web);
            writes = None;
        }
    }
}

/// The size in bytes of a value of integer or integer-vector type `ty`,
/// if it is one of whole bytes.
fn byte_size<'m>(ty: Ty<'m>) -> Option<u64> {
    let bits = match ty.kind() {
        TyKind::Integer(bits) => u64::from(bits),
        TyKind::Vector if !ty.is_scalable_vector() => match ty.element().kind() {
            TyKind::Integer(bits) => u64::from(bits) * ty.len(),
            _ => return None,
        },
        _ => return None,
    };
    (bits % 8 == 0 && bits > 0).then_some(bits / 8)
}

/// The size in bytes of one lane of integer vector type `ty`.
fn lane_size<'m>(ty: Ty<'m>) -> Option<u64> {
    match ty.element().kind() {
        TyKind::Integer(bits) if bits % 8 == 0 => Some(u64::from(bits) / 8),
        _ => None,
    }
}

/// The simple (neither volatile nor atomic) loads of an integer or of a
/// fixed vector of integers of whole bytes in `func`.
fn integer_loads<'m>(func: Function<'m>) -> Vec<Inst<'m>> {
    let mut out = Vec::new();
    for b in func.blocks() {
        for load in b.instructions() {
            if load.opcode() == Some(LLVMOpcode::LLVMLoad)
                && load.is_simple_access()
                && byte_size(load.ty()).is_some()
            {
                out.push(load);
            }
        }
    }
    out
}

/// The copy web of `load`, if every member's every use is a store of it
/// or another member, every operand a member or an integer constant, no
/// load is typed as an integer by `!tbaa`, and there is a store.
fn copy_web<'m>(load: Inst<'m>) -> Option<Web<'m>> {
    let mut web = Web {
        members: Vec::new(),
        stores: Vec::new(),
    };
    let mut seen: HashSet<Inst<'m>> = HashSet::new();
    let mut todo = vec![load];
    let constant_lane = |x: Value<'m>| x.const_int_sext().is_some();
    while let Some(v) = todo.pop() {
        if !seen.insert(v) {
            continue;
        }
        byte_size(v.ty())?;
        // What v is built from.
        let ok = match v.opcode() {
            // A load that C typed as an integer (`long`) reads integer data.
            Some(LLVMOpcode::LLVMLoad) => {
                v.is_simple_access() && tbaa_access_type(v) != Some(ConcreteType::Integer)
            }
            Some(LLVMOpcode::LLVMShuffleVector)
                if !(v.shuffle_mask().iter().all(Option::is_some)
                    && lane_size(v.ty()).is_some()) =>
            {
                false
            }
            Some(LLVMOpcode::LLVMInsertElement) if !constant_lane(v.operand(2)) => false,
            Some(LLVMOpcode::LLVMExtractElement) if !constant_lane(v.operand(1)) => false,
            _ => visit_moved_operands(v, &mut todo),
        };
        if !ok {
            return None;
        }
        web.members.push(v);
        // What uses v.
        for u in v.users() {
            let u = u.as_inst()?;
            match use_of(v, u) {
                Use::Stored => {
                    if !web.stores.contains(&u) {
                        web.stores.push(u);
                    }
                }
                Use::Moved => todo.push(u),
                Use::Other => return None,
            }
        }
    }
    (!web.stores.is_empty()).then_some(web)
}

/// Whether each of `stores` may copy straight from the memory `load`
/// read: it is right after the load in its block with nothing in between
/// writing memory, or nothing that may run between the load and any store
/// may write that memory.
fn stores_may_read_source<'m>(
    load: Inst<'m>,
    stores: &[Inst<'m>],
    writes: &[(Inst<'m>, Written<'m>)],
    order: &Order<'m>,
) -> bool {
    if let [st] = stores {
        if st.parent_block() == load.parent_block() && nothing_writes_between(load, *st) {
            return true;
        }
    }
    writes.iter().all(|(w, written)| {
        let between =
            order.may_follow(load, *w) && stores.iter().any(|st| order.may_follow(*w, *st));
        !between || written.spares(load.operand(0))
    })
}

/// Each store of `load`'s value becomes `memmove(q, p, n)`.
fn copy_directly<'m>(load: Inst<'m>, stores: &[Inst<'m>]) {
    let ctx = load.context();
    let fb = Builder::new(ctx);
    let bytes = byte_size(load.ty()).expect("a copy web's load");
    for store in stores {
        fb.position_before(*store);
        let size = fb.const_int(Ty::int(ctx, 64), bytes as i64);
        fb.memmove(store.operand(1), load.operand(0), size);
        store.erase();
    }
    load.erase();
}

/// Whether the copy a phi `m` makes can go after the phis of its block:
/// the block's first instruction after them is no exception pad.
fn phi_copies_fit<'m>(m: Inst<'m>) -> bool {
    m.opcode() != Some(LLVMOpcode::LLVMPHI)
        || m.parent_block().first_non_phi().is_some_and(|i| {
            !matches!(
                i.opcode(),
                Some(
                    LLVMOpcode::LLVMLandingPad
                        | LLVMOpcode::LLVMCatchPad
                        | LLVMOpcode::LLVMCleanupPad
                        | LLVMOpcode::LLVMCatchSwitch
                )
            )
        })
}

/// Rewrites `web` through places in memory (module doc).
fn copy_through_temporaries<'m>(func: Function<'m>, web: &Web<'m>) {
    let mut places = Places::new(func);
    // Phis' temporaries first: a member may use a phi defined later in
    // the function (around a loop).
    let phis: Vec<Inst<'m>> = web
        .members
        .iter()
        .copied()
        .filter(|m| m.opcode() == Some(LLVMOpcode::LLVMPHI))
        .collect();
    for phi in &phis {
        let tmp = places.temporary(phi.ty(), "int_copy");
        places.at.insert(phi.as_value(), tmp);
    }
    for m in &web.members {
        places.of(m.as_value());
    }
    places.copy_into_phis(&phis);
    let fb = &places.b;
    for store in &web.stores {
        let value = store.operand(0);
        let from = places.at[&value];
        fb.position_before(*store);
        let size = places.size(value.ty());
        fb.memmove(store.operand(1), from, size);
        store.erase();
    }
    for m in &web.members {
        m.as_value().replace_all_uses_with(fb.poison(m.ty()));
    }
    for m in &web.members {
        m.erase();
    }
}

/// Where each member of a copy web keeps its bytes, built on demand.
struct Places<'m> {
    func: Function<'m>,
    b: Builder<'m>,
    at: HashMap<Value<'m>, Value<'m>>,
}

impl<'m> Places<'m> {
    fn new(func: Function<'m>) -> Places<'m> {
        Places {
            func,
            b: Builder::new(func.context()),
            at: HashMap::new(),
        }
    }

    /// `i64` constant `n`.
    fn size(&self, ty: Ty<'m>) -> Value<'m> {
        let n = byte_size(ty).expect("copy web members are whole bytes");
        self.b.const_int(Ty::int(self.func.context(), 64), n as i64)
    }

    /// A stack temporary for a value of type `ty`, in the entry block.
    fn temporary(&self, ty: Ty<'m>, name: &str) -> Value<'m> {
        let ctx = self.func.context();
        let first = self
            .func
            .entry_block()
            .first_non_phi()
            .expect("a block has a terminator");
        self.b.position_before(first);
        let n = byte_size(ty).expect("copy web members are whole bytes");
        self.b.alloca(Ty::int(ctx, 8).array(n), name)
    }

    /// `memcpy(dst + dst_off, src + src_off, n)` before `at`.
    fn copy_bytes(
        &self,
        at: Inst<'m>,
        dst: Value<'m>,
        dst_off: u64,
        src: Value<'m>,
        src_off: u64,
        n: u64,
    ) {
        self.b.position_before(at);
        let d = if dst_off == 0 {
            dst
        } else {
            self.b.byte_gep(dst, dst_off)
        };
        let s = if src_off == 0 {
            src
        } else {
            self.b.byte_gep(src, src_off)
        };
        let n = self.b.const_int(Ty::int(self.func.context(), 64), n as i64);
        self.b.memcpy(d, s, n);
    }

    /// The place of member or integer constant `v` (module doc).
    fn of(&mut self, v: Value<'m>) -> Value<'m> {
        if let Some(p) = self.at.get(&v) {
            return *p;
        }
        let ty = v.ty();
        let Some(m) = v.as_inst() else {
            // A constant: stored once in a temporary of its own.
            let tmp = self.temporary(ty, "int_copy_const");
            self.b.store(v, tmp);
            self.at.insert(v, tmp);
            return tmp;
        };
        let place = match m.opcode() {
            Some(LLVMOpcode::LLVMLoad) => {
                let tmp = self.temporary(ty, "int_copy");
                let n = byte_size(ty).expect("whole bytes");
                self.copy_bytes(m, tmp, 0, m.operand(0), 0, n);
                tmp
            }
            Some(LLVMOpcode::LLVMSelect) => {
                let a = self.of(m.operand(1));
                let c = self.of(m.operand(2));
                self.b.position_before(m);
                self.b.select(m.operand(0), a, c)
            }
            // The bytes of a loaded value are defined: freezing them
            // changes nothing.
            Some(LLVMOpcode::LLVMFreeze) => self.of(m.operand(0)),
            Some(LLVMOpcode::LLVMExtractElement) => {
                let vec = self.of(m.operand(0));
                let lane = lane_size(m.operand(0).ty()).expect("whole-byte lanes");
                let k = m.operand(1).const_int_sext().expect("a constant lane") as u64;
                self.b.position_before(m);
                self.b.byte_gep(vec, k * lane)
            }
            Some(LLVMOpcode::LLVMInsertElement) => {
                let vec = self.of(m.operand(0));
                let elem = self.of(m.operand(1));
                let lane = lane_size(ty).expect("whole-byte lanes");
                let k = m.operand(2).const_int_sext().expect("a constant lane") as u64;
                let tmp = self.temporary(ty, "int_copy");
                let n = byte_size(ty).expect("whole bytes");
                self.copy_bytes(m, tmp, 0, vec, 0, n);
                self.copy_bytes(m, tmp, k * lane, elem, 0, lane);
                tmp
            }
            Some(LLVMOpcode::LLVMShuffleVector) => {
                let a = self.of(m.operand(0));
                let c = self.of(m.operand(1));
                let lane = lane_size(ty).expect("whole-byte lanes");
                let width = m.operand(0).ty().len() as u32;
                let tmp = self.temporary(ty, "int_copy");
                for (k, src) in m.shuffle_mask().into_iter().enumerate() {
                    let src = src.expect("defined lanes");
                    let (from, j) = if src < width {
                        (a, src)
                    } else {
                        (c, src - width)
                    };
                    self.copy_bytes(m, tmp, k as u64 * lane, from, u64::from(j) * lane, lane);
                }
                tmp
            }
            _ => unreachable!("copy web members are moves (copy_web)"),
        };
        self.at.insert(v, place);
        place
    }

    /// Each phi copies from the place of its incoming value into its own,
    /// all phis of a block together: through a staging temporary each
    /// when there are several (one may take another's old value).
    fn copy_into_phis(&mut self, phis: &[Inst<'m>]) {
        let mut blocks = Vec::new();
        for p in phis {
            if !blocks.contains(&p.parent_block()) {
                blocks.push(p.parent_block());
            }
        }
        for block in blocks {
            let here: Vec<Inst<'m>> = phis
                .iter()
                .copied()
                .filter(|p| p.parent_block() == block)
                .collect();
            let incoming: Vec<Vec<(Value<'m>, crate::ir::Block<'m>)>> = here
                .iter()
                .map(|phi| {
                    phi.incoming()
                        .into_iter()
                        .map(|(x, pred)| (self.of(x), pred))
                        .collect()
                })
                .collect();
            let first = block.first_non_phi().expect("a block has a terminator");
            let ptr = self.at[&here[0].as_value()].ty();
            self.b.position_before(first);
            let mut from = Vec::new();
            for places in incoming {
                let addr = self.b.phi(ptr, "int_copy_from");
                for (p, pred) in places {
                    addr.add_incoming(p, pred);
                }
                from.push(addr.as_value());
            }
            if here.len() > 1 {
                for (f, phi) in from.iter_mut().zip(&here) {
                    let stage = self.temporary(phi.ty(), "int_copy_stage");
                    let n = byte_size(phi.ty()).expect("whole bytes");
                    self.copy_bytes(first, stage, 0, *f, 0, n);
                    *f = stage;
                }
            }
            for (phi, f) in here.iter().zip(from) {
                let n = byte_size(phi.ty()).expect("whole bytes");
                self.copy_bytes(first, self.at[&phi.as_value()], 0, f, 0, n);
            }
        }
    }
}

/// What each instruction of `func` may write.
fn writes_of<'m>(func: Function<'m>) -> Vec<(Inst<'m>, Written<'m>)> {
    let no_rules = HashMap::new();
    let keep = HashSet::new();
    func.blocks()
        .iter()
        .flat_map(|b| b.instructions())
        .map(|i| {
            let kind = || match i.called_function() {
                Some(f) => classify_callee(f, Direction::Reverse, &keep, &no_rules),
                None => CallKind::Indirect,
            };
            (i, written_by(i, kind))
        })
        .collect()
}

/// Whether no instruction strictly between `from` and `to` (same block,
/// `from` first) may write memory; `false` if `to` does not follow.
fn nothing_writes_between<'m>(from: Inst<'m>, to: Inst<'m>) -> bool {
    let mut i = from.next_instruction();
    while let Some(x) = i {
        if x == to {
            return true;
        }
        if matches!(
            x.opcode(),
            Some(
                LLVMOpcode::LLVMStore
                    | LLVMOpcode::LLVMCall
                    | LLVMOpcode::LLVMInvoke
                    | LLVMOpcode::LLVMAtomicRMW
                    | LLVMOpcode::LLVMAtomicCmpXchg
                    | LLVMOpcode::LLVMFence
            )
        ) {
            return false;
        }
        i = x.next_instruction();
    }
    false
}
