//! Whole-call markers of an `__enzyme_*` call: `enzyme_width N`,
//! `enzyme_allocated SIZE`, `enzyme_tape PTR`, `enzyme_context CTX` and
//! the return markers
//! (`enzyme_const_return`, `enzyme_primal_return`, ...). As in Enzyme they
//! may appear anywhere after the function: before, between or after its
//! arguments. They are read first, and the positions they take are left
//! out when the remaining values are matched to parameters.

use crate::callsite::marker_of;
use crate::ir::Inst;
use crate::ir::Value;
use enz_core::{Diagnostic, Marker};

/// Most vector lanes `enzyme_width` accepts.
pub(crate) const MAX_WIDTH: u32 = 16;

/// What a return marker asks of the return value's derivative.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum ReturnActivity {
    /// `enzyme_const_return`: no derivative.
    Const,
    /// `enzyme_active_return`: an adjoint (reverse mode).
    Active,
    /// `enzyme_dup_return`: tangents or shadows (forward mode).
    Dup,
}

/// The return markers of one call.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ReturnSpec {
    /// The return activity a marker chose; `None`: the default from the
    /// type (a float is active, a pointer shadowed).
    pub(crate) activity: Option<ReturnActivity>,
    /// `enzyme_primal_return`: the primal result comes first in what the
    /// call returns.
    pub(crate) primal: bool,
    /// `enzyme_noret`: the primal result is not wanted.
    pub(crate) noret: bool,
}

/// The whole-call markers of one call, and what is left for the
/// function's arguments.
#[derive(Clone, Debug)]
pub(crate) struct Config<'m> {
    /// Vector width (`enzyme_width N`), 1 by default.
    pub(crate) width: u32,
    /// `enzyme_allocated SIZE`.
    pub(crate) allocated: Option<Value<'m>>,
    /// `enzyme_tape PTR`.
    pub(crate) tape: Option<Value<'m>>,
    /// `enzyme_context CTX`: the context of global shadows to use.
    pub(crate) context: Option<Value<'m>>,
    /// The return markers.
    pub(crate) ret: ReturnSpec,
    /// The operand indices no whole-call marker took, in order: the
    /// function's arguments (with their activity markers and shadows) and,
    /// for `__enzyme_reverse`, the trailing values.
    pub(crate) rest: Vec<u32>,
}

/// Reads the whole-call markers among operands `first..` of `call`.
/// `err` makes a diagnostic located at the call.
pub(crate) fn read<'m>(
    call: Inst<'m>,
    first: u32,
    err: &dyn Fn(String) -> Diagnostic,
) -> Result<Config<'m>, Diagnostic> {
    let nargs = call.call_num_args();
    let mut cfg = Config {
        width: 1,
        allocated: None,
        tape: None,
        context: None,
        ret: ReturnSpec::default(),
        rest: Vec::new(),
    };
    let mut seen: Vec<Marker> = Vec::new();
    let mut k = first;
    while k < nargs {
        match marker_of(call.operand(k)) {
            Some(Marker::NotOverwritten) => {
                // A hint about the next argument: enz-rs's own analysis
                // decides what may be overwritten.
                k += 1;
                continue;
            }
            Some(m @ Marker::Unsupported(_)) => {
                return Err(err(format!(
                    "the Enzyme marker `{}` (argument {k} of the call) is not supported by enz-rs",
                    m.name()
                ))
                .help("remove it: enz-rs supports enzyme_const, enzyme_out, enzyme_dup, enzyme_dupnoneed, enzyme_width, enzyme_allocated, enzyme_tape, enzyme_context, enzyme_not_overwritten and the return markers"));
            }
            _ => {}
        }
        let Some(m) = marker_of(call.operand(k)).filter(|m| m.takes_value() || m.is_return_flag())
        else {
            cfg.rest.push(k);
            k += 1;
            continue;
        };
        if seen.contains(&m) {
            return Err(err(format!(
                "`{}` is given twice (argument {k} of the call)",
                m.name()
            ))
            .help("give each whole-call marker at most once"));
        }
        seen.push(m);
        if m.is_return_flag() {
            set_return_flag(&mut cfg.ret, m, err)?;
            k += 1;
            continue;
        }
        if k + 1 >= nargs {
            return Err(err(format!(
                "`{}` is the last argument of the call, but a value must follow it",
                m.name()
            )));
        }
        let v = call.operand(k + 1);
        if let Some(after) = marker_of(v) {
            return Err(err(format!(
                "`{}` must be followed by a value, but argument {} is the marker `{}`",
                m.name(),
                k + 1,
                after.name()
            )));
        }
        match m {
            Marker::Width => match v.const_int_sext() {
                Some(n) if (1..=i64::from(MAX_WIDTH)).contains(&n) => cfg.width = n as u32,
                _ => {
                    return Err(err(format!(
                        "`enzyme_width` must be followed by a constant between 1 and {MAX_WIDTH}"
                    )))
                }
            },
            Marker::Allocated => cfg.allocated = Some(v),
            Marker::Context => cfg.context = Some(v),
            _ => cfg.tape = Some(v),
        }
        k += 2;
    }
    // A context's derivatives have its width, unless the call says.
    if let (Some(c), false) = (cfg.context, seen.contains(&Marker::Width)) {
        cfg.width = crate::context::width_of(c).unwrap_or(1).clamp(1, MAX_WIDTH);
    }
    Ok(cfg)
}

/// Records one return marker, refusing contradictions.
fn set_return_flag(
    ret: &mut ReturnSpec,
    m: Marker,
    err: &dyn Fn(String) -> Diagnostic,
) -> Result<(), Diagnostic> {
    let activity = match m {
        Marker::ConstReturn => Some(ReturnActivity::Const),
        Marker::ActiveReturn => Some(ReturnActivity::Active),
        Marker::DupReturn => Some(ReturnActivity::Dup),
        Marker::NoRet => {
            ret.noret = true;
            None
        }
        _ => {
            ret.primal = true;
            None
        }
    };
    if let Some(a) = activity {
        if ret.activity.is_some() {
            return Err(err(format!(
                "`{}` contradicts another return-activity marker of the same call",
                m.name()
            ))
            .help(
                "give at most one of enzyme_const_return, enzyme_active_return, enzyme_dup_return",
            ));
        }
        ret.activity = Some(a);
    }
    if ret.primal && ret.noret {
        return Err(err(
            "`enzyme_primal_return` and `enzyme_noret` contradict each other (the primal result is asked for and declared unwanted)".to_string(),
        ));
    }
    Ok(())
}
