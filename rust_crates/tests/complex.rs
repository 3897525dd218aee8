//! num-complex 0.4 as people write it: `Complex<f64>` arithmetic
//! (products, quotients, mixed with f64), `norm_sqr`, `exp`, and a slice
//! of complex coefficients, in reverse and forward mode.
//!
//! For g holomorphic and z = x + iy: d|g|^2/dx = 2 Re(conj(g) g') and
//! d|g|^2/dy = -2 Im(conj(g) g'); dRe(g)/dx = Re(g'), dRe(g)/dy = -Im(g').
use enz::{autodiff_forward, autodiff_reverse};
use num_complex::Complex;
use rust_crates::{check_gradient, close, fd_dir, TOL_AD, TOL_FD};

const W: Complex<f64> = Complex::new(0.3, -1.2);

/// |z^2 w + z / w - 1|^2.
#[autodiff_reverse(d_rational, Active, Active, Active)]
#[autodiff_forward(t_rational, Dual, Dual, Dual)]
fn rational(x: f64, y: f64) -> f64 {
    let z = Complex::new(x, y);
    (z * z * W + z / W - 1.0).norm_sqr()
}

/// (d/dx, d/dy) of |g|^2 given g and g' at z.
fn norm_sqr_gradient(g: Complex<f64>, dg: Complex<f64>) -> [f64; 2] {
    let p = g.conj() * dg;
    [2.0 * p.re, -2.0 * p.im]
}

#[test]
fn arithmetic_norm_sqr() {
    let (x, y) = (0.7, -0.4);
    let (f, dx, dy) = d_rational(x, y, 1.0);
    close("f", f, rational(x, y), TOL_AD);
    let z = Complex::new(x, y);
    let want = norm_sqr_gradient(z * z * W + z / W - 1.0, z * W * 2.0 + W.inv());
    let flat = |p: &[f64]| rational(p[0], p[1]);
    check_gradient("d(x, y)", &flat, &[x, y], &[dx, dy], &want);
    let (dirx, diry) = (0.5, 2.0);
    let (p, t) = t_rational(x, dirx, y, diry);
    close("primal", p, f, TOL_AD);
    close("tangent", t, want[0] * dirx + want[1] * diry, TOL_AD);
    close(
        "tangent vs FD",
        t,
        fd_dir(&flat, &[x, y], &[dirx, diry]),
        TOL_FD,
    );
}

/// |z e^z|^2 + Re(w e^z).
#[autodiff_reverse(d_exponential, Active, Active, Active)]
fn exponential(x: f64, y: f64) -> f64 {
    let z = Complex::new(x, y);
    let e = z.exp();
    (z * e).norm_sqr() + (W * e).re
}

#[test]
fn exp() {
    let (x, y) = (0.3, 1.1);
    let (f, dx, dy) = d_exponential(x, y, 1.0);
    close("f", f, exponential(x, y), TOL_AD);
    let z = Complex::new(x, y);
    let e = z.exp();
    let [nx, ny] = norm_sqr_gradient(z * e, (z + 1.0) * e);
    let we = W * e;
    let want = [nx + we.re, ny - we.im];
    let flat = |p: &[f64]| exponential(p[0], p[1]);
    check_gradient("d(x, y)", &flat, &[x, y], &[dx, dy], &want);
}

/// |p(z)|^2 for p(z) = sum c_k z^k by Horner's rule.
#[autodiff_reverse(d_horner, Duplicated, Const, Active)]
#[autodiff_forward(t_horner, Dual, Const, Dual)]
fn horner(c: &[Complex<f64>], z: &Complex<f64>) -> f64 {
    c.iter()
        .rev()
        .fold(Complex::new(0.0, 0.0), |acc, &ck| acc * z + ck)
        .norm_sqr()
}

/// `horner` on coefficients given as (re, im) pairs.
fn horner_flat(p: &[f64], z: &Complex<f64>) -> f64 {
    let c: Vec<Complex<f64>> = p.chunks(2).map(|c| Complex::new(c[0], c[1])).collect();
    horner(&c, z)
}

