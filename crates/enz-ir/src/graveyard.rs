//! Erasure that leaves no dangling handle.
//!
//! Handles are `Copy` and may sit in maps long after what they name was
//! erased, so erasing never frees: [`crate::Inst::erase`],
//! [`crate::Block::delete`], [`crate::Function::delete_function`] and
//! [`crate::Global::delete_global`] *detach* the object from the module
//! (after dropping its operands and its metadata uses, so that nothing
//! live uses it and it uses nothing) and *bury* it here, alive. A handle to
//! a buried object still points to live memory, and the operations that
//! would reach through it (its block, its operands, positioning a builder
//! at it, erasing it again, replacing uses with it) panic with "stale
//! handle": an internal error, never undefined behaviour.
//!
//! The buried objects are freed only where no handle to them can exist any
//! more: at the end of a scope whose handles cannot escape it
//! ([`crate::Module::scope`], [`crate::Module::with_raw`], and the life of
//! a [`crate::ScratchModule`], whose handles borrow it). What is erased
//! outside such a scope (through [`crate::Module::of`]) is never freed: it
//! stays detached until the process ends (one object per erasure; the
//! command-line tools run inside a scope). An object that a stale handle
//! made used again (as the operand of a new instruction) is not freed
//! either: freeing it would leave that use dangling.
//!
//! The C API has no way to detach a function or global variable from its
//! module, nor to free one that is detached: the two `removeFromParent`
//! members of libLLVM's C++ API (plain non-virtual methods, called with
//! `this` as the only argument) are declared below, and a deleted
//! function's or global's shell is never freed (a few hundred bytes each;
//! a function's body is freed with the scope).

use llvm_sys::core::*;
use llvm_sys::prelude::*;
use std::cell::RefCell;
use std::collections::HashSet;

extern "C" {
    /// `llvm::Function::removeFromParent()`.
    #[link_name = "_ZN4llvm8Function16removeFromParentEv"]
    fn function_remove_from_parent(f: LLVMValueRef);
    /// `llvm::GlobalVariable::removeFromParent()`.
    #[link_name = "_ZN4llvm14GlobalVariable16removeFromParentEv"]
    fn global_remove_from_parent(g: LLVMValueRef);
}

/// A detached object waiting to be freed.
#[derive(Copy, Clone)]
enum Dead {
    Inst(LLVMValueRef),
    /// A block and the function it was in.
    Block(LLVMBasicBlockRef, LLVMValueRef),
    Function(LLVMValueRef),
    Global(LLVMValueRef),
}

/// The objects erased in one scope of one module.
struct Scope {
    module: LLVMModuleRef,
    dead: Vec<Dead>,
}

#[derive(Default)]
struct Graveyard {
    /// Every erased object not yet freed (instructions, blocks as values,
    /// functions, globals), by address: an address is unique while the
    /// object lives, and it is removed here before it is freed.
    erased: HashSet<usize>,
    /// The scopes entered on this thread, innermost last.
    scopes: Vec<Scope>,
}

thread_local! {
    static GRAVEYARD: RefCell<Graveyard> = RefCell::default();
}

/// Whether `v` (an instruction, block value, function or global) was erased.
pub(crate) fn is_erased(v: LLVMValueRef) -> bool {
    GRAVEYARD.with(|g| g.borrow().erased.contains(&(v as usize)))
}

/// Panics with a "stale handle" message when `v` was erased.
pub(crate) fn check_live(v: LLVMValueRef, what: &str) {
    if is_erased(v) {
        stale(what);
    }
}

/// The panic of an operation on an erased object.
pub(crate) fn stale(what: &str) -> ! {
    panic!("internal error: stale handle: {what} (used after it was erased)")
}

/// Keeps the detached object `d` of `module` until the innermost scope of
/// that module ends (forever when there is none).
fn bury(module: LLVMModuleRef, d: Dead) {
    GRAVEYARD.with(|g| {
        let mut g = g.borrow_mut();
        g.erased.insert(d.address());
        if let Some(s) = g.scopes.iter_mut().rev().find(|s| s.module == module) {
            s.dead.push(d);
        }
    });
}

