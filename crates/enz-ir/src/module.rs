//! Module-level IR: looking up and adding functions and globals, blocks of
//! a function, copies of instructions, and function attributes.

use super::{cstr, Block, Ty, Value};
use crate::{Context, Function, Global, Module};
use llvm_sys::core::*;
use llvm_sys::LLVMLinkage;

/// The context `module` lives in.
pub fn module_context<'m>(module: Module<'m>) -> Context<'m> {
    // SAFETY: `module` is valid.
    Context::wrap(unsafe { LLVMGetModuleContext(module.0) })
}

/// A copy of a module, in the same context, disposed of when dropped: a
/// scratch space where work that may fail is tried before the module the
/// caller owns is touched.
///
/// Handles into the copy borrow it, so none can be used once it is gone:
///
/// ```compile_fail,E0515
/// fn first_function(m: enz_ir::Module<'_>) -> Option<enz_ir::Function<'_>> {
///     let scratch = enz_ir::ScratchModule::copy_of(m);
///     enz_ir::functions(scratch.module()).first().copied()
/// }
/// ```
///
/// while a function of the module itself may be handed out:
///
/// ```
/// fn first_function(m: enz_ir::Module<'_>) -> Option<enz_ir::Function<'_>> {
///     enz_ir::functions(m).first().copied()
/// }
/// ```
pub struct ScratchModule<'c> {
    raw: llvm_sys::prelude::LLVMModuleRef,
    /// What is erased in the copy is freed before the copy is disposed of.
    scope: Option<crate::graveyard::ScopeGuard>,
    /// The copy lives in the context of the module it copies.
    context: std::marker::PhantomData<&'c ()>,
}

impl<'c> ScratchModule<'c> {
    /// A copy of `module`.
    pub fn copy_of(module: Module<'c>) -> ScratchModule<'c> {
        // SAFETY: cloning a valid module gives a new module we own.
        let raw = unsafe { LLVMCloneModule(module.0) };
        ScratchModule {
            raw,
            scope: Some(crate::graveyard::enter(raw)),
            context: std::marker::PhantomData,
        }
    }

    /// The copy; its handles cannot outlive `self`.
    pub fn module(&self) -> Module<'_> {
        Module::wrap(self.raw)
    }
}

impl Drop for ScratchModule<'_> {
    fn drop(&mut self) {
        // What was erased in the copy is freed first (in its context).
        drop(self.scope.take());
        // SAFETY: the module is ours, and no handle into it outlives `self`
        // (they all borrow it).
        unsafe { LLVMDisposeModule(self.raw) }
    }
}

/// The function named `name` in `module`, if any.
pub fn named_function<'m>(module: Module<'m>, name: &str) -> Option<Function<'m>> {
    let c = cstr(name);
    // SAFETY: a lookup by name in a valid module.
    let f = unsafe { LLVMGetNamedFunction(module.0, c.as_ptr()) };
    (!f.is_null()).then_some(Function(Value::wrap(f)))
}

/// The module's identifier (the name of the file it was read from or
/// compiled from, as LLVM keeps it).
pub fn module_identifier(module: Module<'_>) -> String {
    let mut len = 0usize;
    // SAFETY: the identifier of a valid module; LLVM owns the bytes, which
    // are copied before the module can change.
    let p = unsafe { LLVMGetModuleIdentifier(module.0, &mut len) };
    if p.is_null() {
        return String::new();
    }
    // SAFETY: `p` points to `len` bytes, as LLVM says.
    let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// The functions of `module`, in order (a snapshot: safe to delete from).
pub fn functions<'m>(module: Module<'m>) -> Vec<Function<'m>> {
    let mut out = Vec::new();
    // SAFETY: walks the module's own function list.
    let mut f = unsafe { LLVMGetFirstFunction(module.0) };
    while !f.is_null() {
        out.push(Function(Value::wrap(f)));
        f = unsafe { LLVMGetNextFunction(f) };
    }
    out
}

/// The global variables of `module`, in order (a snapshot: safe to
/// delete from).
pub fn globals<'m>(module: Module<'m>) -> Vec<Global<'m>> {
    let mut out = Vec::new();
    // SAFETY: walks the module's own global list.
    let mut g = unsafe { LLVMGetFirstGlobal(module.0) };
    while !g.is_null() {
        out.push(Global(Value::wrap(g)));
        g = unsafe { LLVMGetNextGlobal(g) };
    }
    out
}

