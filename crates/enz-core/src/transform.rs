//! The transform stage, between preprocessing and synthesis: rewrites of
//! a preprocessed clone that change how it is differentiated, not what it
//! computes.
//!
//! - `checkpoint` outlines loops whose caches may exceed the cache budget
//!   into a driver, a body and a ranges function (`choose` keeps the
//!   plain form beside it where a bound picks one at run time);
//! - `mixed` outlines an elementwise loop's iteration into a function
//!   whose partials forward mode computes (mixed mode);
//! - `loop_clone` copies a loop's blocks into a function of their own and
//!   finds the values from before a loop that it reads, for both (and for
//!   synthesis, which replays loops);
//! - `loop_exit` computes the iteration a loop leaves at;
//! - `repeated` runs the earlier iterations of a loop that repeats one
//!   computation as primal code only, leaving one to differentiate.
//!
//! It reads the analyses and declares what it needs of synthesis through
//! [`mixed::DeclareForward`], never naming `synth`.

pub(crate) mod checkpoint;
pub(crate) mod choose;
pub(crate) mod loop_clone;
pub(crate) mod loop_exit;
pub(crate) mod mixed;
pub(crate) mod repeated;
