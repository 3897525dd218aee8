//! Every rule in the table checked against central finite differences of its
//! primal, through a small f64 interpreter of [`Expr`].

use super::*;

mod vector;

/// Rules over vector operands, checked per lane in [`vector`].
fn is_reduction(op: OpKey) -> bool {
    use MathFn as M;
    matches!(
        op,
        OpKey::Math(M::ReduceFAdd | M::ReduceFMul | M::ReduceFMax | M::ReduceFMin)
    )
}

/// The primal's results: one, or the components of a
/// [`Shape::Components`] result.
fn primal(op: OpKey, a: &[f64]) -> Vec<f64> {
    match op {
        OpKey::Math(f) => match components_primal(f, a) {
            Some(v) => v,
            None => vec![scalar_primal(op, a)],
        },
        _ => vec![scalar_primal(op, a)],
    }
}

/// Primals with a result of two components: complex results as (re, im),
/// modf as (fractional part, integer part).
fn components_primal(f: MathFn, a: &[f64]) -> Option<Vec<f64>> {
    use MathFn as M;
    Some(match f {
        M::Modf => vec![a[0].fract(), a[0].trunc()],
        M::Cexp => vec![a[0].exp() * a[1].cos(), a[0].exp() * a[1].sin()],
        M::CMul => vec![a[0] * a[2] - a[1] * a[3], a[0] * a[3] + a[1] * a[2]],
        M::CDiv => {
            let den = a[2] * a[2] + a[3] * a[3];
            vec![
                (a[0] * a[2] + a[1] * a[3]) / den,
                (a[1] * a[2] - a[0] * a[3]) / den,
            ]
        }
        _ => return None,
    })
}

fn scalar_primal(op: OpKey, a: &[f64]) -> f64 {
    use LLVMOpcode::*;
    match op {
        OpKey::Inst(LLVMFAdd) => a[0] + a[1],
        OpKey::Inst(LLVMFSub) => a[0] - a[1],
        OpKey::Inst(LLVMFMul) => a[0] * a[1],
        OpKey::Inst(LLVMFDiv) => a[0] / a[1],
        OpKey::Inst(LLVMFRem) => a[0] % a[1],
        OpKey::Inst(LLVMFNeg) => -a[0],
        OpKey::Inst(LLVMFreeze | LLVMFPExt | LLVMFPTrunc) => a[0],
        OpKey::Inst(LLVMSelect) => {
            if a[0] != 0.0 {
                a[1]
            } else {
                a[2]
            }
        }
        OpKey::Inst(other) => panic!("no primal for {other:?}"),
        OpKey::Math(f) => math_primal(f, a),
    }
}

fn math_primal(f: MathFn, a: &[f64]) -> f64 {
    use MathFn as M;
    match f {
        M::Sqrt => a[0].sqrt(),
        M::Sin => a[0].sin(),
        M::Cos => a[0].cos(),
        M::Tan => a[0].tan(),
        M::Exp => a[0].exp(),
        M::Exp2 => a[0].exp2(),
        M::Expm1 => a[0].exp_m1(),
        M::Log => a[0].ln(),
        M::Log2 => a[0].log2(),
        M::Log10 => a[0].log10(),
        M::Log1p => a[0].ln_1p(),
        M::Pow => a[0].powf(a[1]),
        M::Powi => a[0].powi(a[1] as i32),
        M::Fabs => a[0].abs(),
        M::Fma | M::FMulAdd => a[0].mul_add(a[1], a[2]),
        M::CopySign => a[0].copysign(a[1]),
        M::Min => a[0].min(a[1]),
        M::Max => a[0].max(a[1]),
        M::Floor => a[0].floor(),
        M::Ceil => a[0].ceil(),
        M::Trunc => a[0].trunc(),
        M::Round => a[0].round(),
        M::RoundEven | M::Rint | M::NearbyInt => a[0].round_ties_even(),
        M::Tanh => a[0].tanh(),
        M::Sinh => a[0].sinh(),
        M::Cosh => a[0].cosh(),
        M::Atan => a[0].atan(),
        M::Atan2 => a[0].atan2(a[1]),
        M::Asin => a[0].asin(),
        M::Acos => a[0].acos(),
        M::Hypot => a[0].hypot(a[1]),
        M::Cbrt => a[0].cbrt(),
        M::Erf => erf(a[0]),
        M::Erfc => 1.0 - erf(a[0]),
        M::Asinh => a[0].asinh(),
        M::Acosh => a[0].acosh(),
        M::Atanh => a[0].atanh(),
        M::Exp10 => 10f64.powf(a[0]),
        M::Fdim => (a[0] - a[1]).max(0.0),
        M::Remainder => a[0] - a[1] * (a[0] / a[1]).round_ties_even(),
        M::J0 => bessel::j0(a[0]),
        M::J1 => bessel::j1(a[0]),
        M::Y0 => bessel::y0(a[0]),
        M::Y1 => bessel::y1(a[0]),
        M::Lgamma | M::LgammaR => gamma::ln_abs_gamma(a[0]),
        M::Tgamma => gamma::gamma(a[0]),
        M::Digamma => gamma::digamma(a[0]),
        M::Fmod => a[0] % a[1],
        M::Ldexp | M::Scalbn | M::Scalbln => a[0] * 2f64.powi(a[1] as i32),
        M::Frexp => frexp(a[0]).0,
        M::Ilogb => f64::from(frexp(a[0]).1 - 1),
        M::Logb => f64::from(frexp(a[0]).1 - 1),
        M::Cabs => a[0].hypot(a[1]),
        M::Carg => a[1].atan2(a[0]),
        M::Modf | M::Cexp | M::CMul | M::CDiv => {
            components_primal(f, a).expect("two components")[0]
        }
        M::ReduceFAdd | M::ReduceFMul | M::ReduceFMax | M::ReduceFMin => {
            panic!("{f:?} takes a vector: see tests/vector.rs")
        }
    }
}

