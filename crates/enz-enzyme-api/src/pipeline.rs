//! The pipeline over one module.
//!
//! ```text
//!  find __enzyme_* calls ─► parse markers ─► order nested sites
//!    ─► lower each site (lower.rs: preprocess, analyse, synthesise,
//!       replace the call) ─► build pending callee derivatives
//!    ─► zero shadow globals on entry ─► clean up markers
//!    ─► verify ─► post-optimise ─► verify
//! ```

use crate::batch;
use crate::callsite::{self, CallSite};
use crate::checkpoint_loop;
use crate::context;
use crate::fixed_point;
use crate::function_choice;
use crate::ir::{functions, globals, run_module_passes, verify_module as verify, Value};
use crate::ir::{Function, Module};
use crate::lower::Lowering;
use crate::registrations;
use crate::virtual_tables;
use enz_core::Diagnostic;
use enz_core::{all_or_nothing, Attempt, CacheBudget, LoopMode, Session, SessionOptions};
use enz_core::{is_api_symbol, EntryPoint, Marker};
use enz_core::{timed, Timings};
use std::collections::HashSet;

/// What the caller wants done.
#[derive(Clone, Debug)]
pub struct Options {
    /// Run the clean-up pipeline on the clone before differentiating.
    pub preopt: bool,
    /// Optimisation level (0-3) of the `default<On>` pipeline run afterwards.
    pub opt_level: u8,
    /// Inline calls to the module's functions before differentiating (the
    /// fast path); without it every callee gets its own derivative.
    pub inline: bool,
    /// Called with every function's IR, one line at a time, after
    /// synthesis and clean-up, before verification (a debugging aid; the
    /// library itself prints nothing).
    pub trace_functions: Option<fn(&str)>,
    /// Leave the module exactly as it was when differentiation fails: the
    /// whole synthesis is first tried on a scratch copy, and the module is
    /// changed only once that has succeeded (preprocessing and synthesis
    /// then run twice). A caller that discards the module on error (the
    /// CLI) turns this off.
    pub keep_module_on_error: bool,
    /// `--cache-budget MB|auto|off`: the memory that one gradient call's
    /// loop caches may hold; qualifying loops are checkpointed to stay
    /// within it. `auto`: half the machine's physical memory, read at run
    /// time. The default: off.
    pub cache_budget: CacheBudget,
    /// `--mode-per-loop`: where mixed mode is used (auto, the default:
    /// where it caches at most half the bytes of reverse mode).
    pub loop_mode: LoopMode,
    /// `--gpu-thread-cache BYTES`: loop caches each GPU thread keeps in a
    /// fixed stack array (default `DEFAULT_GPU_THREAD_CACHE`).
    pub gpu_thread_cache: u64,
    /// `--explain`: the explanations describe each cached value by its
    /// instruction (slow on modules with debug information: asked for).
    pub explain: bool,
}

/// A per-thread GPU cache size as the CLI (`--gpu-thread-cache`) and the
/// plugin (`gpu-thread-cache=`, `ENZ_RS_GPU_THREAD_CACHE`) spell it: a
/// whole number of bytes, at least 64 and at most 1 MiB.
pub fn parse_gpu_thread_cache(s: &str) -> Result<u64, String> {
    match s.parse::<u64>() {
        Ok(n) if (64..=1 << 20).contains(&n) => Ok(n),
        _ => Err("the per-thread GPU cache is a whole number of bytes from 64 to 1048576".into()),
    }
}

/// A cache budget as the CLI (`--cache-budget`) and the plugin
/// (`cache-budget=`, `ENZ_RS_CACHE_BUDGET`) spell it: a whole number of
/// MiB, `auto` (half the machine's physical memory) or `off` (no bound,
/// nothing checkpointed: the default).
pub fn parse_cache_budget(s: &str) -> Result<CacheBudget, String> {
    match s {
        "auto" => Ok(CacheBudget::Machine),
        "off" => Ok(CacheBudget::Off),
        _ => s
            .parse::<u64>()
            .map(|mb| CacheBudget::Bytes(mb.saturating_mul(1 << 20)))
            .map_err(|_| "the cache budget is a whole number of MiB, `auto` or `off`".to_string()),
    }
}

