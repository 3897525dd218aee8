//! How adjoints are accumulated in small OpenMP microtasks: every floating
//! load, by name, with the accumulation its shadow gets. Plain only where
//! no two threads of the team can touch one element.

use super::*;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;

const HEADER: &str = r#"
declare void @__kmpc_for_static_init_4(ptr, i32, i32, ptr, ptr, ptr, ptr, i32, i32)
declare void @__kmpc_for_static_fini(ptr, i32)
declare void @sink(ptr)
"#;

/// A worksharing loop over `[lb, ub]` of the thread's chunk, with `{body}`
/// at index `%i` (i64) and `{pre}` before the loop; `%x` and `%y` are the
/// shared arrays (loaded from the microtask's arguments).
fn microtask(pre: &str, body: &str) -> String {
    format!(
        r#"
define void @m(ptr %gtid, ptr %btid, ptr %px, ptr %py, ptr %pa) {{
entry:
  %lbp = alloca i32
  %ubp = alloca i32
  %st = alloca i32
  %last = alloca i32
  %id = load i32, ptr %gtid
  call void @__kmpc_for_static_init_4(ptr null, i32 %id, i32 34, ptr %last, ptr %lbp, ptr %ubp, ptr %st, i32 1, i32 1)
  %lb = load i32, ptr %lbp
  %ub = load i32, ptr %ubp
  %x = load ptr, ptr %px
  %y = load ptr, ptr %py
  %lb64 = sext i32 %lb to i64
  %ub64 = sext i32 %ub to i64
{pre}
  br label %loop
loop:
  %i = phi i64 [ %lb64, %entry ], [ %i1, %loop ]
{body}
  %i1 = add nsw i64 %i, 1
  %more = icmp slt i64 %i, %ub64
  br i1 %more, label %loop, label %done
done:
  call void @__kmpc_for_static_fini(ptr null, i32 %id)
  ret void
}}
"#
    )
}

fn classes(ir: &str) -> Vec<String> {
    let ir = format!("{HEADER}{ir}");
    let ctx = Context::create();
    let buf = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "test");
    let module = ctx.create_module_from_ir(buf).expect("test IR parses");
    let func = crate::ir::named_function(crate::ir::Module::of(&module), "m").expect("function");
    let accesses = TeamAccesses::of(func);
    func.blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| i.opcode() == Some(LLVMOpcode::LLVMLoad) && i.ty().carries_float())
        .map(|i| format!("{}: {:?}", i.name(), accesses.classify(i.operand(0))))
        .collect()
}

#[test]
fn the_worksharing_index_is_the_threads_own() {
    let ir = microtask(
        "",
        r#"
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p
  %q = getelementptr inbounds double, ptr %y, i64 %i
  store double %v, ptr %q"#,
    );
    assert_eq!(classes(&ir), ["v: Plain"]);
}

#[test]
fn neighbours_in_a_stencil_collide_at_chunk_edges_and_are_combined_when_only_read() {
    let ir = microtask(
        "",
        r#"
  %im = add nsw i64 %i, -1
  %p0 = getelementptr inbounds double, ptr %x, i64 %im
  %l = load double, ptr %p0
  %p1 = getelementptr inbounds double, ptr %x, i64 %i
  %c = load double, ptr %p1
  %q = getelementptr inbounds double, ptr %y, i64 %i
  %s = fadd double %l, %c
  store double %s, ptr %q"#,
    );
    assert_eq!(classes(&ir), ["l: Combine", "c: Combine"]);
    // Written too (an in-place update): atomic.
    let ir = microtask(
        "",
        r#"
  %im = add nsw i64 %i, -1
  %p0 = getelementptr inbounds double, ptr %x, i64 %im
  %l = load double, ptr %p0
  %p1 = getelementptr inbounds double, ptr %x, i64 %i
  store double %l, ptr %p1"#,
    );
    assert_eq!(classes(&ir), ["l: Atomic"]);
}