/// frexp: (m, e) with x = m 2^e, 0.5 <= |m| < 1 (m = e = 0 for 0).
fn frexp(x: f64) -> (f64, i32) {
    if x == 0.0 {
        return (0.0, 0);
    }
    let mut e = x.abs().log2().floor() as i32 + 1;
    let mut m = x * 2f64.powi(-e);
    while m.abs() >= 1.0 {
        m /= 2.0;
        e += 1;
    }
    while m.abs() < 0.5 {
        m *= 2.0;
        e -= 1;
    }
    (m, e)
}

/// erf by its Maclaurin series (|x| < 2 here).
fn erf(x: f64) -> f64 {
    let mut sum = 0.0;
    let mut term = x;
    for n in 0..60 {
        sum += term / (2 * n + 1) as f64;
        term *= -x * x / (n + 1) as f64;
    }
    sum * TWO_OVER_SQRT_PI
}

/// Bessel functions by their power series (|x| small enough here).
mod bessel {
    const EULER_GAMMA: f64 = 0.577_215_664_901_532_9;
    use std::f64::consts::PI;

    /// Σ_k (-1)^k (x/2)^(2k+m) / (k! (k+m)!) with each term times `w(k)`.
    fn series(x: f64, m: i32, w: impl Fn(i32) -> f64) -> f64 {
        let q = x * x / 4.0;
        let mut term = (x / 2.0).powi(m) / (1..=m).map(f64::from).product::<f64>();
        let mut sum = 0.0;
        for k in 0..60 {
            sum += term * w(k);
            term *= -q / (f64::from(k + 1) * f64::from(k + 1 + m));
        }
        sum
    }

    /// H_k = 1 + 1/2 + ... + 1/k.
    fn harmonic(k: i32) -> f64 {
        (1..=k).map(|j| 1.0 / f64::from(j)).sum()
    }

    pub(super) fn j0(x: f64) -> f64 {
        series(x, 0, |_| 1.0)
    }

    pub(super) fn j1(x: f64) -> f64 {
        series(x, 1, |_| 1.0)
    }

    /// y0 = (2/π)(ln(x/2) + γ) j0 - (2/π) Σ (-1)^k H_k (x²/4)^k / (k!)².
    pub(super) fn y0(x: f64) -> f64 {
        2.0 / PI * ((x / 2.0).ln() + EULER_GAMMA) * j0(x) - 2.0 / PI * series(x, 0, harmonic)
    }

    /// y1 = -2/(πx) + (2/π) ln(x/2) j1
    ///      - (1/π) Σ (-1)^k (ψ(k+1) + ψ(k+2)) (x/2)^(2k+1) / (k! (k+1)!),
    /// ψ(n+1) = H_n - γ.
    pub(super) fn y1(x: f64) -> f64 {
        let psi = |n: i32| harmonic(n) - EULER_GAMMA;
        -2.0 / (PI * x) + 2.0 / PI * (x / 2.0).ln() * j1(x)
            - series(x, 1, |k| psi(k) + psi(k + 1)) / PI
    }
}

