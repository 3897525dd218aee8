//! Printing, formatting and checks inside the differentiated code: std's
//! precompiled `core::fmt`, `std::io::_print`, panics and bounds checks
//! carry no derivative (and run once, in the forward sweep).
use enz::autodiff_reverse;
use rust_tests::{close, fd, TOL_AD, TOL_FD};

#[autodiff_reverse(d_logged, Duplicated, Const, Active)]
fn logged(x: &[f64], verbose: bool) -> f64 {
    let mut s = 0.0;
    let mut log = String::new();
    for (i, a) in x.iter().enumerate() {
        s += a.sin() * a;
        if verbose {
            println!("step {i}: s = {s:.3}");
            eprintln!("a = {a:e}");
            log.push_str(&format!("{s};"));
        }
        assert!(s.is_finite(), "not finite at step {i}: {s}");
    }
    assert!(log.len() < 10_000);
    s * x[x.len() - 1]
}

#[test]
fn printing_and_checks() {
    let x = [1.0, 2.0, 3.0];
    let mut dx = [0.0; 3];
    let (f, ()) = (d_logged(&x, &mut dx, true, 1.0), ());
    close("f", f, logged(&x, false), TOL_AD);
    let g = |v: &[f64]| logged(v, false);
    // f = s x[2] with s = sum of a sin(a): d/dx[i] = (sin + a cos)(x[i]) x[2],
    // plus s for x[2].
    let s: f64 = x.iter().map(|a| a.sin() * a).sum();
    for i in 0..3 {
        let mut want = (x[i].sin() + x[i] * x[i].cos()) * x[2];
        if i == 2 {
            want += s;
        }
        close("dx", dx[i], want, TOL_AD);
        close("dx vs FD", dx[i], fd(&g, &x, i), TOL_FD);
    }
}
