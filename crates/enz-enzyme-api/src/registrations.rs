//! The one place that reads what the user declared through the API's
//! registration globals and function attributes, and removes those
//! globals once read (no `__enzyme_*` symbol is left in the output):
//!
//! | global (name contains)          | initializer                          |
//! |---------------------------------|--------------------------------------|
//! | `__enzyme_register_gradient`    | `{f, augmented, reverse}`            |
//! | `__enzyme_register_derivative`  | `{f, tangent}`                       |
//! | `__enzyme_register_global`      | `{&g, &shadow_of_g}`                 |
//! | `__enzyme_inactivefn`           | functions with no derivative         |
//! | `__enzyme_inactivenoblockfn`    | the same (Enzyme's `enzyme_inactive_noblock`) |
//! | `__enzyme_function_like`        | `{f, "libm or allocator name"}`      |
//! | `__enzyme_allocation_like`      | `{alloc, size arg, "-1,k…", dealloc}` |
//! | `__enzyme_nofree`               | functions that free nothing (a hint) |
//! | `__enzyme_inactive_global`      | `&g`, or an array of such addresses  |
//!
//! the `enzyme_inactive` function attribute, and the `enzyme_*` source
//! annotations (`annotations.rs`).

use crate::ir::{add_internal_function, Builder, Function, Global, LLVMOpcode, Module, Ty};
use crate::ir::{functions, globals, Value};
use enz_core::{function_like_spelling, AllocationLike, CustomRules, Diagnostic, UserFacts};
use std::collections::{HashMap, HashSet};

/// Name fragments of the registration globals.
const REGISTRATIONS: &[&str] = &[
    "__enzyme_register_gradient",
    "__enzyme_register_derivative",
    "__enzyme_register_global",
    "__enzyme_inactivefn",
    "__enzyme_inactivenoblockfn",
    "__enzyme_function_like",
    "__enzyme_allocation_like",
    "__enzyme_nofree",
    "__enzyme_inactive_global",
];

/// Whether a global is a registration the user wrote for enz-rs.
fn is_registration(name: &str) -> bool {
    REGISTRATIONS.iter().any(|r| name.contains(r))
}

/// What the user declared through the API's globals, attributes and
/// annotations (`annotations.rs`).
pub(crate) fn user_facts<'m>(m: Module<'m>) -> Result<UserFacts<'m>, Vec<Diagnostic>> {
    let mut diags = Vec::new();
    let mut custom = custom_rules(m);
    let mut inactive = inactive_functions(m);
    let mut inactive_global_set = inactive_globals(m);
    let mut like_list = functions_like(m, &mut diags);
    let mut global_shadows = user_global_shadows(m);
    // The paper's form gives the two halves of a custom gradient apart:
    // enzyme("augment", aug) and enzyme("gradient", rev).
    let mut halves: Vec<(Function, Option<Function>, Option<Function>)> = Vec::new();
    for a in crate::annotations::enzyme_annotations(m) {
        let half = match (a.name.as_str(), a.function(), a.args.len()) {
            ("enzyme_augment", Some(f), 1) => Some((f, a.function_arg(0), None)),
            ("enzyme_gradient", Some(f), 1) => Some((f, None, a.function_arg(0))),
            _ => None,
        };
        match half {
            Some((f, aug, rev)) => match halves.iter_mut().find(|h| h.0 == f) {
                Some(h) => {
                    h.1 = h.1.or(aug);
                    h.2 = h.2.or(rev);
                }
                None => halves.push((f, aug, rev)),
            },
            None => annotated(
                a,
                &mut custom,
                &mut inactive,
                &mut inactive_global_set,
                &mut global_shadows,
                &mut like_list,
                &mut diags,
            ),
        }
    }
    for (f, aug, rev) in halves {
        match (aug, rev) {
            (Some(aug), Some(rev)) => custom.entry(f).or_default().gradient = Some((aug, rev)),
            _ => diags.push(
                Diagnostic::new(format!(
                    "`{}` has only half of a custom gradient: enzyme(\"augment\", aug_f) and enzyme(\"gradient\", rev_f) go together",
                    f.name()
                ))
                .help("give both, or use ENZYME_GRADIENT(aug_f, rev_f)"),
            ),
        }
    }
    for (f, like) in like_list {
        custom.entry(f).or_default().like = Some(like);
    }
    for a in allocations_like(m, &mut diags) {
        custom.entry(a.allocator).or_default().allocation = Some(a.like);
        let dealloc = custom.entry(a.like.deallocator).or_default();
        dealloc.like = dealloc.like.or(Some("free"));
    }
    crate::rust_runtime::add_allocation_facts(m, &mut custom);
    if !diags.is_empty() {
        return Err(diags);
    }
    Ok(UserFacts {
        inactive,
        custom,
        global_shadows,
        inactive_globals: inactive_global_set,
    })
}