impl Dead {
    fn address(self) -> usize {
        match self {
            Dead::Inst(v) | Dead::Function(v) | Dead::Global(v) => v as usize,
            // SAFETY: a block's value is the block itself.
            Dead::Block(b, _) => (unsafe { LLVMBasicBlockAsValue(b) }) as usize,
        }
    }

    /// Frees the object unless something uses it again (a stale handle
    /// made it an operand): then it stays, detached (and marked erased),
    /// forever. A function or global variable is never freed (the C API
    /// cannot free one outside a module): the body of a function is, its
    /// shell (the function and its parameters, without operands, metadata
    /// or blocks) stays, as does a global's.
    ///
    /// # Safety
    /// No handle to the object may be used afterwards.
    unsafe fn free(self) {
        let unused = match self {
            Dead::Inst(v) => LLVMGetFirstUse(v).is_null(),
            Dead::Global(_) => return,
            Dead::Block(b, _) => {
                LLVMGetFirstUse(LLVMBasicBlockAsValue(b)).is_null() && block_unused(b)
            }
            Dead::Function(f) => {
                let mut unused = LLVMGetFirstUse(f).is_null();
                for k in 0..LLVMCountParams(f) {
                    unused &= LLVMGetFirstUse(LLVMGetParam(f, k)).is_null();
                }
                let mut b = LLVMGetFirstBasicBlock(f);
                while unused && !b.is_null() {
                    unused = LLVMGetFirstUse(LLVMBasicBlockAsValue(b)).is_null() && block_unused(b);
                    b = LLVMGetNextBasicBlock(b);
                }
                unused
            }
        };
        if !unused {
            return;
        }
        match self {
            Dead::Inst(i) => {
                // The address is about to be free for reuse.
                forget(i);
                LLVMDeleteInstruction(i);
            }
            Dead::Block(b, f) => {
                forget(LLVMBasicBlockAsValue(b));
                // Freed as LLVM frees a block: from a function.
                LLVMAppendExistingBasicBlock(f, b);
                LLVMDeleteBasicBlock(b);
            }
            Dead::Function(f) => {
                // The function stays erased (it is not freed); its blocks
                // and instructions are.
                let mut b = LLVMGetFirstBasicBlock(f);
                while !b.is_null() {
                    let next = LLVMGetNextBasicBlock(b);
                    let mut i = LLVMGetFirstInstruction(b);
                    while !i.is_null() {
                        forget(i);
                        i = LLVMGetNextInstruction(i);
                    }
                    LLVMDeleteBasicBlock(b);
                    b = next;
                }
            }
            Dead::Global(_) => {}
        }
    }
}

/// `v`, about to be freed, is no longer erased (its address may be reused).
fn forget(v: LLVMValueRef) {
    GRAVEYARD.with(|g| g.borrow_mut().erased.remove(&(v as usize)));
}

/// Whether no instruction of `b` has a use (the body of an erased function
/// or block has dropped its own operands: any use is from outside).
unsafe fn block_unused(b: LLVMBasicBlockRef) -> bool {
    let mut i = LLVMGetFirstInstruction(b);
    while !i.is_null() {
        if !LLVMGetFirstUse(i).is_null() {
            return false;
        }
        i = LLVMGetNextInstruction(i);
    }
    true
}

/// A scope of `module`: what is erased in it is freed when the guard drops.
/// A scope of a module already in a scope adds nothing (the outer one
/// frees).
pub(crate) struct ScopeGuard {
    module: Option<LLVMModuleRef>,
}

/// Enters a scope of `module`.
pub(crate) fn enter(module: LLVMModuleRef) -> ScopeGuard {
    GRAVEYARD.with(|g| {
        let mut g = g.borrow_mut();
        if g.scopes.iter().any(|s| s.module == module) {
            return ScopeGuard { module: None };
        }
        g.scopes.push(Scope {
            module,
            dead: Vec::new(),
        });
        ScopeGuard {
            module: Some(module),
        }
    })
}

