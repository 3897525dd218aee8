//! BLAS derivatives that are themselves BLAS calls, shared by reverse
//! mode (`reverse/blas.rs`) and forward mode (`forward/blas.rs`).
//!
//! A call's arguments are first read into their CBLAS form ([`read`]):
//! a Fortran call's pointed-to integers, scalars and transpose characters
//! are loaded, and its layout is column-major. Every derivative is then a
//! CBLAS call in the primal's layout, on the shadows with the primal's
//! increments and leading dimensions (a shadow is laid out as its
//! primal), so it runs at the library's speed:
//!
//! | primal | reverse sweep | forward mode |
//! |---|---|---|
//! | `r = dot(x, y)` | `dx += dr y`, `dy += dr x` (`axpy`) | `dr = dot(dx, y) + dot(x, dy)` |
//! | `y += a x` (`axpy`) | `dx += a dy` | `dy += a dx` |
//! | `x *= a` (`scal`) | `dx *= a` | `dx *= a` |
//! | `y = x` (`copy`) | `dx += dy`, `dy = 0` | `dy = dx` |
//! | `swap(x, y)` | `swap(dx, dy)` | `swap(dx, dy)` |
//! | `r = nrm2(x)` | `dx += (dr / r) x` | `dr = dot(x, dx) / r` |
//! | `r = asum(x)` | `dx += dr sign(x)` (a loop: `blas/asum.rs`) | `dr = sign(x) · dx` |
//! | `y = a op(A) x + b y` (`gemv`) | `dx += a op(A)^T dy`, `dA += a dy x^T` (or `x dy^T`: `ger`), `dy *= b` | `dy = a op(A) dx + a op(dA) x + b dy` |
//! | `A += a x y^T` (`ger`) | `dx += a dA y`, `dy += a dA^T x` (`gemv`) | `dA += a dx y^T + a x dy^T` |
//! | `C = a op(A) op(B) + b C` (`gemm`) | `dA += a dC op(B)^T` (or `a op(B) dC^T`), `dB += a op(A)^T dC` (or `a dC^T op(A)`), `dC *= b` | `dC = a op(dA) op(B) + a op(A) op(dB) + b dC` |
//!
//! The symmetric and triangular routines' rules are in `structured.rs`,
//! LAPACK's Cholesky routines' (`?potrf`, `?potrs`) in `lapack.rs`.
//!
//! `dC *= b` is a `gemm` (`gemv`) with `alpha = 0`, which reads neither
//! operand. Transposes known only at run time (Fortran's characters)
//! choose between the two forms of an adjoint by `select`s on the
//! arguments, not by branches. An operand without a shadow is inactive:
//! no work for its derivative. `alpha` and `beta` carry no derivative:
//! a call whose scalars are active is refused.

mod asum;
mod lapack;
mod lu;
mod structured;
mod tri;

pub(crate) use structured::{copied_before, tangent_before};

use crate::analysis::blas::{arrays, operand_index};
use crate::ir::{Builder, Inst, LLVMIntPredicate, LLVMRealPredicate, Ty, Value};
use crate::names::{
    cblas_name, BlasArg, BlasFn, BlasInterface, BlasPrecision, BlasRoutine, CBLAS_COL_MAJOR,
    CBLAS_LEFT, CBLAS_LOWER, CBLAS_NON_UNIT, CBLAS_NO_TRANS, CBLAS_RIGHT, CBLAS_TRANS, CBLAS_UNIT,
    CBLAS_UPPER,
};

/// A BLAS call's arguments in CBLAS form, and the routine.
#[derive(Clone)]
pub(crate) struct Args<'m> {
    pub(crate) routine: BlasRoutine,
    pub(crate) prec: BlasPrecision,
    /// Argument `k` of the CBLAS form (arrays: the primal's pointers).
    pub(crate) v: Vec<Value<'m>>,
}

/// The float type of `prec`.
pub(crate) fn float_ty<'m>(b: &Builder<'m>, prec: BlasPrecision) -> Ty<'m> {
    let ctx = b.ctx();
    match prec {
        BlasPrecision::Single => Ty::float(ctx),
        BlasPrecision::Double => Ty::double(ctx),
    }
}

