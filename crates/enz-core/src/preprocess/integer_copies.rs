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
//! A *copy web* is a set of simple integer loads, the phis and selects
//! that merge them, and the stores of any of them, where every use of a
//! value of the web is a store of it or another member. A web of one load
//! whose stores may read the source directly (nothing that may run
//! between the load and a store may write it) becomes `memmove(q, p, n)`
//! at each store. Any other web gives each load and each phi a stack
//! temporary of its own, which holds that value's bytes from where it is
//! computed on: a load copies what it reads into its temporary, a phi
//! copies from the temporary of the incoming value (all phis of a block
//! at once, as phis take their values), a select chooses between its
//! operands' temporaries, and each store copies from its value's
//! temporary. Loads that C typed as integers (`!tbaa` `long`), and loads
//! that type analysis knows hold integers, are left alone.

use crate::analysis::calls::{classify_callee, CallKind, Direction};
use crate::analysis::types::{tbaa_access_type, ConcreteType};
use crate::analysis::writes::{may_point_into, written_by, Order, Written};
use crate::ir::LLVMOpcode;
use crate::ir::{Builder, Function, Inst, Ty, TyKind, Value};
use std::collections::{HashMap, HashSet};

/// One copy web: its loads, the phis and selects merging them (in the
/// order found) and the stores of any of them.
struct Web<'m> {
    loads: Vec<Inst<'m>>,
    merges: Vec<Inst<'m>>,
    stores: Vec<Inst<'m>>,
    bytes: u32,
}

/// Rewrites the copy webs of `func` as copies of memory (module doc),
/// except those with a load in `integers` (known to read integers).
pub(super) fn restore_integer_copies<'m>(func: Function<'m>, integers: &HashSet<Inst<'m>>) {
    let mut in_web = HashSet::new();
    let mut webs = Vec::new();
    for (load, bits) in integer_loads(func) {
        if in_web.contains(&load) || bits % 8 != 0 {
            continue;
        }
        if let Some(web) = copy_web(load, bits / 8) {
            in_web.extend(web.loads.iter().copied());
            if !web.loads.iter().any(|l| integers.contains(l)) {
                webs.push(web);
            }
        }
    }
    if webs.is_empty() {
        return;
    }
    let mut writes: Option<(Vec<(Inst<'m>, Written<'m>)>, Order<'m>)> = None;
    for web in webs {
        if let ([load], []) = (&web.loads[..], &web.merges[..]) {
            let (writes, order) = writes.get_or_insert_with(|| (writes_of(func), Order::new(func)));
            if stores_may_read_source(*load, &web.stores, writes, order) {
                copy_directly(*load, &web.stores, web.bytes);
                continue;
            }
        }
        if web.merges.iter().all(|m| phi_copies_fit(*m)) {
            copy_through_temporaries(func, &web);
        }
    }
}

/// The simple (neither volatile nor atomic) loads of an integer or of a
/// fixed vector of integers in `func`, with their widths in bits.
fn integer_loads<'m>(func: Function<'m>) -> Vec<(Inst<'m>, u32)> {
    let mut out = Vec::new();
    for b in func.blocks() {
        for load in b.instructions() {
            if load.opcode() != Some(LLVMOpcode::LLVMLoad) || !load.is_simple_access() {
                continue;
            }
            let ty = load.ty();
            let bits = match ty.kind() {
                TyKind::Integer(bits) => bits,
                TyKind::Vector if !ty.is_scalable_vector() => match ty.element().kind() {
                    TyKind::Integer(bits) => bits * ty.len() as u32,
                    _ => continue,
                },
                _ => continue,
            };
            out.push((load, bits));
        }
    }
    out
}

/// The copy web of `load` (of `bytes` bytes), if every member's every use
/// is a store of it or another member, every merged value is a member, no
/// load is typed as an integer by `!tbaa`, and there is a store.
fn copy_web<'m>(load: Inst<'m>, bytes: u32) -> Option<Web<'m>> {
    let mut web = Web {
        loads: Vec::new(),
        merges: Vec::new(),
        stores: Vec::new(),
        bytes,
    };
    let mut seen: HashSet<Inst<'m>> = HashSet::new();
    let mut todo = vec![load];
    while let Some(v) = todo.pop() {
        if !seen.insert(v) {
            continue;
        }
        // What v is built from.
        match v.opcode() {
            Some(LLVMOpcode::LLVMLoad) => {
                // A load that C typed as an integer (`long`) reads integer data.
                if !v.is_simple_access() || tbaa_access_type(v) == Some(ConcreteType::Integer) {
                    return None;
                }
                web.loads.push(v);
            }
            Some(LLVMOpcode::LLVMPHI) => {
                for (x, _) in v.incoming() {
                    todo.push(x.as_inst()?);
                }
                web.merges.push(v);
            }
            Some(LLVMOpcode::LLVMSelect) => {
                todo.push(v.operand(1).as_inst()?);
                todo.push(v.operand(2).as_inst()?);
                web.merges.push(v);
            }
            _ => return None,
        }
        // What uses v.
        for u in v.users() {
            let u = u.as_inst()?;
            match u.opcode() {
                Some(LLVMOpcode::LLVMStore)
                    if u.operand(0) == v.as_value() && u.is_simple_access() =>
                {
                    if !web.stores.contains(&u) {
                        web.stores.push(u);
                    }
                }
                Some(LLVMOpcode::LLVMPHI) => todo.push(u),
                Some(LLVMOpcode::LLVMSelect) if u.operand(0) != v.as_value() => todo.push(u),
                _ => return None,
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
        !between
            || match written {
                Written::Nothing => true,
                Written::Objects(objs) => !may_point_into(load.operand(0), objs),
                Written::Anything => false,
            }
    })
}

