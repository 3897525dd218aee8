//! Type analysis on small modules: the printed trees against expected text.

use super::*;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;

const HEADER: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"
"#;

/// Parses `ir` (after the x86-64 data layout), analyses `func`, and hands the
/// function and its analysis to `check`.
fn with_analysis<R>(
    ir: &str,
    func: &str,
    check: impl for<'m> FnOnce(Function<'m>, &TypeAnalysis<'m>) -> R,
) -> R {
    let ctx = Context::create();
    let text = format!("{HEADER}{ir}");
    let buf = MemoryBuffer::create_from_memory_range_copy(text.as_bytes(), "test");
    let module = ctx
        .create_module_from_ir(buf)
        .unwrap_or_else(|e| panic!("bad test IR: {e}"));
    let v = crate::ir::named_function(crate::ir::Module::of(&module), func)
        .expect("function in test IR");
    let ta = TypeAnalysis::analyse(v);
    check(v, &ta)
}

/// The printed analysis of `func`.
fn printed(ir: &str, func: &str) -> String {
    with_analysis(ir, func, print)
}

/// Compares line by line, showing the whole output on a mismatch.
fn assert_lines(got: &str, want: &str) {
    let want: Vec<&str> = want
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let got_lines: Vec<&str> = got.lines().collect();
    assert_eq!(got_lines, want, "\nfull output:\n{got}");
}

#[test]
fn dot_product_with_variable_indices() {
    let ir = r#"
define double @dot(ptr %a, ptr %b, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %pa = getelementptr inbounds double, ptr %a, i64 %i
  %x = load double, ptr %pa, align 8
  %pb = getelementptr inbounds double, ptr %b, i64 %i
  %y = load double, ptr %pb, align 8
  %m = fmul double %x, %y
  %s.next = fadd double %s, %m
  %i.next = add nuw nsw i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %s.next
}
"#;
    assert_lines(
        &printed(ir, "dot"),
        r#"
        ptr %a: {[]:Pointer, [-1]:Float@double}
        ptr %b: {[]:Pointer, [-1]:Float@double}
        i64 %n: {[]:Integer}
        %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]: {[]:Integer}
        %s = phi double [ 0.000000e+00, %entry ], [ %s.next, %loop ]: {[]:Float@double}
        %pa = getelementptr inbounds double, ptr %a, i64 %i: {[]:Pointer, [-1]:Float@double}
        %x = load double, ptr %pa, align 8: {[]:Float@double}
        %pb = getelementptr inbounds double, ptr %b, i64 %i: {[]:Pointer, [-1]:Float@double}
        %y = load double, ptr %pb, align 8: {[]:Float@double}
        %m = fmul double %x, %y: {[]:Float@double}
        %s.next = fadd double %s, %m: {[]:Float@double}
        %i.next = add nuw nsw i64 %i, 1: {[]:Integer}
        %done = icmp eq i64 %i.next, %n: {[]:Integer}
        "#,
    );
    with_analysis(ir, "dot", |f, ta| {
        let a = f.params()[0];
        assert_eq!(ta.pointee_type(a, 800), ConcreteType::Float(FloatKind::F64));
        assert!(ta.pointee_has_float(a));
        assert!(!ta.pointee_has_pointer(a));
        assert!(ta.undecided().is_empty() && ta.conflicts().is_empty());
        assert_eq!(ta.return_tree().to_string(), "{[]:Float@double}");
    });
}

