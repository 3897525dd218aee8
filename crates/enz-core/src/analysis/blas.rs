//! Where a BLAS call's arguments are, read at compile time: which operand
//! holds each CBLAS argument (a Fortran symbol has no layout and passes
//! everything by pointer), which operands are the arrays it reads and
//! writes. Read by the activity, type and write analyses and by both
//! synthesis modes; it never changes IR.

use crate::ir::{Inst, TyKind, Value};
use crate::names::{BlasArg, BlasFn, BlasInterface, BlasRoutine};

/// The operand of call `i` holding CBLAS argument `k` of `r`.
pub(crate) fn operand_index(r: BlasRoutine, iface: BlasInterface, k: u32) -> Option<u32> {
    match iface {
        BlasInterface::Cblas => Some(k),
        BlasInterface::Fortran if r.has_layout() => k.checked_sub(1),
        BlasInterface::Fortran => Some(k),
    }
}

/// Whether enz-rs can read call `i`'s arguments: as many as the routine
/// takes (a Fortran call may pass the hidden lengths of its characters
/// after them), pointers where it passes pointers. `Err` says why not.
pub(crate) fn check_arguments(i: Inst<'_>, f: BlasFn) -> Result<(), String> {
    let BlasFn::Rule(r, _, iface) = f else {
        return Ok(());
    };
    let name = i.called_function().map(|f| f.name()).unwrap_or_default();
    let args = r.args();
    let want = match iface {
        BlasInterface::Cblas => args.len(),
        // LAPACK's Fortran symbols take `info` after the arguments.
        BlasInterface::Fortran if r.is_lapack() => args.len(),
        BlasInterface::Fortran if r.has_layout() => args.len() - 1,
        BlasInterface::Fortran => args.len(),
    } as u32;
    let n = i.call_num_args();
    let bad = match iface {
        BlasInterface::Cblas => n != want,
        BlasInterface::Fortran => n < want,
    };
    if bad {
        return Err(format!(
            "`{name}` is called with {n} arguments where BLAS's takes {want}: enz-rs cannot read them"
        ));
    }
    for (k, a) in args.iter().enumerate() {
        let Some(o) = operand_index(r, iface, k as u32) else {
            continue;
        };
        let pointer = i.operand(o).ty().kind() == TyKind::Pointer;
        let want_pointer = iface == BlasInterface::Fortran || is_array(*a) || *a == BlasArg::Pivots;
        if pointer != want_pointer {
            return Err(format!(
                "argument {o} of `{name}` is not the {} BLAS passes there: enz-rs cannot read it",
                if want_pointer { "pointer" } else { "value" }
            ));
        }
    }
    if let Some(o) = info_operand(r, iface) {
        if i.operand(o).ty().kind() != TyKind::Pointer {
            return Err(format!(
                "argument {o} of `{name}` is not the `info` pointer LAPACK writes: enz-rs cannot read it"
            ));
        }
    }
    Ok(())
}

/// The operand of a LAPACK Fortran call holding `info` (an integer the
/// call writes).
fn info_operand(r: BlasRoutine, iface: BlasInterface) -> Option<u32> {
    (r.is_lapack() && iface == BlasInterface::Fortran).then(|| r.args().len() as u32 - 1)
}

/// The integer arrays of a LAPACK call: its pivots and a Fortran call's
/// `info` (operand, whether the call writes it).
pub(crate) fn int_arrays<'m>(i: Inst<'m>, f: BlasFn) -> Vec<(Value<'m>, bool)> {
    let BlasFn::Rule(r, _, iface) = f else {
        return Vec::new();
    };
    if check_arguments(i, f).is_err() {
        return Vec::new();
    }
    let pivots = r
        .args()
        .iter()
        .position(|a| *a == BlasArg::Pivots)
        .and_then(|k| operand_index(r, iface, k as u32))
        .map(|o| (i.operand(o), r.writes_pivots()));
    let info = info_operand(r, iface).map(|o| (i.operand(o), true));
    pivots.into_iter().chain(info).collect()
}

fn is_array(a: BlasArg) -> bool {
    matches!(a, BlasArg::Vector | BlasArg::Matrix)
}

/// The arrays of call `i`: (CBLAS argument, operand, whether the call
/// writes it).
pub(crate) fn arrays<'m>(i: Inst<'m>, f: BlasFn) -> Vec<(u32, Value<'m>, bool)> {
    let BlasFn::Rule(r, _, iface) = f else {
        return Vec::new();
    };
    if check_arguments(i, f).is_err() {
        return Vec::new();
    }
    r.args()
        .iter()
        .enumerate()
        .filter(|(_, a)| is_array(**a))
        .filter_map(|(k, _)| {
            let o = operand_index(r, iface, k as u32)?;
            Some((k as u32, i.operand(o), r.written().contains(&(k as u32))))
        })
        .collect()
}

/// The operands of call `i` holding its float scalars (`alpha`, `beta`):
/// values for CBLAS, pointers for Fortran.
pub(crate) fn scalars<'m>(i: Inst<'m>, f: BlasFn) -> Vec<Value<'m>> {
    let BlasFn::Rule(r, _, iface) = f else {
        return Vec::new();
    };
    if check_arguments(i, f).is_err() {
        return Vec::new();
    }
    r.args()
        .iter()
        .enumerate()
        .filter(|(_, a)| **a == BlasArg::Scalar)
        .filter_map(|(k, _)| operand_index(r, iface, k as u32).map(|o| i.operand(o)))
        .collect()
}

/// The operands of call `i` holding integers (dimensions, increments,
/// leading dimensions, the layout and transposes): values for CBLAS,
/// pointers for Fortran (to characters for the transposes).
pub(crate) fn integers<'m>(i: Inst<'m>, f: BlasFn) -> Vec<(BlasArg, Value<'m>)> {
    let BlasFn::Rule(r, _, iface) = f else {
        return Vec::new();
    };
    if check_arguments(i, f).is_err() {
        return Vec::new();
    }
    r.args()
        .iter()
        .enumerate()
        .filter(|(_, a)| {
            matches!(
                a,
                BlasArg::Int
                    | BlasArg::Trans
                    | BlasArg::Layout
                    | BlasArg::Uplo
                    | BlasArg::Diag
                    | BlasArg::Side
            )
        })
        .filter_map(|(k, a)| operand_index(r, iface, k as u32).map(|o| (*a, i.operand(o))))
        .collect()
}
