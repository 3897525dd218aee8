//! Synthesis: building derivative functions from a preprocessed function and
//! the analyses' facts. Synthesis never re-runs an analysis.

pub(crate) mod adjoint;
pub(crate) mod custom;
pub(crate) mod emit;
pub(crate) mod forward;
pub(crate) mod gpu;
pub(crate) mod registry;
pub(crate) mod reverse;
pub(crate) mod rules;
pub(crate) mod runtime;
pub(crate) mod shadow;
pub(crate) mod tape;

use crate::diag::Diagnostic;

/// The diagnostic for a differentiable call that has neither a rule nor a
/// function body enz-rs can differentiate (both modes say the same).
pub(crate) fn undifferentiable_call(call: crate::ir::Value, in_function: &str) -> Diagnostic {
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
