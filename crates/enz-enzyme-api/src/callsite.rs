//! Reading `__enzyme_*` call sites: the function to differentiate, and for
//! each of its parameters the activity and the values passed.

use crate::ir::LLVMOpcode;
use crate::ir::{Function, Inst, Value};
pub(crate) use enz_core::ArgActivity;
use enz_core::Diagnostic;
use enz_core::{EntryPoint, Marker};

use crate::call_config::{self, ReturnSpec};

/// One parameter's values at a call site.
#[derive(Clone, Debug)]
pub(crate) struct CallArg<'m> {
    pub(crate) activity: ArgActivity,
    /// The primal value passed (as it appears at the call, before conversion).
    pub(crate) value: Value<'m>,
    /// The shadows (tangents in forward mode), one per vector lane, for
    /// `Dup`/`DupNoNeed`.
    pub(crate) shadows: Vec<Value<'m>>,
    /// `enzyme_dupv`'s byte stride: `shadows` then holds the first lane's
    /// shadow in every lane, and lane k's is `shadows[k] + k * stride`
    /// (made by lowering, at the call).
    pub(crate) lane_stride: Option<Value<'m>>,
}

/// A parsed `__enzyme_*` call.
#[derive(Clone, Debug)]
pub(crate) struct CallSite<'m> {
    pub(crate) call: Inst<'m>,
    pub(crate) entry: EntryPoint,
    /// The function to differentiate.
    pub(crate) function: Function<'m>,
    /// One entry per parameter of `function`.
    pub(crate) args: Vec<CallArg<'m>>,
    /// The `sret` pointer the call returns its struct through, if any.
    pub(crate) sret: Option<Value<'m>>,
    /// Vector width (`enzyme_width N`), 1 by default.
    pub(crate) width: u32,
    /// `enzyme_allocated SIZE`: the caller's tape buffer size.
    pub(crate) allocated: Option<Value<'m>>,
    /// `enzyme_tape PTR`: the caller's tape buffer.
    pub(crate) tape: Option<Value<'m>>,
    /// `enzyme_context CTX`: the context of global shadows to use.
    pub(crate) context: Option<Value<'m>>,
    /// The return markers (`enzyme_primal_return`, ...).
    pub(crate) ret: ReturnSpec,
    /// Values after the parameters (`__enzyme_reverse`: dret, tape).
    pub(crate) trailing: Vec<Value<'m>>,
}

/// The marker `v` stands for: an `enzyme_*` global passed by value (a
/// load of it, as C passes `enzyme_const`) or by address (the global
/// itself, possibly through a constant cast, as C++'s `&enzyme_const`), or
/// a metadata string naming one (as rustc passes them).
pub(crate) fn marker_of<'m>(v: Value<'m>) -> Option<Marker> {
    marker_name(v).and_then(|n| Marker::from_name(&n))
}

/// The name of the `enzyme_*` global (or metadata string) `v` passes, as
/// [`marker_of`] reads it: a load of the global, the global's address, or
/// a metadata string.
pub(crate) fn marker_name<'m>(v: Value<'m>) -> Option<String> {
    let v = forwarded(v);
    if let Some(s) = v.metadata_string() {
        return Some(s);
    }
    let global_under = |mut p: Value<'m>| {
        while !p.is_global_variable() && p.num_operands() > 0 && !p.is_instruction() {
            p = p.operand(0);
        }
        p.is_global_variable().then(|| p.name())
    };
    if v.opcode() == Some(LLVMOpcode::LLVMLoad) {
        return global_under(v.operand(0));
    }
    if v.is_instruction() || v.ty().kind() != crate::ir::TyKind::Pointer {
        return None;
    }
    global_under(v)
}

/// The entry point a call (or, in C++ with exceptions, an invoke)
/// instruction calls, if any.
pub(crate) fn entry_point_of<'m>(call: Inst<'m>) -> Option<EntryPoint> {
    let f = call.called_function_of_call_or_invoke()?;
    EntryPoint::from_callee(&f.name())
}

