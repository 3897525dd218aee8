//! Preprocessing: a private, optimisable clone of the function to
//! differentiate.
//!
//! The clone drops `optnone`/`noinline` (clang -O0 output must work), has its
//! calls to defined functions inlined, and is run through
//! `sroa,early-cse,instcombine,simplifycfg` so that synthesis sees SSA values
//! instead of stack slots, then rewritten so that the derivative inherits
//! nothing from it that is only valid for the primal (`sanitize`). The
//! user's function is never modified.

mod sanitize;

use crate::diag::Diagnostic;
use crate::ir::{clone_body, cstr, Value, ValueMap};
use crate::names::{EntryPoint, MathFn};
use llvm_sys::core::*;
use llvm_sys::transforms::pass_builder::*;
use llvm_sys::LLVMLinkage;
use std::collections::HashSet;

/// The function-local clean-up pipeline run on the clone. `instcombine`
/// does not verify its fixpoint: in LLVM 22 a plain `instcombine` that needs
/// a second iteration calls `report_fatal_error` (as on ordinary -O0 C and
/// on Eigen code); LLVM's own pipelines turn the check off too.
const PREOPT_PIPELINE: &str =
    "sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,sroa,instcombine<no-verify-fixpoint>,loop-mssa(licm),loop-simplify,lcssa";

/// What synthesis needs even without clean-up: loops with one preheader,
/// one latch and dedicated exits, and values leaving loops through phis.
const LOOP_FORM_PIPELINE: &str = "loop-simplify,lcssa";

/// How many rounds of inlining (each inlines one more level of calls).
const INLINE_ROUNDS: usize = 8;

/// Makes the preprocessed clone of `func`. With `optimise` false, only the
/// clone and inlining are done.
pub(crate) fn preprocess(
    func: Value,
    optimise: bool,
    inline: bool,
    keep_calls_to: &HashSet<Value>,
) -> Result<Value, Diagnostic> {
    let failed = |e: String| {
        Diagnostic::internal(format_args!(
            "preprocessing failed (this is a bug in enz-rs): {e}"
        ))
    };
    let module = func.global_parent();
    let name = cstr(&format!("preprocess_{}", func.name()));
    let clone = Value(unsafe { LLVMAddFunction(module, name.as_ptr(), func.function_type().0) });
    unsafe { LLVMSetLinkage(clone.0, LLVMLinkage::LLVMInternalLinkage) };
    copy_function_attributes(func, clone);
    let mut map = ValueMap::default();
    for (p, q) in func.params().into_iter().zip(clone.params()) {
        map.insert(p, q);
        q.set_name(&p.name());
    }
    clone_body(func, clone, &mut map, false);
    if inline {
        inline_calls(clone, keep_calls_to).map_err(failed)?;
    }
    let pipeline = if optimise {
        PREOPT_PIPELINE
    } else {
        LOOP_FORM_PIPELINE
    };
    run_function_passes(clone, pipeline).map_err(failed)?;
    sanitize::sanitize(clone)?;
    Ok(clone)
}

/// Copies function attributes (target-cpu, target-features, ...) except the
/// ones that would stop optimisation.
fn copy_function_attributes(from: Value, to: Value) {
    copy_attributes_where(from, to, |name| {
        !matches!(name, "optnone" | "noinline" | "alwaysinline")
    });
}

/// Copies the attributes a derivative of `from` may carry: every string
/// attribute (target-cpu, target-features, denormal modes...) and the enum
/// attributes that stay true of code that also writes shadow memory,
/// allocates and frees (`nounwind`, `uwtable`).
pub(crate) fn copy_derivative_attributes(from: Value, to: Value) {
    copy_attributes_where(from, to, |name| matches!(name, "nounwind" | "uwtable"));
}

