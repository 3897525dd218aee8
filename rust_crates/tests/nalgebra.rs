//! nalgebra 0.33 as people write it: fixed sizes (Vector3, Matrix3:
//! arithmetic, norm, dot in a loop, determinant; a UnitQuaternion from
//! Euler angles, cross, normalize), dynamic sizes (DVector, DMatrix, a
//! small product and one large enough for nalgebra to hand it to
//! matrixmultiply) and a Cholesky solve, in reverse and forward mode.
use enz::{autodiff_forward, autodiff_reverse};
use nalgebra::{DMatrix, DVector, Matrix3, Rotation3, UnitQuaternion, Vector3};
use rust_crates::{check_gradient, close, fd_dir, TOL_AD, TOL_FD};

fn a_matrix() -> Matrix3<f64> {
    Matrix3::new(2.0, -1.0, 0.5, 0.3, 1.5, -0.7, 0.0, 0.4, 1.2)
}

/// (A x)·y + |x| + |x - 2y|^2 / 2.
#[autodiff_reverse(d_bilinear, Duplicated, Duplicated, Active)]
fn bilinear(x: &Vector3<f64>, y: &Vector3<f64>) -> f64 {
    let a = a_matrix();
    let d = x - y * 2.0;
    (a * x).dot(y) + x.norm() + 0.5 * d.norm_squared()
}

#[test]
fn fixed_size_arithmetic() {
    let x = Vector3::new(0.4, -1.1, 0.7);
    let y = Vector3::new(-0.3, 0.8, 1.5);
    let (mut dx, mut dy) = (Vector3::zeros(), Vector3::zeros());
    let f = d_bilinear(&x, &mut dx, &y, &mut dy, 1.0);
    close("f", f, bilinear(&x, &y), TOL_AD);
    let a = a_matrix();
    let d = x - y * 2.0;
    let want_x = a.transpose() * y + x / x.norm() + d;
    let want_y = a * x - d * 2.0;
    let flat = |p: &[f64]| {
        bilinear(
            &Vector3::new(p[0], p[1], p[2]),
            &Vector3::new(p[3], p[4], p[5]),
        )
    };
    let at: Vec<f64> = x.iter().chain(y.iter()).copied().collect();
    let got: Vec<f64> = dx.iter().chain(dy.iter()).copied().collect();
    let want: Vec<f64> = want_x.iter().chain(want_y.iter()).copied().collect();
    check_gradient("d(x, y)", &flat, &at, &got, &want);
}

fn m_matrix() -> Matrix3<f64> {
    Matrix3::new(0.9, 0.2, -0.1, -0.3, 0.8, 0.4, 0.1, -0.2, 1.1)
}

/// v_k = M^k (a, b, c) for k = 1..3; the sum of |v_k| + w·v_k.
#[autodiff_reverse(d_orbit, Active, Active, Active, Active)]
fn orbit(a: f64, b: f64, c: f64) -> f64 {
    let m = m_matrix();
    let w = Vector3::new(1.0, 2.0, 3.0);
    let mut v = Vector3::new(a, b, c);
    let mut s = 0.0;
    for _ in 0..3 {
        v = m * v;
        s += v.norm() + v.dot(&w);
    }
    s
}

#[test]
fn fixed_size_dot_in_a_loop() {
    let (a, b, c) = (0.3, -0.2, 0.5);
    let (f, da, db, dc) = d_orbit(a, b, c, 1.0);
    close("f", f, orbit(a, b, c), TOL_AD);
    // d/dv0 of |M^k v0| + w·M^k v0 is (M^k)^T (v_k / |v_k| + w).
    let (m, w) = (m_matrix(), Vector3::new(1.0, 2.0, 3.0));
    let (mut v, mut mk) = (Vector3::new(a, b, c), Matrix3::identity());
    let mut want = Vector3::zeros();
    for _ in 0..3 {
        v = m * v;
        mk = m * mk;
        want += mk.transpose() * (v / v.norm() + w);
    }
    let flat = |p: &[f64]| orbit(p[0], p[1], p[2]);
    check_gradient(
        "d(a, b, c)",
        &flat,
        &[a, b, c],
        &[da, db, dc],
        want.as_slice(),
    );
}

/// det(M) + tr(M M^T).
#[autodiff_forward(t_det_trace, Dual, Dual)]
fn det_trace(m: &Matrix3<f64>) -> f64 {
    m.determinant() + (m * m.transpose()).trace()
}