/// Γ by Lanczos (g = 7, 9 terms), with reflection below 1/2; ψ by
/// recurrence and its asymptotic series.
mod gamma {
    use std::f64::consts::PI;

    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];

    pub(super) fn gamma(x: f64) -> f64 {
        if x < 0.5 {
            return PI / ((PI * x).sin() * gamma(1.0 - x));
        }
        let x = x - 1.0;
        let t = x + G + 0.5;
        let s: f64 = C[0]
            + C[1..]
                .iter()
                .enumerate()
                .map(|(i, c)| c / (x + i as f64 + 1.0))
                .sum::<f64>();
        (2.0 * PI).sqrt() * t.powf(x + 0.5) * (-t).exp() * s
    }

    pub(super) fn ln_abs_gamma(x: f64) -> f64 {
        gamma(x).abs().ln()
    }

    pub(super) fn digamma(x: f64) -> f64 {
        if x < 0.5 {
            return digamma(1.0 - x) - PI / (PI * x).tan();
        }
        let (mut x, mut acc) = (x, 0.0);
        while x < 10.0 {
            acc -= 1.0 / x;
            x += 1.0;
        }
        let f = 1.0 / (x * x);
        acc + x.ln() - 0.5 / x - f * (1.0 / 12.0 - f * (1.0 / 120.0 - f / 252.0))
    }
}

struct Env<'a> {
    args: &'a [f64],
    rets: &'a [f64],
    drets: &'a [f64],
    dargs: &'a [f64],
}

fn eval(e: &Expr, env: &Env) -> f64 {
    match e {
        Expr::DRet => env.drets[0],
        Expr::DRetAt(j) => env.drets[*j],
        Expr::DArg(i) => env.dargs[*i],
        Expr::Arg(i) => env.args[*i],
        Expr::Ret => env.rets[0],
        Expr::RetAt(j) => env.rets[*j],
        Expr::Const(v) => *v,
        Expr::Add(a, b) => eval(a, env) + eval(b, env),
        Expr::Sub(a, b) => eval(a, env) - eval(b, env),
        Expr::Mul(a, b) => eval(a, env) * eval(b, env),
        Expr::Div(a, b) => eval(a, env) / eval(b, env),
        Expr::Neg(a) => -eval(a, env),
        Expr::Math(f, args) => {
            let v: Vec<f64> = args.iter().map(|a| eval(a, env)).collect();
            math_primal(*f, &v)
        }
        Expr::Select(c, a, b) => {
            let cond = match &**c {
                Cond::Arg(i) => env.args[*i] != 0.0,
                Cond::Cmp(LLVMRealPredicate::LLVMRealOLT, l, r) => eval(l, env) < eval(r, env),
                Cond::Cmp(LLVMRealPredicate::LLVMRealOGT, l, r) => eval(l, env) > eval(r, env),
                Cond::Cmp(LLVMRealPredicate::LLVMRealOEQ, l, r) => eval(l, env) == eval(r, env),
                Cond::Cmp(p, _, _) => panic!("predicate {p:?} not interpreted"),
            };
            if cond {
                eval(a, env)
            } else {
                eval(b, env)
            }
        }
        Expr::ToArgType(_, a) | Expr::ToRetType(a) | Expr::IntToFp(a) => eval(a, env),
        Expr::IntAdd(a, k) => eval(a, env) + *k as f64,
        Expr::Given(_) => panic!("the table holds no given values"),
        Expr::Splat(..) | Expr::ProdOthers(_) | Expr::FirstLaneEq { .. } => {
            panic!("a vector formula: see tests/vector.rs")
        }
    }
}

