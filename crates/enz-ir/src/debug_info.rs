//! Source locations for the code enz-rs writes.
//!
//! A derivative is made of the primal's instructions (cloned into the
//! forward sweep) and of new ones (adjoints, caches, loop bookkeeping). So
//! that a profiler, a debugger or a sanitizer can point at the source line
//! a derivative instruction comes from, every function enz-rs makes from a
//! function with debug information gets a subprogram of its own (named
//! after it, artificial, in the primal's file and compile unit), and the
//! primal's locations in it are rewritten as if the primal had been
//! inlined into it: each location keeps its line, column and scope, and
//! its chain of inlined-at locations ends in a location of the new
//! subprogram. That is what LLVM's own inliner does, so the scopes of the
//! primal (its lexical blocks) need no copy, and the module verifies:
//! every `!dbg` of a function with a subprogram leads back to it.
//!
//! Calls without a location in a function with a subprogram get one at
//! line 0 of it (LLVM requires a location on a call that may be inlined,
//! and a derivative's callees have subprograms now too).

use crate::{Function, Inst, Module};
use llvm_sys::core::*;
use llvm_sys::debuginfo::*;
use llvm_sys::prelude::*;
use std::collections::HashMap;

/// The subprogram attached to `f`, if any (opaque: only compared).
fn subprogram(f: Function<'_>) -> Option<LLVMMetadataRef> {
    let sp = unsafe { LLVMGetSubprogram(f.0 .0) };
    (!sp.is_null()).then_some(sp)
}

/// The operands of metadata node `md` (null where an operand is).
fn md_operands(ctx: LLVMContextRef, md: LLVMMetadataRef) -> Vec<LLVMMetadataRef> {
    // SAFETY: `md` is a node of `ctx`; the operand buffer has its length.
    unsafe {
        let v = LLVMMetadataAsValue(ctx, md);
        let n = LLVMGetMDNodeNumOperands(v) as usize;
        let mut ops: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); n];
        LLVMGetMDNodeOperands(v, ops.as_mut_ptr());
        ops.into_iter()
            .map(|o| {
                if o.is_null() {
                    std::ptr::null_mut()
                } else {
                    LLVMValueAsMetadata(o)
                }
            })
            .collect()
    }
}

/// Rewrites the locations of one function; memoised per location node.
struct Rewriter {
    ctx: LLVMContextRef,
    /// The subprogram each scope belongs to.
    scope_sp: HashMap<LLVMMetadataRef, Option<LLVMMetadataRef>>,
}

impl Rewriter {
    /// The subprogram local scope `scope` (a subprogram or a lexical block
    /// in one) belongs to.
    fn subprogram_of_scope(&mut self, scope: LLVMMetadataRef) -> Option<LLVMMetadataRef> {
        if let Some(sp) = self.scope_sp.get(&scope) {
            return *sp;
        }
        let mut s = scope;
        let mut found = None;
        for _ in 0..256 {
            if s.is_null() {
                break;
            }
            // SAFETY: `s` is a metadata node of this context.
            match unsafe { LLVMGetMetadataKind(s) } {
                LLVMMetadataKind::LLVMDISubprogramMetadataKind => {
                    found = Some(s);
                    break;
                }
                LLVMMetadataKind::LLVMDILexicalBlockMetadataKind
                | LLVMMetadataKind::LLVMDILexicalBlockFileMetadataKind => {
                    // A lexical block's operands: file, parent scope, ...
                    s = md_operands(self.ctx, s)
                        .get(1)
                        .copied()
                        .unwrap_or(std::ptr::null_mut());
                }
                _ => break,
            }
        }
        self.scope_sp.insert(scope, found);
        found
    }

    /// The subprogram location `loc` finally belongs to: its scope's, or
    /// that of the last location of its inlined-at chain.
    fn subprogram_of_location(&mut self, loc: LLVMMetadataRef) -> Option<LLVMMetadataRef> {
        let mut l = loc;
        for _ in 0..4096 {
            // SAFETY: `l` is a DILocation.
            let at = unsafe { LLVMDILocationGetInlinedAt(l) };
            if at.is_null() {
                break;
            }
            l = at;
        }
        // SAFETY: as above.
        self.subprogram_of_scope(unsafe { LLVMDILocationGetScope(l) })
    }

