//! Derivatives of CUDA's runtime memory calls in host code
//! (`cudaMalloc`, `cudaFree`, `cudaMemcpy`, `cudaMemset`): the host
//! reaches device memory only through more calls of the runtime, so what
//! the memory rules do with `memset`/`memcpy` and element loops on host
//! shadows is done here with `cudaMemset`/`cudaMemcpy` and host
//! temporaries. Copies the rules add use `cudaMemcpyDefault`, which tells
//! the direction from the pointers (unified addressing: any pair of host
//! and device memory, host to host included), as the shadows of a call's
//! pointers are of the same kind as its pointers.

use crate::ir::{Builder, Ty, Value};
use crate::names::{CUDA_FREE, CUDA_MEMCPY, CUDA_MEMCPY_DEFAULT, CUDA_MEMSET};
use crate::synth::runtime;

/// `cudaMemset(p, 0, n)`: `p` is device memory (`n`: `i64` bytes).
pub(crate) fn device_memset_zero<'m>(b: &Builder<'m>, p: Value<'m>, n: Value<'m>) {
    let ctx = b.ctx();
    let (ptr, i32t, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 32), Ty::int(ctx, 64));
    let fty = Ty::function(i32t, &[ptr, i32t, i64t], false);
    b.call_named(CUDA_MEMSET, fty, &[p, b.const_int(i32t, 0), n]);
}

/// `cudaFree(p)`.
pub(crate) fn device_free<'m>(b: &Builder<'m>, p: Value<'m>) {
    let ctx = b.ctx();
    let fty = Ty::function(Ty::int(ctx, 32), &[Ty::ptr(ctx)], false);
    b.call_named(CUDA_FREE, fty, &[p]);
}

/// `cudaMemcpy(d, s, n, cudaMemcpyDefault)`.
fn copy<'m>(b: &Builder<'m>, d: Value<'m>, s: Value<'m>, n: Value<'m>) {
    let ctx = b.ctx();
    let (ptr, i32t, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 32), Ty::int(ctx, 64));
    let fty = Ty::function(i32t, &[ptr, ptr, i64t, i32t], false);
    let kind = b.const_int(i32t, CUDA_MEMCPY_DEFAULT);
    b.call_named(CUDA_MEMCPY, fty, &[d, s, n, kind]);
}

/// A host block of `n` bytes (at least one), zeroed.
fn host_zeroed<'m>(b: &Builder<'m>, n: Value<'m>) -> Value<'m> {
    let i64t = Ty::int(b.ctx(), 64);
    let t = b.malloc(b.add(n, b.const_int(i64t, 1))).as_value();
    b.memset_zero(t, n);
    t
}

/// Zeroes `n` bytes at `p`, host or device memory: copied from a zeroed
/// host block.
pub(crate) fn zero<'m>(b: &Builder<'m>, p: Value<'m>, n: Value<'m>) {
    let z = host_zeroed(b, n);
    copy(b, p, z, n);
    b.free(z);
}

/// The reverse of `cudaMemcpy(dst, src, n, kind)` on the shadows, host or
/// device memory: `ds += dd; dd = 0` for elements of type `ty`, through
/// host copies of both (`ds` null: only `dd = 0`).
pub(crate) fn add_and_zero<'m>(
    b: &Builder<'m>,
    ty: Ty<'m>,
    dd: Value<'m>,
    ds: Option<Value<'m>>,
    n: Value<'m>,
) {
    let Some(ds) = ds else {
        return zero(b, dd, n);
    };
    let (hd, hs) = (host_zeroed(b, n), host_zeroed(b, n));
    copy(b, hd, dd, n);
    copy(b, hs, ds, n);
    // hs += hd; hd = 0, then both go back.
    runtime::add_and_zero(b, ty, hd, hs, n);
    copy(b, ds, hs, n);
    copy(b, dd, hd, n);
    b.free(hd);
    b.free(hs);
}