impl Default for Options {
    fn default() -> Options {
        Options {
            preopt: true,
            opt_level: 2,
            inline: true,
            trace_functions: None,
            keep_module_on_error: true,
            cache_budget: CacheBudget::Machine,
            loop_mode: LoopMode::Auto,
            gpu_thread_cache: enz_core::DEFAULT_GPU_THREAD_CACHE,
            explain: false,
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
    /// Instructions in the module before differentiation.
    pub instructions_before: usize,
    /// Instructions in the module after post-optimisation.
    pub instructions_after: usize,
    /// Time per stage.
    pub timings: Timings,
    /// `--explain`: what each derivative does with its loops, as text, in
    /// the order they were made.
    pub explanations: Vec<String>,
    /// What may make a derivative other than the user meant, without
    /// stopping it (printed as warnings by the command line).
    pub warnings: Vec<String>,
}

/// Differentiates every `__enzyme_*` call site of `module` in place.
/// On error the module is left exactly as it was when
/// [`Options::keep_module_on_error`] is set (the default); otherwise it may
/// be partly changed, and the caller must discard it.
pub fn differentiate_module<'m>(m: Module<'m>, opts: &Options) -> Result<Report, Vec<Diagnostic>> {
    if !opts.keep_module_on_error {
        return differentiate(m, opts);
    }
    // The trial plans on a copy: everything up to verification, no
    // optimisation and no tracing.
    let trial = Options {
        opt_level: 0,
        trace_functions: None,
        ..opts.clone()
    };
    all_or_nothing(m, |module, attempt| match attempt {
        Attempt::Trial => differentiate(module, &trial),
        Attempt::Commit => differentiate(module, opts),
    })
}

/// The pipeline on `m`, changing it as it goes.
fn differentiate<'m>(m: Module<'m>, opts: &Options) -> Result<Report, Vec<Diagnostic>> {
    let triple = crate::ir::module_triple(m);
    if !triple.is_empty() && !crate::ir::triple_is_known(&triple) {
        return Err(vec![Diagnostic::new(format!(
            "the module's target triple `{triple}` names an architecture this LLVM does not know"
        ))
        .help("compile the module for a known target (`llc --version` lists them), or remove its `target triple`")]);
    }
    let instructions_before = count_instructions(m);
    let input_functions: HashSet<String> = functions(m).iter().map(|f| f.name()).collect();
    let mut diags = Vec::new();
    // Batched primals first: they are plain calls once lowered.
    for f in functions(m) {
        for blk in f.blocks() {
            for i in blk.instructions() {
                if batch::is_call(i) {
                    if let Err(d) = batch::lower(i) {
                        diags.push(d);
                    }
                } else if fixed_point::is_call(i) {
                    if let Err(d) = fixed_point::lower(i) {
                        diags.push(d);
                    }
                } else if fixed_point::is_set_call(i) {
                    diags.push(fixed_point::refuse_set(i));
                } else if let Some(while_loop) = checkpoint_loop::call_kind(i) {
                    if let Err(d) = checkpoint_loop::lower(i, while_loop) {
                        diags.push(d);
                    }
                }
            }
        }
    }
    function_choice::version_function_choices(m);
    let mut sites = Vec::new();
    let mut vtable_shadows = Vec::new();
    let mut context_calls = Vec::new();
    let mut memo = callsite::ParseMemo::default();
    for f in functions(m) {
        for blk in f.blocks() {
            for i in blk.instructions() {
                if virtual_tables::is_call(i) {
                    vtable_shadows.push(i);
                } else if let Some(kind) = context::call_kind(i) {
                    context_calls.push((i, kind));
                } else if let Some(entry) = callsite::entry_point_of(i) {
                    match callsite::parse(i, entry, &f.name(), &mut memo) {
                        Ok(cs) => sites.push(cs),
                        Err(d) => diags.push(d),
                    }
                } else if fixed_point::is_call(i)
                    || fixed_point::is_set_call(i)
                    || checkpoint_loop::call_kind(i).is_some()
                {
                    // Diagnosed when lowered (a call lowered is gone).
                } else if let Some(d) = unsupported_api_call(i.as_value(), &f.name()) {
                    diags.push(d);
                }
            }
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    let facts = registrations::facts_for_synthesis(m)?;
    let warnings = registrations::uncalled_registrations(m, &facts);
    let session_opts = SessionOptions {
        preopt: opts.preopt,
        inline: opts.inline,
        cache_budget: opts.cache_budget,
        loop_mode: opts.loop_mode,
        gpu_thread_cache: opts.gpu_thread_cache,
        explain: opts.explain,
    };
    let mut session = Session::new(session_opts, facts);
    let synthesis_start = std::time::Instant::now();
    for i in vtable_shadows {
        if let Err(d) = virtual_tables::lower(i, &mut session) {
            diags.push(d);
        }
    }
    for (i, kind) in context_calls {
        if let Err(d) = context::lower(i, kind, &mut session) {
            diags.push(d);
        }
    }
    if let Err(mut d) = session.synthesize_pending() {
        diags.append(&mut d);
    }
    let mut lowering = Lowering::default();
    let mut report = Report {
        warnings,
        ..Report::default()
    };
    // A call site inside a function that another site differentiates
    // (nested derivatives) is replaced first, and its derivative built,
    // so that the outer function is differentiated with it in place.
    let mut waiting = sites;
    while !waiting.is_empty() {
        let callers: HashSet<Function> = waiting
            .iter()
            .map(|cs| cs.call.parent_block().parent())
            .collect();
        let (mut ready, rest): (Vec<CallSite>, Vec<CallSite>) = waiting
            .into_iter()
            .partition(|cs| !reaches_any(cs.function, &callers));
        if ready.is_empty() {
            ready = rest;
            waiting = Vec::new();
        } else {
            waiting = rest;
        }
        for cs in &ready {
            // Re-read the operands: lowering earlier sites may have replaced
            // values this call uses (a tape from __enzyme_augmentfwd).
            let caller = cs.call.parent_block().parent().name();
            let cs = match callsite::parse(cs.call, cs.entry, &caller, &mut memo) {
                Ok(cs) => cs,
                Err(d) => {
                    diags.push(d);
                    continue;
                }
            };
            match lowering.lower(&cs, &mut session) {
                Ok(()) => report.call_sites += 1,
                Err(mut d) => diags.append(&mut d),
            }
        }
        if let Err(mut d) = session.synthesize_pending() {
            diags.append(&mut d);
        }
    }
    if !diags.is_empty() {
        session.abandon();
        // The forward and the reverse sweep may refuse the same
        // instruction for the same reason: say it once.
        let mut seen = Vec::new();
        diags.retain(|d| {
            let new = !seen.contains(d);
            if new {
                seen.push(d.clone());
            }
            new
        });
        return Err(diags);
    }
    if let Err(d) = lowering
        .patch_tape_sizes(&session)
        .and_then(|()| session.finish_contexts())
    {
        session.abandon();
        return Err(vec![d]);
    }
    report.derivatives = session.derivatives();
    report.instructions_before = instructions_before;
    report.timings = session.timings().clone();
    report.warnings.extend(session.warnings().iter().cloned());
    report.explanations = session
        .explanations()
        .iter()
        .map(|e| e.to_string())
        .collect();
    session.commit();
    // What is left of the synthesis clock once preprocessing and analyses,
    // which ran inside it, are taken out.
    report.timings.synthesis = synthesis_start
        .elapsed()
        .saturating_sub(report.timings.preprocess + report.timings.analyses);
    registrations::remove(m);
    let iter_left = enz_core::lower_iteration_counts(m);
    if let Some(i) = iter_left.first() {
        return Err(vec![Diagnostic::new(
            "`__enzyme_iter` must be called directly with two integers and return an integer",
        )
        .in_function(i.parent_block().parent().name())
        .at(*i)]);
    }
    clean_up_api_symbols(m);
    let leftovers = leftover_api_references(m);
    if !leftovers.is_empty() {
        return Err(leftovers);
    }
    if let Some(trace) = opts.trace_functions {
        for f in functions(m) {
            trace(&format!("--- {}", f.name()));
            for b in f.blocks() {
                for i in b.instructions() {
                    trace(&i.to_ir());
                }
            }
        }
    }
    // Source locations: the functions enz-rs made get subprograms of their
    // own, their primal locations inlined into them (`enz_ir::debug_info`).
    for f in functions(m) {
        if !f.is_declaration() {
            crate::ir::adopt_locations(f, !input_functions.contains(&f.name()));
        }
    }
    // Synthesis bugs must surface as diagnostics, not as crashes in the
    // optimiser: verify before optimising too.
    let t = &mut report.timings;
    timed(&mut t.verify, || verify(m)).map_err(|e| {
        vec![Diagnostic::internal(format_args!(
            "the synthesised derivatives do not verify (this is a bug in enz-rs): {e}"
        ))]
    })?;
    if opts.opt_level > 0 {
        // mem2reg first: the adjoint slots (one alloca per active value)
        // are promoted in linear time; SROA, which `default<On>` starts
        // with, took 87% of the time on a function of 4,000 statements
        // (13.6 s of 15.6 s) and grew quadratically.
        let pipeline = format!("function(mem2reg),default<O{}>", opts.opt_level.min(3));
        timed(&mut t.post_optimisation, || run_module_passes(m, &pipeline)).map_err(|e| {
            vec![Diagnostic::internal(format_args!(
                "post-optimisation failed (this is a bug in enz-rs): {e}"
            ))]
        })?;
    }
    timed(&mut t.verify, || verify(m)).map_err(|e| {
        vec![Diagnostic::internal(format_args!(
            "the differentiated module does not verify (this is a bug in enz-rs): {e}"
        ))]
    })?;
    report.instructions_after = count_instructions(m);
    Ok(report)
}

/// Instructions in all function bodies of the module.
fn count_instructions<'m>(m: Module<'m>) -> usize {
    functions(m)
        .iter()
        .flat_map(|f| f.blocks())
        .map(|b| b.instructions().len())
        .sum()
}

/// Whether `f` contains, or calls (through defined functions), a function
/// in `targets`.
fn reaches_any<'m>(f: Function<'m>, targets: &HashSet<Function<'m>>) -> bool {
    let mut seen = HashSet::new();
    let mut stack = vec![f];
    while let Some(g) = stack.pop() {
        if targets.contains(&g) {
            return true;
        }
        if !seen.insert(g) {
            continue;
        }
        for b in g.blocks() {
            for i in b.instructions() {
                if let Some(c) = i.called_function() {
                    if !c.is_declaration() {
                        stack.push(c);
                    }
                }
            }
        }
    }
    false
}

