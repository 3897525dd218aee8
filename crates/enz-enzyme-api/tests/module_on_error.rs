//! The library's failure model: when differentiation fails, the module the
//! caller passed is left exactly as it was (printed before and after,
//! compared), even when other call sites of the same module succeeded;
//! when it succeeds, trying on a copy first changes nothing in the output.

use enz_enzyme_api::inkwell::context::Context;
use enz_enzyme_api::inkwell::memory_buffer::MemoryBuffer;
use enz_enzyme_api::{differentiate_module, Module, Options};

const HEADER: &str = r#"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

declare double @__enzyme_autodiff(ptr, ...)
declare double @mystery(double)

define double @square(double %x) {
  %y = fmul double %x, %x
  ret double %y
}

define double @uses_mystery(double %x) {
  %y = call double @mystery(double %x)
  %z = fmul double %y, %x
  ret double %z
}
"#;

/// Parses `body` after [`HEADER`], differentiates it with `opts`, and
/// returns the module's text before and after, and whether it succeeded.
fn run(body: &str, opts: &Options) -> (String, String, bool) {
    let ctx = Context::create();
    let text = format!("{HEADER}{body}");
    let buf = MemoryBuffer::create_from_memory_range_copy(text.as_bytes(), "test");
    let module = ctx.create_module_from_ir(buf).expect("test IR parses");
    module.verify().expect("test IR verifies");
    let before = module.print_to_string().to_string();
    let ok = differentiate_module(Module::of(&module), opts).is_ok();
    let after = module.print_to_string().to_string();
    (before, after, ok)
}

const GOOD_AND_BAD: &str = r#"
define double @grad_square(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @square, double %x)
  ret double %d
}

define double @grad_mystery(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @uses_mystery, double %x)
  ret double %d
}
"#;

#[test]
fn a_failing_call_site_leaves_the_module_unchanged() {
    let (before, after, ok) = run(GOOD_AND_BAD, &Options::default());
    assert!(!ok, "an external function without a rule must be refused");
    assert!(after.contains("@__enzyme_autodiff(ptr @square"));
    assert_eq!(
        before, after,
        "the module changed although differentiation failed"
    );
}

#[test]
fn a_failure_in_a_nested_derivative_leaves_the_module_unchanged() {
    // The inner site is fine and is lowered first; the outer one fails.
    let nested = r#"
define double @inner(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @square, double %x)
  %m = call double @mystery(double %d)
  ret double %m
}

define double @outer(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @inner, double %x)
  ret double %d
}
"#;
    let (before, after, ok) = run(nested, &Options::default());
    assert!(!ok);
    assert_eq!(before, after);
}

#[test]
fn without_the_copy_a_failure_may_change_the_module() {
    // The documented alternative for callers that discard the module: the
    // good site was already rewritten when the bad one failed. (This shows
    // the test above can fail.)
    let opts = Options {
        keep_module_on_error: false,
        cache_budget: enz_enzyme_api::CacheBudget::Off,
        loop_mode: enz_enzyme_api::LoopMode::Reverse,
        gpu_thread_cache: enz_enzyme_api::DEFAULT_GPU_THREAD_CACHE,
        ..Options::default()
    };
    let (before, after, ok) = run(GOOD_AND_BAD, &opts);
    assert!(!ok);
    assert_ne!(before, after);
}

#[test]
fn trying_on_a_copy_first_does_not_change_a_successful_result() {
    let good = r#"
define double @grad_square(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @square, double %x)
  ret double %d
}
"#;
    let direct = Options {
        keep_module_on_error: false,
        cache_budget: enz_enzyme_api::CacheBudget::Off,
        loop_mode: enz_enzyme_api::LoopMode::Reverse,
        gpu_thread_cache: enz_enzyme_api::DEFAULT_GPU_THREAD_CACHE,
        ..Options::default()
    };
    let (_, with_copy, ok1) = run(good, &Options::default());
    let (_, without, ok2) = run(good, &direct);
    assert!(ok1 && ok2);
    assert!(!with_copy.contains("__enzyme_autodiff"));
    assert_eq!(with_copy, without);
}
