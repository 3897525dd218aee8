//! Irreducible control flow: found by `Cfg::irreducible_edge`, refused by
//! `LoopNest::new` (a cycle entered at two blocks is no loop to reverse).

use super::*;
use crate::analysis::loops::LoopNest;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;

const IR: &str = r#"
define void @irreducible(i1 %c, i1 %d) {
entry:
  br i1 %c, label %a, label %b
a:
  br i1 %d, label %b, label %out
b:
  br label %a
out:
  ret void
}

define void @natural(i1 %c) {
entry:
  br label %head
head:
  br i1 %c, label %body, label %out
body:
  br label %head
out:
  ret void
}
"#;

fn with_function(name: &str, check: impl for<'m> FnOnce(Function<'m>)) {
    let ctx = Context::create();
    let buf = MemoryBuffer::create_from_memory_range_copy(IR.as_bytes(), "test");
    let module = ctx.create_module_from_ir(buf).expect("test IR parses");
    let f = crate::ir::named_function(crate::ir::Module::of(&module), name).expect("function");
    check(f);
}

#[test]
fn a_cycle_entered_at_two_blocks_is_refused() {
    with_function("irreducible", |f| {
        let cfg = Cfg::new(f);
        assert!(cfg.irreducible_edge().is_some());
        let Err(err) = LoopNest::new(&cfg) else {
            panic!("an irreducible cycle was taken for loops")
        };
        assert!(err.reason.contains("irreducible"), "{}", err.reason);
    });
}

#[test]
fn a_natural_loop_is_reducible() {
    with_function("natural", |f| {
        let cfg = Cfg::new(f);
        assert!(cfg.irreducible_edge().is_none());
        assert!(LoopNest::new(&cfg).is_ok());
    });
}
