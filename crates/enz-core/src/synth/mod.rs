//! Synthesis: building derivative functions from a preprocessed function and
//! the analyses' facts. Synthesis never re-runs an analysis.

pub(crate) mod adjoint;
pub(crate) mod custom;
pub(crate) mod emit;
pub(crate) mod forward;
pub(crate) mod gpu;
pub(crate) mod registry;
pub(crate) mod reverse;
pub(crate) mod rules;
pub(crate) mod runtime;
pub(crate) mod shadow;
pub(crate) mod tape;
