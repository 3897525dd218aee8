//! Preprocessing: a private, optimisable clone of the function to
//! differentiate.
//!
//! The clone drops `optnone`/`noinline` (clang -O0 output must work), has its
//! calls to defined functions inlined (cleaned up with
//! `sroa,early-cse,simplifycfg` after each round of inlining), and is run
//! through `sroa,early-cse,instcombine,simplifycfg` so that synthesis sees SSA values
//! instead of stack slots, then rewritten so that the derivative inherits
//! nothing from it that is only valid for the primal (`sanitize`). The
//! user's function is never modified.

mod devirtualize;
pub(crate) mod int_pointers;
mod integer_copies;
mod integer_floats;
mod iteration;
mod known_asm;
mod moves;
mod mpi;
mod openmp;
mod sanitize;
mod scratch_forwarding;
mod sort;

pub use iteration::lower_iteration_counts;

use crate::analysis::calls::{classify_callee, CallKind, Direction};
use crate::diag::Diagnostic;
use crate::ir::{
    add_internal_function, clone_body, run_function_passes, run_module_passes, Function, ValueMap,
};
use std::collections::{HashMap, HashSet};

/// The function-local clean-up pipeline run on the clone. `instcombine`
/// does not verify its fixpoint: in LLVM 22 a plain `instcombine` that needs
/// a second iteration calls `report_fatal_error` (as on ordinary -O0 C and
/// on Eigen code); LLVM's own pipelines turn the check off too.
const PREOPT_PIPELINE: &str =
    "sroa,early-cse,instcombine<no-verify-fixpoint>,simplifycfg,sroa,instcombine<no-verify-fixpoint>,loop-mssa(licm),fix-irreducible,loop-simplify,lcssa";

/// After loads were forwarded (`scratch_forwarding`): a scratch array
/// left with only stores and its `free` is removed, and the loop form
/// restored.
const AFTER_FORWARDING_PIPELINE: &str =
    "instcombine<no-verify-fixpoint>,loop(loop-deletion),simplifycfg,fix-irreducible,loop-simplify,lcssa";

/// The clean-up run on the clone after each round of inlining (with
/// clean-up on): calls inlined from rustc's or clang's -O0 output are
/// mostly stack slots and the branches of checks that fold away, so that
/// left alone they grow the clone to hundreds of thousands of
/// instructions (nalgebra's gemm at -O0: 515,000) that `PREOPT_PIPELINE`
/// then reduces to a few thousand at a cost that grows faster than their
/// number (promoting each stack slot walks the whole function); cleaned
/// up round by round the clone stays near its final size, and a branch
/// folded away takes its calls with it before they are inlined.
const INLINE_ROUND_PIPELINE: &str = "sroa,early-cse,simplifycfg";

/// What synthesis needs even without clean-up: cycles entered at one block
/// only (`fix-irreducible` routes the other entries through a new header:
/// the reverse sweep of a loop left from two blocks is such a cycle, and a
/// higher-order derivative differentiates it), loops with one preheader,
/// one latch and dedicated exits, and values leaving loops through phis.
const LOOP_FORM_PIPELINE: &str = "fix-irreducible,loop-simplify,lcssa";

/// How many rounds of inlining (each inlines one more level of calls):
/// libstdc++ at -O0 reaches a `memmove` through about a dozen levels
/// (`vector(first, last)` down to `__copy_m`), Eigen through dozens.
const INLINE_ROUNDS: usize = 64;

