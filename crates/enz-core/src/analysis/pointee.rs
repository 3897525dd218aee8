//! What pointer families point to, as synthesis needs it for memory
//! intrinsics: whether the memory holds floats (and of which type) and
//! whether it holds pointers. Read off the loads, stores and libm-free
//! memory traffic of each family (see `activity` for families); memcpy and
//! memmove merge what their two sides hold.

use super::activity::{is_mem_transfer, Activity};
use crate::ir::{Ty, TyKind, Value};
use llvm_sys::LLVMOpcode;
use std::collections::HashMap;

/// Per-family memory contents.
#[derive(Default, Debug)]
pub(crate) struct MemoryTypes {
    float: HashMap<usize, Ty>,
    pointers: HashMap<usize, bool>,
    family: HashMap<Value, usize>,
}

impl MemoryTypes {
    pub(crate) fn analyse(func: Value, act: &Activity) -> MemoryTypes {
        let mut m = MemoryTypes::default();
        let mut links: Vec<(usize, usize)> = Vec::new();
        for blk in func.blocks() {
            for i in blk.instructions() {
                let (ptr, ty) = match i.opcode() {
                    Some(LLVMOpcode::LLVMLoad) => (i.operand(0), i.ty()),
                    Some(LLVMOpcode::LLVMStore) => (i.operand(1), i.operand(0).ty()),
                    Some(LLVMOpcode::LLVMCall) => {
                        let name = i.called_function().map(|f| f.name()).unwrap_or_default();
                        if is_mem_transfer(&name) {
                            if let (Some(a), Some(b)) =
                                (act.family_of(i.operand(0)), act.family_of(i.operand(1)))
                            {
                                links.push((a, b));
                            }
                        }
                        continue;
                    }
                    _ => continue,
                };
                let Some(f) = act.family_of(ptr) else { continue };
                m.family.insert(ptr, f);
                m.record(f, ty);
            }
        }
        // Memory transfers: each side holds what the other holds.
        for _ in 0..4 {
            for (a, b) in &links {
                for (x, y) in [(*a, *b), (*b, *a)] {
                    if let Some(t) = m.float.get(&y).copied() {
                        m.float.entry(x).or_insert(t);
                    }
                    if m.pointers.get(&y).copied().unwrap_or(false) {
                        m.pointers.insert(x, true);
                    }
                }
            }
        }
        m.family = HashMap::new();
        m.families_from(act, func);
        m
    }

    fn families_from(&mut self, act: &Activity, func: Value) {
        for blk in func.blocks() {
            for i in blk.instructions() {
                for o in i.operands() {
                    if let Some(f) = act.family_of(o) {
                        self.family.insert(o, f);
                    }
                }
                if let Some(f) = act.family_of(i) {
                    self.family.insert(i, f);
                }
            }
        }
        for p in func.params() {
            if let Some(f) = act.family_of(p) {
                self.family.insert(p, f);
            }
        }
    }

    fn record(&mut self, f: usize, ty: Ty) {
        let scalar = match ty.kind() {
            TyKind::Vector | TyKind::Array => ty.element(),
            _ => ty,
        };
        if scalar.is_fp_scalar() {
            self.float.entry(f).or_insert(scalar);
        } else if scalar.kind() == TyKind::Struct {
            for fld in scalar.struct_fields() {
                self.record(f, fld);
            }
        } else if scalar.kind() == TyKind::Pointer {
            self.pointers.insert(f, true);
        }
    }

    /// The float type stored in the memory `p` points to, if any.
    pub(crate) fn pointee_float(&self, p: Value) -> Option<Ty> {
        self.family.get(&p).and_then(|f| self.float.get(f)).copied()
    }

    /// Whether the memory `p` points to holds pointers.
    pub(crate) fn pointee_has_pointer(&self, p: Value) -> bool {
        self.family
            .get(&p)
            .and_then(|f| self.pointers.get(f))
            .copied()
            .unwrap_or(false)
    }
}
