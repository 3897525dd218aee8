//! Deliberate mistakes, for the mutation check of the test net
//! (`scripts/mutation-check.sh`): compiled only with the
//! `fault-injection` feature (off by default, never in a release), so
//! that a build can be made wrong in known ways and the tests shown to
//! fail. The library reads no environment: the enz-rs binary, built with
//! the feature, reads `ENZ_RS_FAULT` and calls [`inject`] once before
//! differentiating.

use std::sync::atomic::{AtomicU8, Ordering};

/// A known way to be wrong.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The `fmul` rule forgets its second operand's term: `d(a*b)` is
    /// `b*da` (reverse and forward mode, through the rule table).
    DropFmulTerm,
    /// Forward mode stores no tangent of a float into shadow memory
    /// (`synth/forward.rs`, `store`).
    SkipShadowStore,
}

/// 0: none; otherwise `Fault as u8 + 1`.
static ACTIVE: AtomicU8 = AtomicU8::new(0);

/// Makes every later derivative of this process wrong the way `f` says.
pub fn inject(f: Fault) {
    ACTIVE.store(f as u8 + 1, Ordering::Relaxed);
}

/// Whether `f` was injected.
pub(crate) fn active(f: Fault) -> bool {
    ACTIVE.load(Ordering::Relaxed) == f as u8 + 1
}