    /// `loc` with `call` appended to the end of its inlined-at chain.
    fn inlined_into(
        &self,
        loc: LLVMMetadataRef,
        call: LLVMMetadataRef,
        memo: &mut HashMap<LLVMMetadataRef, LLVMMetadataRef>,
    ) -> LLVMMetadataRef {
        if let Some(m) = memo.get(&loc) {
            return *m;
        }
        // SAFETY: `loc` is a DILocation; the new one is made in its context.
        let new = unsafe {
            let at = LLVMDILocationGetInlinedAt(loc);
            let at = if at.is_null() {
                call
            } else {
                self.inlined_into(at, call, memo)
            };
            LLVMDIBuilderCreateDebugLocation(
                self.ctx,
                LLVMDILocationGetLine(loc),
                LLVMDILocationGetColumn(loc),
                LLVMDILocationGetScope(loc),
                at,
            )
        };
        memo.insert(loc, new);
        new
    }
}

impl Rewriter {
    /// The `!llvm.loop` node of `i` with its locations (where the loop
    /// starts and ends) rewritten as inlined into subprogram `sp` at
    /// `call` like the instructions' (the verifier checks them too): a new
    /// distinct node, made once per old one.
    fn rewrite_loop_locations(
        &mut self,
        i: Inst<'_>,
        kind: u32,
        sp: LLVMMetadataRef,
        call: LLVMMetadataRef,
        memo: &mut HashMap<LLVMMetadataRef, LLVMMetadataRef>,
        loops: &mut HashMap<LLVMMetadataRef, LLVMMetadataRef>,
    ) {
        // SAFETY: `i` is an instruction; the metadata read and made is of
        // its context.
        unsafe {
            let v = LLVMGetMetadata(i.0 .0, kind);
            if v.is_null() {
                return;
            }
            let node = LLVMValueAsMetadata(v);
            let new = match loops.get(&node) {
                Some(n) => *n,
                None => {
                    let ops = md_operands(self.ctx, node);
                    let mut changed = false;
                    let mut new_ops = Vec::with_capacity(ops.len());
                    for op in ops.iter().skip(1) {
                        let is_loc = !op.is_null()
                            && matches!(
                                LLVMGetMetadataKind(*op),
                                LLVMMetadataKind::LLVMDILocationMetadataKind
                            );
                        if is_loc && self.subprogram_of_location(*op) != Some(sp) {
                            new_ops.push(self.inlined_into(*op, call, memo));
                            changed = true;
                        } else {
                            new_ops.push(*op);
                        }
                    }
                    let n = if changed {
                        // A loop node refers to itself: made through a
                        // temporary first operand (LLVM makes the node
                        // distinct when it becomes its own operand).
                        let temp = LLVMTemporaryMDNode(self.ctx, std::ptr::null_mut(), 0);
                        new_ops.insert(0, temp);
                        let n = LLVMMDNodeInContext2(self.ctx, new_ops.as_mut_ptr(), new_ops.len());
                        LLVMMetadataReplaceAllUsesWith(temp, n);
                        n
                    } else {
                        node
                    };
                    loops.insert(node, n);
                    n
                }
            };
            if new != node {
                LLVMSetMetadata(i.0 .0, kind, LLVMMetadataAsValue(self.ctx, new));
            }
        }
    }
}

/// A new artificial subprogram for `f`, in the file and compile unit of
/// subprogram `like` and at its line.
fn new_subprogram(module: Module<'_>, f: Function<'_>, like: LLVMMetadataRef) -> LLVMMetadataRef {
    let ctx = module.context().0;
    let name = f.name();
    // SAFETY: a DIBuilder on `module`, disposed before returning; `like`
    // is a subprogram definition of this module.
    unsafe {
        let file = LLVMDIScopeGetFile(like);
        let line = LLVMDISubprogramGetLine(like);
        let b = LLVMCreateDIBuilderDisallowUnresolved(module.0);
        let ty =
            LLVMDIBuilderCreateSubroutineType(b, file, std::ptr::null_mut(), 0, LLVMDIFlagZero);
        let internal = LLVMGetLinkage(f.0 .0) == llvm_sys::LLVMLinkage::LLVMInternalLinkage
            || LLVMGetLinkage(f.0 .0) == llvm_sys::LLVMLinkage::LLVMPrivateLinkage;
        let sp = LLVMDIBuilderCreateFunction(
            b,
            file,
            name.as_ptr() as *const _,
            name.len(),
            name.as_ptr() as *const _,
            name.len(),
            file,
            line,
            ty,
            internal as LLVMBool,
            1,
            line,
            LLVMDIFlagArtificial,
            1,
        );
        // A DIBuilder without a compile unit of its own leaves the unit
        // empty: the subprogram's sixth operand is its unit.
        const UNIT: u32 = 5;
        if let Some(unit) = md_operands(ctx, like).get(UNIT as usize).copied() {
            if !unit.is_null() {
                LLVMReplaceMDNodeOperandWith(LLVMMetadataAsValue(ctx, sp), UNIT, unit);
            }
        }
        LLVMDIBuilderFinalizeSubprogram(b, sp);
        LLVMDisposeDIBuilder(b);
        sp
    }
}

