//! Canonical forms of GEP indices, for deciding whether an address is
//! private to one GPU thread.
//!
//! An index is read as a polynomial over leaves (the x-dimension special
//! registers, and opaque values) with coefficients modulo 2^32
//! ([`Poly`]): `sext`/`zext`/`trunc` are stripped, `add`, `sub`, `mul`,
//! `shl` by a constant and `or disjoint` are folded, operand order does not
//! matter, and a phi whose incoming values all have the same form (an
//! LCSSA phi, or a join of the same index computed on each branch) has that
//! form. Two indices with equal forms are equal modulo 2^32 whenever both
//! are evaluated in the same thread; every integer on the way must be at
//! least 32 bits wide, so that dropping the casts is exact modulo 2^32.
//!
//! [`ThreadIndexing::injective`] then says whether a form is a known
//! injective function of the thread (and, in a grid-stride loop, of the
//! iteration):
//! - `gid + c`, with `gid = ctaid.x * ntid.x + tid.x`: distinct threads
//!   have distinct `gid` modulo 2^32;
//! - `gid + S q + c` with `S = nctaid.x * ntid.x` and any `q` (a loop
//!   counter, `+ k * stride`): the index modulo `S` is `gid`;
//! - `P gid + k` for the counter `k` of a loop that runs only while
//!   `0 <= k < P` (`chunk_bound`): thread `t` sees `P t .. P t + P - 1`;
//! - `i + c` for the header phi `i` of a grid-stride loop, whose start is
//!   `gid + c0` and whose every other incoming value is
//!   `i + nctaid.x * ntid.x`: thread `t` sees `gid(t) + c0 + k S` with
//!   `0 <= gid(t) < S = nctaid.x * ntid.x`, distinct over `(t, k)`.
//!
//! Assumptions (as for `gid` itself): the launch is one-dimensional (no
//! function reading a y or z id is accepted) with fewer than 2^32 threads,
//! and a grid-stride index does not wrap around 2^32 (the loop's bound and
//! the grid stay below 2^31 elements, as the signed `i < n` of such loops
//! implies unless `n + S` overflows).
//!
//! Pure: reads IR, never changes it.

use crate::ir::LLVMOpcode;
use crate::ir::Value;

/// A special register of the grid's x dimension.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Sreg {
    /// `threadIdx.x`.
    Tid,
    /// `blockDim.x`.
    Ntid,
    /// `blockIdx.x`.
    Ctaid,
    /// `gridDim.x`.
    Nctaid,
}

impl Sreg {
    /// The register read by `v`, if it is a call of
    /// `llvm.nvvm.read.ptx.sreg.{tid,ntid,ctaid,nctaid}.x`.
    fn of(v: Value<'_>) -> Option<Sreg> {
        let f = v.called_function()?;
        let name = f.name();
        match name.strip_prefix("llvm.nvvm.read.ptx.sreg.")? {
            "tid.x" => Some(Sreg::Tid),
            "ntid.x" => Some(Sreg::Ntid),
            "ctaid.x" => Some(Sreg::Ctaid),
            "nctaid.x" => Some(Sreg::Nctaid),
            _ => None,
        }
    }
}

/// A variable of a [`Poly`].
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Leaf<'m> {
    /// A special register: every read of it is the same value.
    Sreg(Sreg),
    /// Any other value, by identity (an argument, a load, a loop phi...).
    Value(Value<'m>),
}

/// A product of leaves, as a multiset (order does not matter).
type Monomial<'m> = Vec<Leaf<'m>>;

/// Whether two monomials hold the same leaves as many times each.
fn same_monomial(a: &[Leaf<'_>], b: &[Leaf<'_>]) -> bool {
    a.len() == b.len()
        && a.iter()
            .all(|l| a.iter().filter(|x| *x == l).count() == b.iter().filter(|x| *x == l).count())
}

/// Bounds that keep forms small; an index beyond them has no form.
const MAX_TERMS: usize = 8;
const MAX_DEGREE: usize = 4;
const MAX_NODES: u32 = 64;

/// An integer polynomial with coefficients modulo 2^32: a sum of
/// `coefficient * monomial`, no monomial twice, no zero coefficient (the
/// empty monomial is the constant term).
#[derive(Clone, Debug, Default)]
pub(super) struct Poly<'m> {
    terms: Vec<(Monomial<'m>, u32)>,
}

