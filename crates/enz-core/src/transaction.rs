//! All or nothing on a module the library does not own: work that may fail
//! runs first on a scratch copy of the module, and touches the module
//! itself only once that attempt has succeeded, so that a failure leaves
//! the caller's module exactly as it was (a plugin inside clang, opt or a
//! linker must be able to report an error and carry on).
//!
//! The copy lives in the module's context and is disposed of when the
//! attempt ends; no handle into it outlives the attempt (the handles
//! borrow it).

use crate::ir::{Module, ScratchModule};

/// Which run of the work this is.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Attempt {
    /// On the scratch copy: anything may fail, nothing is kept. Work that
    /// cannot fail (optimisation, tracing) may be left out.
    Trial,
    /// On the module itself, after the trial succeeded.
    Commit,
}

/// Runs `work` on a scratch copy of `module`, then, if that succeeded, on
/// `module` itself. On failure `module` is untouched and the trial's error
/// is returned.
///
/// `work` must be deterministic in what it may fail on (the same input
/// module gives the same outcome); the work is done twice when it
/// succeeds.
pub fn all_or_nothing<'m, T, E>(
    module: Module<'m>,
    work: impl for<'s> Fn(Module<'s>, Attempt) -> Result<T, E>,
) -> Result<T, E> {
    {
        let scratch = ScratchModule::copy_of(module);
        work(scratch.module(), Attempt::Trial)?;
    }
    work(module, Attempt::Commit)
}
