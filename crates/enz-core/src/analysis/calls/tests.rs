//! The call classifier's precedence on one small module: every call of
//! `@calls` classified, with and without the user's declarations.

use super::*;
use crate::names::MemFn;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;

const IR: &str = r#"
declare double @sin(double)
declare ptr @malloc(i64)
declare ptr @aligned_alloc(i64, i64)
declare i32 @printf(ptr, ...)
declare void @llvm.nvvm.barrier0()
declare i32 @llvm.ctpop.i32(i32)
declare double @mystery(double)
declare double @__enzyme_autodiff(ptr, ...)
declare double @llvm.vector.reduce.fadd.v4f64(double, <4 x double>)
declare <4 x double> @llvm.masked.load.v4f64.p0(ptr, <4 x i1>, <4 x double>)
declare i32 @MPI_Send(ptr, i32, i32, i32, i32, i32)
declare i32 @MPI_Comm_rank(i32, ptr)
declare i32 @MPI_Barrier(i32)
declare i32 @MPI_Alltoall(ptr, i32, i32, ptr, i32, i32, i32)

define double @helper(double %x) {
  ret double %x
}

define double @calls(double %x, ptr %fp) {
  %a = call double @sin(double %x)
  %b = call ptr @malloc(i64 8)
  %c = call ptr @aligned_alloc(i64 64, i64 8)
  %d = call i32 (ptr, ...) @printf(ptr null)
  call void @llvm.nvvm.barrier0()
  %e = call i32 @llvm.ctpop.i32(i32 3)
  %f = call double @mystery(double %x)
  %g = call double @helper(double %x)
  %h = call double %fp(double %x)
  %i = call double (ptr, ...) @__enzyme_autodiff(ptr @helper, double %x)
  %j = call double @llvm.vector.reduce.fadd.v4f64(double -0.0, <4 x double> zeroinitializer)
  %k = call <4 x double> @llvm.masked.load.v4f64.p0(ptr %fp, <4 x i1> zeroinitializer, <4 x double> poison)
  %l = call i32 @MPI_Send(ptr %fp, i32 1, i32 1275070475, i32 0, i32 0, i32 1140850688)
  %m = call i32 @MPI_Comm_rank(i32 1140850688, ptr %fp)
  %n = call i32 @MPI_Barrier(i32 1140850688)
  %o = call i32 @MPI_Alltoall(ptr %fp, i32 1, i32 1275070475, ptr %fp, i32 1, i32 1275070475, i32 1140850688)
  ret double %a
}
"#;

/// The kinds of `@calls`' calls, in order, printed, for `direction`.
fn kinds<'m>(
    get: &dyn Fn(&str) -> Function<'m>,
    inactive: &[&str],
    custom: &[(&str, bool, bool)],
    direction: Direction,
) -> Vec<String> {
    let inactive: HashSet<Function> = inactive.iter().map(|n| get(n)).collect();
    let custom: HashMap<Function, CustomRules> = custom
        .iter()
        .map(|(n, gradient, forward)| {
            let f = get(n);
            let rules = CustomRules {
                gradient: gradient.then_some((f, f)),
                forward: forward.then_some(f),
                like: None,
                allocation: None,
            };
            (f, rules)
        })
        .collect();
    let facts = CallFacts {
        inactive: &inactive,
        custom: &custom,
    };
    let func = get("calls");
    let kinds = CallKinds::of(func, facts, direction);
    func.blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| i.called_value().is_some())
        .map(|i| match kinds.get(i.as_value()) {
            CallKind::Custom(f) => format!("custom {}", f.name()),
            CallKind::Defined(f) => format!("defined {}", f.name()),
            CallKind::External(f) => format!("external {}", f.name()),
            CallKind::Intrinsic(f) => format!("intrinsic {}", f.name()),
            k => format!("{k:?}"),
        })
        .collect()
}

fn with_module(check: impl for<'m> FnOnce(&dyn Fn(&str) -> Function<'m>)) {
    let ctx = Context::create();
    let buf = MemoryBuffer::create_from_memory_range_copy(IR.as_bytes(), "test");
    let module = ctx.create_module_from_ir(buf).expect("test IR parses");
    let get =
        |n: &str| crate::ir::named_function(crate::ir::Module::of(&module), n).expect("function");
    check(&get);
}

#[test]
fn every_kind_in_one_precedence() {
    with_module(|get| {
        assert_eq!(
            kinds(get, &[], &[], Direction::Reverse),
            [
                "Math(Sin)",
                "Memory(Malloc)",
                "Memory(AlignedAlloc)",
                "KnownInactive",
                "Barrier",
                "intrinsic llvm.ctpop.i32",
                "external mystery",
                "defined helper",
                "Indirect",
                "EntryPoint(Autodiff)",
                "Math(ReduceFAdd)",
                "Masked(Load)",
                "Mpi(Send)",
                "Mpi(Inactive)",
                "Mpi(Barrier)",
                "Mpi(Other)",
            ]
        );
    });
}