#[test]
fn coefficient_slice() {
    let c = [
        Complex::new(1.0, -0.5),
        Complex::new(0.25, 2.0),
        Complex::new(-1.5, 0.75),
    ];
    let z = Complex::new(0.6, -0.8);
    let mut dc = [Complex::new(0.0, 0.0); 3];
    let f = d_horner(&c, &mut dc, &z, 1.0);
    close("f", f, horner(&c, &z), TOL_AD);
    // d/dRe c_k = 2 Re(conj(p) z^k), d/dIm c_k = 2 Re(conj(p) i z^k).
    let p: Complex<f64> = (0..3).map(|k| c[k] * z.powu(k as u32)).sum();
    let mut want = Vec::new();
    for k in 0..3 {
        let q = p.conj() * z.powu(k as u32);
        want.extend([2.0 * q.re, -2.0 * q.im]);
    }
    let at: Vec<f64> = c.iter().flat_map(|c| [c.re, c.im]).collect();
    let got: Vec<f64> = dc.iter().flat_map(|c| [c.re, c.im]).collect();
    check_gradient("dc", &|v: &[f64]| horner_flat(v, &z), &at, &got, &want);
    let dir = [
        Complex::new(0.5, 0.0),
        Complex::new(0.0, -1.0),
        Complex::new(2.0, 1.0),
    ];
    let (primal, t) = t_horner(&c, &dir, &z);
    close("primal", primal, f, TOL_AD);
    let flat_dir: Vec<f64> = dir.iter().flat_map(|c| [c.re, c.im]).collect();
    let along: f64 = want.iter().zip(&flat_dir).map(|(g, d)| g * d).sum();
    close("tangent", t, along, TOL_AD);
    let by_fd = fd_dir(&|v: &[f64]| horner_flat(v, &z), &at, &flat_dir);
    close("tangent vs FD", t, by_fd, TOL_FD);
}

/// The weighted power spectrum sum_k v_k |X_k|^2 of the DFT
/// X_k = sum_n x_n e^(-2 pi i k n / N), twiddles by `from_polar`, plus
/// sum_k |X_k| (`norm`, a hypot) and the phase `arg` of X_1.
#[autodiff_reverse(d_spectrum, Duplicated, Active)]
fn spectrum(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    let mut phase = 0.0;
    for k in 0..n {
        let xk: Complex<f64> = x
            .iter()
            .enumerate()
            .map(|(j, &v)| {
                let theta = -2.0 * std::f64::consts::PI * (k * j) as f64 / n as f64;
                Complex::from_polar(v, theta)
            })
            .sum();
        s += (1.0 + k as f64) * xk.norm_sqr() + xk.norm();
        if k == 1 {
            phase = xk.arg();
        }
    }
    s + phase
}

#[test]
fn dft_polar_norm_arg() {
    let x = [0.5, -1.0, 2.0, 0.25, 1.5];
    let mut dx = [0.0; 5];
    let f = d_spectrum(&x, &mut dx, 1.0);
    close("f", f, spectrum(&x), TOL_AD);
    // dX_k/dx_j = e_kj = e^(-2 pi i k j / N): d|X|^2 = 2 Re(conj(X) e),
    // d|X| = Re(conj(X) e) / |X|, d arg X = Im(conj(X) e) / |X|^2.
    let n = x.len();
    let e = |k: usize, j: usize| {
        Complex::from_polar(1.0, -2.0 * std::f64::consts::PI * (k * j) as f64 / n as f64)
    };
    let big_x: Vec<Complex<f64>> = (0..n)
        .map(|k| (0..n).map(|j| e(k, j) * x[j]).sum())
        .collect();
    let want: Vec<f64> = (0..n)
        .map(|j| {
            let mut g = 0.0;
            for (k, xk) in big_x.iter().enumerate() {
                let q = xk.conj() * e(k, j);
                g += (1.0 + k as f64) * 2.0 * q.re + q.re / xk.norm();
                if k == 1 {
                    g += q.im / xk.norm_sqr();
                }
            }
            g
        })
        .collect();
    check_gradient("dx", &spectrum, &x, &dx, &want);
}

/// |sqrt(z) + ln(z)|^2 + Re(z^2.5).
#[autodiff_reverse(d_branches, Active, Active, Active)]
fn branches(x: f64, y: f64) -> f64 {
    let z = Complex::new(x, y);
    (z.sqrt() + z.ln()).norm_sqr() + z.powf(2.5).re
}

#[test]
fn sqrt_ln_powf() {
    let (x, y) = (1.3, 0.6);
    let (f, dx, dy) = d_branches(x, y, 1.0);
    close("f", f, branches(x, y), TOL_AD);
    let z = Complex::new(x, y);
    let g = z.sqrt() + z.ln();
    let dg = z.sqrt().inv() * 0.5 + z.inv();
    let [nx, ny] = norm_sqr_gradient(g, dg);
    let dp = z.powf(1.5) * 2.5;
    let want = [nx + dp.re, ny - dp.im];
    let flat = |p: &[f64]| branches(p[0], p[1]);
    check_gradient("d(x, y)", &flat, &[x, y], &[dx, dy], &want);
}
