//! Activity analysis on small functions: a printed summary (one line per
//! argument and per value-producing instruction) against the expected text.
//!
//! Each line is `%name: STATE`, where STATE is, for pointers, `shadowed` or
//! `unshadowed pointer`, and for every other value `active` (varied and
//! useful), `varied-not-useful` (reached from an active input but never
//! reaching the active return, shadowed memory or a differentiated call) or
//! `inactive`. Any change in the analysis' conclusions changes a line and
//! fails the test.

use super::*;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use std::collections::HashMap;
use std::fmt::Write;

const HEADER: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
"#;

/// The activity signature of one analysis run.
struct Sig<'a> {
    args: &'a [ArgFact],
    ret_active: bool,
    ret_shadowed: bool,
    /// Names of functions passed as user-declared inactive.
    inactive: &'a [&'a str],
}

impl<'a> Sig<'a> {
    /// Arguments as given, an active floating return, nothing else.
    fn ret_active(args: &'a [ArgFact]) -> Self {
        Sig {
            args,
            ret_active: true,
            ret_shadowed: false,
            inactive: &[],
        }
    }

    /// Arguments as given, an inactive (or void) return.
    fn no_ret(args: &'a [ArgFact]) -> Self {
        Sig {
            args,
            ret_active: false,
            ret_shadowed: false,
            inactive: &[],
        }
    }
}

fn state<'m>(act: &Activity<'m>, v: Value<'m>) -> &'static str {
    if v.ty().kind() == TyKind::Pointer {
        if act.is_shadowed(v) {
            "shadowed"
        } else {
            "unshadowed pointer"
        }
    } else if act.is_active(v) {
        "active"
    } else if act.is_varied(v) {
        "varied-not-useful"
    } else {
        "inactive"
    }
}

/// Parses `ir` (after the x86-64 data layout), analyses `func` with `sig`
/// and prints one line per argument and per named instruction, then one
/// line per global listed in `globals` (`@name: STATE`).
fn summary_with_globals(ir: &str, func: &str, sig: &Sig, globals: &[&str]) -> String {
    let ctx = Context::create();
    let text = format!("{HEADER}{ir}");
    let buf = MemoryBuffer::create_from_memory_range_copy(text.as_bytes(), "test");
    let module = ctx
        .create_module_from_ir(buf)
        .unwrap_or_else(|e| panic!("bad test IR: {e}"));
    if let Err(e) = module.verify() {
        panic!("test IR does not verify: {e}");
    }
    let f = crate::ir::named_function(crate::ir::Module::of(&module), func)
        .expect("function in test IR");
    let inactive_fns: HashSet<Function> = sig
        .inactive
        .iter()
        .map(|n| {
            crate::ir::named_function(crate::ir::Module::of(&module), n)
                .unwrap_or_else(|| panic!("no function @{n} in test IR"))
        })
        .collect();
    assert_eq!(
        f.params().len(),
        sig.args.len(),
        "one ArgFact per parameter"
    );
    let act = Activity::analyse(
        f,
        &ActivityInputs {
            args: sig.args,
            ret_active: sig.ret_active,
            ret_shadowed: sig.ret_shadowed,
            calls: crate::analysis::calls::CallFacts {
                inactive: &inactive_fns,
                custom: &HashMap::new(),
            },
            shadowed_globals: &HashSet::new(),
            inactive_globals: &HashSet::new(),
        },
    );
    let mut s = String::new();
    let mut values = f.params();
    for b in f.blocks() {
        values.extend(
            b.instructions()
                .into_iter()
                .filter(|i| !i.ty().is_void())
                .map(|i| i.as_value()),
        );
    }
    for v in values {
        let name = v.name();
        assert!(
            !name.is_empty(),
            "name every value in test IR: {}",
            v.to_ir()
        );
        let _ = writeln!(s, "%{name}: {}", state(&act, v));
    }
    for g in globals {
        let gv = crate::ir::named_global(crate::ir::Module::of(&module), g)
            .unwrap_or_else(|| panic!("no global @{g} in test IR"));
        let _ = writeln!(s, "@{g}: {}", state(&act, gv.as_value()));
    }
    s
}

fn summary(ir: &str, func: &str, sig: &Sig) -> String {
    summary_with_globals(ir, func, sig, &[])
}

/// Compares line by line (expected text trimmed, blank lines dropped),
/// showing the whole output on a mismatch.
fn assert_lines(got: &str, want: &str) {
    let want: Vec<&str> = want
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let got_lines: Vec<&str> = got.lines().collect();
    assert_eq!(got_lines, want, "\nfull output:\n{got}");
}

