//! Integers that carry floats, retyped as floats.
//!
//! clang and instcombine move floats as integers whenever nothing does
//! arithmetic on them on the way: a `memcpy` of a double becomes `load
//! i64` / `store i64`, a rotation or swap of an array of doubles keeps its
//! elements in `i64` phis around the loop, the vectoriser moves them as
//! `<2 x i64>` with shuffles, and a branch choosing between two doubles
//! becomes a `select` of integers. Synthesis gives integers no
//! derivatives, so every one of these silently dropped the derivatives of
//! what it moved.
//!
//! A *web* here is a set of integer values (scalars of 32 or 64 bits, or
//! fixed vectors of them) connected by moves only: loads, phis, selects,
//! `insertelement`/`extractelement`/`shufflevector`, `freeze`, bitcasts
//! from a float,
//! integer constants; used only by stores of them, other members, and
//! bitcasts to a float. When type analysis says some member holds a float
//! of the member's width and none holds an integer or a pointer, the whole
//! web is rebuilt with the float type (`i64` as `double`, `<2 x i64>` as
//! `<2 x double>`, `i32` as `float`): its loads and stores then move
//! floats, which synthesis differentiates. The primal's meaning is
//! unchanged (the same bits are loaded, merged and stored).

use super::moves::{use_of, visit_moved_operands, Use};
use crate::analysis::types::{ConcreteType, FloatKind, TypeAnalysis};
use crate::ir::LLVMOpcode;
use crate::ir::{Builder, Function, Inst, Ty, TyKind, Value};
use std::collections::{HashMap, HashSet};

/// Most members a web may have before it is left alone (a bound on the
/// work, far above what moves of floats produce).
const MAX_WEB: usize = 4096;

/// A set of integer values connected by moves only (module doc).
struct Web<'m> {
    members: Vec<Inst<'m>>,
    /// Stores of a member (as the stored value).
    stores: Vec<Inst<'m>>,
    /// Bitcasts of a member to a float type.
    to_float: Vec<Inst<'m>>,
}

/// Retypes the webs of `func` that carry floats (module doc); returns the
/// loads of the webs that type analysis knows carry integers.
pub(super) fn retype_integer_floats<'m>(func: Function<'m>) -> HashSet<Inst<'m>> {
    let mut webs = Vec::new();
    let mut seen = HashSet::new();
    for b in func.blocks() {
        for i in b.instructions() {
            if seen.contains(&i) || !starts_web(i) {
                continue;
            }
            if let Some(web) = web_of(i, &mut seen) {
                webs.push(web);
            }
        }
    }
    let mut integers = HashSet::new();
    if webs.is_empty() {
        return integers;
    }
    let ta = TypeAnalysis::analyse(func);
    for web in webs {
        match carried(&web, &ta) {
            Some(ConcreteType::Float(kind)) => retype(&web, kind),
            Some(ConcreteType::Integer) => integers.extend(
                web.members
                    .iter()
                    .filter(|m| m.opcode() == Some(LLVMOpcode::LLVMLoad)),
            ),
            _ => {}
        }
    }
    integers
}

/// The float kind of integer bits of width `bits`, among those retyped.
fn float_kind_of_width(bits: u32) -> Option<FloatKind> {
    match bits {
        32 => Some(FloatKind::F32),
        64 => Some(FloatKind::F64),
        _ => None,
    }
}

/// The integer element width of `ty` (`iN` or `<k x iN>`), if retypable.
fn integer_width<'m>(ty: Ty<'m>) -> Option<u32> {
    let scalar = match ty.kind() {
        TyKind::Vector if !ty.is_scalable_vector() => ty.element(),
        _ => ty,
    };
    match scalar.kind() {
        TyKind::Integer(bits) if float_kind_of_width(bits).is_some() => Some(bits),
        _ => None,
    }
}

/// Whether a web may start at `i`: a simple integer load, or a float's
/// bits taken as an integer.
fn starts_web<'m>(i: Inst<'m>) -> bool {
    match i.opcode() {
        Some(LLVMOpcode::LLVMLoad) => i.is_simple_access() && integer_width(i.ty()).is_some(),
        Some(LLVMOpcode::LLVMBitCast) => is_float_twin(i.ty(), i.operand(0).ty()),
        _ => false,
    }
}

/// The web containing `start`, if every member is a move and every use a
/// move, a store or a bitcast to a float (`seen` collects the members
/// visited, so a web is built once).
fn web_of<'m>(start: Inst<'m>, seen: &mut HashSet<Inst<'m>>) -> Option<Web<'m>> {
    let mut web = Web {
        members: Vec::new(),
        stores: Vec::new(),
        to_float: Vec::new(),
    };
    let mut ok = true;
    let mut todo = vec![start];
    let mut visited = HashSet::new();
    while let Some(v) = todo.pop() {
        if !visited.insert(v) {
            continue;
        }
        seen.insert(v);
        if visited.len() > MAX_WEB || integer_width(v.ty()).is_none() {
            ok = false;
            continue;
        }
        web.members.push(v);
        ok &= match v.opcode() {
            Some(LLVMOpcode::LLVMLoad) => v.is_simple_access(),
            Some(LLVMOpcode::LLVMBitCast) => is_float_twin(v.ty(), v.operand(0).ty()),
            Some(LLVMOpcode::LLVMShuffleVector)
                if !v.shuffle_mask().iter().all(Option::is_some) =>
            {
                false
            }
            _ => visit_moved_operands(v, &mut todo),
        };
        for u in v.users() {
            let Some(u) = u.as_inst() else {
                ok = false;
                continue;
            };
            if u.opcode() == Some(LLVMOpcode::LLVMBitCast) && is_float_twin(v.ty(), u.ty()) {
                if !web.to_float.contains(&u) {
                    web.to_float.push(u);
                }
                continue;
            }
            match use_of(v, u) {
                Use::Stored => {
                    if !web.stores.contains(&u) {
                        web.stores.push(u);
                    }
                }
                Use::Moved => todo.push(u),
                Use::Other => ok = false,
            }
        }
    }
    ok.then_some(web)
}

