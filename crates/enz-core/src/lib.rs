//! enz-core: the AD crate of enz-rs, automatic differentiation of LLVM IR.
//!
//! Its API is front-end neutral: a front end (the Enzyme C API crate,
//! `enz-enzyme-api`; later the pass plugin and the Rust front end) opens a
//! [`Session`] over a module with what the user declared ([`UserFacts`]),
//! asks for derivatives by [`Request`] (function, activity of each
//! parameter and of the return, mode), and calls them through the one
//! [`Signature`] of each (the derivative ABI, `signature.rs`). The session
//! declares, synthesises and finally commits or abandons them. Inside,
//! data flows one way:
//!
//! ```text
//!   Session ─► registry (declare; worklist of callees' derivatives)
//!     ─► preprocess (clone, inline, clean up, sanitize)
//!     ─► analysis (cfg, loops, activity, types, writes)
//!     ─► synth (rules; reverse, forward, custom, gpu) ─► commit
//! ```
#![deny(missing_docs)]
// `unsafe` lives in the enz-ir crate only (the layer over the LLVM C API);
// the compiler refuses it here.
#![forbid(unsafe_code)]

mod analysis;
mod diag;
mod explain;
mod facts;
mod gpu;
mod inspect;
/// The IR layer (its own crate, the only one with `unsafe`), under the
/// name the modules of this crate use for it.
use enz_ir as ir;
mod names;
mod options;
mod preprocess;
mod session;
mod signature;
mod synth;
mod timing;
mod transaction;
mod transform;

pub use analysis::calls::{AllocationLike, CustomRules};
pub use diag::Diagnostic;
pub use explain::{Allocation, CachedValue, Explanation, LoopPlan, Strategy};
pub use facts::pointer_params_holding_no_floats;
pub use gpu::retarget_to_host;
pub use inspect::{print_abi, print_activity, print_plan, print_type_analysis};
pub use names::{
    function_like_spelling, is_api_symbol, is_iteration_count, CheckpointLayout, CheckpointOption,
    EntryPoint, FixedPointLayout, FixedPointOption, Marker, CHECKPOINT_FOR, CHECKPOINT_LOOP,
    CHECKPOINT_WHILE, CONTEXT_NEW, CONTEXT_SHADOW, CONTEXT_ZERO, CTX_ENTER, CTX_LEAVE, CTX_NEW,
    CTX_SHADOW, CTX_ZERO, DEFAULT_MAX_ITERS, DEFAULT_REDUCTION, FIXED_POINT, FIXED_POINT_LOOP,
    SET_FIXED_POINT,
};
pub use preprocess::lower_iteration_counts;
pub use session::{
    CacheBudget, Derivative, LoopMode, Session, SessionOptions, UserFacts, DEFAULT_GPU_THREAD_CACHE,
};
pub use signature::{ArgActivity, Canonical, Field, Kind, Mode, Param, Request, Signature};
#[cfg(feature = "fault-injection")]
pub use synth::rules::fault::{inject as inject_fault, Fault};
pub use timing::{timed, Timings};
pub use transaction::{all_or_nothing, Attempt};

/// The inkwell version enz-core is built against, for callers that load and
/// write modules.
pub use inkwell;
