//! Iterator-heavy code over `Vec<Vec<f64>>`, as people write it: rows
//! passed as `&[Vec<f64>]` (their shadow a `Vec<Vec<f64>>` of the same
//! shape), rows built by `collect`, and chains of `map`, `zip`, `fold`,
//! `sum`, `enumerate`, `skip`, `flat_map`, `windows`, `max_by`, `scan`,
//! `step_by`, `chain`, `filter` + `collect`, and `push` in a loop, in
//! reverse and forward mode.
use enz::{autodiff_forward, autodiff_reverse};
use rust_crates::{check_gradient, close, fd_dir, TOL_AD, TOL_FD};

/// Least squares: the sum over rows r of (r·w - t)^2, t the row's index.
#[autodiff_reverse(d_least_squares, Duplicated, Duplicated, Active)]
fn least_squares(rows: &[Vec<f64>], w: &[f64]) -> f64 {
    rows.iter()
        .enumerate()
        .map(|(i, r)| {
            let y: f64 = r.iter().zip(w).map(|(a, b)| a * b).sum();
            (y - i as f64).powi(2)
        })
        .sum()
}

fn rows_of(flat: &[f64], width: usize) -> Vec<Vec<f64>> {
    flat.chunks(width).map(<[f64]>::to_vec).collect()
}

#[test]
fn rows_map_zip_sum() {
    let rows = vec![
        vec![1.0, -0.5, 2.0],
        vec![0.25, 1.5, -1.0],
        vec![-2.0, 0.5, 0.75],
    ];
    let w = [0.4, -0.3, 1.1];
    let mut drows = vec![vec![0.0; 3]; 3];
    let mut dw = [0.0; 3];
    let f = d_least_squares(&rows, &mut drows, &w, &mut dw, 1.0);
    close("f", f, least_squares(&rows, &w), TOL_AD);
    // With e_i = r_i·w - i: d/dw = sum 2 e_i r_i, d/dr_i = 2 e_i w.
    let e: Vec<f64> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| r.iter().zip(&w).map(|(a, b)| a * b).sum::<f64>() - i as f64)
        .collect();
    let want_w: Vec<f64> = (0..3)
        .map(|j| (0..3).map(|i| 2.0 * e[i] * rows[i][j]).sum())
        .collect();
    check_gradient("dw", &|v: &[f64]| least_squares(&rows, v), &w, &dw, &want_w);
    let flat: Vec<f64> = rows.concat();
    let want_rows: Vec<f64> = (0..9).map(|k| 2.0 * e[k / 3] * w[k % 3]).collect();
    assert!(
        drows.iter().all(|r| r.len() == 3),
        "the shadow keeps its shape"
    );
    check_gradient(
        "drows",
        &|v: &[f64]| least_squares(&rows_of(v, 3), &w),
        &flat,
        &drows.concat(),
        &want_rows,
    );
}

/// Rows of squares built by `collect`, then the sum of each row's
/// log-sum-exp, each by `fold`.
#[autodiff_reverse(d_log_sum_exp, Duplicated, Active)]
fn log_sum_exp(x: &[f64]) -> f64 {
    let rows: Vec<Vec<f64>> = x
        .chunks(3)
        .map(|c| c.iter().map(|v| v * v).collect())
        .collect();
    rows.iter()
        .map(|r| r.iter().fold(0.0, |acc, v| acc + v.exp()).ln())
        .sum()
}

#[test]
fn collect_rows_fold() {
    let x = [0.5, -1.0, 0.25, 1.2, 0.1, -0.7];
    let mut dx = [0.0; 6];
    let f = d_log_sum_exp(&x, &mut dx, 1.0);
    close("f", f, log_sum_exp(&x), TOL_AD);
    // d/dx_k = 2 x_k exp(x_k^2) / (the sum of exp(x_j^2) over its row).
    let row_sum = |r: usize| (0..3).map(|j| x[3 * r + j].powi(2).exp()).sum::<f64>();
    let want: Vec<f64> = (0..6)
        .map(|k| 2.0 * x[k] * x[k].powi(2).exp() / row_sum(k / 3))
        .collect();
    check_gradient("dx", &log_sum_exp, &x, &dx, &want);
}

/// The sum over pairs i < j of 1 / |p_i - p_j|^2, and the squared norm of
/// the points' mean, made by `fold`.
#[autodiff_forward(t_pairs, Dual, Dual)]
fn pairs(points: &[Vec<f64>]) -> f64 {
    let repulsion: f64 = points
        .iter()
        .enumerate()
        .flat_map(|(i, a)| {
            points.iter().skip(i + 1).map(move |b| {
                let d2: f64 = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum();
                1.0 / d2
            })
        })
        .sum();
    let n = points.len() as f64;
    let mean = points.iter().fold(vec![0.0; 2], |mut acc, p| {
        acc.iter_mut().zip(p).for_each(|(a, v)| *a += v / n);
        acc
    });
    repulsion + mean.iter().map(|m| m * m).sum::<f64>()
}

