//! Slices, Vec, structs, allocation inside the differentiated code,
//! iterator chains, closures, control flow, recursion, methods, a panic
//! path not taken and a dependency crate's function.
use enz::{autodiff_forward, autodiff_reverse};
use rust_tests::{close, fd, fd_dir, TOL_AD, TOL_FD};

#[autodiff_reverse(d_dot, Duplicated, Duplicated, Active)]
#[autodiff_forward(t_dot, Dual, Dual, Dual)]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
fn slices_reverse_and_forward() {
    let a = vec![1.0, -2.0, 0.5];
    let b = vec![3.0, 0.25, -4.0];
    let (mut da, mut db) = (vec![0.0; 3], vec![0.0; 3]);
    let f = d_dot(&a, &mut da, &b, &mut db, 1.0);
    close("dot", f, dot(&a, &b), TOL_AD);
    for i in 0..3 {
        close("da", da[i], b[i], TOL_AD);
        close("db", db[i], a[i], TOL_AD);
        close("da vs FD", da[i], fd(&|v: &[f64]| dot(v, &b), &a, i), TOL_FD);
        close("db vs FD", db[i], fd(&|v: &[f64]| dot(&a, v), &b, i), TOL_FD);
    }
    let ta = [1.0, 0.0, 2.0];
    let tb = [0.0, -1.0, 0.5];
    let (p, t) = t_dot(&a, &ta, &b, &tb);
    close("primal", p, dot(&a, &b), TOL_AD);
    let want: f64 = (0..3).map(|i| ta[i] * b[i] + a[i] * tb[i]).sum();
    close("tangent", t, want, TOL_AD);
    let ab = [a.as_slice(), b.as_slice()].concat();
    let tab = [ta.as_slice(), tb.as_slice()].concat();
    let along = fd_dir(&|v: &[f64]| dot(&v[..3], &v[3..]), &ab, &tab);
    close("tangent vs FD", t, along, TOL_FD);
}

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Particle {
    pos: f64,
    vel: f64,
    mass: f64,
}

#[autodiff_reverse(d_kinetic, Duplicated, Active)]
fn kinetic(ps: &Vec<Particle>) -> f64 {
    ps.iter().map(|p| 0.5 * p.mass * p.vel * p.vel + p.pos.cos()).sum()
}

#[test]
fn vec_of_structs() {
    let ps = vec![
        Particle { pos: 0.1, vel: 1.0, mass: 2.0 },
        Particle { pos: -0.4, vel: -0.5, mass: 1.0 },
    ];
    let mut dps = vec![Particle::default(); 2];
    let e = d_kinetic(&ps, &mut dps, 1.0);
    close("energy", e, kinetic(&ps), TOL_AD);
    for (p, d) in ps.iter().zip(&dps) {
        close("dvel", d.vel, p.mass * p.vel, TOL_AD);
        close("dmass", d.mass, 0.5 * p.vel * p.vel, TOL_AD);
        close("dpos", d.pos, -p.pos.sin(), TOL_AD);
    }
    // Every field against differences of the energy of the particles as a
    // flat [pos, vel, mass, pos, vel, mass].
    let energy = |v: &[f64]| {
        let ps: Vec<Particle> = v
            .chunks(3)
            .map(|c| Particle { pos: c[0], vel: c[1], mass: c[2] })
            .collect();
        kinetic(&ps)
    };
    let flat: Vec<f64> = ps.iter().flat_map(|p| [p.pos, p.vel, p.mass]).collect();
    for (k, d) in dps.iter().enumerate() {
        close("dpos vs FD", d.pos, fd(&energy, &flat, 3 * k), TOL_FD);
        close("dvel vs FD", d.vel, fd(&energy, &flat, 3 * k + 1), TOL_FD);
        close("dmass vs FD", d.mass, fd(&energy, &flat, 3 * k + 2), TOL_FD);
    }
}

fn apply_all<F: Fn(f64) -> f64>(xs: &[f64], f: F) -> f64 {
    xs.iter().map(|&x| f(x)).fold(0.0, |a, b| a + b)
}

#[autodiff_reverse(d_closure, Duplicated, Active, Active)]
fn with_closure(xs: &[f64], scale: f64) -> f64 {
    apply_all(xs, |x| (scale * x).tanh())
}

#[test]
fn closures_and_generics() {
    let xs = [0.2, -0.9, 1.5];
    let mut dxs = [0.0; 3];
    let (_, ds) = d_closure(&xs, &mut dxs, 0.7, 1.0);
    let mut want_ds = 0.0;
    for i in 0..3 {
        let t = (0.7 * xs[i]).tanh();
        close("dx", dxs[i], 0.7 * (1.0 - t * t), TOL_AD);
        want_ds += xs[i] * (1.0 - t * t);
    }
    close("dscale", ds, want_ds, TOL_AD);
    // [xs..., scale]
    let g = |v: &[f64]| with_closure(&v[..3], v[3]);
    let at = [xs[0], xs[1], xs[2], 0.7];
    for i in 0..3 {
        close("dx vs FD", dxs[i], fd(&g, &at, i), TOL_FD);
    }
    close("dscale vs FD", ds, fd(&g, &at, 3), TOL_FD);
}