#[test]
fn fixed_size_determinant_forward() {
    let m = a_matrix();
    let dm = Matrix3::new(0.5, 0.0, -1.0, 0.25, 1.0, 0.0, -0.5, 2.0, 0.75);
    let (f, t) = t_det_trace(&m, &dm);
    close("f", f, det_trace(&m), TOL_AD);
    // (det M)' = det(M) tr(M^-1 dM); tr(M M^T)' = 2 tr(M dM^T).
    let inv = m.try_inverse().expect("an invertible matrix");
    let want = m.determinant() * (inv * dm).trace() + 2.0 * m.component_mul(&dm).sum();
    close("tangent", t, want, TOL_AD);
    let flat = |p: &[f64]| det_trace(&Matrix3::from_column_slice(p));
    close(
        "tangent vs FD",
        t,
        fd_dir(&flat, m.as_slice(), dm.as_slice()),
        TOL_FD,
    );
}

fn k_matrix(n: usize) -> DMatrix<f64> {
    DMatrix::from_fn(n, n, |i, j| 1.0 / (1.0 + i as f64 + 2.0 * j as f64))
}

/// (K x)·x + |x| with DVector and DMatrix.
#[autodiff_reverse(d_quadratic, Duplicated, Active)]
#[autodiff_forward(t_quadratic, Dual, Dual)]
fn quadratic(x: &[f64]) -> f64 {
    let v = DVector::from_column_slice(x);
    let k = k_matrix(x.len());
    (&k * &v).dot(&v) + v.norm()
}

#[test]
fn dynamic_vector_and_matrix() {
    let x = [0.5, -1.0, 0.25, 2.0];
    let mut dx = [0.0; 4];
    let f = d_quadratic(&x, &mut dx, 1.0);
    close("f", f, quadratic(&x), TOL_AD);
    let (v, k) = (DVector::from_column_slice(&x), k_matrix(4));
    let want = (&k + k.transpose()) * &v + &v / v.norm();
    check_gradient("dx", &quadratic, &x, &dx, want.as_slice());
    let dir = [1.0, 0.5, -2.0, 0.0];
    let (p, t) = t_quadratic(&x, &dir);
    close("primal", p, quadratic(&x), TOL_AD);
    close(
        "tangent",
        t,
        want.dot(&DVector::from_column_slice(&dir)),
        TOL_AD,
    );
    close("tangent vs FD", t, fd_dir(&quadratic, &x, &dir), TOL_FD);
}

fn b_matrix(n: usize) -> DMatrix<f64> {
    DMatrix::from_fn(n, 2, |i, j| (i as f64 - 1.0) * 0.5 + j as f64 * 0.75)
}

/// |A B|_F^2 + tr(A B) for A (2 x n, row-major in `a`) and a constant B.
#[autodiff_reverse(d_product, Duplicated, Active)]
fn product(a: &[f64]) -> f64 {
    let a = DMatrix::from_row_slice(2, a.len() / 2, a);
    let c = &a * b_matrix(a.ncols());
    c.norm_squared() + c.trace()
}

#[test]
fn dynamic_matrix_product() {
    let a = [0.3, -0.7, 1.2, 0.5, 0.9, -0.4];
    let mut da = [0.0; 6];
    let f = d_product(&a, &mut da, 1.0);
    close("f", f, product(&a), TOL_AD);
    // d/dA = 2 C B^T + B^T (from tr(A B) = sum A_ik B_ki).
    let am = DMatrix::from_row_slice(2, 3, &a);
    let b = b_matrix(3);
    let g = (&am * &b) * b.transpose() * 2.0 + b.transpose();
    let want: Vec<f64> = g.transpose().iter().copied().collect();
    check_gradient("dA", &product, &a, &da, &want);
}

/// tr(X^T Y Z) with Y = X X^T, all 6 x 6: nalgebra multiplies dynamic
/// matrices past 5 x 5 with matrixmultiply's dgemm.
#[autodiff_reverse(d_gemm, Duplicated, Active)]
fn gemm(x: &[f64]) -> f64 {
    let x = DMatrix::from_column_slice(6, 6, x);
    let z = DMatrix::from_fn(6, 6, |i, j| if i == j { 1.0 } else { 0.1 });
    let y = &x * x.transpose();
    (x.transpose() * y * z).trace()
}

#[test]
fn dynamic_matrix_product_past_5x5() {
    let x: Vec<f64> = (0..36)
        .map(|k| ((k * 7 % 11) as f64 - 5.0) / 10.0)
        .collect();
    let mut dx = vec![0.0; 36];
    let f = d_gemm(&x, &mut dx, 1.0);
    close("f", f, gemm(&x), TOL_AD);
    let xm = DMatrix::from_column_slice(6, 6, &x);
    let z = DMatrix::from_fn(6, 6, |i, j| if i == j { 1.0 } else { 0.1 });
    let want = gemm_gradient(&xm, &z);
    check_gradient("dX", &gemm, &x, &dx, want.as_slice());
}

