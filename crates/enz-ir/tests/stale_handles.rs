//! Handles that outlive what they name: erasing keeps the object alive,
//! detached, so a stale handle is caught (a "stale handle" panic) instead
//! of reaching freed memory; the module reads as if the object had been
//! deleted.

use enz_ir::{named_function, Builder, Module};
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use std::panic::{catch_unwind, AssertUnwindSafe};

const IR: &str = r#"
define double @f(double %x, ptr %p) !dbg !5 {
entry:
  %a = fmul double %x, %x
    #dbg_value(double %a, !9, !DIExpression(), !10)
  %b = fadd double %a, 1.0
  %c = call double @g(double %b)
  store double %c, ptr %p
  br label %next
next:
  ret double %x
dead:
  %d = fsub double %x, 2.0
  br label %next
}

define double @g(double %y) {
  %z = fneg double %y
  ret double %z
}

define double @h(double %y) {
  ret double %y
}

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!3, !4}
!keep = !{!12}
!0 = distinct !DICompileUnit(language: DW_LANG_C99, file: !1, emissionKind: FullDebug)
!1 = !DIFile(filename: "f.c", directory: "/")
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 7, !"Dwarf Version", i32 5}
!5 = distinct !DISubprogram(name: "f", scope: !1, file: !1, line: 1, type: !6, unit: !0, retainedNodes: !8, spFlags: DISPFlagDefinition)
!6 = !DISubroutineType(types: !7)
!7 = !{null}
!8 = !{}
!9 = !DILocalVariable(name: "a", scope: !5, file: !1, line: 2, type: !11)
!10 = !DILocation(line: 2, scope: !5)
!11 = !DIBasicType(name: "double", size: 64, encoding: DW_ATE_float)
!12 = !{ptr @h}
"#;

fn parse(ctx: &Context) -> inkwell::module::Module<'_> {
    let buf = MemoryBuffer::create_from_memory_range_copy(IR.as_bytes(), "t");
    ctx.create_module_from_ir(buf).expect("the test IR parses")
}

/// The message of the panic `f` raises (it must raise one).
fn panic_message(f: impl FnOnce()) -> String {
    let err = catch_unwind(AssertUnwindSafe(f)).expect_err("a stale handle is caught");
    err.downcast_ref::<String>()
        .cloned()
        .or_else(|| err.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

fn inst<'m>(m: Module<'m>, f: &str, name: &str) -> enz_ir::Inst<'m> {
    named_function(m, f)
        .expect("function")
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .find(|i| i.name() == name)
        .expect("instruction")
}

#[test]
fn stale_instruction_handle_is_caught() {
    let ctx = Context::create();
    let mut module = parse(&ctx);
    Module::scope(&mut module, |m| {
        let a = inst(m, "f", "a");
        let b = inst(m, "f", "b");
        // Still used by %c: erasing it would leave a dangling use.
        assert!(panic_message(|| b.erase()).contains("still used"));
        let c = inst(m, "f", "c");
        let store = c.as_value().users()[0].as_inst().expect("the store");
        store.erase();
        c.erase();
        b.erase();
        // Every copy of the handle is stale now, and caught.
        let stale = [
            panic_message(|| b.erase()),
            panic_message(|| {
                b.operand(0);
            }),
            panic_message(|| {
                b.parent_block();
            }),
            panic_message(|| Builder::new(m.context()).position_before(b)),
            panic_message(|| Builder::new(m.context()).position_after(c)),
            panic_message(|| a.replace_all_uses_with(b)),
            panic_message(|| b.replace_all_uses_with(a)),
            panic_message(|| {
                c.called_function();
            }),
            panic_message(|| Builder::new(m.context()).insert(c)),
        ];
        for msg in stale {
            assert!(msg.contains("stale handle"), "{msg}");
        }
        // What is not reached through the stale handle still works.
        assert_eq!(b.name(), "b");
        assert_eq!(b.block_of(), None);
        assert!(!b.has_uses());
        a.erase();
        enz_ir::verify_module(m).expect("the module verifies");
    });
}

