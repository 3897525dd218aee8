//! GEPs in type analysis: byte offsets from the data layout, and how facts
//! move between a GEP's base and its result.
//!
//! A constant GEP shifts offsets. A variable index of stride `s` makes the
//! data periodic. When the variable index selects inside a fixed-size array
//! (`gep [16 x double], p, 0, %i`), the facts are laid out over that array
//! explicitly. When it indexes the pointer itself (`gep double, p, %i`), the
//! array's extent is unknown: facts fold into the first period (offsets
//! modulo `s`), and a period one type tiles exactly becomes `-1` (every
//! offset).

use super::{is_scalar, Solver};
use crate::analysis::types::tree::{ConcreteType, TypeTree, MAX_OFFSET};
use crate::ir::LLVMOpcode;
use crate::ir::{Ty, TyKind, Value};
use std::collections::HashSet;

/// Most explicit offsets one fact is laid out over; beyond that only the
/// first is kept.
const MAX_EXPAND: i64 = 512;

/// Where a GEP points: `base + offset + k * stride` for unknown `k`
/// (stride 0: a constant GEP).
struct GepOffset<'m> {
    offset: i64,
    stride: i64,
    /// Byte range `[start, end)` of the base the variable part stays in,
    /// when the first variable index selects inside a fixed-size array;
    /// `None` when it indexes the pointer itself (unbounded).
    region: Option<(i64, i64)>,
    /// Size of the object the result points at, when the first index is a
    /// constant zero and later indices select inside the base's object.
    extent: Option<i64>,
    /// The type the last index selects.
    elem: Ty<'m>,
}

fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

/// Writes a variable index as `scale * x + addend` for some unknown `x`
/// (`scale == 0`: a constant), seeing through casts, and `add`/`sub`/`mul`/
/// `shl` by constants.
fn split_index<'m>(ix: Value<'m>, depth: u32) -> (i64, i64) {
    use LLVMOpcode::*;
    if let Some(c) = ix.const_int_sext() {
        return (0, c);
    }
    let opaque = (1, 0);
    if depth == 0 || !ix.is_instruction() {
        return opaque;
    }
    let op = ix.opcode();
    if matches!(op, Some(LLVMSExt | LLVMZExt)) {
        return split_index(ix.operand(0), depth - 1);
    }
    if ix.num_operands() != 2 {
        return opaque;
    }
    let Some(k) = ix.operand(1).const_int_sext() else {
        return opaque;
    };
    let (s, a) = split_index(ix.operand(0), depth - 1);
    let r = match op {
        Some(LLVMAdd) => Some((s, a.saturating_add(k))),
        Some(LLVMSub) => Some((s, a.saturating_sub(k))),
        Some(LLVMMul) => s.checked_mul(k).zip(a.checked_mul(k)),
        Some(LLVMShl) if (0..32).contains(&k) => s.checked_mul(1 << k).zip(a.checked_mul(1 << k)),
        _ => None,
    };
    r.unwrap_or(opaque)
}

/// Size of the innermost scalar of an array/vector type.
fn leaf_size<'m>(ty: Ty<'m>, module: crate::ir::Module) -> Option<i64> {
    let mut t = ty;
    while matches!(t.kind(), TyKind::Array | TyKind::Vector) && !t.is_scalable_vector() {
        t = t.element();
    }
    if is_scalar(t) {
        t.layout_size(module).map(|x| x as i64)
    } else {
        None
    }
}

/// Offsets `from, from + step, ...` below `to`; only `from` if too many.
fn chunks(from: i64, to: i64, step: i64) -> Vec<i64> {
    if step <= 0 || from < 0 || to <= from {
        return Vec::new();
    }
    if (to - from) / step > MAX_EXPAND {
        return vec![from];
    }
    (from..to.min(MAX_OFFSET + 1))
        .step_by(step as usize)
        .collect()
}