/// Removes what the `__enzyme_*` API leaves behind: dead marker loads,
/// unused marker globals and entry-point declarations. A marker global still
/// in use gets a weak definition so that the module links.
fn clean_up_api_symbols<'m>(m: Module<'m>) {
    for gv in globals(m) {
        if Marker::is_marker_global(&gv.name()) {
            remove_dead_users(gv.as_value());
            if gv.is_declaration() {
                if gv.has_uses() {
                    // Still read or stored by the program (a marker copied
                    // into a local): a private zero under another name.
                    let name = gv.name();
                    gv.define_private_zero();
                    gv.as_value().set_name(&format!("enz.marker.{name}"));
                } else {
                    gv.delete_global();
                }
            }
        }
    }
    for f in functions(m) {
        if f.is_declaration() && !f.has_uses() && EntryPoint::from_callee(&f.name()).is_some() {
            f.delete_function();
        }
    }
}

/// A call to an `__enzyme_*` function enz-rs does not implement
/// (`__enzyme_error_estimate`, ...): a diagnostic now,
/// rather than an undefined symbol at link time.
fn unsupported_api_call<'m>(i: Value<'m>, caller: &str) -> Option<Diagnostic> {
    let f = i.called_function_of_call_or_invoke()?;
    let name = f.name();
    if !f.is_declaration() || !name.contains("__enzyme_") || enz_core::is_iteration_count(&name) {
        return None;
    }
    Some(
        Diagnostic::new(format!("`{name}` is not supported by enz-rs"))
            .in_function(caller)
            .at(i)
            .help("the supported entry points are __enzyme_autodiff, __enzyme_fwddiff, __enzyme_augmentfwd, __enzyme_reverse, __enzyme_fwdsplit, __enzyme_error_estimate, __enzyme_virtualreverse, __enzyme_batch, __enzyme_fixed_point, __enzyme_checkpoint_for and __enzyme_checkpoint_while"),
    )
}