#[test]
fn struct_fields_through_constant_geps() {
    // struct S { double x; int *p; }, as clang -O0 (struct GEPs) and -O2
    // (byte GEPs) write it.
    let ir = r#"
%struct.S = type { double, ptr }
define double @typed(ptr %s) {
  %px = getelementptr inbounds %struct.S, ptr %s, i32 0, i32 0
  %x = load double, ptr %px, align 8
  %pp = getelementptr inbounds %struct.S, ptr %s, i32 0, i32 1
  %p = load ptr, ptr %pp, align 8
  %i = load i32, ptr %p, align 4
  %f = sitofp i32 %i to double
  %r = fmul double %x, %f
  ret double %r
}
define double @bytes(ptr %s) {
  %x = load double, ptr %s, align 8
  %pp = getelementptr inbounds i8, ptr %s, i64 8
  %p = load ptr, ptr %pp, align 8
  %i = load i32, ptr %p, align 4
  %f = sitofp i32 %i to double
  %r = fmul double %x, %f
  ret double %r
}
"#;
    assert_lines(
        &printed(ir, "typed"),
        r#"
        ptr %s: {[]:Pointer, [0]:Float@double, [8]:Pointer, [8,0]:Integer}
        %px = getelementptr inbounds %struct.S, ptr %s, i32 0, i32 0: {[]:Pointer, [0]:Float@double, [8]:Pointer, [8,0]:Integer}
        %x = load double, ptr %px, align 8: {[]:Float@double}
        %pp = getelementptr inbounds %struct.S, ptr %s, i32 0, i32 1: {[]:Pointer, [0]:Pointer, [0,0]:Integer}
        %p = load ptr, ptr %pp, align 8: {[]:Pointer, [0]:Integer}
        %i = load i32, ptr %p, align 4: {[]:Integer}
        %f = sitofp i32 %i to double: {[]:Float@double}
        %r = fmul double %x, %f: {[]:Float@double}
        "#,
    );
    let bytes = printed(ir, "bytes");
    assert!(
        bytes.starts_with("ptr %s: {[]:Pointer, [0]:Float@double, [8]:Pointer, [8,0]:Integer}\n"),
        "{bytes}"
    );
}

#[test]
fn array_of_row_pointers() {
    // double rows(double **m, long n): sum of m[i][i].
    let ir = r#"
define double @rows(ptr %m, i64 %n) {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %prow = getelementptr inbounds ptr, ptr %m, i64 %i
  %row = load ptr, ptr %prow, align 8
  %px = getelementptr inbounds double, ptr %row, i64 %i
  %x = load double, ptr %px, align 8
  %s.next = fadd double %s, %x
  %i.next = add i64 %i, 1
  %done = icmp eq i64 %i.next, %n
  br i1 %done, label %exit, label %loop
exit:
  ret double %s.next
}
"#;
    let out = printed(ir, "rows");
    assert_lines(
        out.lines().take(7).collect::<Vec<_>>().join("\n").as_str(),
        r#"
        ptr %m: {[]:Pointer, [-1]:Pointer, [-1,-1]:Float@double}
        i64 %n: {[]:Integer}
        %i = phi i64 [ 0, %entry ], [ %i.next, %loop ]: {[]:Integer}
        %s = phi double [ 0.000000e+00, %entry ], [ %s.next, %loop ]: {[]:Float@double}
        %prow = getelementptr inbounds ptr, ptr %m, i64 %i: {[]:Pointer, [-1]:Pointer, [-1,-1]:Float@double}
        %row = load ptr, ptr %prow, align 8: {[]:Pointer, [-1]:Float@double}
        %px = getelementptr inbounds double, ptr %row, i64 %i: {[]:Pointer, [-1]:Float@double}
        "#,
    );
}

#[test]
fn memcpy_of_doubles_with_constant_length() {
    // The source is typed by its loads; the copy types the destination, but
    // only below the length (the pointer at 24 is not copied).
    let ir = r#"
define void @copy(ptr %d, ptr %s) {
  %a = load double, ptr %s, align 8
  %ps1 = getelementptr inbounds double, ptr %s, i64 1
  %b = load double, ptr %ps1, align 8
  %ps3 = getelementptr inbounds i8, ptr %s, i64 24
  %p = load ptr, ptr %ps3, align 8
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 16, i1 false)
  ret void
}
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
"#;
    let out = printed(ir, "copy");
    assert_lines(
        out.lines().take(2).collect::<Vec<_>>().join("\n").as_str(),
        r#"
        ptr %d: {[]:Pointer, [0]:Float@double, [8]:Float@double}
        ptr %s: {[]:Pointer, [0]:Float@double, [8]:Float@double, [24]:Pointer}
        "#,
    );
    with_analysis(ir, "copy", |_, ta| assert!(ta.undecided().is_empty()));
}