/// Sample points per rule: operands that are integers or booleans are marked.
fn samples(op: OpKey) -> Vec<Vec<f64>> {
    use LLVMOpcode::*;
    match op {
        OpKey::Inst(LLVMFRem) | OpKey::Math(MathFn::Fmod) => {
            vec![vec![3.7, 1.3], vec![-2.9, 0.7]]
        }
        OpKey::Inst(LLVMSelect) => vec![vec![1.0, 0.3, 0.9], vec![0.0, 0.3, 0.9]],
        OpKey::Math(MathFn::Powi) => vec![vec![0.8, 3.0], vec![1.3, -2.0]],
        OpKey::Math(MathFn::Ldexp | MathFn::Scalbn | MathFn::Scalbln) => {
            vec![vec![0.8, 3.0], vec![-1.3, -2.0]]
        }
        // The second operand is the pointer written through.
        OpKey::Math(MathFn::Frexp | MathFn::Modf) => {
            vec![vec![0.37, 0.0], vec![-5.3, 0.0], vec![1234.5, 0.0]]
        }
        OpKey::Math(MathFn::CMul | MathFn::CDiv) => {
            vec![vec![0.37, 0.81, 0.55, -1.2], vec![-2.1, 0.4, 0.3, 0.9]]
        }
        OpKey::Math(MathFn::Remainder) => vec![vec![3.7, 1.3], vec![-2.9, 0.7]],
        // Defined above 1 (acosh) or above 0 (y0, y1).
        OpKey::Math(MathFn::Acosh) => vec![vec![1.37], vec![2.81], vec![1.05]],
        OpKey::Math(MathFn::Y0 | MathFn::Y1) => vec![vec![1.37], vec![2.81], vec![0.55]],
        OpKey::Math(MathFn::Lgamma | MathFn::Tgamma) => {
            vec![vec![0.37], vec![2.81], vec![-0.55], vec![7.3]]
        }
        OpKey::Math(MathFn::LgammaR) => vec![vec![0.37, 0.0], vec![-0.55, 0.0], vec![7.3, 0.0]],
        OpKey::Math(MathFn::J1) => vec![vec![0.37], vec![-2.81], vec![0.0]],
        OpKey::Math(MathFn::Ilogb | MathFn::Logb) => vec![vec![0.37], vec![-5.3], vec![1234.5]],
        _ => vec![
            vec![0.37, 0.81, 0.55],
            vec![0.81, 0.37, -0.25],
            vec![0.62, -0.43, 1.1],
        ],
    }
}

fn is_discrete(op: OpKey, i: usize) -> bool {
    matches!(
        (op, i),
        (OpKey::Inst(LLVMOpcode::LLVMSelect), 0)
            | (
                OpKey::Math(
                    MathFn::Powi
                        | MathFn::Ldexp
                        | MathFn::Scalbn
                        | MathFn::Scalbln
                        | MathFn::Frexp
                        | MathFn::Modf
                        | MathFn::LgammaR
                ),
                1
            )
    )
}

#[test]
fn every_rule_matches_finite_differences() {
    for rule in table().iter().filter(|r| !is_reduction(r.op)) {
        let n = rule.adjoints.len();
        for point in samples(rule.op) {
            let args = &point[..n];
            let rets = primal(rule.op, args);
            assert!(
                rets.iter().all(|r| r.is_finite()),
                "{:?} at {args:?}",
                rule.op
            );
            for i in 0..n {
                if is_discrete(rule.op, i) {
                    assert!(
                        rule.adjoints[i].is_none(),
                        "{:?}: operand {i} is discrete",
                        rule.op
                    );
                    continue;
                }
                for j in 0..rets.len() {
                    check_derivative(rule, args, &rets, i, j);
                }
            }
        }
    }
}

/// d result_j / d operand_i of `rule` at `args`: the adjoint with a unit
/// adjoint on result j and the tangent of result j with a unit tangent on
/// operand i, against a central finite difference.
fn check_derivative(rule: &Rule, args: &[f64], rets: &[f64], i: usize, j: usize) {
    let n = args.len();
    let h = 1e-6 * (1.0 + args[i].abs());
    let (mut p, mut m) = (args.to_vec(), args.to_vec());
    p[i] += h;
    m[i] -= h;
    let fd = (primal(rule.op, &p)[j] - primal(rule.op, &m)[j]) / (2.0 * h);
    let zeros = vec![0.0; n];
    let mut unit_ret = vec![0.0; rets.len()];
    unit_ret[j] = 1.0;
    let env = Env {
        args,
        rets,
        drets: &unit_ret,
        dargs: &zeros,
    };
    let adj = rule.adjoints[i].as_ref().map_or(0.0, |a| eval(a, &env));
    let tol = 1e-6 * (1.0 + fd.abs());
    assert!(
        (adj - fd).abs() < tol,
        "{:?} operand {i}, result {j} at {args:?}: adjoint {adj}, finite difference {fd}",
        rule.op
    );
    let mut unit = vec![0.0; n];
    unit[i] = 1.0;
    let no_ret = vec![0.0; rets.len()];
    let tenv = Env {
        args,
        rets,
        drets: &no_ret,
        dargs: &unit,
    };
    let tangent = if j == 0 {
        rule.tangent()
    } else {
        rule.tangent_of_output(j, &vec![true; n])
    };
    let tan = eval(&tangent, &tenv);
    assert!(
        (tan - fd).abs() < tol,
        "{:?} operand {i}, result {j} at {args:?}: tangent {tan}, finite difference {fd}",
        rule.op
    );
}