/// d tr(X^T X X^T Z) / dX, term by term (d tr(P dX Q) / dX = P^T Q^T,
/// d tr(P dX^T Q) / dX = Q P).
fn gemm_gradient(x: &DMatrix<f64>, z: &DMatrix<f64>) -> DMatrix<f64> {
    let xt = x.transpose();
    // tr(dX^T (X X^T Z)):  P = I, Q = X X^T Z  -> Q P = X X^T Z.
    let first = x * &xt * z;
    // tr(X^T dX (X^T Z)):  P = X^T, Q = X^T Z  -> P^T Q^T = X Z^T X.
    let second = x * z.transpose() * x;
    // tr((X^T X) dX^T Z):  P = X^T X, Q = Z   -> Q P = Z X^T X.
    let third = z * &xt * x;
    first + second + third
}

/// c·(A + diag(d))^-1 b by a Cholesky solve; p = (d, b).
#[autodiff_reverse(d_solve, Duplicated, Active)]
fn solve(p: &[f64]) -> f64 {
    let mut a = Matrix3::new(4.0, 1.0, 0.5, 1.0, 3.0, -0.4, 0.5, -0.4, 2.5);
    for i in 0..3 {
        a[(i, i)] += p[i];
    }
    let b = Vector3::new(p[3], p[4], p[5]);
    let y = a.cholesky().unwrap().solve(&b);
    y.dot(&Vector3::new(1.0, -2.0, 0.5))
}

#[test]
fn cholesky_solve() {
    let p = [0.2, -0.3, 0.1, 1.0, -0.5, 2.0];
    let mut dp = [0.0; 6];
    let f = d_solve(&p, &mut dp, 1.0);
    close("f", f, solve(&p), TOL_AD);
    // With A y = b and u = A^-1 c (A symmetric): df/db = u, df/dd_i = -u_i y_i.
    let a = Matrix3::new(4.2, 1.0, 0.5, 1.0, 2.7, -0.4, 0.5, -0.4, 2.6);
    let inv = a.try_inverse().expect("an invertible matrix");
    let y = inv * Vector3::new(p[3], p[4], p[5]);
    let u = inv * Vector3::new(1.0, -2.0, 0.5);
    let want = [-u[0] * y[0], -u[1] * y[1], -u[2] * y[2], u[0], u[1], u[2]];
    check_gradient("d(d, b)", &solve, &p, &dp, &want);
}

/// A rigid body: the point p rotated by the unit quaternion of Euler
/// angles (r, p, y), then |R p × a|, and R p normalized dotted with b.
#[autodiff_reverse(d_rotated, Duplicated, Active)]
fn rotated(angles: &[f64]) -> f64 {
    let q = UnitQuaternion::from_euler_angles(angles[0], angles[1], angles[2]);
    let p = q * Vector3::new(1.0, -0.5, 2.0);
    p.cross(&Vector3::new(0.3, 0.4, -1.0)).norm() + p.normalize().dot(&Vector3::new(0.0, 1.0, 1.0))
}

#[test]
fn quaternion_rotation_cross_normalize() {
    let angles = [0.3, -0.7, 1.1];
    let mut dangles = [0.0; 3];
    let f = d_rotated(&angles, &mut dangles, 1.0);
    close("f", f, rotated(&angles), TOL_AD);
    // d(R p)/dangle_k = (dR/dangle_k) p, R = Rz(yaw) Ry(pitch) Rx(roll).
    let (a, b) = (Vector3::new(0.3, 0.4, -1.0), Vector3::new(0.0, 1.0, 1.0));
    let p0 = Vector3::new(1.0, -0.5, 2.0);
    let rot = |axis: Vector3<f64>, t: f64| Matrix3::from(Rotation3::new(axis * t));
    let (x, y, z) = (Vector3::x(), Vector3::y(), Vector3::z());
    let hat = |v: Vector3<f64>| v.cross_matrix();
    let (rx, ry, rz) = (rot(x, angles[0]), rot(y, angles[1]), rot(z, angles[2]));
    let dr = [
        rz * ry * rx * hat(x),
        rz * ry * hat(y) * rx,
        rz * hat(z) * ry * rx,
    ];
    let p = rz * ry * rx * p0;
    let c = p.cross(&a);
    let want: Vec<f64> = dr
        .iter()
        .map(|d| {
            let dp = d * p0;
            let dc = dp.cross(&a);
            let dn = (dp - p * (p.dot(&dp) / p.norm_squared())) / p.norm();
            c.dot(&dc) / c.norm() + dn.dot(&b)
        })
        .collect();
    check_gradient("d(angles)", &rotated, &angles, &dangles, &want);
}