/// The user's facts for differentiating `m` (or inspecting how it would
/// be differentiated), once the module has the form synthesis sees:
/// Rust's `__rust_realloc` lowered (`rust_runtime.rs`), precompiled `Vec`
/// growth given a body (`rust_vec.rs`).
pub(crate) fn facts_for_synthesis<'m>(m: Module<'m>) -> Result<UserFacts<'m>, Vec<Diagnostic>> {
    crate::rust_vec::lower_vec_growth(m);
    crate::rust_runtime::lower_realloc(m);
    user_facts(m)
}

/// What one `enzyme_*` annotation declares, added to the facts; a
/// malformed one is a diagnostic.
fn annotated<'m>(
    a: crate::annotations::Annotation<'m>,
    custom: &mut HashMap<Function<'m>, CustomRules<'m>>,
    inactive: &mut HashSet<Function<'m>>,
    inactive_globals: &mut HashSet<Global<'m>>,
    global_shadows: &mut HashMap<Global<'m>, Global<'m>>,
    like: &mut Vec<(Function<'m>, &'static str)>,
    diags: &mut Vec<Diagnostic>,
) {
    let mut bad = |why: &str, help: &str| {
        diags.push(
            Diagnostic::new(format!("the annotation `{}`: {why}", a.name)).help(help.to_string()),
        )
    };
    match (a.name.as_str(), a.function()) {
        ("enzyme_inactive" | "enzyme_inactivefn" | "enzyme_inactivenoblockfn", Some(f)) => {
            inactive.insert(f);
        }
        ("enzyme_inactive", None) => match a.global() {
            Some(g) => {
                inactive_globals.insert(g);
            }
            None => bad("it marks neither a function nor a global", "put ENZYME_INACTIVE on a function or a global variable"),
        },
        ("enzyme_shadow", None) => match (a.global(), a.global_arg(0)) {
            (Some(g), Some(shadow)) if g != shadow => {
                global_shadows.insert(g, shadow);
            }
            _ => bad(
                "it needs a global variable and another global variable, its shadow",
                "write __attribute__((enzyme_shadow(d_g))) on the global g, d_g a global of the same type",
            ),
        },
        ("enzyme_nofree", Some(_)) => {}
        ("enzyme_function_like", Some(f)) => match a.string_arg(0) {
            Some(name) => match function_like_spelling(&name) {
                Some(s) => like.push((f, s)),
                None => bad(
                    &format!("`{}` is declared like `{name}`, a function enz-rs has no derivative rule for", f.name()),
                    "name a libm function with a rule (sin, log1p, pow, ...) or malloc/free",
                ),
            },
            None => bad("it needs the name of a library function", "write ENZYME_FUNCTION_LIKE(\"log1p\")"),
        },
        ("enzyme_gradient", Some(f)) => match (a.function_arg(0), a.function_arg(1)) {
            (Some(aug), Some(rev)) => custom.entry(f).or_default().gradient = Some((aug, rev)),
            _ => bad("it needs the augmented forward and the reverse function", "write ENZYME_GRADIENT(aug_f, rev_f)"),
        },
        ("enzyme_derivative", Some(f)) => match a.function_arg(0) {
            Some(fwd) => custom.entry(f).or_default().forward = Some(fwd),
            None => bad("it needs the tangent function", "write ENZYME_DERIVATIVE(fwd_f)"),
        },
        (name, _) => bad(
            &format!("enz-rs knows no `{name}` annotation, or it is not on a function"),
            "the annotations are enzyme_inactive, enzyme_function_like, enzyme_nofree, enzyme_gradient, enzyme_derivative (enzyme.h's ENZYME_* macros) and enzyme_shadow",
        ),
    }
}

