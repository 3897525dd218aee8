//! `--print-type-analysis FN`, `--print-activity FN` and `--print-plan FN`
//! with what the user
//! declared through the API (inactive functions, active globals) taken
//! into account, as differentiation would.

use crate::pipeline::Options;
use crate::registrations::facts_for_synthesis;
use enz_core::{Diagnostic, SessionOptions};
use enz_ir::Module;

fn session_options(opts: &Options) -> SessionOptions {
    SessionOptions {
        preopt: opts.preopt,
        inline: opts.inline,
        cache_budget: opts.cache_budget,
        loop_mode: opts.loop_mode,
        gpu_thread_cache: opts.gpu_thread_cache,
        explain: opts.explain,
    }
}

/// Type analysis of function `name` (after preprocessing), one value per
/// line.
pub fn print_type_analysis<'m>(
    module: Module<'m>,
    name: &str,
    opts: &Options,
) -> Result<String, Diagnostic> {
    let facts = facts_for_synthesis(module).map_err(first)?;
    enz_core::print_type_analysis(module, name, session_options(opts), &facts)
}

/// Activity analysis of function `name` with the default activities
/// (floating parameters active, pointers with shadows, integers constant,
/// a floating return active), one value per line.
pub fn print_activity<'m>(
    module: Module<'m>,
    name: &str,
    opts: &Options,
) -> Result<String, Diagnostic> {
    let facts = facts_for_synthesis(module).map_err(first)?;
    enz_core::print_activity(module, name, session_options(opts), &facts)
}

/// The plan of the combined-mode gradient of function `name`: how each
/// value would reach the reverse sweep (used directly, recomputed, re-read
/// or cached), one value per line.
pub fn print_plan<'m>(
    module: Module<'m>,
    name: &str,
    opts: &Options,
) -> Result<String, Diagnostic> {
    let facts = facts_for_synthesis(module).map_err(first)?;
    enz_core::print_plan(module, name, session_options(opts), &facts)
}

/// The first of a non-empty list of diagnostics.
fn first(mut d: Vec<Diagnostic>) -> Diagnostic {
    d.swap_remove(0)
}
