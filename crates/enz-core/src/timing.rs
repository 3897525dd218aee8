//! Where the time of a run goes, stage by stage (`enz-rs --time`).

use std::time::{Duration, Instant};

/// Accumulated time per pipeline stage.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Timings {
    /// Cloning and cleaning up functions before differentiation.
    pub preprocess: Duration,
    /// Activity, type, loop and memory analyses.
    pub analyses: Duration,
    /// Building derivative functions and replacing call sites.
    pub synthesis: Duration,
    /// The `default<On>` pipeline after differentiation.
    pub post_optimisation: Duration,
    /// Running the verifier (before and after post-optimisation).
    pub verify: Duration,
}

/// Runs `f`, adding its duration to `slot`.
pub fn timed<T>(slot: &mut Duration, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    let out = f();
    *slot += start.elapsed();
    out
}
