//! The valid seed programs every malformed input is derived from: small C
//! programs calling the enz-rs entry points, compiled once per run at -O0
//! and -O2 into bitcode and textual IR.

use crate::exec::run_with_timeout;
use crate::tools::Tools;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// (name, C source). Each includes enzyme.h and exercises a different part
/// of enz-rs: pointers and loops, several `out` parameters, forward mode,
/// split mode, calls and recursion, heap memory.
pub const SOURCES: [(&str, &str); 6] = [
    (
        "sumsq",
        r#"#include "enzyme.h"
double sumsq(const double *x, double c, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) s += x[i] * x[i];
  return c * s;
}
double grad(double *x, double *dx) {
  return __enzyme_autodiff((void *)sumsq, x, dx, 2.0, 3);
}
"#,
    ),
    (
        "grad2",
        r#"#include "enzyme.h"
#include <math.h>
typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);
double f(double x, double y) { return sin(x) * y + exp(x * y); }
grad2 g(double x, double y) { return __enzyme_autodiff_grad2((void *)f, x, y); }
"#,
    ),
    (
        "fwd",
        r#"#include "enzyme.h"
double poly(double x, double *p, int n) {
  double r = 0;
  for (int i = n - 1; i >= 0; i--) r = r * x + p[i];
  p[0] = r;
  return r * r;
}
double tangent(double x, double *p, double *dp, int n) {
  return __enzyme_fwddiff((void *)poly, x, 1.0, enzyme_dup, p, dp, n);
}
"#,
    ),
    (
        "split",
        r#"#include "enzyme.h"
double __enzyme_reverse_d(void *, ...);
double h(double *x, double c, int n) {
  double s = 1;
  for (int i = 0; i < n; i++) { s *= x[i] + c; x[i] = s; }
  return s;
}
double run(double *x, double *dx, double c) {
  void *tape = __enzyme_augmentfwd((void *)h, enzyme_dup, x, dx, c, 4);
  dx[0] += 1.0;
  return __enzyme_reverse_d((void *)h, enzyme_dup, x, dx, c, 4, 1.0, tape);
}
"#,
    ),
    (
        "calls",
        r#"#include "enzyme.h"
static double sq(double x) { return x * x; }
__attribute__((noinline)) double pw(double x, int n) {
  return n <= 0 ? 1.0 : x * pw(x, n - 1);
}
double top(double x, double *y) { *y = sq(x) + pw(x, 3); return *y * x; }
double d(double x, double *y, double *dy) {
  return __enzyme_autodiff((void *)top, enzyme_out, x, enzyme_dup, y, dy);
}
"#,
    ),
    (
        "heap",
        r#"#include "enzyme.h"
#include <stdlib.h>
#include <string.h>
struct S { double a; float b; double *p; };
double mem(struct S *s, int n) {
  double *t = malloc(n * sizeof(double));
  memcpy(t, s->p, n * sizeof(double));
  double r = s->a * s->b;
  for (int i = 0; i < n; i++) r += t[i] * s->a;
  free(t);
  return r;
}
void dmem(struct S *s, struct S *ds) {
  __enzyme_autodiff((void *)mem, enzyme_dup, s, ds, 5);
}
"#,
    ),
];

/// One compiled seed.
#[derive(Clone, Debug)]
pub struct Seed {
    /// `name-O0`, `name-O2`.
    pub name: String,
    pub bitcode: Vec<u8>,
    pub text: String,
}

/// Compiles every source at -O0 and -O2 in `dir`. A seed that does not
/// compile is skipped (and named in the returned errors).
pub fn compile_all(tools: &Tools, dir: &Path) -> (Vec<Seed>, Vec<String>) {
    let mut seeds = Vec::new();
    let mut errors = Vec::new();
    for (name, src) in SOURCES {
        for level in ["-O0", "-O2"] {
            match compile_c(tools, dir, name, src, level) {
                Ok((bitcode, text)) => seeds.push(Seed {
                    name: format!("{name}{level}"),
                    bitcode,
                    text,
                }),
                Err(e) => errors.push(format!("seed {name}{level}: {e}")),
            }
        }
    }
    (seeds, errors)
}

/// Compiles C `src` at `level` to (bitcode, textual IR).
pub fn compile_c(
    tools: &Tools,
    dir: &Path,
    name: &str,
    src: &str,
    level: &str,
) -> Result<(Vec<u8>, String), String> {
    let c = dir.join(format!("{name}{level}.c"));
    let bc = dir.join(format!("{name}{level}.bc"));
    let ll = dir.join(format!("{name}{level}.ll"));
    std::fs::write(&c, src).map_err(|e| e.to_string())?;
    for (out, extra) in [(&bc, "-c"), (&ll, "-S")] {
        let r = run_with_timeout(
            Command::new(&tools.clang)
                .args([level, extra, "-emit-llvm", "-w"])
                .arg("-I")
                .arg(&tools.include)
                .arg(&c)
                .arg("-o")
                .arg(out),
            Duration::from_secs(60),
        );
        if !r.success() {
            return Err(r.stderr.lines().take(3).collect::<Vec<_>>().join(" | "));
        }
    }
    Ok((
        std::fs::read(&bc).map_err(|e| e.to_string())?,
        std::fs::read_to_string(&ll).map_err(|e| e.to_string())?,
    ))
}
