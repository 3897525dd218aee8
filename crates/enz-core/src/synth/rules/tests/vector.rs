//! The vector reduction rules checked per lane: a small interpreter of
//! [`Expr`] over scalars and vectors, central finite differences of every
//! operand lane, and the lane that gets a max/min's adjoint on ties.

use super::super::*;
use super::is_reduction;

/// A scalar or a vector value of the interpreter.
#[derive(Clone, Debug, PartialEq)]
enum Val {
    S(f64),
    V(Vec<f64>),
}

impl Val {
    fn s(&self) -> f64 {
        match self {
            Val::S(x) => *x,
            Val::V(v) => panic!("a scalar expected, got {v:?}"),
        }
    }
    fn v(&self) -> &[f64] {
        match self {
            Val::V(v) => v,
            Val::S(x) => panic!("a vector expected, got {x}"),
        }
    }
    /// `f` lane by lane; a scalar meets a vector only in a vector of one
    /// lane's width (the formulas splat explicitly).
    fn zip(&self, o: &Val, f: impl Fn(f64, f64) -> f64) -> Val {
        match (self, o) {
            (Val::S(a), Val::S(b)) => Val::S(f(*a, *b)),
            (Val::V(a), Val::V(b)) => {
                assert_eq!(a.len(), b.len(), "lane counts differ");
                Val::V(a.iter().zip(b).map(|(x, y)| f(*x, *y)).collect())
            }
            _ => panic!("scalar {self:?} mixed with vector {o:?} without a splat"),
        }
    }
    fn map(&self, f: impl Fn(f64) -> f64) -> Val {
        match self {
            Val::S(a) => Val::S(f(*a)),
            Val::V(a) => Val::V(a.iter().map(|x| f(*x)).collect()),
        }
    }
}

fn primal(f: MathFn, a: &[Val]) -> f64 {
    use MathFn as M;
    match f {
        M::ReduceFAdd => a[0].s() + a[1].v().iter().sum::<f64>(),
        M::ReduceFMul => a[0].s() * a[1].v().iter().product::<f64>(),
        M::ReduceFMax => a[0].v().iter().copied().fold(f64::NEG_INFINITY, f64::max),
        M::ReduceFMin => a[0].v().iter().copied().fold(f64::INFINITY, f64::min),
        other => panic!("{other:?} is no reduction"),
    }
}

struct Env<'a> {
    args: &'a [Val],
    ret: f64,
    dret: f64,
    dargs: &'a [Val],
}

fn eval(e: &Expr, env: &Env) -> Val {
    match e {
        Expr::DRet => Val::S(env.dret),
        Expr::DArg(i) => env.dargs[*i].clone(),
        Expr::Arg(i) => env.args[*i].clone(),
        Expr::Ret => Val::S(env.ret),
        Expr::Const(v) => Val::S(*v),
        Expr::Add(a, b) => eval(a, env).zip(&eval(b, env), |x, y| x + y),
        Expr::Sub(a, b) => eval(a, env).zip(&eval(b, env), |x, y| x - y),
        Expr::Mul(a, b) => eval(a, env).zip(&eval(b, env), |x, y| x * y),
        Expr::Div(a, b) => eval(a, env).zip(&eval(b, env), |x, y| x / y),
        Expr::Neg(a) => eval(a, env).map(|x| -x),
        Expr::Math(f, args) => {
            let v: Vec<Val> = args.iter().map(|a| eval(a, env)).collect();
            Val::S(primal(*f, &v))
        }
        Expr::Splat(i, a) => Val::V(vec![eval(a, env).s(); env.args[*i].v().len()]),
        Expr::ProdOthers(a) => {
            let v = eval(a, env).v().to_vec();
            Val::V(
                (0..v.len())
                    .map(|k| (0..v.len()).filter(|j| *j != k).map(|j| v[j]).product())
                    .collect(),
            )
        }
        Expr::FirstLaneEq { vec, key, val } => {
            let (vec, key, val) = (eval(vec, env), eval(key, env).s(), eval(val, env));
            let first = vec.v().iter().position(|x| *x == key);
            Val::V(
                (0..vec.v().len())
                    .map(|k| match (&val, first == Some(k)) {
                        (_, false) => 0.0,
                        (Val::S(s), true) => *s,
                        (Val::V(v), true) => v[k],
                    })
                    .collect(),
            )
        }
        other => panic!("{other:?} not interpreted for vectors"),
    }
}

/// Sample operands of reduction `f` with `n` lanes: distinct lanes, some
/// negative, one zero for the product.
fn samples(f: MathFn, n: usize) -> Vec<Vec<Val>> {
    let lanes = |seed: f64| -> Vec<f64> {
        (0..n)
            .map(|k| ((k as f64 + 1.0) * seed).sin() * 1.7 + 0.1 * k as f64)
            .collect()
    };
    let with_start = |v: Vec<f64>, s: f64| vec![Val::S(s), Val::V(v)];
    match f {
        MathFn::ReduceFAdd => vec![with_start(lanes(0.9), 0.4), with_start(lanes(2.3), -1.2)],
        MathFn::ReduceFMul => {
            let mut zero = lanes(1.3);
            zero[n / 2] = 0.0;
            vec![
                with_start(lanes(0.9), 0.4),
                with_start(lanes(2.3), -1.2),
                with_start(zero, 0.8),
            ]
        }
        _ => vec![vec![Val::V(lanes(0.9))], vec![Val::V(lanes(2.3))]],
    }
}