/// Makes the preprocessed clone of `func`. With `optimise` false, only the
/// clone and inlining are done.
pub(crate) fn preprocess<'m>(
    func: Function<'m>,
    optimise: bool,
    inline: bool,
    keep_calls_to: &HashSet<Function<'m>>,
) -> Result<Function<'m>, Diagnostic> {
    let failed = |e: String| {
        Diagnostic::internal(format_args!(
            "preprocessing failed (this is a bug in enz-rs): {e}"
        ))
    };
    let clone = internal_copy(func, &format!("preprocess_{}", func.name()));
    if inline {
        devirtualize::devirtualize_known_targets(clone);
        let between = optimise.then_some(INLINE_ROUND_PIPELINE);
        inline_calls(clone, keep_calls_to, between).map_err(failed)?;
    }
    refuse_float_input(func, clone)?;
    drop_zero_tangent_checks(clone);
    iteration::step_iteration_counts(clone, &[]);
    known_asm::replace_known_asm(clone);
    sort::rewrite_qsort_calls(clone);
    openmp::reductions_in_thread_code(clone);
    openmp::floats_by_reference(clone);
    mpi::waits_after_tests(clone);
    mpi::predefined_datatypes(clone);
    let pipeline = if optimise {
        PREOPT_PIPELINE
    } else {
        LOOP_FORM_PIPELINE
    };
    run_function_passes(clone, pipeline).map_err(failed)?;
    if inline && optimise {
        // The clean-up may have made a call through a pointer direct (a
        // local table of functions folded away) or its targets known:
        // inline those calls too, as vector reverse mode needs, and clean
        // up again. (Without clean-up between the rounds: what they
        // inline here is small, and an `__enzyme_iter` call already
        // stepped must not be merged with one just inlined.)
        let stepped = iteration::iteration_calls(clone);
        let direct = devirtualize::devirtualize_known_targets(clone);
        if inline_calls(clone, keep_calls_to, None).map_err(failed)? || direct {
            refuse_float_input(func, clone)?;
            drop_zero_tangent_checks(clone);
            iteration::step_iteration_counts(clone, &stepped);
            known_asm::replace_known_asm(clone);
            sort::rewrite_qsort_calls(clone);
            run_function_passes(clone, pipeline).map_err(failed)?;
        }
    }
    if optimise && scratch_forwarding::forward_scratch_loads(clone, keep_calls_to) {
        run_function_passes(clone, AFTER_FORWARDING_PIPELINE).map_err(failed)?;
    }
    // A loop repeating one computation: one iteration differentiated
    // (on a GPU each thread would run the repetitions through a call).
    if optimise
        && !crate::analysis::gpu::is_gpu_module(clone)
        && crate::transform::repeated::run_earlier_iterations_as_primal(clone) > 0
    {
        run_function_passes(clone, AFTER_FORWARDING_PIPELINE).map_err(failed)?;
    }
    sanitize::sanitize(clone)?;
    int_pointers::restore_pointer_phis(clone);
    int_pointers::restore_pointer_stores(clone);
    give_invokes_their_own_normal_edge(clone);
    Ok(clone)
}

/// Another preprocessed clone of the function `template` was made from
/// (by [`preprocess`]), copied from `template` instead of preprocessing
/// again: the same body, attributes and declared types. A function
/// differentiated both ways (its gradient and its forward derivative each
/// need a clone of their own) is inlined and cleaned up once; at -O0,
/// through Eigen, that is most of enz-rs's time.
pub(crate) fn copy_preprocessed<'m>(template: Function<'m>) -> Function<'m> {
    let name = template.name();
    internal_copy(
        template,
        name.strip_suffix(TEMPLATE_SUFFIX).unwrap_or(&name),
    )
}

/// What a template's name has after the clone's own (`preprocess_f`), so
/// that its copies get that name: the names of the functions made from a
/// clone (outlined checkpoint drivers, mixed-mode bodies) follow it.
const TEMPLATE_SUFFIX: &str = ".template";

/// Keeps preprocessed clone `clone` as the template later clones copy
/// ([`copy_preprocessed`]): renamed out of their way.
pub(crate) fn keep_as_template(clone: Function<'_>) {
    clone.set_name(&format!("{}{TEMPLATE_SUFFIX}", clone.name()));
}

/// An internal function `name` with `from`'s body, function attributes
/// (but `optnone`, `noinline`, `alwaysinline`), declared types and
/// `noalias` parameters.
fn internal_copy<'m>(from: Function<'m>, name: &str) -> Function<'m> {
    let copy = add_internal_function(from.global_parent(), name, from.function_type());
    copy_function_attributes(from, copy);
    copy_declared_types(from, copy);
    let mut map = ValueMap::default();
    for (k, (p, q)) in from.params().into_iter().zip(copy.params()).enumerate() {
        map.insert(p, q);
        q.set_name(&p.name());
        // What the writes analysis may rely on: a `restrict` pointer is
        // not written through another.
        if p.param_has_noalias() {
            copy.add_param_attribute(k, "noalias");
        }
    }
    clone_body(from, copy, &mut map, false);
    copy
}