use ArgFact::{Active, Const, Shadowed};

#[test]
fn integer_arithmetic_is_inactive() {
    // Integers never carry derivatives, even when they scale an active value
    // after conversion, and even when computed from an active float.
    let ir = r#"
define double @f(double %x, i64 %n) {
entry:
  %m = mul i64 %n, 3
  %m1 = add nsw i64 %m, 1
  %c = sitofp i64 %m1 to double
  %t = fptosi double %x to i64
  %t2 = shl i64 %t, 2
  %y = fmul double %x, %c
  ret double %y
}
"#;
    assert_lines(
        &summary(ir, "f", &Sig::ret_active(&[Active, Const])),
        "
        %x: active
        %n: inactive
        %m: inactive
        %m1: inactive
        %c: inactive
        %t: inactive
        %t2: inactive
        %y: active
        ",
    );
}

#[test]
fn float_from_const_argument_is_inactive() {
    // %k is a constant argument: everything computed only from it (and from
    // literals) is inactive though it is floating and reaches the return.
    let ir = r#"
declare double @llvm.sin.f64(double)

define double @f(double %x, double %k) {
entry:
  %k2 = fmul double %k, %k
  %s = call double @llvm.sin.f64(double %k2)
  %one = fadd double %s, 1.0
  %y = fmul double %x, %one
  %z = fadd double %y, %k2
  ret double %z
}
"#;
    assert_lines(
        &summary(ir, "f", &Sig::ret_active(&[Active, Const])),
        "
        %x: active
        %k: inactive
        %k2: inactive
        %s: inactive
        %one: inactive
        %y: active
        %z: active
        ",
    );
}

#[test]
fn varied_values_that_do_not_reach_the_return_are_not_useful() {
    // %u is computed from %x but unused; %s only feeds a comparison (whose
    // result picks a value but carries no derivative itself); %e only feeds
    // a float-to-int conversion.
    let ir = r#"
declare double @llvm.exp.f64(double)

define double @f(double %x) {
entry:
  %u = fmul double %x, %x
  %s = fmul double %x, 2.0
  %cmp = fcmp ogt double %s, 0.0
  %e = call double @llvm.exp.f64(double %x)
  %ei = fptosi double %e to i32
  %r = select i1 %cmp, double %x, double 0.0
  ret double %r
}
"#;
    assert_lines(
        &summary(ir, "f", &Sig::ret_active(&[Active])),
        "
        %x: active
        %u: varied-not-useful
        %s: varied-not-useful
        %cmp: inactive
        %e: varied-not-useful
        %ei: inactive
        %r: active
        ",
    );
}

#[test]
fn values_reaching_the_return_through_a_loop_are_active_only_if_the_return_is() {
    // r = 1; for (i = 0; i < n; i++) r *= x; return r;
    let ir = r#"
define double @pow(double %x, i32 %n) {
entry:
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %r = phi double [ 1.0, %entry ], [ %r.next, %loop ]
  %r.next = fmul double %r, %x
  %i.next = add nsw i32 %i, 1
  %done = icmp sge i32 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  %out = phi double [ %r.next, %loop ]
  ret double %out
}
"#;
    assert_lines(
        &summary(ir, "pow", &Sig::ret_active(&[Active, Const])),
        "
        %x: active
        %n: inactive
        %i: inactive
        %r: active
        %r.next: active
        %i.next: inactive
        %done: inactive
        %out: active
        ",
    );
    // The same function with an inactive return: all varied, none useful.
    assert_lines(
        &summary(ir, "pow", &Sig::no_ret(&[Active, Const])),
        "
        %x: varied-not-useful
        %n: inactive
        %i: inactive
        %r: varied-not-useful
        %r.next: varied-not-useful
        %i.next: inactive
        %done: inactive
        %out: varied-not-useful
        ",
    );
}

#[test]
fn stores_to_shadowed_memory_make_values_useful() {
    // void f(double x, double *out) { *out = x * x; } with no active return:
    // the store into a shadowed argument is what makes %y useful.
    let ir = r#"
define void @f(double %x, ptr %out, ptr %scratch) {
entry:
  %y = fmul double %x, %x
  store double %y, ptr %out, align 8
  %z = fadd double %x, 1.0
  %zi = fptosi double %z to i64
  store i64 %zi, ptr %scratch, align 8
  ret void
}
"#;
    assert_lines(
        &summary(ir, "f", &Sig::no_ret(&[Active, Shadowed, Const])),
        "
        %x: active
        %out: shadowed
        %scratch: unshadowed pointer
        %y: active
        %z: varied-not-useful
        %zi: inactive
        ",
    );
}

