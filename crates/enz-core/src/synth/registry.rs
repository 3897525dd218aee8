//! The module-wide registry of derivatives: preprocessed clones, the
//! augmented-primal/reverse pairs of callees (declared first, so recursive
//! calls can refer to them, and filled in from a worklist), shadow globals,
//! and the functions the user declared inactive.

use super::reverse::{new_function, Derivative};
use crate::analysis::calls::CustomRules;
use crate::analysis::calls::{CallFacts, Direction};
use crate::analysis::types::TypeTree;
use crate::diag::Diagnostic;
use crate::ir::{add_internal_global, Function, Global, Value};
use crate::names::DECLARED_TYPE;
use crate::options::{SessionOptions, UserFacts};
use crate::preprocess::preprocess;
use crate::signature::{Kind, Mode, Request};
use std::collections::{HashMap, HashSet};

/// NVPTX's address space of block-shared memory.
pub(crate) const SHARED_ADDRESS_SPACE: u32 = 3;

/// Derivatives and shared state of one module: what the session was asked
/// to do (configuration, the user's declarations), the derivatives declared
/// and the worklists of those still to build, the clones they are built
/// from, the shadows of globals, and what is reported back.
pub(crate) struct Registry<'m> {
    /// The session's options (read only).
    pub(crate) config: SessionOptions,
    /// What the user declared about functions and globals.
    user: UserDecls<'m>,
    /// Derivatives declared, by request.
    made: Declared<'m>,
    /// Requests declared whose bodies are still to be built.
    work: Worklists<'m>,
    /// The preprocessed clones derivatives are built from.
    pub(crate) clones: Clones<'m>,
    /// Shadows of globals and of functions (`function_shadow.rs`).
    pub(super) shadows: GlobalShadows<'m>,
    /// What is reported back to the front end.
    pub(crate) out: Output,
    /// The functions whose out-of-line callees' globals were followed
    /// ([`Registry::shadow_globals_reached_from`]).
    shadows_followed: HashSet<Function<'m>>,
}

/// What the user declared about the module's functions and globals.
struct UserDecls<'m> {
    /// Functions with no derivative.
    inactive: HashSet<Function<'m>>,
    /// Derivatives the user wrote, by function.
    custom: HashMap<Function<'m>, CustomRules<'m>>,
    /// Shadows the user registered for globals (never zeroed by enz-rs).
    global_shadows: HashMap<Global<'m>, Global<'m>>,
    /// The globals of `global_shadows`, as values, and the writable
    /// globals fixed-point steps reach (see [`Registry::seed_globals`]).
    shadowed: HashSet<Value<'m>>,
    /// Whether the globals of the module's API loop steps were added to
    /// `shadowed` (see [`Registry::seed_api_loop_globals`]).
    api_loops_seeded: bool,
    /// Globals the user declared inactive.
    inactive_globals: HashSet<Value<'m>>,
}

/// The derivatives declared so far, by request.
#[derive(Default)]
struct Declared<'m> {
    forward: HashMap<Request<'m>, Function<'m>>,
    split: HashMap<Request<'m>, Derivative<'m>>,
    /// Release functions of split requests (for `__enzyme_fwdsplit`): the
    /// reverse sweep doing nothing but frees, so the tape is freed.
    release: HashMap<Request<'m>, Function<'m>>,
}

/// The requests whose bodies are still to be built.
#[derive(Default)]
struct Worklists<'m> {
    split: Vec<Request<'m>>,
    forward: Vec<Request<'m>>,
    /// Split pairs of checkpointed loop drivers.
    checkpoint: Vec<Request<'m>>,
}

/// The preprocessed clones of the module's functions.
#[derive(Default)]
pub(crate) struct Clones<'m> {
    prepped: HashMap<Function<'m>, Function<'m>>,
    /// Preprocessed clones with their checkpointed loops outlined and
    /// elementwise loops rewritten (for combined-mode gradients and split
    /// pairs), by function and whether checkpointing looked past the final
    /// stores (see [`Registry::prep_for_gradient`]).
    for_gradient: HashMap<(Function<'m>, bool), Function<'m>>,
    /// Per function, its first preprocessed clone, kept as it was made
    /// (with the functions whose calls it kept), which later clones copy.
    templates: HashMap<Function<'m>, (Function<'m>, HashSet<Function<'m>>)>,
    /// What callers know of each function's pointer parameters (see
    /// [`Registry::seed_parameter_types`]).
    param_seeds: HashMap<Function<'m>, HashMap<usize, TypeTree>>,
    /// The outlined loops, by driver.
    checkpointed: HashMap<Function<'m>, crate::transform::checkpoint::Outlined<'m>>,
    /// Per gradient clone (`prep_for_gradient`): what `--explain` adds
    /// about its loops (why not checkpointed, which are mixed).
    pub(crate) plan_notes: HashMap<Function<'m>, Vec<String>>,
    /// Per gradient clone, under an explicit `--cache-budget`: the loops
    /// checkpointing could not bound, each with why (warned of when
    /// compiling; the gradient reports them when a call passes the budget).
    pub(crate) unbounded: HashMap<Function<'m>, Vec<String>>,
}

