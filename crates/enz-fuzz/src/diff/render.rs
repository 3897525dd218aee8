//! Renders a generated [`Program`] as a self-checking C file in the style of
//! the `c_tests` fixtures (`enzyme.h` + `check.h`, `return check_report();`).
//!
//! The function under test `fz_f` is rendered twice: as written (float or
//! double), for the `__enzyme_*` calls, and as `fz_f_ref`, always in double
//! and instrumented: every assigned value, branch quantity and truncation
//! to int is noted (largest magnitude, smallest distance to a kink, a hash
//! of the path taken). `main` only uses a point when the reference is tame
//! there and every central finite difference takes the same path, so the
//! finite differences never straddle a kink, and agrees with the one of 4x
//! its step (a chaotic iterated map passes the other tests and still makes
//! FD meaningless); exit status 77 means no candidate point was usable.

use super::gen::{Bound, Expr, Fun, Helper, Piece, Program, Stmt, NLOCALS};
use std::fmt::Write;

/// Which copy is being rendered.
#[derive(Clone, Copy)]
struct Ctx {
    float: bool,
    reff: bool,
}

impl Ctx {
    fn fl(self) -> bool {
        self.float && !self.reff
    }
    fn ty(self) -> &'static str {
        if self.fl() {
            "float"
        } else {
            "double"
        }
    }
    fn sfx(self) -> &'static str {
        if self.reff {
            "_ref"
        } else {
            ""
        }
    }
    fn lit(self, c: f64) -> String {
        let s = format!("{c:?}");
        let s = if self.fl() { format!("{s}f") } else { s };
        if c < 0.0 {
            format!("({s})")
        } else {
            s
        }
    }
    fn fun(self, name: &str) -> String {
        if self.fl() {
            format!("{name}f")
        } else {
            name.to_string()
        }
    }

    fn expr(self, e: &Expr) -> String {
        let one = self.lit(1.0);
        match e {
            Expr::Var(s) => s.clone(),
            Expr::Const(c) => self.lit(*c),
            Expr::Bin(op, a, b) => format!("({} {op} {})", self.expr(a), self.expr(b)),
            Expr::Div(a, b, true) => format!(
                "({} / ({} + {}({})))",
                self.expr(a),
                self.lit(1.5),
                self.fun("sin"),
                self.expr(b)
            ),
            Expr::Div(a, b, false) => {
                let bb = self.expr(b);
                format!("({} / ({one} + {bb} * {bb}))", self.expr(a))
            }
            Expr::Call(f, a) => self.call(*f, &self.expr(a)),
            Expr::Pow(a, c) => {
                let aa = self.expr(a);
                format!("{}({one} + {aa} * {aa}, {})", self.fun("pow"), self.lit(*c))
            }
            Expr::Atan2(a, b) => {
                let bb = self.expr(b);
                format!(
                    "{}({}, {one} + {bb} * {bb})",
                    self.fun("atan2"),
                    self.expr(a)
                )
            }
            Expr::Hypot(a, b) => {
                let bb = self.expr(b);
                format!(
                    "{}({}, {} + {bb} * {bb})",
                    self.fun("hypot"),
                    self.expr(a),
                    self.lit(0.5)
                )
            }
            Expr::MinMax(a, b, m) => {
                let name = if *m { "fmax" } else { "fmin" };
                if self.reff {
                    format!("fz_{name}({}, {})", self.expr(a), self.expr(b))
                } else {
                    format!("{}({}, {})", self.fun(name), self.expr(a), self.expr(b))
                }
            }
            Expr::PowV(a, b) => {
                let aa = self.expr(a);
                format!(
                    "{}({one} + {aa} * {aa}, {} * {}({}))",
                    self.fun("pow"),
                    self.lit(0.5),
                    self.fun("sin"),
                    self.expr(b)
                )
            }
            Expr::Helper(k, a, b) => {
                format!("h{k}{}({}, {})", self.sfx(), self.expr(a), self.expr(b))
            }
            Expr::Apply(f, a, b) => {
                format!("{}({}, {})", self.expr(f), self.expr(a), self.expr(b))
            }
        }
    }

    fn call(self, f: Fun, a: &str) -> String {
        let one = self.lit(1.0);
        let half = self.lit(0.5);
        let fun = |n: &str| self.fun(n);
        match f {
            Fun::Sin => format!("{}({a})", fun("sin")),
            Fun::Cos => format!("{}({a})", fun("cos")),
            Fun::Tanh => format!("{}({a})", fun("tanh")),
            Fun::Atan => format!("{}({a})", fun("atan")),
            Fun::Erf => format!("{}({a})", fun("erf")),
            Fun::Gauss => format!("{}(-{a} * {a})", fun("exp")),
            Fun::ExpT => format!("{}({half} * {}({a}))", fun("exp"), fun("tanh")),
            Fun::LogP => format!("{}({one} + {a} * {a})", fun("log")),
            Fun::SqrtP => format!("{}({one} + {a} * {a})", fun("sqrt")),
            Fun::Log1p => format!("{}({a} * {a})", fun("log1p")),
            Fun::Expm1 => format!("{}({half} * {}({a}))", fun("expm1"), fun("sin")),
            Fun::Asin => format!("{}({half} * {}({a}))", fun("asin"), fun("tanh")),
            Fun::Sinh => format!("{}({half} * {}({a}))", fun("sinh"), fun("sin")),
            Fun::Cbrt => format!("{}({one} + {a} * {a})", fun("cbrt")),
            Fun::Tan => format!("{}({half} * {}({a}))", fun("tan"), fun("sin")),
            Fun::Rat => format!("({a} / ({one} + {a} * {a}))"),
        }
    }

    fn val(self, e: &Expr) -> String {
        if self.reff {
            format!("fz_val({})", self.expr(e))
        } else {
            self.expr(e)
        }
    }

    fn cond(self, e: &Expr) -> String {
        if self.reff {
            format!("fz_cond({}) > 0", self.expr(e))
        } else {
            format!("{} > 0", self.expr(e))
        }
    }

    /// `(int)(2 + 1.4*sin(e))`: a small count or case from data.
    fn itr(self, e: &Expr) -> String {
        let v = format!(
            "{} + {} * {}({})",
            self.lit(2.0),
            self.lit(1.4),
            self.fun("sin"),
            self.expr(e)
        );
        if self.reff {
            format!("fz_itr({v})")
        } else {
            format!("(int)({v})")
        }
    }

    fn pieces(self, ps: &[Piece]) -> String {
        let mut s = String::new();
        for p in ps {
            match p {
                Piece::Text(t) => s.push_str(t),
                Piece::Ty => s.push_str(self.ty()),
                Piece::V2 => s.push_str(if self.reff { "fz_v2_ref" } else { "fz_v2" }),
                Piece::St => s.push_str(if self.reff { "fz_pt_ref" } else { "fz_pt" }),
                Piece::Bits => s.push_str(if self.fl() { "uint32_t" } else { "uint64_t" }),
                Piece::Lit(c) => s.push_str(&self.lit(*c)),
                Piece::E(e) => s.push_str(&self.expr(e)),
                Piece::Val(e) => s.push_str(&self.val(e)),
                Piece::Cond(e) => s.push_str(&self.cond(e)),
                Piece::PHelper(k) => {
                    let _ = write!(s, "p{k}{}", self.sfx());
                }
                Piece::SHelper(k) => {
                    let _ = write!(s, "h{k}{}", self.sfx());
                }
                Piece::Itr(e) => s.push_str(&self.itr(e)),
            }
        }
        s
    }

    fn stmts(self, out: &mut String, ss: &[Stmt], ind: usize) {
        for s in ss {
            self.stmt(out, s, ind);
        }
    }

    fn stmt(self, out: &mut String, s: &Stmt, ind: usize) {
        let pad = "  ".repeat(ind);
        match s {
            Stmt::Assign { lhs, op, rhs } => {
                let _ = writeln!(out, "{pad}{lhs} {op} {};", self.val(rhs));
            }
            Stmt::If { d, then_, else_ } => {
                let _ = writeln!(out, "{pad}if ({}) {{", self.cond(d));
                self.stmts(out, then_, ind + 1);
                if !else_.is_empty() {
                    let _ = writeln!(out, "{pad}}} else {{");
                    self.stmts(out, else_, ind + 1);
                }
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::For { var, bound, body } => {
                let (pre, lim) = match bound {
                    Bound::Const(k) => (None, k.to_string()),
                    Bound::N => (None, "n".to_string()),
                    Bound::Data(e) => (Some(self.itr(e)), format!("k_{var}")),
                };
                let mut ind2 = ind;
                if let Some(init) = &pre {
                    let _ = writeln!(out, "{pad}{{\n{pad}  int k_{var} = {init};");
                    ind2 += 1;
                }
                let pad2 = "  ".repeat(ind2);
                let _ = writeln!(out, "{pad2}for (int {var} = 0; {var} < {lim}; {var}++) {{");
                self.stmts(out, body, ind2 + 1);
                let _ = writeln!(out, "{pad2}}}");
                if pre.is_some() {
                    let _ = writeln!(out, "{pad}}}");
                }
            }
            Stmt::While { var, cap, d, body } => {
                let _ = writeln!(
                    out,
                    "{pad}for (int {var} = 0; {var} < {cap} && {}; {var}++) {{",
                    self.cond(d)
                );
                self.stmts(out, body, ind + 1);
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::DoWhile { var, cap, d, body } => {
                let _ = writeln!(out, "{pad}{{\n{pad}  int {var} = 0;\n{pad}  do {{");
                self.stmts(out, body, ind + 2);
                let _ = writeln!(
                    out,
                    "{pad}  }} while (++{var} < {cap} && {});\n{pad}}}",
                    self.cond(d)
                );
            }
            Stmt::Break(d) => {
                let _ = writeln!(out, "{pad}if ({})\n{pad}  break;", self.cond(d));
            }
            Stmt::Return(d, v) => {
                let _ = writeln!(
                    out,
                    "{pad}if ({})\n{pad}  return {};",
                    self.cond(d),
                    self.val(v)
                );
            }
            Stmt::Block(ps) => {
                let text = self.pieces(ps);
                let mut depth = 0usize;
                for line in text.lines() {
                    let l = line.trim();
                    if l.starts_with('}') {
                        depth = depth.saturating_sub(1);
                    }
                    let extra = if l.starts_with('}') || l.starts_with('{') {
                        0
                    } else {
                        depth
                    };
                    let _ = writeln!(out, "{pad}{}{l}", "  ".repeat(extra));
                    if l.ends_with('{') {
                        depth += 1;
                    }
                }
            }
        }
    }

    fn helpers(self, out: &mut String, hs: &[Helper]) {
        let (mut ks, mut kp) = (0, 0);
        let ty = self.ty();
        let sfx = self.sfx();
        for h in hs {
            match h {
                Helper::Scalar { body, noinline } => {
                    let attr = if *noinline {
                        "__attribute__((noinline)) "
                    } else {
                        ""
                    };
                    let _ = writeln!(out, "static {attr}{ty} h{ks}{sfx}({ty} u, {ty} v) {{");
                    push_indented(out, &self.pieces(body), 1);
                    out.push_str("}\n\n");
                    ks += 1;
                }
                Helper::Pointer { body, noinline } => {
                    let attr = if *noinline {
                        "__attribute__((noinline)) "
                    } else {
                        ""
                    };
                    let _ = writeln!(out, "static {attr}void p{kp}{sfx}({ty} *p, {ty} u) {{");
                    push_indented(out, &self.pieces(body), 1);
                    out.push_str("}\n\n");
                    kp += 1;
                }
            }
        }
    }

    fn function(self, out: &mut String, p: &Program) {
        let ty = self.ty();
        let _ = writeln!(
            out,
            "static {ty} fz_f{}({ty} *x, {ty} a, {ty} b, int n) {{",
            self.sfx()
        );
        let inits: Vec<String> = p
            .init
            .iter()
            .enumerate()
            .map(|(k, e)| format!("s{k} = {}", self.expr(e)))
            .collect();
        let _ = writeln!(out, "  {ty} {};", inits.join(", "));
        out.push_str("  (void)n;\n");
        self.stmts(out, &p.body, 1);
        let _ = writeln!(out, "  return {};\n}}\n", self.val(&p.ret));
    }
}

fn push_indented(out: &mut String, text: &str, ind: usize) {
    let pad = "  ".repeat(ind);
    for l in text.lines() {
        let _ = writeln!(out, "{pad}{l}");
    }
}

fn table(vals: &[f64]) -> String {
    let v: Vec<String> = vals.iter().map(|c| format!("{c:?}")).collect();
    format!("{{{}}}", v.join(", "))
}

/// Tolerance of AD vs central FD of the double reference, relative to
/// 1 + |FD|: double, float.
const TOL_D: f64 = 1e-4;
const TOL_F: f64 = 5e-3;

/// The C source of `p`; `header` is the comment at the top (without `/* */`).
pub fn render(p: &Program, header: &str) -> String {
    let t = if p.float { "float" } else { "double" };
    let nx = p.nx;
    let mut o = String::new();
    let _ = writeln!(o, "/* {} */", header.trim().replace("*/", "* /"));
    o.push_str(
        "#include <math.h>\n#include <stdint.h>\n#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n\
         #include \"enzyme.h\"\n#include \"check.h\"\n\n",
    );
    let _ = writeln!(o, "#define NX {nx}\n#define NZ (NX + 2)");
    let _ = writeln!(o, "typedef {t} fz_real;");
    let _ = writeln!(
        o,
        "#define FZ_TOL {:?}\n#define FZ_LIM {:?}\n#define FZ_MARGIN {:?}\n",
        if p.float { TOL_F } else { TOL_D },
        if p.float { 1e3 } else { 1e4 },
        if p.float { 1e-2 } else { 1e-4 }
    );
    let _ = writeln!(
        o,
        "typedef struct {{ fz_real da, db; }} fz_grad2;\n\
         fz_grad2 __enzyme_autodiff_fzg2(void *, ...);\n\
         fz_real __enzyme_autodiff_fz1(void *, ...);\n\
         fz_grad2 __enzyme_reverse_fzg2(void *, ...);\n\
         fz_real __enzyme_fwddiff_fz(void *, ...);\n\
         typedef struct {{ fz_real d[2]; }} fz_tan2;\n\
         fz_tan2 __enzyme_fwddiff_fzw2(void *, ...);\n\
         typedef struct {{ fz_real da[2], db[2]; }} fz_grad2w2;\n\
         fz_grad2w2 __enzyme_autodiff_fzgw2(void *, ...);\n"
    );
    let _ = writeln!(
        o,
        "typedef {t} fz_v2 __attribute__((vector_size(2 * sizeof({t}))));\n\
         typedef double fz_v2_ref __attribute__((vector_size(16)));\n\
         typedef struct {{ {t} u, v; }} fz_pt;\n\
         typedef struct {{ double u, v; }} fz_pt_ref;\n"
    );
    o.push_str(INSTRUMENT);
    o.push_str("\n/* ---- the function under test ---- */\n\n");
    let f = Ctx {
        float: p.float,
        reff: false,
    };
    f.helpers(&mut o, &p.helpers);
    f.function(&mut o, p);
    o.push_str("/* ---- the same in double, instrumented, for finite differences ---- */\n\n");
    let r = Ctx {
        float: p.float,
        reff: true,
    };
    r.helpers(&mut o, &p.helpers);
    r.function(&mut o, p);

    let _ = writeln!(o, "static const double FZ_P[{}][NZ] = {{", p.points.len());
    for pt in &p.points {
        let _ = writeln!(o, "  {},", table(pt));
    }
    o.push_str("};\n");
    let _ = writeln!(o, "static const fz_real FZ_W[NX] = {};", table(&p.w));
    let _ = writeln!(o, "static const fz_real FZ_V[{}][NZ] = {{", p.dirs.len());
    for d in &p.dirs {
        let _ = writeln!(o, "  {},", table(d));
    }
    o.push_str("};\n");
    let _ = writeln!(o, "#define FZ_DRET {:?}\n", p.dret);
    o.push_str(EVAL);
    let _ = NLOCALS;

    let m = &p.modes;
    let (dup, out, cst) = if m.markers {
        ("enzyme_dup, ", "enzyme_out, ", "enzyme_const, ")
    } else {
        ("", "", "")
    };
    if m.rev {
        let _ = writeln!(
            o,
            "/* reverse mode: x dup (its shadow seeded with W), a and b out */\n\
             static void fz_check_rev(const double *z, const double *g) {{\n\
             \x20 fz_real xa[NX], dxa[NX];\n\
             \x20 for (int i = 0; i < NX; i++) {{\n    xa[i] = (fz_real)z[i];\n    dxa[i] = FZ_W[i];\n  }}\n\
             \x20 fz_grad2 r = __enzyme_autodiff_fzg2((void *)fz_f, {dup}xa, dxa, {out}(fz_real)z[NX], {out}(fz_real)z[NX + 1], {cst}NX);\n\
             \x20 for (int i = 0; i < NX; i++)\n    check_close_i(\"rev dx\", i, dxa[i], g[i], FZ_TOL);\n\
             \x20 check_close(\"rev da\", r.da, g[NX], FZ_TOL);\n\
             \x20 check_close(\"rev db\", r.db, g[NX + 1], FZ_TOL);\n}}\n"
        );
    }
    if m.rev_const {
        let _ = writeln!(
            o,
            "/* reverse mode with b enzyme_const */\n\
             static void fz_check_rev_const(const double *z, const double *g) {{\n\
             \x20 fz_real xa[NX], dxa[NX];\n\
             \x20 for (int i = 0; i < NX; i++) {{\n    xa[i] = (fz_real)z[i];\n    dxa[i] = FZ_W[i];\n  }}\n\
             \x20 fz_real da = __enzyme_autodiff_fz1((void *)fz_f, {dup}xa, dxa, {out}(fz_real)z[NX], enzyme_const, (fz_real)z[NX + 1], {cst}NX);\n\
             \x20 for (int i = 0; i < NX; i++)\n    check_close_i(\"rev(b const) dx\", i, dxa[i], g[i], FZ_TOL);\n\
             \x20 check_close(\"rev(b const) da\", da, g[NX], FZ_TOL);\n}}\n"
        );
    }
    if m.fwd > 0 {
        let fdup = if m.markers { "enzyme_dup, " } else { "" };
        let _ = writeln!(
            o,
            "/* forward mode along direction d: the tangent of the result plus W . (tangent of x after) */\n\
             static void fz_check_fwd(const double *z, const double *g, int d) {{\n\
             \x20 fz_real xa[NX], dxa[NX];\n\
             \x20 double got, want = 0.0;\n\
             \x20 for (int i = 0; i < NX; i++) {{\n    xa[i] = (fz_real)z[i];\n    dxa[i] = FZ_V[d][i];\n  }}\n\
             \x20 got = __enzyme_fwddiff_fz((void *)fz_f, {fdup}xa, dxa, {fdup}(fz_real)z[NX], FZ_V[d][NX], {fdup}(fz_real)z[NX + 1], FZ_V[d][NX + 1], {cst}NX);\n\
             \x20 for (int i = 0; i < NX; i++)\n    got += (double)FZ_W[i] * dxa[i];\n\
             \x20 for (int i = 0; i < NZ; i++)\n    want += g[i] * FZ_V[d][i];\n\
             \x20 check_close_i(\"fwd direction\", d, got, want, FZ_TOL);\n}}\n"
        );
    }
    if m.vec {
        let _ = writeln!(
            o,
            "/* vector forward mode, width 2, directions 1 and 2 */\n\
             static void fz_check_vec(const double *z, const double *g) {{\n\
             \x20 fz_real xa[NX], d0[NX], d1[NX];\n\
             \x20 for (int i = 0; i < NX; i++) {{\n    xa[i] = (fz_real)z[i];\n    d0[i] = FZ_V[1][i];\n    d1[i] = FZ_V[2][i];\n  }}\n\
             \x20 fz_tan2 t = __enzyme_fwddiff_fzw2((void *)fz_f, enzyme_width, 2, xa, d0, d1, (fz_real)z[NX], FZ_V[1][NX], FZ_V[2][NX], (fz_real)z[NX + 1], FZ_V[1][NX + 1], FZ_V[2][NX + 1], NX);\n\
             \x20 double got0 = t.d[0], got1 = t.d[1], want0 = 0.0, want1 = 0.0;\n\
             \x20 for (int i = 0; i < NX; i++) {{\n    got0 += (double)FZ_W[i] * d0[i];\n    got1 += (double)FZ_W[i] * d1[i];\n  }}\n\
             \x20 for (int i = 0; i < NZ; i++) {{\n    want0 += g[i] * FZ_V[1][i];\n    want1 += g[i] * FZ_V[2][i];\n  }}\n\
             \x20 check_close(\"vec lane 0\", got0, want0, FZ_TOL);\n\
             \x20 check_close(\"vec lane 1\", got1, want1, FZ_TOL);\n}}\n"
        );
    }
    if m.rev_vec {
        let _ = writeln!(
            o,
            "/* vector reverse mode, width 2: the return seeded with 1 in both lanes, x's shadow\n\
             \x20* with W in lane 0 (the gradient g) and W / FZ_DRET in lane 1 (gs / FZ_DRET) */\n\
             static void fz_check_rev_vec(const double *z, const double *g, const double *gs) {{\n\
             \x20 fz_real xa[NX], d0[NX], d1[NX];\n\
             \x20 for (int i = 0; i < NX; i++) {{\n    xa[i] = (fz_real)z[i];\n    d0[i] = FZ_W[i];\n    d1[i] = (fz_real)(FZ_W[i] / FZ_DRET);\n  }}\n\
             \x20 fz_grad2w2 r = __enzyme_autodiff_fzgw2((void *)fz_f, enzyme_width, 2, {dup}xa, d0, d1, {out}(fz_real)z[NX], {out}(fz_real)z[NX + 1], {cst}NX);\n\
             \x20 for (int i = 0; i < NX; i++) {{\n    check_close_i(\"rev_vec lane 0 dx\", i, d0[i], g[i], FZ_TOL);\n    check_close_i(\"rev_vec lane 1 dx\", i, d1[i], gs[i] / FZ_DRET, FZ_TOL);\n  }}\n\
             \x20 check_close(\"rev_vec lane 0 da\", r.da[0], g[NX], FZ_TOL);\n\
             \x20 check_close(\"rev_vec lane 0 db\", r.db[0], g[NX + 1], FZ_TOL);\n\
             \x20 check_close(\"rev_vec lane 1 da\", r.da[1], gs[NX] / FZ_DRET, FZ_TOL);\n\
             \x20 check_close(\"rev_vec lane 1 db\", r.db[1], gs[NX + 1] / FZ_DRET, FZ_TOL);\n}}\n"
        );
    }
    if m.split {
        let _ = writeln!(
            o,
            "/* split mode: augmented forward, then seed x's shadow with W, reverse with dret FZ_DRET */\n\
             static void fz_check_split(const double *z, const double *gs) {{\n\
             \x20 fz_real xa[NX], dxa[NX];\n\
             \x20 for (int i = 0; i < NX; i++) {{\n    xa[i] = (fz_real)z[i];\n    dxa[i] = 0;\n  }}\n\
             \x20 void *tape = __enzyme_augmentfwd((void *)fz_f, {dup}xa, dxa, {out}(fz_real)z[NX], {out}(fz_real)z[NX + 1], {cst}NX);\n\
             \x20 for (int i = 0; i < NX; i++)\n    dxa[i] = FZ_W[i];\n\
             \x20 fz_grad2 r = __enzyme_reverse_fzg2((void *)fz_f, {dup}xa, dxa, {out}(fz_real)z[NX], {out}(fz_real)z[NX + 1], {cst}NX, (fz_real)FZ_DRET, tape);\n\
             \x20 for (int i = 0; i < NX; i++)\n    check_close_i(\"split dx\", i, dxa[i], gs[i], FZ_TOL);\n\
             \x20 check_close(\"split da\", r.da, gs[NX], FZ_TOL);\n\
             \x20 check_close(\"split db\", r.db, gs[NX + 1], FZ_TOL);\n}}\n"
        );
    }
    o.push_str("int main(void) {\n  int used = 0;\n");
    o.push_str("  for (int p = 0; p < (int)(sizeof FZ_P / sizeof FZ_P[0]) && used < 2; p++) {\n");
    o.push_str("    double z[NZ], g[NZ], gs[NZ];\n");
    o.push_str("    for (int i = 0; i < NZ; i++)\n      z[i] = (double)(fz_real)FZ_P[p][i];\n");
    o.push_str("    if (!fz_fd(z, 1.0, g) || !fz_fd(z, FZ_DRET, gs))\n      continue;\n");
    o.push_str("    used++;\n    check_at(\"point %d\", p);\n");
    if m.rev {
        o.push_str("    fz_check_rev(z, g);\n");
    }
    if m.rev_const {
        o.push_str("    fz_check_rev_const(z, g);\n");
    }
    for d in 0..m.fwd {
        let _ = writeln!(o, "    fz_check_fwd(z, g, {d});");
    }
    if m.vec {
        o.push_str("    fz_check_vec(z, g);\n");
    }
    if m.split {
        o.push_str("    fz_check_split(z, gs);\n");
    }
    if m.rev_vec {
        o.push_str("    fz_check_rev_vec(z, g, gs);\n");
    }
    o.push_str("    (void)gs;\n  }\n");
    o.push_str(
        "  if (!used) {\n    printf(\"no usable point\\n\");\n    return 77;\n  }\n  return check_report();\n}\n",
    );
    o
}

const INSTRUMENT: &str = r#"/* Instrumentation of the reference copy: the largest assigned magnitude,
 * the smallest distance of a branch quantity (or an int truncation) to its
 * kink, and a hash of the path taken. */
static double fz_margin, fz_maxabs;
static unsigned long long fz_path;
static void fz_reset(void) {
  fz_margin = 1e300;
  fz_maxabs = 0.0;
  fz_path = 1469598103934665603ull;
}
static double fz_val(double v) {
  double m = fabs(v);
  if (!(m <= fz_maxabs))
    fz_maxabs = m;
  return v;
}
static double fz_cond(double v) {
  double m = fabs(v);
  if (m < fz_margin)
    fz_margin = m;
  fz_path = (fz_path ^ (v > 0 ? 2u : 1u)) * 1099511628211ull;
  return v;
}
static double fz_fmax(double a, double b) {
  fz_cond(a - b);
  return fmax(a, b);
}
static double fz_fmin(double a, double b) {
  fz_cond(a - b);
  return fmin(a, b);
}
static int fz_itr(double v) {
  int k = (int)v;
  double m = fabs(v - nearbyint(v));
  if (m < fz_margin)
    fz_margin = m;
  fz_path = (fz_path ^ (unsigned)(k + 7)) * 1099511628211ull;
  return k;
}
"#;

const EVAL: &str = r#"/* The checked quantity: c * f(x, a, b) + W . (x after the call). */
static double fz_eval(const double *z, double c) {
  double xc[NX], s;
  for (int i = 0; i < NX; i++)
    xc[i] = z[i];
  s = c * fz_val(fz_f_ref(xc, z[NX], z[NX + 1], NX));
  for (int i = 0; i < NX; i++)
    s += (double)FZ_W[i] * fz_val(xc[i]);
  return s;
}

/* Central difference of fz_eval at z along component i with step about
 * h (1 + |z_i|); 0 when a step changes the path or values grow too large. */
static int fz_cd(const double *z, double c, int i, double h, unsigned long long path,
                 double *g) {
  double zz[NZ], fp, fm, step;
  memcpy(zz, z, sizeof zz);
  h *= 1.0 + fabs(z[i]);
  zz[i] = z[i] + h;
  step = zz[i];
  fz_reset();
  fp = fz_eval(zz, c);
  if (fz_path != path || !(fz_maxabs <= FZ_LIM))
    return 0;
  zz[i] = z[i] - h;
  step -= zz[i];
  fz_reset();
  fm = fz_eval(zz, c);
  if (fz_path != path || !(fz_maxabs <= FZ_LIM))
    return 0;
  *g = (fp - fm) / step;
  return isfinite(*g) && fabs(*g) <= 1e6;
}

/* Central FD gradient of fz_eval at z; 0 when z is unusable: values too
 * large, a branch too close to its kink, a step that changes the path, or
 * differences with steps 1e-6 and 4e-6 that disagree by more than a tenth
 * of the tolerance (a function too rough there for FD to be a reference:
 * an iterated chaotic map, say). */
static int fz_fd(const double *z, double c, double *g) {
  double r, g4;
  unsigned long long path;
  fz_reset();
  r = fz_eval(z, c);
  path = fz_path;
  if (!isfinite(r) || !(fz_maxabs <= FZ_LIM) || fz_margin < FZ_MARGIN)
    return 0;
  for (int i = 0; i < NZ; i++) {
    if (!fz_cd(z, c, i, 1e-6, path, &g[i]) || !fz_cd(z, c, i, 4e-6, path, &g4))
      return 0;
    if (fabs(g[i] - g4) > 0.1 * FZ_TOL * (1.0 + fabs(g[i])))
      return 0;
  }
  return 1;
}

"#;