/// Reading floats from a stream or file inside differentiated code (see
/// `names::reads_floats_from_input`) is a diagnostic when the same code
/// (the clone and the functions it still calls) also writes floats where
/// they could be read back (`names::writes_floats_to_output`): what is
/// read may then have been written from active data, a path no derivative
/// follows. Without such a write, what is read was there before the
/// derivative ran, a constant of it (a `std::stringstream` made from a
/// literal, an input file). Reads are those of the clone itself (a callee
/// kept out of line is checked when it is differentiated; one the user
/// declared inactive is not differentiated).
fn refuse_float_input<'m>(func: Function<'m>, clone: Function<'m>) -> Result<(), Diagnostic> {
    let mut reads = None;
    let mut writes = false;
    let mut seen = std::collections::HashSet::from([clone]);
    let mut todo = vec![clone];
    while let Some(f) = todo.pop() {
        for i in f.blocks().iter().flat_map(|b| b.instructions()) {
            let Some(callee) = i.called_function() else {
                continue;
            };
            let name = callee.name();
            if !callee.is_declaration() {
                if seen.insert(callee) {
                    todo.push(callee);
                }
            } else if f == clone && crate::names::reads_floats_from_input(&name) {
                reads = reads.or(Some((i, name)));
            } else if crate::names::writes_floats_to_output(&name) {
                writes = true;
            }
        }
    }
    match reads {
        Some((i, name)) if writes => Err(Diagnostic::new(format!(
            "`{name}` reads floating-point data from a stream or file inside differentiated code that also writes floating-point data out: what it reads may have been written from active data, a path no derivative follows"
        ))
        .in_function(func.name())
        .at(i)
        .help("read the data before differentiating and pass it as enzyme_const, or move the reading into a function listed in __enzyme_inactivefn if what it reads carries no derivative")),
        _ => Ok(()),
    }
}

/// A forward derivative differentiated again (a derivative of higher
/// order) runs its zero-tangent loops in full: the check before such a
/// loop (`synth/forward/zero_skip.rs`, a call of `__enz_all_zero`) is made
/// false. Skipping is exact for the derivative itself, but a tangent that
/// is zero only at this point (`sin` of 0) has a nonzero derivative, which
/// the copy without the tangent work would drop.
fn drop_zero_tangent_checks(func: Function<'_>) {
    let calls: Vec<_> = func
        .blocks()
        .iter()
        .flat_map(|b| b.instructions())
        .filter(|i| {
            i.called_function()
                .is_some_and(|f| f.name() == crate::names::ALL_ZERO)
        })
        .collect();
    for c in calls {
        let no = crate::ir::Builder::new(func.context()).const_int(c.ty(), 0);
        c.as_value().replace_all_uses_with(no);
        c.erase();
    }
}

/// C++ with exceptions: the clone keeps its `invoke`s and landing pads
/// (so that a derivative runs the primal's cleanups and handlers when a
/// call throws), with each invoke's normal destination a block of its own
/// (one predecessor, no phis): the reverse sweep of the call belongs to
/// that edge, and a call that threw has none. Run again after any later
/// `simplifycfg` of the clone (mixed mode's clean-up, checkpoint
/// outlining), which folds such an edge into the block it jumps to.
pub(crate) fn give_invokes_their_own_normal_edge(func: Function<'_>) {
    let invokes: Vec<_> = func
        .blocks()
        .into_iter()
        .filter_map(|b| b.terminator())
        .filter(|t| t.is_invoke())
        .collect();
    if invokes.is_empty() {
        return;
    }
    let mut preds: HashMap<crate::ir::Block, usize> = HashMap::new();
    for b in func.blocks() {
        for s in b.successors() {
            *preds.entry(s).or_default() += 1;
        }
    }
    for inv in invokes {
        let normal = inv.normal_dest();
        let has_phis = normal
            .first_instruction()
            .is_some_and(|i| i.opcode() == Some(crate::ir::LLVMOpcode::LLVMPHI));
        if preds.get(&normal).copied().unwrap_or(0) < 2 && !has_phis {
            continue;
        }
        let from = inv.parent_block();
        let edge = from.insert_block_after("invoke.normal");
        let b = crate::ir::Builder::new(func.context());
        b.position_at_end(edge);
        b.br(normal);
        inv.set_normal_dest(edge);
        normal.redirect_phi_incoming(from, edge);
    }
}

/// The `"enzyme_type"` attributes (type trees rustc writes on parameters
/// and the return value), copied onto the clone that analyses read.
fn copy_declared_types<'m>(from: Function<'m>, to: Function<'m>) {
    for index in 0..=from.params().len() as u32 {
        if let Some(t) = from.string_attribute_at(index, crate::names::DECLARED_TYPE) {
            to.add_string_attribute_at(index, crate::names::DECLARED_TYPE, &t);
        }
    }
}