/// Runs the verifier on `module`; its message when it fails.
pub fn verify_module<'m>(module: Module<'m>) -> Result<(), String> {
    use llvm_sys::analysis::{LLVMVerifierFailureAction, LLVMVerifyModule};
    let mut msg = std::ptr::null_mut();
    // SAFETY: verification only reads the module; the message is ours.
    let failed = unsafe {
        LLVMVerifyModule(
            module.0,
            LLVMVerifierFailureAction::LLVMReturnStatusAction,
            &mut msg,
        )
    };
    let text = super::take_message(msg);
    if failed != 0 {
        Err(text)
    } else {
        Ok(())
    }
}

/// The global variable named `name` in `module`, if any.
pub fn named_global<'m>(module: Module<'m>, name: &str) -> Option<Global<'m>> {
    let c = cstr(name);
    // SAFETY: a lookup by name in a valid module.
    let g = unsafe { LLVMGetNamedGlobal(module.0, c.as_ptr()) };
    (!g.is_null()).then_some(Global(Value::wrap(g)))
}

/// A new function with internal linkage (no body yet).
pub fn add_internal_function<'m>(module: Module<'m>, name: &str, fty: Ty<'m>) -> Function<'m> {
    let c = cstr(name);
    // SAFETY: adds a declaration to a valid module.
    let f = Value::wrap(unsafe { LLVMAddFunction(module.0, c.as_ptr(), fty.0) });
    f.set_internal_linkage();
    Function(f)
}

/// Rebuilds the module's `llvm.used` and `llvm.compiler.used` lists
/// (`__attribute__((used))`) without the members in `drop` (globals, seen
/// through constant casts) and without members that are no global value;
/// a list left empty is deleted. The old list's constant array may stay
/// behind as a dead user of the dropped globals (see
/// [`Value::drop_dead_constant_users`]).
pub fn remove_from_used_lists<'m>(module: Module<'m>, drop: &[Value<'m>]) {
    for list in ["llvm.used", "llvm.compiler.used"] {
        let Some(g) = named_global(module, list) else {
            continue;
        };
        let Some(init) = g.initializer() else {
            continue;
        };
        let members = init.operands();
        let keep: Vec<Value> = members
            .iter()
            .copied()
            .filter(|e| {
                let mut base = *e;
                while !base.is_global_variable()
                    && !base.is_function()
                    && !base.is_instruction()
                    && base.num_operands() > 0
                {
                    base = base.operand(0);
                }
                (base.is_global_variable() || base.is_function()) && !drop.contains(&base)
            })
            .collect();
        if keep.len() != members.len() {
            replace_used_list(module, list, Some(g), &keep);
        }
    }
}

/// Adds `members` (globals or functions) to the module's
/// `llvm.compiler.used` list (creating it), so that no pass and no
/// link-time dead-stripping removes them while nothing references them
/// yet; members already listed are not added twice.
pub fn add_to_compiler_used<'m>(module: Module<'m>, members: &[Value<'m>]) {
    let list = "llvm.compiler.used";
    let old = named_global(module, list);
    let mut all: Vec<Value> = old
        .and_then(|g| g.initializer())
        .map(|init| init.operands())
        .unwrap_or_default();
    let before = all.len();
    for m in members {
        if !all.contains(m) {
            all.push(*m);
        }
    }
    if all.len() != before {
        replace_used_list(module, list, old, &all);
    }
}

/// Replaces the used list `list` (`old`, if any; nothing uses the list
/// itself) by an appending array of `members` of the same element type
/// (pointers for a new list) in the same section (`llvm.metadata` for a
/// new list); with no members, the list is deleted.
fn replace_used_list<'m>(
    module: Module<'m>,
    list: &str,
    old: Option<Global<'m>>,
    members: &[Value<'m>],
) {
    let c = cstr(list);
    // SAFETY: reads the old list's properties before deleting it; the new
    // array's elements are global values of this module.
    unsafe {
        let (elem, section) = match old {
            Some(g) => {
                let elem = LLVMGetElementType(LLVMGlobalGetValueType(g.0 .0));
                let section = LLVMGetSection(g.0 .0);
                let section =
                    (!section.is_null()).then(|| std::ffi::CStr::from_ptr(section).to_owned());
                g.delete_global();
                (elem, section)
            }
            None => (
                LLVMPointerTypeInContext(LLVMGetModuleContext(module.0), 0),
                Some(cstr("llvm.metadata")),
            ),
        };
        if members.is_empty() {
            return;
        }
        let mut raw: Vec<_> = members.iter().map(|v| v.0).collect();
        let n = raw.len() as u64;
        let ng = LLVMAddGlobal(module.0, LLVMArrayType2(elem, n), c.as_ptr());
        LLVMSetInitializer(ng, LLVMConstArray2(elem, raw.as_mut_ptr(), n));
        LLVMSetLinkage(ng, LLVMLinkage::LLVMAppendingLinkage);
        if let Some(sec) = section {
            LLVMSetSection(ng, sec.as_ptr());
        }
    }
}

