//! ndarray 0.16 as people write it: arrays made by `from_shape_vec`,
//! `Array::zeros` and views of slices; `dot` (a matrix product, which
//! ndarray hands to matrixmultiply, and a vector one), `mapv`, `Zip`,
//! `sum_axis`, slicing with `s![..]`, a matrix-vector `dot`, broadcasting,
//! `map_axis`, `rows()`, in reverse and forward mode.
use enz::{autodiff_forward, autodiff_reverse};
use ndarray::{s, Array1, Array2, ArrayView1, Axis, Zip};
use rust_crates::{check_gradient, close, fd_dir, TOL_AD, TOL_FD};

fn b_matrix() -> Array2<f64> {
    Array2::from_shape_vec((3, 2), vec![1.0, 2.0, -3.0, 0.5, 0.25, -1.5]).unwrap()
}

/// The sum of sin(C) + C / 2 with C = A B, A (2 x 3) from `w`.
#[autodiff_reverse(d_layer, Duplicated, Active)]
fn layer(w: &[f64]) -> f64 {
    let a = Array2::from_shape_vec((2, 3), w.to_vec()).unwrap();
    let c = a.dot(&b_matrix());
    let d = c.mapv(|x| x.sin()) + &c * 0.5;
    d.sum()
}

#[test]
fn from_shape_vec_dot_mapv() {
    let w = [0.1, -0.2, 0.3, 0.4, -0.5, 0.6];
    let mut dw = [0.0; 6];
    let f = d_layer(&w, &mut dw, 1.0);
    close("f", f, layer(&w), TOL_AD);
    // dA = (cos(C) + 1/2) B^T.
    let a = Array2::from_shape_vec((2, 3), w.to_vec()).unwrap();
    let b = b_matrix();
    let g = a.dot(&b).mapv(|x| x.cos() + 0.5).dot(&b.t());
    let want: Vec<f64> = g.iter().copied().collect();
    check_gradient("dA", &layer, &w, &dw, &want);
}

/// |o|^2 with o = x * y + sin(x), made by `Zip` into `Array1::zeros`.
#[autodiff_reverse(d_zipped, Duplicated, Duplicated, Active)]
fn zipped(x: &[f64], y: &[f64]) -> f64 {
    let (x, y) = (ArrayView1::from(x), ArrayView1::from(y));
    let mut out = Array1::<f64>::zeros(x.len());
    Zip::from(&mut out)
        .and(&x)
        .and(&y)
        .for_each(|o, &a, &b| *o = a * b + a.sin());
    out.dot(&out)
}

#[test]
fn zeros_zip_vector_dot() {
    let x = [0.3, -1.2, 0.8, 2.0];
    let y = [1.5, 0.4, -0.6, 0.1];
    let (mut dx, mut dy) = ([0.0; 4], [0.0; 4]);
    let f = d_zipped(&x, &mut dx, &y, &mut dy, 1.0);
    close("f", f, zipped(&x, &y), TOL_AD);
    let o: Vec<f64> = (0..4).map(|i| x[i] * y[i] + x[i].sin()).collect();
    let want_x: Vec<f64> = (0..4).map(|i| 2.0 * o[i] * (y[i] + x[i].cos())).collect();
    let want_y: Vec<f64> = (0..4).map(|i| 2.0 * o[i] * x[i]).collect();
    check_gradient("dx", &|v: &[f64]| zipped(v, &y), &x, &dx, &want_x);
    check_gradient("dy", &|v: &[f64]| zipped(&x, v), &y, &dy, &want_y);
}

/// A (3 x 2): the sum of the squared column sums and of the exponentials
/// of the row sums.
#[autodiff_reverse(d_sums, Duplicated, Active)]
fn sums(w: &[f64]) -> f64 {
    let a = Array2::from_shape_vec((3, 2), w.to_vec()).unwrap();
    let columns = a.sum_axis(Axis(0));
    let rows = a.sum_axis(Axis(1));
    columns.mapv(|v| v * v).sum() + rows.mapv(f64::exp).sum()
}

#[test]
fn sum_axis() {
    let w = [0.5, -0.25, 1.0, 0.75, -1.5, 0.2];
    let mut dw = [0.0; 6];
    let f = d_sums(&w, &mut dw, 1.0);
    close("f", f, sums(&w), TOL_AD);
    // dA_ij = 2 (column sum j) + exp(row sum i).
    let column = |j: usize| w[j] + w[2 + j] + w[4 + j];
    let row = |i: usize| w[2 * i] + w[2 * i + 1];
    let want: Vec<f64> = (0..6)
        .map(|k| 2.0 * column(k % 2) + row(k / 2).exp())
        .collect();
    check_gradient("dA", &sums, &w, &dw, &want);
}