/// Keeps the user's registrations in force until enz-rs runs later in the
/// pipeline (the pass plugin's pipeline-start pass, before the compiler's
/// inliner): every function registered for something (a custom
/// derivative, a library function it behaves like, an allocator, an
/// inactive mark) is kept from being inlined, and every registration
/// global is listed in `llvm.compiler.used`, so that link-time
/// dead-stripping keeps it for the link where enz-rs runs (full LTO drops
/// unreferenced globals before any pass sees the merged module). Returns
/// how many functions it marked.
pub fn keep_registrations_for_later(m: Module<'_>) -> usize {
    let regs: Vec<crate::ir::Value> = globals(m)
        .into_iter()
        .filter(|g| is_registration(&g.name()) && !g.is_declaration())
        .map(|g| g.as_value())
        .collect();
    if !regs.is_empty() {
        crate::ir::add_to_compiler_used(m, &regs);
    }
    let Ok(facts) = user_facts(m) else {
        // Malformed registrations are reported when differentiating.
        return 0;
    };
    let mut marked = 0;
    for f in functions(m) {
        let registered = facts.custom.contains_key(&f) || facts.inactive.contains(&f);
        if registered && !f.is_declaration() && !f.has_enum_attribute("noinline") {
            f.add_function_attribute("noinline");
            marked += 1;
        }
    }
    marked + regs.len()
}

/// Functions the user registered something for (a custom derivative, a
/// library function they behave like, an allocator) that nothing calls
/// directly: most often the compiler inlined them before enz-rs ran (clang
/// -O1 and above inlines small functions), and the registration then has
/// no effect on the derivatives. One message per function.
pub(crate) fn uncalled_registrations<'m>(m: Module<'m>, facts: &UserFacts<'m>) -> Vec<String> {
    let mut out = Vec::new();
    for f in functions(m) {
        let Some(rules) = facts.custom.get(&f) else {
            continue;
        };
        // Deallocators (classified like `free`) may well go uncalled.
        let registered = rules.gradient.is_some()
            || rules.forward.is_some()
            || rules.like.is_some_and(|l| l != "free")
            || rules.allocation.is_some();
        // Called, or differentiated itself (an entry point's argument).
        let called = f.users().iter().any(|u| {
            u.as_inst().is_some_and(|i| {
                i.called_function_of_call_or_invoke().is_some_and(|c| {
                    c == f || enz_core::EntryPoint::from_callee(&c.name()).is_some()
                })
            })
        });
        if registered && !called {
            out.push(format!(
                "`{}` has a registered derivative or behaviour, but nothing calls it: if the compiler inlined it before enz-rs ran, the registration has no effect (mark it __attribute__((noinline)))",
                f.name()
            ));
        }
    }
    out
}

