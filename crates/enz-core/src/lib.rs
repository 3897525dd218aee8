//! enz-core: automatic differentiation of LLVM IR.
//!
//! Bitcode in, bitcode with derivatives out: every call to an `__enzyme_*`
//! entry point is replaced by a call to a synthesised derivative function.
//! The one entry point is [`differentiate_module`]; everything else is
//! internal. Data flows one way:
//!
//! ```text
//!   pipeline: callsite (markers) ─► lower (per entry point) ─► registry
//!     ─► preprocess ─► analysis (cfg, loops, activity, types, writes)
//!     ─► synth (rules; reverse, forward, custom, gpu) ─► verify ─► opt
//! ```
#![deny(missing_docs)]

// `unsafe` lives in `ir` only (the layer over the LLVM C API); the
// compiler refuses it everywhere else.
#[forbid(unsafe_code)]
mod abi;
#[forbid(unsafe_code)]
mod analysis;
#[forbid(unsafe_code)]
mod callsite;
#[forbid(unsafe_code)]
mod diag;
#[forbid(unsafe_code)]
mod gpu;
#[forbid(unsafe_code)]
mod inspect;
mod ir;
#[forbid(unsafe_code)]
mod lower;
#[forbid(unsafe_code)]
mod names;
#[forbid(unsafe_code)]
mod pipeline;
#[forbid(unsafe_code)]
mod preprocess;
#[forbid(unsafe_code)]
mod signature;
#[forbid(unsafe_code)]
mod synth;
#[forbid(unsafe_code)]
mod timing;

pub use diag::Diagnostic;
pub use gpu::retarget_to_host;
pub use inspect::{print_abi, print_activity, print_type_analysis};
pub use ir::{install_fatal_error_handler, limit_address_space};
pub use pipeline::{differentiate_module, Options, Report};
pub use timing::Timings;

/// The inkwell version enz-core is built against, for callers that load and
/// write modules.
pub use inkwell;
