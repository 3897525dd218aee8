//! What an MPI call moves, read at compile time from its arguments: the
//! datatype of each buffer (MPICH's integer handles, Open MPI's addresses
//! of predefined globals), the reduction operation, and which ABI the
//! call was compiled for. Read by the activity analysis (which buffers
//! carry derivatives) and by both synthesis modes; it never changes IR.

use crate::ir::{Inst, TyKind, Value};
use crate::names::{
    mpich_op, mpich_type, open_mpi_op, open_mpi_type, MpiBuffer, MpiFn, MpiOp, MpiType,
};

/// Which MPI library's ABI a call was compiled against.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum MpiAbi {
    /// Open MPI: handles are pointers to predefined globals.
    OpenMpi,
    /// MPICH: handles are `int`s.
    Mpich,
}

impl MpiAbi {
    /// The ABI of a handle argument: a pointer for Open MPI, an integer
    /// for MPICH.
    pub(crate) fn of_handle(h: Value<'_>) -> MpiAbi {
        if h.ty().kind() == TyKind::Pointer {
            MpiAbi::OpenMpi
        } else {
            MpiAbi::Mpich
        }
    }
}

/// The datatype handle `h` names: `Err` with a description when enz-rs
/// cannot read it.
pub(crate) fn datatype(h: Value<'_>) -> Result<MpiType, String> {
    if let Some(g) = h.as_global() {
        return open_mpi_type(&g.name())
            .ok_or_else(|| format!("the datatype `{}` is not one enz-rs knows (MPI_DOUBLE, MPI_FLOAT, or integer types)", g.name()));
    }
    if let Some(c) = h.const_int_sext() {
        return mpich_type(c).ok_or_else(|| {
            format!("the datatype handle {c:#x} is not one enz-rs knows (MPI_DOUBLE, MPI_FLOAT, or integer types)")
        });
    }
    Err("the datatype is neither a predefined datatype known at compile time nor one made by MPI_Type_contiguous of one (in the differentiated function, or into a global); enz-rs differentiates MPI_DOUBLE, MPI_FLOAT and contiguous types of them".to_string())
}

/// The reduction operation handle `h` names.
pub(crate) fn operation(h: Value<'_>) -> Result<MpiOp, String> {
    let op = if let Some(g) = h.as_global() {
        open_mpi_op(&g.name())
    } else if let Some(c) = h.const_int_sext() {
        mpich_op(c)
    } else {
        None
    };
    op.ok_or_else(|| {
        "the reduction operation is not a predefined operation known at compile time".to_string()
    })
}

/// The float datatype of call `i` of `f` (every buffer of it must have
/// the same one): `Ok(None)` when it moves integers only, `Err` when
/// enz-rs cannot read a datatype or the buffers' types differ.
pub(crate) fn float_type(i: Inst<'_>, f: MpiFn) -> Result<Option<MpiType>, String> {
    let mut found: Option<MpiType> = None;
    for b in f.buffers() {
        if b.datatype >= i.call_num_args() {
            return Err("the call has fewer arguments than the MPI standard says".to_string());
        }
        let t = datatype(i.operand(b.datatype))?;
        match found {
            Some(old) if old != t => {
                return Err(
                    "the buffers of this call have different datatypes (enz-rs needs one)"
                        .to_string(),
                )
            }
            _ => found = Some(t),
        }
    }
    Ok(found.filter(|t| *t != MpiType::Integer))
}

/// Whether call `i` of `f` moves floats (a datatype enz-rs cannot read
/// counts as floats: the synthesis refuses it by name).
pub(crate) fn moves_floats(i: Inst<'_>, f: MpiFn) -> bool {
    f.communicates() && !matches!(float_type(i, f), Ok(None))
}

/// The buffer arguments of call `i` of `f`.
pub(crate) fn buffer_args<'m>(i: Inst<'m>, f: MpiFn) -> Vec<(MpiBuffer, Value<'m>)> {
    f.buffers()
        .iter()
        .filter(|b| b.buf < i.call_num_args())
        .map(|b| (*b, i.operand(b.buf)))
        .collect()
}

