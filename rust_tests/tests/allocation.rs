//! Allocation inside the differentiated code: `collect`, `push` past the
//! capacity (Vec's growth: `__rust_realloc`), `with_capacity`.
//!
//! Its own harness (`harness = false` in Cargo.toml), the case of a
//! program without libtest: `Vec`'s growth is compiled in the crate (in a
//! libtest binary it is libtest's precompiled `RawVec<f64>::grow_one`,
//! which tests/vec_growth.rs covers). It reports `allocation: N checks
//! passed`, the line crates/cargo-enz/tests/rust_tests.rs requires of such
//! a binary.
use enz::autodiff_reverse;
use rust_tests::{checks_passed, close, fd, TOL_AD, TOL_FD};

/// Allocates inside the differentiated code: `collect` into Vecs, a Vec
/// grown by `push` from empty (several reallocations), `with_capacity`.
#[autodiff_reverse(d_alloc, Duplicated, Active)]
fn alloc_heavy(x: &[f64]) -> f64 {
    let squares: Vec<f64> = x.iter().map(|v| v * v).collect();
    let mut waves = Vec::new();
    for s in &squares {
        waves.push(s.sin());
        waves.push(0.5 * s);
    }
    let mut exps = Vec::with_capacity(x.len());
    for v in x {
        exps.push(v.exp());
    }
    waves.iter().sum::<f64>() + exps.iter().fold(0.0, |acc, v| acc + v * 2.0)
}

fn main() {
    let x = vec![0.3, -0.7, 1.2, 0.1, 0.9, -1.4, 0.05];
    let mut dx = vec![0.0; x.len()];
    d_alloc(&x, &mut dx, 1.0);
    let g = |v: &[f64]| alloc_heavy(v);
    for i in 0..x.len() {
        let want = 2.0 * x[i] * (x[i] * x[i]).cos() + x[i] + 2.0 * x[i].exp();
        close("analytic", dx[i], want, TOL_AD);
        close("FD", dx[i], fd(&g, &x, i), TOL_FD);
    }
    println!("allocation: {} checks passed", checks_passed());
}

