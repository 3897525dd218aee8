//! Scalar functions: f64 methods, reverse and forward mode with every
//! activity.
use enz::{autodiff_forward, autodiff_reverse};
use rust_tests::{close, fd, fd_dir, fd_f32, TOL_AD, TOL_AD_F32, TOL_FD, TOL_FD_F32};

#[autodiff_reverse(d_rosen, Active, Active, Active)]
#[autodiff_forward(t_rosen_x, Dual, Const, Dual)]
#[autodiff_forward(t_rosen, Dual, Dual, DualOnly)]
fn rosen(x: f64, y: f64) -> f64 {
    (1.0 - x).powi(2) + 100.0 * (y - x * x).powi(2)
}

fn rosen_grad(x: f64, y: f64) -> (f64, f64) {
    (-2.0 * (1.0 - x) - 400.0 * x * (y - x * x), 200.0 * (y - x * x))
}

#[test]
fn rosenbrock_reverse_and_forward() {
    for &(x, y) in &[(1.0, 3.0), (-0.5, 0.25), (2.0, -1.0)] {
        let (gx, gy) = rosen_grad(x, y);
        let (f, dx, dy) = d_rosen(x, y, 1.0);
        close("f", f, rosen(x, y), TOL_AD);
        close("dx", dx, gx, TOL_AD);
        close("dy", dy, gy, TOL_AD);
        let (_, dx2, dy2) = d_rosen(x, y, 2.5);
        close("dx seeded", dx2, 2.5 * gx, TOL_AD);
        close("dy seeded", dy2, 2.5 * gy, TOL_AD);
        let g = |v: &[f64]| rosen(v[0], v[1]);
        close("dx vs FD", dx, fd(&g, &[x, y], 0), TOL_FD);
        close("dy vs FD", dy, fd(&g, &[x, y], 1), TOL_FD);
        close("dx seeded vs FD", dx2, 2.5 * fd(&g, &[x, y], 0), TOL_FD);
        close("dy seeded vs FD", dy2, 2.5 * fd(&g, &[x, y], 1), TOL_FD);
        let (p, t) = t_rosen_x(x, 1.0, y);
        close("primal (forward)", p, rosen(x, y), TOL_AD);
        close("tangent x", t, gx, TOL_AD);
        close("tangent x vs FD", t, fd(&g, &[x, y], 0), TOL_FD);
        let t = t_rosen(x, 0.5, y, -2.0);
        close("directional", t, 0.5 * gx - 2.0 * gy, TOL_AD);
        close("directional vs FD", t, fd_dir(&g, &[x, y], &[0.5, -2.0]), TOL_FD);
    }
}

#[autodiff_reverse(d_methods, Active, Active)]
fn methods(x: f64) -> f64 {
    x.sin() * x.exp() + x.powf(1.5) + x.sqrt() * x.tanh() + x.mul_add(2.0, x.hypot(3.0))
}

fn methods_grad(x: f64) -> f64 {
    (x.cos() + x.sin()) * x.exp()
        + 1.5 * x.powf(0.5)
        + 0.5 / x.sqrt() * x.tanh()
        + x.sqrt() * (1.0 - x.tanh() * x.tanh())
        + 2.0
        + x / x.hypot(3.0)
}

#[test]
fn f64_methods() {
    for &x in &[0.3, 1.1, 2.7] {
        let (f, dx) = d_methods(x, 1.0);
        close("f", f, methods(x), TOL_AD);
        close("d/dx", dx, methods_grad(x), TOL_AD);
        close("d/dx vs FD", dx, fd(&|v: &[f64]| methods(v[0]), &[x], 0), TOL_FD);
    }
}

#[autodiff_reverse(d_only, ActiveOnly, Const, ActiveOnly)]
#[autodiff_reverse(d_grad_only, Active, Const, ActiveOnly)]
#[autodiff_reverse(d_skip_x, ActiveOnly, Active, Active)]
fn only(x: f64, k: f64) -> f64 {
    k * x * x
}

#[autodiff_reverse(d_f32, Active, Active)]
fn cube32(x: f32) -> f32 {
    x * x * x
}

#[test]
fn active_only_and_f32() {
    let (x, k) = (2.0, 3.0);
    let g = |v: &[f64]| only(v[0], v[1]);
    // rustc's ActiveOnly input: its adjoint is computed but not returned;
    // with an ActiveOnly result (no primal), nothing is returned at all.
    let () = d_only(x, k, 1.0);
    // An ActiveOnly result: the adjoints without the primal.
    let dx = d_grad_only(x, k, 1.5);
    close("d/dx (ActiveOnly result)", dx, 1.5 * 2.0 * k * x, TOL_AD);
    close("d/dx (ActiveOnly result) vs FD", dx, 1.5 * fd(&g, &[x, k], 0), TOL_FD);
    // An ActiveOnly input next to an Active one: the primal and dk only.
    let (f, dk) = d_skip_x(x, k, 1.0);
    close("primal (ActiveOnly input)", f, k * x * x, TOL_AD);
    close("d/dk (ActiveOnly input)", dk, x * x, TOL_AD);
    close("d/dk (ActiveOnly input) vs FD", dk, fd(&g, &[x, k], 1), TOL_FD);
    let (f, d) = d_f32(1.5, 1.0);
    close("f32 primal", f as f64, 3.375, 1e-6);
    close("f32 d", d as f64, 6.75, TOL_AD_F32);
    close("f32 d vs FD", d as f64, fd_f32(&cube32, 1.5), TOL_FD_F32);
}
