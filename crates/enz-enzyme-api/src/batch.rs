//! `__enzyme_batch(f, enzyme_width, N, args...)`: N calls of `f` at once,
//! the batched primal. Each parameter of `f` takes, after an optional
//! marker:
//!
//! - `enzyme_vector` (the default): N values, one per lane;
//! - `enzyme_scalar`: one value, the same in every lane;
//! - `enzyme_buffer`: one pointer to N consecutive values of the
//!   parameter's type, lane k reading the k-th.
//!
//! The call returns the N results as the caller declared it (a struct or
//! array of N, returned in registers or through `sret`), laid out as the
//! natural C struct of the results, as other entry points return theirs.
//! The lanes become N calls of `f` in a row, which the clean-up after
//! differentiation may vectorise; nothing is differentiated here, so the
//! calls are lowered before any derivative is synthesised (a batched
//! function may itself hold `__enzyme_*` calls).

use crate::abi;
use crate::call_config::MAX_WIDTH;
use crate::callsite::marker_of;
use crate::ir::{Builder, Inst, LLVMOpcode, Ty, Value};
use enz_core::{Diagnostic, Marker};

/// The entry point's name.
pub(crate) const NAME: &str = "__enzyme_batch";

/// Whether `i` calls `__enzyme_batch` (any spelling a C++ declaration
/// mangles it to).
pub(crate) fn is_call(i: Inst<'_>) -> bool {
    i.called_function_of_call_or_invoke()
        .is_some_and(|f| f.is_declaration() && f.name().contains(NAME))
}

/// Replaces call `i` of `__enzyme_batch` by the N calls it stands for.
pub(crate) fn lower<'m>(i: Inst<'m>) -> Result<(), Diagnostic> {
    let caller = i.parent_block().parent();
    let cname = caller.name();
    let err = |msg: String| Diagnostic::new(msg).in_function(&cname).at(i);
    // C++ with exceptions invokes it; the calls it becomes may throw as
    // the caller's other calls do, past the caller's handlers.
    let i = if i.opcode() == Some(LLVMOpcode::LLVMInvoke) {
        i.replace_invoke_with_call()
    } else {
        i
    };
    let nargs = i.call_num_args();
    let sret = (nargs > 0 && i.call_arg_has_attribute(0, "sret")).then(|| i.operand(0));
    let mut k = u32::from(sret.is_some());
    let Some(f) = (k < nargs)
        .then(|| crate::callsite::function_passed(i.operand(k)))
        .flatten()
    else {
        return Err(err(format!(
            "`{NAME}` needs the function to batch as its first argument"
        )));
    };
    k += 1;
    if k + 1 >= nargs || marker_of(i.operand(k)) != Some(Marker::Width) {
        return Err(err(format!(
            "`{NAME}` needs `enzyme_width, N` after the function"
        ))
        .help("e.g. __enzyme_batch((void *)f, enzyme_width, 4, enzyme_vector, x0, x1, x2, x3)"));
    }
    let width = match i.operand(k + 1).const_int_sext() {
        Some(n) if (1..=i64::from(MAX_WIDTH)).contains(&n) => n as usize,
        _ => {
            return Err(err(format!(
                "`enzyme_width` must be followed by a constant between 1 and {MAX_WIDTH}"
            )))
        }
    };
    k += 2;
    let fname = f.name();
    let b = Builder::new(i.context());
    b.position_before(i);
    let params = f.params();
    // lanes[l][p]: the value of parameter p in lane l.
    let mut lanes: Vec<Vec<Value>> = vec![Vec::with_capacity(params.len()); width];
    for (pi, p) in params.iter().enumerate() {
        let mut how = Marker::Vector;
        if k < nargs {
            match marker_of(i.operand(k)) {
                Some(m @ (Marker::Vector | Marker::Scalar | Marker::Buffer)) => {
                    how = m;
                    k += 1;
                }
                // An activity or configuration marker means nothing to a
                // batched primal: passed on as a value it would be wrong.
                Some(m) => {
                    return Err(err(format!(
                        "`{}` before parameter {pi} of `{fname}`: __enzyme_batch takes enzyme_vector, enzyme_scalar or enzyme_buffer there",
                        m.name()
                    ))
                    .help("each parameter takes N values (enzyme_vector, the default), one (enzyme_scalar) or a pointer to N values (enzyme_buffer)"));
                }
                None => {}
            }
        }
        let count = if how == Marker::Vector { width } else { 1 };
        if k + count as u32 > nargs {
            return Err(err(format!(
                "too few arguments: parameter {pi} of `{fname}` needs {count} value(s) at argument {k}"
            ))
            .help("each parameter takes N values (enzyme_vector, the default), one (enzyme_scalar) or a pointer to N values (enzyme_buffer)"));
        }
        let ty = p.ty();
        for (lane, args) in lanes.iter_mut().enumerate() {
            let v = match how {
                Marker::Vector => i.operand(k + lane as u32),
                Marker::Buffer => {
                    let buf = i.operand(k);
                    if buf.ty().kind() != crate::ir::TyKind::Pointer {
                        return Err(err(format!(
                            "`enzyme_buffer` for parameter {pi} of `{fname}` must be followed by a pointer"
                        )));
                    }
                    let size = ty.alloc_size(i.module());
                    let at = b.byte_gep(buf, size * lane as u64);
                    b.load(ty, at)
                }
                _ => i.operand(k),
            };
            let Some(v) = abi::convert_arg(&b, v, ty) else {
                return Err(err(format!(
                    "argument {} passes {} for parameter {pi} of `{fname}`, which has type {ty}",
                    k + lane as u32,
                    v.ty()
                )));
            };
            args.push(v);
        }
        k += count as u32;
    }
    if k < nargs {
        return Err(err(format!(
            "too many arguments: `{fname}` has {} parameter(s) but the call passes {} more value(s)",
            params.len(),
            nargs - k
        )));
    }
    let fty = f.function_type();
    let results: Vec<Value> = lanes
        .iter()
        .map(|args| b.call(fty, f, args).as_value())
        .collect();
    let declared = i.ty();
    let returns = !fty.return_type().is_void();
    let outs: Vec<Value> = if returns { results } else { Vec::new() };
    if returns && sret.is_none() {
        let tys: Vec<Ty> = outs.iter().map(|v| v.ty()).collect();
        if let Err(why) = abi::check_return(i.module(), &tys, declared) {
            return Err(err(format!("`{NAME}` {why}"))
                .help("declare it to return a struct of N results, e.g. struct { double r[4]; }"));
        }
    }
    let entry = Builder::new(i.context());
    entry.position_before(caller.entry_block().first_instruction().expect("entry"));
    if let Some(v) = abi::pack_return(&b, &entry, &outs, declared, sret) {
        i.replace_all_uses_with(v);
    }
    // The markers' loads (one load may be passed several times), erased
    // once the call is gone if nothing else uses them.
    let mut marker_loads: Vec<Inst> = Vec::new();
    for k in 0..nargs {
        let v = i.operand(k);
        if marker_of(v).is_some() {
            if let Some(load) = v.as_inst().filter(|l| !marker_loads.contains(l)) {
                marker_loads.push(load);
            }
        }
    }
    i.erase();
    for load in marker_loads {
        if !load.as_value().has_uses() {
            load.erase();
        }
    }
    Ok(())
}