/// Makes the locations of function `f` valid for it and useful: where `f`
/// has no subprogram and `may_adopt` (a function enz-rs made), it gets one
/// modelled on the subprogram its located instructions come from; then
/// every location that does not lead back to `f`'s subprogram is
/// rewritten as inlined into it, and calls without a location get line 0
/// of it. A function without a subprogram that cannot get one keeps no
/// locations; one that is not enz-rs's is left alone. Returns whether `f`
/// has a subprogram afterwards.
pub fn adopt_locations(f: Function<'_>, may_adopt: bool) -> bool {
    let module = f.global_parent();
    let ctx = module.context().0;
    let insts: Vec<Inst<'_>> = f.blocks().iter().flat_map(|b| b.instructions()).collect();
    let mut rw = Rewriter {
        ctx,
        scope_sp: HashMap::new(),
    };
    let loc_of = |i: Inst<'_>| {
        // SAFETY: `i` is an instruction.
        let l = unsafe { LLVMInstructionGetDebugLoc(i.0 .0) };
        (!l.is_null()).then_some(l)
    };
    let sp = match subprogram(f) {
        Some(sp) => sp,
        None if !may_adopt => return false,
        None => {
            let like = insts
                .iter()
                .filter_map(|i| loc_of(*i))
                .find_map(|l| rw.subprogram_of_location(l));
            let Some(like) = like else {
                for i in &insts {
                    i.clear_debug_loc();
                }
                return false;
            };
            let sp = new_subprogram(module, f, like);
            // SAFETY: `sp` is a distinct subprogram definition made for `f`.
            unsafe { LLVMSetSubprogram(f.0 .0, sp) };
            sp
        }
    };
    // SAFETY: `sp` is `f`'s subprogram; the locations are made in `ctx`.
    let (call_site, line0) = unsafe {
        let line = LLVMDISubprogramGetLine(sp);
        (
            LLVMDIBuilderCreateDebugLocation(ctx, line, 0, sp, std::ptr::null_mut()),
            LLVMDIBuilderCreateDebugLocation(ctx, 0, 0, sp, std::ptr::null_mut()),
        )
    };
    let mut memo = HashMap::new();
    let mut loops = HashMap::new();
    // SAFETY: the kind name is a plain string.
    let loop_kind = unsafe { LLVMGetMDKindIDInContext(ctx, c"llvm.loop".as_ptr(), 9) };
    for i in insts {
        rw.rewrite_loop_locations(i, loop_kind, sp, call_site, &mut memo, &mut loops);
        match loc_of(i) {
            Some(l) => {
                if rw.subprogram_of_location(l) != Some(sp) {
                    let new = rw.inlined_into(l, call_site, &mut memo);
                    // SAFETY: `new` leads back to `f`'s subprogram.
                    unsafe { LLVMInstructionSetDebugLoc(i.0 .0, new) };
                }
            }
            None => {
                if i.called_value().is_some() {
                    // SAFETY: as above.
                    unsafe { LLVMInstructionSetDebugLoc(i.0 .0, line0) };
                }
            }
        }
    }
    true
}

impl<'m> crate::Builder<'m> {
    /// Gives the instructions built from now on the location of `like`
    /// (none if `like` has none); `None` clears it.
    pub fn set_location_of(&self, like: Option<Inst<'m>>) {
        // SAFETY: the location is an instruction's own (or null).
        unsafe {
            let loc = like.map_or(std::ptr::null_mut(), |i| LLVMInstructionGetDebugLoc(i.0 .0));
            LLVMSetCurrentDebugLocation2(self.raw, loc);
        }
    }
}