/// Reads call `i`'s arguments in CBLAS form at `b`'s position: `get`
/// maps a primal operand to its value there.
pub(crate) fn read<'m>(
    b: &Builder<'m>,
    i: Inst<'m>,
    f: BlasFn,
    get: &mut dyn FnMut(Value<'m>) -> Value<'m>,
) -> Option<Args<'m>> {
    let BlasFn::Rule(r, prec, iface) = f else {
        return None;
    };
    let ctx = i.context();
    let i32t = Ty::int(ctx, 32);
    let t = float_ty(b, prec);
    let mut v = Vec::new();
    for (k, a) in r.args().iter().enumerate() {
        let Some(o) = operand_index(r, iface, k as u32) else {
            v.push(b.i32(CBLAS_COL_MAJOR));
            continue;
        };
        let x = get(i.operand(o));
        let x = match (iface, a) {
            (BlasInterface::Cblas, _)
            | (_, BlasArg::Vector | BlasArg::Matrix | BlasArg::Pivots) => x,
            (BlasInterface::Fortran, BlasArg::Int | BlasArg::Layout) => b.load(i32t, x),
            (BlasInterface::Fortran, BlasArg::Scalar) => b.load(t, x),
            (
                BlasInterface::Fortran,
                BlasArg::Trans | BlasArg::Uplo | BlasArg::Diag | BlasArg::Side,
            ) => {
                // The character, as the CBLAS code of its meaning.
                let (ch, yes, no) = match a {
                    BlasArg::Trans => (b'N', CBLAS_NO_TRANS, CBLAS_TRANS),
                    BlasArg::Uplo => (b'U', CBLAS_UPPER, CBLAS_LOWER),
                    BlasArg::Diag => (b'U', CBLAS_UNIT, CBLAS_NON_UNIT),
                    _ => (b'L', CBLAS_LEFT, CBLAS_RIGHT),
                };
                let c = b.load(Ty::int(ctx, 8), x);
                let is = |ch: u8| {
                    b.icmp(
                        LLVMIntPredicate::LLVMIntEQ,
                        c,
                        b.const_int(Ty::int(ctx, 8), ch as i64),
                    )
                };
                let hit = b.or(is(ch), is(ch.to_ascii_lowercase()));
                b.select(hit, b.i32(yes), b.i32(no))
            }
        };
        v.push(x);
    }
    Some(Args {
        routine: r,
        prec,
        v,
    })
}

/// The arrays whose primal values the reverse sweep of a call of `r`
/// reads, given which arrays have shadows (`shadowed(k)` for CBLAS
/// argument `k`).
pub(crate) fn needed_in_reverse(r: BlasRoutine, shadowed: &dyn Fn(u32) -> bool) -> Vec<u32> {
    let pairs: &[(u32, u32)] = match r {
        // (the array read, the array whose shadow makes it needed)
        BlasRoutine::Dot => &[(3, 1), (1, 3)],
        BlasRoutine::Nrm2 | BlasRoutine::Asum => &[(1, 1)],
        BlasRoutine::Gemv => &[(5, 7), (7, 5)],
        BlasRoutine::Ger => &[(6, 4), (4, 6)],
        BlasRoutine::Gemm => &[(9, 7), (7, 9)],
        BlasRoutine::Symv => &[(4, 6), (6, 4)],
        BlasRoutine::Trmv | BlasRoutine::Trsv => &[(5, 7), (7, 5)],
        BlasRoutine::Symm => &[(6, 8), (8, 6)],
        BlasRoutine::Syrk => &[(6, 6)],
        BlasRoutine::Trmm | BlasRoutine::Trsm => &[(8, 10), (10, 8)],
        // The factor (after the call), and potrs's solution.
        BlasRoutine::Potrf => &[(3, 3)],
        BlasRoutine::Potrs => &[(4, 6), (6, 4)],
        // The factors and pivots (after the call), and the solution.
        BlasRoutine::Getrf => &[(3, 3), (5, 3)],
        BlasRoutine::Getrs => &[(4, 7), (6, 7), (7, 4)],
        BlasRoutine::Gesv => &[(3, 3), (3, 6), (5, 3), (5, 6), (6, 3)],
        _ => &[],
    };
    let mut out: Vec<u32> = pairs
        .iter()
        .filter(|(_, d)| shadowed(*d))
        .map(|(k, _)| *k)
        .collect();
    out.dedup();
    out
}