/// Each store of `load`'s value becomes `memmove(q, p, bytes)`.
fn copy_directly<'m>(load: Inst<'m>, stores: &[Inst<'m>], bytes: u32) {
    let ctx = load.context();
    let fb = Builder::new(ctx);
    for store in stores {
        fb.position_before(*store);
        let size = fb.const_int(Ty::int(ctx, 64), i64::from(bytes));
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

/// Rewrites `web` through stack temporaries (module doc).
fn copy_through_temporaries<'m>(func: Function<'m>, web: &Web<'m>) {
    let ctx = func.context();
    let fb = Builder::new(ctx);
    let size = |fb: &Builder<'m>| fb.const_int(Ty::int(ctx, 64), i64::from(web.bytes));
    let entry_start = func
        .entry_block()
        .first_non_phi()
        .expect("a block has a terminator");
    let temporary = |name: &str| {
        fb.position_before(entry_start);
        fb.alloca(Ty::int(ctx, 8).array(u64::from(web.bytes)), name)
    };
    // Where each member's bytes are: a temporary of its own for loads and
    // phis, a select of its operands' places for selects.
    let mut place: HashMap<Value<'m>, Value<'m>> = HashMap::new();
    for load in &web.loads {
        let tmp = temporary("int_copy");
        fb.position_before(*load);
        fb.memcpy(tmp, load.operand(0), size(&fb));
        place.insert(load.as_value(), tmp);
    }
    let phis: Vec<Inst<'m>> = web
        .merges
        .iter()
        .copied()
        .filter(|m| m.opcode() == Some(LLVMOpcode::LLVMPHI))
        .collect();
    for phi in &phis {
        place.insert(phi.as_value(), temporary("int_copy"));
    }
    let ptr = place[&web.loads[0].as_value()].ty();
    let selects: Vec<Inst<'m>> = web
        .merges
        .iter()
        .copied()
        .filter(|m| m.opcode() == Some(LLVMOpcode::LLVMSelect))
        .collect();
    for s in &selects {
        fb.position_before(*s);
        let poison = fb.poison(ptr);
        place.insert(s.as_value(), fb.select(s.operand(0), poison, poison));
    }
    for s in &selects {
        let sel = place[&s.as_value()].as_inst().expect("built above");
        sel.set_operand(1, place[&s.operand(1)]);
        sel.set_operand(2, place[&s.operand(2)]);
    }
    // Each phi copies from the place of its incoming value, all phis of a
    // block together: through a staging temporary each when there are
    // several (one may take another's old value).
    let mut blocks = Vec::new();
    for p in &phis {
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
        let first = block.first_non_phi().expect("a block has a terminator");
        fb.position_before(first);
        let mut from = Vec::new();
        for phi in &here {
            let addr = fb.phi(ptr, "int_copy_from");
            for (x, pred) in phi.incoming() {
                addr.add_incoming(place[&x], pred);
            }
            from.push(addr.as_value());
        }
        if here.len() > 1 {
            for f in from.iter_mut() {
                let stage = temporary("int_copy_stage");
                fb.position_before(first);
                fb.memcpy(stage, *f, size(&fb));
                *f = stage;
            }
        }
        for (phi, f) in here.iter().zip(from) {
            fb.position_before(first);
            fb.memcpy(place[&phi.as_value()], f, size(&fb));
        }
    }
    for store in &web.stores {
        fb.position_before(*store);
        fb.memmove(store.operand(1), place[&store.operand(0)], size(&fb));
        store.erase();
    }
    for m in &web.merges {
        m.as_value().replace_all_uses_with(fb.poison(m.ty()));
    }
    for m in &web.merges {
        m.erase();
    }
    for load in &web.loads {
        load.erase();
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
