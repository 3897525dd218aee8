//! enz-enzyme-api: the Enzyme C API front end of enz-rs.
//!
//! It finds the calls to the `__enzyme_*` entry points in a module and
//! reads their activity markers (`callsite`), reads what the user declared
//! through the API's globals and attributes (inactive functions, custom
//! derivatives, active globals: `pipeline`), asks the AD crate's
//! [`enz_core::Session`] for each call's derivative by
//! [`enz_core::Request`], and rewrites the call to call it, converting
//! arguments and packing results with the C ABI of the caller's
//! declaration (`lower`, `abi`). Then it cleans up what the API leaves
//! behind, verifies and post-optimises.
//!
//! ```text
//!   pipeline: callsite (markers) ─► lower (per entry point) ─► Session
//!     ─► (AD crate: preprocess ─► analyses ─► synthesis) ─► commit
//!     ─► clean up API symbols ─► verify ─► post-optimise ─► verify
//! ```
#![deny(missing_docs)]
#![forbid(unsafe_code)]

mod abi;
mod annotations;
mod batch;
mod call_config;
mod callsite;
mod checkpoint_loop;
mod context;
mod fixed_point;
mod function_choice;
mod inspect;
mod loop_call;
mod lower;
mod pipeline;
mod registrations;
mod rust_runtime;
mod rust_vec;
mod virtual_tables;

/// The IR layer, under the name the modules of this crate use for it.
use enz_ir as ir;

pub use inspect::{print_activity, print_plan, print_type_analysis};
pub use pipeline::{
    differentiate_module, parse_cache_budget, parse_gpu_thread_cache, Options, Report,
};
pub use registrations::keep_registrations_for_later;

#[cfg(feature = "fault-injection")]
pub use enz_core::{inject_fault, Fault};
/// What the command line needs besides: diagnostics, the canonical ABI
/// printer, host retargeting of GPU modules, process guards, inkwell.
pub use enz_core::{
    inkwell, print_abi, retarget_to_host, CacheBudget, Diagnostic, LoopMode, Timings,
    DEFAULT_GPU_THREAD_CACHE,
};
pub use enz_ir::{install_fatal_error_handler, limit_address_space, Module};
