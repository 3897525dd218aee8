//! `__enzyme_virtualreverse(vtable)`: the shadow of a C++ object's vtable
//! pointer, for shadow objects the user builds (`Derived d, dd;
//! *(void **)&dd = __enzyme_virtualreverse(*(void **)&d);`).
//!
//! A vtable's shadow is a copy of it with every virtual function replaced
//! by its shadow table (`enz-core/src/synth/function_shadow.rs`), so that
//! a virtual call in a derivative, which loads its callee's shadow from the
//! shadow object's vtable, reaches the method's derivatives. A constant
//! argument (a vtable address the compiler folded) becomes the matching
//! address in the shadow vtable; any other (a vtable pointer read at run
//! time) is mapped at run time by comparing it with every vtable of the
//! module (C++ `_ZTV` globals that hold functions), and is returned
//! unchanged when it is none of them.

use crate::ir::{globals, Builder, Inst, LLVMIntPredicate, Ty, Value};
use enz_core::{Diagnostic, Mode, Session};

/// The entry point's name.
pub(crate) const NAME: &str = "__enzyme_virtualreverse";

/// Whether `i` calls `__enzyme_virtualreverse`.
pub(crate) fn is_call(i: Inst<'_>) -> bool {
    i.called_function_of_call_or_invoke()
        .is_some_and(|f| f.is_declaration() && f.name().contains(NAME))
}

/// Replaces call `i` of `__enzyme_virtualreverse(p)` by the shadow of `p`.
pub(crate) fn lower<'m>(i: Inst<'m>, session: &mut Session<'m>) -> Result<(), Diagnostic> {
    let caller = i.parent_block().parent().name();
    let err = |msg: &str| Diagnostic::new(msg).in_function(&caller).at(i);
    if i.call_num_args() != 1
        || i.operand(0).ty() != Ty::ptr(i.context())
        || i.ty() != Ty::ptr(i.context())
    {
        return Err(err(
            "`__enzyme_virtualreverse` takes one pointer (a vtable pointer) and returns one",
        ));
    }
    // C++ with exceptions invokes it; it throws nothing.
    let i = if i.opcode() == Some(crate::ir::LLVMOpcode::LLVMInvoke) {
        i.replace_invoke_with_call()
    } else {
        i
    };
    let p = i.operand(0);
    let shadow =
        if p.is_constant() {
            match session.constant_shadow(p, Mode::Split)? {
                Some(s) => s,
                None => return Err(err(
                    "the argument of `__enzyme_virtualreverse` is a constant that is not a vtable",
                )),
            }
        } else {
            runtime_map(i, p, session)?
        };
    i.replace_all_uses_with(shadow);
    i.erase();
    Ok(())
}

/// `p` mapped at run time: for each vtable `vt` of the module (size `n`),
/// `vt <= p < vt + n` gives `shadow(vt) + (p - vt)`; otherwise `p`.
fn runtime_map<'m>(
    i: Inst<'m>,
    p: Value<'m>,
    session: &mut Session<'m>,
) -> Result<Value<'m>, Diagnostic> {
    let module = i.module();
    let ctx = i.context();
    let i64t = Ty::int(ctx, 64);
    let b = Builder::new(ctx);
    b.position_before(i);
    let at = b.ptr_to_int(p, i64t);
    let mut out = p;
    let mut vtables: Vec<_> = globals(module)
        .into_iter()
        .filter(|g| g.name().starts_with("_ZTV") && g.initializer().is_some())
        .collect();
    vtables.sort_by_cached_key(|g| g.name());
    for vt in vtables {
        let Some(shadow) = session.constant_shadow(vt.as_value(), Mode::Split)? else {
            continue;
        };
        let size = vt.global_value_type().alloc_size(module) as i64;
        let start = b.ptr_to_int(vt.as_value(), i64t);
        let offset = b.sub(at, start);
        // Unsigned: below the start wraps to a large offset.
        let inside = b.icmp(
            LLVMIntPredicate::LLVMIntULT,
            offset,
            b.const_int(i64t, size),
        );
        let moved = b.gep(Ty::int(ctx, 8), shadow, &[offset]);
        out = b.select(inside, moved, out);
    }
    Ok(out)
}
