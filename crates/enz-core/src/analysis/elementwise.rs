//! Elementwise loops, for mixed mode (`synth/mixed.rs`): an innermost
//! loop whose iteration reads some floats from memory, computes, and
//! writes some floats back, carrying nothing to the next iteration but its
//! induction variables. Its Jacobian is block diagonal: per iteration, the
//! partials of the M values it stores with respect to the N values it
//! loads (and the floats from before the loop it uses), which forward mode
//! computes in the forward sweep; the reverse sweep then needs only those
//! M·N partials per iteration instead of every intermediate value.
//!
//! A loop qualifies (`find`) when:
//! - it contains no loop, and its header phis are integer or pointer
//!   induction variables (a constant step, or an integer one's step
//!   defined before the loop: a grid-stride loop);
//! - no value of it is used after it;
//! - its float loads and stores run in every iteration (their blocks
//!   dominate the latch) and every load comes before every store (an
//!   iteration's stores depend on its loads only: no store then load of
//!   the same memory within an iteration; across iterations, memory flows
//!   as in reverse mode, since each iteration's reverse is its own);
//! - it stores nothing but floats, and calls nothing but math functions
//!   and intrinsics that write no memory;
//! - (with `--mode-per-loop=auto`) mixed mode caches at most half: 2·M·N
//!   is at most the number of values reverse mode would cache per
//!   iteration (math calls, float phis and selects, divisions).

use super::calls::CallKinds;
use super::cfg::Cfg;
use super::loops::{LoopId, LoopNest};
use super::outlining::{is_pure_call, stays_in_its_function};
use crate::ir::{Inst, LLVMOpcode, TyKind, Value};

/// An elementwise loop.
#[derive(Debug)]
pub(crate) struct Elementwise<'m> {
    pub(crate) lp: LoopId,
    /// Its float loads (inputs).
    pub(crate) loads: Vec<Inst<'m>>,
    /// Float loads only compared (flags: no derivative flows from them).
    pub(crate) flags: Vec<Inst<'m>>,
    /// Its float stores (outputs); the first runs before the others.
    pub(crate) stores: Vec<Inst<'m>>,
    /// Floats from before the loop it uses (more inputs).
    pub(crate) invariants: Vec<Value<'m>>,
    /// What reverse mode would cache per iteration (see the module).
    pub(crate) intermediates: usize,
}

/// The elementwise loops of a function: all (`everywhere`), or those where
/// mixed mode caches at most half the values reverse mode would.
pub(crate) fn find<'m>(
    cfg: &Cfg<'m>,
    loops: &LoopNest<'m>,
    kinds: &CallKinds<'m>,
    everywhere: bool,
) -> Vec<Elementwise<'m>> {
    loops
        .ids()
        .filter(|l| !loops.ids().any(|m| loops.get(m).parent == Some(*l)))
        .filter_map(|l| elementwise(cfg, loops, kinds, l))
        .filter(|e| {
            let partials = e.stores.len() * (e.loads.len() + e.invariants.len());
            everywhere || 2 * partials <= e.intermediates
        })
        .collect()
}

