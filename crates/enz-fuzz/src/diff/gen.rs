//! The random program generator of the `diff` campaign: builds a
//! [`Program`](super::ast::Program) from a seed, numerically tame by
//! construction (bounded functions, positive `log`/`sqrt`/`pow` bases,
//! denominators away from zero, contractive updates), so that central
//! finite differences are a valid reference. Rendering is in `render.rs`.

pub use super::ast::*;

mod blocks;

pub const NLOCALS: usize = 4;

/// Generation state: what can be read and written at this point.
struct Gen {
    rng: Rng,
    nx: usize,
    /// Enclosing loop variables and whether `x[v]` is in bounds.
    loops: Vec<(String, bool)>,
    n_scalar_helpers: usize,
    n_ptr_helpers: usize,
    budget: usize,
    fresh: usize,
}

fn b(e: Expr) -> Box<Expr> {
    Box::new(e)
}

impl Gen {
    fn local(&mut self) -> String {
        format!("s{}", self.rng.below(NLOCALS))
    }

    fn xref(&mut self) -> String {
        let inb: Vec<String> = self
            .loops
            .iter()
            .map(|(v, ok)| if *ok { v.clone() } else { format!("{v} % NX") })
            .collect();
        if !inb.is_empty() && self.rng.chance(0.6) {
            let v = self.rng.pick(&inb).clone();
            if self.rng.chance(0.25) && !v.contains('%') {
                return format!("x[({v} + 1) % NX]");
            }
            return format!("x[{v}]");
        }
        format!("x[{}]", self.rng.below(self.nx))
    }

    fn leaf(&mut self) -> Expr {
        if !self.loops.is_empty() && self.rng.chance(0.08) {
            let v = self.rng.pick(&self.loops).0.clone();
            return Expr::Var(format!("({v} + 1)"));
        }
        match self.rng.below(10) {
            0..=3 => Expr::Var(self.local()),
            4..=6 => Expr::Var(self.xref()),
            7 => Expr::Var("a".into()),
            8 => Expr::Var("b".into()),
            _ => Expr::Const(self.rng.range(-1.5, 1.5)),
        }
    }

    fn expr(&mut self, depth: usize) -> Expr {
        if depth == 0 || self.rng.chance(0.25) {
            return self.leaf();
        }
        let d = depth - 1;
        match self.rng.below(16) {
            0 | 1 => Expr::Bin('+', b(self.expr(d)), b(self.expr(d))),
            2 => Expr::Bin('-', b(self.expr(d)), b(self.expr(d))),
            3 | 4 => Expr::Bin('*', b(self.expr(d)), b(self.bounded(d))),
            5 => Expr::Bin(
                '*',
                b(Expr::Const(self.rng.range(-1.2, 1.2))),
                b(self.expr(d)),
            ),
            6 => {
                let c = self.rng.chance(0.5);
                Expr::Div(b(self.expr(d)), b(self.expr(d)), c)
            }
            7 => Expr::Pow(b(self.expr(d)), *self.rng.pick(&[0.5, 1.5, -0.5, 0.75])),
            8 => Expr::Atan2(b(self.expr(d)), b(self.expr(d))),
            9 => Expr::Hypot(b(self.expr(d)), b(self.expr(d))),
            11 => {
                let m = self.rng.chance(0.5);
                let c = *self.rng.pick(&[-0.6, -0.3, 0.3, 0.6]);
                let rhs = Expr::Bin('+', b(self.expr(d)), b(Expr::Const(c)));
                Expr::MinMax(b(self.expr(d)), b(rhs), m)
            }
            12 => Expr::PowV(b(self.expr(d)), b(self.expr(d))),
            10 if self.n_scalar_helpers > 0 => {
                let k = self.rng.below(self.n_scalar_helpers);
                Expr::Helper(k, b(self.expr(d)), b(self.expr(d)))
            }
            _ => self.bounded(depth),
        }
    }

    /// An expression bounded in magnitude (|value| <= ~3).
    fn bounded(&mut self, depth: usize) -> Expr {
        let f = *self.rng.pick(&FUNS);
        let inner = if depth == 0 {
            self.leaf()
        } else {
            self.expr(depth - 1)
        };
        Expr::Call(f, b(inner))
    }

    /// A branch quantity `e - c`.
    fn cond(&mut self) -> Expr {
        let e = self.expr(2);
        Expr::Bin('-', b(e), b(Expr::Const(self.rng.range(-0.8, 0.8))))
    }