/// The number of elements array argument `k` of `a` spans from its
/// pointer (a strided vector from its first to its last element, a
/// matrix through its leading dimension), as an `i64`.
pub(crate) fn span<'m>(b: &Builder<'m>, a: &Args<'m>, k: u32) -> Value<'m> {
    let ctx = b.ctx();
    let i64t = Ty::int(ctx, 64);
    let v = |k: u32| b.sext(a.v[k as usize], i64t);
    let one = b.const_int(i64t, 1);
    let zero = b.const_int(i64t, 0);
    let vector = |n: Value<'m>, inc: Value<'m>| {
        let neg = b.sub(zero, inc);
        let abs = b.select(b.icmp(LLVMIntPredicate::LLVMIntSLT, inc, zero), neg, inc);
        let s = b.add(one, b.mul(b.sub(n, one), abs));
        b.select(b.icmp(LLVMIntPredicate::LLVMIntSGT, n, zero), s, zero)
    };
    let is_no = |t: u32| {
        b.icmp(
            LLVMIntPredicate::LLVMIntEQ,
            a.v[t as usize],
            b.i32(CBLAS_NO_TRANS),
        )
    };
    // (rows, cols) of a matrix as stored, or (count, increment) of a vector.
    let (rows, cols, ld) = match (a.routine, k) {
        (BlasRoutine::Gemv, 5) => (v(2), v(3), v(6)),
        (BlasRoutine::Gemv, 7) => {
            let n = b.select(is_no(1), v(3), v(2));
            return vector(n, v(8));
        }
        (BlasRoutine::Ger, 4) => return vector(v(1), v(5)),
        (BlasRoutine::Ger, 6) => return vector(v(2), v(7)),
        (BlasRoutine::Gemm, 7) => {
            let no = is_no(1);
            (b.select(no, v(3), v(5)), b.select(no, v(5), v(3)), v(8))
        }
        (BlasRoutine::Gemm, 9) => {
            let no = is_no(2);
            (b.select(no, v(5), v(4)), b.select(no, v(4), v(5)), v(10))
        }
        (BlasRoutine::Symv, 4) => (v(2), v(2), v(5)),
        (BlasRoutine::Symv, 6) => return vector(v(2), v(7)),
        (BlasRoutine::Trmv | BlasRoutine::Trsv, 5) => (v(4), v(4), v(6)),
        (BlasRoutine::Trmv | BlasRoutine::Trsv, 7) => return vector(v(4), v(8)),
        (BlasRoutine::Symm, 6) => {
            let left = b.icmp(LLVMIntPredicate::LLVMIntEQ, a.v[1], b.i32(CBLAS_LEFT));
            let ka = b.select(left, v(3), v(4));
            (ka, ka, v(7))
        }
        (BlasRoutine::Symm, 8) => (v(3), v(4), v(9)),
        (BlasRoutine::Syrk, 6) => {
            let no = is_no(2);
            (b.select(no, v(3), v(4)), b.select(no, v(4), v(3)), v(7))
        }
        (BlasRoutine::Trmm | BlasRoutine::Trsm, 8) => {
            let left = b.icmp(LLVMIntPredicate::LLVMIntEQ, a.v[1], b.i32(CBLAS_LEFT));
            let ka = b.select(left, v(5), v(6));
            (ka, ka, v(9))
        }
        (BlasRoutine::Trmm | BlasRoutine::Trsm, 10) => (v(5), v(6), v(11)),
        (BlasRoutine::Potrf, 3) => (v(2), v(2), v(4)),
        (BlasRoutine::Potrs, 4) => (v(2), v(2), v(5)),
        (BlasRoutine::Potrs, 6) => (v(2), v(3), v(7)),
        // Pivots: as many as the factored matrix's smaller dimension.
        (BlasRoutine::Getrf, 5) => {
            let less = b.icmp(LLVMIntPredicate::LLVMIntSLT, v(1), v(2));
            return b.select(less, v(1), v(2));
        }
        (BlasRoutine::Getrs, 6) => return v(2),
        (BlasRoutine::Gesv, 5) => return v(1),
        (BlasRoutine::Getrf, 3) => (v(1), v(2), v(4)),
        (BlasRoutine::Getrs, 4) => (v(2), v(2), v(5)),
        (BlasRoutine::Getrs, 7) => (v(2), v(3), v(8)),
        (BlasRoutine::Gesv, 3) => (v(1), v(1), v(4)),
        (BlasRoutine::Gesv, 6) => (v(1), v(2), v(7)),
        (_, k) => return vector(v(0), v(k + 1)),
    };
    let col = b.icmp(LLVMIntPredicate::LLVMIntEQ, a.v[0], b.i32(CBLAS_COL_MAJOR));
    let outer = b.select(col, cols, rows);
    let inner = b.select(col, rows, cols);
    let s = b.add(b.mul(b.sub(outer, one), ld), inner);
    let empty = b.or(
        b.icmp(LLVMIntPredicate::LLVMIntSLE, rows, zero),
        b.icmp(LLVMIntPredicate::LLVMIntSLE, cols, zero),
    );
    b.select(empty, zero, s)
}