/// Declarations of the `__enzyme_*` / `enzyme_*` API that something still
/// uses after lowering (a function pointer to `__enzyme_autodiff`, an
/// unknown marker): each would be an undefined symbol at link time, so
/// each is a diagnostic naming its first user.
fn leftover_api_references<'m>(m: Module<'m>) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut report = |g: Value| {
        let name = g.name();
        if !g.is_declaration() || !is_api_symbol(&name) || !g.has_uses() {
            return;
        }
        let mut d = Diagnostic::new(format!(
            "`{name}` is still referenced after differentiation (only direct calls to the entry points and activity markers as call arguments are understood)"
        ))
        .help("call the entry point directly, e.g. __enzyme_autodiff((void *)f, ...), rather than through a pointer or from data");
        let users = g.users();
        if let Some(u) = users.iter().find_map(|u| u.as_inst()) {
            d = d.in_function(u.parent_block().parent().name()).at(u);
        } else if let Some(holder) = users.iter().find_map(|u| global_holding(*u)) {
            d.message
                .push_str(&format!("; it is stored in the global `{}`", holder.name()));
        }
        out.push(d);
    };
    for f in functions(m) {
        report(f.as_value());
    }
    for g in globals(m) {
        report(g.as_value());
    }
    out
}

/// The global variable whose initializer contains the constant `c`.
fn global_holding<'m>(c: Value<'m>) -> Option<Value<'m>> {
    let mut stack = vec![c];
    let mut seen = HashSet::new();
    while let Some(v) = stack.pop() {
        if v.is_global_variable() {
            return Some(v);
        }
        if seen.insert(v) && !v.is_instruction() {
            stack.extend(v.users());
        }
    }
    None
}

/// Erases unused loads (and casts) of a global, transitively.
fn remove_dead_users<'m>(v: Value<'m>) {
    for u in v.users() {
        if let Some(u) = u.as_inst() {
            remove_dead_users(u.as_value());
            if !u.has_uses() && u.opcode() == Some(crate::ir::LLVMOpcode::LLVMLoad) {
                u.erase();
            }
        }
    }
}