#[test]
fn printf_in_the_middle_is_inactive() {
    // printf is known inactive: its result is an inactive integer, its
    // pointer arguments get no shadow, and passing %x to it does not make
    // %x useful by itself (the return does).
    let ir = r#"
@fmt = private unnamed_addr constant [7 x i8] c"%f %p\0A\00"

declare i32 @printf(ptr, ...)

define double @f(double %x) {
entry:
  %buf = alloca double, align 8
  %sq = fmul double %x, %x
  %call = call i32 (ptr, ...) @printf(ptr @fmt, double %sq, ptr %buf)
  %h = fmul double %x, 0.5
  %call2 = call i32 (ptr, ...) @printf(ptr @fmt, double %h, ptr %buf)
  %y = fadd double %sq, %x
  ret double %y
}
"#;
    assert_lines(
        &summary_with_globals(ir, "f", &Sig::ret_active(&[Active]), &["fmt"]),
        "
        %x: active
        %buf: unshadowed pointer
        %sq: active
        %call: inactive
        %h: varied-not-useful
        %call2: inactive
        %y: active
        @fmt: unshadowed pointer
        ",
    );
}

#[test]
fn user_declared_inactive_function() {
    // The same IR with and without @log_value in the inactive set: listed,
    // its result is inactive and its pointer argument gets no shadow; not
    // listed, it is an unknown call with an active argument, so its result
    // is active and its pointer argument is shadowed.
    let ir = r#"
declare double @log_value(double, ptr)

define double @f(double %x) {
entry:
  %buf = alloca double, align 8
  %r = call double @log_value(double %x, ptr %buf)
  %y = fadd double %x, %r
  ret double %y
}
"#;
    let listed = Sig {
        inactive: &["log_value"],
        ..Sig::ret_active(&[Active])
    };
    assert_lines(
        &summary(ir, "f", &listed),
        "
        %x: active
        %buf: unshadowed pointer
        %r: inactive
        %y: active
        ",
    );
    assert_lines(
        &summary(ir, "f", &Sig::ret_active(&[Active])),
        "
        %x: active
        %buf: shadowed
        %r: active
        %y: active
        ",
    );
}

#[test]
fn dup_argument_and_its_geps_phis_selects_are_shadowed() {
    // %a is dup; %k is a constant pointer. GEPs, phis and selects of %a are
    // in %a's family; those of %k are not. Float loads through %a's family
    // are varied (active when they reach the return); loads through %k's
    // family are inactive.
    let ir = r#"
define double @f(ptr %a, ptr %k, i64 %i, i1 %c) {
entry:
  %pa = getelementptr inbounds double, ptr %a, i64 %i
  %pa1 = getelementptr inbounds i8, ptr %a, i64 8
  %pk = getelementptr inbounds double, ptr %k, i64 %i
  br i1 %c, label %then, label %join
then:
  %pa2 = getelementptr inbounds double, ptr %pa, i64 2
  br label %join
join:
  %phi = phi ptr [ %pa, %entry ], [ %pa2, %then ]
  %sel = select i1 %c, ptr %phi, ptr %pa1
  %v = load double, ptr %sel, align 8
  %w = load double, ptr %pa1, align 8
  %kv = load double, ptr %pk, align 8
  %m = fmul double %v, %kv
  ret double %m
}
"#;
    assert_lines(
        &summary(ir, "f", &Sig::ret_active(&[Shadowed, Const, Const, Const])),
        "
        %a: shadowed
        %k: unshadowed pointer
        %i: inactive
        %c: inactive
        %pa: shadowed
        %pa1: shadowed
        %pk: unshadowed pointer
        %pa2: shadowed
        %phi: shadowed
        %sel: shadowed
        %v: active
        %w: varied-not-useful
        %kv: inactive
        %m: active
        ",
    );
}

#[test]
fn allocas_shadowed_only_when_they_receive_varied_data() {
    // %t receives the active %x: shadowed, and what is loaded back is
    // active. %cnt only holds an integer and %c only a literal: both stay
    // unshadowed, and the float loaded from %c is inactive.
    let ir = r#"
define double @f(double %x, i64 %n) {
entry:
  %t = alloca double, align 8
  %cnt = alloca i64, align 8
  %c = alloca double, align 8
  store double %x, ptr %t, align 8
  store i64 %n, ptr %cnt, align 8
  store double 2.0, ptr %c, align 8
  %v = load double, ptr %t, align 8
  %k = load i64, ptr %cnt, align 8
  %cv = load double, ptr %c, align 8
  %y = fmul double %v, %cv
  ret double %y
}
"#;
    assert_lines(
        &summary(ir, "f", &Sig::ret_active(&[Active, Const])),
        "
        %x: active
        %n: inactive
        %t: shadowed
        %cnt: unshadowed pointer
        %c: unshadowed pointer
        %v: active
        %k: inactive
        %cv: inactive
        %y: active
        ",
    );
}

