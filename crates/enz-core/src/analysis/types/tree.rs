//! The type lattice ([`ConcreteType`]) and type trees ([`TypeTree`]).
//!
//! Pure data: no LLVM calls except [`ConcreteType::from_ty`], which reads a
//! type's kind.

use crate::ir::{Ty, TyKind};
use std::collections::BTreeMap;
use std::fmt;

/// Paths longer than this (pointer to pointer to ... data) are dropped, so
/// that self-referential data (linked lists) cannot grow trees forever.
pub(crate) const MAX_DEPTH: usize = 6;

/// Byte offsets above this are dropped, so that pointer-increment loops
/// cannot grow trees forever (Enzyme's `-enzyme-max-int-offset` is 100).
pub(crate) const MAX_OFFSET: i64 = 4096;

/// The kind of a floating-point type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub(crate) enum FloatKind {
    /// `half`.
    Half,
    /// `float`.
    F32,
    /// `double`.
    F64,
    /// `bfloat`, `x86_fp80`, `fp128`, `ppc_fp128`.
    Other,
}

impl FloatKind {
    /// Size in bytes, where fixed (`Other` is not).
    pub(crate) fn size(self) -> Option<u64> {
        match self {
            FloatKind::Half => Some(2),
            FloatKind::F32 => Some(4),
            FloatKind::F64 => Some(8),
            FloatKind::Other => None,
        }
    }
}

/// What a value (or a byte of memory) holds.
///
/// `Unknown` is the bottom. `Anything` ("any byte pattern": `char` data,
/// padding) is compatible with everything: `Anything ⊔ X = X`. `Integer`,
/// `Pointer` and each `Float` kind are maximal; two different ones conflict.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord, Default)]
pub(crate) enum ConcreteType {
    /// Nothing known yet.
    #[default]
    Unknown,
    /// Any byte pattern (e.g. `char`); compatible with every other type.
    Anything,
    /// Integer data.
    Integer,
    /// A pointer.
    Pointer,
    /// Floating-point data of one kind.
    Float(FloatKind),
}

/// The outcome of joining two concrete types.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Join {
    /// The left-hand side already covers the right-hand side.
    Same,
    /// The join is this (more precise) type.
    Changed(ConcreteType),
    /// The two are incompatible (e.g. `Float` vs `Pointer`).
    Conflict,
}

impl ConcreteType {
    /// Joins `other` into `self` (see the lattice on [`ConcreteType`]).
    pub(crate) fn join(self, other: ConcreteType) -> Join {
        use ConcreteType::*;
        match (self, other) {
            (a, b) if a == b => Join::Same,
            (_, Unknown) => Join::Same,
            (Unknown, b) => Join::Changed(b),
            (_, Anything) => Join::Same,
            (Anything, b) => Join::Changed(b),
            _ => Join::Conflict,
        }
    }

    /// Whether this is a floating-point type.
    pub(crate) fn is_float(self) -> bool {
        matches!(self, ConcreteType::Float(_))
    }

    /// Whether anything is known (not `Unknown`).
    pub(crate) fn is_known(self) -> bool {
        self != ConcreteType::Unknown
    }

    /// The type an LLVM type fixes by itself: floating-point scalars and
    /// vectors are `Float`, pointers (and vectors of them) `Pointer`.
    /// Integers stay `Unknown`: their bits may be a copied float or pointer.
    pub(crate) fn from_ty(ty: Ty) -> ConcreteType {
        match ty.kind() {
            TyKind::Half => ConcreteType::Float(FloatKind::Half),
            TyKind::Float => ConcreteType::Float(FloatKind::F32),
            TyKind::Double => ConcreteType::Float(FloatKind::F64),
            TyKind::OtherFloat => ConcreteType::Float(FloatKind::Other),
            TyKind::Pointer => ConcreteType::Pointer,
            TyKind::Vector => ConcreteType::from_ty(ty.element()),
            _ => ConcreteType::Unknown,
        }
    }
}

impl fmt::Display for ConcreteType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConcreteType::Unknown => "Unknown",
            ConcreteType::Anything => "Anything",
            ConcreteType::Integer => "Integer",
            ConcreteType::Pointer => "Pointer",
            ConcreteType::Float(FloatKind::Half) => "Float@half",
            ConcreteType::Float(FloatKind::F32) => "Float@float",
            ConcreteType::Float(FloatKind::F64) => "Float@double",
            ConcreteType::Float(FloatKind::Other) => "Float@other",
        })
    }
}