/// A tangent of one result of a two-result rule carries no term of the
/// other result's adjoint (they drop out instead of becoming `0 * ...`).
#[test]
fn component_tangents_drop_the_other_results() {
    let rule = lookup(OpKey::Math(MathFn::CMul)).expect("a rule");
    let mut uses = PrimalUses::default();
    uses.collect(&rule.tangent_of_output(0, &[true, true, false, false]));
    // re(z w)' with only z varying: c da - d db.
    assert_eq!(
        rule.tangent_of_output(0, &[true, false, false, false]),
        Expr::DArg(0) * Expr::Arg(2)
    );
    assert_eq!(uses.args, vec![2, 3]);
    let modf = lookup(OpKey::Math(MathFn::Modf)).expect("a rule");
    assert_eq!(modf.tangent_of_output(1, &[true, false]), Expr::Const(0.0));
    assert_eq!(modf.tangent_of_output(0, &[true, false]), Expr::DArg(0));
}

#[test]
fn every_math_function_has_a_rule() {
    use MathFn as M;
    let all = [
        M::Sqrt,
        M::Sin,
        M::Cos,
        M::Tan,
        M::Exp,
        M::Exp2,
        M::Expm1,
        M::Log,
        M::Log2,
        M::Log10,
        M::Log1p,
        M::Pow,
        M::Powi,
        M::Fabs,
        M::Fma,
        M::FMulAdd,
        M::CopySign,
        M::Min,
        M::Max,
        M::Floor,
        M::Ceil,
        M::Trunc,
        M::Round,
        M::RoundEven,
        M::Rint,
        M::NearbyInt,
        M::Tanh,
        M::Sinh,
        M::Cosh,
        M::Atan,
        M::Atan2,
        M::Asin,
        M::Acos,
        M::Hypot,
        M::Cbrt,
        M::Erf,
        M::Erfc,
        M::Asinh,
        M::Acosh,
        M::Atanh,
        M::Exp10,
        M::Fdim,
        M::Remainder,
        M::J0,
        M::J1,
        M::Y0,
        M::Y1,
        M::Lgamma,
        M::Tgamma,
        M::LgammaR,
        M::ReduceFAdd,
        M::ReduceFMul,
        M::ReduceFMax,
        M::ReduceFMin,
        M::Fmod,
        M::Ldexp,
        M::Scalbn,
        M::Scalbln,
        M::Frexp,
        M::Modf,
        M::Ilogb,
        M::Logb,
        M::Cabs,
        M::Carg,
        M::Cexp,
        M::CMul,
        M::CDiv,
    ];
    for f in all {
        assert!(lookup(OpKey::Math(f)).is_some(), "{f:?} has no rule");
    }
}

/// The lane formulas of the reductions keep their linearity when a result
/// adjoint is substituted: `Splat` and `FirstLaneEq`'s value carry it,
/// `FirstLaneEq`'s lanes and key and `ProdOthers` do not.
#[test]
fn lane_formulas_substitute_only_their_linear_parts() {
    let pick = first_lane_eq(x(0), ret(), dret());
    assert_eq!(
        pick.substitute_output(0, &Expr::DArg(0)),
        Some(first_lane_eq(x(0), ret(), Expr::DArg(0)))
    );
    assert_eq!(pick.substitute_output(1, &Expr::DArg(0)), None);
    let prod = splat(1, dret() * x(0)) * prod_others(x(1));
    assert_eq!(
        prod.substitute_output(0, &Expr::DArg(1)),
        Some(splat(1, Expr::DArg(1) * x(0)) * prod_others(x(1)))
    );
    assert_eq!(prod.substitute_output(1, &Expr::DArg(1)), None);
}

/// Hand-written tangent terms: elementwise rules only, one per operand.
#[test]
fn hand_written_tangents_are_elementwise_and_per_operand() {
    for rule in table() {
        if let Some(terms) = &rule.tangents {
            assert_eq!(rule.shape, Shape::Elementwise, "{:?}", rule.op);
            assert_eq!(terms.len(), rule.adjoints.len(), "{:?}", rule.op);
        }
    }
}