#[test]
fn memcpy_with_tbaa_struct_and_untyped_memcpy() {
    // struct P { double a; float b; long c; } copied by `*d = *s` at -O2.
    let ir = r#"
define void @copys(ptr %d, ptr %s) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 24, i1 false), !tbaa.struct !0
  ret void
}
define void @untyped(ptr %d, ptr %s) {
  call void @llvm.memcpy.p0.p0.i64(ptr %d, ptr %s, i64 24, i1 false)
  ret void
}
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
!0 = !{i64 0, i64 8, !1, i64 8, i64 4, !5, i64 16, i64 8, !7}
!1 = !{!2, !2, i64 0}
!2 = !{!"double", !3, i64 0}
!3 = !{!"omnipotent char", !4, i64 0}
!4 = !{!"Simple C/C++ TBAA"}
!5 = !{!6, !6, i64 0}
!6 = !{!"float", !3, i64 0}
!7 = !{!8, !8, i64 0}
!8 = !{!"long", !3, i64 0}
"#;
    assert_lines(
        &printed(ir, "copys"),
        r#"
        ptr %d: {[]:Pointer, [0]:Float@double, [8]:Float@float, [16]:Integer}
        ptr %s: {[]:Pointer, [0]:Float@double, [8]:Float@float, [16]:Integer}
        "#,
    );
    with_analysis(ir, "untyped", |_, ta| {
        let u = ta.undecided();
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].kind, UndecidedKind::UntypedCopy);
        assert_eq!(u[0].function, "untyped");
        assert!(u[0].message().contains("llvm.memcpy"), "{}", u[0].message());
        assert!(u[0].help().contains("enzyme_const"));
    });
}

#[test]
fn pointer_tbaa_types_what_a_double_pointer_points_to() {
    // std::vector<double>'s buffer copied by memmove: its begin and end
    // pointers are loaded with clang's pointer TBAA `p1 double`.
    let ir = r#"
define void @copy(ptr %dst, ptr %v) {
  %b = load ptr, ptr %v, align 8, !tbaa !0
  %ep = getelementptr inbounds i8, ptr %v, i64 8
  %e = load ptr, ptr %ep, align 8, !tbaa !0
  %ei = ptrtoint ptr %e to i64
  %bi = ptrtoint ptr %b to i64
  %n = sub i64 %ei, %bi
  call void @llvm.memmove.p0.p0.i64(ptr %dst, ptr %b, i64 %n, i1 false)
  ret void
}
declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)
!0 = !{!1, !1, i64 0}
!1 = !{!"p1 double", !2, i64 0}
!2 = !{!"any pointer", !3, i64 0}
!3 = !{!"omnipotent char", !4, i64 0}
!4 = !{!"Simple C++ TBAA"}
"#;
    let got = printed(ir, "copy");
    let b = got.lines().find(|l| l.contains("%b = load")).expect("%b");
    assert!(b.ends_with("{[]:Pointer, [0]:Float@double}"), "{got}");
    with_analysis(ir, "copy", |_, ta| assert!(ta.undecided().is_empty()));
}

#[test]
fn float_and_double_and_tbaa() {
    // float ff(float *x, double *y) { return x[1] + (float)y[2]; }, plus a
    // double copied through an i64 whose TBAA says what it is.
    let ir = r#"
define float @ff(ptr %x, ptr %y) {
  %px = getelementptr inbounds float, ptr %x, i64 1
  %a = load float, ptr %px, align 4
  %py = getelementptr inbounds i8, ptr %y, i64 16
  %b = load double, ptr %py, align 8
  %c = fptrunc double %b to float
  %r = fadd float %a, %c
  ret float %r
}
define void @bits(ptr %d, ptr %s) {
  %v = load i64, ptr %s, align 8, !tbaa !0
  store i64 %v, ptr %d, align 8
  %w = load i64, ptr %d, align 8
  store i64 %w, ptr %s, align 8
  ret void
}
define void @opaque_bits(ptr %d, ptr %s) {
  %v = load i64, ptr %s, align 8
  store i64 %v, ptr %d, align 8
  ret void
}
!0 = !{!1, !1, i64 0}
!1 = !{!"double", !2, i64 0}
!2 = !{!"omnipotent char", !3, i64 0}
!3 = !{!"Simple C/C++ TBAA"}
"#;
    assert_lines(
        &printed(ir, "ff"),
        r#"
        ptr %x: {[]:Pointer, [4]:Float@float}
        ptr %y: {[]:Pointer, [16]:Float@double}
        %px = getelementptr inbounds float, ptr %x, i64 1: {[]:Pointer, [0]:Float@float}
        %a = load float, ptr %px, align 4: {[]:Float@float}
        %py = getelementptr inbounds i8, ptr %y, i64 16: {[]:Pointer, [0]:Float@double}
        %b = load double, ptr %py, align 8: {[]:Float@double}
        %c = fptrunc double %b to float: {[]:Float@float}
        %r = fadd float %a, %c: {[]:Float@float}
        "#,
    );
    assert_lines(
        &printed(ir, "bits"),
        r#"
        ptr %d: {[]:Pointer, [0]:Float@double}
        ptr %s: {[]:Pointer, [0]:Float@double}
        %v = load i64, ptr %s, align 8: {[]:Float@double}
        %w = load i64, ptr %d, align 8: {[]:Float@double}
        "#,
    );
    with_analysis(ir, "opaque_bits", |_, ta| {
        let u = ta.undecided();
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].kind, UndecidedKind::IntegerCopy);
    });
}

