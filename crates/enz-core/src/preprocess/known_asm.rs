//! Inline assembly that computes an operation LLVM has, replaced by it.
//!
//! Eigen's AVX `pmadd` under clang is `asm("vfmadd231pd %[a], %[b], %[c]"
//! : [c] "+x"(res) : [a] "x"(a), [b] "x"(b))` (to steer register
//! allocation), so every Eigen product compiled with `-mfma` (or
//! `-march=native`) multiplies through inline assembly, which has no
//! derivative. `vfmadd231{ps,pd,ss,sd} $1, $2, $0` with constraints
//! `=x,x,x,0` (`$0` the output, tied to the third input) computes
//! `$1 * $2 + $0`: the call becomes `llvm.fma(a, b, c)`, the same
//! operation, which the rule table differentiates. Other inline assembly
//! is left alone (synthesis refuses it where it touches derivatives).

use crate::ir::{Builder, Function, Inst, LLVMOpcode};

/// Replaces the inline-assembly FMAs of `func` by `llvm.fma` (module doc).
pub(super) fn replace_known_asm(func: Function<'_>) {
    let calls: Vec<Inst> = func
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| i.opcode() == Some(LLVMOpcode::LLVMCall) && is_asm_fma(*i))
        .collect();
    for call in calls {
        let b = Builder::new(call.context());
        b.position_before(call);
        let args = [call.operand(0), call.operand(1), call.operand(2)];
        let fma = b.call_intrinsic("llvm.fma", &[call.ty()], &args);
        call.as_value().replace_all_uses_with(fma.as_value());
        call.erase();
    }
}

/// Whether `call` is an inline-assembly FMA of three operands of its own
/// float (or float vector) type.
fn is_asm_fma(call: Inst<'_>) -> bool {
    let Some((asm, constraints)) = call.called_value().and_then(|v| v.inline_asm()) else {
        return false;
    };
    let words: Vec<&str> = asm
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let fma = matches!(
        words.as_slice(),
        [op, "$1", "$2", "$0"]
            if matches!(*op, "vfmadd231ps" | "vfmadd231pd" | "vfmadd231ss" | "vfmadd231sd")
    );
    let mut cons = constraints.split(',');
    let operands: Vec<&str> = cons.by_ref().take(4).collect();
    let tied = matches!(
        operands.as_slice(),
        ["=x", "x", "x", "0"] | ["=v", "v", "v", "0"]
    ) && cons.all(|c| c.starts_with("~{"));
    let ty = call.ty();
    fma && tied
        && ty.is_fp_or_fp_vector()
        && call.call_num_args() == 3
        && (0..3).all(|k| call.operand(k).ty() == ty)
}