/// What `web` carries, where type analysis knows it and its members
/// agree: a float of the members' element width, or integers.
fn carried<'m>(web: &Web<'m>, ta: &TypeAnalysis<'m>) -> Option<ConcreteType> {
    let mut found = None;
    for m in &web.members {
        let width = float_kind_of_width(integer_width(m.ty())?)?;
        let t = match ta.tree(m.as_value()).root() {
            ConcreteType::Unknown | ConcreteType::Anything => continue,
            ConcreteType::Float(k) if k != width => return None,
            t => t,
        };
        if found.is_some_and(|f| f != t) {
            return None;
        }
        found = Some(t);
    }
    found
}

/// Whether `fty` is the float type of integer type `ty`'s shape and
/// width (`double` for `i64`, `<2 x float>` for `<2 x i32>`): a bitcast
/// between them moves the same floats.
fn is_float_twin<'m>(ty: Ty<'m>, fty: Ty<'m>) -> bool {
    integer_width(ty)
        .and_then(float_kind_of_width)
        .is_some_and(|kind| float_type(ty, kind) == fty)
}

/// The float type with the shape of integer type `ty`.
fn float_type<'m>(ty: Ty<'m>, kind: FloatKind) -> Ty<'m> {
    let ctx = ty.context();
    let scalar = match kind {
        FloatKind::F32 => Ty::float(ctx),
        _ => Ty::double(ctx),
    };
    match ty.kind() {
        TyKind::Vector => scalar.vector(ty.len() as u32),
        _ => scalar,
    }
}

/// Rebuilds `web` with float types and erases the integer members.
fn retype<'m>(web: &Web<'m>, kind: FloatKind) {
    let Some(first) = web.members.first() else {
        return;
    };
    let b = Builder::new(first.context());
    let mut new: HashMap<Value<'m>, Value<'m>> = HashMap::new();
    // Phis first: they may refer to each other and to later members.
    for m in &web.members {
        if m.opcode() == Some(LLVMOpcode::LLVMPHI) {
            b.position_before(*m);
            let phi = b.phi(float_type(m.ty(), kind), &m.name());
            new.insert(m.as_value(), phi.as_value());
        }
    }
    for m in &web.members {
        float_value(m.as_value(), kind, &b, &mut new);
    }
    for m in &web.members {
        if m.opcode() == Some(LLVMOpcode::LLVMPHI) {
            let phi = new[&m.as_value()].as_inst().expect("a phi built above");
            for (x, from) in m.incoming() {
                let fx = float_value(x, kind, &b, &mut new);
                phi.add_incoming(fx, from);
            }
        }
    }
    for st in &web.stores {
        b.position_before(*st);
        let fv = new[&st.operand(0)];
        let s = b.store(fv, st.operand(1));
        s.set_alignment(st.alignment());
        st.erase();
    }
    for c in &web.to_float {
        let fv = new[&c.operand(0)];
        c.as_value().replace_all_uses_with(fv);
        c.erase();
    }
    for m in &web.members {
        m.as_value().replace_all_uses_with(b.poison(m.ty()));
    }
    for m in &web.members {
        m.erase();
    }
}

/// The float counterpart of web member or constant `v`, built right
/// before the member (operands first) when not built yet.
fn float_value<'m>(
    v: Value<'m>,
    kind: FloatKind,
    b: &Builder<'m>,
    new: &mut HashMap<Value<'m>, Value<'m>>,
) -> Value<'m> {
    if let Some(f) = new.get(&v) {
        return *f;
    }
    let fty = float_type(v.ty(), kind);
    let Some(m) = v.as_inst() else {
        // An integer constant: the same bits as a float constant.
        let c = b.bit_cast(v, fty);
        new.insert(v, c);
        return c;
    };
    let f = match m.opcode() {
        Some(LLVMOpcode::LLVMBitCast) => m.operand(0),
        Some(LLVMOpcode::LLVMLoad) => {
            b.position_before(m);
            let l = b.load(fty, m.operand(0));
            l.set_alignment(m.alignment());
            l
        }
        Some(LLVMOpcode::LLVMSelect) => {
            let x = float_value(m.operand(1), kind, b, new);
            let y = float_value(m.operand(2), kind, b, new);
            b.position_before(m);
            b.select(m.operand(0), x, y)
        }
        Some(LLVMOpcode::LLVMShuffleVector) => {
            let x = float_value(m.operand(0), kind, b, new);
            let y = float_value(m.operand(1), kind, b, new);
            let mask: Vec<u32> = m.shuffle_mask().into_iter().flatten().collect();
            b.position_before(m);
            b.shuffle_vector(x, y, &mask)
        }
        Some(LLVMOpcode::LLVMInsertElement) => {
            let x = float_value(m.operand(0), kind, b, new);
            let e = float_value(m.operand(1), kind, b, new);
            b.position_before(m);
            b.insert_element(x, e, m.operand(2))
        }
        Some(LLVMOpcode::LLVMExtractElement) => {
            let x = float_value(m.operand(0), kind, b, new);
            b.position_before(m);
            b.extract_element(x, m.operand(1))
        }
        Some(LLVMOpcode::LLVMFreeze) => {
            let x = float_value(m.operand(0), kind, b, new);
            b.position_before(m);
            b.freeze(x)
        }
        _ => unreachable!("web members are moves (web_of)"),
    };
    new.insert(v, f);
    f
}