/// Copies function attributes (target-cpu, target-features, ...) except the
/// ones that would stop optimisation.
fn copy_function_attributes<'m>(from: Function<'m>, to: Function<'m>) {
    from.copy_function_attributes_to(to, |name| {
        !matches!(name, "optnone" | "noinline" | "alwaysinline")
    });
    if let Some(p) = from.personality() {
        to.set_personality(p);
    }
}

/// Copies the attributes a derivative of `from` may carry: every string
/// attribute (target-cpu, target-features, denormal modes...) and the enum
/// attributes that stay true of code that also writes shadow memory,
/// allocates and frees (`nounwind`, `uwtable`).
pub(crate) fn copy_derivative_attributes<'m>(from: Function<'m>, to: Function<'m>) {
    from.copy_function_attributes_to(to, |name| matches!(name, "nounwind" | "uwtable"));
    // A derivative of an API loop function (a fixed-point or checkpointed
    // loop) is no such function: its parameters are laid out otherwise, and
    // a derivative of it (reverse over forward) differentiates its body.
    for marker in [
        crate::names::FIXED_POINT_LOOP,
        crate::names::CHECKPOINT_LOOP,
    ] {
        to.remove_string_attribute_at(u32::MAX, marker);
    }
    // Invokes and landing pads (C++ with exceptions) need the personality.
    if let Some(p) = from.personality() {
        to.set_personality(p);
    }
}

/// The fewest instructions of an optimised callee whose calls stay calls
/// (see [`kept_as_a_pair`]).
const LARGE_CALLEE: usize = 500;

/// Whether calls of `callee` stay calls, differentiated through its own
/// augmented forward and reverse functions (or forward derivative): a
/// function with at least [`LARGE_CALLEE`] instructions that is not
/// `optnone` (clang -O0 leaves every function out of line, mostly small
/// ones), on the CPU. Inlined at every level, such callees make one
/// function of a whole application (LULESH's `LagrangeLeapFrog` and
/// `LagrangeNodal`, 1,839 and 2,257 instructions, called from the time
/// loop), whose derivative the optimiser after differentiation handles
/// worse than the pairs (LULESH nx=20, 20 cycles: gradient / primal
/// 16.6 -> 10.4).
fn kept_as_a_pair(callee: Function<'_>) -> bool {
    // A fixed-point or checkpointed loop's derivatives are its own
    // (`synth/fixed_point.rs`, `synth/checkpoint_loop.rs`).
    if crate::analysis::calls::is_api_loop(callee) {
        return true;
    }
    if callee.has_enum_attribute("optnone")
        || callee.has_enum_attribute("alwaysinline")
        || crate::analysis::gpu::is_gpu_module(callee)
    {
        return false;
    }
    let mut n = 0;
    for b in callee.blocks() {
        n += b.instructions().len();
        if n >= LARGE_CALLEE {
            return true;
        }
    }
    false
}

