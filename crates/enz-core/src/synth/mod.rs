//! Synthesis: building derivative functions from a preprocessed function and
//! the analyses' facts. Synthesis never re-runs an analysis.

pub(crate) mod adjoint;
pub(crate) mod emit;
pub(crate) mod reverse;
pub(crate) mod rules;