/// One rejected join, for diagnostics: `path` kept `kept` and refused `rejected`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) struct TreeConflict {
    /// The path where the types met.
    pub(crate) path: Vec<i64>,
    /// The type the tree keeps.
    pub(crate) kept: ConcreteType,
    /// The type that was refused.
    pub(crate) rejected: ConcreteType,
}

/// A map from byte-offset paths to types.
///
/// For a value `v`: `[]` is the type of `v` itself; if `v` is a pointer,
/// `[o]` is the type of the data at byte `o` of `*v`, `[o, o2]` the data at
/// byte `o2` of the pointer stored at `*(v + o)`, and so on. An offset of
/// `-1` means "every offset": it is the default for offsets of that level
/// that have no entry of their own (a specific entry overrides it). Each
/// datum is recorded at its first byte only. `Unknown` is never stored.
#[derive(Clone, Default, PartialEq, Eq, Hash, Debug)]
pub(crate) struct TypeTree {
    map: BTreeMap<Vec<i64>, ConcreteType>,
}

/// Whether `general` covers `path`: same length, each offset equal or -1.
fn covers(general: &[i64], path: &[i64]) -> bool {
    general.len() == path.len() && general.iter().zip(path).all(|(g, p)| g == p || *g == -1)
}

/// The strictly more general forms of `path` (some offsets replaced by
/// `-1`), fewest `-1`s first.
fn generalisations(path: &[i64]) -> impl Iterator<Item = Vec<i64>> + '_ {
    let free: Vec<usize> = (0..path.len()).filter(|i| path[*i] != -1).collect();
    let mut masks: Vec<u32> = (1..(1u32 << free.len())).collect();
    masks.sort_by_key(|m| m.count_ones());
    masks.into_iter().map(move |m| {
        let mut g = path.to_vec();
        for (bit, i) in free.iter().enumerate() {
            if m & (1 << bit) != 0 {
                g[*i] = -1;
            }
        }
        g
    })
}

impl TypeTree {
    /// The empty tree (nothing known).
    pub(crate) fn new() -> TypeTree {
        TypeTree::default()
    }

    /// A tree with only `[]: ct` (empty if `ct` is `Unknown`).
    pub(crate) fn from_type(ct: ConcreteType) -> TypeTree {
        let mut t = TypeTree::new();
        t.insert(Vec::new(), ct);
        t
    }

    /// A tree with only `path: ct`.
    pub(crate) fn from_path(path: Vec<i64>, ct: ConcreteType) -> TypeTree {
        let mut t = TypeTree::new();
        t.insert(path, ct);
        t
    }

    /// Whether nothing is known.
    pub(crate) fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// All entries, sorted by path (`-1` before `0`).
    pub(crate) fn entries(&self) -> impl Iterator<Item = (&Vec<i64>, ConcreteType)> {
        self.map.iter().map(|(p, t)| (p, *t))
    }