/// `MPI_ANY_SOURCE` of `abi`.
fn any_source(abi: MpiAbi) -> i64 {
    match abi {
        MpiAbi::OpenMpi => crate::names::OPEN_MPI_ANY_SOURCE,
        MpiAbi::Mpich => crate::names::MPICH_ANY_SOURCE,
    }
}

/// Whether blocking receive `i` of `f` takes its actual source and tag
/// from its status (a source or tag that is not a constant, or a
/// wildcard, and a status that is not ignored): the byte offsets of
/// `MPI_SOURCE` and `MPI_TAG` in the status, and the status argument.
pub(crate) fn source_from_status(i: Inst<'_>, f: MpiFn) -> Option<(u32, (u64, u64))> {
    let (s, src, tag) = (f.status_arg()?, f.source_arg()?, f.receive_tag_arg()?);
    if s >= i.call_num_args() || i.operand(s).is_constant() {
        return None;
    }
    let b = f.buffers().first()?;
    let abi = MpiAbi::of_handle(i.operand(b.datatype));
    let known = |k: u32, wild: i64| i.operand(k).const_int_sext().is_some_and(|c| c != wild);
    if known(src, any_source(abi)) && known(tag, crate::names::ANY_TAG) {
        return None;
    }
    let offsets = match abi {
        MpiAbi::OpenMpi => crate::names::OPEN_MPI_STATUS_SOURCE_TAG,
        MpiAbi::Mpich => crate::names::MPICH_STATUS_SOURCE_TAG,
    };
    Some((s, offsets))
}

/// Whether call `i` of `f` is an `MPI_Allreduce` or `MPI_Reduce` with
/// `MPI_MAX` or `MPI_MIN` (its adjoint goes to the rank holding the
/// extremum).
pub(crate) fn extremum(i: Inst<'_>, f: MpiFn) -> bool {
    matches!(f, MpiFn::Allreduce | MpiFn::Reduce)
        && i.call_num_args() > 4
        && matches!(operation(i.operand(4)), Ok(MpiOp::Max | MpiOp::Min))
}

/// What enz-rs cannot differentiate about call `i` of `f`, which moves
/// floats: a wildcard source or tag with the status ignored (the reverse
/// sweep sends back to the source), `MPI_IN_PLACE`, a reduction other than `MPI_SUM` (and, in
/// `MPI_Allreduce`, `MPI_MAX` and `MPI_MIN`).
pub(crate) fn refusal(i: Inst<'_>, f: MpiFn) -> Option<String> {
    if let Err(e) = float_type(i, f) {
        return Some(e);
    }
    let abi = f
        .buffers()
        .first()
        .map(|b| MpiAbi::of_handle(i.operand(b.datatype)))?;
    let ignored = f
        .status_arg()
        .is_none_or(|k| k >= i.call_num_args() || i.operand(k).is_constant());
    if let Some(k) = f.source_arg() {
        if ignored && i.operand(k).const_int_sext() == Some(any_source(abi)) {
            return Some("the source is MPI_ANY_SOURCE and the status is ignored (the reverse sweep sends the adjoint back to the source: name it, or pass a status, from which enz-rs reads it)".to_string());
        }
    }
    if let Some(k) = f.receive_tag_arg() {
        if ignored && i.operand(k).const_int_sext() == Some(crate::names::ANY_TAG) {
            return Some("the tag is MPI_ANY_TAG and the status is ignored (the reverse sweep sends the adjoint back with the same tag: name it, or pass a status, from which enz-rs reads it)".to_string());
        }
    }
    if let Some(k) = f.op_arg() {
        match operation(i.operand(k)) {
            Ok(MpiOp::Sum) => {}
            Ok(MpiOp::Max | MpiOp::Min) => {}
            Ok(MpiOp::Other(name)) => {
                return Some(format!(
                    "the reduction is {name}; enz-rs differentiates MPI_SUM reductions only"
                ))
            }
            Err(e) => return Some(e),
        }
    }
    for (_, v) in buffer_args(i, f) {
        if v.is_constant_int_address() {
            return Some(
                "a buffer is a constant address such as MPI_IN_PLACE, which enz-rs does not differentiate"
                    .to_string(),
            );
        }
    }
    None
}