/// Whether the function never reads parameter `p`: no use, or (as at
/// -O0) only stores into stack slots that nothing loads.
fn never_read(p: Value<'_>) -> bool {
    p.users().into_iter().all(|u| {
        u.opcode() == Some(LLVMOpcode::LLVMStore)
            && u.operand(0) == p
            && u.operand(1).opcode() == Some(LLVMOpcode::LLVMAlloca)
            && u.operand(1)
                .users()
                .into_iter()
                .all(|w| w.opcode() == Some(LLVMOpcode::LLVMStore) && w.operand(1) == u.operand(1))
    })
}

/// Whether `v` is a function, or a choice (select, phi) among functions:
/// a function pointer known at the call site.
pub(crate) fn is_function_choice(v: Value<'_>) -> bool {
    fn walk<'m>(v: Value<'m>, seen: &mut Vec<Value<'m>>) -> bool {
        if v.strip_to_function().is_some() {
            return true;
        }
        if seen.contains(&v) {
            return true;
        }
        seen.push(v);
        match v.opcode() {
            Some(LLVMOpcode::LLVMSelect) => walk(v.operand(1), seen) && walk(v.operand(2), seen),
            Some(LLVMOpcode::LLVMPHI) => (0..v.num_operands()).all(|k| walk(v.operand(k), seen)),
            _ => false,
        }
    }
    walk(v, &mut Vec::new())
}

/// What a value passed at a call site stands for: `v` itself, or, at -O0
/// where a wrapper (the C++ `<enzyme/enzyme>` API's `enzyme::autodiff(f,
/// ...)`) was inlined without promoting its locals, the value stored
/// into the local `v` is loaded from, when that local is stored exactly
/// once.
pub(crate) fn forwarded<'m>(v: Value<'m>) -> Value<'m> {
    let mut v = v;
    for _ in 0..64 {
        if v.opcode() != Some(LLVMOpcode::LLVMLoad) {
            break;
        }
        let slot = local_behind(v.operand(0));
        if slot.opcode() != Some(LLVMOpcode::LLVMAlloca) {
            break;
        }
        let mut stored = None;
        for u in slot.users() {
            match u.opcode() {
                Some(LLVMOpcode::LLVMLoad) => {}
                Some(LLVMOpcode::LLVMStore) if u.operand(1) == slot && stored.is_none() => {
                    stored = Some(u.operand(0));
                }
                // The slot's address kept in a local that is only read (a
                // C++ reference parameter at -O0).
                Some(LLVMOpcode::LLVMStore)
                    if u.operand(0) == slot && is_read_only_reference(u.operand(1)) => {}
                // Another field of a struct in the slot (a function and
                // what goes with it, as C++ keeps them at -O0): a GEP to a
                // constant, nonzero offset does not reach the first field.
                Some(LLVMOpcode::LLVMGetElementPtr) if other_field(u) => {}
                // Lifetime markers.
                Some(LLVMOpcode::LLVMCall)
                    if u.called_function()
                        .is_some_and(|f| f.name().starts_with("llvm.lifetime")) => {}
                _ => return v,
            }
        }
        match stored {
            Some(s) => v = s,
            None => break,
        }
    }
    v
}

/// `p`, or the local it was loaded from a read-only reference to.
fn local_behind<'m>(p: Value<'m>) -> Value<'m> {
    if p.opcode() == Some(LLVMOpcode::LLVMLoad) {
        let q = forwarded(p);
        if q.opcode() == Some(LLVMOpcode::LLVMAlloca) {
            return q;
        }
    }
    p
}

/// Whether `r` is a local written once (with an address) and otherwise
/// only loaded, each load only read through (loaded from, at its first or
/// another field) or kept in another such local: the address of a local
/// passed down by C++ reference at -O0, never written through.
fn is_read_only_reference(r: Value<'_>) -> bool {
    read_only_reference(r, 0)
}

