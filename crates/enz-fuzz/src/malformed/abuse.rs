//! Call-site abuse: small hand-written modules (textual IR, a few in C)
//! that use the enz-rs entry points wrongly or in unusual but valid ways.
//! A diagnostic is the expected answer for most; exit 0 is fine when the
//! output checks out.

use crate::stress::common::Rng;

/// Markers and two functions to differentiate that every template can use.
const PRELUDE: &str = r#"
@enzyme_dup = external global i32, align 4
@enzyme_const = external global i32, align 4
@enzyme_out = external global i32, align 4
@enzyme_dupnoneed = external global i32, align 4
@enzyme_width = external global i32, align 4
@enzyme_allocated = external global i32, align 4
@enzyme_tape = external global i32, align 4

define double @sq(ptr %x, double %c, i32 %n) {
entry:
  %v = load double, ptr %x, align 8
  %m = fmul double %v, %v
  %r = fmul double %m, %c
  store double %r, ptr %x, align 8
  ret double %r
}

define double @sc(double %x) {
entry:
  %r = fmul double %x, %x
  ret double %r
}
"#;

/// One template: a name (recorded in the note) and the module it makes.
/// `Ir` modules are textual IR; `C` ones are C sources.
pub enum Source {
    Ir(String),
    C(String),
}

/// A correct argument list for `sq` (reverse), as `(type value)` strings,
/// with the marker loads it needs written into `body`.
fn sq_args(body: &mut String) -> Vec<String> {
    body.push_str("  %md = load i32, ptr @enzyme_dup, align 4\n");
    vec![
        "ptr @sq".into(),
        "i32 %md".into(),
        "ptr %x".into(),
        "ptr %dx".into(),
        "double 2.0".into(),
        "i32 3".into(),
    ]
}

/// A driver `define <ret> @drv(ptr %x, ptr %dx)` around `body`.
fn drv(ret: &str, body: &str, tail: &str) -> String {
    format!("{PRELUDE}\ndefine {ret} @drv(ptr %x, ptr %dx) {{\nentry:\n{body}{tail}}}\n")
}

fn call_ad(args: &[String]) -> String {
    format!(
        "  %r = call double (ptr, ...) @__enzyme_autodiff({})\n",
        args.join(", ")
    )
}

const DECL_AD: &str = "declare double @__enzyme_autodiff(ptr, ...)\n";
const DECL_FWD: &str = "declare double @__enzyme_fwddiff(ptr, ...)\n";

/// A random odd argument value.
fn junk(rng: &mut Rng) -> String {
    rng.pick(&[
        "double 1.5",
        "ptr %dx",
        "i32 7",
        "i64 -1",
        "float 2.0",
        "ptr null",
        "ptr @sc",
        "i1 true",
        "<2 x double> zeroinitializer",
        "{ double, double } zeroinitializer",
        "ptr poison",
        "double undef",
        "i128 5",
        "x86_fp80 0xK3FFF8000000000000000",
    ])
    .to_string()
}

/// Number of templates.
pub const COUNT: usize = 40;

