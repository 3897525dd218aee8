//! A differentiation session over one module: the front-end-neutral API
//! of the AD crate.
//!
//! A front end (today the Enzyme C API lowering of `__enzyme_*` call
//! sites) asks for derivatives by [`Request`]; the session declares them,
//! synthesises their bodies (and those of the callees' derivatives they
//! need, from a worklist), and owns what it added to the module until the
//! front end either [commits](Session::commit) or
//! [abandons](Session::abandon) the session. The front end never sees the
//! registry, the preprocessed clones or the synthesis requests.

use crate::analysis::calls::Direction;
use crate::diag::Diagnostic;
use crate::ir::{Builder, Function, Global, Ty};
use crate::signature::{Kind, Mode, Request};
use crate::synth::forward::{synthesize_forward, ForwardRequest};
use crate::synth::registry::Registry;
use crate::synth::reverse::{self, new_function, synthesize, GradientRequest};
use crate::timing::Timings;
use std::collections::HashMap;

pub use crate::options::{
    CacheBudget, LoopMode, SessionOptions, UserFacts, DEFAULT_GPU_THREAD_CACHE,
};
pub use crate::synth::reverse::Derivative;

/// The derivatives of one module.
pub struct Session<'m> {
    registry: Registry<'m>,
    /// Combined-mode gradients, in the order they were made.
    gradients: Vec<(Request<'m>, Function<'m>)>,
    /// Forward derivatives asked for by the front end, in order.
    forwards: Vec<Function<'m>>,
    tape_sizes: HashMap<Request<'m>, u64>,
    made: usize,
    /// Contexts of global shadows are in use (`synth/context.rs`): the
    /// module and the most lanes a context has.
    contexts: Option<(crate::ir::Module<'m>, u32)>,
}

impl<'m> Session<'m> {
    /// A session over the module of the functions it will be asked about.
    pub fn new(opts: SessionOptions, facts: UserFacts<'m>) -> Session<'m> {
        Session {
            registry: Registry::new(opts, facts),
            gradients: Vec::new(),
            forwards: Vec::new(),
            tape_sizes: HashMap::new(),
            made: 0,
            contexts: None,
        }
    }

    /// The front end lowered calls of Enzyme's context API in `module`
    /// (`synth/context.rs`), with contexts of up to `lanes` lanes.
    pub fn use_contexts(&mut self, module: crate::ir::Module<'m>, lanes: u32) {
        let most = self.contexts.map_or(1, |(_, l)| l).max(lanes);
        self.contexts = Some((module, most));
    }

    /// Gives global `g` a shadow (a context may hold it before any
    /// derivative needs it), and makes it active memory in every
    /// derivative made from now on (the program reads or seeds its
    /// shadow).
    pub fn shadow_global(&mut self, g: crate::ir::Global<'m>) -> Result<(), Diagnostic> {
        self.registry.seed_globals([g.as_value()]);
        self.registry
            .shadow_global(g, Direction::Reverse)
            .map(|_| ())
    }

    /// Defines the context helpers the front end declared, once every
    /// derivative is made (before [`Session::commit`]).
    pub fn finish_contexts(&mut self) -> Result<(), Diagnostic> {
        match self.contexts {
            Some((module, lanes)) => {
                crate::synth::context::define(&mut self.registry, module, lanes)
            }
            None => Ok(()),
        }
    }

    /// The combined-mode gradient `diffe_f` for `req` (a [`Mode::Combined`]
    /// or [`Mode::CombinedVector`] request), synthesised now; made once per
    /// request.
    pub fn gradient(
        &mut self,
        req: &crate::signature::Request<'m>,
    ) -> Result<Function<'m>, Vec<Diagnostic>> {
        if let Some((_, g)) = self.gradients.iter().find(|(r, _)| r == req) {
            return Ok(*g);
        }
        self.registry.seed_api_loop_globals(req.function);
        let name = req.function.name();
        // Checkpointed loops are calls, which vector reverse mode does not
        // take: a vector gradient keeps its loops.
        let prep = match req.mode {
            Mode::CombinedVector { .. } => self.registry.prep(req.function),
            _ => self.registry.prep_for_gradient(req.function, true),
        }
        .map_err(|d| vec![d])?;
        let (kind, width) = match req.mode {
            Mode::CombinedVector { width } => (Kind::VectorGradient { width }, width),
            _ => (Kind::Gradient, 1),
        };
        let fty = req.signature(kind).function_type();
        let g = new_function(prep, &format!("diffe_{name}"), fty);
        let greq = GradientRequest {
            prep,
            name: &name,
            args: &req.args,
            ret_active: req.ret_active,
            ret_shadowed: req.ret_shadowed,
            mode: reverse::Mode::Combined,
            width,
            release: None,
            team: crate::synth::openmp::runs_in_team(req.function),
        };
        let fns = Derivative {
            forward: g,
            reverse: g,
        };
        if let Err(d) = synthesize(&greq, fns, &mut self.registry) {
            g.delete_function();
            return Err(d);
        }
        self.made += 1;
        self.gradients.push((req.clone(), g));
        Ok(g)
    }

