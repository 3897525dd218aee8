//! Scoped alias metadata (`!alias.scope`, `!noalias`): a domain of two
//! scopes, so that a memory access tagged with one is known not to alias
//! an access tagged with the other. Derivatives use it to tell LLVM that
//! primal memory and shadow memory are disjoint.

use crate::handles::Context;
use crate::inst::Inst;
use llvm_sys::core::{
    LLVMGetMDKindIDInContext, LLVMGetMDNodeNumOperands, LLVMGetMDNodeOperands, LLVMGetMetadata,
    LLVMIsAMDNode, LLVMMDNodeInContext2, LLVMMDStringInContext2, LLVMMetadataAsValue,
    LLVMSetMetadata, LLVMValueAsMetadata,
};
use llvm_sys::prelude::{LLVMMetadataRef, LLVMValueRef};
use std::marker::PhantomData;

/// A domain of two disjoint scopes, `0` and `1`.
#[derive(Copy, Clone, Debug)]
pub struct ScopePair<'m> {
    ctx: Context<'m>,
    scopes: [LLVMMetadataRef; 2],
    _m: PhantomData<&'m ()>,
}

impl<'m> ScopePair<'m> {
    /// A new domain named `name` (scopes are identified by their strings:
    /// `name.0` and `name.1`; the inliner keeps copies apart).
    pub fn new(ctx: Context<'m>, name: &str) -> ScopePair<'m> {
        // SAFETY: nodes made in a live context; the string operands are
        // copied by LLVM.
        unsafe {
            let c = ctx.0;
            let string = |s: &str| LLVMMDStringInContext2(c, s.as_ptr() as *const _, s.len());
            let mut dom = [string(name)];
            let domain = LLVMMDNodeInContext2(c, dom.as_mut_ptr(), 1);
            let scope = |k: u32| {
                let mut ops = [string(&format!("{name}.{k}")), domain];
                LLVMMDNodeInContext2(c, ops.as_mut_ptr(), 2)
            };
            ScopePair {
                ctx,
                scopes: [scope(0), scope(1)],
                _m: PhantomData,
            }
        }
    }

    /// Puts memory access `i` in scope `k` (0 or 1), not aliasing scope
    /// `1 - k`; scope lists it had already are kept.
    pub fn tag(&self, i: Inst<'m>, k: usize) {
        let (mine, other) = (self.scopes[k & 1], self.scopes[(k & 1) ^ 1]);
        self.add(i, "alias.scope", mine);
        self.add(i, "noalias", other);
    }

    fn add(&self, i: Inst<'m>, kind: &str, scope: LLVMMetadataRef) {
        // SAFETY: `i` is a live instruction of this context; the list is
        // rebuilt from the old one's operands plus `scope`.
        unsafe {
            let c = self.ctx.0;
            let id = LLVMGetMDKindIDInContext(c, kind.as_ptr() as *const _, kind.len() as u32);
            let raw: LLVMValueRef = i.as_value().0;
            let mut ops: Vec<LLVMMetadataRef> = Vec::new();
            let old = LLVMGetMetadata(raw, id);
            if !old.is_null() && !LLVMIsAMDNode(old).is_null() {
                let n = LLVMGetMDNodeNumOperands(old) as usize;
                let mut vals: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); n];
                LLVMGetMDNodeOperands(old, vals.as_mut_ptr());
                ops.extend(
                    vals.into_iter()
                        .filter(|v| !v.is_null())
                        .map(|v| LLVMValueAsMetadata(v)),
                );
            }
            if !ops.contains(&scope) {
                ops.push(scope);
            }
            let list = LLVMMDNodeInContext2(c, ops.as_mut_ptr(), ops.len());
            LLVMSetMetadata(raw, id, LLVMMetadataAsValue(c, list));
        }
    }
}