#[test]
fn a_registered_derivative_beats_the_rule_table_in_its_direction_only() {
    with_module(|get| {
        // A gradient only: reverse mode uses it, forward mode the rule.
        let gradient = [("sin", true, false)];
        assert_eq!(
            kinds(get, &[], &gradient, Direction::Reverse)[0],
            "custom sin"
        );
        assert_eq!(
            kinds(get, &[], &gradient, Direction::Forward)[0],
            "Math(Sin)"
        );
        // A tangent function only: the other way round.
        let tangent = [("sin", false, true)];
        assert_eq!(
            kinds(get, &[], &tangent, Direction::Forward)[0],
            "custom sin"
        );
        assert_eq!(
            kinds(get, &[], &tangent, Direction::Reverse)[0],
            "Math(Sin)"
        );
        // It beats a body too, and an external declaration.
        let both = [("helper", true, true), ("mystery", true, true)];
        let k = kinds(get, &[], &both, Direction::Forward);
        assert_eq!(
            (k[6].as_str(), k[7].as_str()),
            ("custom mystery", "custom helper")
        );
    });
}

#[test]
fn the_users_declarations_beat_the_mpi_table() {
    with_module(|get| {
        let k = kinds(
            get,
            &["MPI_Barrier"],
            &[("MPI_Send", true, false)],
            Direction::Reverse,
        );
        assert_eq!(
            (k[12].as_str(), k[14].as_str()),
            ("custom MPI_Send", "UserInactive")
        );
        assert_eq!(kinds(get, &[], &[], Direction::Forward)[12], "Mpi(Send)");
    });
}

#[test]
fn user_inactive_beats_everything_the_user_or_tables_say() {
    with_module(|get| {
        let k = kinds(
            get,
            &["helper", "sin", "malloc"],
            &[("helper", true, true)],
            Direction::Reverse,
        );
        assert_eq!(k[0], "UserInactive");
        assert_eq!(k[1], "UserInactive");
        assert_eq!(k[7], "UserInactive");
    });
}

#[test]
fn memory_functions_know_their_size_and_integer_arguments() {
    let m = |n| MemFn::from_callee(n).expect("a memory function");
    assert_eq!(m("malloc").size_argument(), Some(0));
    assert_eq!(m("aligned_alloc").size_argument(), Some(1));
    assert_eq!(m("memalign").size_argument(), Some(1));
    assert_eq!(m("realloc").size_argument(), Some(1));
    assert_eq!(m("_ZnwmSt11align_val_t").size_argument(), Some(0));
    assert_eq!(m("calloc").size_argument(), None);
    assert_eq!(m("aligned_alloc").integer_arguments(), &[0, 1]);
    assert_eq!(m("llvm.memset.p0.i64").integer_arguments(), &[1, 2]);
    assert!(m("_ZdlPvm").frees() && !m("_ZdlPvm").allocates());
    assert!(m("realloc").frees() && m("realloc").allocates());
    assert!(m("llvm.memmove.p0.p0.i64").transfers());
    // posix_memalign writes its block through argument 0.
    let pm = m("posix_memalign");
    assert!(!pm.allocates() && !pm.frees());
    assert_eq!(
        (pm.allocates_through(), pm.size_argument()),
        (Some(0), Some(2))
    );
    assert_eq!(pm.integer_arguments(), &[1, 2]);
    assert_eq!(m("malloc").allocates_through(), None);
}

#[test]
fn every_operator_new_and_delete_and_how_blocks_are_released() {
    let m = |n| MemFn::from_callee(n);
    for new in [
        "_Znwm",
        "_Znam",
        "_ZnwmSt11align_val_t",
        "_ZnamSt11align_val_t",
        "_ZnwmRKSt9nothrow_t",
        "_ZnamRKSt9nothrow_t",
        "_ZnwmSt11align_val_tRKSt9nothrow_t",
        "_ZnamSt11align_val_tRKSt9nothrow_t",
    ] {
        assert_eq!(m(new), Some(MemFn::New), "{new}");
        let (delete, aligned) = MemFn::release_of(new).expect("released");
        assert_eq!(m(delete), Some(MemFn::Delete), "{new}: {delete}");
        assert_eq!(aligned, new.contains("align_val_t"), "{new}");
        assert_eq!(delete.starts_with("_Zda"), new.starts_with("_Zna"), "{new}");
    }
    for delete in [
        "_ZdlPv",
        "_ZdaPv",
        "_ZdlPvm",
        "_ZdaPvm",
        "_ZdlPvSt11align_val_t",
        "_ZdaPvSt11align_val_t",
        "_ZdlPvmSt11align_val_t",
        "_ZdaPvmSt11align_val_t",
        "_ZdlPvRKSt9nothrow_t",
        "_ZdaPvRKSt9nothrow_t",
        "_ZdlPvSt11align_val_tRKSt9nothrow_t",
        "_ZdaPvSt11align_val_tRKSt9nothrow_t",
    ] {
        assert_eq!(m(delete), Some(MemFn::Delete), "{delete}");
        assert_eq!(MemFn::release_of(delete), None);
    }
    for c in [
        "malloc",
        "calloc",
        "aligned_alloc",
        "memalign",
        "valloc",
        "posix_memalign",
    ] {
        assert_eq!(MemFn::release_of(c), Some(("free", false)), "{c}");
    }
    assert_eq!(MemFn::release_of("realloc"), None);
}
