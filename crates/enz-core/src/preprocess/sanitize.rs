//! Rewrites of the preprocessed clone that keep the primal's meaning but
//! remove what a derivative must not inherit from it.
//!
//! - **Lifetime markers.** The reverse sweep re-reads the primal's stack
//!   memory after the primal is done with it; an `llvm.lifetime.end` before
//!   those reads would let the post-optimisation treat them as reads of dead
//!   memory (and fold them to anything). The clone's markers are dropped.
//! - **Tail-call markers.** A `musttail` call must be followed by `ret`; in
//!   a derivative the forward sweep goes on to the reverse sweep instead.
//!   Calls in the clone become ordinary calls.
//! - **Undefined vector lanes.** A lane that is `poison` in the primal (a
//!   shuffle mask lane of `-1`, an `insertelement` into `poison`, a constant
//!   vector with `undef` elements) may be multiplied by a zero adjoint lane
//!   in the reverse sweep, and `0 * poison` is poison. Such lanes are given
//!   defined values (zero), a refinement the primal cannot observe.
//! - **Scalable vectors** have no size before run time, which the tape,
//!   the caches and type analysis need: they are refused with a diagnostic.

use crate::diag::Diagnostic;
use crate::ir::{Builder, TyKind, Value};
use llvm_sys::LLVMOpcode;

/// Applies every rewrite to `func` (the preprocessed clone), or refuses it.
pub(crate) fn sanitize(func: Value) -> Result<(), Diagnostic> {
    refuse_scalable_vectors(func)?;
    for b in func.blocks() {
        for i in b.instructions() {
            match i.opcode() {
                Some(LLVMOpcode::LLVMCall) => {
                    if is_lifetime_marker(i) {
                        i.erase();
                        continue;
                    }
                    i.clear_tail_call_kind();
                }
                Some(LLVMOpcode::LLVMShuffleVector) => define_shuffle_lanes(i),
                _ => {}
            }
        }
    }
    define_constant_vector_lanes(func);
    Ok(())
}

/// `llvm.lifetime.start` / `llvm.lifetime.end`.
fn is_lifetime_marker(call: Value) -> bool {
    call.called_function()
        .is_some_and(|f| f.intrinsic_id() != 0 && f.name().starts_with("llvm.lifetime."))
}

/// Replaces a shuffle with undefined mask lanes by one whose undefined
/// lanes read zero: `shufflevector a, b, m` becomes
/// `shufflevector (shufflevector a, b, m'), zeroinitializer, m''` where
/// `m'` maps undefined lanes to lane 0 and `m''` takes them from the zero
/// vector. When `b` is itself undefined the zero vector takes its place
/// and one shuffle suffices.
fn define_shuffle_lanes(shuffle: Value) {
    let mask = shuffle.shuffle_mask();
    if mask.iter().all(Option::is_some) {
        return;
    }
    let (a, b_op) = (shuffle.operand(0), shuffle.operand(1));
    let n = a.ty().len() as u32;
    let builder = Builder::new(shuffle.context());
    builder.position_before(shuffle);
    let zero_in = builder.zero(a.ty());
    let new = if b_op.is_undef_or_poison() {
        let m: Vec<u32> = mask
            .iter()
            .map(|l| match l {
                Some(k) if *k < n => *k,
                _ => n, // lane 0 of the zero vector
            })
            .collect();
        builder.shuffle_vector(a, zero_in, &m)
    } else {
        let m: Vec<u32> = mask.iter().map(|l| l.unwrap_or(0)).collect();
        let first = builder.shuffle_vector(a, b_op, &m);
        let width = m.len() as u32;
        let zero_out = builder.zero(first.ty());
        let m2: Vec<u32> = mask
            .iter()
            .enumerate()
            .map(|(j, l)| if l.is_some() { j as u32 } else { width })
            .collect();
        builder.shuffle_vector(first, zero_out, &m2)
    };
    new.set_name(&shuffle.name());
    shuffle.replace_all_uses_with(new);
    shuffle.erase();
}

/// Gives the undefined lanes of constant vector operands the value zero
/// (`insertelement <2 x double> poison, ...`, `<double 1.0, double undef>`,
/// phi incoming values alike).
fn define_constant_vector_lanes(func: Value) {
    for b in func.blocks() {
        for i in b.instructions() {
            let is_call = i.opcode() == Some(LLVMOpcode::LLVMCall);
            let n = i.num_operands();
            for k in 0..n {
                // The callee of a call is its last operand.
                if is_call && k + 1 == n {
                    continue;
                }
                if let Some(c) = i.operand(k).vector_constant_with_defined_lanes() {
                    i.set_operand(k, c);
                }
            }
        }
    }
}

/// A diagnostic for the first value of scalable vector type in `func`.
fn refuse_scalable_vectors(func: Value) -> Result<(), Diagnostic> {
    let scalable = |v: Value| {
        let t = v.ty();
        t.is_scalable_vector()
            || (t.kind() == TyKind::Struct
                && (0..t.len() as u32).any(|k| t.member(k).is_scalable_vector()))
    };
    for p in func.params() {
        if scalable(p) {
            return Err(Diagnostic::new(format!(
                "cannot differentiate a function taking a scalable vector (parameter of type {})",
                p.ty()
            ))
            .help("compile for a fixed vector width (e.g. without SVE/RVV scalable vectorisation), or mark the function inactive"));
        }
    }
    for b in func.blocks() {
        for i in b.instructions() {
            let has = scalable(i) || (0..i.num_operands()).any(|k| scalable(i.operand(k)));
            if has {
                return Err(Diagnostic::new(
                    "cannot differentiate code using scalable vectors (`<vscale x N x T>`): their size is only known at run time".to_string(),
                )
                .at(i)
                .help("compile for a fixed vector width (e.g. without SVE/RVV scalable vectorisation), or mark the function inactive"));
            }
        }
    }
    Ok(())
}