fn read_only_reference(r: Value<'_>, depth: u32) -> bool {
    use LLVMOpcode::{LLVMAlloca, LLVMGetElementPtr, LLVMLoad, LLVMStore};
    if r.opcode() != Some(LLVMAlloca) || depth > 16 {
        return false;
    }
    let mut stores = 0;
    for u in r.users() {
        match u.opcode() {
            Some(LLVMStore) if u.operand(1) == r => stores += 1,
            Some(LLVMLoad) => {
                let only_read = u.users().iter().all(|w| match w.opcode() {
                    Some(LLVMLoad) => true,
                    Some(LLVMGetElementPtr) => {
                        other_field(*w) && w.users().iter().all(|x| x.opcode() == Some(LLVMLoad))
                    }
                    Some(LLVMStore) => {
                        w.operand(0) == u && read_only_reference(w.operand(1), depth + 1)
                    }
                    _ => false,
                });
                if !only_read {
                    return false;
                }
            }
            _ => return false,
        }
    }
    stores == 1
}

/// Whether GEP `g` has constant indices, not all zero: an address other
/// than its base's (for the struct and array types of -O0 locals).
fn other_field(g: Value<'_>) -> bool {
    let indices: Vec<Option<i64>> = (1..g.num_operands())
        .map(|k| g.operand(k).const_int_sext())
        .collect();
    indices.iter().all(|k| k.is_some_and(|k| k >= 0)) && indices.iter().any(|k| *k != Some(0))
}

/// The function a call site passes as `v` (through casts and
/// [`forwarded`] locals).
pub(crate) fn function_passed<'m>(v: Value<'m>) -> Option<Function<'m>> {
    forwarded(v).strip_to_function()
}

/// For each function differentiated, which of its pointer parameters
/// point to memory holding no floats (type analysis of the function,
/// which for one with a growing container at -O2 took seconds): computed
/// once per function and module, however many call sites differentiate
/// it and however often they are parsed.
pub(crate) type IntegerOnlyParams<'m> = std::collections::HashMap<Function<'m>, Vec<bool>>;

/// What parsing keeps between the two parses of every call site (the
/// second after earlier sites were lowered): the facts of
/// [`IntegerOnlyParams`], and the primal return slot made for each forward
/// call whose function returns through `sret` while the call returns only
/// the tangent (made once, in the caller's entry block).
#[derive(Default)]
pub(crate) struct ParseMemo<'m> {
    pub(crate) integer_only: IntegerOnlyParams<'m>,
    /// Set while a call is parsed again without [`IntegerOnlyParams`]
    /// (see [`parse`]).
    distrust_integer_only: bool,
    pub(crate) return_slots: std::collections::HashMap<Inst<'m>, Value<'m>>,
}

/// The argument for parameter 0 of `function` when it returns through
/// `sret` and forward-mode call `call` returns a class through its own
/// `sret` (`None` when either does not): `Dup` with the primal in a slot of
/// the caller (the call returns the tangent only) or in the first half of
/// the call's return (it returns the primal, then the tangent), the
/// tangent in the call's return. Forward mode of width 1 only.
fn sret_return<'m>(
    call: Inst<'m>,
    entry: EntryPoint,
    function: Function<'m>,
    sret: Option<Value<'m>>,
    width: u32,
    memo: &mut ParseMemo<'m>,
) -> Result<Option<CallArg<'m>>, String> {
    let (Some(out), Some(fty)) = (sret, function.param_sret_type(0)) else {
        return Ok(None);
    };
    if !matches!(entry, EntryPoint::FwdDiff | EntryPoint::ErrorEstimate) || width != 1 {
        // Reverse mode packs adjoints into the call's return slot: the
        // function's own return pointer is passed like any argument.
        return Ok(None);
    }
    let module = function.global_parent();
    let cty = call
        .call_arg_sret_type(0)
        .ok_or("the call's return has no type")?;
    let (fsize, csize) = (fty.abi_size(module), cty.abi_size(module));
    let b = crate::ir::Builder::new(call.context());
    let (primal, tangent) = if csize == fsize {
        let slot = *memo.return_slots.entry(call).or_insert_with(|| {
            let caller = call.parent_block().parent();
            b.position_before(
                caller
                    .entry_block()
                    .first_instruction()
                    .expect("an entry block"),
            );
            let slot = b.alloca(fty, "primal.ret");
            slot.set_alignment(16);
            slot
        });
        (slot, out)
    } else if csize >= 2 * fsize {
        b.position_before(call);
        (out, b.byte_gep(out, fsize))
    } else {
        return Err(format!(
            "the call returns {csize} bytes, neither the tangent's {fsize} nor the primal's and the tangent's"
        ));
    };
    Ok(Some(CallArg {
        activity: ArgActivity::Dup,
        value: primal,
        shadows: vec![tangent],
        lane_stride: None,
    }))
}

