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

mod abi;
mod analysis;
mod callsite;
mod diag;
mod gpu;
mod inspect;
mod ir;
mod lower;
mod names;
mod pipeline;
mod preprocess;
mod synth;
mod timing;

pub use diag::Diagnostic;
pub use gpu::retarget_to_host;
pub use inspect::{print_activity, print_type_analysis};
pub use ir::{install_fatal_error_handler, limit_address_space};
pub use pipeline::{differentiate_module, Options, Report};
pub use timing::Timings;

/// The inkwell version enz-core is built against, for callers that load and
/// write modules.
pub use inkwell;
