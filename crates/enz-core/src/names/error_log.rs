//! The names of `__enzyme_error_estimate`'s optional loggers: functions a
//! program defines to be told each operation's error bound
//! (`synth/forward/error.rs`), recognised by name and argument layout.

use crate::ir::{Ty, TyKind};

/// `enzymeLogError`, called with each operation's error bound, and the
/// prefix of its C++ spelling (outside `extern "C"`).
pub(crate) const ERROR_LOGGER: (&str, &str) = ("enzymeLogError", "_Z14enzymeLogError");

/// `enzymeLogValue(const char *id, double value, unsigned n, double
/// *operands)`, called with each operation's value and operands; and the
/// prefix of its C++ spelling.
pub(crate) const VALUE_LOGGER: (&str, &str) = ("enzymeLogValue", "_Z14enzymeLogValue");

/// The argument layouts of `enzymeLogError` enz-rs knows.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum ErrorLogger {
    /// `(const char *id, double err)`.
    ById,
    /// `(double value, double err, const char *opcode, const char *callee,
    /// const char *module, const char *function, const char *block)`.
    Described,
}

/// The layout of an `enzymeLogError` of type `fty`, if it is one enz-rs
/// knows (another is left uncalled).
pub(crate) fn error_logger(fty: Ty<'_>) -> Option<ErrorLogger> {
    let kinds: Vec<TyKind> = fty.param_types().iter().map(|t| t.kind()).collect();
    use TyKind::{Double, Pointer};
    match kinds.as_slice() {
        [Pointer, Double] => Some(ErrorLogger::ById),
        [Double, Double, Pointer, Pointer, Pointer, Pointer, Pointer] => {
            Some(ErrorLogger::Described)
        }
        _ => None,
    }
}

/// Whether `fty` is the layout of `enzymeLogValue`.
pub(crate) fn is_value_logger(fty: Ty<'_>) -> bool {
    let kinds: Vec<TyKind> = fty.param_types().iter().map(|t| t.kind()).collect();
    matches!(
        kinds.as_slice(),
        [
            TyKind::Pointer,
            TyKind::Double,
            TyKind::Integer(32),
            TyKind::Pointer
        ]
    )
}
