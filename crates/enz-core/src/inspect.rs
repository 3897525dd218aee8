//! Printing what the analyses conclude about one function, for
//! `enz-rs --print-type-analysis FN` and `--print-activity FN`, the plan of
//! its gradient (`--print-plan FN`), and its canonical derivative ABI
//! (`--print-abi FN`).
//!
//! The analyses run on the preprocessed clone of the function (what synthesis
//! sees), which is deleted afterwards: the module is left unchanged.

use crate::analysis::activity::{Activity, ActivityInputs};
use crate::analysis::types::{self, TypeAnalysis};
use crate::diag::Diagnostic;
use crate::ir::{Function, Module, TyKind, Value};
use crate::options::{SessionOptions, UserFacts};
use crate::preprocess::preprocess;
use std::fmt::Write;

fn with_preprocessed<'m, T>(
    m: Module<'m>,
    name: &str,
    opts: SessionOptions,
    facts: &UserFacts<'m>,
    f: impl FnOnce(Function<'m>, &std::collections::HashSet<Function<'m>>) -> T,
) -> Result<T, Diagnostic> {
    let Some(func) = crate::ir::named_function(m, name) else {
        return Err(Diagnostic::new(format!(
            "no function named `{name}` in the module"
        )));
    };
    if func.is_declaration() {
        return Err(Diagnostic::new(format!(
            "`{name}` is declared but not defined in the module"
        )));
    }
    let inactive = &facts.inactive;
    // The calls synthesis keeps (as the registry's preprocessing does):
    // inactive functions and those with registered rules.
    let keep: std::collections::HashSet<Function<'m>> = inactive
        .iter()
        .chain(facts.custom.keys())
        .copied()
        .collect();
    let prep =
        preprocess(func, opts.preopt, opts.inline, &keep).map_err(|d| d.in_function(name))?;
    let out = f(prep, inactive);
    prep.delete_function();
    Ok(out)
}

/// Type analysis of function `name`, one value per line.
pub fn print_type_analysis<'m>(
    module: Module<'m>,
    name: &str,
    opts: SessionOptions,
    facts: &UserFacts<'m>,
) -> Result<String, Diagnostic> {
    with_preprocessed(module, name, opts, facts, |prep, _| {
        let ta = TypeAnalysis::analyse(prep);
        let mut s = format!("type analysis of `{name}` (after preprocessing):\n");
        s.push_str(&types::print(prep, &ta));
        for u in ta.undecided() {
            let _ = writeln!(s, "undecided: {}", u.message());
        }
        s
    })
}

/// Activity analysis of function `name` with the default activities
/// (floating parameters active, pointers with shadows, integers constant,
/// a floating return active), one value per line.
pub fn print_activity<'m>(
    module: Module<'m>,
    name: &str,
    opts: SessionOptions,
    facts: &UserFacts<'m>,
) -> Result<String, Diagnostic> {
    with_preprocessed(module, name, opts, facts, |prep, inactive| {
        let args = crate::analysis::activity::default_args(prep);
        let ret_active = prep.function_type().return_type().is_fp_scalar();
        let act = Activity::analyse(
            prep,
            &ActivityInputs {
                args: &args,
                ret_active,
                ret_shadowed: false,
                calls: crate::analysis::calls::CallFacts {
                    inactive,
                    custom: &facts.custom,
                },
                shadowed_globals: &facts.global_shadows.keys().map(|g| g.as_value()).collect(),
                inactive_globals: &facts
                    .inactive_globals
                    .iter()
                    .map(|g| g.as_value())
                    .collect(),
            },
        );
        let mut s = format!(
            "activity of `{name}` (after preprocessing; return {}):\n",
            if ret_active { "active" } else { "inactive" }
        );
        let mut line = |v: Value| {
            let _ = writeln!(s, "{}: {}", v.to_ir(), describe(&act, v));
        };
        for p in prep.params() {
            line(p);
        }
        for b in prep.blocks() {
            for i in b.instructions() {
                if !i.ty().is_void() {
                    line(i.into());
                }
            }
        }
        s
    })
}

/// The plan of the combined-mode gradient of function `name` (after
/// preprocessing): how each value would reach the reverse sweep, one value
/// per line.
pub fn print_plan<'m>(
    module: Module<'m>,
    name: &str,
    opts: SessionOptions,
    facts: &UserFacts<'m>,
) -> Result<String, Diagnostic> {
    let calls = crate::analysis::calls::CallFacts {
        inactive: &facts.inactive,
        custom: &facts.custom,
    };
    // Printed inside: the plan names values of the clone, deleted after.
    let text = with_preprocessed(module, name, opts, facts, |prep, _| {
        crate::synth::reverse::combined_plan(prep, name, calls).map(|plan| plan.to_string())
    })?;
    let plan = text.map_err(|mut d| d.remove(0))?;
    Ok(format!(
        "plan of the gradient of `{name}` (combined mode, after preprocessing):\n{plan}"
    ))
}

fn describe<'m>(act: &Activity<'m>, v: Value<'m>) -> &'static str {
    if v.ty().kind() == TyKind::Pointer {
        if act.is_shadowed(v) {
            "shadowed pointer"
        } else {
            "inactive pointer"
        }
    } else if act.is_active(v) {
        "active"
    } else if act.is_varied(v) {
        "inactive (varied, not useful)"
    } else {
        "inactive"
    }
}

/// The canonical derivative signatures of function `name` (see
/// `signature.rs`): what each function of its combined, split and forward
/// derivatives takes and returns when every activity follows from the type.
pub fn print_abi<'m>(module: Module<'m>, name: &str) -> Result<String, Diagnostic> {
    use crate::signature::{Field, Kind, Mode, Param, Request};
    let Some(func) = crate::ir::named_function(module, name) else {
        return Err(Diagnostic::new(format!(
            "no function named `{name}` in the module"
        )));
    };
    let mut s = format!(
        "canonical derivative ABI of `{name}`: {}\n",
        func.function_type()
    );
    let kinds = [
        (Mode::Combined, Kind::Gradient, "diffe"),
        (Mode::Split, Kind::Augmented, "augmented"),
        (Mode::Split, Kind::Reverse, "reverse"),
        (
            Mode::Forward { width: 1 },
            Kind::Forward { width: 1 },
            "fwddiffe",
        ),
    ];
    for (mode, kind, prefix) in kinds {
        let sig = Request::canonical(func, mode).signature(kind);
        let ps: Vec<String> = sig
            .params()
            .iter()
            .map(|(p, t)| match p {
                Param::Primal(k) => format!("{t} p{k}"),
                Param::Shadow { of, .. } => format!("{t} d_p{of}"),
                Param::ReturnAdjoint => format!("{t} d_ret"),
                Param::Tape => format!("{t} tape"),
            })
            .collect();
        let fs: Vec<String> = sig
            .fields()
            .iter()
            .map(|(f, t)| match f {
                Field::Tape => format!("{t} tape"),
                Field::Return => format!("{t} ret"),
                Field::ReturnShadow { .. } => format!("{t} d_ret"),
                Field::Adjoint(k) => format!("{t} d_p{k}"),
            })
            .collect();
        let ret = if fs.is_empty() {
            "void".to_string()
        } else {
            format!("{{ {} }}", fs.join(", "))
        };
        let _ = writeln!(s, "  {prefix}_{name}({}) -> {ret}", ps.join(", "));
    }
    Ok(s)
}