impl<'m> Value<'m> {
    /// Makes the constants that use this global and are themselves unused
    /// (left behind by a deleted initializer) stop using it: each such use
    /// is replaced by `undef`. Returns whether the value is then unused;
    /// a live user (an instruction, a used constant) is left alone.
    pub fn drop_dead_constant_users(self) -> bool {
        let users = self.users();
        if users
            .iter()
            .any(|u| u.is_instruction() || u.is_global_variable() || u.has_uses())
        {
            return false;
        }
        if !users.is_empty() {
            // SAFETY: only dead constants use `self`; replacing their
            // operand rebuilds them as other (equally dead) constants.
            unsafe { LLVMReplaceAllUsesWith(self.0, LLVMGetUndef(LLVMTypeOf(self.0))) }
        }
        !self.has_uses()
    }
}

/// The global `name`, declared (external, of type `ty`) if the module
/// has none: the address of a library's predefined object.
pub fn external_global<'m>(module: Module<'m>, name: &str, ty: Ty<'m>) -> Global<'m> {
    if let Some(g) = named_global(module, name) {
        return g;
    }
    let c = cstr(name);
    // SAFETY: adds a declaration to a valid module.
    Global(Value::wrap(unsafe {
        LLVMAddGlobal(module.0, ty.0, c.as_ptr())
    }))
}

/// A new internal global of type `ty` in the address space `space`,
/// initialised with `init`, aligned to `align`.
pub fn add_internal_global<'m>(
    module: Module<'m>,
    name: &str,
    ty: Ty<'m>,
    space: u32,
    init: Value<'m>,
    align: u32,
) -> Global<'m> {
    let c = cstr(name);
    // SAFETY: adds a global to a valid module and sets its properties.
    unsafe {
        let g = LLVMAddGlobalInAddressSpace(module.0, ty.0, c.as_ptr(), space);
        LLVMSetInitializer(g, init.0);
        LLVMSetLinkage(g, LLVMLinkage::LLVMInternalLinkage);
        LLVMSetAlignment(g, align);
        Global(Value::wrap(g))
    }
}

impl<'m> Value<'m> {
    /// Gives a function or global internal linkage.
    pub fn set_internal_linkage(self) {
        // SAFETY: `self` is a global value.
        unsafe { LLVMSetLinkage(self.0, LLVMLinkage::LLVMInternalLinkage) }
    }