/// A (3 x 4): squares of the block A[..2, 1..], the first column weighted
/// and times A[2, 3], and sin of the strided A[..;2, ..;3].
#[autodiff_reverse(d_sliced, Duplicated, Active)]
fn sliced(w: &[f64]) -> f64 {
    let a = Array2::from_shape_vec((3, 4), w.to_vec()).unwrap();
    let block = a.slice(s![..2, 1..]);
    let column: ArrayView1<f64> = a.slice(s![.., 0]);
    let weights = Array1::from(vec![1.0, -2.0, 0.5]);
    let corners = a.slice(s![..;2, ..;3]);
    block.mapv(|v| v * v).sum() + column.dot(&weights) * a[[2, 3]] + corners.mapv(f64::sin).sum()
}

#[test]
fn slicing() {
    let w: Vec<f64> = (0..12).map(|k| ((k * 5 % 7) as f64 - 3.0) / 4.0).collect();
    let mut dw = vec![0.0; 12];
    let f = d_sliced(&w, &mut dw, 1.0);
    close("f", f, sliced(&w), TOL_AD);
    let at = |i: usize, j: usize| w[4 * i + j];
    let weights = [1.0, -2.0, 0.5];
    let mut want = vec![0.0; 12];
    for i in 0..3 {
        for j in 0..4 {
            let g = &mut want[4 * i + j];
            if i < 2 && j >= 1 {
                *g += 2.0 * at(i, j);
            }
            if j == 0 {
                *g += weights[i] * at(2, 3);
            }
            if i % 2 == 0 && j % 3 == 0 {
                *g += at(i, j).cos();
            }
        }
    }
    want[11] += (0..3).map(|i| weights[i] * at(i, 0)).sum::<f64>();
    check_gradient("dA", &sliced, &w, &dw, &want);
}

/// tanh(x)·x over an `Array1` made from a slice.
#[autodiff_forward(t_soft, Dual, Dual)]
fn soft(x: &[f64]) -> f64 {
    let x = Array1::from_vec(x.to_vec());
    x.mapv(f64::tanh).dot(&x)
}

#[test]
fn forward_mapv_dot() {
    let x = [0.4, -0.9, 1.3];
    let dir = [1.0, -0.5, 2.0];
    let (p, t) = t_soft(&x, &dir);
    close("primal", p, soft(&x), TOL_AD);
    // d/dx_i = (1 - tanh^2 x_i) x_i + tanh x_i.
    let want: f64 = (0..3)
        .map(|i| {
            let th = x[i].tanh();
            ((1.0 - th * th) * x[i] + th) * dir[i]
        })
        .sum();
    close("tangent", t, want, TOL_AD);
    close("tangent vs FD", t, fd_dir(&soft, &x, &dir), TOL_FD);
}

/// A (3 x 2) times x (`dot` of a matrix and a vector), an outer product
/// by broadcasting, `map_axis` row norms, the mean over `rows()`.
#[autodiff_reverse(d_broadcast, Duplicated, Duplicated, Active)]
fn broadcast(a: &[f64], x: &[f64]) -> f64 {
    let a = Array2::from_shape_vec((3, 2), a.to_vec()).unwrap();
    let x = ArrayView1::from(x);
    let y = a.dot(&x);
    let outer = &y.view().insert_axis(Axis(1)) * &x.view().insert_axis(Axis(0));
    let norms = outer.map_axis(Axis(1), |r| r.dot(&r).sqrt());
    let mean: f64 = a.rows().into_iter().map(|r| r.sum()).sum::<f64>() / 3.0;
    norms.sum() + mean * y.sum()
}

#[test]
fn matrix_vector_broadcast_map_axis() {
    let a = [0.5, -1.0, 2.0, 0.25, -0.75, 1.5];
    let x = [1.2, -0.4];
    let (mut da, mut dx) = ([0.0; 6], [0.0; 2]);
    let f = d_broadcast(&a, &mut da, &x, &mut dx, 1.0);
    close("f", f, broadcast(&a, &x), TOL_AD);
    // outer row i is y_i x, its norm |y_i| |x|; mean = sum(A) / 3.
    let y: Vec<f64> = (0..3)
        .map(|i| a[2 * i] * x[0] + a[2 * i + 1] * x[1])
        .collect();
    let nx = (x[0] * x[0] + x[1] * x[1]).sqrt();
    let (sum_a, sum_y): (f64, f64) = (a.iter().sum(), y.iter().sum());
    let mean = sum_a / 3.0;
    // d/dy_i = sign(y_i) |x| + mean; d/dmean = sum(y).
    let dy: Vec<f64> = y.iter().map(|v| v.signum() * nx + mean).collect();
    let want_a: Vec<f64> = (0..6).map(|k| dy[k / 2] * x[k % 2] + sum_y / 3.0).collect();
    let abs_y: f64 = y.iter().map(|v| v.abs()).sum();
    let want_x: Vec<f64> = (0..2)
        .map(|j| (0..3).map(|i| dy[i] * a[2 * i + j]).sum::<f64>() + abs_y * x[j] / nx)
        .collect();
    check_gradient("dA", &|v: &[f64]| broadcast(v, &x), &a, &da, &want_a);
    check_gradient("dx", &|v: &[f64]| broadcast(&a, v), &x, &dx, &want_x);
}
