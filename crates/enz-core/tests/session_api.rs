//! The AD crate used as a front end other than the Enzyme C API would use
//! it: open a session on a module, ask for the canonical split and forward
//! derivatives of a function (activities from its type alone, as for an
//! indirect call), build them, commit, and check that what was built has
//! exactly the signatures the requests promised and that the module
//! verifies.

use enz_core::inkwell::context::Context;
use enz_core::inkwell::memory_buffer::MemoryBuffer;
use enz_core::{Kind, Mode, Request, Session, SessionOptions, UserFacts};
use enz_ir::{verify_module, Function, Module};

const IR: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define double @f(double %x, ptr %p, i32 %n) {
  %v = load double, ptr %p
  %m = fmul double %x, %v
  %s = call double @llvm.sin.f64(double %m)
  store double %s, ptr %p
  ret double %m
}

declare double @llvm.sin.f64(double)
"#;

#[test]
fn canonical_derivatives_have_the_promised_signatures() {
    let ctx = Context::create();
    let buf = MemoryBuffer::create_from_memory_range_copy(IR.as_bytes(), "test");
    let module = ctx.create_module_from_ir(buf).expect("test IR parses");
    let f = enz_ir::named_function(enz_ir::Module::of(&module), "f").expect("@f");
    let opts = SessionOptions {
        preopt: true,
        inline: true,
        cache_budget: enz_core::CacheBudget::Off,
        loop_mode: enz_core::LoopMode::Reverse,
        gpu_thread_cache: enz_core::DEFAULT_GPU_THREAD_CACHE,
        explain: false,
    };
    let mut session = Session::new(opts, UserFacts::default());

    let split = Request::canonical(f, Mode::Split);
    let fns = session.split(&split).expect("declared");
    let forward = Request::canonical(f, Mode::Forward { width: 2 });
    let fwd = session.forward(&forward).expect("declared");
    let gradient = Request::canonical(f, Mode::Combined);
    let diffe = session.gradient(&gradient).expect("synthesised");
    session.synthesize_pending().expect("synthesised");
    assert!(session.tape_size(&split).is_some());
    session.commit();

    let ty = |g: Function| g.function_type().to_string();
    assert_eq!(
        ty(fns.forward),
        split.signature(Kind::Augmented).function_type().to_string()
    );
    assert_eq!(
        ty(fns.reverse),
        split.signature(Kind::Reverse).function_type().to_string()
    );
    assert_eq!(
        ty(fwd),
        forward
            .signature(Kind::Forward { width: 2 })
            .function_type()
            .to_string()
    );
    assert_eq!(
        ty(diffe),
        gradient
            .signature(Kind::Gradient)
            .function_type()
            .to_string()
    );
    // The rule written in signature.rs, spelled out once.
    assert_eq!(
        ty(fns.reverse),
        "{ double } (double, ptr, ptr, i32, double, ptr)"
    );
    assert!(!fns.reverse.blocks().is_empty() && !fwd.blocks().is_empty());
    verify_module(Module::of(&module)).expect("the module verifies");
}
