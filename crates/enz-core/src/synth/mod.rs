//! Synthesis: building derivative functions from a preprocessed function and
//! the analyses' facts. Synthesis never re-runs an analysis.

pub(crate) mod adjoint;
pub(crate) mod blas;
pub(crate) mod checkpoint;
pub(crate) mod checkpoint_loop;
pub(crate) mod components;
pub(crate) mod context;
pub(crate) mod cuda_host;
pub(crate) mod custom;
pub(crate) mod disjoint;
pub(crate) mod emit;
pub(crate) mod fixed_point;
pub(crate) mod forward;
pub(crate) mod function_shadow;
pub(crate) mod gpu;
pub(crate) mod loop_fn;
pub(crate) mod masked;
pub(crate) mod mpi;
pub(crate) mod openmp;
pub(crate) mod registry;
pub(crate) mod reverse;
pub(crate) mod rules;
pub(crate) mod runtime;
pub(crate) mod shadow;
pub(crate) mod tape;
pub(crate) mod unwind;

use crate::diag::Diagnostic;
use crate::ir::Value;

/// The diagnostic for a differentiable call that has neither a rule nor a
/// function body enz-rs can differentiate (both modes say the same).
/// Whether a call through a pointer cannot be differentiated whatever the
/// pointer's shadow: a function called through another function type
/// (undefined in LLVM), or inline assembly.
pub(crate) fn is_undifferentiable_callee(call: crate::ir::Inst) -> bool {
    call.callee_with_other_type().is_some()
        || call.called_value().and_then(|c| c.inline_asm()).is_some()
}

pub(crate) fn undifferentiable_call(call: crate::ir::Inst, in_function: &str) -> Diagnostic {
    if let Some(f) = call.callee_with_other_type() {
        return Diagnostic::new(format!(
            "the call to `{}` uses the function type `{}`, but `{}` is `{}`: LLVM leaves such a call undefined",
            f.name(),
            call.call_function_type(),
            f.name(),
            f.function_type()
        ))
        .in_function(in_function)
        .at(call)
        .help("declare the function with the prototype of its definition");
    }
    if let Some((asm, _)) = call.called_value().and_then(|c| c.inline_asm()) {
        return Diagnostic::new(format!(
            "cannot differentiate inline assembly (`{}`) that takes or returns a differentiable value",
            asm.trim()
        ))
        .in_function(in_function)
        .at(call)
        .help("write the operation in C or with compiler intrinsics (enz-rs differentiates `vfmadd231` FMAs itself), or move it into a function registered with a custom gradient");
    }
    if let Some(f) = call
        .called_function()
        .filter(|f| crate::names::is_context_helper(&f.name()))
    {
        return Diagnostic::new(format!(
            "a context of global shadows is used inside differentiated code (`{}`: __enzyme_context, __enzyme_shadow or __enzyme_zero_shadows in a function being differentiated, e.g. for a derivative of a derivative), which enz-rs does not differentiate",
            f.name()
        ))
        .in_function(in_function)
        .at(call)
        .help("make and query contexts outside the functions you differentiate, and pass them with enzyme_context");
    }
    let msg = match call.called_function() {
        Some(f) if f.is_declaration() => format!(
            "no derivative rule for the external function `{}`, which is called with a differentiable argument",
            f.name()
        ),
        Some(f) => format!("cannot differentiate the call to `{}`", f.name()),
        None => "cannot differentiate an indirect call".to_string(),
    };
    Diagnostic::new(msg).in_function(in_function).at(call).help(
        "mark the argument enzyme_const if it needs no derivative, list the function in __enzyme_inactivefn if it has none, or register a custom gradient",
    )
}

/// The varied float whose bits the integer `v` carries, if any: `v` is
/// built from `bitcast float to iN` through zext, shl, or, and, trunc and
/// lshr (how the x86-64 ABI passes `struct { float x; int k; }`). Synthesis
/// has no derivative for floats inside integers, so such a value crossing
/// a differentiated call is refused rather than given a zero derivative.
pub(crate) fn float_carried_in_integer<'m>(
    v: Value<'m>,
    act: &crate::analysis::activity::Activity,
) -> Option<Value<'m>> {
    use crate::ir::LLVMOpcode::*;
    let mut stack = vec![(v, 0usize)];
    while let Some((x, depth)) = stack.pop() {
        match x.opcode() {
            Some(LLVMBitCast)
                if x.operand(0).ty().is_fp_or_fp_vector() && act.is_varied(x.operand(0)) =>
            {
                return Some(x.operand(0));
            }
            Some(LLVMZExt | LLVMTrunc | LLVMShl | LLVMLShr | LLVMOr | LLVMAnd) if depth < 8 => {
                stack.push((x.operand(0), depth + 1));
                if matches!(x.opcode(), Some(LLVMShl | LLVMLShr | LLVMOr | LLVMAnd)) {
                    stack.push((x.operand(1), depth + 1));
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether floating-point values are taken out of the integer `v`
/// (`bitcast` of `v`, or of a `trunc`/`lshr` of it, to a float type).
fn floats_taken_out_of(v: crate::ir::Value) -> bool {
    use crate::ir::LLVMOpcode::*;
    let mut stack = vec![(v, 0usize)];
    while let Some((x, depth)) = stack.pop() {
        for u in x.users() {
            match u.opcode() {
                Some(LLVMBitCast) if u.ty().is_fp_or_fp_vector() => return true,
                Some(LLVMTrunc | LLVMLShr) if depth < 4 && u.operand(0) == x => {
                    stack.push((u, depth + 1))
                }
                _ => {}
            }
        }
    }
    false
}

/// Refuses a differentiated call passing a varied float inside an integer
/// argument (see [`float_carried_in_integer`]), or returning floats inside
/// an integer (`struct { float x; int k; }` returned by value).
pub(crate) fn check_integer_arguments(
    call: crate::ir::Inst,
    act: &crate::analysis::activity::Activity,
    in_function: &str,
) -> Option<Diagnostic> {
    if call.ty().is_integer() && floats_taken_out_of(call.as_value()) {
        return Some(
            Diagnostic::new(format!(
                "this call returns floating-point values inside an integer (`{}`), which enz-rs cannot differentiate through",
                call.ty()
            ))
            .in_function(in_function)
            .at(call)
            .help("let enz-rs inline the call (drop --no-inline), or return the floating-point fields through a pointer"),
        );
    }
    (0..call.call_num_args()).find_map(|k| {
        let a = call.operand(k);
        if !a.ty().is_integer() {
            return None;
        }
        float_carried_in_integer(a, act)?;
        Some(
            Diagnostic::new(format!(
                "argument {k} of this call carries a differentiable floating-point value inside an integer (`{}`), which enz-rs cannot differentiate through",
                a.ty()
            ))
            .in_function(in_function)
            .at(call)
            .help("let enz-rs inline the call (drop --no-inline), or pass the floating-point fields as separate arguments or through a pointer"),
        )
    })
}
