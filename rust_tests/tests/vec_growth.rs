//! `Vec::push` inside differentiated code, in an ordinary `#[test]`.
//!
//! libtest, linked into every test binary, holds precompiled instances of
//! `RawVec<f64>::grow_one` (and others), which rustc calls instead of
//! compiling its own (they are `#[inline(never)]`); enz-rs gives such a
//! call a body it can differentiate, so the shadow `Vec` grows alongside
//! (crates/enz-enzyme-api/src/rust_vec.rs). Before, these tests could not
//! be built: "no derivative rule for the external function
//! `...RawVec...grow_one...`".
use enz::{autodiff_forward, autodiff_reverse};
use rust_tests::{close, fd, fd_dir, TOL_AD, TOL_FD};

/// Pushes two values per input into an empty Vec (several growths), then
/// sums them through the Vec.
#[autodiff_reverse(d_pushes, Duplicated, Active)]
#[autodiff_forward(t_pushes, Dual, Dual)]
fn pushes(x: &[f64]) -> f64 {
    let mut v = Vec::new();
    for &a in x {
        v.push(a * a);
        v.push(a.sin());
    }
    let mut s = 0.0;
    for (k, w) in v.iter().enumerate() {
        s += w * (1.0 + k as f64);
    }
    s
}

/// The same with f32 elements and a Vec of Vecs grown row by row.
#[autodiff_reverse(d_rows, Duplicated, Active)]
fn rows(x: &[f64]) -> f64 {
    let mut table: Vec<Vec<f32>> = Vec::new();
    for (i, &a) in x.iter().enumerate() {
        let mut row = Vec::new();
        for j in 0..=i {
            row.push((a as f32) * (j as f32 + 1.0));
        }
        table.push(row);
    }
    table
        .iter()
        .map(|r| r.iter().map(|&v| f64::from(v * v)).sum::<f64>())
        .sum()
}

const X: [f64; 7] = [0.3, -0.7, 1.2, 0.1, 0.9, -1.4, 0.05];

#[test]
fn push_grows_the_shadow_vec() {
    let mut dx = [0.0; 7];
    let y = d_pushes(&X, &mut dx, 1.0);
    close("primal", y, pushes(&X), TOL_AD);
    let g = |v: &[f64]| pushes(v);
    for i in 0..X.len() {
        // x_i^2 is element 2i (weight 2i + 1), sin x_i element 2i + 1.
        let w = 2.0 * i as f64;
        let want = (w + 1.0) * 2.0 * X[i] + (w + 2.0) * X[i].cos();
        close("d/dx analytic", dx[i], want, TOL_AD);
        close("d/dx vs FD", dx[i], fd(&g, &X, i), TOL_FD);
    }
    let dir = [1.0, -0.5, 0.25, 2.0, 0.0, 1.5, -1.0];
    let (f, t) = t_pushes(&X, &dir);
    close("forward primal", f, pushes(&X), TOL_AD);
    let want: f64 = (0..X.len()).map(|i| dx[i] * dir[i]).sum();
    close("tangent vs gradient", t, want, TOL_AD);
    close("tangent vs FD", t, fd_dir(&g, &X, &dir), TOL_FD);
}

#[test]
fn push_grows_nested_f32_vecs() {
    let mut dx = [0.0; 7];
    d_rows(&X, &mut dx, 1.0);
    let g = |v: &[f64]| rows(v);
    for i in 0..X.len() {
        // Row i holds a (j + 1), j = 0..=i: d/da sum a^2 (j+1)^2.
        let sq: f64 = (1..=i + 1).map(|j| (j * j) as f64).sum();
        let a = f64::from(X[i] as f32);
        close("d/dx analytic", dx[i], 2.0 * a * sq, 1e-5);
        // f32 inside: a step f32 rounding does not swamp (the function is
        // quadratic in each x_i, so the central difference is exact but
        // for that rounding).
        let h = 1e-2;
        let (mut up, mut down) = (X, X);
        up[i] += h;
        down[i] -= h;
        close("d/dx vs FD", dx[i], (g(&up) - g(&down)) / (2.0 * h), 1e-3);
    }
}