    /// The augmented forward and reverse functions for `req` (a
    /// [`Mode::Split`] request): declared now, synthesised by
    /// [`Session::synthesize_pending`].
    pub fn split(&mut self, req: &Request<'m>) -> Result<Derivative<'m>, Diagnostic> {
        self.registry.seed_api_loop_globals(req.function);
        self.registry.split(req)
    }

    /// The forward derivative for `req` (a [`Mode::Forward`] or
    /// [`Mode::ForwardSplit`] request) that
    /// the front end calls: declared now, synthesised by
    /// [`Session::synthesize_pending`].
    pub fn forward(&mut self, req: &Request<'m>) -> Result<Function<'m>, Diagnostic> {
        self.registry.seed_api_loop_globals(req.function);
        let f = self.registry.forward(req)?;
        if !self.forwards.contains(&f) {
            self.forwards.push(f);
        }
        Ok(f)
    }

    /// The shadow of function `f` as a pointer value: the table of its
    /// derivatives on the canonical ABI that a call through the pointer in
    /// a derivative of `mode` uses (`synth/function_shadow.rs`); the
    /// derivatives are built with the pending ones.
    pub fn function_shadow(
        &mut self,
        f: Function<'m>,
        mode: Mode,
    ) -> Result<Global<'m>, Diagnostic> {
        let direction = if mode.is_forward() {
            Direction::Forward
        } else {
            Direction::Reverse
        };
        self.registry.function_shadow(f, direction)
    }

    /// The shadow of constant pointer `c` for derivatives of `mode`: a
    /// global's shadow (for a global holding functions, such as a C++
    /// vtable, its copy with every function replaced by its shadow table),
    /// a function's shadow table, through constant casts and GEPs; `None`
    /// for other constants.
    pub fn constant_shadow(
        &mut self,
        c: crate::ir::Value<'m>,
        mode: Mode,
    ) -> Result<Option<crate::ir::Value<'m>>, Diagnostic> {
        let direction = if mode.is_forward() {
            Direction::Forward
        } else {
            Direction::Reverse
        };
        crate::synth::shadow::shadow_constant(c, direction, &mut self.registry)
    }

