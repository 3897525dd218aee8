//! The random program generator of the `diff` campaign: builds a
//! [`Program`](super::ast::Program) from a seed, numerically tame by
//! construction (bounded functions, positive `log`/`sqrt`/`pow` bases,
//! denominators away from zero, contractive updates), so that central
//! finite differences are a valid reference. Rendering is in `render.rs`.

pub use super::ast::*;

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

    fn text(s: &str) -> Piece {
        Piece::Text(s.to_string())
    }

    /// `{ T t[2]; for (..) t[j] = ..; t[1] = ..; s = f(t[0], t[1]); }`
    fn stack_array(&mut self) -> Stmt {
        use Piece::*;
        let j = self.fresh_var("j");
        let mut p = vec![Self::text("{\n"), Ty, Self::text(" t[2];\n")];
        if self.nx >= 2 && self.rng.chance(0.3) {
            p.extend([
                Self::text("memcpy(t, x, 2 * sizeof("),
                Ty,
                Self::text("));\n"),
            ]);
            p.push(Text(format!("t[{}] *= ", self.rng.below(2))));
            p.push(Val(self.bounded(1)));
            p.push(Self::text(";\n"));
        } else {
            p.push(Text(format!(
                "for (int {j} = 0; {j} < 2; {j}++)\n  t[{j}] = "
            )));
            self.loops.push((j.clone(), false));
            p.push(Val(self.expr(2)));
            self.loops.pop();
            p.push(Self::text(";\n"));
        }
        if self.rng.chance(0.7) {
            let k = self.rng.below(2);
            p.push(Text(format!("t[{k}] = ")));
            let e = Expr::Bin(
                '*',
                b(Expr::Var(format!("t[{}]", 1 - k))),
                b(self.bounded(1)),
            );
            p.push(Val(e));
            p.push(Self::text(";\n"));
        }
        if self.n_ptr_helpers > 0 && self.rng.chance(0.4) {
            p.push(PHelper(self.rng.below(self.n_ptr_helpers)));
            p.push(Text(format!("(t, {});\n", self.local())));
        }
        let l = self.local();
        p.push(Text(format!("{l} = ")));
        let e = Expr::Bin(
            '+',
            b(Expr::Var("t[0]".into())),
            b(Expr::Bin(
                '*',
                b(Expr::Var("t[1]".into())),
                b(self.bounded(1)),
            )),
        );
        p.push(Val(e));
        p.push(Self::text(";\n}"));
        Stmt::Block(p)
    }

    /// A heap temporary filled from x, reduced, freed.
    fn malloc_block(&mut self) -> Stmt {
        use Piece::*;
        let j = self.fresh_var("j");
        let calloc = self.rng.chance(0.4);
        let mut p = vec![
            Self::text("{\n"),
            Ty,
            Self::text(" *buf = ("),
            Ty,
            Self::text(if calloc {
                " *)calloc(NX, sizeof("
            } else {
                " *)malloc(NX * sizeof("
            }),
            Ty,
            Self::text("));\n"),
        ];
        let op = if calloc { "+=" } else { "=" };
        p.push(Text(format!(
            "for (int {j} = 0; {j} < NX; {j}++)\n  buf[{j}] {op} "
        )));
        self.loops.push((j.clone(), true));
        p.push(Val(self.expr(2)));
        let l = self.local();
        p.push(Text(format!(
            ";\nfor (int {j} = 0; {j} < NX; {j}++)\n  {l} += "
        )));
        let c = self.rng.range(0.1, 0.5);
        let e = Expr::Bin(
            '*',
            b(Expr::Const(c)),
            b(Expr::Call(
                *self.rng.pick(&FUNS),
                b(Expr::Var(format!("buf[{j}]"))),
            )),
        );
        p.push(Val(e));
        self.loops.pop();
        p.push(Self::text(";\nfree(buf);\n}"));
        Stmt::Block(p)
    }

    /// Two-lane vector arithmetic and element access.
    fn vec_block(&mut self) -> Stmt {
        use Piece::*;
        let mut p = vec![Self::text("{\n"), V2, Self::text(" q = {")];
        p.push(Val(self.expr(2)));
        p.push(Self::text(", "));
        p.push(Val(self.expr(2)));
        p.push(Self::text("};\n"));
        p.extend([V2, Self::text(" r = q * q + ("), V2, Self::text("){")]);
        p.push(Lit(self.rng.range(-1.0, 1.0)));
        p.push(Self::text(", "));
        p.push(Lit(self.rng.range(-1.0, 1.0)));
        p.push(Self::text("};\n"));
        if self.rng.chance(0.5) {
            p.extend([Self::text("r = r * ("), V2, Self::text("){")]);
            p.push(Lit(self.rng.range(0.2, 0.8)));
            p.push(Self::text(", "));
            p.push(Lit(self.rng.range(0.2, 0.8)));
            p.push(Self::text("} - q;\n"));
        }
        if self.rng.chance(0.5) {
            p.push(Self::text("r[1] = "));
            p.push(Val(Expr::Call(
                *self.rng.pick(&FUNS),
                b(Expr::Var("r[0]".into())),
            )));
            p.push(Self::text(";\n"));
        }
        let l = self.local();
        p.push(Text(format!("{l} = ")));
        let e = Expr::Bin(
            '+',
            b(Expr::Call(Fun::Tanh, b(Expr::Var("r[0]".into())))),
            b(Expr::Call(
                *self.rng.pick(&FUNS),
                b(Expr::Var("r[1]".into())),
            )),
        );
        p.push(Val(e));
        p.push(Self::text(";\n}"));
        Stmt::Block(p)
    }

    /// A local struct written field by field, read back.
    fn struct_block(&mut self) -> Stmt {
        use Piece::*;
        let mut p = vec![Self::text("{\n"), St, Self::text(" pt;\npt.u = ")];
        p.push(Val(self.expr(2)));
        p.push(Self::text(";\npt.v = "));
        p.push(Val(Expr::Bin(
            '*',
            b(Expr::Var("pt.u".into())),
            b(self.bounded(1)),
        )));
        p.push(Self::text(";\n"));
        if self.rng.chance(0.5) {
            p.push(Self::text("pt.u = "));
            p.push(Val(self.bounded(2)));
            p.push(Self::text(";\n"));
        }
        let l = self.local();
        p.push(Text(format!("{l} = ")));
        let e = Expr::Bin(
            '+',
            b(Expr::Var("pt.v".into())),
            b(Expr::Call(
                *self.rng.pick(&FUNS),
                b(Expr::Var("pt.u".into())),
            )),
        );
        p.push(Val(e));
        p.push(Self::text(";\n}"));
        Stmt::Block(p)
    }

    /// Pointer arithmetic into x.
    fn ptr_block(&mut self) -> Stmt {
        use Piece::*;
        let k = self.rng.below(self.nx - 1);
        let j = self.rng.below(self.nx - k);
        let mut p = vec![
            Self::text("{\n"),
            Ty,
            Text(format!(" *p = x + {k};\np[0] = ")),
        ];
        let e = Expr::Bin(
            '+',
            b(Expr::Bin(
                '*',
                b(Expr::Const(0.5)),
                b(Expr::Var("p[0]".into())),
            )),
            b(self.bounded(1)),
        );
        p.push(Val(e));
        let l = self.local();
        p.push(Text(format!(";\n{l} += ")));
        let e = Expr::Bin(
            '*',
            b(Expr::Const(self.rng.range(0.2, 0.7))),
            b(Expr::Var(format!("*(p + {j})"))),
        );
        p.push(Val(e));
        p.push(Self::text(";\n}"));
        Stmt::Block(p)
    }

    /// A nest in the shape of ADBench's GMM: two buffers (heap or stack)
    /// refilled in every iteration of an outer loop, a triangular update of
    /// one by the other through a running integer index, a reduction.
    fn triangle_block(&mut self) -> Stmt {
        use Piece::*;
        let (o, j, c, r, k) = (
            self.fresh_var("o"),
            self.fresh_var("j"),
            self.fresh_var("c"),
            self.fresh_var("r"),
            self.fresh_var("k"),
        );
        let mut p = vec![Self::text("{\n")];
        let heap = self.rng.chance(0.5);
        if heap {
            for buf in ["bu", "bz"] {
                p.extend([
                    Ty,
                    Text(format!(" *{buf} = (")),
                    Ty,
                    Self::text(" *)malloc(NX * sizeof("),
                    Ty,
                    Self::text("));\n"),
                ]);
            }
        } else {
            p.extend([Ty, Self::text(" bu[NX], bz[NX];\n")]);
        }
        let outer = 1 + self.rng.below(3);
        p.push(Text(format!(
            "for (int {o} = 0; {o} < {outer}; {o}++) {{\nfor (int {j} = 0; {j} < NX; {j}++)\n  bu[{j}] = "
        )));
        self.loops.push((o.clone(), false));
        self.loops.push((j.clone(), true));
        p.push(Val(self.expr(2)));
        p.push(Text(format!(
            ";\nfor (int {j} = 0; {j} < NX; {j}++)\n  bz[{j}] = "
        )));
        let e = Expr::Bin('*', b(Expr::Var(format!("bu[{j}]"))), b(self.bounded(1)));
        p.push(Val(e));
        self.loops.pop();
        p.push(Text(format!(
            ";\nint {k} = 0;\nfor (int {c} = 0; {c} < NX; {c}++)\n  for (int {r} = {c} + 1; {r} < NX; {r}++) {{\nbz[{r}] += "
        )));
        let coef = if self.rng.chance(0.6) {
            Expr::Var(format!("x[{k} % NX]"))
        } else {
            self.leaf()
        };
        let e = Expr::Bin(
            '*',
            b(Expr::Const(self.rng.range(0.1, 0.4))),
            b(Expr::Bin(
                '*',
                b(Expr::Var(format!("bu[{c}]"))),
                b(Expr::Call(*self.rng.pick(&FUNS), b(coef))),
            )),
        );
        p.push(Val(e));
        p.push(Text(format!(";\n{k}++;\n}}\n")));
        let l = self.local();
        p.push(Text(format!(
            "for (int {j} = 0; {j} < NX; {j}++)\n  {l} += "
        )));
        let e = Expr::Bin(
            '*',
            b(Expr::Const(self.rng.range(0.1, 0.4))),
            b(Expr::Call(
                *self.rng.pick(&FUNS),
                b(Expr::Var(format!("bz[{j}]"))),
            )),
        );
        p.push(Val(e));
        self.loops.pop();
        p.push(Self::text(";\n}\n"));
        if heap {
            p.push(Self::text("free(bu);\nfree(bz);\n"));
        }
        p.push(Self::text("}"));
        Stmt::Block(p)
    }

    /// x updated in place from its neighbour, forwards or backwards.
    fn recurrence_block(&mut self) -> Stmt {
        use Piece::*;
        let j = self.fresh_var("j");
        let (head, dst, src) = if self.rng.chance(0.5) {
            (
                format!("for (int {j} = 1; {j} < NX; {j}++)\n  "),
                format!("x[{j}]"),
                format!("x[{j} - 1]"),
            )
        } else {
            (
                format!("for (int {j} = NX - 1; {j} > 0; {j}--)\n  "),
                format!("x[{j} - 1]"),
                format!("x[{j}]"),
            )
        };
        self.loops.push((j, true));
        let arg = Expr::Bin('*', b(Expr::Var(src)), b(self.leaf()));
        let e = Expr::Bin(
            '+',
            b(Expr::Bin(
                '*',
                b(Expr::Const(self.rng.range(0.3, 0.8))),
                b(Expr::Var(dst.clone())),
            )),
            b(Expr::Bin(
                '*',
                b(Expr::Const(self.rng.range(0.2, 0.6))),
                b(Expr::Call(*self.rng.pick(&FUNS), b(arg))),
            )),
        );
        self.loops.pop();
        Stmt::Block(vec![
            Text(format!("{head}{dst} = ")),
            Val(e),
            Self::text(";"),
        ])
    }

    /// Reads (and sometimes writes) x through an integer index array.
    fn gather_block(&mut self) -> Stmt {
        use Piece::*;
        let j = self.fresh_var("j");
        let (m, q) = (1 + self.rng.below(4), self.rng.below(5));
        let mut p = vec![Text(format!(
            "{{\nint ix[NX];\nfor (int {j} = 0; {j} < NX; {j}++)\n  ix[{j}] = ({j} * {m} + {q}) % NX;\n"
        ))];
        let l = self.local();
        p.push(Text(format!(
            "for (int {j} = 0; {j} < NX; {j}++)\n  {l} += "
        )));
        self.loops.push((j.clone(), true));
        let arg = Expr::Bin('*', b(Expr::Var(format!("x[ix[{j}]]"))), b(self.leaf()));
        let e = Expr::Bin(
            '*',
            b(Expr::Const(self.rng.range(0.1, 0.5))),
            b(Expr::Call(*self.rng.pick(&FUNS), b(arg))),
        );
        p.push(Val(e));
        p.push(Self::text(";\n"));
        if self.rng.chance(0.5) {
            let dst = format!("x[ix[{j}]]");
            p.push(Text(format!(
                "for (int {j} = 0; {j} < NX; {j}++)\n  {dst} = "
            )));
            let e = Expr::Bin(
                '+',
                b(Expr::Bin(
                    '*',
                    b(Expr::Const(self.rng.range(0.3, 0.8))),
                    b(Expr::Var(dst)),
                )),
                b(self.bounded(1)),
            );
            p.push(Val(e));
            p.push(Self::text(";\n"));
        }
        self.loops.pop();
        p.push(Self::text("}"));
        Stmt::Block(p)
    }

    /// Elements of x moved as integers of their width (`memcpy` through
    /// `uint64_t`/`uint32_t`, which clang turns into integer loads and
    /// stores): x rotated by one place through an integer carried around
    /// the loop, or two elements saved as integers, overwritten, and one
    /// of them chosen by a branch.
    fn bits_block(&mut self) -> Stmt {
        use Piece::*;
        let (j, c, n) = (
            self.fresh_var("j"),
            self.fresh_var("c"),
            self.fresh_var("n"),
        );
        if self.rng.chance(0.5) {
            return Stmt::Block(vec![
                Self::text("{\n"),
                Bits,
                Text(format!(" {c};\nmemcpy(&{c}, &x[NX - 1], sizeof {c});\nfor (int {j} = 0; {j} < NX; {j}++) {{\n")),
                Bits,
                Text(format!(
                    " {n};\nmemcpy(&{n}, &x[{j}], sizeof {n});\nmemcpy(&x[{j}], &{c}, sizeof {c});\n{c} = {n};\n}}\n}}"
                )),
            ]);
        }
        let k0 = self.rng.below(self.nx);
        let k1 = (k0 + 1 + self.rng.below(self.nx.max(2) - 1)) % self.nx;
        let (u0, u1, t, v) = (
            self.fresh_var("u"),
            self.fresh_var("u"),
            self.fresh_var("t"),
            self.fresh_var("v"),
        );
        let mut p = vec![
            Self::text("{\n"),
            Bits,
            Text(format!(
                " {u0}, {u1};\nmemcpy(&{u0}, &x[{k0}], sizeof {u0});\nmemcpy(&{u1}, &x[{k1}], sizeof {u1});\nx[{k0}] = "
            )),
        ];
        let e = Expr::Bin(
            '*',
            b(Expr::Var(format!("x[{k0}]"))),
            b(Expr::Call(*self.rng.pick(&FUNS), b(self.leaf()))),
        );
        p.push(Val(e));
        p.extend([Self::text(";\n"), Bits, Text(format!(" {t} = ("))]);
        p.push(Cond(self.expr(2)));
        p.extend([Text(format!(") ? {u0} : {u1};\n")), Ty]);
        let l = self.local();
        p.push(Text(format!(
            " {v};\nmemcpy(&{v}, &{t}, sizeof {v});\n{l} += "
        )));
        let e = Expr::Bin('*', b(Expr::Var(v)), b(self.bounded(1)));
        p.push(Val(e));
        p.push(Self::text(";\n}"));
        Stmt::Block(p)
    }

    /// Calls scalar helpers through a local table of function pointers and
    /// through a pointer chosen by a branch.
    fn fn_pointer_block(&mut self) -> Stmt {
        use Piece::*;
        let j = self.fresh_var("j");
        let n = self.n_scalar_helpers;
        let (h0, h1) = (self.rng.below(n), self.rng.below(n));
        let mut p = vec![
            Self::text("{\n"),
            Ty,
            Self::text(" (*fp[2])("),
            Ty,
            Self::text(", "),
            Ty,
            Self::text(") = {"),
            SHelper(h0),
            Self::text(", "),
            SHelper(h1),
            Self::text("};\n"),
        ];
        let l = self.local();
        let trips = 1 + self.rng.below(3);
        p.push(Text(format!(
            "for (int {j} = 0; {j} < {trips}; {j}++)\n  {l} = "
        )));
        self.loops.push((j.clone(), false));
        let call = Expr::Var(format!("fp[{j} % 2]"));
        let e = Expr::Bin(
            '+',
            b(Expr::Bin(
                '*',
                b(Expr::Const(self.rng.range(0.3, 0.7))),
                b(Expr::Var(l.clone())),
            )),
            b(Expr::Bin(
                '*',
                b(Expr::Const(self.rng.range(0.2, 0.5))),
                b(Expr::Apply(b(call), b(self.expr(1)), b(self.expr(1)))),
            )),
        );
        self.loops.pop();
        p.push(Val(e));
        p.push(Self::text(";\n"));
        if self.rng.chance(0.6) {
            p.extend([
                Ty,
                Self::text(" (*g)("),
                Ty,
                Self::text(", "),
                Ty,
                Self::text(") = ("),
            ]);
            p.push(Cond(self.cond()));
            p.extend([
                Self::text(") ? fp[0] : fp[1];\n"),
                Text(format!("{} += ", self.local())),
            ]);
            let e = Expr::Bin(
                '*',
                b(Expr::Const(self.rng.range(0.2, 0.5))),
                b(Expr::Apply(
                    b(Expr::Var("g".into())),
                    b(self.expr(1)),
                    b(self.expr(1)),
                )),
            );
            p.push(Val(e));
            p.push(Self::text(";\n"));
        }
        p.push(Self::text("}"));
        Stmt::Block(p)
    }

    /// A `switch` on a small count from data, with fallthrough.
    fn switch_block(&mut self) -> Stmt {
        use Piece::*;
        let mut p = vec![
            Self::text("switch ("),
            Itr(self.expr(2)),
            Self::text(") {\n"),
        ];
        for case in 0..3 {
            p.push(Text(format!("case {case}:\n")));
            let l = self.local();
            p.push(Text(format!("  {l} = ")));
            let e = Expr::Bin(
                '+',
                b(Expr::Bin(
                    '*',
                    b(Expr::Const(self.rng.range(0.3, 0.9))),
                    b(Expr::Var(l)),
                )),
                b(self.bounded(2)),
            );
            p.push(Val(e));
            p.push(Self::text(";\n"));
            if self.rng.chance(0.6) {
                p.push(Self::text("  break;\n"));
            }
        }
        p.push(Self::text("default:\n  "));
        let l = self.local();
        p.push(Text(format!("{l} *= ")));
        p.push(Val(Expr::Bin(
            '+',
            b(Expr::Const(0.5)),
            b(Expr::Bin('*', b(Expr::Const(0.4)), b(self.bounded(1)))),
        )));
        p.push(Self::text(";\n}"));
        Stmt::Block(p)
    }

    fn ptr_helper_call(&mut self) -> Stmt {
        use Piece::*;
        let k = self.rng.below(self.n_ptr_helpers);
        let target = if self.nx >= 3 && self.rng.chance(0.5) {
            format!("x + {}", self.rng.below(self.nx - 1))
        } else if self.nx >= 2 {
            "x".to_string()
        } else {
            return self.stack_array();
        };
        let arg = self.local();
        Stmt::Block(vec![PHelper(k), Text(format!("({target}, {arg});"))])
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
