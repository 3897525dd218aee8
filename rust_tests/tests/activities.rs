//! The activities not covered elsewhere: DuplicatedOnly and DualOnly
//! inputs (the generated function is `unsafe`), Const results in both
//! modes, a function returning `()` that writes its result through a
//! `&mut [f64]` (reverse: the output's shadow is the seed; forward: the
//! output's tangent is written), raw pointers.
use enz::{autodiff_forward, autodiff_reverse};
use rust_tests::{close, fd, fd_dir, TOL_AD, TOL_FD};

#[autodiff_reverse(d_softplus, Duplicated, Duplicated)]
#[autodiff_forward(t_softplus, Dual, Dual)]
#[autodiff_forward(t_softplus_only, DualOnly, Dual)]
fn softplus(out: &mut [f64], x: &[f64]) {
    for (o, v) in out.iter_mut().zip(x) {
        *o = (1.0 + v.exp()).ln();
    }
}

fn sigmoid(v: f64) -> f64 {
    1.0 / (1.0 + (-v).exp())
}

/// softplus(x)[j], for finite differences.
fn softplus_at(x: &[f64], j: usize) -> f64 {
    let mut out = [0.0; 3];
    softplus(&mut out, x);
    out[j]
}

#[test]
fn unit_result_through_memory() {
    let x = [-1.0, 0.5, 2.0];
    let mut out = [0.0; 3];
    let mut dout = [1.0, 2.0, -1.0];
    let mut dx = [0.0; 3];
    d_softplus(&mut out, &mut dout, &x, &mut dx);
    let seeds = [1.0, 2.0, -1.0];
    // The seeded sum of the outputs, whose gradient the reverse sweep gives.
    let loss = |v: &[f64]| (0..3).map(|j| seeds[j] * softplus_at(v, j)).sum::<f64>();
    for i in 0..3 {
        close("out", out[i], (1.0 + x[i].exp()).ln(), TOL_AD);
        close("dx", dx[i], seeds[i] * sigmoid(x[i]), TOL_AD);
        close("dx vs FD", dx[i], fd(&loss, &x, i), TOL_FD);
    }
    let tx = [1.0, -0.5, 0.25];
    let mut out2 = [0.0; 3];
    let mut tout = [0.0; 3];
    t_softplus(&mut out2, &mut tout, &x, &tx);
    for i in 0..3 {
        close("tangent", tout[i], tx[i] * sigmoid(x[i]), TOL_AD);
        let along = fd_dir(&|v: &[f64]| softplus_at(v, i), &x, &tx);
        close("tangent vs FD", tout[i], along, TOL_FD);
        close("primal", out2[i], out[i], TOL_AD);
    }
    let mut tout2 = [0.0; 3];
    let mut out3 = [0.0; 3];
    // DualOnly: only the tangents of `out` are needed.
    unsafe { t_softplus_only(&mut out3, &mut tout2, &x, &tx) };
    for i in 0..3 {
        close("tangent (DualOnly)", tout2[i], tx[i] * sigmoid(x[i]), TOL_AD);
        let along = fd_dir(&|v: &[f64]| softplus_at(v, i), &x, &tx);
        close("tangent (DualOnly) vs FD", tout2[i], along, TOL_FD);
    }
}

#[autodiff_reverse(d_norm_only, DuplicatedOnly, Active)]
#[autodiff_reverse(d_norm_const, Duplicated, Const)]
#[autodiff_forward(t_norm_const, Dual, Const)]
fn norm(p: *const f64) -> f64 {
    let v = unsafe { std::slice::from_raw_parts(p, 3) };
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}

#[test]
fn raw_pointers_and_const_results() {
    let v = [3.0, 4.0, 12.0];
    let mut dv = [0.0; 3];
    let n = unsafe { d_norm_only(v.as_ptr(), dv.as_mut_ptr(), 1.0) };
    close("norm", n, 13.0, TOL_AD);
    let g = |p: &[f64]| norm(p.as_ptr());
    for i in 0..3 {
        close("dnorm", dv[i], v[i] / 13.0, TOL_AD);
        close("dnorm vs FD", dv[i], fd(&g, &v, i), TOL_FD);
    }
    // A Const result: the primal, and no adjoint flows.
    let mut dz = [0.0; 3];
    let n2 = d_norm_const(v.as_ptr(), dz.as_mut_ptr());
    close("primal (Const)", n2, 13.0, TOL_AD);
    for d in dz {
        close("no adjoint", d, 0.0, TOL_AD);
    }
    let tv = [1.0, 0.0, 0.0];
    close("primal (forward Const)", t_norm_const(v.as_ptr(), tv.as_ptr()), 13.0, TOL_AD);
}
