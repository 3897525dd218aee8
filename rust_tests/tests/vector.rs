//! Vector forward mode: `#[autodiff_forward(NAME, WIDTH, ...)]`, one
//! tangent argument per lane, `[f, tangents...]` (Dual) or
//! `[tangents...]` (DualOnly) returned as arrays.
use enz::autodiff_forward;
use rust_tests::{close, fd, fd_dir, TOL_AD, TOL_FD};

#[autodiff_forward(jac_rows, 2, Dual, Dual, Dual)]
#[autodiff_forward(grad3, 3, Dual, Dual, DualOnly)]
fn h(x: f64, y: f64) -> f64 {
    x.sin() * y + (x * y).exp()
}

#[autodiff_forward(slice_lanes, 2, Dual, Dual)]
fn sq_norm(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum()
}

#[test]
fn width_two_and_three() {
    let (x, y): (f64, f64) = (0.7, -0.4);
    let dx = x.cos() * y + y * (x * y).exp();
    let dy = x.sin() + x * (x * y).exp();
    let r = jac_rows(x, 1.0, 0.0, y, 0.0, 1.0);
    close("primal", r[0], h(x, y), TOL_AD);
    close("lane 0: d/dx", r[1], dx, TOL_AD);
    close("lane 1: d/dy", r[2], dy, TOL_AD);
    let t = grad3(x, 1.0, 0.0, 2.0, y, 0.0, 1.0, -1.0);
    close("lane 0", t[0], dx, TOL_AD);
    close("lane 1", t[1], dy, TOL_AD);
    close("lane 2", t[2], 2.0 * dx - dy, TOL_AD);
    let g = |v: &[f64]| h(v[0], v[1]);
    let xy = [x, y];
    close("lane 0: d/dx vs FD", r[1], fd(&g, &xy, 0), TOL_FD);
    close("lane 1: d/dy vs FD", r[2], fd(&g, &xy, 1), TOL_FD);
    close("lane 0 vs FD", t[0], fd(&g, &xy, 0), TOL_FD);
    close("lane 1 vs FD", t[1], fd(&g, &xy, 1), TOL_FD);
    close("lane 2 vs FD", t[2], fd_dir(&g, &xy, &[2.0, -1.0]), TOL_FD);
    let v = [1.0, -2.0, 0.5];
    let e0 = [1.0, 0.0, 0.0];
    let e2 = [0.0, 0.0, 1.0];
    let s = slice_lanes(&v, &e0, &e2);
    close("|v|^2", s[0], 5.25, TOL_AD);
    close("d/dv0", s[1], 2.0, TOL_AD);
    close("d/dv2", s[2], 1.0, TOL_AD);
    let n = |u: &[f64]| sq_norm(u);
    close("d/dv0 vs FD", s[1], fd(&n, &v, 0), TOL_FD);
    close("d/dv2 vs FD", s[2], fd(&n, &v, 2), TOL_FD);
}