#[test]
fn interprocedural_call_types_the_callers_pointer() {
    // @second's load types the caller's pointer at 8; @skip's returned
    // pointer is loaded by the caller, which types @skip's parameter at 16
    // and so the caller's pointer there.
    let ir = r#"
define double @second(ptr %q) {
  %p = getelementptr inbounds double, ptr %q, i64 1
  %x = load double, ptr %p, align 8
  ret double %x
}
define ptr @skip(ptr %q) {
  %r = getelementptr inbounds i8, ptr %q, i64 16
  ret ptr %r
}
define double @caller(ptr %p) {
  %x = call double @second(ptr %p)
  %r = call ptr @skip(ptr %p)
  %y = load float, ptr %r, align 4
  %z = fpext float %y to double
  %s = fadd double %x, %z
  ret double %s
}
"#;
    assert_lines(
        &printed(ir, "caller"),
        r#"
        ptr %p: {[]:Pointer, [8]:Float@double, [16]:Float@float}
        %x = call double @second(ptr %p): {[]:Float@double}
        %r = call ptr @skip(ptr %p): {[]:Pointer, [0]:Float@float}
        %y = load float, ptr %r, align 4: {[]:Float@float}
        %z = fpext float %y to double: {[]:Float@double}
        %s = fadd double %x, %z: {[]:Float@double}
        "#,
    );
}

#[test]
fn recursion_terminates() {
    // Mutual recursion: each function sees the other once (a call back
    // into a function being analysed adds nothing).
    let ir = r#"
define double @even(ptr %p, i64 %n) {
  %z = icmp eq i64 %n, 0
  br i1 %z, label %base, label %rec
base:
  %x = load double, ptr %p, align 8
  ret double %x
rec:
  %m = sub i64 %n, 1
  %r = call double @odd(ptr %p, i64 %m)
  ret double %r
}
define double @odd(ptr %p, i64 %n) {
  %q = getelementptr inbounds double, ptr %p, i64 1
  %r = call double @even(ptr %q, i64 %n)
  ret double %r
}
define double @sum(ptr %p, i64 %n) {
  %z = icmp eq i64 %n, 0
  br i1 %z, label %base, label %rec
base:
  ret double 0.0
rec:
  %x = load double, ptr %p, align 8
  %q = getelementptr inbounds i8, ptr %p, i64 8
  %m = sub i64 %n, 1
  %r = call double @sum(ptr %q, i64 %m)
  %s = fadd double %x, %r
  ret double %s
}
"#;
    let out = printed(ir, "odd");
    assert!(
        out.starts_with("ptr %p: {[]:Pointer, [8]:Float@double}\ni64 %n: {[]:Integer}\n"),
        "{out}"
    );
    let out = printed(ir, "even");
    assert!(
        out.starts_with("ptr %p: {[]:Pointer, [0]:Float@double}\n"),
        "{out}"
    );
    // Direct recursion on p + 8 walks an array of doubles.
    assert_lines(
        &printed(ir, "sum"),
        r#"
        ptr %p: {[]:Pointer, [-1]:Float@double}
        i64 %n: {[]:Integer}
        %z = icmp eq i64 %n, 0: {[]:Integer}
        %x = load double, ptr %p, align 8: {[]:Float@double}
        %q = getelementptr inbounds i8, ptr %p, i64 8: {[]:Pointer, [-1]:Float@double}
        %m = sub i64 %n, 1: {[]:Integer}
        %r = call double @sum(ptr %q, i64 %m): {[]:Float@double}
        %s = fadd double %x, %r: {[]:Float@double}
        "#,
    );
}