/// Copies function attributes: string attributes always, enum attributes
/// whose name `keep_enum` accepts.
fn copy_attributes_where(from: Value, to: Value, keep_enum: impl Fn(&str) -> bool) {
    const ENUMS: &[&str] = &[
        "optnone",
        "noinline",
        "alwaysinline",
        "nounwind",
        "uwtable",
        "memory",
        "readonly",
        "readnone",
        "writeonly",
        "willreturn",
        "nofree",
        "nosync",
        "norecurse",
        "speculatable",
        "mustprogress",
        "noreturn",
        "cold",
        "hot",
        "minsize",
        "optsize",
        "nocallback",
        "convergent",
    ];
    let idx = llvm_sys::LLVMAttributeFunctionIndex;
    let n = unsafe { LLVMGetAttributeCountAtIndex(from.0, idx) } as usize;
    let mut attrs = vec![std::ptr::null_mut(); n];
    unsafe { LLVMGetAttributesAtIndex(from.0, idx, attrs.as_mut_ptr()) };
    for a in attrs {
        let keep = unsafe {
            if LLVMIsEnumAttribute(a) != 0 {
                let kind = LLVMGetEnumAttributeKind(a);
                let name = ENUMS.iter().find(|s| {
                    LLVMGetEnumAttributeKindForName(s.as_ptr() as *const _, s.len()) == kind
                });
                name.is_some_and(|s| keep_enum(s))
            } else {
                LLVMIsStringAttribute(a) != 0
            }
        };
        if keep {
            unsafe { LLVMAddAttributeAtIndex(to.0, idx, a) };
        }
    }
}

/// Inlines, level by level, calls from `func` to functions defined in the
/// module (not math functions, not entry points, not recursive ones, not
/// those in `keep_calls_to`: the user's inactive functions).
fn inline_calls(func: Value, keep_calls_to: &HashSet<Value>) -> Result<(), String> {
    let ctx = func.context();
    let kind =
        unsafe { LLVMGetEnumAttributeKindForName(c"alwaysinline".as_ptr(), "alwaysinline".len()) };
    let attr = unsafe { LLVMCreateEnumAttribute(ctx, kind, 0) };
    for _ in 0..INLINE_ROUNDS {
        let mut marked = false;
        for b in func.blocks() {
            for i in b.instructions() {
                let Some(callee) = i.called_function() else {
                    continue;
                };
                if i.opcode() != Some(llvm_sys::LLVMOpcode::LLVMCall)
                    || callee.is_declaration()
                    || callee.intrinsic_id() != 0
                    || callee == func
                    || keep_calls_to.contains(&callee)
                    || is_recursive(callee)
                    || MathFn::from_callee(&callee.name()).is_some()
                    || EntryPoint::from_callee(&callee.name()).is_some()
                {
                    continue;
                }
                unsafe {
                    LLVMAddCallSiteAttribute(i.0, llvm_sys::LLVMAttributeFunctionIndex, attr)
                };
                marked = true;
            }
        }
        if !marked {
            break;
        }
        run_module_passes(func.global_parent(), "always-inline")?;
    }
    Ok(())
}

/// Whether `f` can reach itself through calls to defined functions.
fn is_recursive(f: Value) -> bool {
    let mut seen = std::collections::HashSet::new();
    let mut stack = vec![f];
    while let Some(g) = stack.pop() {
        for b in g.blocks() {
            for i in b.instructions() {
                let Some(c) = i.called_function() else {
                    continue;
                };
                if c == f {
                    return true;
                }
                if !c.is_declaration() && seen.insert(c) {
                    stack.push(c);
                }
            }
        }
    }
    false
}

/// Runs a function pass pipeline on one function.
pub(crate) fn run_function_passes(func: Value, pipeline: &str) -> Result<(), String> {
    let p = cstr(pipeline);
    unsafe {
        let opts = LLVMCreatePassBuilderOptions();
        let err = LLVMRunPassesOnFunction(func.0, p.as_ptr(), std::ptr::null_mut(), opts);
        LLVMDisposePassBuilderOptions(opts);
        check_error(err)
    }
}

/// Runs a module pass pipeline.
pub(crate) fn run_module_passes(
    module: llvm_sys::prelude::LLVMModuleRef,
    pipeline: &str,
) -> Result<(), String> {
    let p = cstr(pipeline);
    unsafe {
        let opts = LLVMCreatePassBuilderOptions();
        let err = LLVMRunPasses(module, p.as_ptr(), std::ptr::null_mut(), opts);
        LLVMDisposePassBuilderOptions(opts);
        check_error(err)
    }
}

unsafe fn check_error(err: llvm_sys::error::LLVMErrorRef) -> Result<(), String> {
    if err.is_null() {
        return Ok(());
    }
    let msg = llvm_sys::error::LLVMGetErrorMessage(err);
    let s = std::ffi::CStr::from_ptr(msg).to_string_lossy().into_owned();
    llvm_sys::error::LLVMDisposeErrorMessage(msg);
    Err(s)
}
