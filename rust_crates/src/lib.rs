//! Helpers for the tests of rust_crates: central finite differences and a
//! checker.
//!
//! Every test in `tests/` checks each derivative it computes against an
//! analytic value (`TOL_AD`) and against central finite differences of the
//! primal (`TOL_FD`).

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

/// Asserts |got - want| <= tol * (1 + |want|), both finite.
#[track_caller]
pub fn close(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        got.is_finite() && want.is_finite() && (got - want).abs() <= tol * (1.0 + want.abs()),
        "{what}: got {got}, want {want}"
    );
}

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

/// AD vs analytic.
pub const TOL_AD: f64 = 1e-9;
/// AD vs finite differences.
pub const TOL_FD: f64 = 1e-5;