/// The shadows enz-rs made for globals and functions.
#[derive(Default)]
pub(super) struct GlobalShadows<'m> {
    globals: HashMap<Global<'m>, Global<'m>>,
    /// The shadows of lanes 1, 2, ... of vector modes (lane 0's is in
    /// `globals`): each lane's tangents or adjoints of a global apart.
    lanes: HashMap<(Global<'m>, u32), Global<'m>>,
    /// Globals whose shadow is being made (their initializer may point
    /// back to them).
    pub(super) in_progress: HashSet<Global<'m>>,
    /// Shadow tables of functions (see `function_shadow`).
    pub(super) functions: HashMap<Function<'m>, Global<'m>>,
    /// The vector widths (above 1) of the forward derivatives every shadow
    /// table with a forward entry holds (`function_shadow.rs`).
    pub(super) table_widths: std::collections::BTreeSet<u32>,
    /// Wrappers standing for bodiless functions in shadow tables.
    pub(super) wrappers: HashMap<Function<'m>, Function<'m>>,
    /// Shadows of writable globals holding function pointers, with the
    /// constant copy of their initial contents restored on entry.
    initialised: Vec<(Global<'m>, Global<'m>)>,
}

/// What the session reports back.
#[derive(Default)]
pub(crate) struct Output {
    /// Time spent in preprocessing and analyses (synthesis adds to it).
    pub(crate) timings: crate::timing::Timings,
    /// What `--explain` says about each derivative made, in order.
    pub(crate) explanations: Vec<crate::explain::Explanation>,
    /// What may stop a derivative at run time without a diagnostic now
    /// (a GPU loop whose per-thread caches may not fit), for the user.
    pub(crate) warnings: Vec<String>,
}

impl<'m> Registry<'m> {
    pub(crate) fn new(opts: SessionOptions, facts: UserFacts<'m>) -> Registry<'m> {
        let UserFacts {
            inactive,
            custom,
            global_shadows,
            inactive_globals,
        } = facts;
        Registry {
            config: opts,
            user: UserDecls {
                inactive,
                custom,
                shadowed: global_shadows.keys().map(|g| g.as_value()).collect(),
                api_loops_seeded: false,
                inactive_globals: inactive_globals.iter().map(|g| g.as_value()).collect(),
                global_shadows,
            },
            made: Declared::default(),
            work: Worklists::default(),
            clones: Clones::default(),
            shadows: GlobalShadows::default(),
            out: Output::default(),
            shadows_followed: HashSet::new(),
        }
    }

    /// What the user declared about functions, for classifying calls.
    pub(crate) fn call_facts(&self) -> CallFacts<'m, '_> {
        CallFacts {
            inactive: &self.user.inactive,
            custom: &self.user.custom,
        }
    }

    /// Globals with a user-registered shadow, and those of
    /// [`Registry::seed_globals`]: shadowed in every activity analysis.
    pub(crate) fn user_shadowed_globals(&self) -> &HashSet<Value<'m>> {
        &self.user.shadowed
    }

    /// Shadows, in the activity analyses made from now on, the globals that
    /// carry derivatives in the functions `prep` calls out of line
    /// (`analysis::global_activity`), once per function.
    pub(crate) fn shadow_globals_reached_from(&mut self, prep: Function<'m>) {
        if !self.shadows_followed.insert(prep) {
            return;
        }
        let reached = crate::analysis::global_activity::shadowed_globals_reached(
            prep,
            self.call_facts(),
            &self.user.shadowed,
            &self.user.inactive_globals,
        );
        self.user.shadowed.extend(reached);
    }

    /// Shadows, once per session, the writable globals the steps of the
    /// module's API loop functions (fixed-point and checkpointed loops)
    /// reach, before any analysis: the code around such a loop reads what
    /// its steps write (a state kept in a global), and its analysis cannot
    /// see through the loop function, whose derivatives are made apart.
    pub(crate) fn seed_api_loop_globals(&mut self, any: Function<'m>) {
        if self.user.api_loops_seeded {
            return;
        }
        self.user.api_loops_seeded = true;
        for f in crate::ir::functions(any.global_parent()) {
            if !crate::analysis::calls::is_api_loop(f) {
                continue;
            }
            if let Ok(step) = super::loop_fn::step_of(f) {
                self.user
                    .shadowed
                    .extend(super::loop_fn::step_globals(step));
            }
        }
    }