impl PartialEq for Poly<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.terms.len() == other.terms.len()
            && self.terms.iter().all(|(m, c)| other.coefficient(m) == *c)
    }
}

impl<'m> Poly<'m> {
    fn constant(c: u32) -> Self {
        let mut p = Poly::default();
        p.add_term(Vec::new(), c);
        p
    }

    fn leaf(l: Leaf<'m>) -> Self {
        Poly {
            terms: vec![(vec![l], 1)],
        }
    }

    /// The coefficient of monomial `m` (0 when absent).
    fn coefficient(&self, m: &[Leaf<'m>]) -> u32 {
        self.terms
            .iter()
            .find(|(n, _)| same_monomial(n, m))
            .map_or(0, |(_, c)| *c)
    }

    fn add_term(&mut self, m: Monomial<'m>, c: u32) {
        match self.terms.iter_mut().find(|(n, _)| same_monomial(n, &m)) {
            Some((_, d)) => *d = d.wrapping_add(c),
            None => self.terms.push((m, c)),
        }
        self.terms.retain(|(_, c)| *c != 0);
    }

    fn plus(mut self, other: &Self, sign: u32) -> Option<Self> {
        for (m, c) in &other.terms {
            self.add_term(m.clone(), c.wrapping_mul(sign));
        }
        self.bounded()
    }

    fn times(&self, other: &Self) -> Option<Self> {
        let mut p = Poly::default();
        for (m, c) in &self.terms {
            for (n, d) in &other.terms {
                let mut mn = m.clone();
                mn.extend_from_slice(n);
                if mn.len() > MAX_DEGREE {
                    return None;
                }
                p.add_term(mn, c.wrapping_mul(*d));
            }
        }
        p.bounded()
    }

    fn bounded(self) -> Option<Self> {
        (self.terms.len() <= MAX_TERMS).then_some(self)
    }

    /// This form less its constant term, and the constant term.
    fn split_constant(&self) -> (Poly<'m>, u32) {
        let c = self.coefficient(&[]);
        let mut rest = self.clone();
        rest.terms.retain(|(m, _)| !m.is_empty());
        (rest, c)
    }

    /// `ctaid.x * ntid.x + tid.x`.
    fn global_id() -> Self {
        let mut p = Poly::default();
        p.add_term(vec![Leaf::Sreg(Sreg::Ctaid), Leaf::Sreg(Sreg::Ntid)], 1);
        p.add_term(vec![Leaf::Sreg(Sreg::Tid)], 1);
        p
    }

    /// `nctaid.x * ntid.x`, the number of threads of the grid along x.
    fn grid_size() -> Self {
        Poly {
            terms: vec![(vec![Leaf::Sreg(Sreg::Nctaid), Leaf::Sreg(Sreg::Ntid)], 1)],
        }
    }
}

/// The canonical form of `v` (see the module documentation), `None` when
/// some integer on the way is narrower than 32 bits or the expression is
/// too large.
pub(super) fn form<'m>(v: Value<'m>) -> Option<Poly<'m>> {
    Canon::default().form(v)
}

/// One computation of forms: the phis being looked through (a phi met
/// again inside its own incoming values is a leaf) and a node budget.
#[derive(Default)]
struct Canon<'m> {
    in_progress: Vec<Value<'m>>,
    nodes: u32,
}