    /// For a constant expression `addrspacecast`, `bitcast` or
    /// `getelementptr` of some base: the same expression on `base`
    /// instead; `None` for anything else.
    pub fn rebase_constant_expr(self, base: Value<'m>) -> Option<Value<'m>> {
        use llvm_sys::LLVMOpcode::*;
        // SAFETY: `self` is checked to be a constant expression; the new
        // constant is built from its own operands and types.
        unsafe {
            if LLVMIsAConstantExpr(self.0).is_null() {
                return None;
            }
            let ty = LLVMTypeOf(self.0);
            Some(Value::wrap(match LLVMGetConstOpcode(self.0) {
                LLVMAddrSpaceCast => LLVMConstAddrSpaceCast(base.0, ty),
                LLVMBitCast => LLVMConstBitCast(base.0, ty),
                LLVMGetElementPtr => {
                    let mut idx: Vec<_> = (1..self.num_operands())
                        .map(|k| self.operand(k).0)
                        .collect();
                    LLVMConstInBoundsGEP2(
                        LLVMGetGEPSourceElementType(self.0),
                        base.0,
                        idx.as_mut_ptr(),
                        idx.len() as u32,
                    )
                }
                _ => return None,
            }))
        }
    }

    /// Whether this is a constant expression.
    pub fn is_constant_expr(self) -> bool {
        // SAFETY: a type query on a valid value.
        !unsafe { LLVMIsAConstantExpr(self.0) }.is_null()
    }

    /// Whether this is a constant address made from a constant integer
    /// (`inttoptr (i64 8 to ptr)`): no memory a derivative could use.
    pub fn is_constant_int_address(self) -> bool {
        // SAFETY: opcode and operand queries on a constant expression.
        self.is_constant_expr()
            && unsafe { LLVMGetConstOpcode(self.0) } == llvm_sys::LLVMOpcode::LLVMIntToPtr
            && self.operand(0).const_int_sext().is_some()
    }
}

impl<'m> Block<'m> {
    /// A new block named `name` inserted just before this one (in the same
    /// function).
    pub fn insert_block_before(self, name: &str) -> Block<'m> {
        let c = cstr(name);
        // SAFETY: `self` is a block of a live function.
        Block::wrap(unsafe {
            LLVMInsertBasicBlockInContext(self.parent().context().0, self.0, c.as_ptr())
        })
    }
}

impl<'m> Ty<'m> {
    /// ABI size in bytes under `module`'s data layout (any sized type).
    pub fn abi_size(self, module: Module<'m>) -> u64 {
        // SAFETY: the module's own data layout, a sized type.
        unsafe {
            llvm_sys::target::LLVMABISizeOfType(
                llvm_sys::target::LLVMGetModuleDataLayout(module.0),
                self.0,
            )
        }
    }

    /// Byte offset of field `k` of this struct type under `module`'s layout.
    pub fn offset_of(self, module: Module<'m>, k: u32) -> u64 {
        // SAFETY: the module's own data layout, a struct type with field k.
        unsafe {
            llvm_sys::target::LLVMOffsetOfElement(
                llvm_sys::target::LLVMGetModuleDataLayout(module.0),
                self.0,
                k,
            )
        }
    }

    /// `[n x self]`.
    pub fn array(self, n: u64) -> Ty<'m> {
        // SAFETY: an array type of a valid element type.
        Ty::wrap(unsafe { LLVMArrayType2(self.0, n) })
    }

    /// `<n x self>` (a fixed-width vector).
    pub fn vector(self, n: u32) -> Ty<'m> {
        // SAFETY: a vector type of a valid element type.
        Ty::wrap(unsafe { LLVMVectorType(self.0, n) })
    }

    /// The all-zero constant of this type.
    pub fn null_constant(self) -> Value<'m> {
        // SAFETY: a constant of a valid type.
        Value::wrap(unsafe { LLVMConstNull(self.0) })
    }

    /// The `undef` constant of this type.
    pub fn undef_constant(self) -> Value<'m> {
        // SAFETY: a constant of a valid type.
        Value::wrap(unsafe { LLVMGetUndef(self.0) })
    }

    /// The constant of this array, struct or fixed-vector type with
    /// members `elems` (as many as the type has, each of its member type).
    pub fn const_aggregate(self, elems: &[Value<'m>]) -> Value<'m> {
        let mut raw: Vec<_> = elems.iter().map(|e| e.0).collect();
        let n = raw.len() as u32;
        // SAFETY: members of the right number and types, checked by the
        // callers' construction from this type's own members.
        Value::wrap(unsafe {
            match self.kind() {
                crate::TyKind::Array => {
                    LLVMConstArray2(LLVMGetElementType(self.0), raw.as_mut_ptr(), u64::from(n))
                }
                crate::TyKind::Vector => LLVMConstVector(raw.as_mut_ptr(), n),
                _ => LLVMConstNamedStruct(self.0, raw.as_mut_ptr(), n),
            }
        })
    }
}

impl<'m> Value<'m> {
    /// Member `k` of a constant aggregate (array, struct or vector), if
    /// there is one.
    pub fn aggregate_element(self, k: u32) -> Option<Value<'m>> {
        if !self.is_constant() {
            return None;
        }
        // SAFETY: a constant; LLVM returns null for an index out of range.
        let e = unsafe { LLVMGetAggregateElement(self.0, k) };
        (!e.is_null()).then(|| Value::wrap(e))
    }
}
