//! Helpers for the tests of rust_crates: rust_tests' central finite
//! differences and checker, and a whole-gradient check built on them.
//!
//! Every test in `tests/` checks each derivative it computes against an
//! analytic value (`TOL_AD`) and against central finite differences of the
//! primal (`TOL_FD`).

pub use rust_tests::{close, fd, fd_dir, TOL_AD, TOL_FD};

/// Checks a whole gradient `got` of `f` at `x`: as many entries as `x`
/// (at least one), each against `want` (analytic, `TOL_AD`) and against
/// central finite differences of `f` (`TOL_FD`).
#[track_caller]
pub fn check_gradient(what: &str, f: &dyn Fn(&[f64]) -> f64, x: &[f64], got: &[f64], want: &[f64]) {
    assert!(!x.is_empty(), "{what}: no coordinates to check");
    assert_eq!(got.len(), x.len(), "{what}: an adjoint per coordinate");
    assert_eq!(
        want.len(),
        x.len(),
        "{what}: an analytic value per coordinate"
    );
    for i in 0..x.len() {
        close(&format!("{what}[{i}]"), got[i], want[i], TOL_AD);
        close(&format!("{what}[{i}] vs FD"), got[i], fd(f, x, i), TOL_FD);
    }
}