    /// An update of a local or of x: contractive enough to stay tame.
    fn assign(&mut self) -> Stmt {
        let lhs = if self.rng.chance(0.3) {
            self.xref()
        } else {
            self.local()
        };
        match self.rng.below(5) {
            0 => Stmt::Assign {
                lhs,
                op: "=",
                rhs: self.expr(3),
            },
            1 | 2 => {
                let r = Expr::Bin(
                    '*',
                    b(Expr::Const(self.rng.range(0.1, 0.6))),
                    b(self.bounded(2)),
                );
                Stmt::Assign {
                    lhs,
                    op: "+=",
                    rhs: r,
                }
            }
            3 => {
                // lhs = 0.5*lhs + bounded
                let r = Expr::Bin(
                    '+',
                    b(Expr::Bin(
                        '*',
                        b(Expr::Const(self.rng.range(0.3, 0.9))),
                        b(Expr::Var(lhs.clone())),
                    )),
                    b(self.bounded(2)),
                );
                Stmt::Assign {
                    lhs,
                    op: "=",
                    rhs: r,
                }
            }
            _ => {
                let r = self.bounded(2);
                Stmt::Assign {
                    lhs,
                    op: "*=",
                    rhs: Expr::Bin(
                        '+',
                        b(Expr::Const(0.5)),
                        b(Expr::Bin('*', b(Expr::Const(0.4)), b(r))),
                    ),
                }
            }
        }
    }

    fn fresh_var(&mut self, base: &str) -> String {
        self.fresh += 1;
        format!("{base}{}", self.fresh)
    }

    fn stmts(&mut self, n: usize, depth: usize) -> Vec<Stmt> {
        let mut v = Vec::new();
        for _ in 0..n {
            if self.budget == 0 {
                break;
            }
            self.budget -= 1;
            v.push(self.stmt(depth));
        }
        v
    }

    fn stmt(&mut self, depth: usize) -> Stmt {
        let in_loop = !self.loops.is_empty();
        let nested = depth >= 2;
        match self.rng.below(25) {
            0..=5 => self.assign(),
            6 | 7 if !nested => {
                let d = self.cond();
                let nt = 1 + self.rng.below(3);
                let then_ = self.stmts(nt, depth + 1);
                let else_ = if self.rng.chance(0.5) {
                    let ne = 1 + self.rng.below(2);
                    self.stmts(ne, depth + 1)
                } else {
                    Vec::new()
                };
                Stmt::If { d, then_, else_ }
            }
            8 | 9 if !nested => {
                let var = self.fresh_var("i");
                let (bound, inb) = match self.rng.below(3) {
                    0 => (Bound::Const(1 + self.rng.below(self.nx)), true),
                    1 => (Bound::N, true),
                    _ => (Bound::Data(self.expr(2)), false),
                };
                self.loops.push((var.clone(), inb));
                let nb = 1 + self.rng.below(3);
                let body = self.stmts(nb, depth + 1);
                self.loops.pop();
                Stmt::For { var, bound, body }
            }
            10 if !nested => {
                let var = self.fresh_var("w");
                let cap = 2 + self.rng.below(4);
                let d = self.cond();
                self.loops.push((var.clone(), false));
                let nb = 1 + self.rng.below(2);
                let body = self.stmts(nb, depth + 1);
                self.loops.pop();
                if self.rng.chance(0.3) {
                    Stmt::DoWhile { var, cap, d, body }
                } else {
                    Stmt::While { var, cap, d, body }
                }
            }
            11 if in_loop => Stmt::Break(self.cond()),
            12 if self.rng.chance(0.5) => {
                let d = self.cond();
                let l = self.local();
                let v = Expr::Bin('+', b(Expr::Var(l)), b(self.bounded(1)));
                Stmt::Return(d, v)
            }
            13 => self.stack_array(),
            14 => self.malloc_block(),
            15 => self.vec_block(),
            16 => self.struct_block(),
            17 if self.nx >= 2 => self.ptr_block(),
            18 if self.n_ptr_helpers > 0 => self.ptr_helper_call(),
            19 => self.triangle_block(),
            20 if self.nx >= 2 => self.recurrence_block(),
            21 => self.gather_block(),
            22 if self.n_scalar_helpers > 0 => self.fn_pointer_block(),
            23 => self.switch_block(),
            24 => self.bits_block(),
            _ => self.assign(),
        }
    }
}

fn scalar_helper(g: &mut Gen) -> Helper {
    use Piece::*;
    let saved = std::mem::take(&mut g.loops);
    // u, v are the parameters; w a local.
    let leaf = |g: &mut Gen| -> Expr {
        match g.rng.below(3) {
            0 => Expr::Var("u".into()),
            1 => Expr::Var("v".into()),
            _ => Expr::Const(g.rng.range(-1.0, 1.0)),
        }
    };
    let e1 = Expr::Bin(
        *g.rng.pick(&['+', '*', '-']),
        b(leaf(g)),
        b(Expr::Call(*g.rng.pick(&FUNS), b(leaf(g)))),
    );
    let mut body = vec![Ty, Text(" w = ".into()), Val(e1), Text(";\n".into())];
    if g.rng.chance(0.6) {
        let d = Expr::Bin('-', b(leaf(g)), b(Expr::Const(g.rng.range(-0.5, 0.5))));
        body.push(Text("if (".into()));
        body.push(Cond(d));
        body.push(Text(")\n  w = ".into()));
        let e = Expr::Bin(
            '*',
            b(Expr::Var("w".into())),
            b(Expr::Call(*g.rng.pick(&FUNS), b(leaf(g)))),
        );
        body.push(Val(e));
        body.push(Text(";\n".into()));
    }
    body.push(Text("return ".into()));
    body.push(Val(Expr::Call(
        *g.rng.pick(&FUNS),
        b(Expr::Var("w".into())),
    )));
    body.push(Text(";\n".into()));
    g.loops = saved;
    Helper::Scalar {
        body,
        noinline: g.rng.chance(0.5),
    }
}