impl Drop for ScopeGuard {
    fn drop(&mut self) {
        let Some(module) = self.module else {
            return;
        };
        let dead = GRAVEYARD.with(|g| {
            let mut g = g.borrow_mut();
            let at = g.scopes.iter().rposition(|s| s.module == module);
            at.map(|k| g.scopes.remove(k).dead).unwrap_or_default()
        });
        for d in dead.into_iter().rev() {
            // SAFETY: the scope's handles are gone (it is ending, and they
            // could not leave it), so nothing can reach the object.
            unsafe { d.free() }
        }
    }
}

/// The module of a function or global (null once detached).
unsafe fn parent_module(v: LLVMValueRef) -> LLVMModuleRef {
    LLVMGetGlobalParent(v)
}

/// Drops every operand of the user `v` (its uses of other values end).
unsafe fn drop_operands(v: LLVMValueRef) {
    let n = LLVMGetNumOperands(v).max(0) as u32;
    for k in 0..n {
        LLVMSetOperand(v, k, std::ptr::null_mut());
    }
}

/// Drops the metadata attached to instruction `i` (but its `!dbg`
/// location), as erasing it would: an `!DIAssignID` leaves the context's
/// table of its instructions.
unsafe fn drop_attachments(i: LLVMValueRef) {
    let mut n = 0usize;
    let entries = LLVMInstructionGetAllMetadataOtherThanDebugLoc(i, &mut n);
    if entries.is_null() {
        return;
    }
    let kinds: Vec<u32> = (0..n as u32)
        .map(|k| LLVMValueMetadataEntriesGetKind(entries, k))
        .collect();
    LLVMDisposeValueMetadataEntries(entries);
    for k in kinds {
        LLVMSetMetadata(i, k, std::ptr::null_mut());
    }
}

/// Erases instruction `i` by detaching it (see the module doc).
pub(crate) fn erase_instruction(i: LLVMValueRef) {
    // SAFETY: `i` is a live instruction handle (checked: in a block, not
    // erased); it is unused, so detaching it leaves no dangling use.
    unsafe {
        let block = LLVMGetInstructionParent(i);
        if block.is_null() || is_erased(i) {
            stale("instruction erased (erase of an erased or never inserted instruction)");
        }
        if !LLVMGetFirstUse(i).is_null() {
            panic!(
                "internal error: erasing an instruction that is still used: {}",
                crate::Value::wrap(i).to_ir()
            );
        }
        let f = LLVMGetBasicBlockParent(block);
        let module = if f.is_null() {
            std::ptr::null_mut()
        } else {
            LLVMGetGlobalParent(f)
        };
        // What deleting it would do to metadata that names it (a debug
        // record's location): it names `poison` instead (LLVM 22).
        let ty = LLVMTypeOf(i);
        if !matches!(
            LLVMGetTypeKind(ty),
            llvm_sys::LLVMTypeKind::LLVMVoidTypeKind | llvm_sys::LLVMTypeKind::LLVMTokenTypeKind
        ) {
            LLVMReplaceAllUsesWith(i, LLVMGetPoison(ty));
        }
        drop_attachments(i);
        drop_operands(i);
        LLVMInstructionRemoveFromParent(i);
        bury(module, Dead::Inst(i));
    }
}

/// Deletes block `b` by detaching it, after erasing its instructions (last
/// first); it must no longer be a branch target.
pub(crate) fn delete_block(b: LLVMBasicBlockRef) {
    // SAFETY: `b` is a block in a function (checked); its instructions are
    // erased one by one, each checked unused.
    unsafe {
        let f = LLVMGetBasicBlockParent(b);
        if f.is_null() {
            stale("block deleted (delete of a deleted block)");
        }
        if !LLVMGetFirstUse(LLVMBasicBlockAsValue(b)).is_null() {
            panic!("internal error: deleting a block that is still a branch target");
        }
        let module = LLVMGetGlobalParent(f);
        let mut i = LLVMGetLastInstruction(b);
        while !i.is_null() {
            let prev = LLVMGetPreviousInstruction(i);
            erase_instruction(i);
            i = prev;
        }
        LLVMRemoveBasicBlockFromParent(b);
        bury(module, Dead::Block(b, f));
    }
}

