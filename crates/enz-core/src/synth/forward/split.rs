//! Forward split mode (`__enzyme_fwdsplit`): `fwdsplit_f(p, tangents,
//! tape)` runs after `augmented_f` of the matching split request
//! ([`Request::split_counterpart`](crate::signature::Request)), which ran
//! the primal and made the tape.
//!
//! enz-rs's tape holds what the *reverse* sweep needs, at positions only a
//! reverse walk finds, so `fwdsplit_f` computes the primal values its
//! tangents need by running the primal again from the memory
//! `augmented_f` left. That gives the same values exactly when every load
//! of memory the function did not create reads memory nothing in the
//! function writes afterwards (then the re-run loads what the first run
//! loaded, and its stores write what the first run wrote): checked here,
//! a diagnostic otherwise (an in-place update, a call enz-rs cannot see
//! into). `fwdsplit_f` then frees the tape with the release function of
//! the split derivative (`reverse/release.rs`): everything the reverse
//! sweep would have freed.

use super::{Forward, ForwardRequest};
use crate::analysis::calls::{CallKind, Direction};
use crate::analysis::writes::{points_into_local_objects, Rereadable};
use crate::diag::Diagnostic;
use crate::ir::LLVMOpcode;
use crate::ir::{Builder, Value};
use crate::names::{BlasFn, BlasRoutine};
use crate::signature::Param;
use crate::synth::registry::Registry;
use std::collections::HashSet;

/// Whether running `req.prep` again from the memory its first run left
/// computes the same values (see the module documentation).
pub(super) fn check_replayable<'m>(
    req: &ForwardRequest<'m, '_>,
    registry: &Registry<'m>,
) -> Result<(), Vec<Diagnostic>> {
    let f = req.prep;
    let calls = registry.call_facts();
    let rereadable = Rereadable::analyse(f, &HashSet::new(), calls);
    let mut diags = Vec::new();
    let help = "__enzyme_fwdsplit runs the function again from the memory __enzyme_augmentfwd left; use __enzyme_fwddiff instead";
    for b in f.blocks() {
        for i in b.instructions() {
            let why = match i.opcode() {
                Some(LLVMOpcode::LLVMLoad)
                    if !points_into_local_objects(i.operand(0))
                        && !rereadable.contains(i.as_value()) =>
                {
                    "this load reads memory that the function may write after it, so running it again would read another value"
                }
                Some(LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg)
                    if !points_into_local_objects(i.operand(0)) =>
                {
                    "this atomic update would be done twice"
                }
                Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke) => {
                    match calls.classify(i.as_value(), Direction::Forward) {
                        CallKind::Defined(_) | CallKind::Custom(_) | CallKind::Indirect | CallKind::Team(_) => {
                            "enz-rs cannot check what this call (not inlined) reads"
                        }
                        // A BLAS call reads its arrays as loads do, and
                        // one updating memory in place would do it twice.
                        CallKind::Blas(f) if !blas_replayable(i, f, &rereadable) => {
                            "this BLAS call reads memory that the function may write after it (or updates it in place), so running it again would compute another value"
                        }
                        _ => continue,
                    }
                }
                _ => continue,
            };
            diags.push(
                Diagnostic::new(format!(
                    "cannot differentiate `{}` in forward split mode: {why}",
                    req.name
                ))
                .in_function(req.name)
                .at(i)
                .help(help),
            );
        }
    }
    if diags.is_empty() {
        Ok(())
    } else {
        Err(diags)
    }
}

/// Whether BLAS call `i` computes the same again from the memory the
/// first run left: every array it reads that the function did not create
/// is written neither by the call (`?copy`'s destination aside, written
/// only) nor after it.
fn blas_replayable<'m>(i: crate::ir::Inst<'m>, f: BlasFn, rereadable: &Rereadable<'m>) -> bool {
    let BlasFn::Rule(r, _, _) = f else {
        return false;
    };
    if crate::analysis::blas::check_arguments(i, f).is_err() {
        return false;
    }
    crate::analysis::blas::arrays(i, f)
        .iter()
        .all(|(k, a, written)| {
            points_into_local_objects(*a)
                || if *written {
                    r == BlasRoutine::Copy && *k == 3
                } else {
                    rereadable.spares_blas_read(i.as_value(), *a)
                }
        })
}

impl<'m, 'a> Forward<'m, 'a> {
    /// Forward split mode: before a return, the release function frees
    /// the tape (a null tape is left alone).
    pub(super) fn release_tape(&mut self, b: &Builder<'m>) {
        let (Some(tape), Some((release, sig))) = (self.tape, self.req.release.as_ref()) else {
            return;
        };
        let params = self.req.prep.params();
        let args = sig.arguments(|p, ty| -> Result<Value<'m>, ()> {
            Ok(match p {
                Param::Primal(k) => self.map.get(params[k]),
                Param::Shadow { of, .. } => self.shadows[0]
                    .forward(params[of])
                    .unwrap_or_else(|| b.zero(ty)),
                Param::ReturnAdjoint => b.zero(ty),
                Param::Tape => tape,
            })
        });
        if let Ok(args) = args {
            b.call(release.function_type(), release.as_value(), &args);
        }
    }
}