    /// Entries of the first pointee level: `(offset, type)` for each `[o]`.
    pub(crate) fn first_level(&self) -> impl Iterator<Item = (i64, ConcreteType)> + '_ {
        self.map
            .iter()
            .filter(|(p, _)| p.len() == 1)
            .map(|(p, t)| (p[0], *t))
    }

    /// Inserts `path: ct`, joining with what is there. Returns whether the
    /// tree changed, and the conflict if the join was refused (the old type
    /// is kept). Paths too deep or with offsets out of range are dropped.
    pub(crate) fn insert(
        &mut self,
        path: Vec<i64>,
        ct: ConcreteType,
    ) -> (bool, Option<TreeConflict>) {
        if !ct.is_known()
            || path.len() > MAX_DEPTH
            || path.iter().any(|o| *o < -1 || *o > MAX_OFFSET)
        {
            return (false, None);
        }
        if let Some(old) = self.map.get(&path).copied() {
            return match old.join(ct) {
                Join::Same => (false, None),
                Join::Changed(t) => {
                    self.map.insert(path, t);
                    (true, None)
                }
                Join::Conflict => (
                    false,
                    Some(TreeConflict {
                        path,
                        kept: old,
                        rejected: ct,
                    }),
                ),
            };
        }
        // A more general entry of the same type already says this.
        if generalisations(&path)
            .any(|g| self.map.get(&g).is_some_and(|t| t.join(ct) == Join::Same))
        {
            return (false, None);
        }
        // A general entry subsumes the specific ones it agrees with.
        if path.contains(&-1) {
            self.map.retain(|p, t| {
                !(*p != path && covers(&path, p) && matches!(ct.join(*t), Join::Same))
            });
        }
        self.map.insert(path, ct);
        (true, None)
    }

    /// Whether joining `other` would change nothing: each entry of `other`
    /// is already here (or under a more general entry) with a type that
    /// covers it. Conflicting entries count as new (the join reports them).
    pub(crate) fn covers_all(&self, other: &TypeTree) -> bool {
        other.map.iter().all(|(p, t)| match self.map.get(p) {
            Some(h) => h.join(*t) == Join::Same,
            None => generalisations(p)
                .any(|g| self.map.get(&g).is_some_and(|h| h.join(*t) == Join::Same)),
        })
    }

    /// Joins `other` into `self`; returns whether `self` changed. Conflicts
    /// keep the old type and are appended to `conflicts`.
    pub(crate) fn merge_checked(
        &mut self,
        other: &TypeTree,
        conflicts: &mut Vec<TreeConflict>,
    ) -> bool {
        let mut changed = false;
        // General entries first, so that they subsume what they can.
        let mut entries: Vec<_> = other.entries().collect();
        entries.sort_by_key(|(p, _)| std::cmp::Reverse(p.iter().filter(|o| **o == -1).count()));
        for (p, t) in entries {
            let (c, conflict) = self.insert(p.clone(), t);
            changed |= c;
            conflicts.extend(conflict);
        }
        changed
    }

    /// Joins `other` into `self`; returns whether `self` changed (conflicts
    /// keep the old type silently).
    pub(crate) fn merge(&mut self, other: &TypeTree) -> bool {
        self.merge_checked(other, &mut Vec::new())
    }

    /// The type at `path`: its own entry, else the most specific entry that
    /// covers it through `-1` offsets, else `Unknown`.
    pub(crate) fn at(&self, path: &[i64]) -> ConcreteType {
        if let Some(t) = self.map.get(path) {
            return *t;
        }
        generalisations(path)
            .find_map(|g| self.map.get(&g).copied())
            .unwrap_or_default()
    }

    /// The type of the value itself (`[]`).
    pub(crate) fn root(&self) -> ConcreteType {
        self.at(&[])
    }

    /// The tree of the value loaded from offset 0 of this pointer.
    pub(crate) fn pointee(&self) -> TypeTree {
        self.pointee_at(0)
    }

    /// The tree of the value stored at byte `offset` of this pointer: entries
    /// `[offset, rest..]` become `[rest..]`, and `[-1, rest..]` fill in what
    /// those leave open. `offset == -1` takes only the `-1` entries.
    pub(crate) fn pointee_at(&self, offset: i64) -> TypeTree {
        let mut out = TypeTree::new();
        for (p, t) in &self.map {
            if p.len() >= 1 && p[0] == offset {
                out.insert(p[1..].to_vec(), *t);
            }
        }
        for (p, t) in &self.map {
            if p.len() >= 1 && p[0] == -1 && !out.map.contains_key(&p[1..]) {
                out.insert(p[1..].to_vec(), *t);
            }
        }
        out
    }

    /// This tree as the pointee at byte `offset` of a pointer: `[rest..]`
    /// becomes `[offset, rest..]`.
    pub(crate) fn as_pointee_at(&self, offset: i64) -> TypeTree {
        let mut out = TypeTree::new();
        for (p, t) in &self.map {
            let mut q = Vec::with_capacity(p.len() + 1);
            q.push(offset);
            q.extend_from_slice(p);
            out.insert(q, *t);
        }
        out
    }

    /// The tree of `self + delta` (a GEP by a constant `delta` bytes):
    /// first-level offsets `o >= 0` become `o - delta`, negative results are
    /// dropped; `-1` offsets and the root entry stay.
    pub(crate) fn shift_pointee(&self, delta: i64) -> TypeTree {
        self.map_first(|o| {
            let n = o.checked_sub(delta)?;
            (n >= 0).then_some(n)
        })
    }

    /// Rewrites first-level offsets with `f` (`-1` is left alone; `None`
    /// drops the entry); the root entry stays. Entries that land on the same
    /// path with conflicting types are dropped, since neither can be trusted.
    pub(crate) fn map_first(&self, f: impl Fn(i64) -> Option<i64>) -> TypeTree {
        let mut out = TypeTree::new();
        let mut poisoned: Vec<Vec<i64>> = Vec::new();
        for (p, t) in &self.map {
            let mut q = p.clone();
            if let Some(first) = q.first_mut() {
                if *first != -1 {
                    match f(*first) {
                        Some(n) => *first = n,
                        None => continue,
                    }
                }
            }
            if poisoned.contains(&q) {
                continue;
            }
            if let (_, Some(_)) = out.insert(q.clone(), *t) {
                out.map.remove(&q);
                poisoned.push(q);
            }
        }
        out
    }

    /// The tree without its root entry (only what it points to).
    pub(crate) fn without_root(&self) -> TypeTree {
        let mut out = self.clone();
        out.map.remove(&Vec::new());
        out
    }

    /// Keeps only entries whose first-level offset satisfies `keep` (the
    /// root entry is dropped).
    pub(crate) fn filter_first(&self, keep: impl Fn(i64) -> bool) -> TypeTree {
        let mut out = TypeTree::new();
        for (p, t) in &self.map {
            if !p.is_empty() && keep(p[0]) {
                out.map.insert(p.clone(), *t);
            }
        }
        out
    }

    /// The tree without `Anything` entries (used when pushing facts up into
    /// values that merely flow into this one).
    pub(crate) fn purge_anything(&self) -> TypeTree {
        let mut out = self.clone();
        out.map.retain(|_, t| *t != ConcreteType::Anything);
        out
    }
}