/// Makes what still uses the global value `v` use `poison` instead.
unsafe fn poison_uses(v: LLVMValueRef) {
    if !LLVMGetFirstUse(v).is_null() {
        LLVMReplaceAllUsesWith(v, LLVMGetPoison(LLVMTypeOf(v)));
    }
}

/// Makes metadata that names the global value `v` (a function or global
/// variable) name nothing, as deleting `v` would: the uses move to a
/// stand-in of the same type, which is deleted.
unsafe fn drop_metadata_uses(v: LLVMValueRef, module: LLVMModuleRef, function: bool) {
    let value_ty = LLVMGlobalGetValueType(v);
    let stand_in = if function {
        LLVMAddFunction(module, c"".as_ptr(), value_ty)
    } else {
        LLVMAddGlobalInAddressSpace(
            module,
            value_ty,
            c"".as_ptr(),
            LLVMGetPointerAddressSpace(LLVMTypeOf(v)),
        )
    };
    if LLVMTypeOf(stand_in) == LLVMTypeOf(v) {
        LLVMReplaceAllUsesWith(v, stand_in);
    }
    if function {
        LLVMDeleteFunction(stand_in);
    } else {
        LLVMDeleteGlobal(stand_in);
    }
}

/// Deletes function `f` by detaching it from its module with its body,
/// whose instructions drop their operands (see the module doc).
pub(crate) fn delete_function(f: LLVMValueRef) {
    // SAFETY: `f` is a function of a module (checked); its body only
    // loses operands, and it leaves the module whole, alive.
    unsafe {
        let module = parent_module(f);
        if module.is_null() || is_erased(f) {
            stale("function deleted (delete of a deleted function)");
        }
        // A function still called (derivatives calling each other, deleted
        // one by one): its callers call `poison` until they go too (LLVM's
        // own deletion left them pointing to freed memory).
        poison_uses(f);
        drop_metadata_uses(f, module, true);
        let mut b = LLVMGetFirstBasicBlock(f);
        while !b.is_null() {
            let mut i = LLVMGetFirstInstruction(b);
            while !i.is_null() {
                drop_operands(i);
                GRAVEYARD.with(|g| g.borrow_mut().erased.insert(i as usize));
                i = LLVMGetNextInstruction(i);
            }
            b = LLVMGetNextBasicBlock(b);
        }
        if LLVMHasPersonalityFn(f) != 0 {
            LLVMSetPersonalityFn(f, std::ptr::null_mut());
        }
        drop_operands(f);
        LLVMGlobalClearMetadata(f);
        llvm_sys::comdat::LLVMSetComdat(f, std::ptr::null_mut());
        function_remove_from_parent(f);
        bury(module, Dead::Function(f));
    }
}

/// Deletes global variable `g` by detaching it from its module, without
/// its initializer.
pub(crate) fn delete_global(g: LLVMValueRef) {
    // SAFETY: `g` is a global variable of a module (checked); it leaves
    // the module whole, alive.
    unsafe {
        let module = parent_module(g);
        if module.is_null() || is_erased(g) {
            stale("global deleted (delete of a deleted global)");
        }
        // As for a function: what still uses it uses `poison`.
        poison_uses(g);
        drop_metadata_uses(g, module, false);
        LLVMSetInitializer(g, std::ptr::null_mut());
        LLVMGlobalClearMetadata(g);
        llvm_sys::comdat::LLVMSetComdat(g, std::ptr::null_mut());
        global_remove_from_parent(g);
        bury(module, Dead::Global(g));
    }
}