impl<'m> Canon<'m> {
    fn form(&mut self, v: Value<'m>) -> Option<Poly<'m>> {
        self.nodes += 1;
        if self.nodes > MAX_NODES || v.ty().int_width()? < 32 {
            return None;
        }
        if let Some(c) = v.const_int_sext() {
            return Some(Poly::constant(c as u32));
        }
        if let Some(r) = Sreg::of(v) {
            return Some(Poly::leaf(Leaf::Sreg(r)));
        }
        let opaque = Some(Poly::leaf(Leaf::Value(v)));
        let Some(op) = v.opcode() else {
            return opaque;
        };
        match op {
            LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMZExt | LLVMOpcode::LLVMTrunc => {
                self.form(v.operand(0))
            }
            LLVMOpcode::LLVMAdd | LLVMOpcode::LLVMSub | LLVMOpcode::LLVMMul => {
                let a = self.form(v.operand(0))?;
                let b = self.form(v.operand(1))?;
                match op {
                    LLVMOpcode::LLVMAdd => a.plus(&b, 1),
                    LLVMOpcode::LLVMSub => a.plus(&b, u32::MAX),
                    _ => a.times(&b),
                }
            }
            LLVMOpcode::LLVMOr if v.is_disjoint_or() => {
                let a = self.form(v.operand(0))?;
                a.plus(&self.form(v.operand(1))?, 1)
            }
            LLVMOpcode::LLVMShl => match v.operand(1).const_int_sext() {
                Some(k @ 0..=31) => self.form(v.operand(0))?.times(&Poly::constant(1 << k)),
                _ => opaque,
            },
            LLVMOpcode::LLVMPHI => self.phi(v).or(opaque),
            _ => opaque,
        }
    }

    /// The common form of a phi's incoming values, if they have one.
    fn phi(&mut self, v: Value<'m>) -> Option<Poly<'m>> {
        if self.in_progress.contains(&v) {
            return None;
        }
        self.in_progress.push(v);
        let mut common: Option<Poly<'m>> = None;
        let mut same = true;
        for (x, _) in v.as_inst()?.incoming() {
            match (self.form(x), &common) {
                (Some(f), None) => common = Some(f),
                (Some(f), Some(c)) if f == *c => {}
                _ => {
                    same = false;
                    break;
                }
            }
        }
        self.in_progress.pop();
        common.filter(|_| same)
    }
}

/// What the function's ids allow: whether `gid` is an injective function
/// of the thread at all.
pub(super) struct ThreadIndexing {
    /// Some id along y or z is read: the launch may be two- or
    /// three-dimensional, and threads differing in y share one `gid`.
    multi_dimensional: bool,
}

impl ThreadIndexing {
    /// Before any instruction is noted: one-dimensional.
    pub(super) fn new() -> Self {
        ThreadIndexing {
            multi_dimensional: false,
        }
    }

    /// Records that `v` (any instruction) reads a y or z id.
    pub(super) fn note(&mut self, v: Value<'_>) {
        let multi = v.called_function().is_some_and(|f| {
            f.name()
                .strip_prefix("llvm.nvvm.read.ptx.sreg.")
                .is_some_and(|r| r.ends_with(".y") || r.ends_with(".z"))
        });
        self.multi_dimensional |= multi;
    }

    /// Whether an index of form `f` takes distinct values (modulo 2^32) in
    /// distinct threads, and in a grid-stride loop in distinct iterations
    /// of one thread: `gid + c`, `gid + S q + c` (S the grid's size), or
    /// `i + c` for a grid-stride phi `i`.
    pub(super) fn injective(&self, f: &Poly<'_>) -> bool {
        if self.multi_dimensional {
            return false;
        }
        let (rest, _) = f.split_constant();
        if rest == Poly::global_id() {
            return true;
        }
        // `gid + S·q` with S = nctaid.x · ntid.x, the grid's size: the index
        // modulo S is `gid`, which names the thread, whatever q is (a loop
        // counter: `x[gid + k * gridDim.x * blockDim.x]`).
        let multiple_of_grid = |m: &Monomial<'_>| {
            m.contains(&Leaf::Sreg(Sreg::Nctaid)) && m.contains(&Leaf::Sreg(Sreg::Ntid))
        };
        if let Some(q) = rest.clone().plus(&Poly::global_id(), u32::MAX) {
            if !q.terms.is_empty() && q.terms.iter().all(|(m, _)| multiple_of_grid(m)) {
                return true;
            }
        }
        // `P·gid + k` for a counter 0 <= k < P: thread gid's own chunk.
        let chunk = rest.terms.iter().any(|(m, c)| match m.as_slice() {
            [Leaf::Value(k)] if *c == 1 => chunk_bound(*k).is_some_and(|p| {
                Poly::global_id()
                    .times(&p)
                    .and_then(|q| q.plus(&Poly::leaf(Leaf::Value(*k)), 1))
                    .is_some_and(|q| q == rest)
            }),
            _ => false,
        });
        if chunk {
            return true;
        }
        match rest.terms.as_slice() {
            [(m, 1)] => match m.as_slice() {
                [Leaf::Value(phi)] => is_grid_stride_phi(*phi),
                _ => false,
            },
            _ => false,
        }
    }
}

/// The form of `P` when `k` is the counter of a loop that runs only while
/// `0 <= k < P`: a header phi starting at 0, stepping by 1, whose latch
/// goes on only while `k + 1 < P` (signed or unsigned), entered only when
/// `P > 0` (the branch into the loop, or into the block before it, tests
/// it): `for (k = 0; k < per; k++)` as clang rotates it.
fn chunk_bound<'m>(k: Value<'m>) -> Option<Poly<'m>> {
    use crate::ir::LLVMIntPredicate::*;
    let inst = k
        .as_inst()
        .filter(|_| k.opcode() == Some(LLVMOpcode::LLVMPHI))?;
    let header = inst.parent_block();
    let incoming = inst.incoming();
    if incoming.len() != 2 {
        return None;
    }
    let one = |v: Value<'m>| v.const_int_sext() == Some(1);
    let is_next = |x: Value<'m>| {
        x.opcode() == Some(LLVMOpcode::LLVMAdd)
            && ((x.operand(0) == k && one(x.operand(1)))
                || (x.operand(1) == k && one(x.operand(0))))
    };
    let pre = incoming
        .iter()
        .find(|(x, _)| x.const_int_sext() == Some(0))?
        .1;
    let (next, latch) = *incoming.iter().find(|(x, _)| is_next(*x))?;
    // The latch: go on (to the header) only while next < P.
    let test = latch.terminator()?.operand(0);
    if test.opcode() != Some(LLVMOpcode::LLVMICmp)
        || test.operand(0) != next
        || latch.successors().first() != Some(&header)
    {
        return None;
    }
    let signed = match test.icmp_predicate() {
        LLVMIntSLT => true,
        LLVMIntULT => false,
        _ => return None,
    };
    let bound = form(test.operand(1))?;
    // The way in: `pre` itself, or the block whose only way on is `pre`.
    let positive = |g: crate::ir::Block<'m>, into: crate::ir::Block<'m>| {
        let Some(t) = g.terminator() else {
            return false;
        };
        let c = t.operand(0);
        if t.num_operands() != 3 || c.opcode() != Some(LLVMOpcode::LLVMICmp) {
            return false;
        }
        if g.successors().first() != Some(&into) {
            return false;
        }
        let is_bound = |v: Value<'m>| form(v).is_some_and(|f| f == bound);
        let (a, b) = (c.operand(0), c.operand(1));
        match c.icmp_predicate() {
            LLVMIntSGT => is_bound(a) && b.const_int_sext() == Some(0),
            LLVMIntSLT => a.const_int_sext() == Some(0) && is_bound(b),
            LLVMIntSGE => is_bound(a) && b.const_int_sext() == Some(1),
            LLVMIntUGT | LLVMIntNE if !signed => is_bound(a) && b.const_int_sext() == Some(0),
            _ => false,
        }
    };
    let guarded = positive(pre, header)
        || pre.terminator().is_some_and(|t| t.num_operands() == 1) && {
            let preds: Vec<crate::ir::Block<'m>> = pre
                .parent()
                .blocks()
                .into_iter()
                .filter(|b| b.successors().contains(&pre))
                .collect();
            matches!(preds.as_slice(), [g] if positive(*g, pre))
        };
    guarded.then_some(bound)
}

/// Whether `phi` is the index of a grid-stride loop: every incoming value
/// is either `gid + c0` (one `c0` for all) or `phi + nctaid.x * ntid.x`,
/// and both kinds occur.
fn is_grid_stride_phi(phi: Value<'_>) -> bool {
    let Some(inst) = phi
        .as_inst()
        .filter(|_| phi.opcode() == Some(LLVMOpcode::LLVMPHI))
    else {
        return false;
    };
    let Some(step) = Poly::leaf(Leaf::Value(phi)).plus(&Poly::grid_size(), 1) else {
        return false;
    };
    let (mut start, mut steps) = (None::<u32>, 0);
    for (x, _) in inst.incoming() {
        // The phi met again in its incoming values is a leaf.
        let mut canon = Canon {
            in_progress: vec![phi],
            nodes: 0,
        };
        let Some(f) = canon.form(x) else {
            return false;
        };
        if f == step {
            steps += 1;
            continue;
        }
        let (rest, c0) = f.split_constant();
        if rest != Poly::global_id() || start.is_some_and(|s| s != c0) {
            return false;
        }
        start = Some(c0);
    }
    start.is_some() && steps > 0
}