/// `void *__enzyme_function_like_NAME[2] = {(void *)f, (void *)"log1p"};`:
/// `f` is differentiated as if it were the library function named (its
/// calls stay calls to `f`). A name enz-rs has no rule for, or a
/// malformed initializer, is a diagnostic.
fn functions_like<'m>(
    m: Module<'m>,
    diags: &mut Vec<Diagnostic>,
) -> Vec<(Function<'m>, &'static str)> {
    let mut out = Vec::new();
    for gv in globals(m) {
        let gname = gv.name();
        if !gname.contains("__enzyme_function_like") {
            continue;
        }
        let Some(init) = gv.initializer() else {
            continue;
        };
        let f = (init.num_operands() >= 2)
            .then(|| init.operand(0).strip_to_function())
            .flatten();
        let like = (init.num_operands() >= 2)
            .then(|| init.operand(1).c_string_pointee())
            .flatten();
        let (Some(f), Some(like)) = (f, like) else {
            diags.push(
                Diagnostic::new(format!(
                    "the registration `{gname}` must hold a function and the name of the library function it behaves like"
                ))
                .help("write e.g. void *__enzyme_function_like_f[2] = {(void *)my_log1p, (void *)\"log1p\"};"),
            );
            continue;
        };
        match function_like_spelling(&like) {
            Some(s) => out.push((f, s)),
            None => diags.push(
                Diagnostic::new(format!(
                    "`{gname}` registers `{}` as behaving like `{like}`, a function enz-rs has no derivative rule for",
                    f.name()
                ))
                .help("name a libm function with a rule (sin, log1p, pow, ...) or malloc/free; or register a custom gradient with __enzyme_register_gradient"),
            ),
        }
    }
    out
}

/// Globals the user declared inactive: `void *__enzyme_inactive_global =
/// &g;` or `void *__enzyme_inactive_global_x[2] = {&g, &h};` (the memory
/// of each holds no derivative; what differentiated code stores there is
/// dropped).
fn inactive_globals<'m>(m: Module<'m>) -> HashSet<Global<'m>> {
    let strip = |mut v: Value<'m>| {
        while !v.is_global_variable() && !v.is_instruction() && v.num_operands() > 0 {
            v = v.operand(0);
        }
        v.as_global()
    };
    let mut out = HashSet::new();
    for gv in globals(m) {
        if !gv.name().contains("__enzyme_inactive_global") {
            continue;
        }
        let Some(init) = gv.initializer() else {
            continue;
        };
        if init.ty().kind() == crate::ir::TyKind::Pointer {
            out.extend(strip(init));
        } else {
            out.extend((0..init.num_operands()).filter_map(|k| strip(init.operand(k))));
        }
    }
    out
}

/// One `__enzyme_allocation_like` registration.
struct Allocator<'m> {
    allocator: Function<'m>,
    like: AllocationLike<'m>,
}

/// `void *__enzyme_allocation_like_x[4] = {(void *)my_alloc, (void *)K,
/// (void *)"-1,i,j", (void *)my_free};`: `my_alloc` allocates the number
/// of bytes its argument `K` holds, and `my_free` frees it, called with
/// the pointer (`-1`, first) and the allocation call's arguments `i`,
/// `j`, ... A malformed registration is a diagnostic.
fn allocations_like<'m>(m: Module<'m>, diags: &mut Vec<Diagnostic>) -> Vec<Allocator<'m>> {
    let mut out = Vec::new();
    for gv in globals(m) {
        let gname = gv.name();
        if !gname.contains("__enzyme_allocation_like") {
            continue;
        }
        let Some(init) = gv.initializer() else {
            continue;
        };
        match allocation_like(init) {
            Ok(a) => out.push(a),
            Err(why) => diags.push(
                Diagnostic::new(format!("the registration `{gname}` is malformed: {why}"))
                    .help("write void *__enzyme_allocation_like_f[4] = {(void *)my_alloc, (void *)SIZE_ARGUMENT_INDEX, (void *)\"-1\", (void *)my_free};"),
            ),
        }
    }
    out
}