#[test]
fn storing_a_shadowed_pointer_shadows_the_slot() {
    // A stack slot holding a dup pointer (as -O0 code spills arguments):
    // the slot is shadowed, and the pointer loaded back from it is too.
    let ir = r#"
define double @f(ptr %a) {
entry:
  %a.addr = alloca ptr, align 8
  store ptr %a, ptr %a.addr, align 8
  %p = load ptr, ptr %a.addr, align 8
  %v = load double, ptr %p, align 8
  ret double %v
}
"#;
    assert_lines(
        &summary(ir, "f", &Sig::ret_active(&[Shadowed])),
        "
        %a: shadowed
        %a.addr: shadowed
        %p: shadowed
        %v: active
        ",
    );
}

#[test]
fn memcpy_from_shadowed_memory_shadows_the_destination() {
    // %tmp is filled from the dup %a: shadowed, its loads active. %tmp2 is
    // filled from a constant global: unshadowed, its loads inactive.
    let ir = r#"
@init = private unnamed_addr constant [4 x double] [double 1.0, double 2.0, double 3.0, double 4.0]

declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)

define double @f(ptr %a) {
entry:
  %tmp = alloca [4 x double], align 16
  %tmp2 = alloca [4 x double], align 16
  call void @llvm.memcpy.p0.p0.i64(ptr %tmp, ptr %a, i64 32, i1 false)
  call void @llvm.memcpy.p0.p0.i64(ptr %tmp2, ptr @init, i64 32, i1 false)
  %p = getelementptr inbounds double, ptr %tmp, i64 2
  %v = load double, ptr %p, align 8
  %q = getelementptr inbounds double, ptr %tmp2, i64 2
  %w = load double, ptr %q, align 8
  %y = fmul double %v, %w
  ret double %y
}
"#;
    assert_lines(
        &summary_with_globals(ir, "f", &Sig::ret_active(&[Shadowed]), &["init"]),
        "
        %a: shadowed
        %tmp: shadowed
        %tmp2: unshadowed pointer
        %p: shadowed
        %v: active
        %q: unshadowed pointer
        %w: inactive
        %y: active
        @init: unshadowed pointer
        ",
    );
}

#[test]
fn realloc_of_shadowed_memory_is_shadowed() {
    // @grow: a heap buffer receiving %x is shadowed, and so is the block
    // realloc returns for it (it holds the old contents).
    // @grow_back: the varied store goes through realloc's result; the old
    // block (whose contents the new one holds) is shadowed too.
    // A buffer holding only integers stays unshadowed through realloc.
    let ir = r#"
declare ptr @malloc(i64)
declare ptr @realloc(ptr, i64)

define double @grow(double %x) {
entry:
  %buf = call ptr @malloc(i64 16)
  store double %x, ptr %buf, align 8
  %nb = call ptr @realloc(ptr %buf, i64 32)
  %v = load double, ptr %nb, align 8
  %ints = call ptr @malloc(i64 16)
  store i64 7, ptr %ints, align 8
  %ni = call ptr @realloc(ptr %ints, i64 32)
  %k = load i64, ptr %ni, align 8
  ret double %v
}

define double @grow_back(double %x) {
entry:
  %buf = call ptr @malloc(i64 16)
  store double 1.0, ptr %buf, align 8
  %nb = call ptr @realloc(ptr %buf, i64 32)
  %g = getelementptr inbounds double, ptr %nb, i64 1
  store double %x, ptr %g, align 8
  %v = load double, ptr %nb, align 8
  %w = load double, ptr %g, align 8
  %y = fadd double %v, %w
  ret double %y
}
"#;
    assert_lines(
        &summary(ir, "grow", &Sig::ret_active(&[Active])),
        "
        %x: active
        %buf: shadowed
        %nb: shadowed
        %v: active
        %ints: unshadowed pointer
        %ni: unshadowed pointer
        %k: inactive
        ",
    );
    assert_lines(
        &summary(ir, "grow_back", &Sig::ret_active(&[Active])),
        "
        %x: active
        %buf: shadowed
        %nb: shadowed
        %g: shadowed
        %v: active
        %w: active
        %y: active
        ",
    );
}