impl fmt::Display for TypeTree {
    /// Enzyme style: `{[]:Pointer, [0]:Float@double, [8]:Integer}`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("{")?;
        for (i, (p, t)) in self.map.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            let path: Vec<String> = p.iter().map(i64::to_string).collect();
            write!(f, "[{}]:{t}", path.join(","))?;
        }
        f.write_str("}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ConcreteType::*;

    const D: ConcreteType = Float(FloatKind::F64);

    #[test]
    fn lattice() {
        assert_eq!(Unknown.join(D), Join::Changed(D));
        assert_eq!(Anything.join(Pointer), Join::Changed(Pointer));
        assert_eq!(Pointer.join(Anything), Join::Same);
        assert_eq!(D.join(Pointer), Join::Conflict);
        assert_eq!(D.join(Float(FloatKind::F32)), Join::Conflict);
    }

    #[test]
    fn insert_merge_and_conflicts() {
        let mut t = TypeTree::from_type(Pointer);
        t.insert(vec![0], D);
        t.insert(vec![8], Integer);
        assert_eq!(t.to_string(), "{[]:Pointer, [0]:Float@double, [8]:Integer}");
        let (changed, conflict) = t.insert(vec![0], Pointer);
        assert!(!changed);
        assert_eq!(conflict.unwrap().kept, D);
        // -1 subsumes agreeing specific entries and is overridden by others.
        t.insert(vec![-1], D);
        assert_eq!(
            t.to_string(),
            "{[]:Pointer, [-1]:Float@double, [8]:Integer}"
        );
        assert_eq!(t.at(&[16]), D);
        assert_eq!(t.at(&[8]), Integer);
        assert!(!t.insert(vec![24], D).0);
    }

    #[test]
    fn pointee_and_shift() {
        let mut t = TypeTree::from_type(Pointer);
        t.insert(vec![0], Pointer);
        t.insert(vec![0, -1], D);
        t.insert(vec![8], Integer);
        assert_eq!(t.pointee().to_string(), "{[]:Pointer, [-1]:Float@double}");
        assert_eq!(t.shift_pointee(8).to_string(), "{[]:Pointer, [0]:Integer}");
        assert_eq!(
            t.shift_pointee(-8).pointee_at(8).to_string(),
            "{[]:Pointer, [-1]:Float@double}"
        );
        assert_eq!(t.pointee().as_pointee_at(0), t.filter_first(|o| o == 0));
        let mut m = TypeTree::new();
        assert!(m.merge(&t));
        assert!(!m.merge(&t));
    }
}
