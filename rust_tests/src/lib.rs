//! Helpers for the tests: central finite differences and a checker.
//!
//! Every test in `tests/` checks each derivative it computes against an
//! analytic value (`TOL_AD`) and against central finite differences of the
//! primal (`TOL_FD`); f32 functions with `TOL_AD_F32` and `TOL_FD_F32`.

/// Central finite difference of `f` at `x` along coordinate `i`.
pub fn fd(f: &dyn Fn(&[f64]) -> f64, x: &[f64], i: usize) -> f64 {
    let h = 1e-6 * (1.0 + x[i].abs());
    let mut up = x.to_vec();
    let mut down = x.to_vec();
    up[i] += h;
    down[i] -= h;
    (f(&up) - f(&down)) / (up[i] - down[i])
}

/// Central finite difference of `f` at `x` along the direction `dir`: the
/// tangent `f'(x) dir` that forward mode computes.
pub fn fd_dir(f: &dyn Fn(&[f64]) -> f64, x: &[f64], dir: &[f64]) -> f64 {
    assert_eq!(x.len(), dir.len(), "a direction per coordinate");
    let scale = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let h = 1e-6 * (1.0 + scale);
    let up: Vec<f64> = x.iter().zip(dir).map(|(v, d)| v + h * d).collect();
    let down: Vec<f64> = x.iter().zip(dir).map(|(v, d)| v - h * d).collect();
    (f(&up) - f(&down)) / (2.0 * h)
}

/// Central finite difference of an f32 function at `x`: step
/// 1e-3 (1 + |x|), the quotient in f64 over the step actually taken.
pub fn fd_f32(f: &dyn Fn(f32) -> f32, x: f32) -> f64 {
    let h = 1e-3 * (1.0 + x.abs());
    let (up, down) = (x + h, x - h);
    (f64::from(f(up)) - f64::from(f(down))) / (f64::from(up) - f64::from(down))
}

use std::sync::atomic::{AtomicUsize, Ordering};

static CHECKS: AtomicUsize = AtomicUsize::new(0);

/// How many checks `close` has passed in this process (a test binary
/// without libtest, `harness = false`, reports it).
pub fn checks_passed() -> usize {
    CHECKS.load(Ordering::Relaxed)
}

/// Asserts |got - want| <= tol * (1 + |want|), both finite.
#[track_caller]
pub fn close(what: &str, got: f64, want: f64, tol: f64) {
    CHECKS.fetch_add(1, Ordering::Relaxed);
    assert!(
        got.is_finite() && want.is_finite() && (got - want).abs() <= tol * (1.0 + want.abs()),
        "{what}: got {got}, want {want}"
    );
}

/// AD vs analytic.
pub const TOL_AD: f64 = 1e-9;
/// AD vs finite differences.
pub const TOL_FD: f64 = 1e-5;
/// AD vs analytic, f32.
pub const TOL_AD_F32: f64 = 1e-4;
/// AD vs finite differences, f32.
pub const TOL_FD_F32: f64 = 2e-2;