/// A deallocator taking the pointer first, as the memory-function table
/// treats deallocators: `dealloc` itself when it does, else an internal
/// thunk taking the pointer first and calling `dealloc` with the
/// arguments in its order, every direct call of `dealloc` in the module
/// rewritten to call the thunk. `indices` (with `-1` for the pointer) is
/// returned in the thunk's order.
fn pointer_first<'m>(dealloc: Function<'m>, indices: Vec<i32>) -> (Function<'m>, Vec<i32>) {
    let Some(p) = indices.iter().position(|&j| j == -1) else {
        return (dealloc, indices);
    };
    if p == 0 {
        return (dealloc, indices);
    }
    let n = indices.len();
    // perm[j]: the deallocator's argument the thunk takes at position j.
    let perm: Vec<usize> = std::iter::once(p)
        .chain((0..n).filter(|&k| k != p))
        .collect();
    let fty = dealloc.function_type();
    let tys = fty.param_types();
    let thunk_ty = Ty::function(
        fty.return_type(),
        &perm.iter().map(|&k| tys[k]).collect::<Vec<_>>(),
        false,
    );
    let module = dealloc.global_parent();
    let thunk = add_internal_function(
        module,
        &format!("enz.pointer_first.{}", dealloc.name()),
        thunk_ty,
    );
    let b = Builder::new(dealloc.context());
    b.position_at_end(thunk.append_block("entry"));
    let tps = thunk.params();
    let mut args = vec![tps[0]; n];
    for (j, &k) in perm.iter().enumerate() {
        args[k] = tps[j];
    }
    let r = b.call(fty, dealloc, &args);
    b.ret((!fty.return_type().is_void()).then(|| r.as_value()));
    for u in dealloc.users() {
        let Some(call) = u.as_inst() else { continue };
        if call.opcode() != Some(LLVMOpcode::LLVMCall)
            || call.called_function() != Some(dealloc)
            || call.parent_block().parent() == thunk
        {
            continue;
        }
        b.position_before(call);
        let args: Vec<Value> = perm.iter().map(|&k| call.operand(k as u32)).collect();
        let new = b.call(thunk_ty, thunk, &args);
        if !fty.return_type().is_void() {
            call.replace_all_uses_with(new.as_value());
        }
        call.erase();
    }
    (thunk, perm.iter().map(|&k| indices[k]).collect())
}

/// Reads one `__enzyme_allocation_like` initializer.
fn allocation_like<'m>(init: Value<'m>) -> Result<Allocator<'m>, String> {
    if init.num_operands() != 4 {
        return Err(format!(
            "it has {} elements; it needs 4 (allocator, size argument, deallocator arguments, deallocator)",
            init.num_operands()
        ));
    }
    let allocator = init
        .operand(0)
        .strip_to_function()
        .ok_or("its first element is not a function")?;
    let deallocator = init
        .operand(3)
        .strip_to_function()
        .ok_or("its fourth element is not a function")?;
    let k = init.operand(1);
    let size_arg = if k.is_undef_or_null() {
        0
    } else if k.num_operands() == 1 {
        k.operand(0).const_int_sext().unwrap_or(-1)
    } else {
        -1
    };
    let params = allocator.params();
    if size_arg < 0
        || !params
            .get(size_arg as usize)
            .is_some_and(|p| p.ty().is_integer())
    {
        return Err(format!(
            "its second element must be the index of an integer parameter of `{}`",
            allocator.name()
        ));
    }
    let spec = init
        .operand(2)
        .c_string_pointee()
        .ok_or("its third element is not a string")?;
    let indices: Vec<i32> = spec
        .split(',')
        .map(|t| t.trim().parse::<i32>())
        .collect::<Result<_, _>>()
        .map_err(|_| {
            format!("its third element `{spec}` is not a comma-separated list of argument indices")
        })?;
    if indices.iter().filter(|&&j| j == -1).count() != 1 || indices.len() > 4 {
        return Err(format!(
            "its third element `{spec}` must list -1 (where the deallocator takes the pointer) exactly once, and at most 4 arguments"
        ));
    }
    if indices
        .iter()
        .filter(|&&j| j != -1)
        .any(|&j| j < 0 || j as usize >= params.len())
    {
        return Err(format!(
            "its third element `{spec}` names an argument `{}` does not have",
            allocator.name()
        ));
    }
    if deallocator.params().len() != indices.len() {
        return Err(format!(
            "`{}` takes {} parameter(s), but the third element lists {}",
            deallocator.name(),
            deallocator.params().len(),
            indices.len()
        ));
    }
    let (deallocator, indices) = pointer_first(deallocator, indices);
    let mut deallocator_args = [0i32; 4];
    deallocator_args[..indices.len()].copy_from_slice(&indices);
    Ok(Allocator {
        allocator,
        like: AllocationLike {
            size_arg: size_arg as u32,
            deallocator,
            deallocator_args,
            deallocator_argc: indices.len() as u8,
        },
    })
}