/// Inlines, level by level, calls from `func` to functions defined in the
/// module (whether there was one): those the call classifier calls `Defined` (not math, memory or
/// known-inactive functions, not entry points, not those in
/// `keep_calls_to`: the user's inactive functions and those with custom
/// derivatives), and not recursive ones. `between`: a function pipeline
/// run on `func` after each round that inlined something.
fn inline_calls<'m>(
    func: Function<'m>,
    keep_calls_to: &HashSet<Function<'m>>,
    between: Option<&str>,
) -> Result<bool, String> {
    let no_rules = HashMap::new();
    // Whether a call to a callee is inlined, decided once per callee: only
    // `func` changes between rounds, and a large -O0 C++ module calls the
    // same helpers from thousands of sites.
    let mut inlinable: HashMap<Function<'m>, bool> = HashMap::new();
    // Every callee of a later round is reachable from `func` as it is now.
    // After a round, the new call sites in `func` are calls of the
    // functions the inlined callees call directly (found through their
    // uses, so that a function grown to tens of thousands of blocks is
    // not scanned again every round).
    let graph = CallGraph::below(func);
    let mut candidates: Option<HashSet<Function<'m>>> = None;
    let mut any = false;
    for _ in 0..INLINE_ROUNDS {
        let sites = match candidates.as_ref().and_then(|c| call_sites_of(func, c)) {
            Some(sites) => sites,
            None => func
                .blocks()
                .iter()
                .flat_map(|b| b.instructions())
                .filter(|i| i.called_function().is_some())
                .collect(),
        };
        let mut inlined = HashSet::new();
        for i in sites {
            let Some(callee) = i.called_function() else {
                continue;
            };
            let inline = *inlinable.entry(callee).or_insert_with(|| {
                let kind = classify_callee(callee, Direction::Reverse, keep_calls_to, &no_rules);
                matches!(kind, CallKind::Defined(_))
                    && callee != func
                    && !graph.recursive.contains(&callee)
                    && !kept_as_a_pair(callee)
            });
            // A call marked in an earlier round and still here is one
            // LLVM does not inline.
            if !inline || i.has_call_site_attribute("alwaysinline") {
                continue;
            }
            i.add_call_site_attribute("alwaysinline");
            inlined.insert(callee);
        }
        if inlined.is_empty() {
            break;
        }
        any = true;
        let mut next = HashSet::new();
        for callee in inlined {
            next.extend(graph.callees.get(&callee).into_iter().flatten().copied());
        }
        run_module_passes(func.global_parent(), "always-inline")?;
        if let Some(pipeline) = between {
            // May delete call sites (in branches folded away) and make
            // calls direct: the next round looks for the calls left of
            // the candidates, and the scan after the clean-up finds the
            // new direct ones.
            run_function_passes(func, pipeline)?;
        }
        // The pass deletes a discardable function (linkonce_odr, internal)
        // whose last call it inlined: keep only the functions still in the
        // module (no function is made meanwhile, so a handle to a deleted
        // one cannot name a new one).
        let live: HashSet<Function<'m>> = crate::ir::functions(func.global_parent())
            .into_iter()
            .collect();
        next.retain(|f| live.contains(f));
        candidates = Some(next);
    }
    Ok(any)
}

/// The calls in `func` of the functions `callees`, found through the
/// functions' uses; `None` where a function is used through something
/// other than an instruction (an alias, a constant expression), whose
/// calls only a scan of `func` finds.
fn call_sites_of<'m>(
    func: Function<'m>,
    callees: &HashSet<Function<'m>>,
) -> Option<Vec<crate::ir::Inst<'m>>> {
    let mut sites = Vec::new();
    // In a fixed order (the callees' names), so that the output does not
    // depend on a hash order.
    let mut sorted: Vec<_> = callees.iter().copied().collect();
    sorted.sort_by_cached_key(|f| f.name());
    for f in sorted {
        for u in f.as_value().users() {
            let i = u.as_inst()?;
            if i.parent_block().parent() == func {
                sites.push(i);
            }
        }
    }
    Some(sites)
}

/// The calls between the defined functions reachable from a root, each
/// function's body scanned once.
struct CallGraph<'m> {
    /// The defined functions each calls directly (each once).
    callees: HashMap<Function<'m>, Vec<Function<'m>>>,
    /// Those that can reach themselves (a cycle of calls, or a call to
    /// itself): Tarjan's strongly connected components.
    recursive: HashSet<Function<'m>>,
}

impl<'m> CallGraph<'m> {
    fn below(root: Function<'m>) -> CallGraph<'m> {
        use petgraph::graph::{DiGraph, NodeIndex};
        let mut graph: DiGraph<Function<'m>, ()> = DiGraph::new();
        let mut node: HashMap<Function<'m>, NodeIndex> = HashMap::new();
        let mut callees: HashMap<Function<'m>, Vec<Function<'m>>> = HashMap::new();
        let mut recursive = HashSet::new();
        node.insert(root, graph.add_node(root));
        let mut stack = vec![root];
        while let Some(g) = stack.pop() {
            let mut called = Vec::new();
            for b in g.blocks() {
                for i in b.instructions() {
                    let Some(c) = i.called_function() else {
                        continue;
                    };
                    if c.is_declaration() {
                        continue;
                    }
                    if c == g {
                        recursive.insert(g);
                    }
                    let to = *node.entry(c).or_insert_with(|| {
                        stack.push(c);
                        graph.add_node(c)
                    });
                    if graph.find_edge(node[&g], to).is_none() {
                        graph.add_edge(node[&g], to, ());
                        called.push(c);
                    }
                }
            }
            callees.insert(g, called);
        }
        for scc in petgraph::algo::tarjan_scc(&graph) {
            if scc.len() > 1 {
                recursive.extend(scc.into_iter().map(|n| graph[n]));
            }
        }
        CallGraph { callees, recursive }
    }
}
