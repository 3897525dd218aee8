//! Allocation inside the differentiated code (release builds only for
//! now: in debug builds rustc leaves Vec's pointer in integer slots that
//! enz-rs's pre-optimisation turns into `inttoptr`, whose shadow enz-rs
//! cannot build; see crates/cargo-enz/tests/rust_tests.rs).
use enz::autodiff_reverse;
use rust_tests::{close, fd, TOL_AD, TOL_FD};

/// Allocates inside the differentiated code: `collect` into Vecs (an
/// exact-size iterator: one allocation each), read back by iterators.
#[autodiff_reverse(d_alloc, Duplicated, Active)]
fn alloc_heavy(x: &[f64]) -> f64 {
    let squares: Vec<f64> = x.iter().map(|v| v * v).collect();
    let waves: Vec<f64> = squares.iter().map(|s| s.sin() + 0.5 * s).collect();
    let exps: Vec<f64> = x.iter().map(|v| v.exp()).collect();
    waves.iter().sum::<f64>() + exps.iter().fold(0.0, |acc, v| acc + v * 2.0)
}

#[test]
fn allocation_inside() {
    let x = vec![0.3, -0.7, 1.2, 0.1, 0.9, -1.4, 0.05];
    let mut dx = vec![0.0; x.len()];
    d_alloc(&x, &mut dx, 1.0);
    let g = |v: &[f64]| alloc_heavy(v);
    for i in 0..x.len() {
        let want = 2.0 * x[i] * (x[i] * x[i]).cos() + x[i] + 2.0 * x[i].exp();
        close("analytic", dx[i], want, TOL_AD);
        close("FD", dx[i], fd(&g, &x, i), TOL_FD);
    }
}