/// The operand with lane `lane` (or the scalar, `lane` ignored) moved by `h`.
fn nudge(args: &[Val], i: usize, lane: usize, h: f64) -> Vec<Val> {
    let mut a = args.to_vec();
    a[i] = match &a[i] {
        Val::S(x) => Val::S(x + h),
        Val::V(v) => {
            let mut v = v.clone();
            v[lane] += h;
            Val::V(v)
        }
    };
    a
}

fn zero_like(v: &Val) -> Val {
    v.map(|_| 0.0)
}

#[test]
fn reductions_match_finite_differences_per_lane() {
    let rules: Vec<&Rule> = table().iter().filter(|r| is_reduction(r.op)).collect();
    assert_eq!(rules.len(), 4, "fadd, fmul, fmax, fmin");
    for rule in rules {
        let OpKey::Math(f) = rule.op else {
            unreachable!()
        };
        for n in [1, 2, 3, 4, 8, 16] {
            for args in samples(f, n) {
                let ret = primal(f, &args);
                let zeros: Vec<Val> = args.iter().map(zero_like).collect();
                let env = Env {
                    args: &args,
                    ret,
                    dret: 1.0,
                    dargs: &zeros,
                };
                for (i, arg) in args.iter().enumerate() {
                    let adjoint = eval(rule.adjoints[i].as_ref().expect("differentiable"), &env);
                    let width = match arg {
                        Val::S(_) => 1,
                        Val::V(v) => v.len(),
                    };
                    for lane in 0..width {
                        let h = 1e-6;
                        let fd = (primal(f, &nudge(&args, i, lane, h))
                            - primal(f, &nudge(&args, i, lane, -h)))
                            / (2.0 * h);
                        let adj = match &adjoint {
                            Val::S(x) => *x,
                            Val::V(v) => v[lane],
                        };
                        let tol = 1e-6 * (1.0 + fd.abs());
                        let at = format!("{f:?} n={n} operand {i} lane {lane} at {args:?}");
                        assert!((adj - fd).abs() < tol, "{at}: adjoint {adj}, FD {fd}");
                        // The tangent along the unit direction of this lane.
                        let mut unit = zeros.clone();
                        unit[i] = nudge(&zeros, i, lane, 1.0).swap_remove(i);
                        let tenv = Env {
                            args: &args,
                            ret,
                            dret: 0.0,
                            dargs: &unit,
                        };
                        let tan = eval(&rule.tangent(), &tenv).s();
                        assert!((tan - fd).abs() < tol, "{at}: tangent {tan}, FD {fd}");
                        // Operand i's term alone (the others inactive).
                        let only: Vec<bool> = (0..args.len()).map(|k| k == i).collect();
                        let term = eval(&rule.tangent_over(&only), &tenv).s();
                        assert!((term - fd).abs() < tol, "{at}: term {term}, FD {fd}");
                    }
                }
            }
        }
    }
}

/// A max/min reached by several lanes gives the whole adjoint to the first
/// of them (a subgradient), and nothing to the others.
#[test]
fn extremum_ties_go_to_the_first_lane() {
    for (f, v) in [
        (MathFn::ReduceFMax, vec![0.5, 2.0, -1.0, 2.0]),
        (MathFn::ReduceFMin, vec![0.5, -1.0, 3.0, -1.0]),
    ] {
        let rule = lookup(OpKey::Math(f)).expect("a rule");
        let args = [Val::V(v)];
        let env = Env {
            args: &args,
            ret: primal(f, &args),
            dret: 2.5,
            dargs: &[],
        };
        let adjoint = eval(rule.adjoints[0].as_ref().expect("differentiable"), &env);
        assert_eq!(adjoint, Val::V(vec![0.0, 2.5, 0.0, 0.0]), "{f:?}");
        let dir = [Val::V(vec![1.0, 10.0, 100.0, 1000.0])];
        let tenv = Env { dargs: &dir, ..env };
        assert_eq!(eval(&rule.tangent(), &tenv), Val::S(10.0), "{f:?}");
    }
}

/// The product's adjoint never divides: a zero lane gets the product of
/// the others, the other lanes zero (or the product with a second zero).
#[test]
fn product_adjoint_is_exact_at_zeros() {
    let rule = lookup(OpKey::Math(MathFn::ReduceFMul)).expect("a rule");
    let args = [Val::S(2.0), Val::V(vec![3.0, 0.0, 5.0, 7.0])];
    let env = Env {
        args: &args,
        ret: 0.0,
        dret: 1.0,
        dargs: &[],
    };
    let adjoint = eval(rule.adjoints[1].as_ref().expect("differentiable"), &env);
    assert_eq!(adjoint, Val::V(vec![0.0, 2.0 * 105.0, 0.0, 0.0]));
    let two_zeros = [Val::S(2.0), Val::V(vec![3.0, 0.0, 5.0, 0.0])];
    let env = Env {
        args: &two_zeros,
        ..env
    };
    let adjoint = eval(rule.adjoints[1].as_ref().expect("differentiable"), &env);
    assert_eq!(adjoint, Val::V(vec![0.0; 4]));
}