fn elementwise<'m>(
    cfg: &Cfg<'m>,
    loops: &LoopNest<'m>,
    kinds: &CallKinds<'m>,
    l: LoopId,
) -> Option<Elementwise<'m>> {
    let lp = loops.get(l);
    let ivs: Vec<Value> = loops
        .affine_ivs(l)
        .iter()
        .map(|iv| iv.phi.as_value())
        .chain(loops.strided_ivs(l).iter().map(|iv| iv.phi.as_value()))
        .collect();
    let inside = |v: Value<'m>| {
        v.as_inst()
            .is_some_and(|i| lp.blocks.contains(&i.parent_block()))
    };
    let every_iteration = |i: Inst<'m>| cfg.dominates(i.parent_block(), lp.latch);
    let mut loads = Vec::new();
    let mut stores: Vec<Inst> = Vec::new();
    let mut invariants: Vec<Value> = Vec::new();
    let mut intermediates = 0usize;
    for b in &lp.ordered {
        for i in b.instructions() {
            let v = i.as_value();
            if v.users().iter().any(|u| !inside(*u)) {
                return None;
            }
            let op = i.opcode()?;
            let data = match op {
                LLVMOpcode::LLVMCall => i.call_num_args(),
                LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMBr | LLVMOpcode::LLVMSwitch => 0,
                _ => i.num_operands(),
            };
            for k in 0..data {
                let o = i.operand(k);
                let outer = !inside(o) && !o.is_constant() && !o.is_block_value();
                if outer && o.ty().is_fp_scalar() && !invariants.contains(&o) {
                    invariants.push(o);
                }
            }
            if op == LLVMOpcode::LLVMPHI {
                for (x, _) in i.incoming() {
                    if !inside(x) && !x.is_constant() && x.ty().is_fp_scalar() {
                        // A float from before the loop entering a join.
                        if !invariants.contains(&x) {
                            invariants.push(x);
                        }
                    }
                }
            }
            match op {
                LLVMOpcode::LLVMPHI if *b == lp.header && !ivs.contains(&v) => return None,
                LLVMOpcode::LLVMPHI if *b == lp.header => {}
                LLVMOpcode::LLVMLoad if v.ty().is_fp_scalar() => {
                    if !i.is_simple_access() {
                        return None;
                    }
                    loads.push(i);
                }
                LLVMOpcode::LLVMLoad if !i.is_simple_access() || v.ty().carries_float() => {
                    return None
                }
                LLVMOpcode::LLVMLoad => {}
                LLVMOpcode::LLVMStore => {
                    let stored = i.operand(0);
                    if !stored.ty().is_fp_scalar() || !i.is_simple_access() || !every_iteration(i) {
                        return None;
                    }
                    stores.push(i);
                }
                LLVMOpcode::LLVMCall => {
                    if !is_pure_call(i, kinds.get(v)) || v.ty().kind() == TyKind::Struct {
                        return None;
                    }
                    if v.ty().is_fp_scalar() && !f_is_fmuladd(i) {
                        intermediates += 1;
                    }
                }
                LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMSelect if v.ty().is_fp_scalar() => {
                    intermediates += 1;
                }
                LLVMOpcode::LLVMFDiv | LLVMOpcode::LLVMFRem => intermediates += 1,
                op if stays_in_its_function(op) => return None,
                LLVMOpcode::LLVMExtractValue | LLVMOpcode::LLVMInsertValue => return None,
                _ if v.ty().kind() == TyKind::Vector && v.ty().carries_float() => return None,
                _ => {}
            }
        }
    }
    if stores.is_empty() || loads.is_empty() && invariants.is_empty() {
        return None;
    }
    // Whether `a` runs before `b` in an iteration (`b` runs in every one).
    let before = |a: Inst<'m>, b: Inst<'m>| {
        let (ba, bb) = (a.parent_block(), b.parent_block());
        if ba == bb {
            let mut at = Some(a);
            while let Some(x) = at {
                if x == b {
                    return true;
                }
                at = x.next_instruction();
            }
            false
        } else {
            cfg.dominates(ba, bb)
        }
    };
    // No load may run after a store in the iteration: none is in a block
    // the stores' blocks reach without the back edge (or after one in its
    // block).
    let mut after_stores = std::collections::HashSet::new();
    let mut work: Vec<crate::ir::Block> = stores
        .iter()
        .flat_map(|s| s.parent_block().successors())
        .collect();
    while let Some(b) = work.pop() {
        if b == lp.header || !lp.blocks.contains(&b) || !after_stores.insert(b) {
            continue;
        }
        work.extend(b.successors());
    }
    for ld in &loads {
        let late = after_stores.contains(&ld.parent_block())
            || stores
                .iter()
                .any(|st| st.parent_block() == ld.parent_block() && before(*st, *ld));
        if late {
            return None;
        }
    }
    // The store that runs first, first.
    let first = *stores
        .iter()
        .find(|s| stores.iter().all(|t| before(**s, *t)))?;
    stores.retain(|s| *s != first);
    stores.insert(0, first);
    // Loads only compared carry no derivative: not inputs.
    let compared_only = |v: Value<'m>| {
        v.users()
            .iter()
            .all(|u| u.opcode() == Some(LLVMOpcode::LLVMFCmp))
    };
    let (flags, loads): (Vec<Inst>, Vec<Inst>) =
        loads.into_iter().partition(|l| compared_only(l.as_value()));
    invariants.retain(|v| !compared_only(*v));
    Some(Elementwise {
        lp: l,
        loads,
        flags,
        stores,
        invariants,
        intermediates,
    })
}

/// `llvm.fmuladd` (recomputed by reverse mode, like a multiply and add).
fn f_is_fmuladd(i: Inst<'_>) -> bool {
    i.called_function()
        .is_some_and(|f| f.name().starts_with("llvm.fmuladd") || f.name().starts_with("llvm.fma"))
}
