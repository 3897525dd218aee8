//! Helpers for the tests: central finite differences and a checker.

/// Central finite difference of `f` at `x` along coordinate `i`.
pub fn fd(f: &dyn Fn(&[f64]) -> f64, x: &[f64], i: usize) -> f64 {
    let h = 1e-6 * (1.0 + x[i].abs());
    let mut up = x.to_vec();
    let mut down = x.to_vec();
    up[i] += h;
    down[i] -= h;
    (f(&up) - f(&down)) / (up[i] - down[i])
}

/// Asserts |got - want| <= tol * (1 + |want|), both finite.
#[track_caller]
pub fn close(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        got.is_finite() && want.is_finite() && (got - want).abs() <= tol * (1.0 + want.abs()),
        "{what}: got {got}, want {want}"
    );
}

/// AD vs analytic.
pub const TOL_AD: f64 = 1e-9;
/// AD vs finite differences.
pub const TOL_FD: f64 = 1e-5;