#[test]
fn stale_block_and_function_handles_are_caught() {
    let ctx = Context::create();
    let mut module = parse(&ctx);
    Module::scope(&mut module, |m| {
        let f = named_function(m, "f").expect("@f");
        let dead = f.blocks()[2];
        let d = inst(m, "f", "d");
        dead.delete();
        assert!(panic_message(|| dead.delete()).contains("stale handle"));
        assert!(panic_message(|| {
            dead.parent();
        })
        .contains("stale handle"));
        assert!(
            panic_message(|| Builder::new(m.context()).position_at_end(dead))
                .contains("stale handle")
        );
        assert!(panic_message(|| d.erase()).contains("stale handle"));

        let g = named_function(m, "g").expect("@g");
        let z = inst(m, "g", "z");
        let y = g.params()[0];
        inst(m, "f", "c").set_called_value(named_function(m, "h").expect("@h").as_value());
        g.delete_function();
        assert!(named_function(m, "g").is_none(), "the name is free");
        for msg in [
            panic_message(|| g.delete_function()),
            panic_message(|| {
                g.global_parent();
            }),
            panic_message(|| {
                y.module();
            }),
            panic_message(|| {
                z.operand(0);
            }),
            panic_message(|| z.erase()),
            panic_message(|| Builder::new(m.context()).position_at_end(g.blocks()[0])),
        ] {
            assert!(msg.contains("stale handle"), "{msg}");
        }
        assert_eq!(g.name(), "g");
        enz_ir::verify_module(m).expect("the module verifies");
    });
}

/// Detaching reads, in the module, exactly as deleting does: the same
/// printed module as LLVM's own erasure (a debug record naming an erased
/// value, metadata naming a deleted function).
#[test]
fn erasing_by_detaching_prints_as_deleting() {
    let ctx = Context::create();
    let mut detached = parse(&ctx);
    Module::scope(&mut detached, |m| {
        let c = inst(m, "f", "c");
        c.as_value().users()[0].as_inst().expect("store").erase();
        c.erase();
        inst(m, "f", "b").erase();
        inst(m, "f", "a").erase();
        named_function(m, "f").expect("@f").blocks()[2].delete();
        named_function(m, "g").expect("@g").delete_function();
        named_function(m, "h").expect("@h").delete_function();
    });
    let deleted = parse(&ctx);
    let f = deleted.get_function("f").expect("@f");
    let entry = f.get_first_basic_block().expect("entry");
    let names = ["c", "b", "a"];
    let store = entry
        .get_instructions()
        .find(|i| i.get_opcode() == inkwell::values::InstructionOpcode::Store)
        .expect("store");
    store.erase_from_basic_block();
    for n in names {
        let i = entry
            .get_instructions()
            .find(|i| i.get_name().is_some_and(|s| s.to_str() == Ok(n)))
            .expect("instruction");
        i.erase_from_basic_block();
    }
    let dead = f.get_basic_blocks()[2];
    for i in dead
        .get_instructions()
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
    {
        i.erase_from_basic_block();
    }
    unsafe { dead.delete() }.expect("block deleted");
    unsafe { deleted.get_function("g").expect("@g").delete() };
    unsafe { deleted.get_function("h").expect("@h").delete() };
    assert_eq!(
        detached.print_to_string().to_string(),
        deleted.print_to_string().to_string()
    );
}

/// Derivatives calling each other are deleted one by one: a deleted
/// function still called is called as `poison` (LLVM's deletion left the
/// call dangling), and the module verifies.
#[test]
fn a_deleted_function_still_called_is_called_as_poison() {
    let ctx = Context::create();
    let mut module = parse(&ctx);
    Module::scope(&mut module, |m| {
        let g = named_function(m, "g").expect("@g");
        let f = named_function(m, "f").expect("@f");
        g.delete_function();
        let call = inst(m, "f", "c");
        assert!(call.called_value().is_some_and(|v| v.is_undef_or_poison()));
        enz_ir::verify_module(m).expect("the module verifies");
        f.delete_function();
        enz_ir::verify_module(m).expect("the module verifies");
        assert_eq!(enz_ir::functions(m).len(), 1);
    });
}
