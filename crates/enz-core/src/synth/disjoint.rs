//! Primal memory and shadow memory are disjoint (a shadow is memory of its
//! own: a `dup` argument's, a shadow allocation, a shadow global), and a
//! derivative says so to LLVM: every load and store of a finished
//! derivative whose address is known to be primal, or known to be shadow,
//! goes into one of two scopes of a scoped-alias domain (`!alias.scope`,
//! `!noalias`). Without it, a loop that reads `x[i]` and accumulates into
//! `dx[i]` is vectorised behind a run-time overlap check of the two, or
//! not at all.
//!
//! An address is primal when it is derived (GEPs, casts, phis and selects
//! that agree) from a forward-sweep clone of a primal pointer, or from a
//! pointer loaded from primal memory; shadow likewise from a shadow
//! pointer. Anything else (the tape, loop caches, integer addresses, a
//! value that is both) is left untagged.

use crate::ir::{Function, LLVMOpcode, ScopePair, TyKind, Value, ValueMap};
use std::collections::{HashMap, HashSet};

/// The clones (under `map`) of `prep`'s pointer parameters and pointer
/// instructions, and the globals it uses: the primal pointers of a
/// derivative of `prep`.
pub(crate) fn primal_pointers<'m>(prep: Function<'m>, map: &ValueMap<'m>) -> HashSet<Value<'m>> {
    let mut primal: HashSet<Value<'m>> = prep.params().into_iter().map(|p| map.get(p)).collect();
    for b in prep.blocks() {
        for i in b.instructions() {
            if i.ty().kind() == TyKind::Pointer {
                primal.insert(map.get(i));
            }
            for k in 0..i.num_operands() {
                let o = i.operand(k);
                if o.is_global_variable() {
                    primal.insert(o);
                }
            }
        }
    }
    primal
}

/// The memory an address points into.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Memory {
    Primal,
    Shadow,
}

/// Tags the loads and stores of `f` whose addresses are known primal
/// (derived from `primal`) or known shadow (derived from `shadow`).
pub(crate) fn tag<'m>(f: Function<'m>, primal: &HashSet<Value<'m>>, shadow: &HashSet<Value<'m>>) {
    let mut classes = Classes {
        primal,
        shadow,
        memo: HashMap::new(),
    };
    let scopes = ScopePair::new(f.context(), &format!("enz-rs {}: primal, shadow", f.name()));
    for b in f.blocks() {
        for i in b.instructions() {
            let address = match i.opcode() {
                Some(LLVMOpcode::LLVMLoad) => i.operand(0),
                Some(LLVMOpcode::LLVMStore) => i.operand(1),
                _ => continue,
            };
            match classes.of(address) {
                Some(Memory::Primal) => scopes.tag(i, 0),
                Some(Memory::Shadow) => scopes.tag(i, 1),
                None => {}
            }
        }
    }
}

/// What is known of each address: `None` unknown; `Some(None)` while a
/// phi is being classified (an incoming value of its own cycle adds
/// nothing).
struct Classes<'a, 'm> {
    primal: &'a HashSet<Value<'m>>,
    shadow: &'a HashSet<Value<'m>>,
    memo: HashMap<Value<'m>, Option<Option<Memory>>>,
}

