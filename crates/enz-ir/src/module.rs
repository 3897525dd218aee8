//! Module-level IR: looking up and adding functions and globals, blocks of
//! a function, copies of instructions, and function attributes.

use super::{cstr, Block, Ty, Value};
use crate::{Context, Function, Global, Module};
use llvm_sys::core::*;
use llvm_sys::LLVMLinkage;

/// The context `module` lives in.
pub fn module_context(module: Module) -> Context {
    // SAFETY: `module` is valid.
    Context(unsafe { LLVMGetModuleContext(module.0) })
}

/// A copy of a module, in the same context, disposed of when dropped: a
/// scratch space where work that may fail is tried before the module the
/// caller owns is touched.
pub struct ScratchModule(Module);

impl ScratchModule {
    /// A copy of `module`.
    pub fn copy_of(module: Module) -> ScratchModule {
        // SAFETY: cloning a valid module gives a new module we own.
        ScratchModule(Module(unsafe { LLVMCloneModule(module.0) }))
    }

    /// The copy (valid while `self` lives).
    pub fn module(&self) -> Module {
        self.0
    }
}

impl Drop for ScratchModule {
    fn drop(&mut self) {
        // SAFETY: the module is ours and nothing of it outlives `self`.
        unsafe { LLVMDisposeModule(self.0 .0) }
    }
}

/// The function named `name` in `module`, if any.
pub fn named_function(module: Module, name: &str) -> Option<Function> {
    let c = cstr(name);
    // SAFETY: a lookup by name in a valid module.
    let f = unsafe { LLVMGetNamedFunction(module.0, c.as_ptr()) };
    (!f.is_null()).then_some(Function(Value(f)))
}

/// The functions of `module`, in order (a snapshot: safe to delete from).
pub fn functions(module: Module) -> Vec<Function> {
    let mut out = Vec::new();
    // SAFETY: walks the module's own function list.
    let mut f = unsafe { LLVMGetFirstFunction(module.0) };
    while !f.is_null() {
        out.push(Function(Value(f)));
        f = unsafe { LLVMGetNextFunction(f) };
    }
    out
}

/// The global variables of `module`, in order (a snapshot: safe to
/// delete from).
pub fn globals(module: Module) -> Vec<Global> {
    let mut out = Vec::new();
    // SAFETY: walks the module's own global list.
    let mut g = unsafe { LLVMGetFirstGlobal(module.0) };
    while !g.is_null() {
        out.push(Global(Value(g)));
        g = unsafe { LLVMGetNextGlobal(g) };
    }
    out
}

/// Runs the verifier on `module`; its message when it fails.
pub fn verify_module(module: Module) -> Result<(), String> {
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
pub fn named_global(module: Module, name: &str) -> Option<Global> {
    let c = cstr(name);
    // SAFETY: a lookup by name in a valid module.
    let g = unsafe { LLVMGetNamedGlobal(module.0, c.as_ptr()) };
    (!g.is_null()).then_some(Global(Value(g)))
}

/// A new function with internal linkage (no body yet).
pub fn add_internal_function(module: Module, name: &str, fty: Ty) -> Function {
    let c = cstr(name);
    // SAFETY: adds a declaration to a valid module.
    let f = Value(unsafe { LLVMAddFunction(module.0, c.as_ptr(), fty.0) });
    f.set_internal_linkage();
    Function(f)
}

/// A new internal global of type `ty` in the address space `space`,
/// initialised with `init`, aligned to `align`.
pub fn add_internal_global(
    module: Module,
    name: &str,
    ty: Ty,
    space: u32,
    init: Value,
    align: u32,
) -> Global {
    let c = cstr(name);
    // SAFETY: adds a global to a valid module and sets its properties.
    unsafe {
        let g = LLVMAddGlobalInAddressSpace(module.0, ty.0, c.as_ptr(), space);
        LLVMSetInitializer(g, init.0);
        LLVMSetLinkage(g, LLVMLinkage::LLVMInternalLinkage);
        LLVMSetAlignment(g, align);
        Global(Value(g))
    }
}

impl Value {
    /// Gives a function or global internal linkage.
    pub fn set_internal_linkage(self) {
        // SAFETY: `self` is a global value.
        unsafe { LLVMSetLinkage(self.0, LLVMLinkage::LLVMInternalLinkage) }
    }

    /// A copy of this instruction, not yet inserted anywhere (insert it
    /// with `Builder::insert`), with the same operands.
    pub fn clone_instruction(self) -> Value {
        // SAFETY: `self` is an instruction.
        Value(unsafe { LLVMInstructionClone(self.0) })
    }

    /// Adds the enum attribute `name` to a call site's function attributes.
    pub fn add_call_site_attribute(self, name: &str) {
        // SAFETY: `self` is a call; the attribute is created in its context.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            let attr = LLVMCreateEnumAttribute(self.context().0, kind, 0);
            LLVMAddCallSiteAttribute(self.0, llvm_sys::LLVMAttributeFunctionIndex, attr);
        }
    }

    /// For a constant expression `addrspacecast`, `bitcast` or
    /// `getelementptr` of some base: the same expression on `base`
    /// instead; `None` for anything else.
    pub fn rebase_constant_expr(self, base: Value) -> Option<Value> {
        use llvm_sys::LLVMOpcode::*;
        // SAFETY: `self` is checked to be a constant expression; the new
        // constant is built from its own operands and types.
        unsafe {
            if LLVMIsAConstantExpr(self.0).is_null() {
                return None;
            }
            let ty = LLVMTypeOf(self.0);
            Some(Value(match LLVMGetConstOpcode(self.0) {
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
}

impl Block {
    /// A new block named `name` inserted just before this one (in the same
    /// function).
    pub fn insert_block_before(self, name: &str) -> Block {
        let c = cstr(name);
        // SAFETY: `self` is a block of a live function.
        Block(unsafe {
            LLVMInsertBasicBlockInContext(self.parent().context().0, self.0, c.as_ptr())
        })
    }
}

impl Ty {
    /// ABI size in bytes under `module`'s data layout (any sized type).
    pub fn abi_size(self, module: Module) -> u64 {
        // SAFETY: the module's own data layout, a sized type.
        unsafe {
            llvm_sys::target::LLVMABISizeOfType(
                llvm_sys::target::LLVMGetModuleDataLayout(module.0),
                self.0,
            )
        }
    }

    /// Byte offset of field `k` of this struct type under `module`'s layout.
    pub fn offset_of(self, module: Module, k: u32) -> u64 {
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
    pub fn array(self, n: u64) -> Ty {
        // SAFETY: an array type of a valid element type.
        Ty(unsafe { LLVMArrayType2(self.0, n) })
    }

    /// The all-zero constant of this type.
    pub fn null_constant(self) -> Value {
        // SAFETY: a constant of a valid type.
        Value(unsafe { LLVMConstNull(self.0) })
    }

    /// The `undef` constant of this type.
    pub fn undef_constant(self) -> Value {
        // SAFETY: a constant of a valid type.
        Value(unsafe { LLVMGetUndef(self.0) })
    }
}