#[autodiff_reverse(d_breaks, Duplicated, Const, Active)]
fn sum_until(x: &[f64], limit: f64) -> f64 {
    let mut s = 0.0;
    for v in x {
        if s > limit {
            break;
        }
        s += v * v;
    }
    s
}

#[autodiff_reverse(d_power, Active, Const, Active)]
fn power(x: f64, n: u32) -> f64 {
    if n == 0 {
        1.0
    } else {
        x * power(x, n - 1)
    }
}

#[test]
fn break_and_recursion() {
    let x = [1.0, 2.0, 3.0, 4.0];
    let mut dx = [0.0; 4];
    d_breaks(&x, &mut dx, 4.0, 1.0);
    // 1 + 4 = 5 > 4: the loop stops before x[2].
    close("dx0", dx[0], 2.0, TOL_AD);
    close("dx1", dx[1], 4.0, TOL_AD);
    close("dx2", dx[2], 0.0, TOL_AD);
    close("dx3", dx[3], 0.0, TOL_AD);
    // Steps of 1e-6 keep the sum away from the limit: the same branches.
    let g = |v: &[f64]| sum_until(v, 4.0);
    for i in 0..4 {
        close("dx vs FD", dx[i], fd(&g, &x, i), TOL_FD);
    }
    let (p, d) = d_power(1.3, 5, 1.0);
    close("x^5", p, 1.3f64.powi(5), TOL_AD);
    close("5 x^4", d, 5.0 * 1.3f64.powi(4), TOL_AD);
    close("5 x^4 vs FD", d, fd(&|v: &[f64]| power(v[0], 5), &[1.3], 0), TOL_FD);
}

pub struct Model {
    weights: Vec<f64>,
}

impl Model {
    #[autodiff_reverse(d_predict, Duplicated, Active, Active)]
    fn predict(&self, x: f64) -> f64 {
        self.weights.iter().rev().fold(0.0, |acc, w| acc * x + w)
    }
}

#[test]
fn method_on_self() {
    let m = Model { weights: vec![1.0, -2.0, 0.5] };
    let mut dm = Model { weights: vec![0.0; 3] };
    let (p, dx) = m.d_predict(&mut dm, 2.0, 1.0);
    close("p", p, 1.0 - 4.0 + 2.0, TOL_AD);
    close("dp/dx", dx, -2.0 + 2.0 * 0.5 * 2.0, TOL_AD);
    close("dp/dw0", dm.weights[0], 1.0, TOL_AD);
    close("dp/dw1", dm.weights[1], 2.0, TOL_AD);
    close("dp/dw2", dm.weights[2], 4.0, TOL_AD);
    // [x, w0, w1, w2]
    let g = |v: &[f64]| Model { weights: v[1..].to_vec() }.predict(v[0]);
    let at = [2.0, 1.0, -2.0, 0.5];
    close("dp/dx vs FD", dx, fd(&g, &at, 0), TOL_FD);
    for k in 0..3 {
        close("dp/dw vs FD", dm.weights[k], fd(&g, &at, k + 1), TOL_FD);
    }
}

#[autodiff_reverse(d_checked, Duplicated, Active)]
fn checked(x: &[f64]) -> f64 {
    if x.len() > 1000 {
        panic!("too long: {}", x.len());
    }
    x[0] * x[1] + x[2].ln()
}

#[test]
fn panic_path_not_taken() {
    let x = [2.0, 3.0, 0.5];
    let mut dx = [0.0; 3];
    d_checked(&x, &mut dx, 1.0);
    close("dx0", dx[0], 3.0, TOL_AD);
    close("dx1", dx[1], 2.0, TOL_AD);
    close("dx2", dx[2], 2.0, TOL_AD);
    for i in 0..3 {
        close("dx vs FD", dx[i], fd(&|v: &[f64]| checked(v), &x, i), TOL_FD);
    }
}

#[autodiff_reverse(d_chain, Duplicated, Active, Const, Active)]
fn chain(x: &[f64], k: f64, rest: f64) -> f64 {
    physics::chain_energy(x, k, rest)
}

#[test]
fn dependency_crate() {
    let x = [0.0, 1.3, 2.1, 3.9];
    let mut dx = [0.0; 4];
    let (_, dk) = d_chain(&x, &mut dx, 2.5, 1.0, 1.0);
    let g = |v: &[f64]| physics::chain_energy(v, 2.5, 1.0);
    // The points increase: spring j pulls x[j + 1] back by k (gap - rest)
    // and x[j] forward by as much.
    let mut want = [0.0; 4];
    for j in 0..3 {
        let stretch = 2.5 * ((x[j + 1] - x[j]) - 1.0);
        want[j + 1] += stretch;
        want[j] -= stretch;
    }
    for i in 0..4 {
        close("dx", dx[i], want[i], TOL_AD);
        close("dx vs FD", dx[i], fd(&g, &x, i), TOL_FD);
    }
    close("dk", dk, physics::chain_energy(&x, 2.5, 1.0) / 2.5, TOL_AD);
    let in_k = |v: &[f64]| physics::chain_energy(&x, v[0], 1.0);
    close("dk vs FD", dk, fd(&in_k, &[2.5], 0), TOL_FD);
}
