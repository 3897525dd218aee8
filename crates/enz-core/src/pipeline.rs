//! The pipeline over one module.
//!
//! ```text
//!  find __enzyme_* calls ─► parse markers ─► preprocess clone ─► analyse
//!        ─► synthesise gradient ─► replace call ─► clean up markers
//!        ─► post-optimise ─► verify
//! ```

use crate::abi;
use crate::callsite::{self, ArgActivity, CallSite};
use crate::diag::Diagnostic;
use crate::ir::{Builder, Value};
use crate::names::{EntryPoint, Marker};
use crate::preprocess::{preprocess, run_module_passes};
use crate::synth::reverse::{synthesize, GradientRequest};
use llvm_sys::analysis::{LLVMVerifierFailureAction, LLVMVerifyModule};
use llvm_sys::core::*;
use llvm_sys::prelude::LLVMModuleRef;
use llvm_sys::LLVMLinkage;
use std::collections::HashMap;

/// What the caller wants done.
#[derive(Clone, Debug)]
pub struct Options {
    /// Run the clean-up pipeline on the clone before differentiating.
    pub preopt: bool,
    /// Optimisation level (0-3) of the `default<On>` pipeline run afterwards.
    pub opt_level: u8,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            preopt: true,
            opt_level: 2,
        }
    }
}

/// What was done.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Call sites replaced.
    pub call_sites: usize,
    /// Derivative functions synthesised (one per function and activity).
    pub derivatives: usize,
}