#[test]
fn pointer_increment_loop() {
    // for (p = a; p != end; ++p) s += *p;  as -O2 may keep it.
    let ir = r#"
define double @walk(ptr %a, ptr %end) {
entry:
  br label %loop
loop:
  %p = phi ptr [ %a, %entry ], [ %p.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %x = load double, ptr %p, align 8
  %s.next = fadd double %s, %x
  %p.next = getelementptr inbounds i8, ptr %p, i64 8
  %done = icmp eq ptr %p.next, %end
  br i1 %done, label %exit, label %loop
exit:
  ret double %s.next
}
"#;
    let out = printed(ir, "walk");
    assert!(
        out.starts_with("ptr %a: {[]:Pointer, [-1]:Float@double}\n"),
        "{out}"
    );
    assert!(
        out.contains(
            "%p.next = getelementptr inbounds i8, ptr %p, i64 8: {[]:Pointer, [-1]:Float@double}\n"
        ),
        "{out}"
    );
}

#[test]
fn phi_and_select_of_pointers() {
    // A phi or select holds what all its inputs agree on, and hands what is
    // done through it back to each input: %e is only used at offset 8.
    let ir = r#"
define double @pick(i1 %c, ptr %a, ptr %b, ptr %e) {
entry:
  br i1 %c, label %l, label %r
l:
  br label %join
r:
  br label %join
join:
  %p = phi ptr [ %a, %l ], [ %b, %r ]
  %x = load double, ptr %p, align 8
  %q = select i1 %c, ptr %p, ptr %e
  %pq = getelementptr inbounds i8, ptr %q, i64 8
  %y = load ptr, ptr %pq, align 8
  %s = fadd double %x, 1.0
  ret double %s
}
"#;
    assert_lines(
        &printed(ir, "pick"),
        r#"
        i1 %c: {[]:Integer}
        ptr %a: {[]:Pointer, [0]:Float@double, [8]:Pointer}
        ptr %b: {[]:Pointer, [0]:Float@double, [8]:Pointer}
        ptr %e: {[]:Pointer, [8]:Pointer}
        %p = phi ptr [ %a, %l ], [ %b, %r ]: {[]:Pointer, [0]:Float@double, [8]:Pointer}
        %x = load double, ptr %p, align 8: {[]:Float@double}
        %q = select i1 %c, ptr %p, ptr %e: {[]:Pointer, [8]:Pointer}
        %pq = getelementptr inbounds i8, ptr %q, i64 8: {[]:Pointer, [0]:Pointer}
        %y = load ptr, ptr %pq, align 8: {[]:Pointer}
        %s = fadd double %x, 1.000000e+00: {[]:Float@double}
        "#,
    );
}

#[test]
fn select_of_two_fields_does_not_smear_them() {
    // double *p = c ? &s->x : &s->y with x a double and y a float, and
    // c ? &v[0] : &v[1] over an array: neither spreads facts to other offsets.
    let ir = r#"
define float @fields(i1 %c, ptr %s, ptr %v) {
  %x = load double, ptr %s, align 8
  %py = getelementptr inbounds i8, ptr %s, i64 8
  %y = load float, ptr %py, align 4
  %p = select i1 %c, ptr %s, ptr %py
  %z = load i32, ptr %p, align 4
  %a = load double, ptr %v, align 8
  %pv1 = getelementptr inbounds double, ptr %v, i64 1
  %b = load double, ptr %pv1, align 8
  %pv = select i1 %c, ptr %v, ptr %pv1
  %w = load double, ptr %pv, align 8
  ret float %y
}
"#;
    let out = printed(ir, "fields");
    assert!(
        out.contains("ptr %s: {[]:Pointer, [0]:Float@double, [8]:Float@float}\n"),
        "{out}"
    );
    assert!(
        out.contains("ptr %v: {[]:Pointer, [0]:Float@double, [8]:Float@double}\n"),
        "{out}"
    );
    assert!(
        out.contains("%pv = select i1 %c, ptr %v, ptr %pv1: {[]:Pointer, [0]:Float@double}\n"),
        "{out}"
    );
    with_analysis(ir, "fields", |_, ta| {
        assert!(ta.conflicts().is_empty(), "{:?}", ta.conflicts())
    });
}

#[test]
fn conflicts_are_recorded_not_fatal() {
    let ir = r#"
define double @clash(ptr %p, ptr %v) {
  store ptr %v, ptr %p, align 8
  %x = load double, ptr %p, align 8
  ret double %x
}
"#;
    with_analysis(ir, "clash", |f, ta| {
        let p = f.params()[0];
        assert_eq!(ta.pointee_type(p, 0), ConcreteType::Pointer);
        // The load's result refuses Pointer; the pointer's pointee keeps the
        // Pointer stored first and refuses the load's double.
        let c = ta
            .conflicts()
            .iter()
            .find(|c| c.value == p)
            .expect("conflict on %p");
        assert_eq!(c.path, vec![0]);
        assert_eq!(
            (c.kept, c.rejected),
            (ConcreteType::Pointer, ConcreteType::Float(FloatKind::F64))
        );
        assert_eq!(
            c.instruction.map(|i| i.to_ir()),
            Some("%x = load double, ptr %p, align 8".to_string())
        );
    });
}

#[test]
fn odd_inputs_add_no_facts_and_do_not_panic() {
    let ir = r#"
%opaque = type opaque
@g = global double 0.0
define void @odd(ptr %p, <2 x ptr> %vp, i128 %big, <vscale x 2 x double> %sv, ptr %o) {
entry:
  %vg = getelementptr double, <2 x ptr> %vp, <2 x i64> <i64 1, i64 2>
  %wide = getelementptr i8, ptr %p, i128 %big
  %huge = getelementptr double, ptr %p, i64 9223372036854775807
  %x = load double, ptr %huge, align 8
  %sp = getelementptr <vscale x 2 x double>, ptr %p, i64 1
  store <vscale x 2 x double> %sv, ptr %sp, align 16
  %gv = load double, ptr @g, align 8
  %fp = ptrtoint ptr %p to i64
  %fq = add i64 %fp, 8
  %q = inttoptr i64 %fq to ptr
  %y = load float, ptr %q, align 4
  %list = load ptr, ptr %o, align 8
  br label %loop
loop:
  %node = phi ptr [ %list, %entry ], [ %next, %loop ]
  %next = load ptr, ptr %node, align 8
  %done = icmp eq ptr %next, null
  br i1 %done, label %exit, label %loop
dead:
  %u = load double, ptr %u.p, align 8
  %u.p = getelementptr double, ptr %u.p, i64 1
  %w.p = getelementptr double, ptr %w.p, i64 %big.t
  %big.t = trunc i128 %big to i64
  br label %dead
exit:
  ret void
}
declare void @decl(ptr)
"#;
    with_analysis(ir, "odd", |f, ta| {
        let out = print(f, ta);
        assert!(out.contains("%fq = add i64 %fp, 8: {[]:Pointer"), "{out}");
        assert!(
            out.contains("%gv = load double, ptr @g, align 8: {[]:Float@double}"),
            "{out}"
        );
        assert!(
            out.contains(
                "%u.p = getelementptr double, ptr %u.p, i64 1: {[]:Pointer, [-1]:Float@double}"
            ),
            "{out}"
        );
    });
    with_analysis(ir, "decl", |f, ta| {
        assert_eq!(print(f, ta), "ptr %0: {[]:Pointer}\n");
    });
}

#[test]
fn enzyme_type_attribute_notation() {
    use super::tree::{ConcreteType, FloatKind, TypeTree};
    let t = TypeTree::parse_enzyme("{[-1]:Pointer, [-1,0]:Float@float}").expect("a tree");
    assert_eq!(t.root(), ConcreteType::Pointer);
    assert_eq!(t.at(&[0]), ConcreteType::Float(FloatKind::F32));
    let s = TypeTree::parse_enzyme("{[-1]:Pointer, [-1,-1]:Float@double}").expect("a tree");
    assert_eq!(s.at(&[16]), ConcreteType::Float(FloatKind::F64));
    let f = TypeTree::parse_enzyme("{[-1]:Float@double}").expect("a tree");
    assert_eq!(f.root(), ConcreteType::Float(FloatKind::F64));
    assert!(TypeTree::parse_enzyme("{}").is_some_and(|t| t.is_empty()));
    // Not a tree, or a value offset this tree cannot hold: ignored.
    assert!(TypeTree::parse_enzyme("Pointer").is_none());
    assert!(TypeTree::parse_enzyme("{[8]:Integer}").is_none());
    assert!(TypeTree::parse_enzyme("{[-1]:Vector}").is_none());
}

#[test]
fn indexing_a_float_pointer_types_untyped_elements() {
    // x[j] moved as an integer: only the GEP's element type says that x
    // holds doubles. A byte GEP says nothing; an element used as an
    // integer stays one (the hint comes after the integer defaults).
    let ir = r#"
define void @rot(ptr %x, i64 %j) {
  %p = getelementptr inbounds double, ptr %x, i64 %j
  %v = load i64, ptr %p, align 8
  store i64 %v, ptr %x, align 8
  ret void
}
define void @bytes(ptr %x, i64 %j) {
  %p = getelementptr inbounds i8, ptr %x, i64 %j
  %v = load i64, ptr %p, align 8
  store i64 %v, ptr %x, align 8
  ret void
}
define void @ints(ptr %x, i64 %j) {
  %p = getelementptr inbounds double, ptr %x, i64 %j
  %v = load i64, ptr %p, align 8
  %w = add i64 %v, 1
  store i64 %w, ptr %x, align 8
  ret void
}
"#;
    with_analysis(ir, "rot", |f, ta| {
        let out = print(f, ta);
        assert!(
            out.contains("%v = load i64, ptr %p, align 8: {[]:Float@double}"),
            "{out}"
        );
    });
    with_analysis(ir, "bytes", |f, ta| {
        let out = print(f, ta);
        assert!(!out.contains("Float"), "{out}");
    });
    with_analysis(ir, "ints", |f, ta| {
        let out = print(f, ta);
        assert!(
            out.contains("%v = load i64, ptr %p, align 8: {[]:Integer}"),
            "{out}"
        );
    });
}

#[test]
fn memory_written_a_small_integer_constant_holds_an_integer() {
    // Rust's ndarray writes a `Dim`'s sizes as `store i64 2` and copies
    // them as integers: a copy web of loads from that slot (below, the
    // load and the store into %dst) is then typed. A constant that may be
    // a float's bits (1.0 is 0x3FF0...) or zero says nothing, and a slot
    // typed otherwise keeps its type.
    let ir = r#"
define void @dims(ptr %src, ptr %dst, ptr %f, ptr %pp) {
  store i64 2, ptr %src, align 8
  %v = load i64, ptr %src, align 8
  store i64 %v, ptr %dst, align 8
  store i64 4607182418800017408, ptr %f, align 8
  store i64 8, ptr %pp, align 8
  %q = load ptr, ptr %pp, align 8
  ret void
}
"#;
    with_analysis(ir, "dims", |f, ta| {
        let out = print(f, ta);
        assert!(out.contains("ptr %src: {[]:Pointer, [0]:Integer}"), "{out}");
        assert!(out.contains("ptr %dst: {[]:Pointer, [0]:Integer}"), "{out}");
        assert!(out.contains("ptr %f: {[]:Pointer}"), "{out}");
        assert!(out.contains("ptr %pp: {[]:Pointer, [0]:Pointer}"), "{out}");
    });
}

#[test]
fn a_copy_shorter_than_any_float_is_no_untyped_copy() {
    // A BLAS `char` option copied byte by byte between pointers of unknown
    // type (Enzyme's blas.cpp): one byte holds no float, so nothing is
    // undecided; eight bytes could hold a double.
    let ir = r#"
declare void @llvm.memmove.p0.p0.i64(ptr, ptr, i64, i1)
define void @one(ptr %d, ptr %s) {
  call void @llvm.memmove.p0.p0.i64(ptr %d, ptr %s, i64 1, i1 false)
  ret void
}
define void @eight(ptr %d, ptr %s) {
  call void @llvm.memmove.p0.p0.i64(ptr %d, ptr %s, i64 8, i1 false)
  ret void
}
"#;
    with_analysis(ir, "one", |_, ta| assert!(ta.undecided().is_empty()));
    with_analysis(ir, "eight", |_, ta| {
        let u = ta.undecided();
        assert_eq!(u.len(), 1);
        assert_eq!(u[0].kind, UndecidedKind::UntypedCopy);
    });
}
