//! Enzyme's contexts of global shadows: `__enzyme_context(width)`,
//! `__enzyme_shadow(ctx, p, lane)` and `__enzyme_zero_shadows(ctx)`
//! become calls of the helpers enz-core defines once every shadow global
//! is known (`enz_core`'s `synth/context.rs`); a derivative call given
//! `enzyme_context, ctx` is bracketed by entering and leaving the context
//! ([`bracket`]).

use crate::ir::{Builder, Inst, LLVMOpcode, Ty, Value};
use enz_core::{Diagnostic, Session};
use enz_core::{CONTEXT_NEW, CONTEXT_SHADOW, CONTEXT_ZERO, CTX_ENTER, CTX_LEAVE, CTX_NEW};
use enz_core::{CTX_SHADOW, CTX_ZERO};

/// Which call of the context API.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum ContextCall {
    New,
    Shadow,
    Zero,
}

/// The context call `i` is, if any (C or C++ spelling).
pub(crate) fn call_kind(i: Inst<'_>) -> Option<ContextCall> {
    let f = i.called_function_of_call_or_invoke()?;
    let name = f.name();
    if !f.is_declaration() {
        return None;
    }
    if name.contains(CONTEXT_ZERO) {
        Some(ContextCall::Zero)
    } else if name.contains(CONTEXT_SHADOW) {
        Some(ContextCall::Shadow)
    } else if name.contains(CONTEXT_NEW) {
        Some(ContextCall::New)
    } else {
        None
    }
}

/// Replaces context call `i` by the call of its helper.
pub(crate) fn lower<'m>(
    i: Inst<'m>,
    kind: ContextCall,
    session: &mut Session<'m>,
) -> Result<(), Diagnostic> {
    let caller = i.parent_block().parent().name();
    let module = i.module();
    let ctx = i.context();
    let (ptr, i32t) = (Ty::ptr(ctx), Ty::int(ctx, 32));
    let i = if i.opcode() == Some(LLVMOpcode::LLVMInvoke) {
        i.replace_invoke_with_call()
    } else {
        i
    };
    let (name, params, ret, usage) = match kind {
        ContextCall::New => (
            CTX_NEW,
            vec![i32t],
            ptr,
            "void *__enzyme_context(int width)",
        ),
        ContextCall::Shadow => (
            CTX_SHADOW,
            vec![ptr, ptr, i32t],
            ptr,
            "void *__enzyme_shadow(void *context, void *global, int lane)",
        ),
        ContextCall::Zero => (
            CTX_ZERO,
            vec![ptr],
            Ty::void(ctx),
            "void __enzyme_zero_shadows(void *context)",
        ),
    };
    let args: Vec<Value> = (0..i.call_num_args()).map(|k| i.operand(k)).collect();
    let fits = args.len() == params.len()
        && args
            .iter()
            .zip(&params)
            .all(|(a, p)| a.ty() == *p || (p.is_integer() && a.ty().is_integer()));
    if !fits {
        return Err(
            Diagnostic::new(format!("this call does not match `{usage}`"))
                .in_function(&caller)
                .at(i),
        );
    }
    let b = Builder::new(ctx);
    b.position_before(i);
    let args: Vec<Value> = args
        .iter()
        .zip(&params)
        .map(|(a, p)| {
            if p.is_integer() {
                b.int_cast(*a, *p)
            } else {
                *a
            }
        })
        .collect();
    match kind {
        ContextCall::New => {
            let lanes = args[0].const_int_sext().unwrap_or(1).clamp(1, 16) as u32;
            session.use_contexts(module, lanes);
        }
        ContextCall::Shadow => {
            let lane = args[2].const_int_sext().unwrap_or(0).clamp(0, 15) as u32;
            session.use_contexts(module, lane + 1);
            let Some(g) = global_under(crate::callsite::forwarded(args[1])) else {
                return Err(Diagnostic::new(
                    "the pointer passed to `__enzyme_shadow` is not the address of a global (or of a part of one) that enz-rs can see at compile time",
                )
                .in_function(&caller)
                .at(i)
                .help("pass the global itself, e.g. __enzyme_shadow(ctx, &g, 0) or &g.field"));
            };
            session
                .shadow_global(g)
                .map_err(|d| d.in_function(&caller).at(i))?;
        }
        ContextCall::Zero => session.use_contexts(module, 1),
    }
    let fty = Ty::function(ret, &params, false);
    let call = b.call_named(name, fty, &args);
    if !ret.is_void() && i.ty() == ret {
        i.as_value().replace_all_uses_with(call.as_value());
    }
    i.erase();
    Ok(())
}

/// Brackets derivative call `call` (not yet lowered) by entering context
/// `context` before it and leaving it after.
pub(crate) fn bracket<'m>(call: Inst<'m>, context: Value<'m>) {
    let ctx = call.context();
    let fty = Ty::function(Ty::void(ctx), &[Ty::ptr(ctx)], false);
    let b = Builder::new(ctx);
    b.position_before(call);
    b.call_named(CTX_ENTER, fty, &[context]);
    match call.opcode() {
        Some(LLVMOpcode::LLVMInvoke) => {
            let dest = call.normal_dest();
            match dest.first_instruction() {
                Some(first) => b.position_before(first),
                None => b.position_at_end(dest),
            }
        }
        _ => match call.next_instruction() {
            Some(next) => b.position_before(next),
            None => b.position_at_end(call.parent_block()),
        },
    }
    b.call_named(CTX_LEAVE, fty, &[context]);
}

/// The width a context `c` was made with, where it is the result of
/// `__enzyme_context(N)` for a constant `N` (possibly through a local
/// variable at -O0).
pub(crate) fn width_of(c: Value<'_>) -> Option<u32> {
    let c = crate::callsite::forwarded(c);
    let f = c.as_inst()?.called_function_of_call_or_invoke()?;
    let name = f.name();
    if name != CTX_NEW && !(name.contains(CONTEXT_NEW) && f.is_declaration()) {
        return None;
    }
    u32::try_from(c.operand(0).const_int_sext()?).ok()
}

/// The global a constant pointer points into.
fn global_under<'m>(mut p: Value<'m>) -> Option<crate::ir::Global<'m>> {
    while !p.is_global_variable() && !p.is_instruction() && !p.is_argument() && p.num_operands() > 0
    {
        p = p.operand(0);
    }
    p.as_global()
}