#[test]
fn forward_pairs_fold() {
    let points = vec![vec![0.0, 1.0], vec![1.5, -0.5], vec![-1.0, 0.25]];
    let dir = vec![vec![1.0, 0.0], vec![-0.5, 2.0], vec![0.25, -1.0]];
    let (p, t) = t_pairs(&points, &dir);
    close("primal", p, pairs(&points), TOL_AD);
    // d(1/d2) = -(2 / d2^2) (a - b)·(da - db); d|m|^2 = 2 m·dm.
    let mut want = 0.0;
    for i in 0..3 {
        for j in i + 1..3 {
            let diff = [0, 1].map(|k| points[i][k] - points[j][k]);
            let ddiff = [0, 1].map(|k| dir[i][k] - dir[j][k]);
            let d2 = diff[0] * diff[0] + diff[1] * diff[1];
            want -= 2.0 / (d2 * d2) * (diff[0] * ddiff[0] + diff[1] * ddiff[1]);
        }
    }
    for k in 0..2 {
        let m = (0..3).map(|i| points[i][k]).sum::<f64>() / 3.0;
        let dm = (0..3).map(|i| dir[i][k]).sum::<f64>() / 3.0;
        want += 2.0 * m * dm;
    }
    close("tangent", t, want, TOL_AD);
    let along = fd_dir(
        &|v: &[f64]| pairs(&rows_of(v, 2)),
        &points.concat(),
        &dir.concat(),
    );
    close("tangent vs FD", t, along, TOL_FD);
}

/// A smoothness penalty by `windows(2)`, the largest value by `max_by`,
/// a running sum by `scan` and every other value by `step_by` chained with
/// the reversed first half.
#[autodiff_reverse(d_windows, Duplicated, Active)]
fn windows(x: &[f64]) -> f64 {
    let smooth: f64 = x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum();
    let largest = x
        .iter()
        .copied()
        .max_by(|a, b| a.partial_cmp(b).unwrap())
        .unwrap();
    let running: f64 = x
        .iter()
        .scan(0.0, |acc, v| {
            *acc += v;
            Some(*acc * *acc)
        })
        .sum();
    let picked: f64 = x
        .iter()
        .step_by(2)
        .chain(x[..x.len() / 2].iter().rev())
        .map(|v| v.sin())
        .product();
    smooth + largest * 2.0 + running + picked
}

#[test]
fn windows_max_scan_step_by() {
    let x = [0.3, 1.7, -0.4, 0.9, 1.1];
    let mut dx = [0.0; 5];
    let f = d_windows(&x, &mut dx, 1.0);
    close("f", f, windows(&x), TOL_AD);
    let n = x.len();
    let mut want = vec![0.0; n];
    for i in 0..n - 1 {
        let d = 2.0 * (x[i + 1] - x[i]);
        want[i + 1] += d;
        want[i] -= d;
    }
    want[1] += 2.0; // x[1] is the largest
                    // running: sum_k S_k^2, S_k = x_0 + .. + x_k: d/dx_i = sum_{k >= i} 2 S_k.
    let s: Vec<f64> = (0..n).map(|k| x[..=k].iter().sum()).collect();
    for (i, g) in want.iter_mut().enumerate() {
        *g += (i..n).map(|k| 2.0 * s[k]).sum::<f64>();
    }
    // picked: the product of sin over indices 0, 2, 4, 1, 0.
    let idx = [0, 2, 4, 1, 0];
    for (m, &i) in idx.iter().enumerate() {
        let others: f64 = idx
            .iter()
            .enumerate()
            .filter(|&(l, _)| l != m)
            .map(|(_, &j)| x[j].sin())
            .product();
        want[i] += x[i].cos() * others;
    }
    check_gradient("dx", &windows, &x, &dx, &want);
}

/// The mean of the squares of the positive values, kept by `filter` and
/// gathered by `collect` (which grows its Vec as it goes).
#[autodiff_reverse(d_positive, Duplicated, Active)]
fn positive(x: &[f64]) -> f64 {
    let kept: Vec<f64> = x.iter().copied().filter(|v| *v > 0.0).collect();
    kept.iter().map(|v| v * v).sum::<f64>() / kept.len() as f64
}

#[test]
fn filter_collect() {
    let x = [0.5, -1.0, 2.0, -0.25, 1.5];
    let mut dx = [0.0; 5];
    let f = d_positive(&x, &mut dx, 1.0);
    close("f", f, positive(&x), TOL_AD);
    let want: Vec<f64> = x
        .iter()
        .map(|&v| if v > 0.0 { 2.0 * v / 3.0 } else { 0.0 })
        .collect();
    check_gradient("dx", &positive, &x, &dx, &want);
}

/// Squares of the running sums, gathered by `push` in a loop.
#[autodiff_reverse(d_pushed, Duplicated, Active)]
fn pushed(x: &[f64]) -> f64 {
    let mut squares = Vec::new();
    let mut s = 0.0;
    for v in x {
        s += v;
        squares.push(s * s);
    }
    squares.iter().sum()
}

#[test]
fn push_in_a_loop() {
    let x = [1.0, -2.5, 0.75, 3.0];
    let mut dx = [0.0; 4];
    let f = d_pushed(&x, &mut dx, 1.0);
    close("f", f, pushed(&x), TOL_AD);
    // d/dx_i = sum_{k >= i} 2 S_k.
    let s: Vec<f64> = (0..4).map(|k| x[..=k].iter().sum()).collect();
    let want: Vec<f64> = (0..4).map(|i| (i..4).map(|k| 2.0 * s[k]).sum()).collect();
    check_gradient("dx", &pushed, &x, &dx, &want);
}
