//! What a front end passes to a session: the options of differentiation
//! and what the user declared about the module. A leaf of the crate: the
//! session, the registry and the transforms read these types; nothing here
//! names them.

use crate::analysis::calls::CustomRules;
use crate::ir::{Function, Global};
use std::collections::{HashMap, HashSet};

/// How the functions to differentiate are prepared.
#[derive(Copy, Clone, Debug)]
pub struct SessionOptions {
    /// Run the clean-up pipeline on each function's clone first.
    pub preopt: bool,
    /// Inline calls to the module's functions into the clone (the fast
    /// path); without it every callee gets its own derivative.
    pub inline: bool,
    /// The bytes one gradient call's loop caches may hold: loops that
    /// qualify are checkpointed (`synth/checkpoint/`) so that their
    /// caches stay within it.
    pub cache_budget: CacheBudget,
    /// Which loops are differentiated in mixed mode (`--mode-per-loop`).
    pub loop_mode: LoopMode,
    /// `--gpu-thread-cache`: the bytes of loop caches each GPU thread
    /// keeps in a fixed stack array (NVPTX gradients; beyond them loops
    /// are recomputed, see `synth/reverse/thread_cache.rs`).
    pub gpu_thread_cache: u64,
    /// Describe each cached value by its instruction's text in the
    /// explanations (`--explain`). Only then: printing an instruction
    /// walks the metadata its function reaches, which with debug
    /// information took most of the synthesis time of a C++ module.
    pub explain: bool,
}

/// The default of `--gpu-thread-cache`: the bytes of loop caches each GPU
/// thread keeps in a fixed array on its stack. A static frame of this size
/// needs no raised stack limit (checked on an H200: the driver sizes a
/// kernel's local memory for its static frame; CUDA's 1 KiB default limit
/// is for what is not static, such as dynamic `alloca`s).
pub const DEFAULT_GPU_THREAD_CACHE: u64 = 2048;

/// `--cache-budget`: the bytes one gradient call's loop caches may hold.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum CacheBudget {
    /// No bound: every loop caches every iteration, nothing is
    /// checkpointed.
    Off,
    /// Half the physical memory of the machine the gradient runs on, read
    /// when a checkpointed loop starts (`--cache-budget auto`, the CLI's
    /// and the plugin's default): a gradient whose caches would not fit
    /// runs slower instead of failing. A loop whose caches are bounded
    /// before it by less than half of that runs plainly, as under `Off`
    /// (`synth/checkpoint/choose.rs`).
    #[default]
    Machine,
    /// This many bytes.
    Bytes(u64),
}

/// `--mode-per-loop`: where mixed mode (`synth/mixed.rs`: each iteration's
/// partials by forward mode in the forward sweep, cached instead of its
/// intermediate values) is used.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum LoopMode {
    /// Nowhere: reverse mode in every loop.
    Reverse,
    /// In elementwise loops where it caches at most half the bytes
    /// reverse mode would (the CLI's and the plugin's default).
    #[default]
    Auto,
    /// In every elementwise loop.
    Mixed,
}

/// What the user declared about the module's functions and globals (read
/// by the front end from its own spelling of them).
#[derive(Clone, Debug, Default)]
pub struct UserFacts<'m> {
    /// Functions with no derivative (their results are constants).
    pub inactive: HashSet<Function<'m>>,
    /// Derivatives the user wrote, by function.
    pub custom: HashMap<Function<'m>, CustomRules<'m>>,
    /// Globals made active, with the user's shadow for each.
    pub global_shadows: HashMap<Global<'m>, Global<'m>>,
    /// Globals whose memory carries no derivative.
    pub inactive_globals: HashSet<Global<'m>>,
}