fn ptr_helper(g: &mut Gen) -> Helper {
    use Piece::*;
    let e0 = Expr::Bin(
        '+',
        b(Expr::Bin(
            '*',
            b(Expr::Const(g.rng.range(0.3, 0.9))),
            b(Expr::Var("p[0]".into())),
        )),
        b(Expr::Call(
            *g.rng.pick(&FUNS),
            b(Expr::Bin(
                '*',
                b(Expr::Var("u".into())),
                b(Expr::Var("p[1]".into())),
            )),
        )),
    );
    let e1 = Expr::Bin(
        '-',
        b(Expr::Var("p[1]".into())),
        b(Expr::Bin(
            '*',
            b(Expr::Const(g.rng.range(0.1, 0.5))),
            b(Expr::Call(*g.rng.pick(&FUNS), b(Expr::Var("p[0]".into())))),
        )),
    );
    let body = vec![
        Text("p[0] = ".into()),
        Val(e0),
        Text(";\np[1] = ".into()),
        Val(e1),
        Text(";\n".into()),
    ];
    Helper::Pointer {
        body,
        noinline: g.rng.chance(0.5),
    }
}

/// Generates the program of `seed`.
pub fn generate(seed: u64) -> Program {
    let mut rng = Rng::new(seed);
    let float = rng.chance(0.3);
    let nx = 1 + rng.below(5);
    let n_scalar_helpers = rng.below(3);
    let n_ptr_helpers = if nx >= 2 { rng.below(2) } else { 0 };
    let budget = 6 + rng.below(20);
    let mut g = Gen {
        rng,
        nx,
        loops: Vec::new(),
        n_scalar_helpers,
        n_ptr_helpers,
        budget,
        fresh: 0,
    };
    let mut helpers = Vec::new();
    for _ in 0..n_scalar_helpers {
        helpers.push(scalar_helper(&mut g));
    }
    for _ in 0..n_ptr_helpers {
        helpers.push(ptr_helper(&mut g));
    }
    let init: Vec<Expr> = (0..NLOCALS)
        .map(|k| match k {
            0 => Expr::Var("a".into()),
            1 => Expr::Var("b".into()),
            _ => {
                let e = g.rng.below(3);
                match e {
                    0 => Expr::Var(format!("x[{}]", g.rng.below(nx))),
                    1 => Expr::Const(g.rng.range(-1.0, 1.0)),
                    _ => Expr::Bin(
                        '*',
                        b(Expr::Var("a".into())),
                        b(Expr::Var(format!("x[{}]", g.rng.below(nx)))),
                    ),
                }
            }
        })
        .collect();
    let mut body = Vec::new();
    while g.budget > 0 {
        g.budget -= 1;
        body.push(g.stmt(0));
    }
    // the result combines every local
    let mut ret = Expr::Var("s0".into());
    for k in 1..NLOCALS {
        let c = g.rng.range(-1.0, 1.0);
        ret = Expr::Bin(
            '+',
            b(ret),
            b(Expr::Bin(
                '*',
                b(Expr::Const(c)),
                b(Expr::Var(format!("s{k}"))),
            )),
        );
    }
    let rng = &mut g.rng;
    let mut modes = Modes {
        rev: rng.chance(0.6),
        rev_const: rng.chance(0.25),
        markers: rng.chance(0.5),
        fwd: rng.below(3),
        vec: rng.chance(0.4),
        split: rng.chance(0.4),
        rev_vec: rng.chance(0.3),
    };
    if !modes.rev
        && !modes.rev_const
        && modes.fwd == 0
        && !modes.vec
        && !modes.split
        && !modes.rev_vec
    {
        match rng.below(3) {
            0 => modes.rev = true,
            1 => modes.fwd = 1,
            _ => modes.split = true,
        }
    }
    let nz = nx + 2;
    let points = (0..12)
        .map(|_| (0..nz).map(|_| rng.range(-1.3, 1.3)).collect())
        .collect();
    let w = (0..nx).map(|_| rng.range(-1.0, 1.0)).collect();
    let mut dirs: Vec<Vec<f64>> = (0..3)
        .map(|_| (0..nz).map(|_| rng.range(-1.0, 1.0)).collect())
        .collect();
    // The first direction is sparse in two of three programs (x's part
    // zero, or a's and b's): tangents structurally zero in part of the
    // program, as in a Jacobian built one unit direction at a time.
    match seed % 3 {
        0 => dirs[0][..nx].iter_mut().for_each(|v| *v = 0.0),
        1 => dirs[0][nx..].iter_mut().for_each(|v| *v = 0.0),
        _ => {}
    }
    let dret = *rng.pick(&[1.0, 2.5, -0.75, 0.5]);
    Program {
        seed,
        float,
        nx,
        helpers,
        init,
        body,
        ret,
        modes,
        points,
        w,
        dirs,
        dret,
    }
}