/// Template `i` (0..COUNT), varied by `rng`: returns its name and source.
pub fn template(i: usize, rng: &mut Rng) -> (String, Source) {
    let mut b = String::new();
    let ir = |name: &str, text: String| (name.to_string(), Source::Ir(text));
    match i {
        0 => {
            let mut a = sq_args(&mut b);
            let keep = rng.range(1, a.len() - 1);
            a.truncate(keep);
            ir(
                &format!("too-few-args-{keep}"),
                drv("double", &(b + &call_ad(&a)), "  ret double %r\n") + DECL_AD,
            )
        }
        1 => {
            let mut a = sq_args(&mut b);
            for _ in 0..rng.range(1, 3) {
                a.push(junk(rng));
            }
            ir(
                "too-many-args",
                drv("double", &(b + &call_ad(&a)), "  ret double %r\n") + DECL_AD,
            )
        }
        2 => {
            let mut a = sq_args(&mut b);
            let at = rng.range(1, a.len() - 1);
            a[at] = junk(rng);
            ir(
                &format!("junk-arg-{at}-{}", a[at].split(' ').next().unwrap_or("")),
                drv("double", &(b + &call_ad(&a)), "  ret double %r\n") + DECL_AD,
            )
        }
        3 => {
            b.push_str("  %md = load i32, ptr @enzyme_dup, align 4\n");
            let a = vec![
                "ptr @sq".into(),
                "i32 %md".into(),
                "ptr %x".into(),
                "double 1.0".into(),
                "double 2.0".into(),
                "i32 3".into(),
            ];
            ir(
                "double-as-shadow",
                drv("double", &(b + &call_ad(&a)), "  ret double %r\n") + DECL_AD,
            )
        }
        4 => {
            let m = *rng.pick(&[
                "enzyme_bogus",
                "enzyme_scalar",
                "enzyme_width",
                "enzyme_tape",
                "enzyme_allocated",
                "enzyme_",
                "enzyme_dup2",
            ]);
            let decl = if PRELUDE.contains(&format!("@{m} ")) {
                String::new()
            } else {
                format!("@{m} = external global i32, align 4\n")
            };
            b.push_str(&format!("  %mk = load i32, ptr @{m}, align 4\n"));
            let a = vec![
                "ptr @sq".into(),
                "i32 %mk".into(),
                "ptr %x".into(),
                "ptr %dx".into(),
                "double 2.0".into(),
                "i32 3".into(),
            ];
            ir(
                &format!("unknown-marker-{m}"),
                drv("double", &(b + &call_ad(&a)), "  ret double %r\n") + DECL_AD + &decl,
            )
        }
        5 => {
            let mut a = sq_args(&mut b);
            b.push_str("  %mo = load i32, ptr @enzyme_out, align 4\n");
            a.push("i32 %mo".into());
            ir(
                "marker-last",
                drv("double", &(b + &call_ad(&a)), "  ret double %r\n") + DECL_AD,
            )
        }
        6 => {
            let a = vec![
                "ptr @ext".into(),
                "ptr %x".into(),
                "ptr %dx".into(),
                "double 2.0".into(),
                "i32 3".into(),
            ];
            ir(
                "declared-only",
                drv("double", &call_ad(&a), "  ret double %r\n")
                    + DECL_AD
                    + "declare double @ext(ptr, double, i32)\n",
            )
        }
        7 => {
            let a = vec![
                "ptr @va".into(),
                "double 1.0".into(),
                "double 2.0".into(),
                "i32 4".into(),
            ];
            let va = "define double @va(double %x, ...) {\nentry:\n  %r = fmul double %x, %x\n  ret double %r\n}\n";
            ir(
                "variadic-fn",
                drv("double", &call_ad(&a), "  ret double %r\n") + DECL_AD + va,
            )
        }
        8 => {
            let (how, body) = match rng.below(4) {
                0 => ("load", "  %f = load ptr, ptr @tbl, align 8\n".to_string()),
                1 => ("select", "  %c = icmp eq ptr %x, null\n  %f = select i1 %c, ptr @sq, ptr @sq2\n".to_string()),
                2 => ("gep", "  %p = getelementptr inbounds [2 x ptr], ptr @tbl, i64 0, i64 1\n  %f = load ptr, ptr %p, align 8\n".to_string()),
                _ => ("inttoptr", "  %f = inttoptr i64 ptrtoint (ptr @sq to i64) to ptr\n".to_string()),
            };
            let a = vec![
                "ptr %f".into(),
                "ptr %x".into(),
                "ptr %dx".into(),
                "double 2.0".into(),
                "i32 3".into(),
            ];
            let extra = "@tbl = global [2 x ptr] [ptr @sq, ptr @sq2]\ndefine double @sq2(ptr %x, double %c, i32 %n) {\nentry:\n  ret double %c\n}\n";
            ir(
                &format!("fnptr-{how}"),
                drv("double", &(body + &call_ad(&a)), "  ret double %r\n") + DECL_AD + extra,
            )
        }
        9 => {
            let (ty, ret) = *rng.pick(&[
                ("i32", "  ret void\n"),
                ("ptr", "  ret void\n"),
                ("float", "  ret void\n"),
                ("i64", "  ret void\n"),
                ("{ double, double, double }", "  ret void\n"),
                ("<2 x double>", "  ret void\n"),
                ("x86_fp80", "  ret void\n"),
                ("[3 x double]", "  ret void\n"),
            ]);
            let body =
                format!("  %r = call {ty} (ptr, ...) @__enzyme_autodiff_x(ptr @sc, double 3.0)\n");
            ir(
                &format!("ret-type-{ty}"),
                drv("void", &body, ret) + &format!("declare {ty} @__enzyme_autodiff_x(ptr, ...)\n"),
            )
        }
        10 => {
            let t = format!("{PRELUDE}\ndefine double @drv(ptr %f, ...) {{\nentry:\n  %r = musttail call double (ptr, ...) @__enzyme_autodiff(ptr @sc, ...)\n  ret double %r\n}}\n{DECL_AD}");
            let t2 = format!("{PRELUDE}\ndefine double @drv(ptr %f, ...) {{\nentry:\n  %r = musttail call double (ptr, ...) @__enzyme_autodiff(ptr %f, ...)\n  ret double %r\n}}\n{DECL_AD}");
            ir("musttail", if rng.chance(0.5) { t } else { t2 })
        }
        11 => {
            let which = *rng.pick(&[
                "__enzyme_batch",
                "__enzyme_virtualreverse",
                "__enzyme_todense",
                "__enzyme_ignore_derivatives",
                "__enzyme_truncate_mem_func",
                "__enzyme_iter",
                "__enzyme_autodiff_",
                "__enzyme_",
            ]);
            let body = format!("  %r = call double (ptr, ...) @{which}(ptr @sc, double 3.0)\n");
            ir(
                &format!("entry-{which}"),
                drv("double", &body, "  ret double %r\n")
                    + &format!("declare double @{which}(ptr, ...)\n"),
            )
        }
        12 => {
            let t = format!(
                "{PRELUDE}\ndeclare i32 @__gxx_personality_v0(...)\ndefine double @drv(ptr %x, ptr %dx) personality ptr @__gxx_personality_v0 {{\nentry:\n  %md = load i32, ptr @enzyme_dup, align 4\n  %r = invoke double (ptr, ...) @__enzyme_autodiff(ptr @sq, i32 %md, ptr %x, ptr %dx, double 2.0, i32 3)\n          to label %ok unwind label %lp\nok:\n  ret double %r\nlp:\n  %l = landingpad {{ ptr, i32 }}\n          cleanup\n  resume {{ ptr, i32 }} %l\n}}\n{DECL_AD}"
            );
            ir("invoke", t)
        }
        13 => {
            let f = *rng.pick(&[
                "ptr null",
                "ptr @enzyme_dup",
                "ptr @g",
                "ptr @drv",
                "ptr @__enzyme_autodiff",
                "ptr undef",
                "ptr inttoptr (i64 4096 to ptr)",
                "i32 0",
                "double 1.0",
            ]);
            let ty = f.split(' ').next().unwrap_or("ptr");
            let body =
                format!("  %r = call double ({ty}, ...) @__enzyme_autodiff({f}, double 3.0)\n");
            ir(
                &format!("not-a-function-{}", f.replace(' ', "_")),
                drv("double", &body, "  ret double %r\n") + DECL_AD + "@g = global double 1.0\n",
            )
        }
        14 => {
            let w = *rng.pick(&[
                "i32 0",
                "i32 17",
                "i32 -1",
                "i32 %n",
                "i32 4",
                "i64 2",
                "double 2.0",
            ]);
            let body = format!("  %mw = load i32, ptr @enzyme_width, align 4\n  %n = ptrtoint ptr %x to i32\n  %r = call double (ptr, ...) @__enzyme_fwddiff(ptr @sc, i32 %mw, {w}, double 3.0, double 1.0)\n");
            ir(
                &format!("width-{}", w.replace(' ', "_")),
                drv("double", &body, "  ret double %r\n") + DECL_FWD,
            )
        }
        15 => {
            let v = rng.below(4);
            let body = match v {
                0 => "  %md = load i32, ptr @enzyme_dup, align 4\n  %t = call ptr (ptr, ...) @__enzyme_augmentfwd(ptr @sq, i32 %md, ptr %x, ptr %dx, double 2.0, i32 3)\n  ret double 0.0\n".to_string(),
                1 => "  %md = load i32, ptr @enzyme_dup, align 4\n  %r = call double (ptr, ...) @__enzyme_reverse(ptr @sq, i32 %md, ptr %x, ptr %dx, double 2.0, i32 3, double 1.0)\n  ret double %r\n".to_string(),
                2 => "  %md = load i32, ptr @enzyme_dup, align 4\n  %t = call ptr (ptr, ...) @__enzyme_augmentfwd(ptr @sc, double 2.0)\n  %r = call double (ptr, ...) @__enzyme_reverse(ptr @sq, i32 %md, ptr %x, ptr %dx, double 2.0, i32 3, double 1.0, ptr %t)\n  ret double %r\n".to_string(),
                _ => "  %ma = load i32, ptr @enzyme_allocated, align 4\n  %mt = load i32, ptr @enzyme_tape, align 4\n  %buf = alloca [1 x i8]\n  call void (ptr, ...) @__enzyme_augmentfwd_v(ptr @sc, i32 %ma, i64 0, i32 %mt, ptr %buf, double 2.0)\n  %r = call double (ptr, ...) @__enzyme_reverse(ptr @sc, i32 %ma, i64 0, i32 %mt, ptr %buf, double 2.0, double 1.0)\n  ret double %r\n".to_string(),
            };
            ir(&format!("split-{v}"), drv("double", &body, "") + "declare ptr @__enzyme_augmentfwd(ptr, ...)\ndeclare void @__enzyme_augmentfwd_v(ptr, ...)\ndeclare double @__enzyme_reverse(ptr, ...)\n")
        }
        16 => {
            let body = "  %r = call double @__enzyme_autodiff(ptr @sc, double 3.0)\n";
            ir(
                "non-variadic-decl",
                drv("double", body, "  ret double %r\n")
                    + "declare double @__enzyme_autodiff(ptr, double)\n",
            )
        }
        17 => {
            let body = "  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @sc, double 3.0)\n";
            ir("entry-defined", drv("double", body, "  ret double %r\n") + "define double @__enzyme_autodiff(ptr %f, ...) {\nentry:\n  ret double 0.0\n}\n")
        }
        18 => {
            // A function type that does not match the declaration.
            let body = "  %r = call double (ptr, double) @__enzyme_autodiff(ptr @sc, double 3.0)\n";
            ir(
                "call-type-mismatch",
                drv("double", body, "  ret double %r\n") + DECL_AD,
            )
        }
        19 => {
            // Only the address is taken: the reference must still go away
            // (or be refused), never reach the output.
            let t = format!("{PRELUDE}\n@keep = global ptr @__enzyme_autodiff\n{DECL_AD}");
            ir("address-taken", t)
        }
        20 => {
            let body = "  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @al, double 3.0)\n";
            ir(
                "alias-callee",
                drv("double", body, "  ret double %r\n")
                    + DECL_AD
                    + "@al = alias double (double), ptr @sc\n",
            )
        }
        21 => {
            let body = "  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @ifn, double 3.0)\n";
            ir("ifunc-callee", drv("double", body, "  ret double %r\n") + DECL_AD + "@ifn = ifunc double (double), ptr @resolver\ndefine ptr @resolver() {\nentry:\n  ret ptr @sc\n}\n")
        }
        22 => {
            // Higher order: the function differentiated calls the entry point.
            let inner = "define double @hi(double %x) {\nentry:\n  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @sc, double %x)\n  %r = fmul double %d, %x\n  ret double %r\n}\n";
            let body = "  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @hi, double 3.0)\n";
            ir(
                "higher-order",
                drv("double", body, "  ret double %r\n") + DECL_AD + inner,
            )
        }
        23 => {
            // Self-differentiation: @self differentiates itself.
            let t = format!("{PRELUDE}\ndefine double @self(double %x) {{\nentry:\n  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @self, double %x)\n  ret double %d\n}}\n{DECL_AD}");
            ir("self-reference", t)
        }
        24 => {
            let n = rng.range(60, 300);
            let mut a = vec!["ptr @sc".to_string()];
            for k in 0..n {
                a.push(format!("double {k}.0"));
            }
            ir(
                &format!("huge-arity-{n}"),
                drv("double", &call_ad(&a), "  ret double %r\n") + DECL_AD,
            )
        }
        25 => {
            // Markers that are not plain external i32 globals.
            let (name, decl) = *rng.pick(&[
                ("defined", "@enzyme_out = global i32 0, align 4\n"),
                ("weak", "@enzyme_out = extern_weak global i32, align 4\n"),
                ("i64", "@enzyme_out = external global i64, align 4\n"),
                ("const", "@enzyme_out = external constant i32, align 4\n"),
                (
                    "tls",
                    "@enzyme_out = external thread_local global i32, align 4\n",
                ),
            ]);
            let pre = PRELUDE.replace("@enzyme_out = external global i32, align 4\n", decl);
            let t = format!("{pre}\ndefine double @drv(double %x) {{\nentry:\n  %mo = load i32, ptr @enzyme_out, align 4\n  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @sc, i32 %mo, double %x)\n  ret double %r\n}}\n{DECL_AD}");
            ir(&format!("marker-{name}"), t)
        }
        26..=35 => {
            // Unusual functions to differentiate: (name, definition,
            // return type, reverse arguments, forward arguments).
            let (name, f, ret, rev, fwd) = match i {
                26 => ("ret-struct", "define { double, double } @u(double %x) {\nentry:\n  %a = insertvalue { double, double } undef, double %x, 0\n  %b = insertvalue { double, double } %a, double %x, 1\n  ret { double, double } %b\n}\n", "double", "double 1.0", "double 1.0, double 1.0"),
                27 => ("vector-arg", "define double @u(<4 x double> %v) {\nentry:\n  %e = extractelement <4 x double> %v, i32 2\n  %r = fmul double %e, %e\n  ret double %r\n}\n", "double", "<4 x double> splat (double 1.0)", "<4 x double> splat (double 1.0), <4 x double> splat (double 1.0)"),
                28 => ("fp128", "define fp128 @u(fp128 %x) {\nentry:\n  %r = fmul fp128 %x, %x\n  ret fp128 %r\n}\n", "fp128", "fp128 0xL00000000000000003FFF000000000000", "fp128 0xL00000000000000003FFF000000000000, fp128 0xL00000000000000003FFF000000000000"),
                29 => ("x86_fp80", "define x86_fp80 @u(x86_fp80 %x) {\nentry:\n  %r = fmul x86_fp80 %x, %x\n  ret x86_fp80 %r\n}\n", "x86_fp80", "x86_fp80 0xK3FFF8000000000000000", "x86_fp80 0xK3FFF8000000000000000, x86_fp80 0xK3FFF8000000000000000"),
                30 => ("half-bfloat", "define half @u(half %x, bfloat %y) {\nentry:\n  %e = fpext bfloat %y to float\n  %t = fptrunc float %e to half\n  %r = fmul half %x, %t\n  ret half %r\n}\n", "{ half, bfloat }", "half 0xH3C00, bfloat 0xR3F80", "half 0xH3C00, half 0xH3C00, bfloat 0xR3F80, bfloat 0xR3F80"),
                31 => ("inline-asm", "define double @u(double %x) {\nentry:\n  %y = call double asm \"\", \"=x,0\"(double %x)\n  %r = fmul double %y, %x\n  ret double %r\n}\n", "double", "double 1.0", "double 1.0, double 1.0"),
                32 => ("indirectbr", "define double @u(double %x) {\nentry:\n  indirectbr ptr blockaddress(@u, %b), [label %b]\nb:\n  %r = fmul double %x, %x\n  ret double %r\n}\n", "double", "double 1.0", "double 1.0, double 1.0"),
                33 => ("infinite-loop", "define double @u(double %x) {\nentry:\n  br label %l\nl:\n  %p = phi double [ %x, %entry ], [ %q, %l ]\n  %q = fmul double %p, %p\n  br label %l\n}\n", "double", "double 1.0", "double 1.0, double 1.0"),
                34 => ("atomics", "define double @u(ptr %p) {\nentry:\n  %o = atomicrmw fadd ptr %p, double 1.0 seq_cst\n  %c = cmpxchg ptr %p, i64 0, i64 1 seq_cst seq_cst\n  %r = fmul double %o, %o\n  ret double %r\n}\n", "void", "ptr %x, ptr %dx", "ptr %x, ptr %dx"),
                _ => ("addrspace-byval", "define double @u(ptr addrspace(1) %p, ptr byval(double) %q) {\nentry:\n  %a = load double, ptr addrspace(1) %p\n  %b = load double, ptr %q\n  %r = fmul double %a, %b\n  ret double %r\n}\n", "void", "ptr addrspace(1) null, ptr addrspace(1) null, ptr %x, ptr %dx", "ptr addrspace(1) null, ptr addrspace(1) null, ptr %x, ptr %dx"),
            };
            let reverse = rng.chance(0.5);
            let (entry, args) = if reverse {
                ("__enzyme_autodiff", rev)
            } else {
                ("__enzyme_fwddiff", fwd)
            };
            // Forward mode returns the tangent of the result; reverse the
            // adjoints of the `out` parameters.
            let ret = if reverse {
                ret
            } else if i == 30 {
                "half"
            } else if i >= 34 {
                "double"
            } else {
                ret
            };
            let res = if ret == "void" {
                String::new()
            } else {
                "%r = ".to_string()
            };
            let body = format!("  {res}call {ret} (ptr, ...) @{entry}(ptr @u, {args})\n");
            let decl = format!("declare {ret} @{entry}(ptr, ...)\n");
            ir(
                &format!("fn-{name}-{}", &entry[9..]),
                drv("void", &body, "  ret void\n") + &decl + f,
            )
        }
        36 => {
            // The call site is in unreachable code, in a loop, or twice.
            let body = "  br label %loop\nloop:\n  %i = phi i32 [ 0, %entry ], [ %j, %loop ]\n  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @sc, double 3.0)\n  %j = add i32 %i, 1\n  %c = icmp slt i32 %j, 4\n  br i1 %c, label %loop, label %out\nout:\n  ret double %r\ndead:\n  %z = call double (ptr, ...) @__enzyme_autodiff(ptr @sc)\n  unreachable\n";
            ir("loop-and-dead", drv("double", body, "") + DECL_AD)
        }
        37 => c_template(rng),
        38 => {
            // Declared with attributes that change the ABI of the call.
            let (what, decl, call) = *rng.pick(&[
                ("cc-mismatch", "declare double @__enzyme_autodiff(ptr, ...)\n", "call fastcc double (ptr, ...)"),
                ("noreturn", "declare double @__enzyme_autodiff(ptr, ...) noreturn\n", "call double (ptr, ...)"),
                ("sret", "declare void @__enzyme_autodiff(ptr sret({ double, double, double }), ptr, ...)\n", "call void (ptr, ptr, ...)"),
                ("readnone", "declare double @__enzyme_autodiff(ptr, ...) memory(none)\n", "call double (ptr, ...)"),
            ]);
            let body = if what == "sret" {
                "  %s = alloca { double, double, double }\n  call void (ptr, ptr, ...) @__enzyme_autodiff(ptr sret({ double, double, double }) %s, ptr @sc, double 3.0)\n  %r = load double, ptr %s\n".to_string()
            } else {
                format!("  %r = {call} @__enzyme_autodiff(ptr @sc, double 3.0)\n")
            };
            ir(
                &format!("decl-{what}"),
                drv("double", &body, "  ret double %r\n") + decl,
            )
        }
        _ => {
            // Custom-derivative registrations that are wrong.
            let (what, g) = *rng.pick(&[
                ("short", "@__enzyme_register_gradient_sc = global [1 x ptr] [ptr @sc]\n"),
                ("nonfn", "@__enzyme_register_gradient_sc = global [3 x ptr] [ptr @sc, ptr @g, ptr null]\n@g = global i32 0\n"),
                ("scalar", "@__enzyme_register_derivative_sc = global i32 5\n"),
                ("badsig", "@__enzyme_register_derivative_sc = global [2 x ptr] [ptr @sc, ptr @sq]\n"),
            ]);
            let body = "  %r = call double (ptr, ...) @__enzyme_autodiff(ptr @sc, double 3.0)\n  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @sc, double 3.0, double 1.0)\n";
            ir(
                &format!("register-{what}"),
                drv("double", body, "  ret double %r\n") + DECL_AD + DECL_FWD + g,
            )
        }
    }
}