    /// Shadows `globals` in the activity analyses made from now on: the
    /// writable globals an API loop's step reaches, whose activity its
    /// caller cannot pass it (its derivatives are analysed on their own).
    pub(crate) fn seed_globals(&mut self, globals: impl IntoIterator<Item = Value<'m>>) {
        self.user.shadowed.extend(globals);
    }

    /// The user's allocators (`__enzyme_allocation_like`), by function.
    pub(crate) fn allocators(
        &self,
    ) -> HashMap<Function<'m>, crate::analysis::calls::AllocationLike<'m>> {
        self.user
            .custom
            .iter()
            .filter_map(|(f, r)| r.allocation.map(|a| (*f, a)))
            .collect()
    }

    /// Globals the user declared inactive.
    pub(crate) fn user_inactive_globals(&self) -> &HashSet<Value<'m>> {
        &self.user.inactive_globals
    }

    /// The user's tangent function for `f`, if registered.
    pub(crate) fn custom_forward(&self, f: Function<'m>) -> Option<Function<'m>> {
        self.user.custom.get(&f).and_then(|c| c.forward)
    }

    /// The user's (augmented, reverse) functions for `f`, if registered.
    pub(crate) fn custom_gradient(&self, f: Function<'m>) -> Option<(Function<'m>, Function<'m>)> {
        self.user.custom.get(&f).and_then(|c| c.gradient)
    }

    /// The forward derivative for `key` (a [`Mode::Forward`] request),
    /// declared now and synthesised later (see
    /// [`Registry::take_pending_forward`]); for a function with a
    /// registered tangent function, an adapter calling it.
    pub(crate) fn forward(
        &mut self,
        key: &crate::signature::Request<'m>,
    ) -> Result<Function<'m>, Diagnostic> {
        let (kind, prefix) = match key.mode {
            Mode::Forward { width } => (Kind::Forward { width }, "fwddiffe"),
            Mode::ForwardError => (Kind::Forward { width: 1 }, "fwderror"),
            Mode::ForwardSplit => (Kind::ForwardSplit, "fwdsplit"),
            _ => {
                return Err(Diagnostic::internal(
                    "a forward derivative was asked for a reverse-mode request",
                ))
            }
        };
        if let Some(f) = self.made.forward.get(key) {
            return Ok(*f);
        }
        if let Some(layout) = super::fixed_point::layout_of(key.function) {
            let f = super::fixed_point::forward(key, layout, self)?;
            self.made.forward.insert(key.clone(), f);
            return Ok(f);
        }
        if let Some(user) = self.custom_forward(key.function) {
            if kind == Kind::ForwardSplit {
                return Err(Diagnostic::new(format!(
                    "__enzyme_fwdsplit of `{}`, which has a custom tangent function, is not supported",
                    key.function.name()
                ))
                .help("call __enzyme_fwddiff instead"));
            }
            let f = super::custom::forward_adapter(key, user)?;
            self.made.forward.insert(key.clone(), f);
            return Ok(f);
        }
        if kind == Kind::ForwardSplit {
            self.release(&key.split_counterpart())?;
        }
        let prep = self.prep(key.function)?;
        let fty = key.signature(kind).function_type();
        let f = new_function(prep, &format!("{prefix}_{}", key.function.name()), fty);
        self.made.forward.insert(key.clone(), f);
        self.work.forward.push(key.clone());
        Ok(f)
    }

    /// The next forward derivative whose body is still to be built.
    pub(crate) fn take_pending_forward(&mut self) -> Option<(Request<'m>, Function<'m>)> {
        let k = self.work.forward.pop()?;
        let f = self.made.forward[&k];
        Some((k, f))
    }

    /// A new preprocessed clone of `f` (calls of the functions the user
    /// declared something about stay calls).
    fn fresh_clone(&mut self, f: Function<'m>) -> Result<Function<'m>, Diagnostic> {
        let keep: HashSet<Function> = self
            .user
            .inactive
            .iter()
            .chain(self.user.custom.keys())
            .copied()
            .collect();
        let (preopt, inline) = (self.config.preopt, self.config.inline);
        let template = match self.clones.templates.get(&f) {
            Some((t, kept)) if *kept == keep => *t,
            _ => {
                let t = crate::timing::timed(&mut self.out.timings.preprocess, || {
                    preprocess(f, preopt, inline, &keep)
                })
                .map_err(|d| d.in_function(f.name()))?;
                crate::preprocess::keep_as_template(t);
                if let Some((old, _)) = self.clones.templates.insert(f, (t, keep)) {
                    old.delete_function();
                }
                t
            }
        };
        let clone = crate::preprocess::copy_preprocessed(template);
        self.apply_param_seeds(f, clone);
        Ok(clone)
    }

    /// The preprocessed clone of `f`, made once.
    pub(crate) fn prep(&mut self, f: Function<'m>) -> Result<Function<'m>, Diagnostic> {
        if let Some(p) = self.clones.prepped.get(&f) {
            return Ok(*p);
        }
        let p = self.fresh_clone(f)?;
        self.clones.prepped.insert(f, p);
        Ok(p)
    }

    /// Seeds the type analysis of `f`'s derivatives with what a caller
    /// knows of its pointer arguments (`seeds`: parameter index and the
    /// caller's tree of the argument), joined with what earlier call sites
    /// said and kept as `enzyme_type` attributes on `f`'s preprocessed
    /// clones, those made already and those made later. A function called
    /// with untyped pointers whose caller knows they point to doubles (a
    /// copy helper under `--no-inline`) can then have its copies
    /// differentiated. A seed that contradicts an earlier one is dropped;
    /// seeds that come after `f`'s derivatives were built change nothing.
    pub(crate) fn seed_parameter_types(&mut self, f: Function<'m>, seeds: &[(usize, TypeTree)]) {
        let known = self.clones.param_seeds.entry(f).or_default();
        let mut changed = false;
        for (k, seed) in seeds {
            let tree = known.entry(*k).or_default();
            let mut joined = tree.clone();
            let mut conflicts = Vec::new();
            if joined.merge_checked(seed, &mut conflicts) && conflicts.is_empty() {
                *tree = joined;
                changed = true;
            }
        }
        if !changed {
            return;
        }
        let clones = [
            self.clones.prepped.get(&f),
            self.clones.for_gradient.get(&(f, true)),
            self.clones.for_gradient.get(&(f, false)),
        ];
        for clone in clones.into_iter().flatten() {
            self.apply_param_seeds(f, *clone);
        }
    }

    /// Writes the seeds of `f` onto its preprocessed clone `clone`.
    fn apply_param_seeds(&self, f: Function<'m>, clone: Function<'m>) {
        let Some(seeds) = self.clones.param_seeds.get(&f) else {
            return;
        };
        for (k, tree) in seeds {
            let index = *k as u32 + 1;
            let mut declared = clone
                .string_attribute_at(index, DECLARED_TYPE)
                .and_then(|s| TypeTree::parse_enzyme(&s))
                .unwrap_or_default();
            let mut conflicts = Vec::new();
            declared.merge_checked(tree, &mut conflicts);
            if conflicts.is_empty() {
                clone.add_string_attribute_at(index, DECLARED_TYPE, &declared.to_enzyme());
            }
        }
    }

    /// The preprocessed clone of `f` for a gradient (combined mode, or split
    /// mode without a release function): with a
    /// cache budget (not on a GPU) or mixed mode, a clone of its own
    /// whose loops that qualify are outlined to be checkpointed
    /// (`analysis::checkpoint`) or rewritten for mixed mode
    /// (`analysis::elementwise`); else [`Registry::prep`]'s. One clone per
    /// function, shared by its combined gradients and split pairs, except
    /// under an explicit budget: a combined gradient makes its final stores
    /// after its reverse sweep, so its clone may checkpoint loops past them
    /// (a promise to keep); a split pair's may not. Under the machine's
    /// budget the loops this would admit run plainly anyway, and the driver
    /// call they would leave behind may write anything for the loads before
    /// it, which could then not be re-read.
    pub(crate) fn prep_for_gradient(
        &mut self,
        f: Function<'m>,
        combined: bool,
    ) -> Result<Function<'m>, Diagnostic> {
        let mixed = self.config.loop_mode != crate::options::LoopMode::Reverse;
        // On a GPU each thread would checkpoint on its own, through the
        // device heap: mixed mode only (a kernel's grid-stride loop).
        let checkpoint = self.config.cache_budget != crate::options::CacheBudget::Off
            && !crate::synth::gpu::is_gpu_module(f);
        if !checkpoint && !mixed {
            return self.prep(f);
        }
        let past_final_stores = combined
            && matches!(
                self.config.cache_budget,
                crate::options::CacheBudget::Bytes(_)
            );
        let key = (f, past_final_stores);
        if let Some(p) = self.clones.for_gradient.get(&key) {
            return Ok(*p);
        }
        let p = self.fresh_clone(f)?;
        self.clones.for_gradient.insert(key, p);
        let mut notes = Vec::new();
        if checkpoint {
            let (outlined, why_not) = crate::transform::checkpoint::outline_checkpointed(
                p,
                self.call_facts(),
                self.config.cache_budget,
                past_final_stores,
            )
            .map_err(|e| {
                Diagnostic::internal(format_args!(
                    "outlining a loop to checkpoint failed (this is a bug in enz-rs): {e}"
                ))
                .in_function(f.name())
            })?;
            // Loops versioned on a run-time overlap check: checkpointed
            // when it finds the ranges disjoint, else plain (unbounded).
            let mut versioned = Vec::new();
            for mut o in outlined {
                o.function = f.name();
                if let Some((lp, check)) = &o.versioned {
                    versioned.push((lp.clone(), check.clone()));
                }
                self.clones.checkpointed.insert(o.driver, o);
            }
            // An explicit budget that a loop may exceed is said at
            // compile time (under the machine's budget, the default, a
            // loop with no bound before it runs plainly by design).
            if let crate::options::CacheBudget::Bytes(bytes) = self.config.cache_budget {
                let mb = bytes >> 20;
                for why in &why_not {
                    self.out.warnings.push(format!(
                        "--cache-budget {mb} (MB) may be exceeded: in `{}`, {why}; its caches grow with its trip count",
                        f.name(),
                    ));
                }
                for (lp, check) in &versioned {
                    self.out.warnings.push(format!(
                        "--cache-budget {mb} (MB) may be exceeded: in `{}`, {lp} is checkpointed unless a run-time check of {check} finds that they overlap; then it runs plainly and its caches grow with its trip count",
                        f.name(),
                    ));
                }
                let mut unbounded = why_not.clone();
                unbounded.extend(versioned.iter().map(|(lp, check)| {
                    format!("{lp} ran plainly: a run-time check of {check} found that they overlap")
                }));
                if !unbounded.is_empty() {
                    self.clones.unbounded.insert(p, unbounded);
                }
            }
            notes = why_not;
            notes.extend(versioned.iter().map(|(lp, check)| {
                format!("{lp} is versioned on a run-time overlap check of {check}: checkpointed when they are disjoint, else it runs plainly, its caches growing with its trip count")
            }));
        }
        if mixed {
            notes.extend(self.mixed_loops(p)?);
        }
        self.clones.plan_notes.insert(p, notes);
        Ok(p)
    }

    /// Rewrites the elementwise loops of preprocessed clone `p` for mixed
    /// mode; what `--explain` says of them.
    fn mixed_loops(&mut self, p: Function<'m>) -> Result<Vec<String>, Diagnostic> {
        use crate::analysis::calls::{CallKinds, Direction};
        let one_element = crate::transform::mixed::loop_around_gpu_body(p);
        let cfg = crate::analysis::cfg::Cfg::new(p);
        let kinds = CallKinds::of(p, self.call_facts(), Direction::Reverse);
        let everywhere = self.config.loop_mode == crate::options::LoopMode::Mixed;
        let nest = crate::analysis::loops::LoopNest::new(&cfg).ok();
        let found = nest.as_ref().map_or_else(Vec::new, |loops| {
            crate::analysis::elementwise::find(&cfg, loops, &kinds, everywhere)
        });
        let Some(loops) = nest.filter(|_| !found.is_empty()) else {
            // A body without loops: the loop made for it (the only
            // candidate) goes again.
            if let Some(w) = one_element {
                w.remove();
            }
            return Ok(Vec::new());
        };
        let mut notes = Vec::new();
        for (n, e) in found.iter().enumerate() {
            let m = crate::transform::mixed::rewrite(p, &cfg, &loops, e, n, self)?;
            let at = m.location.map(|a| format!(" at {a}")).unwrap_or_default();
            let what = match &one_element {
                Some(_) => {
                    "the kernel's body (one element a thread, a loop of one iteration)".to_string()
                }
                None => format!("loop {}{at}", e.lp.0),
            };
            notes.push(format!(
                "{what}: mixed (forward mode inside the iteration): {} partial{} cached per iteration ({} output{} by {} input{}) instead of about {} intermediate values",
                m.inputs * m.outputs,
                if m.inputs * m.outputs == 1 { "" } else { "s" },
                m.outputs,
                if m.outputs == 1 { "" } else { "s" },
                m.inputs,
                if m.inputs == 1 { "" } else { "s" },
                m.intermediates
            ));
        }
        // What the outputs were computed from is dead now, branches
        // included (else the reverse sweep would still record them).
        crate::ir::run_function_passes(p, "adce,simplifycfg,loop-simplify,lcssa").map_err(|e| {
            Diagnostic::internal(format_args!(
                "cleaning up after mixed mode failed (this is a bug in enz-rs): {e}"
            ))
        })?;
        crate::preprocess::give_invokes_their_own_normal_edge(p);
        Ok(notes)
    }

    /// Declares `f` inactive: calls of it carry no derivative.
    pub(crate) fn mark_inactive(&mut self, f: Function<'m>) {
        self.user.inactive.insert(f);
    }

    /// The next checkpointed loop driver whose derivative is still to be
    /// built, with its outlining and the cache budget.
    pub(crate) fn take_pending_checkpoint(
        &mut self,
    ) -> Option<(
        Request<'m>,
        Derivative<'m>,
        crate::transform::checkpoint::Outlined<'m>,
        crate::options::CacheBudget,
    )> {
        let k = self.work.checkpoint.pop()?;
        let d = self.made.split[&k];
        let o = self.clones.checkpointed[&k.function].clone();
        Some((k, d, o, self.config.cache_budget))
    }

    /// The augmented primal and reverse function for `key` (a
    /// [`Mode::Split`] request), declared now and synthesised later (see
    /// [`Registry::take_pending`]).
    pub(crate) fn split(
        &mut self,
        key: &crate::signature::Request<'m>,
    ) -> Result<Derivative<'m>, Diagnostic> {
        if let Some(d) = self.made.split.get(key) {
            return Ok(*d);
        }
        if let Some(layout) = super::fixed_point::layout_of(key.function) {
            let d = super::fixed_point::split(key, layout, self)?;
            self.made.split.insert(key.clone(), d);
            return Ok(d);
        }
        if let Some(layout) = super::checkpoint_loop::layout_of(key.function) {
            let d = super::checkpoint_loop::split(key, layout, self)?;
            self.made.split.insert(key.clone(), d);
            return Ok(d);
        }
        if let Some((aug, rev)) = self.custom_gradient(key.function) {
            let d = super::custom::gradient_adapters(key, aug, rev)?;
            self.made.split.insert(key.clone(), d);
            return Ok(d);
        }
        if self.clones.checkpointed.contains_key(&key.function) {
            let d = super::checkpoint::declare(key);
            self.made.split.insert(key.clone(), d);
            self.work.checkpoint.push(key.clone());
            return Ok(d);
        }
        let prep = self.prep(key.function)?;
        let name = key.function.name();
        let aug_ty = key.signature(Kind::Augmented).function_type();
        let forward = new_function(prep, &format!("augmented_{name}"), aug_ty);
        let rev_ty = key.signature(Kind::Reverse).function_type();
        let reverse = new_function(prep, &format!("reverse_{name}"), rev_ty);
        let d = Derivative { forward, reverse };
        self.made.split.insert(key.clone(), d);
        self.work.split.push(key.clone());
        Ok(d)
    }

    /// The release function of split request `key`: its reverse sweep with
    /// nothing but the frees (shadows of allocations, cache buffers, the
    /// tape), for a tape that no reverse sweep will read
    /// (`__enzyme_fwdsplit`). Built with the split pair, which must still
    /// be pending.
    pub(crate) fn release(&mut self, key: &Request<'m>) -> Result<Function<'m>, Diagnostic> {
        if let Some(f) = self.made.release.get(key) {
            return Ok(*f);
        }
        if super::fixed_point::layout_of(key.function).is_some() {
            return Err(Diagnostic::new(format!(
                "__enzyme_fwdsplit through the fixed-point loop `{}` is not supported",
                key.function.name()
            ))
            .help("call __enzyme_fwddiff or __enzyme_autodiff instead"));
        }
        if super::checkpoint_loop::layout_of(key.function).is_some() {
            return Err(Diagnostic::new(format!(
                "__enzyme_fwdsplit through the checkpointed loop `{}` is not supported",
                key.function.name()
            ))
            .help("call __enzyme_fwddiff or __enzyme_autodiff instead"));
        }
        if self.custom_gradient(key.function).is_some() {
            return Err(Diagnostic::new(format!(
                "__enzyme_fwdsplit of `{}`, which has a custom gradient, is not supported",
                key.function.name()
            ))
            .help("call __enzyme_fwddiff instead"));
        }
        let d = self.split(key)?;
        if !self.work.split.contains(key) {
            return Err(Diagnostic::internal(
                "the release function of a split derivative built already",
            ));
        }
        let prep = self.prep(key.function)?;
        let fty = d.reverse.function_type();
        let f = new_function(prep, &format!("release_{}", key.function.name()), fty);
        self.made.release.insert(key.clone(), f);
        Ok(f)
    }

    /// The release function declared for split request `key`, if any.
    pub(crate) fn release_of(&self, key: &Request<'m>) -> Option<Function<'m>> {
        self.made.release.get(key).copied()
    }

    /// Whether `f` is the body outlined from a checkpointed loop.
    pub(crate) fn is_checkpoint_body(&self, f: Function<'m>) -> bool {
        self.clones.checkpointed.values().any(|o| o.body == f)
    }

    /// The next split derivative whose body is still to be built.
    pub(crate) fn take_pending(&mut self) -> Option<(Request<'m>, Derivative<'m>)> {
        let k = self.work.split.pop()?;
        let d = self.made.split[&k];
        Some((k, d))
    }

    /// The shadow of global `g`: a zero-initialised private copy; where
    /// `g` holds function pointers, their shadow tables (see
    /// `function_shadow`), with the entries `direction` calls.
    pub(crate) fn shadow_global(
        &mut self,
        g: Global<'m>,
        direction: Direction,
    ) -> Result<Global<'m>, Diagnostic> {
        if let Some(s) = self.user.global_shadows.get(&g) {
            return Ok(*s);
        }
        self.shadows.in_progress.insert(g);
        let functions = match g.initializer() {
            Some(init) => self.shadow_initializer(init, direction, 0),
            None => Ok(None),
        };
        self.shadows.in_progress.remove(&g);
        let functions = functions?;
        if let Some(s) = self.shadows.globals.get(&g) {
            return Ok(*s);
        }
        let ty = g.global_value_type();
        let space = g.global_address_space();
        // GPU shared memory (address space 3) cannot be initialised: the
        // derivative zeroes it when it starts.
        let init = if let Some(f) = functions {
            f
        } else if space == SHARED_ADDRESS_SPACE {
            ty.undef_constant()
        } else {
            ty.null_constant()
        };
        let name = format!("{}_shadow", g.name());
        let align = g.global_alignment().max(8);
        let s = add_internal_global(g.global_parent(), &name, ty, space, init, align);
        // A thread-local global's shadow is one per thread too (reached
        // through `llvm.threadlocal.address` like the primal).
        if g.is_thread_local() {
            s.set_thread_local();
        }
        if functions.is_some() {
            if g.is_global_constant() {
                s.set_global_constant();
            } else {
                self.keep_initial_contents(s, init);
            }
        }
        self.shadows.globals.insert(g, s);
        Ok(s)
    }

    /// The shadow of global `g` in `lane` of a vector mode: lane 0's is
    /// [`Registry::shadow_global`]; every other lane has its own global,
    /// made like lane 0's (zero, or the same function tables).
    pub(crate) fn shadow_global_in_lane(
        &mut self,
        g: Global<'m>,
        direction: Direction,
        lane: u32,
    ) -> Result<Global<'m>, Diagnostic> {
        let first = self.shadow_global(g, direction)?;
        if lane == 0 {
            return Ok(first);
        }
        if let Some(s) = self.shadows.lanes.get(&(g, lane)) {
            return Ok(*s);
        }
        if self.user.global_shadows.contains_key(&g) {
            return Err(Diagnostic::new(format!(
                "the global `{}` has a shadow of the program's own, one for every lane of a vector derivative (enzyme_width), where each lane needs its own",
                g.name()
            ))
            .help("differentiate one direction at a time (no enzyme_width) for code using this global"));
        }
        let ty = g.global_value_type();
        let space = g.global_address_space();
        self.shadows.in_progress.insert(g);
        let own = match g.initializer() {
            Some(init) => self.shadow_initializer(init, direction, lane),
            None => Ok(None),
        };
        self.shadows.in_progress.remove(&g);
        let init = match own? {
            Some(init) => init,
            None if space == SHARED_ADDRESS_SPACE => ty.undef_constant(),
            None => ty.null_constant(),
        };
        let name = format!("{}_shadow{lane}", g.name());
        let align = g.global_alignment().max(8);
        let s = add_internal_global(g.global_parent(), &name, ty, space, init, align);
        if g.is_thread_local() {
            s.set_thread_local();
        }
        if first.is_global_constant() {
            s.set_global_constant();
        }
        if !init.is_undef_or_null() && !s.is_global_constant() {
            self.keep_initial_contents(s, init);
        }
        self.shadows.lanes.insert((g, lane), s);
        Ok(s)
    }

    /// Shadow global `s`, initialised with `init` (function tables,
    /// pointers into shadows), gets a constant copy of it: restored, not
    /// zeroed, when a derivative starts.
    fn keep_initial_contents(&mut self, s: Global<'m>, init: crate::ir::Value<'m>) {
        let copy = add_internal_global(
            s.global_parent(),
            &format!("{}.init", s.name()),
            s.global_value_type(),
            s.global_address_space(),
            init,
            s.global_alignment(),
        );
        copy.set_global_constant();
        self.shadows.initialised.push((s, copy));
    }

    /// Every global enz-rs shadows (not GPU shared memory, not the
    /// user's own shadows), with its shadow in each of `lanes` lanes
    /// (made where missing), by name: what a context
    /// (`synth/context.rs`) holds a copy of.
    pub(crate) fn shadow_globals_in_lanes(
        &mut self,
        lanes: u32,
    ) -> Result<Vec<(Global<'m>, Vec<Global<'m>>)>, Diagnostic> {
        let mut primal: Vec<Global<'m>> = self
            .shadows
            .globals
            .iter()
            .filter(|(_, s)| s.ty().address_space() != SHARED_ADDRESS_SPACE)
            .filter(|(_, s)| !s.is_global_constant())
            .map(|(g, _)| *g)
            .collect();
        primal.sort_by_cached_key(|g| g.name());
        let mut out = Vec::new();
        for g in primal {
            let shadows = (0..lanes.max(1))
                .map(|lane| self.shadow_global_in_lane(g, Direction::Reverse, lane))
                .collect::<Result<Vec<_>, _>>()?;
            out.push((g, shadows));
        }
        Ok(out)
    }

    /// Shadows of writable globals holding function pointers, each with
    /// the constant copy of its initial contents (restored, not zeroed,
    /// when a derivative starts).
    pub(crate) fn initialised_shadow_globals(&self) -> Vec<(Global<'m>, Global<'m>)> {
        let mut out = self.shadows.initialised.clone();
        out.sort_by_cached_key(|(g, _)| g.name());
        out
    }

    /// The zero-initialised shadows enz-rs made for globals (not the
    /// block-shared ones, which each gradient clears itself).
    pub(crate) fn private_shadow_globals(&self) -> Vec<Global<'m>> {
        let mut out: Vec<Global> = self
            .shadows
            .globals
            .values()
            .chain(self.shadows.lanes.values())
            .filter(|s| s.ty().address_space() != SHARED_ADDRESS_SPACE)
            .filter(|s| !s.is_global_constant())
            .filter(|s| !self.shadows.initialised.iter().any(|(x, _)| x == *s))
            .copied()
            .collect();
        // By name (unique in a module): the same input gives the same
        // output, whatever the map's order.
        out.sort_by_cached_key(|g| g.name());
        out
    }

    /// Deletes the preprocessed clones (they are only synthesis input).
    pub(crate) fn delete_clones(&mut self) {
        let module = self
            .clones
            .prepped
            .values()
            .chain(self.clones.for_gradient.values())
            .next()
            .map(|p| p.global_parent());
        for p in self
            .clones
            .prepped
            .values()
            .chain(self.clones.for_gradient.values())
        {
            p.delete_function();
        }
        for (t, _) in self.clones.templates.values() {
            t.delete_function();
        }
        self.clones.prepped.clear();
        self.clones.for_gradient.clear();
        self.clones.templates.clear();
        // The clones called the drivers of outlined loops; a derivative
        // still does where the loop was inactive (its call kept as it is).
        for o in self.clones.checkpointed.values() {
            if !o.driver.as_value().has_uses() {
                o.driver.delete_function();
            }
        }
        if let Some(m) = module {
            crate::transform::mixed::finish_linear_fns(m);
        }
    }

    /// Deletes every derivative made so far (after a failure).
    pub(crate) fn delete_derivatives(&mut self) {
        // The shadow tables refer to derivatives: empty them first.
        for t in self.shadows.functions.values() {
            t.set_initializer(t.global_value_type().null_constant());
        }
        for d in self.made.split.values() {
            d.forward.delete_function();
            d.reverse.delete_function();
        }
        self.made.split.clear();
        for f in self.made.forward.values() {
            f.delete_function();
        }
        self.made.forward.clear();
        // The bodies and ranges of outlined loops, which only their
        // (deleted) derivatives called.
        for o in std::mem::take(&mut self.clones.checkpointed).into_values() {
            o.body.delete_function();
            o.ranges.delete_function();
        }
    }
}

impl<'m> crate::transform::mixed::DeclareForward<'m> for Registry<'m> {
    fn declare_forward(&mut self, key: &Request<'m>) -> Result<Function<'m>, Diagnostic> {
        self.forward(key)
    }

    fn declare_inactive(&mut self, f: Function<'m>) {
        self.mark_inactive(f);
    }
}