#[test]
fn row_pointers_loaded_from_shadowed_memory_are_shadowed() {
    // double f(double **rows, long i, long j) { return rows[i][j]; }
    let ir = r#"
define double @f(ptr %rows, i64 %i, i64 %j) {
entry:
  %rp = getelementptr inbounds ptr, ptr %rows, i64 %i
  %row = load ptr, ptr %rp, align 8
  %ep = getelementptr inbounds double, ptr %row, i64 %j
  %v = load double, ptr %ep, align 8
  ret double %v
}
"#;
    assert_lines(
        &summary(ir, "f", &Sig::ret_active(&[Shadowed, Const, Const])),
        "
        %rows: shadowed
        %i: inactive
        %j: inactive
        %rp: shadowed
        %row: shadowed
        %ep: shadowed
        %v: active
        ",
    );
    // With `rows` constant nothing has a shadow and nothing is active.
    assert_lines(
        &summary(ir, "f", &Sig::ret_active(&[Const, Const, Const])),
        "
        %rows: unshadowed pointer
        %i: inactive
        %j: inactive
        %rp: unshadowed pointer
        %row: unshadowed pointer
        %ep: unshadowed pointer
        %v: inactive
        ",
    );
}

#[test]
fn constant_global_table_read_by_active_code_stays_unshadowed() {
    // y = x * table[i]: the table is read next to active data but nothing
    // varied is stored into it, so it needs no shadow.
    let ir = r#"
@table = internal constant [4 x double] [double 1.0, double 0.5, double 0.25, double 0.125]

define double @f(double %x, i64 %i) {
entry:
  %p = getelementptr inbounds [4 x double], ptr @table, i64 0, i64 %i
  %c = load double, ptr %p, align 8
  %y = fmul double %x, %c
  %z = fadd double %y, %c
  ret double %z
}
"#;
    assert_lines(
        &summary_with_globals(ir, "f", &Sig::ret_active(&[Active, Const]), &["table"]),
        "
        %x: active
        %i: inactive
        %p: unshadowed pointer
        %c: inactive
        %y: active
        %z: active
        @table: unshadowed pointer
        ",
    );
}

#[test]
fn shadowed_return_shadows_the_returned_allocation() {
    // A function returning a fresh, zeroed buffer: with ret_shadowed (the
    // caller differentiates through the returned pointer) the buffer is
    // shadowed; without, nothing varied is stored into it and it is not.
    let ir = r#"
declare ptr @malloc(i64)

define ptr @make(double %x) {
entry:
  %m = call ptr @malloc(i64 16)
  store double 0.0, ptr %m, align 8
  %m1 = getelementptr inbounds i8, ptr %m, i64 8
  store double 0.0, ptr %m1, align 8
  %h = fmul double %x, 3.0
  ret ptr %m
}
"#;
    let shadowed = Sig {
        ret_shadowed: true,
        ..Sig::no_ret(&[Active])
    };
    assert_lines(
        &summary(ir, "make", &shadowed),
        "
        %x: varied-not-useful
        %m: shadowed
        %m1: shadowed
        %h: varied-not-useful
        ",
    );
    assert_lines(
        &summary(ir, "make", &Sig::no_ret(&[Active])),
        "
        %x: varied-not-useful
        %m: unshadowed pointer
        %m1: unshadowed pointer
        %h: varied-not-useful
        ",
    );
}

#[test]
fn float_loads_from_shadowed_memory_are_varied_integer_loads_are_not() {
    // A struct { double v; long n; } behind a dup pointer: the double is
    // varied, the integer is not, and a double loaded but only converted to
    // an integer is varied but not useful.
    let ir = r#"
define double @f(ptr %s) {
entry:
  %v = load double, ptr %s, align 8
  %np = getelementptr inbounds i8, ptr %s, i64 8
  %n = load i64, ptr %np, align 8
  %nf = sitofp i64 %n to double
  %vp = getelementptr inbounds i8, ptr %s, i64 16
  %v2 = load double, ptr %vp, align 8
  %v2i = fptosi double %v2 to i64
  %y = fmul double %v, %nf
  ret double %y
}
"#;
    assert_lines(
        &summary(ir, "f", &Sig::ret_active(&[Shadowed])),
        "
        %s: shadowed
        %v: active
        %np: shadowed
        %n: inactive
        %nf: inactive
        %vp: shadowed
        %v2: varied-not-useful
        %v2i: inactive
        %y: active
        ",
    );
}