/// Parses a call to an entry point. An unmarked pointer whose memory type
/// analysis finds holding integers only is taken as const; when the call
/// then has values left over (its shadow was passed after all: the
/// analysis saw too little, as in unoptimised Eigen code), the call is
/// parsed again with every unmarked pointer `enzyme_dup`.
pub(crate) fn parse<'m>(
    call: Inst<'m>,
    entry: EntryPoint,
    caller: &str,
    memo: &mut ParseMemo<'m>,
) -> Result<CallSite<'m>, Diagnostic> {
    let first = parse_once(call, entry, caller, memo);
    match first {
        Err(d) if d.message.starts_with("too many arguments") => {
            memo.distrust_integer_only = true;
            let again = parse_once(call, entry, caller, memo);
            memo.distrust_integer_only = false;
            again.map_err(|_| d)
        }
        other => other,
    }
}

fn parse_once<'m>(
    call: Inst<'m>,
    entry: EntryPoint,
    caller: &str,
    memo: &mut ParseMemo<'m>,
) -> Result<CallSite<'m>, Diagnostic> {
    let err = |msg: String| Diagnostic::new(msg).in_function(caller).at(call);
    let nargs = call.call_num_args();
    let sret = (nargs > 0 && call.call_arg_has_attribute(0, "sret")).then(|| call.operand(0));
    let base = u32::from(sret.is_some());
    if nargs <= base {
        return Err(err(format!(
            "`{}` needs the function to differentiate as its first argument",
            entry.name()
        )));
    }
    let Some(function) = function_passed(call.operand(base)) else {
        return Err(err(format!(
            "the first argument of `{}` is not a function (seen: {})",
            entry.name(),
            call.operand(base).to_ir()
        ))
        .help("pass the function itself, e.g. __enzyme_autodiff((void*)f, ...)"));
    };
    let fname = function.name();
    if function.is_declaration() {
        return Err(err(format!(
            "cannot differentiate `{fname}`: it is an external function with no body in this module"
        ))
        .help(format!(
            "compile `{fname}` into the same bitcode (e.g. link the modules with llvm-link), or register a custom gradient for it"
        )));
    }
    let params = function.params();
    let mut args = Vec::with_capacity(params.len());
    // Whole-call markers first (anywhere in the list); the values left are
    // matched to the parameters in order.
    let cfg = call_config::read(call, base + 1, &err)?;
    let width = cfg.width;
    let rest = &cfg.rest;
    let mut pos = 0usize;
    let at = |pos: usize| rest.get(pos).copied().unwrap_or(nargs);
    let too_few = |k: u32| {
        err(format!(
            "too few arguments: `{fname}` has {} parameter(s) but the call to `{}` ran out of values at argument {}",
            params.len(),
            entry.name(),
            k
        ))
        .help("pass one value per parameter, each optionally preceded by an activity marker (enzyme_const, enzyme_out, enzyme_dup + shadow)")
    };
    // A function returning a class by value (through `sret`, parameter
    // 0) called by forward mode that returns a class too: the call's own
    // return slot holds the function's tangent (and, before it, its
    // primal when the call returns both, as `enzyme::Duplicated<T>` does).
    let implicit_return = sret_return(call, entry, function, sret, width, memo).map_err(|why| {
        err(format!(
            "`{fname}` returns its value through a pointer (sret): {why}"
        ))
    })?;
    let mut ret = cfg.ret;
    if let Some(arg) = implicit_return {
        // Where the primal is asked for, it is already the first half of
        // the call's return.
        ret.primal = false;
        args.push(arg);
    }
    for (pi, p) in params.iter().enumerate().skip(args.len()) {
        if pos >= rest.len() {
            return Err(too_few(at(pos)));
        }
        let mut v = call.operand(at(pos));
        let mut marker = marker_of(v);
        let mut lane_stride = None;
        if let Some(m) = marker {
            if !matches!(
                m,
                Marker::Const
                    | Marker::Out
                    | Marker::Dup
                    | Marker::DupNoNeed
                    | Marker::DupV
                    | Marker::DupNoNeedV
            ) {
                return Err(err(format!(
                    "the marker `{}` is not supported by `{}` yet",
                    m.name(),
                    entry.name()
                )));
            }
            if matches!(m, Marker::DupV | Marker::DupNoNeedV) {
                // The byte stride between the lanes' shadows comes first.
                pos += 1;
                if pos >= rest.len() {
                    return Err(too_few(at(pos)));
                }
                let stride = call.operand(at(pos));
                if !matches!(stride.ty().kind(), crate::ir::TyKind::Integer(_)) {
                    return Err(err(format!(
                        "argument {} of the call passes {} where `{}` takes the byte stride between the lanes' shadows",
                        at(pos),
                        stride.ty(),
                        m.name()
                    ))
                    .help("enzyme_dupv, stride in bytes, value, first lane's shadow"));
                }
                lane_stride = Some(stride);
                marker = Some(if m == Marker::DupV {
                    Marker::Dup
                } else {
                    Marker::DupNoNeed
                });
            }
            pos += 1;
            if pos >= rest.len() {
                return Err(too_few(at(pos)));
            }
            v = call.operand(at(pos));
            if let Some(m2) = marker_of(v) {
                return Err(err(format!(
                    "argument {} of the call is the marker `{}`, where the value of parameter {pi} of `{fname}` after `{}` was expected",
                    at(pos),
                    m2.name(),
                    m.name()
                ))
                .help("each activity marker is followed by the value it qualifies"));
            }
        }
        let k = at(pos);
        pos += 1;
        let ty = p.ty();
        if !crate::abi::convertible(v.ty(), ty) {
            return Err(err(format!(
                "argument {k} of the call passes {} for parameter {pi} of `{fname}`, which has type {ty}",
                v.ty()
            ))
            .help("pass one value per parameter, in order, each optionally preceded by an activity marker"));
        }
        let forward = matches!(
            entry,
            EntryPoint::FwdDiff | EntryPoint::FwdSplit | EntryPoint::ErrorEstimate
        );
        let activity = match marker {
            Some(Marker::Const) => ArgActivity::Const,
            Some(Marker::Out) if forward => {
                return Err(err(format!(
                    "parameter {pi} of `{fname}` is marked enzyme_out, which forward mode does not have (use enzyme_dup with a tangent)"
                )))
            }
            Some(Marker::Out) => ArgActivity::Out,
            Some(Marker::Dup) => ArgActivity::Dup,
            Some(Marker::DupNoNeed) => ArgActivity::DupNoNeed,
            _ if ty.is_fp_or_fp_vector() && forward => ArgActivity::Dup,
            _ if ty.is_fp_or_fp_vector() => ArgActivity::Out,
            // Unmarked memory of integers only (`int *n`) has no shadow;
            // `f` is analysed once, when first needed.
            _ if ty.kind() == crate::ir::TyKind::Pointer
                && !is_function_choice(v)
                && !memo.distrust_integer_only
                && memo
                    .integer_only
                    .entry(function)
                    .or_insert_with(|| enz_core::pointer_params_holding_no_floats(function))
                    [pi] =>
            {
                ArgActivity::Const
            }
            // An unmarked pointer the function never uses, with no shadow
            // after it (the next value is no pointer): it has no
            // derivative, and the call no shadow to give (Enzyme's omp3.c
            // passes an unused `int *` so).
            _ if ty.kind() == crate::ir::TyKind::Pointer
                && never_read(*p)
                && (pos >= rest.len()
                    || !crate::abi::convertible(call.operand(at(pos)).ty(), ty)) =>
            {
                ArgActivity::Const
            }
            _ if ty.kind() == crate::ir::TyKind::Pointer => ArgActivity::Dup,
            _ => ArgActivity::Const,
        };
        if activity == ArgActivity::Out && !ty.carries_float() {
            return Err(err(format!(
                "parameter {pi} of `{fname}` has type {ty}, which cannot be `enzyme_out` (only floating-point values have adjoints to return)"
            )));
        }
        let mut shadows = Vec::new();
        // A function passed for a pointer parameter with no marker is its
        // own shadow (lowering passes its table of derivatives), unless the
        // call passes it twice, as `enzyme_dup` would.
        let implicit_function_shadow = marker.is_none()
            && ty.kind() == crate::ir::TyKind::Pointer
            && is_function_choice(v)
            && (pos >= rest.len() || call.operand(at(pos)) != v);
        if implicit_function_shadow {
            shadows = vec![v; width as usize];
        } else if matches!(activity, ArgActivity::Dup | ArgActivity::DupNoNeed) {
            if !forward && !ty.carries_float() && ty.kind() != crate::ir::TyKind::Pointer {
                return Err(err(format!(
                    "parameter {pi} of `{fname}` has type {ty}, which has no shadow (enzyme_dup is for pointers and, in forward mode, floats)"
                )));
            }
            if !forward && ty.kind() != crate::ir::TyKind::Pointer {
                return Err(err(format!(
                    "parameter {pi} of `{fname}` is a scalar marked enzyme_dup: in reverse mode use enzyme_out (its adjoint is returned)"
                )));
            }
            // enzyme_dupv passes one shadow: the first lane's.
            let passed = if lane_stride.is_some() { 1 } else { width };
            for _ in 0..passed {
                if pos >= rest.len() {
                    return Err(too_few(at(pos)));
                }
                let k = at(pos);
                let shadow = call.operand(k);
                if !crate::abi::convertible(shadow.ty(), ty) {
                    return Err(err(format!(
                        "argument {k} of the call passes {} as the shadow of parameter {pi} of `{fname}`, which needs a {ty} (a shadow has the parameter's type)",
                        shadow.ty()
                    ))
                    .help("after enzyme_dup, pass the primal value and then its shadow (e.g. a pointer to a zeroed buffer of the same size)"));
                }
                shadows.push(shadow);
                pos += 1;
            }
        }
        if lane_stride.is_some() {
            if ty.kind() != crate::ir::TyKind::Pointer || shadows.is_empty() {
                return Err(err(format!(
                    "parameter {pi} of `{fname}` has type {ty}: enzyme_dupv strides between the shadows of a pointer"
                )));
            }
            shadows = vec![shadows[0]; width as usize];
        }
        args.push(CallArg {
            activity,
            value: v,
            shadows,
            lane_stride,
        });
    }
    let left: Vec<Value> = rest[pos..].iter().map(|&j| call.operand(j)).collect();
    if let Some(m) = left.iter().find_map(|v| marker_of(*v)) {
        return Err(err(format!(
            "the marker `{}` comes after the last parameter of `{fname}` in the call to `{}`, with no value to qualify",
            m.name(),
            entry.name()
        )));
    }
    let trailing = if matches!(entry, EntryPoint::Reverse | EntryPoint::FwdSplit) {
        left
    } else if !left.is_empty() {
        return Err(err(format!(
            "too many arguments: `{fname}` has {} parameter(s) but the call to `{}` passes {} more value(s)",
            params.len(),
            entry.name(),
            left.len()
        )));
    } else {
        Vec::new()
    };
    Ok(CallSite {
        call,
        entry,
        function,
        args,
        sret,
        width,
        allocated: cfg.allocated,
        tape: cfg.tape,
        context: cfg.context,
        ret,
        trailing,
    })
}
