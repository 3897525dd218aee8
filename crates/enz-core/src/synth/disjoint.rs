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