/// Differentiates every `__enzyme_*` call site of `module` in place.
/// On error the module may be partly changed: callers must discard it.
pub fn differentiate_module(
    module: &inkwell::module::Module,
    opts: &Options,
) -> Result<Report, Vec<Diagnostic>> {
    let m = module.as_mut_ptr();
    let mut diags = Vec::new();
    let mut sites = Vec::new();
    for f in functions(m) {
        for blk in f.blocks() {
            for i in blk.instructions() {
                if let Some(entry) = callsite::entry_point_of(i) {
                    match callsite::parse(i, entry, &f.name()) {
                        Ok(cs) => sites.push(cs),
                        Err(d) => diags.push(d),
                    }
                }
            }
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    let mut prepped: HashMap<Value, Value> = HashMap::new();
    let mut derivatives: HashMap<(Value, Vec<ArgActivity>), Value> = HashMap::new();
    let mut report = Report::default();
    for cs in &sites {
        match derivative_for(cs, opts, &mut prepped, &mut derivatives) {
            Ok(g) => {
                replace_call(cs, g);
                report.call_sites += 1;
            }
            Err(mut d) => diags.append(&mut d),
        }
    }
    for p in prepped.values() {
        p.delete_function();
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    report.derivatives = derivatives.len();
    clean_up_api_symbols(m);
    if opts.opt_level > 0 {
        let pipeline = format!("default<O{}>", opts.opt_level.min(3));
        run_module_passes(m, &pipeline)
            .map_err(|e| vec![Diagnostic::new(format!("post-optimisation failed: {e}"))])?;
    }
    verify(m).map_err(|e| {
        vec![Diagnostic::new(format!(
            "internal error: the differentiated module does not verify (this is a bug in enz-rs): {e}"
        ))]
    })?;
    Ok(report)
}

/// The derivative function for one call site, synthesised once per
/// (function, activity) pair.
fn derivative_for(
    cs: &CallSite,
    opts: &Options,
    prepped: &mut HashMap<Value, Value>,
    derivatives: &mut HashMap<(Value, Vec<ArgActivity>), Value>,
) -> Result<Value, Vec<Diagnostic>> {
    let name = cs.function.name();
    let acts: Vec<ArgActivity> = cs.args.iter().map(|a| a.activity).collect();
    if let Some((k, _)) = acts
        .iter()
        .enumerate()
        .find(|(_, a)| matches!(a, ArgActivity::Dup | ArgActivity::DupNoNeed))
    {
        return Err(vec![Diagnostic::new(format!(
            "parameter {k} of `{name}` is a pointer with a shadow (enzyme_dup): differentiating through memory is not supported yet"
        ))
        .in_function(name.clone())
        .at(cs.call)
        .help("pass the pointer as enzyme_const if no derivative flows through it")]);
    }
    let key = (cs.function, acts.clone());
    if let Some(g) = derivatives.get(&key) {
        return Ok(*g);
    }
    let prep = match prepped.get(&cs.function) {
        Some(p) => *p,
        None => {
            let p =
                preprocess(cs.function, opts.preopt).map_err(|e| {
                    vec![Diagnostic::new(format!("preprocessing failed: {e}"))
                        .in_function(name.clone())]
                })?;
            prepped.insert(cs.function, p);
            p
        }
    };
    let ret_active = cs.function.function_type().return_type().is_fp_scalar();
    let req = GradientRequest {
        prep,
        name: &name,
        args: &acts,
        ret_active,
    };
    let g = synthesize(&req)?;
    derivatives.insert(key, g);
    Ok(g)
}

/// Replaces the call by a call to the gradient `g` and packs its result.
fn replace_call(cs: &CallSite, g: Value) {
    let caller = cs.call.parent_block().parent();
    let b = Builder::new(caller.context());
    let entry = Builder::new(caller.context());
    entry.position_before(caller.entry_block().first_instruction().expect("entry"));
    b.position_before(cs.call);
    let params = cs.function.params();
    let args: Vec<Value> = cs
        .args
        .iter()
        .zip(&params)
        .map(|(a, p)| abi::convert_arg(&b, a.value, p.ty()).unwrap_or(a.value))
        .collect();
    let call = b.call(g.function_type(), g, &args);
    call.copy_debug_loc(cs.call);
    let ret_ty = g.function_type().return_type();
    let outs: Vec<Value> = if ret_ty.is_void() {
        Vec::new()
    } else {
        (0..ret_ty.len() as u32)
            .map(|k| b.extract_value(call, k))
            .collect()
    };
    let declared = cs.call.call_function_type().return_type();
    if let Some(v) = abi::pack_return(&b, &entry, &outs, declared, cs.sret) {
        cs.call.replace_all_uses_with(v);
    }
    cs.call.erase();
}

/// Removes what the `__enzyme_*` API leaves behind: dead marker loads,
/// unused marker globals and entry-point declarations. A marker global still
/// in use gets a weak definition so that the module links.
fn clean_up_api_symbols(m: LLVMModuleRef) {
    let mut g = unsafe { LLVMGetFirstGlobal(m) };
    while !g.is_null() {
        let next = unsafe { LLVMGetNextGlobal(g) };
        let gv = Value(g);
        if Marker::is_marker_global(&gv.name()) {
            remove_dead_users(gv);
            if gv.is_declaration() {
                if gv.has_uses() {
                    unsafe {
                        LLVMSetInitializer(g, LLVMConstNull(LLVMGlobalGetValueType(g)));
                        LLVMSetLinkage(g, LLVMLinkage::LLVMWeakAnyLinkage);
                    }
                } else {
                    unsafe { LLVMDeleteGlobal(g) };
                }
            }
        }
        g = next;
    }
    for f in functions(m) {
        if f.is_declaration() && !f.has_uses() && EntryPoint::from_callee(&f.name()).is_some() {
            f.delete_function();
        }
    }
}

/// Erases unused loads (and casts) of a global, transitively.
fn remove_dead_users(v: Value) {
    for u in v.users() {
        if u.is_instruction() {
            remove_dead_users(u);
            if !u.has_uses() && u.opcode() == Some(llvm_sys::LLVMOpcode::LLVMLoad) {
                u.erase();
            }
        }
    }
}

fn functions(m: LLVMModuleRef) -> Vec<Value> {
    let mut out = Vec::new();
    let mut f = unsafe { LLVMGetFirstFunction(m) };
    while !f.is_null() {
        out.push(Value(f));
        f = unsafe { LLVMGetNextFunction(f) };
    }
    out
}

fn verify(m: LLVMModuleRef) -> Result<(), String> {
    let mut msg = std::ptr::null_mut();
    let failed = unsafe {
        LLVMVerifyModule(
            m,
            LLVMVerifierFailureAction::LLVMReturnStatusAction,
            &mut msg,
        )
    };
    let text = crate::ir::take_message(msg);
    if failed != 0 {
        Err(text)
    } else {
        Ok(())
    }
}