#[test]
fn an_unrolled_pair_stays_within_the_chunk_but_a_loop_from_the_index_does_not() {
    // A loop stepping by 2 reading x[i] and x[i + 1]: the thread's own.
    let ir = microtask(
        "",
        r#"
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %a = load double, ptr %p
  %i_1 = add nsw i64 %i, 1
  %p1 = getelementptr inbounds double, ptr %x, i64 %i_1
  %b = load double, ptr %p1"#,
    )
    .replace("%i1 = add nsw i64 %i, 1", "%i1 = add nsw i64 %i, 2");
    assert_eq!(classes(&ir), ["a: Plain", "b: Plain"]);
    // x[i + 1] with a step of 1 is the next iteration's element, perhaps
    // another thread's.
    let ir = microtask(
        "",
        r#"
  %i_1 = add nsw i64 %i, 1
  %p1 = getelementptr inbounds double, ptr %x, i64 %i_1
  %b = load double, ptr %p1"#,
    );
    assert_eq!(classes(&ir), ["b: Combine"]);
    // An inner loop k = i .. i + 2 reaches into the next iterations.
    let ir = r#"
define void @m(ptr %gtid, ptr %btid, ptr %px) {
entry:
  %lbp = alloca i32
  %ubp = alloca i32
  %st = alloca i32
  %last = alloca i32
  %id = load i32, ptr %gtid
  call void @__kmpc_for_static_init_4(ptr null, i32 %id, i32 34, ptr %last, ptr %lbp, ptr %ubp, ptr %st, i32 1, i32 1)
  %lb = load i32, ptr %lbp
  %ub = load i32, ptr %ubp
  %x = load ptr, ptr %px
  %lb64 = sext i32 %lb to i64
  %ub64 = sext i32 %ub to i64
  br label %outer
outer:
  %i = phi i64 [ %lb64, %entry ], [ %i1, %latch ]
  %end = add nsw i64 %i, 3
  br label %inner
inner:
  %k = phi i64 [ %i, %outer ], [ %k1, %inner ]
  %p = getelementptr inbounds double, ptr %x, i64 %k
  %v = load double, ptr %p
  %k1 = add nsw i64 %k, 1
  %in = icmp slt i64 %k1, %end
  br i1 %in, label %inner, label %latch
latch:
  %i1 = add nsw i64 %i, 1
  %more = icmp slt i64 %i, %ub64
  br i1 %more, label %outer, label %done
done:
  ret void
}
"#;
    assert_eq!(classes(ir), ["v: Combine"]);
}

#[test]
fn shared_scalars_written_pointers_and_escapes_are_atomic() {
    // A shared scalar every thread reads.
    let ir = microtask(
        "  %a = load double, ptr %pa",
        r#"
  %q = getelementptr inbounds double, ptr %y, i64 %i
  store double %a, ptr %q"#,
    );
    assert_eq!(classes(&ir), ["a: Atomic"]);
    // The array escapes to a call.
    let ir = microtask(
        "  call void @sink(ptr %x)",
        r#"
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p"#,
    );
    assert_eq!(classes(&ir), ["v: Atomic"]);
    // The pointer to the array is rewritten by the function: not the same
    // pointer in every thread.
    let ir = microtask(
        "  store ptr %y, ptr %px",
        r#"
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %v = load double, ptr %p"#,
    );
    assert_eq!(classes(&ir), ["v: Atomic"]);
}

#[test]
fn a_vectorised_loop_reads_pairs_of_elements() {
    // Step 2, <2 x double> at x[i]: the thread's own pair; at &x[i] + 16
    // (x[i + 2], the next iteration's): combined, as x is only read. An
    // overlap check comparing the addresses lets nothing escape.
    let ir = microtask(
        "  %ovl = icmp ult ptr %x, %y",
        r#"
  %p = getelementptr inbounds double, ptr %x, i64 %i
  %a = load <2 x double>, ptr %p
  %q = getelementptr i8, ptr %p, i64 16
  %b = load <2 x double>, ptr %q
  %r = getelementptr inbounds double, ptr %y, i64 %i
  %c = load <2 x double>, ptr %r"#,
    )
    .replace("%i1 = add nsw i64 %i, 1", "%i1 = add nsw i64 %i, 2");
    // x is read at [i, i+1] and [i+2, i+3]: not all the thread's own, so
    // combined; y only at [i, i+1]: the thread's own.
    assert_eq!(classes(&ir), ["a: Combine", "b: Combine", "c: Plain"]);
}