    /// Builds every derivative declared but not yet synthesised.
    pub fn synthesize_pending(&mut self) -> Result<(), Vec<Diagnostic>> {
        let registry = &mut self.registry;
        let mut diags = Vec::new();
        loop {
            if let Some((key, fns)) = registry.take_pending() {
                let name = key.function.name();
                let release = registry.release_of(&key);
                // Split mode checkpoints loops (and takes mixed mode) too, its augmented forward
                // function saving the state on the tape; not for a tape a
                // release function frees (a checkpointed loop's tape has
                // none), nor in a checkpointed loop's own body.
                let prep = if release.is_none() && !registry.is_checkpoint_body(key.function) {
                    registry.prep_for_gradient(key.function, false)
                } else {
                    registry.prep(key.function)
                }
                .map_err(|d| vec![d])?;
                let req = GradientRequest {
                    prep,
                    name: &name,
                    args: &key.args,
                    ret_active: key.ret_active,
                    ret_shadowed: key.ret_shadowed,
                    mode: reverse::Mode::Split,
                    width: 1,
                    release,
                    team: crate::synth::openmp::runs_in_team(key.function),
                };
                match synthesize(&req, fns, registry) {
                    Ok(size) => {
                        self.tape_sizes.insert(key, size);
                        self.made += 1;
                    }
                    Err(mut d) => diags.append(&mut d),
                }
            } else if let Some((key, fns, outlined, budget)) = registry.take_pending_checkpoint() {
                match crate::synth::checkpoint::synthesize(&key, fns, &outlined, budget, registry) {
                    Ok(()) => self.made += 1,
                    Err(mut d) => diags.append(&mut d),
                }
            } else if let Some((key, f)) = registry.take_pending_forward() {
                let name = key.function.name();
                let prep = registry.prep(key.function).map_err(|d| vec![d])?;
                let (width, release) = match key.mode {
                    Mode::Forward { width } => (width, None),
                    Mode::ForwardError => (1, None),
                    Mode::ForwardSplit => {
                        let split = key.split_counterpart();
                        let release = registry.release_of(&split).ok_or_else(|| {
                            vec![Diagnostic::internal(
                                "a forward split derivative without its release function",
                            )]
                        })?;
                        (1, Some((release, split.signature(Kind::Reverse))))
                    }
                    _ => {
                        return Err(vec![Diagnostic::internal(
                            "a pending forward derivative has a reverse-mode request",
                        )])
                    }
                };
                let req = ForwardRequest {
                    prep,
                    name: &name,
                    args: &key.args,
                    width,
                    release,
                    error: key.mode == Mode::ForwardError,
                };
                match synthesize_forward(&req, f, registry) {
                    Ok(()) => self.made += 1,
                    Err(mut d) => diags.append(&mut d),
                }
            } else {
                break;
            }
        }
        if diags.is_empty() {
            Ok(())
        } else {
            Err(diags)
        }
    }

    /// The size in bytes of the tape of the split derivative of `req`,
    /// once synthesised.
    pub fn tape_size(&self, req: &Request<'m>) -> Option<u64> {
        self.tape_sizes.get(req).copied()
    }

    /// Derivative functions synthesised so far.
    pub fn derivatives(&self) -> usize {
        self.made
    }

    /// What each derivative made so far does with its loops (`--explain`),
    /// in the order they were made.
    pub fn explanations(&self) -> &[crate::explain::Explanation] {
        &self.registry.out.explanations
    }

    /// What may stop a derivative made so far at run time (a GPU loop
    /// whose per-thread caches may not fit: the kernel traps), as text.
    pub fn warnings(&self) -> &[String] {
        &self.registry.out.warnings
    }

    /// Time spent in preprocessing and analyses so far.
    pub fn timings(&self) -> &Timings {
        &self.registry.out.timings
    }

    /// Ends a successful session: the preprocessed clones are deleted, and
    /// every derivative the front end calls starts by zeroing the shadow
    /// globals (those holding function tables: by restoring their initial
    /// contents), so that no adjoint or tangent survives from one call to
    /// the next.
    pub fn commit(mut self) {
        self.registry.delete_clones();
        let globals = self.registry.private_shadow_globals();
        let initialised = self.registry.initialised_shadow_globals();
        if globals.is_empty() && initialised.is_empty() {
            return;
        }
        let entries = self
            .gradients
            .iter()
            .map(|(_, g)| *g)
            .chain(self.forwards.iter().copied());
        let reset = self
            .contexts
            .map(|(module, _)| crate::synth::context::define_reset(module, &globals, &initialised));
        for f in entries {
            let Some(first) = f.entry_block().first_instruction() else {
                continue;
            };
            let b = Builder::new(first.context());
            b.position_before(first);
            if let Some(reset) = reset {
                b.call(reset.function_type(), reset, &[]);
                continue;
            }
            for g in &globals {
                let ty = g.global_value_type();
                let bytes = b.const_int(Ty::int(b.ctx(), 64), ty.alloc_size(g.module()) as i64);
                b.memset_zero(g.as_value(), bytes);
            }
            // Shadows holding function tables start from their contents.
            for (g, init) in &initialised {
                let ty = g.global_value_type();
                let bytes = b.const_int(Ty::int(b.ctx(), 64), ty.alloc_size(g.module()) as i64);
                b.memcpy(g.as_value(), init.as_value(), bytes);
            }
        }
    }

    /// Ends a failed session: the clones and the callees' derivatives are
    /// deleted (combined-mode gradients stay, for call sites already
    /// rewritten to them).
    pub fn abandon(mut self) {
        self.registry.delete_clones();
        self.registry.delete_derivatives();
    }
}