/// Deletes the registration globals once read: nothing of the API is
/// left in the output. One listed in `llvm.used` (`__attribute__((used))`)
/// is taken out of the list first; one something else still uses (other
/// than its own initializer) stays.
pub(crate) fn remove<'m>(m: Module<'m>) {
    let regs: Vec<Global> = globals(m)
        .into_iter()
        .filter(|g| is_registration(&g.name()) && !g.is_declaration())
        .collect();
    let values: Vec<Value> = regs.iter().map(|g| g.as_value()).collect();
    crate::ir::remove_from_used_lists(m, &values);
    for gv in regs {
        if gv.drop_dead_constant_users() {
            gv.delete_global();
        }
    }
}

/// Custom derivatives: `__enzyme_register_gradient_NAME = {f, aug, rev}`
/// and `__enzyme_register_derivative_NAME = {f, fwd}` global arrays.
fn custom_rules<'m>(m: Module<'m>) -> HashMap<Function<'m>, CustomRules<'m>> {
    let mut out: HashMap<Function, CustomRules> = HashMap::new();
    for gv in globals(m) {
        let name = gv.name();
        if let Some(init) = gv.initializer() {
            let fns: Vec<Option<Function>> = (0..init.num_operands())
                .map(|k| init.operand(k).strip_to_function())
                .collect();
            if name.contains("__enzyme_register_gradient") {
                if let [Some(f), Some(aug), Some(rev)] = fns[..] {
                    out.entry(f).or_default().gradient = Some((aug, rev));
                }
            } else if name.contains("__enzyme_register_derivative") {
                if let [Some(f), Some(fwd)] = fns[..] {
                    out.entry(f).or_default().forward = Some(fwd);
                }
            }
        }
    }
    out
}

/// Shadows the user gives globals: `void *__enzyme_register_global_NAME[2]
/// = {&g, &d_g};` makes `g` active, its adjoints accumulating into `d_g`.
fn user_global_shadows<'m>(m: Module<'m>) -> HashMap<Global<'m>, Global<'m>> {
    let mut out = HashMap::new();
    for gv in globals(m) {
        let init = gv.initializer();
        if let Some(init) = init.filter(|_| gv.name().contains("__enzyme_register_global")) {
            let strip = |v: Value<'m>| {
                let mut v = v;
                while !v.is_global_variable() && v.num_operands() > 0 {
                    v = v.operand(0);
                }
                v.as_global()
            };
            if init.num_operands() == 2 {
                if let (Some(p), Some(s)) = (strip(init.operand(0)), strip(init.operand(1))) {
                    out.insert(p, s);
                }
            }
        }
    }
    out
}

/// Functions the user declared inactive: listed in a global array
/// `__enzyme_inactivefn` (or Enzyme's `__enzyme_inactivenoblockfn`), or
/// carrying the `enzyme_inactive` attribute.
fn inactive_functions<'m>(m: Module<'m>) -> HashSet<Function<'m>> {
    let mut out = HashSet::new();
    for gv in globals(m) {
        let name = gv.name();
        if name.contains("__enzyme_inactivefn") || name.contains("__enzyme_inactivenoblockfn") {
            if let Some(init) = gv.initializer() {
                let n = init.num_operands();
                for k in 0..n {
                    if let Some(f) = init.operand(k).strip_to_function() {
                        out.insert(f);
                    }
                }
                if let Some(f) = init.strip_to_function() {
                    out.insert(f);
                }
            }
        }
    }
    for f in functions(m) {
        if f.has_string_attribute("enzyme_inactive") {
            out.insert(f);
        }
    }
    out
}
