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
use crate::ir::{Builder, Ty, Value};
use crate::names::{EntryPoint, Marker};
use crate::preprocess::run_module_passes;
use crate::synth::registry::{Registry, SplitKey};
use crate::synth::reverse::{
    adjoint_return_type, new_function, shadowed_params, synthesize, Derivative, GradientRequest,
    Mode,
};
use llvm_sys::analysis::{LLVMVerifierFailureAction, LLVMVerifyModule};
use llvm_sys::core::*;
use llvm_sys::prelude::LLVMModuleRef;
use llvm_sys::LLVMLinkage;
use std::collections::{HashMap, HashSet};

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
    let mut registry = Registry::new(opts.preopt, inactive_functions(m));
    let mut gradients: HashMap<(Value, Vec<ArgActivity>), Value> = HashMap::new();
    let mut report = Report::default();
    for cs in &sites {
        match gradient_for(cs, &mut registry, &mut gradients) {
            Ok(g) => {
                replace_call(cs, g);
                report.call_sites += 1;
            }
            Err(mut d) => diags.append(&mut d),
        }
    }
    while let Some((key, fns)) = registry.take_pending() {
        if let Err(mut d) = synthesize_split(&key, fns, &mut registry) {
            diags.append(&mut d);
        }
    }
    registry.delete_clones();
    if !diags.is_empty() {
        registry.delete_split();
        return Err(diags);
    }
    report.derivatives = gradients.len();
    clean_up_api_symbols(m);
    // Synthesis bugs must surface as diagnostics, not as crashes in the
    // optimiser: verify before optimising too.
    verify(m).map_err(|e| {
        if let Ok(path) = std::env::var("ENZ_DUMP_INVALID") {
            let c = crate::ir::cstr(&path);
            unsafe { LLVMPrintModuleToFile(m, c.as_ptr(), std::ptr::null_mut()) };
        }
        vec![Diagnostic::new(format!(
            "internal error: the synthesised derivatives do not verify (this is a bug in enz-rs): {e}"
        ))]
    })?;
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

/// Functions the user declared inactive: listed in a global array
/// `__enzyme_inactivefn`, or carrying the `enzyme_inactive` attribute.
pub(crate) fn inactive_functions(m: LLVMModuleRef) -> HashSet<Value> {
    let mut out = HashSet::new();
    let mut g = unsafe { LLVMGetFirstGlobal(m) };
    while !g.is_null() {
        let gv = Value(g);
        if gv.name().contains("__enzyme_inactivefn") {
            let init = unsafe { LLVMGetInitializer(g) };
            if !init.is_null() {
                let init = Value(init);
                let n = init.num_operands();
                for k in 0..n {
                    if let Some(f) = init.operand(k).strip_to_function() {
                        out.insert(f);
                    }
                }
                if let Some(f) = init.strip_to_function() {
                    out.insert(f);
                }
            }
        }
        g = unsafe { LLVMGetNextGlobal(g) };
    }
    for f in functions(m) {
        if f.has_string_attribute("enzyme_inactive") {
            out.insert(f);
        }
    }
    out
}

/// The gradient (combined reverse mode) for one call site, synthesised
/// once per (function, activity) pair.
fn gradient_for(
    cs: &CallSite,
    registry: &mut Registry,
    gradients: &mut HashMap<(Value, Vec<ArgActivity>), Value>,
) -> Result<Value, Vec<Diagnostic>> {
    let name = cs.function.name();
    let acts: Vec<ArgActivity> = cs.args.iter().map(|a| a.activity).collect();
    let key = (cs.function, acts.clone());
    if let Some(g) = gradients.get(&key) {
        return Ok(*g);
    }
    if cs.function.function_type().is_vararg() {
        return Err(vec![Diagnostic::new(format!(
            "cannot differentiate `{name}`: variadic functions are not supported"
        ))
        .in_function(name.clone())
        .at(cs.call)]);
    }
    let prep = registry.prep(cs.function).map_err(|d| vec![d])?;
    let ret_active = cs.function.function_type().return_type().is_fp_scalar();
    let fty = Ty::function(
        adjoint_return_type(prep, &acts),
        &shadowed_params(prep, &acts),
        false,
    );
    let g = new_function(prep, &format!("diffe_{name}"), fty);
    let req = GradientRequest {
        prep,
        name: &name,
        args: &acts,
        ret_active,
        ret_shadowed: false,
        mode: Mode::Combined,
    };
    let fns = Derivative {
        forward: g,
        reverse: g,
    };
    if let Err(d) = synthesize(&req, fns, registry) {
        g.delete_function();
        return Err(d);
    }
    gradients.insert(key, g);
    Ok(g)
}

/// Fills in a callee's augmented primal and reverse function.
fn synthesize_split(
    key: &SplitKey,
    fns: Derivative,
    registry: &mut Registry,
) -> Result<(), Vec<Diagnostic>> {
    let name = key.function.name();
    let prep = registry.prep(key.function).map_err(|d| vec![d])?;
    let req = GradientRequest {
        prep,
        name: &name,
        args: &key.args,
        ret_active: key.ret_active,
        ret_shadowed: key.ret_shadowed,
        mode: Mode::Split,
    };
    synthesize(&req, fns, registry)
}

/// Replaces the call by a call to the gradient `g` and packs its result.
fn replace_call(cs: &CallSite, g: Value) {
    let caller = cs.call.parent_block().parent();
    let b = Builder::new(caller.context());
    let entry = Builder::new(caller.context());
    entry.position_before(caller.entry_block().first_instruction().expect("entry"));
    b.position_before(cs.call);
    let params = cs.function.params();
    let mut args = Vec::new();
    for (a, p) in cs.args.iter().zip(&params) {
        args.push(abi::convert_arg(&b, a.value, p.ty()).unwrap_or(a.value));
        if let Some(s) = a.shadow {
            args.push(abi::convert_arg(&b, s, p.ty()).unwrap_or(s));
        }
    }
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