impl<'m, 'c> Solver<'m, 'c> {
    /// Byte offset, stride and bounds of a GEP, `None` where the layout
    /// cannot say (vector GEPs, unsized types, odd indices).
    fn gep_offset(&self, gep: Value<'m>) -> Option<GepOffset<'m>> {
        let n = gep.num_operands();
        let mut cur = gep.gep_source_type();
        let mut offset: i64 = 0;
        let mut stride: i64 = 0;
        let mut region = None;
        for k in 1..n {
            let ix = gep.operand(k);
            let mut array_len = None;
            if k > 1 {
                match cur.kind() {
                    TyKind::Struct => {
                        let f = u32::try_from(ix.const_int_sext()?).ok()?;
                        offset = offset.checked_add(cur.field_offset(self.module, f)? as i64)?;
                        cur = cur.member(f);
                        continue;
                    }
                    TyKind::Array | TyKind::Vector if !cur.is_scalable_vector() => {
                        array_len = Some(i64::try_from(cur.len()).ok()?);
                        cur = cur.element();
                    }
                    _ => return None,
                }
            }
            if !ix.ty().is_integer() {
                return None;
            }
            let size = i64::try_from(cur.layout_size(self.module)?).ok()?;
            let (scale, addend) = split_index(ix, 4);
            if scale != 0 {
                if stride == 0 {
                    // The first variable index: bounded inside an array.
                    region = match array_len {
                        Some(len) => Some((offset, offset.checked_add(len.checked_mul(size)?)?)),
                        None => None,
                    };
                }
                stride = gcd(stride, scale.checked_mul(size)?);
            }
            offset = offset.checked_add(addend.checked_mul(size)?)?;
        }
        let first_zero = n >= 3 && gep.operand(1).const_int_sext() == Some(0);
        let extent = if first_zero {
            Some(i64::try_from(cur.layout_size(self.module)?).ok()?)
        } else {
            None
        };
        Some(GepOffset {
            offset,
            stride,
            region,
            extent,
            elem: cur,
        })
    }

    /// Visits a GEP: facts flow from base to result and back.
    pub(super) fn gep(&mut self, i: Value<'m>) {
        for k in 1..i.num_operands() {
            self.integer(i.operand(k));
        }
        if i.ty().kind() != TyKind::Pointer || i.num_operands() == 0 {
            return;
        }
        let base = i.operand(0);
        let ptr_size = base.ty().layout_size(self.module).map(|x| x as i64);
        let Some(mut g) = self.gep_offset(i) else {
            return;
        };
        // `p.next = gep p, c` around a loop: p is `start + k * c`.
        if g.stride == 0 && g.offset != 0 && self.is_induction_step(i, base) {
            (g.stride, g.offset, g.region, g.extent) = (g.offset.abs(), 0, None, None);
        }
        let down = down(&self.tree_ref(base), &g);
        self.update(i, &down.without_root());
        let up = self.up(&self.tree_ref(i), &self.tree_ref(base), &g, ptr_size);
        self.update(base, &up);
    }

    /// The result's facts seen from the base.
    fn up(
        &self,
        rt: &TypeTree,
        bt: &TypeTree,
        g: &GepOffset<'m>,
        ptr_size: Option<i64>,
    ) -> TypeTree {
        let (c, s) = (g.offset, g.stride);
        if s != 0 && g.region.is_none() {
            return if self.tiles_period(rt, (c, s), g.elem, ptr_size) {
                rt.map_first(|_| Some(-1)).without_root()
            } else {
                rt.map_first(|o| Some((o + c).rem_euclid(s))).without_root()
            };
        }
        let chunk = |t: ConcreteType| {
            match t {
                ConcreteType::Float(k) => k.size().map(|x| x as i64),
                ConcreteType::Pointer => ptr_size,
                _ => None,
            }
            .or_else(|| leaf_size(g.elem, self.module))
            .unwrap_or(1)
        };
        let mut out = TypeTree::new();
        for (p, t) in rt.entries() {
            let Some(o) = p.first() else { continue };
            let places = match g.region {
                None if o >= 0 => vec![o + c],
                None => match g.extent {
                    Some(e) => chunks(c, c + e, chunk(t)),
                    None if c == 0 => vec![-1],
                    // "Every offset from c on" has no form: keep the first,
                    // unless the base already says what is there.
                    None if !bt.at(&[c]).is_known() => vec![c],
                    None => Vec::new(),
                },
                Some((a, b)) if o >= 0 => chunks(a + (c + o - a).rem_euclid(s), b, s),
                Some((a, b)) => chunks(a, b, chunk(t)),
            };
            for q in places.into_iter().filter_map(|x| p.with_first(x)) {
                out.insert_path(q, t);
            }
        }
        out
    }

    /// Whether `gep`'s result flows back into its own `base` (through phis,
    /// selects, pointer casts, GEPs and directly recursive calls): then
    /// `base` walks memory in steps of the GEP's offset.
    fn is_induction_step(&mut self, gep: Value<'m>, base: Value<'m>) -> bool {
        if let Some(known) = self.induction.get(&gep) {
            return *known;
        }
        use LLVMOpcode::*;
        let params = self.func.params();
        let mut todo = vec![gep];
        let mut seen: HashSet<Value> = todo.iter().copied().collect();
        let mut found = false;
        while let Some(v) = todo.pop() {
            for u in v.users() {
                let next: Vec<Value> = match u.opcode() {
                    Some(LLVMPHI | LLVMSelect | LLVMBitCast | LLVMAddrSpaceCast) => vec![u],
                    Some(LLVMGetElementPtr) if u.operand(0) == v => vec![u],
                    Some(LLVMCall | LLVMInvoke) if u.called_function() == Some(self.func) => (0..u
                        .as_inst()
                        .expect("a call is an instruction")
                        .call_num_args())
                        .filter(|k| u.operand(*k) == v)
                        .filter_map(|k| params.get(k as usize).copied())
                        .collect(),
                    _ => Vec::new(),
                };
                for n in next {
                    found |= n == base;
                    if seen.insert(n) {
                        todo.push(n);
                    }
                }
            }
            if found {
                break;
            }
        }
        self.induction.insert(gep, found);
        found
    }

    /// Whether the result's first-level facts, seen from the base modulo
    /// `s`, are one type covering the whole period: a `-1` entry, or
    /// entries of that type laid end to end over it.
    fn tiles_period(
        &self,
        rt: &TypeTree,
        (c, s): (i64, i64),
        elem: Ty<'m>,
        ptr_size: Option<i64>,
    ) -> bool {
        let facts: Vec<(i64, ConcreteType)> = rt.first_level().collect();
        let Some((_, ty)) = facts.first().copied() else {
            return false;
        };
        if facts.iter().any(|(_, t)| *t != ty) {
            return false;
        }
        if facts.iter().any(|(o, _)| *o == -1) {
            return true;
        }
        let size = match ty {
            ConcreteType::Float(k) => k.size().map(|x| x as i64),
            ConcreteType::Pointer => ptr_size,
            // Integers have no size of their own: use the GEP's element type.
            ConcreteType::Integer if is_scalar(elem) => {
                elem.layout_size(self.module).map(|x| x as i64)
            }
            _ => None,
        };
        let Some(size) = size.filter(|z| *z > 0 && s % *z == 0) else {
            return false;
        };
        let mut covered: Vec<i64> = facts.iter().map(|(o, _)| (o + c).rem_euclid(s)).collect();
        covered.sort_unstable();
        covered.dedup();
        covered.len() as i64 == s / size
            && covered
                .iter()
                .enumerate()
                .all(|(k, o)| *o == k as i64 * size)
    }
}

/// The base's facts seen from the result.
fn down<'m>(bt: &TypeTree, g: &GepOffset<'m>) -> TypeTree {
    let (c, s) = (g.offset, g.stride);
    if s == 0 {
        return bt.shift_pointee(c);
    }
    let fold = |t: &TypeTree| t.map_first(|o| Some((o - c).rem_euclid(s)));
    match g.region {
        Some((a, b)) => fold(&bt.filter_first(|o| o == -1 || (a..b).contains(&o))),
        // Only a base that looks like an array of this period folds; other
        // objects (a struct with an array and more fields) give only `-1`s.
        None if bt.first_level().all(|(o, _)| o < s) => fold(bt),
        None => bt.filter_first(|o| o == -1),
    }
}
