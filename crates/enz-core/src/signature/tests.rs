//! The derivative ABI on small functions: the printed type of every
//! function of a request, and where the tape and the return's adjoint sit.

use super::*;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;

const IR: &str = r#"
define double @f(double %x, ptr %p, i32 %n) {
  ret double %x
}
define ptr @g(ptr %p, <2 x double> %v) {
  ret ptr %p
}
define void @h(i64 %k) {
  ret void
}
"#;

/// Runs `check` on the named functions of [`IR`].
fn with_functions(check: impl for<'m> FnOnce(&dyn Fn(&str) -> Function<'m>)) {
    let ctx = Context::create();
    let buf = MemoryBuffer::create_from_memory_range_copy(IR.as_bytes(), "test");
    let module = ctx.create_module_from_ir(buf).expect("test IR parses");
    let get = |name: &str| {
        crate::ir::named_function(crate::ir::Module::of(&module), name).expect("function")
    };
    check(&get);
}

fn types<'m>(req: &Request<'m>, kinds: &[Kind]) -> Vec<String> {
    kinds
        .iter()
        .map(|k| req.signature(*k).function_type().to_string())
        .collect()
}

#[test]
fn specialised_reverse_signatures_follow_the_activities() {
    with_functions(|f| {
        let req = Request {
            function: f("f"),
            args: vec![ArgActivity::Out, ArgActivity::Dup, ArgActivity::Const],
            ret_active: true,
            ret_shadowed: false,
            mode: Mode::Split,
        };
        assert_eq!(
            types(&req, &[Kind::Gradient, Kind::Augmented, Kind::Reverse]),
            [
                "{ double } (double, ptr, ptr, i32)",
                "{ ptr, double } (double, ptr, ptr, i32)",
                "{ double } (double, ptr, ptr, i32, double, ptr)",
            ]
        );
        let rev = req.signature(Kind::Reverse);
        assert_eq!(rev.param_index(Param::ReturnAdjoint), Some(4));
        assert_eq!(rev.param_index(Param::Tape), Some(5));
        assert_eq!(rev.param_index(Param::Shadow { of: 1, lane: 0 }), Some(2));
        assert_eq!(rev.field_index(Field::Adjoint(0)), Some(0));
        assert_eq!(rev.field_index(Field::Adjoint(1)), None);
    });
}

#[test]
fn vector_gradient_signatures_carry_width_shadows_and_adjoint_arrays() {
    with_functions(|f| {
        let req = Request {
            function: f("f"),
            args: vec![ArgActivity::Out, ArgActivity::Dup, ArgActivity::Const],
            ret_active: true,
            ret_shadowed: false,
            mode: Mode::CombinedVector { width: 3 },
        };
        assert_eq!(
            types(&req, &[Kind::VectorGradient { width: 3 }]),
            ["{ [3 x double] } (double, ptr, ptr, ptr, ptr, i32)"]
        );
        let sig = req.signature(Kind::VectorGradient { width: 3 });
        assert_eq!(sig.param_index(Param::Shadow { of: 1, lane: 2 }), Some(4));
    });
}

#[test]
fn forward_signatures_carry_width_tangents() {
    with_functions(|f| {
        let req = Request {
            function: f("f"),
            args: vec![ArgActivity::Dup, ArgActivity::Const, ArgActivity::Const],
            ret_active: true,
            ret_shadowed: false,
            mode: Mode::Forward { width: 3 },
        };
        assert_eq!(
            types(&req, &[Kind::Forward { width: 3 }]),
            ["{ double, double, double, double } (double, double, double, double, ptr, i32)"]
        );
        let sig = req.signature(Kind::Forward { width: 3 });
        assert_eq!(sig.field_index(Field::ReturnShadow { lane: 2 }), Some(3));
        assert_eq!(sig.param_index(Param::Shadow { of: 0, lane: 1 }), Some(2));
    });
}

#[test]
fn canonical_requests_follow_the_type_alone() {
    with_functions(|f| {
        let req = Request::canonical(f("g"), Mode::Split);
        assert_eq!(req.args, [ArgActivity::Dup, ArgActivity::Out]);
        assert!(req.ret_shadowed && !req.ret_active);
        assert_eq!(
            types(&req, &[Kind::Augmented, Kind::Reverse]),
            [
                "{ ptr, ptr, ptr } (ptr, ptr, <2 x double>)",
                "{ <2 x double> } (ptr, ptr, <2 x double>, ptr)",
            ]
        );
        let fwd = Request::canonical(f("f"), Mode::Forward { width: 1 });
        assert_eq!(
            fwd.args,
            [ArgActivity::Dup, ArgActivity::Dup, ArgActivity::Const]
        );
        let void = Request::canonical(f("h"), Mode::Combined);
        assert_eq!(types(&void, &[Kind::Gradient]), ["void (i64)"]);
    });
}
