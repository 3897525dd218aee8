//! Attributes LLVM's verifier refuses together: adding one removes the
//! others (`enz_ir::incompatible_attributes`), so a call rustc marks
//! `noinline` that enz-rs inlines, or a registered `alwaysinline` function
//! enz-rs keeps out of line, still verifies.

use enz_ir::{named_function, verify_module, Module};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;

const IR: &str = r#"
define double @f(double %x) {
  %y = call double @g(double %x) #0
  ret double %y
}

define double @g(double %y) #1 {
  %z = fneg double %y
  ret double %z
}

attributes #0 = { noinline }
attributes #1 = { alwaysinline }
"#;

#[test]
fn inlining_attributes_replace_each_other() {
    let ctx = Context::create();
    let buf = MemoryBuffer::create_from_memory_range_copy(IR.as_bytes(), "t");
    let mut module = ctx.create_module_from_ir(buf).expect("parses");
    Module::scope(&mut module, |m| {
        verify_module(m).expect("the input verifies");
        let f = named_function(m, "f").expect("@f");
        let call = f.entry_block().instructions()[0];
        assert!(call.has_call_site_attribute("noinline"));
        call.add_call_site_attribute("alwaysinline");
        assert!(call.has_call_site_attribute("alwaysinline"));
        assert!(!call.has_call_site_attribute("noinline"));
        let g = named_function(m, "g").expect("@g");
        g.add_function_attribute("noinline");
        assert!(g.has_enum_attribute("noinline"));
        assert!(!g.has_enum_attribute("alwaysinline"));
        verify_module(m).expect("no incompatible attributes are left");
    });
}