/// Call-site abuse written in C, compiled by clang per case.
fn c_template(rng: &mut Rng) -> (String, Source) {
    const C: [(&str, &str); 6] = [
        ("c-too-few", "double f(double *x, double c) { return *x * c; }\ndouble g(double *x) { return __enzyme_autodiff((void*)f, enzyme_dup, x); }\n"),
        ("c-double-shadow", "double f(double *x, double c) { return *x * c; }\ndouble g(double *x) { return __enzyme_autodiff((void*)f, enzyme_dup, x, 1.0, 2.0); }\n"),
        ("c-marker-last", "double f(double x) { return x * x; }\ndouble g(double x) { return __enzyme_autodiff((void*)f, x, enzyme_const); }\n"),
        ("c-fnptr-table", "double f(double x) { return x * x; }\ndouble h(double x) { return x + x; }\ndouble (*tbl[2])(double) = {f, h};\ndouble g(int i, double x) { return __enzyme_autodiff((void*)tbl[i], x); }\n"),
        ("c-extern", "extern double f(double x);\ndouble g(double x) { return __enzyme_autodiff((void*)f, x); }\n"),
        ("c-varargs", "#include <stdarg.h>\ndouble f(int n, ...) { va_list a; va_start(a, n); double r = va_arg(a, double); va_end(a); return r * r; }\ndouble g(double x) { return __enzyme_autodiff((void*)f, 1, x); }\n"),
    ];
    let (name, src) = *rng.pick(&C);
    (
        name.to_string(),
        Source::C(format!("#include \"enzyme.h\"\n{src}")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::Tools;

    /// Every IR template (all their random variants) is valid IR, so that
    /// each one reaches enz-rs's call-site handling rather than the parser.
    #[test]
    fn ir_templates_assemble() {
        let tools = Tools::find(None);
        if !tools.llvm_as.is_file() {
            eprintln!("llvm-as not found; skipped");
            return;
        }
        let mut bad = Vec::new();
        for i in 0..COUNT {
            for s in 0..16 {
                let mut rng = Rng::new(s, i as u64);
                if let (name, Source::Ir(text)) = template(i, &mut rng) {
                    if let Err(e) = crate::stress::assemble(&tools, &text) {
                        bad.push(format!("{i} {name}: {e}"));
                    }
                }
            }
        }
        bad.sort();
        bad.dedup();
        assert!(
            bad.is_empty(),
            "templates that do not assemble:\n{}",
            bad.join("\n")
        );
    }
}