/// Copies array argument `k` of `a` (its span) to a new heap block, at
/// `b`'s position; returns the copy.
pub(crate) fn copy_array<'m>(b: &Builder<'m>, a: &Args<'m>, k: u32) -> Value<'m> {
    let ctx = b.ctx();
    let i64t = Ty::int(ctx, 64);
    let esize = match a.prec {
        _ if a.routine.args()[k as usize] == BlasArg::Pivots => 4,
        BlasPrecision::Single => 4,
        BlasPrecision::Double => 8,
    };
    let bytes = b.mul(span(b, a, k), b.const_int(i64t, esize));
    // malloc(0) may return null; one byte more keeps the copy a block.
    let block = b.malloc(b.add(bytes, b.const_int(i64t, 1))).as_value();
    b.memcpy(block, a.v[k as usize], bytes);
    block
}

/// Emits CBLAS calls of one precision.
pub(crate) struct Emit<'b, 'm> {
    pub(crate) b: &'b Builder<'m>,
    pub(crate) prec: BlasPrecision,
}

impl<'b, 'm> Emit<'b, 'm> {
    fn t(&self) -> Ty<'m> {
        float_ty(self.b, self.prec)
    }

    fn float(&self, x: f64) -> Value<'m> {
        self.b.const_float(self.t(), x)
    }

    fn call(&self, r: BlasRoutine, args: &[Value<'m>]) -> Value<'m> {
        let ctx = self.b.ctx();
        let (i32t, ptr) = (Ty::int(ctx, 32), Ty::ptr(ctx));
        let params: Vec<Ty> = r
            .args()
            .iter()
            .map(|a| match a {
                BlasArg::Layout
                | BlasArg::Trans
                | BlasArg::Uplo
                | BlasArg::Diag
                | BlasArg::Side
                | BlasArg::Int => i32t,
                BlasArg::Scalar => self.t(),
                BlasArg::Vector | BlasArg::Matrix | BlasArg::Pivots => ptr,
            })
            .collect();
        let ret = if r.returns_float() {
            self.t()
        } else {
            Ty::void(ctx)
        };
        let fty = Ty::function(ret, &params, false);
        self.b
            .call_named(&cblas_name(r, self.prec), fty, args)
            .as_value()
    }

    /// `y += alpha x`.
    pub(crate) fn axpy(
        &self,
        n: Value<'m>,
        alpha: Value<'m>,
        x: Value<'m>,
        incx: Value<'m>,
        y: Value<'m>,
        incy: Value<'m>,
    ) {
        self.call(BlasRoutine::Axpy, &[n, alpha, x, incx, y, incy]);
    }

    /// `x *= alpha`.
    pub(crate) fn scal(&self, n: Value<'m>, alpha: Value<'m>, x: Value<'m>, incx: Value<'m>) {
        self.call(BlasRoutine::Scal, &[n, alpha, x, incx]);
    }

    /// `x · y`.
    pub(crate) fn dot(
        &self,
        n: Value<'m>,
        x: Value<'m>,
        incx: Value<'m>,
        y: Value<'m>,
        incy: Value<'m>,
    ) -> Value<'m> {
        self.call(BlasRoutine::Dot, &[n, x, incx, y, incy])
    }

    /// `gemv` with these arguments.
    pub(crate) fn gemv(&self, args: [Value<'m>; 12]) {
        self.call(BlasRoutine::Gemv, &args);
    }

    /// `ger` with these arguments.
    pub(crate) fn ger(&self, args: [Value<'m>; 10]) {
        self.call(BlasRoutine::Ger, &args);
    }

    /// `gemm` with these arguments.
    pub(crate) fn gemm(&self, args: [Value<'m>; 14]) {
        self.call(BlasRoutine::Gemm, &args);
    }

    /// `|x|` of an `i32`.
    fn abs(&self, x: Value<'m>) -> Value<'m> {
        let b = self.b;
        let neg = b.icmp(LLVMIntPredicate::LLVMIntSLT, x, b.i32(0));
        b.select(neg, b.sub(b.i32(0), x), x)
    }

    /// The other transpose of transpose code `t`.
    fn flip(&self, t: Value<'m>) -> Value<'m> {
        let b = self.b;
        let no = b.icmp(LLVMIntPredicate::LLVMIntEQ, t, b.i32(CBLAS_NO_TRANS));
        b.select(no, b.i32(CBLAS_TRANS), b.i32(CBLAS_NO_TRANS))
    }

    fn is_no(&self, t: Value<'m>) -> Value<'m> {
        self.b
            .icmp(LLVMIntPredicate::LLVMIntEQ, t, self.b.i32(CBLAS_NO_TRANS))
    }

    /// `c ? x : y`.
    fn sel(&self, c: Value<'m>, x: Value<'m>, y: Value<'m>) -> Value<'m> {
        self.b.select(c, x, y)
    }
}

/// The arrays of one call for a derivative: for each CBLAS argument, the
/// primal values to read (the primal's pointer, or a copy the forward
/// sweep made) and the shadow, if any.
pub(crate) struct Arrays<'m> {
    pub(crate) primal: Vec<Option<Value<'m>>>,
    pub(crate) shadow: Vec<Option<Value<'m>>>,
}

impl<'m> Arrays<'m> {
    /// Empty for `n` arguments.
    pub(crate) fn new(n: usize) -> Arrays<'m> {
        Arrays {
            primal: vec![None; n],
            shadow: vec![None; n],
        }
    }

    fn p(&self, k: usize, a: &Args<'m>) -> Value<'m> {
        self.primal[k].unwrap_or(a.v[k])
    }
}

/// The reverse sweep of call `a`: adds the adjoints of its inputs'
/// shadows and resets those of what it overwrote; `dr` is the adjoint of
/// its float result, `r` that result.
pub(crate) fn reverse<'m>(
    e: &Emit<'_, 'm>,
    a: &Args<'m>,
    arr: &Arrays<'m>,
    dr: Option<Value<'m>>,
    r: Option<Value<'m>>,
) {
    let v = &a.v;
    let d = |k: usize| arr.shadow[k];
    let p = |k: usize| arr.p(k, a);
    let b = e.b;
    let one = e.float(1.0);
    let zero = e.float(0.0);
    match a.routine {
        BlasRoutine::Dot => {
            let Some(dr) = dr else { return };
            if let Some(dx) = d(1) {
                e.axpy(v[0], dr, p(3), v[4], dx, v[2]);
            }
            if let Some(dy) = d(3) {
                e.axpy(v[0], dr, p(1), v[2], dy, v[4]);
            }
        }
        BlasRoutine::Axpy => {
            if let (Some(dx), Some(dy)) = (d(2), d(4)) {
                e.axpy(v[0], v[1], dy, v[5], dx, v[3]);
            }
        }
        BlasRoutine::Scal => {
            if let Some(dx) = d(2) {
                e.scal(v[0], v[1], dx, v[3]);
            }
        }
        BlasRoutine::Copy => {
            if let Some(dy) = d(3) {
                if let Some(dx) = d(1) {
                    e.axpy(v[0], one, dy, v[4], dx, v[2]);
                }
                // (scal does nothing for a negative increment: the span's
                // elements at the increment's absolute value, in any order.)
                e.scal(v[0], zero, dy, e.abs(v[4]));
            }
        }
        BlasRoutine::Swap => {
            if let (Some(dx), Some(dy)) = (d(1), d(3)) {
                e.call(BlasRoutine::Swap, &[v[0], dx, v[2], dy, v[4]]);
            }
        }
        BlasRoutine::Nrm2 => {
            if let (Some(dx), Some(dr), Some(r)) = (d(1), dr, r) {
                let z = b.fcmp(LLVMRealPredicate::LLVMRealOEQ, r, zero);
                let s = b.select(z, zero, b.fdiv(dr, r));
                e.axpy(v[0], s, p(1), v[2], dx, v[2]);
            }
        }
        BlasRoutine::Asum => {
            if let (Some(dx), Some(dr)) = (d(1), dr) {
                asum::call(b, a.prec, true, [v[0], p(1), v[2], dx, dr]);
            }
        }
        BlasRoutine::Iamax | BlasRoutine::Syr2k => {}
        BlasRoutine::Symv
        | BlasRoutine::Trmv
        | BlasRoutine::Trsv
        | BlasRoutine::Symm
        | BlasRoutine::Syrk
        | BlasRoutine::Trmm
        | BlasRoutine::Trsm => structured::reverse(e, a, arr),
        BlasRoutine::Potrf | BlasRoutine::Potrs => lapack::reverse(e, a, arr),
        BlasRoutine::Getrf | BlasRoutine::Getrs | BlasRoutine::Gesv => lu::reverse(e, a, arr),
        BlasRoutine::Gemv => {
            // y = alpha op(A) x + beta y
            let (l, t, m, n, alpha, lda, incx, beta, incy) =
                (v[0], v[1], v[2], v[3], v[4], v[6], v[8], v[9], v[11]);
            let Some(dy) = d(10) else { return };
            if let Some(dx) = d(7) {
                e.gemv([
                    l,
                    e.flip(t),
                    m,
                    n,
                    alpha,
                    p(5),
                    lda,
                    dy,
                    incy,
                    one,
                    dx,
                    incx,
                ]);
            }
            if let Some(da) = d(5) {
                // op = N: dA += alpha dy x^T; op = T: dA += alpha x dy^T.
                let no = e.is_no(t);
                let x = p(7);
                e.ger([
                    l,
                    m,
                    n,
                    alpha,
                    e.sel(no, dy, x),
                    e.sel(no, incy, incx),
                    e.sel(no, x, dy),
                    e.sel(no, incx, incy),
                    da,
                    lda,
                ]);
            }
            e.gemv([l, t, m, n, zero, p(5), lda, p(7), incx, beta, dy, incy]);
        }
        BlasRoutine::Ger => {
            // A += alpha x y^T
            let (l, m, n, alpha, incx, incy, lda) = (v[0], v[1], v[2], v[3], v[5], v[7], v[9]);
            let Some(da) = d(8) else { return };
            let nt = b.i32(CBLAS_NO_TRANS);
            let tt = b.i32(CBLAS_TRANS);
            if let Some(dx) = d(4) {
                e.gemv([l, nt, m, n, alpha, da, lda, p(6), incy, one, dx, incx]);
            }
            if let Some(dy) = d(6) {
                e.gemv([l, tt, m, n, alpha, da, lda, p(4), incx, one, dy, incy]);
            }
        }
        BlasRoutine::Gemm => {
            // C = alpha op(A) op(B) + beta C; op(A) m x k, op(B) k x n.
            let (l, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc) = (
                v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[8], v[10], v[11], v[13],
            );
            let Some(dc) = d(12) else { return };
            let nt = b.i32(CBLAS_NO_TRANS);
            let tt = b.i32(CBLAS_TRANS);
            if let Some(da) = d(7) {
                // op = N: dA += alpha dC op(B)^T (m x k);
                // op = T: dA += alpha op(B) dC^T (k x m).
                let no = e.is_no(ta);
                let bm = p(9);
                e.gemm([
                    l,
                    e.sel(no, nt, tb),
                    e.sel(no, e.flip(tb), tt),
                    e.sel(no, m, k),
                    e.sel(no, k, m),
                    n,
                    alpha,
                    e.sel(no, dc, bm),
                    e.sel(no, ldc, ldb),
                    e.sel(no, bm, dc),
                    e.sel(no, ldb, ldc),
                    one,
                    da,
                    lda,
                ]);
            }
            if let Some(db) = d(9) {
                // op = N: dB += alpha op(A)^T dC (k x n);
                // op = T: dB += alpha dC^T op(A) (n x k).
                let no = e.is_no(tb);
                let am = p(7);
                e.gemm([
                    l,
                    e.sel(no, e.flip(ta), tt),
                    e.sel(no, nt, ta),
                    e.sel(no, k, n),
                    e.sel(no, n, k),
                    m,
                    alpha,
                    e.sel(no, am, dc),
                    e.sel(no, lda, ldc),
                    e.sel(no, dc, am),
                    e.sel(no, ldc, lda),
                    one,
                    db,
                    ldb,
                ]);
            }
            e.gemm([
                l,
                ta,
                tb,
                m,
                n,
                k,
                zero,
                p(7),
                lda,
                p(9),
                ldb,
                beta,
                dc,
                ldc,
            ]);
        }
    }
}

/// Forward mode: the tangent of call `a` (made right after it) on its
/// shadows; returns its float result's tangent.
pub(crate) fn tangent<'m>(
    e: &Emit<'_, 'm>,
    a: &Args<'m>,
    arr: &Arrays<'m>,
    r: Option<Value<'m>>,
) -> Option<Value<'m>> {
    let v = &a.v;
    let d = |k: usize| arr.shadow[k];
    let b = e.b;
    let zero = e.float(0.0);
    let one = e.float(1.0);
    match a.routine {
        BlasRoutine::Dot => {
            let mut t = zero;
            if let Some(dx) = d(1) {
                t = b.fadd(t, e.dot(v[0], dx, v[2], v[3], v[4]));
            }
            if let Some(dy) = d(3) {
                t = b.fadd(t, e.dot(v[0], v[1], v[2], dy, v[4]));
            }
            Some(t)
        }
        BlasRoutine::Axpy => {
            if let (Some(dx), Some(dy)) = (d(2), d(4)) {
                e.axpy(v[0], v[1], dx, v[3], dy, v[5]);
            }
            None
        }
        BlasRoutine::Scal => {
            if let Some(dx) = d(2) {
                e.scal(v[0], v[1], dx, v[3]);
            }
            None
        }
        BlasRoutine::Copy => {
            match (d(1), d(3)) {
                (Some(dx), Some(dy)) => {
                    e.call(BlasRoutine::Copy, &[v[0], dx, v[2], dy, v[4]]);
                }
                (None, Some(dy)) => e.scal(v[0], zero, dy, e.abs(v[4])),
                _ => {}
            }
            None
        }
        BlasRoutine::Swap => {
            if let (Some(dx), Some(dy)) = (d(1), d(3)) {
                e.call(BlasRoutine::Swap, &[v[0], dx, v[2], dy, v[4]]);
            }
            None
        }
        BlasRoutine::Nrm2 => {
            let dx = d(1)?;
            let r = r.expect("the norm");
            let z = b.fcmp(LLVMRealPredicate::LLVMRealOEQ, r, zero);
            let dot = e.dot(v[0], v[1], v[2], dx, v[2]);
            Some(b.select(z, zero, b.fdiv(dot, r)))
        }
        BlasRoutine::Asum => {
            let dx = d(1)?;
            Some(asum::call(b, a.prec, false, [v[0], v[1], v[2], dx, zero]))
        }
        BlasRoutine::Iamax | BlasRoutine::Syr2k => None,
        BlasRoutine::Symv
        | BlasRoutine::Trmv
        | BlasRoutine::Trsv
        | BlasRoutine::Symm
        | BlasRoutine::Syrk
        | BlasRoutine::Trmm
        | BlasRoutine::Trsm => {
            structured::tangent(e, a, arr);
            None
        }
        BlasRoutine::Potrf | BlasRoutine::Potrs => {
            lapack::tangent(e, a, arr);
            None
        }
        BlasRoutine::Getrf | BlasRoutine::Getrs | BlasRoutine::Gesv => {
            lu::tangent(e, a, arr);
            None
        }
        BlasRoutine::Gemv => {
            let (l, t, m, n, alpha, lda, incx, beta, incy) =
                (v[0], v[1], v[2], v[3], v[4], v[6], v[8], v[9], v[11]);
            let dy = d(10)?;
            let mut beta_now = beta;
            if let Some(dx) = d(7) {
                e.gemv([l, t, m, n, alpha, v[5], lda, dx, incx, beta_now, dy, incy]);
                beta_now = one;
            }
            if let Some(da) = d(5) {
                e.gemv([l, t, m, n, alpha, da, lda, v[7], incx, beta_now, dy, incy]);
                beta_now = one;
            }
            if d(7).is_none() && d(5).is_none() {
                e.gemv([l, t, m, n, zero, v[5], lda, v[7], incx, beta_now, dy, incy]);
            }
            None
        }
        BlasRoutine::Ger => {
            let (l, m, n, alpha, incx, incy, lda) = (v[0], v[1], v[2], v[3], v[5], v[7], v[9]);
            let da = d(8)?;
            if let Some(dx) = d(4) {
                e.ger([l, m, n, alpha, dx, incx, v[6], incy, da, lda]);
            }
            if let Some(dy) = d(6) {
                e.ger([l, m, n, alpha, v[4], incx, dy, incy, da, lda]);
            }
            None
        }
        BlasRoutine::Gemm => {
            let (l, ta, tb, m, n, k, alpha, lda, ldb, beta, ldc) = (
                v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[8], v[10], v[11], v[13],
            );
            let dc = d(12)?;
            let mut beta_now = beta;
            if let Some(da) = d(7) {
                e.gemm([
                    l, ta, tb, m, n, k, alpha, da, lda, v[9], ldb, beta_now, dc, ldc,
                ]);
                beta_now = one;
            }
            if let Some(db) = d(9) {
                e.gemm([
                    l, ta, tb, m, n, k, alpha, v[7], lda, db, ldb, beta_now, dc, ldc,
                ]);
                beta_now = one;
            }
            if d(7).is_none() && d(9).is_none() {
                e.gemm([
                    l, ta, tb, m, n, k, zero, v[7], lda, v[9], ldb, beta_now, dc, ldc,
                ]);
            }
            None
        }
    }
}

/// Why call `i` of `f` cannot be differentiated, if it cannot: its
/// arguments are unreadable, or it has no rule.
pub(crate) fn refusal(i: Inst<'_>, f: BlasFn) -> Option<String> {
    let name = i.called_function().map(|f| f.name()).unwrap_or_default();
    match f {
        BlasFn::Other if crate::names::is_lapack_name(&name) => Some(format!(
            "`{name}`: a LAPACK routine enz-rs has no derivative rule for (it differentiates ?potrf, ?potrs, ?getrf (square), ?getrs and ?gesv in single and double precision, through LAPACKE and the Fortran symbols)"
        )),
        BlasFn::Other => Some(format!(
            "`{name}`: a BLAS routine enz-rs has no derivative rule for (it differentiates ?dot, ?axpy, ?scal, ?copy, ?swap, ?nrm2, ?asum, ?gemv, ?ger, ?gemm, ?symv, ?trmv, ?trsv, ?symm, ?syrk, ?trmm and ?trsm in single and double precision, through CBLAS and the Fortran symbols)"
        )),
        BlasFn::Rule(BlasRoutine::Syr2k, _, _) => Some(format!(
            "`{name}`: a BLAS routine enz-rs has no derivative rule for (?syr2k)"
        )),
        // getrf's rule is for square matrices: M and N must be seen to be
        // the same (one value, or equal constants; in the Fortran form one
        // pointer), else the call is refused rather than taken as square.
        BlasFn::Rule(BlasRoutine::Getrf, _, iface)
            if crate::analysis::blas::check_arguments(i, f).is_ok() && !getrf_is_square(i, iface) =>
        {
            Some(format!(
                "`{name}`: enz-rs differentiates ?getrf of square matrices only, and cannot see that M and N are equal here (pass the same variable, or equal constants, for both; a non-square LU has no rule)"
            ))
        }
        _ => crate::analysis::blas::check_arguments(i, f).err(),
    }
}

/// Whether `?getrf` call `i` visibly factors a square matrix: M and N
/// (arguments 1 and 2 of LAPACKE's form, pointers 0 and 1 of Fortran's)
/// are one value or equal constants.
fn getrf_is_square(i: Inst<'_>, iface: BlasInterface) -> bool {
    let (m, n) = match iface {
        BlasInterface::Cblas => (i.operand(1), i.operand(2)),
        BlasInterface::Fortran => (i.operand(0), i.operand(1)),
    };
    m == n || matches!((m.const_int_sext(), n.const_int_sext()), (Some(a), Some(b)) if a == b)
}

/// Whether any array of call `i` has a shadow according to `shadowed`.
pub(crate) fn any_shadowed<'m>(
    i: Inst<'m>,
    f: BlasFn,
    shadowed: &dyn Fn(Value<'m>) -> bool,
) -> bool {
    match f {
        BlasFn::Rule(..) if crate::analysis::blas::check_arguments(i, f).is_ok() => {
            arrays(i, f).iter().any(|(_, a, _)| shadowed(*a))
        }
        _ => (0..i.call_num_args()).any(|k| {
            let a = i.operand(k);
            a.ty().kind() == crate::ir::TyKind::Pointer && shadowed(a)
        }),
    }
}
