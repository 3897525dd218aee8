//! The type lattice ([`ConcreteType`]) and type trees ([`TypeTree`]).
//!
//! Pure data: no LLVM calls except [`ConcreteType::from_ty`], which reads a
//! type's kind.

use crate::ir::{Ty, TyKind};
use std::collections::BTreeMap;
use std::fmt;

/// Paths longer than this (pointer to pointer to ... data) are dropped, so
/// that self-referential data (linked lists) cannot grow trees forever.
pub(crate) const MAX_DEPTH: usize = 6; // MASKS_BY_WEIGHT assumes 6

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
    pub(crate) fn from_ty<'m>(ty: Ty<'m>) -> ConcreteType {
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

/// A byte-offset path of at most [`MAX_DEPTH`] offsets in `-1..=MAX_OFFSET`,
/// stored inline (no allocation). Ordered like the slice of its offsets.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Default)]
pub(crate) struct Path {
    len: u8,
    offsets: [i16; MAX_DEPTH],
}

impl Path {
    /// The empty path `[]` (the value itself).
    pub(crate) const ROOT: Path = Path {
        len: 0,
        offsets: [0; MAX_DEPTH],
    };

    /// A path from offsets; `None` if too deep or an offset is out of range.
    pub(crate) fn new(offsets: &[i64]) -> Option<Path> {
        if offsets.len() > MAX_DEPTH {
            return None;
        }
        let mut p = Path::ROOT;
        for (k, o) in offsets.iter().enumerate() {
            if *o < -1 || *o > MAX_OFFSET {
                return None;
            }
            p.offsets[k] = *o as i16;
        }
        p.len = offsets.len() as u8;
        Some(p)
    }

    fn slice(&self) -> &[i16] {
        &self.offsets[..self.len as usize]
    }

    /// Number of offsets.
    pub(crate) fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether this is the root path `[]`.
    pub(crate) fn is_root(&self) -> bool {
        self.len == 0
    }

    /// Offset `k`.
    pub(crate) fn get(&self, k: usize) -> Option<i64> {
        self.slice().get(k).map(|o| i64::from(*o))
    }

    /// The first offset.
    pub(crate) fn first(&self) -> Option<i64> {
        self.get(0)
    }

    /// The offsets as a vector.
    pub(crate) fn to_vec(self) -> Vec<i64> {
        self.slice().iter().map(|o| i64::from(*o)).collect()
    }

    /// This path with its first offset replaced (`None` if out of range).
    pub(crate) fn with_first(&self, first: i64) -> Option<Path> {
        if self.len == 0 || !(-1..=MAX_OFFSET).contains(&first) {
            return None;
        }
        let mut p = *self;
        p.offsets[0] = first as i16;
        Some(p)
    }

    /// This path without its first offset.
    fn rest(&self) -> Path {
        let mut p = Path::ROOT;
        if self.len > 0 {
            let n = self.len as usize - 1;
            p.offsets[..n].copy_from_slice(&self.offsets[1..=n]);
            p.len = n as u8;
        }
        p
    }

    /// `offset` followed by this path (`None` if too deep or out of range).
    fn prepend(&self, offset: i64) -> Option<Path> {
        if self.len() >= MAX_DEPTH || !(-1..=MAX_OFFSET).contains(&offset) {
            return None;
        }
        let mut p = Path::ROOT;
        p.offsets[0] = offset as i16;
        p.offsets[1..=self.len()].copy_from_slice(self.slice());
        p.len = self.len + 1;
        Some(p)
    }

    /// The offsets before the first `-1` (all of them if none): every
    /// path this one covers starts with them, and this prefix sorts before
    /// every path that does.
    fn prefix_before_general(&self) -> Path {
        let k = self
            .slice()
            .iter()
            .position(|o| *o == -1)
            .unwrap_or(self.len());
        let mut p = Path::ROOT;
        p.offsets[..k].copy_from_slice(&self.offsets[..k]);
        p.len = k as u8;
        p
    }

    /// Whether this path begins with the offsets of `prefix`.
    fn starts_with(&self, prefix: &Path) -> bool {
        self.slice().starts_with(prefix.slice())
    }

    fn general_count(&self) -> u32 {
        self.slice().iter().filter(|o| **o == -1).count() as u32
    }

    /// Whether `self` covers `path`: same length, each offset equal or -1.
    fn covers(&self, path: &Path) -> bool {
        self.len == path.len
            && self
                .slice()
                .iter()
                .zip(path.slice())
                .all(|(g, p)| g == p || *g == -1)
    }

    /// The strictly more general forms of this path (some offsets replaced
    /// by `-1`), fewest `-1`s first.
    fn generalisations(self) -> impl Iterator<Item = Path> {
        let fixed: u8 = (0..self.len())
            .filter(|i| self.offsets[*i] != -1)
            .fold(0, |m, i| m | (1 << i));
        MASKS_BY_WEIGHT
            .iter()
            .filter(move |m| **m & !fixed == 0)
            .map(move |m| {
                let mut g = self;
                for i in 0..g.len() {
                    if m & (1 << i) != 0 {
                        g.offsets[i] = -1;
                    }
                }
                g
            })
    }
}

/// Every non-empty subset of [`MAX_DEPTH`] positions, fewest members first.
const MASKS_BY_WEIGHT: [u8; 63] = {
    let mut out = [0u8; 63];
    let mut n = 0;
    let mut weight = 1;
    while weight <= 6 {
        let mut m: u8 = 1;
        while m < 64 {
            if m.count_ones() == weight {
                out[n] = m;
                n += 1;
            }
            m += 1;
        }
        weight += 1;
    }
    out
};

impl Ord for Path {
    fn cmp(&self, other: &Path) -> std::cmp::Ordering {
        self.slice().cmp(other.slice())
    }
}

impl PartialOrd for Path {
    fn partial_cmp(&self, other: &Path) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
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
    map: BTreeMap<Path, ConcreteType>,
    /// How many keys contain a `-1` (lookups skip generalising when none).
    general: u32,
}

impl TypeTree {
    /// The empty tree (nothing known).
    pub(crate) fn new() -> TypeTree {
        TypeTree::default()
    }

    /// A tree with only `[]: ct` (empty if `ct` is `Unknown`).
    pub(crate) fn from_type(ct: ConcreteType) -> TypeTree {
        let mut t = TypeTree::new();
        t.insert_path(Path::ROOT, ct);
        t
    }

    /// A tree with only `path: ct`.
    pub(crate) fn from_path(path: &[i64], ct: ConcreteType) -> TypeTree {
        let mut t = TypeTree::new();
        t.insert(path, ct);
        t
    }

    /// A tree written in Enzyme's notation, as rustc's `"enzyme_type"`
    /// attribute holds it: `{[-1]:Pointer, [-1,0]:Float@float}`. Enzyme's
    /// paths start with the offset in the value itself (-1 or 0 for a
    /// scalar or pointer), which this tree's root stands for; `None` when
    /// the text is not such a tree (it is then ignored).
    pub(crate) fn parse_enzyme(text: &str) -> Option<TypeTree> {
        let body = text.trim().strip_prefix('{')?.strip_suffix('}')?;
        let mut tree = TypeTree::new();
        let mut rest = body.trim();
        while !rest.is_empty() {
            let open = rest.strip_prefix('[')?;
            let close = open.find(']')?;
            let path: Vec<i64> = open[..close]
                .split(',')
                .map(|n| n.trim().parse::<i64>().ok())
                .collect::<Option<_>>()?;
            let after = open[close + 1..].trim_start().strip_prefix(':')?;
            let end = after.find(',').unwrap_or(after.len());
            let ct = match after[..end].trim() {
                "Pointer" => ConcreteType::Pointer,
                "Integer" => ConcreteType::Integer,
                "Anything" => ConcreteType::Anything,
                "Float@half" => ConcreteType::Float(FloatKind::Half),
                "Float@float" => ConcreteType::Float(FloatKind::F32),
                "Float@double" => ConcreteType::Float(FloatKind::F64),
                "Unknown" => ConcreteType::Unknown,
                k if k.starts_with("Float@") => ConcreteType::Float(FloatKind::Other),
                _ => return None,
            };
            let (&first, inner) = path.split_first()?;
            if first != -1 && first != 0 {
                return None;
            }
            if ct != ConcreteType::Unknown {
                let t = if inner.is_empty() {
                    TypeTree::from_type(ct)
                } else {
                    TypeTree::from_path(inner, ct)
                };
                tree.merge(&t);
            }
            rest = after[end..]
                .trim_start()
                .strip_prefix(',')
                .unwrap_or("")
                .trim_start();
        }
        Some(tree)
    }

    /// The tree as an `enzyme_type` attribute holds it (what
    /// [`TypeTree::parse_enzyme`] reads back): each path prefixed by -1,
    /// the offset in the value itself.
    pub(crate) fn to_enzyme(&self) -> String {
        let entries: Vec<String> = self
            .entries()
            .map(|(p, t)| {
                let path: Vec<String> = std::iter::once(-1)
                    .chain(p.to_vec())
                    .map(|o| o.to_string())
                    .collect();
                format!("[{}]:{t}", path.join(","))
            })
            .collect();
        format!("{{{}}}", entries.join(", "))
    }

    /// Whether nothing is known.
    pub(crate) fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// All entries, sorted by path (`-1` before `0`).
    pub(crate) fn entries(&self) -> impl Iterator<Item = (Path, ConcreteType)> + '_ {
        self.map.iter().map(|(p, t)| (*p, *t))
    }

    /// Entries of the first pointee level: `(offset, type)` for each `[o]`.
    pub(crate) fn first_level(&self) -> impl Iterator<Item = (i64, ConcreteType)> + '_ {
        self.map
            .iter()
            .filter(|(p, _)| p.len() == 1)
            .map(|(p, t)| (p.get(0).unwrap_or(-1), *t))
    }

    /// Inserts `path: ct`, joining with what is there. Returns whether the
    /// tree changed, and the conflict if the join was refused (the old type
    /// is kept). Paths too deep or with offsets out of range are dropped.
    pub(crate) fn insert(
        &mut self,
        path: &[i64],
        ct: ConcreteType,
    ) -> (bool, Option<TreeConflict>) {
        match Path::new(path) {
            Some(p) => self.insert_path(p, ct),
            None => (false, None),
        }
    }

    fn raw_insert(&mut self, path: Path, ct: ConcreteType) {
        if self.map.insert(path, ct).is_none() && path.general_count() > 0 {
            self.general += 1;
        }
    }

    fn raw_remove(&mut self, path: &Path) {
        if self.map.remove(path).is_some() && path.general_count() > 0 {
            self.general -= 1;
        }
    }

    /// The type under the most specific strictly more general entry.
    fn general_at(&self, path: Path) -> Option<ConcreteType> {
        if self.general == 0 {
            return None;
        }
        path.generalisations()
            .find_map(|g| self.map.get(&g).copied())
    }

    /// [`TypeTree::insert`] for a [`Path`].
    pub(crate) fn insert_path(
        &mut self,
        path: Path,
        ct: ConcreteType,
    ) -> (bool, Option<TreeConflict>) {
        if !ct.is_known() {
            return (false, None);
        }
        if let Some(old) = self.map.get(&path).copied() {
            return match old.join(ct) {
                Join::Same => (false, None),
                Join::Changed(t) => {
                    self.raw_insert(path, t);
                    (true, None)
                }
                Join::Conflict => (
                    false,
                    Some(TreeConflict {
                        path: path.to_vec(),
                        kept: old,
                        rejected: ct,
                    }),
                ),
            };
        }
        // A more general entry of the same type already says this.
        if self.general > 0
            && path
                .generalisations()
                .any(|g| self.map.get(&g).is_some_and(|t| t.join(ct) == Join::Same))
        {
            return (false, None);
        }
        // A general entry subsumes the specific ones it agrees with: those
        // it covers share its offsets before its first `-1`, a range of
        // the map (all of it when the first offset is `-1`).
        if path.general_count() > 0 {
            let prefix = path.prefix_before_general();
            let gone: Vec<Path> = self
                .map
                .range(prefix..)
                .take_while(|(p, _)| p.starts_with(&prefix))
                .filter(|(p, t)| **p != path && path.covers(p) && ct.join(**t) == Join::Same)
                .map(|(p, _)| *p)
                .collect();
            for p in gone {
                self.raw_remove(&p);
            }
        }
        self.raw_insert(path, ct);
        (true, None)
    }

    /// Whether joining `other` would change nothing: each entry of `other`
    /// is already here (or under a more general entry) with a type that
    /// covers it. Conflicting entries count as new (the join reports them).
    pub(crate) fn covers_all(&self, other: &TypeTree) -> bool {
        other.map.iter().all(|(p, t)| self.covers_entry(*p, *t))
    }

    /// Whether `path: t` is already here (or under a more general entry)
    /// with a type that covers it.
    fn covers_entry(&self, p: Path, t: ConcreteType) -> bool {
        match self.map.get(&p) {
            Some(h) => h.join(t) == Join::Same,
            None => {
                self.general > 0
                    && p.generalisations()
                        .any(|g| self.map.get(&g).is_some_and(|h| h.join(t) == Join::Same))
            }
        }
    }

    /// Whether `self` covers `other.as_pointee_at(offset)` (so that
    /// joining it would change nothing), found without building that
    /// tree: it does when it covers every entry `other` would give it
    /// (the tree built keeps a subset of them).
    pub(crate) fn covers_as_pointee_at(&self, other: &TypeTree, offset: i64) -> bool {
        other
            .map
            .iter()
            .all(|(p, t)| p.prepend(offset).is_none_or(|q| self.covers_entry(q, *t)))
    }

    /// Whether `self` covers `other.pointee_at(offset)`, found without
    /// building that tree: it does when it covers every entry `other`
    /// could give it, those under `offset` and those under `-1`.
    pub(crate) fn covers_pointee_at(&self, other: &TypeTree, offset: i64) -> bool {
        other.map.iter().all(|(p, t)| {
            !(p.first() == Some(offset) || p.first() == Some(-1)) || self.covers_entry(p.rest(), *t)
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
        let mut entries: Vec<(Path, ConcreteType)> = other.entries().collect();
        if other.general > 0 {
            entries.sort_by_key(|(p, _)| std::cmp::Reverse(p.general_count()));
        }
        for (p, t) in entries {
            let (c, conflict) = self.insert_path(p, t);
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
        let Some(p) = Path::new(path) else {
            return ConcreteType::Unknown;
        };
        self.map
            .get(&p)
            .copied()
            .or_else(|| self.general_at(p))
            .unwrap_or_default()
    }

    /// The type of the value itself (`[]`).
    pub(crate) fn root(&self) -> ConcreteType {
        self.map.get(&Path::ROOT).copied().unwrap_or_default()
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
            if p.first() == Some(offset) {
                out.insert_path(p.rest(), *t);
            }
        }
        for (p, t) in &self.map {
            if p.first() == Some(-1) && !out.map.contains_key(&p.rest()) {
                out.insert_path(p.rest(), *t);
            }
        }
        out
    }

    /// This tree as the pointee at byte `offset` of a pointer: `[rest..]`
    /// becomes `[offset, rest..]`.
    pub(crate) fn as_pointee_at(&self, offset: i64) -> TypeTree {
        let mut out = TypeTree::new();
        for (p, t) in &self.map {
            if let Some(q) = p.prepend(offset) {
                out.insert_path(q, *t);
            }
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
        let mut poisoned: Vec<Path> = Vec::new();
        for (p, t) in &self.map {
            let q = match p.first() {
                None | Some(-1) => *p,
                Some(o) => match f(o).and_then(|n| p.with_first(n)) {
                    Some(q) => q,
                    None => continue,
                },
            };
            if poisoned.contains(&q) {
                continue;
            }
            if let (_, Some(_)) = out.insert_path(q, *t) {
                out.raw_remove(&q);
                poisoned.push(q);
            }
        }
        out
    }

    /// What `self` and `other` agree on (the meet): an entry of either is
    /// kept where the other has the same type there (directly or through a
    /// `-1` entry); `Anything` yields to the other side's type.
    pub(crate) fn intersect(&self, other: &TypeTree) -> TypeTree {
        let mut out = TypeTree::new();
        for (a, b) in [(self, other), (other, self)] {
            for (p, t) in &a.map {
                let u = b.map.get(p).copied().or_else(|| b.general_at(*p));
                let meet = match u {
                    Some(u) if u == *t || u == ConcreteType::Anything => *t,
                    Some(u) if *t == ConcreteType::Anything => u,
                    _ => continue,
                };
                out.insert_path(*p, meet);
            }
        }
        out
    }

    /// The tree without its root entry (only what it points to).
    pub(crate) fn without_root(&self) -> TypeTree {
        let mut out = self.clone();
        out.raw_remove(&Path::ROOT);
        out
    }

    /// Keeps only entries whose first-level offset satisfies `keep` (the
    /// root entry is dropped).
    pub(crate) fn filter_first(&self, keep: impl Fn(i64) -> bool) -> TypeTree {
        let mut out = TypeTree::new();
        for (p, t) in &self.map {
            if p.first().is_some_and(&keep) {
                out.raw_insert(*p, *t);
            }
        }
        out
    }

    /// The tree without `Anything` entries (used when pushing facts up into
    /// values that merely flow into this one).
    pub(crate) fn purge_anything(&self) -> TypeTree {
        let mut out = TypeTree::new();
        for (p, t) in &self.map {
            if *t != ConcreteType::Anything {
                out.raw_insert(*p, *t);
            }
        }
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
            let path: Vec<String> = p.to_vec().iter().map(i64::to_string).collect();
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
    fn enzyme_text_round_trips() {
        let mut t = TypeTree::from_type(Pointer);
        t.merge(&TypeTree::from_path(&[0], D));
        t.merge(&TypeTree::from_path(&[8], Integer));
        t.merge(&TypeTree::from_path(&[16, 0], Float(FloatKind::F32)));
        let text = t.to_enzyme();
        assert_eq!(TypeTree::parse_enzyme(&text), Some(t), "{text}");
    }

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
        t.insert(&[0], D);
        t.insert(&[8], Integer);
        assert_eq!(t.to_string(), "{[]:Pointer, [0]:Float@double, [8]:Integer}");
        let (changed, conflict) = t.insert(&[0], Pointer);
        assert!(!changed);
        assert_eq!(conflict.unwrap().kept, D);
        // -1 subsumes agreeing specific entries and is overridden by others.
        t.insert(&[-1], D);
        assert_eq!(
            t.to_string(),
            "{[]:Pointer, [-1]:Float@double, [8]:Integer}"
        );
        assert_eq!(t.at(&[16]), D);
        assert_eq!(t.at(&[8]), Integer);
        assert!(!t.insert(&[24], D).0);
    }

    #[test]
    fn pointee_and_shift() {
        let mut t = TypeTree::from_type(Pointer);
        t.insert(&[0], Pointer);
        t.insert(&[0, -1], D);
        t.insert(&[8], Integer);
        assert_eq!(t.pointee().to_string(), "{[]:Pointer, [-1]:Float@double}");
        assert_eq!(t.shift_pointee(8).to_string(), "{[]:Pointer, [0]:Integer}");
        assert_eq!(
            t.shift_pointee(-8).pointee_at(8).to_string(),
            "{[]:Pointer, [-1]:Float@double}"
        );
        assert_eq!(t.pointee().as_pointee_at(0), t.filter_first(|o| o == 0));
        let mut u = TypeTree::from_type(Pointer);
        u.insert(&[-1], D);
        u.insert(&[8], Pointer);
        u.insert(&[16], Anything);
        let mut w = TypeTree::from_type(Pointer);
        w.insert(&[0], D);
        w.insert(&[8], Integer);
        w.insert(&[16], D);
        assert_eq!(
            u.intersect(&w).to_string(),
            "{[]:Pointer, [0]:Float@double, [16]:Float@double}"
        );
        let mut m = TypeTree::new();
        assert!(m.merge(&t));
        assert!(!m.merge(&t));
    }
}
