//! The atomic blocks of generated programs (each one `Stmt::Block`, shrunk
//! only as a whole): stack and heap arrays, two-lane vectors, structs,
//! pointer arithmetic, a GMM-shaped nest, in-place recurrences, gathers
//! and scatters, calls through function pointers, `switch`, floats moved
//! as integers, pointer-helper calls.

use super::{b, Gen};
use super::{Expr, Fun, Piece, Stmt, FUNS};

impl Gen {
    pub(super) fn text(s: &str) -> Piece {
        Piece::Text(s.to_string())
    }

    /// `{ T t[2]; for (..) t[j] = ..; t[1] = ..; s = f(t[0], t[1]); }`
    pub(super) fn stack_array(&mut self) -> Stmt {
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
    pub(super) fn malloc_block(&mut self) -> Stmt {
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
    pub(super) fn vec_block(&mut self) -> Stmt {
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
    pub(super) fn struct_block(&mut self) -> Stmt {
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
    pub(super) fn ptr_block(&mut self) -> Stmt {
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
    pub(super) fn triangle_block(&mut self) -> Stmt {
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
    pub(super) fn recurrence_block(&mut self) -> Stmt {
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
    pub(super) fn gather_block(&mut self) -> Stmt {
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
    pub(super) fn bits_block(&mut self) -> Stmt {
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
    pub(super) fn fn_pointer_block(&mut self) -> Stmt {
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
    pub(super) fn switch_block(&mut self) -> Stmt {
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

    pub(super) fn ptr_helper_call(&mut self) -> Stmt {
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