impl<'m> Classes<'_, 'm> {
    fn of(&mut self, p: Value<'m>) -> Option<Memory> {
        match self.memo.get(&p) {
            Some(Some(known)) => return *known,
            Some(None) => return None,
            None => {}
        }
        self.memo.insert(p, None);
        let class = self.classify(p);
        self.memo.insert(p, Some(class));
        class
    }

    /// Like [`Classes::of`], but a value in the middle of being classified
    /// (a phi's own cycle) reads as "agrees with anything".
    fn of_incoming(&mut self, p: Value<'m>) -> Result<Option<Memory>, ()> {
        match self.memo.get(&p) {
            Some(None) => Err(()),
            _ => Ok(self.of(p)),
        }
    }

    fn classify(&mut self, p: Value<'m>) -> Option<Memory> {
        let (in_primal, in_shadow) = (self.primal.contains(&p), self.shadow.contains(&p));
        match (in_primal, in_shadow) {
            (true, false) => return Some(Memory::Primal),
            (false, true) => return Some(Memory::Shadow),
            (true, true) => return None,
            (false, false) => {}
        }
        match p.opcode()? {
            LLVMOpcode::LLVMGetElementPtr
            | LLVMOpcode::LLVMBitCast
            | LLVMOpcode::LLVMAddrSpaceCast => self.of(p.operand(0)),
            // A pointer read from primal memory points into primal memory,
            // one read from shadow memory into shadow memory.
            LLVMOpcode::LLVMLoad if p.is_instruction() => self.of(p.operand(0)),
            LLVMOpcode::LLVMSelect => {
                let (a, b) = (self.of(p.operand(1))?, self.of(p.operand(2))?);
                (a == b).then_some(a)
            }
            LLVMOpcode::LLVMPHI if p.is_instruction() => {
                let mut agreed: Option<Memory> = None;
                for (v, _) in p.as_inst()?.incoming() {
                    match self.of_incoming(v) {
                        Err(()) => continue,
                        Ok(None) => return None,
                        Ok(Some(c)) => match agreed {
                            None => agreed = Some(c),
                            Some(a) if a != c => return None,
                            Some(_) => {}
                        },
                    }
                }
                agreed
            }
            _ => None,
        }
    }
}

/// Tags the accesses of split-mode reverse function `f`: the loads of its
/// tape (addresses `tape + offset`) and of the loop caches the tape points
/// to (addresses derived from a pointer loaded from one of the `holders`'
/// offsets) in one scope, its stores (but to stack slots) in the other. The
/// reverse function writes neither (the augmented forward function filled
/// them), so LLVM may keep a cache's data pointer, read once, across the
/// shadow stores of a loop instead of reading it again for every value.
pub(crate) fn tag_tape<'m>(f: Function<'m>, tape: Value<'m>, holders: &HashSet<u64>) {
    let scopes = ScopePair::new(f.context(), &format!("enz-rs {}: tape, rest", f.name()));
    for b in f.blocks() {
        for i in b.instructions() {
            // Tape reads in one scope, stores (but to the stack, which
            // LLVM tells apart itself) in the other: what matters is that
            // no store clobbers a tape read.
            match i.opcode() {
                Some(LLVMOpcode::LLVMLoad) if in_tape(i.operand(0), tape, holders) => {
                    scopes.tag(i, 0)
                }
                Some(LLVMOpcode::LLVMStore)
                    if strip_geps(i.operand(1)).opcode() != Some(LLVMOpcode::LLVMAlloca) =>
                {
                    scopes.tag(i, 1)
                }
                _ => {}
            }
        }
    }
}

/// Whether address `p` is in the tape or a loop cache (see [`tag_tape`]).
fn in_tape<'m>(p: Value<'m>, tape: Value<'m>, holders: &HashSet<u64>) -> bool {
    let base = strip_geps(p);
    if base == tape {
        return true;
    }
    // A cache's data pointer: loaded from a holder slot of the tape.
    base.opcode() == Some(LLVMOpcode::LLVMLoad)
        && base.is_instruction()
        && tape_offset(base.operand(0), tape).is_some_and(|off| holders.contains(&off))
}

/// `p` without the GEPs and casts in front of it.
fn strip_geps(mut p: Value<'_>) -> Value<'_> {
    while matches!(
        p.opcode(),
        Some(LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast)
    ) && p.is_instruction()
    {
        p = p.operand(0);
    }
    p
}

/// The constant byte offset of `p` from `tape` (`tape` itself, or one
/// byte GEP of a constant).
fn tape_offset<'m>(p: Value<'m>, tape: Value<'m>) -> Option<u64> {
    if p == tape {
        return Some(0);
    }
    if p.opcode() != Some(LLVMOpcode::LLVMGetElementPtr)
        || p.num_operands() != 2
        || p.operand(0) != tape
    {
        return None;
    }
    if !p.gep_source_type().is_integer() {
        return None;
    }
    let off = p.operand(1).const_int_sext()?;
    u64::try_from(off).ok()
}
