//! Memory functions (allocation, release, copy, set) with their facts,
//! and masked vector accesses.

/// A memory-management function or memory intrinsic.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum MemFn {
    Malloc,
    Calloc,
    Realloc,
    /// `aligned_alloc(align, size)`, `memalign(align, size)`.
    AlignedAlloc,
    /// `valloc(size)`, `pvalloc(size)`.
    Valloc,
    /// `posix_memalign(&p, align, size)`: the block is written to `*p`.
    PosixMemalign,
    Free,
    /// C++ `operator new` / `new[]` (also aligned and `nothrow`).
    New,
    /// C++ `operator delete` / `delete[]`.
    Delete,
    Memcpy,
    Memmove,
    Memset,
    /// CUDA's runtime on the host: `cudaMalloc(&p, size)`, device memory
    /// written to `*p`.
    CudaMalloc,
    /// `cudaFree(p)`.
    CudaFree,
    /// `cudaMemcpy(dst, src, n, kind)`, between host and device memory.
    CudaMemcpy,
    /// `cudaMemset(p, value, n)` on device memory.
    CudaMemset,
    /// An allocator the user registered (`__enzyme_allocation_like`),
    /// taking the size in bytes as argument `size_arg`.
    Allocation {
        /// The argument holding the size.
        size_arg: u32,
    },
}

impl MemFn {
    /// The memory function a callee name designates.
    pub(crate) fn from_callee(name: &str) -> Option<MemFn> {
        // `llvm.memcpy` and its overloads (`llvm.memcpy.p0.p0.i64`,
        // `llvm.memcpy.inline.*`), not `llvm.memcpyx`.
        let intrinsic = |base: &str| {
            name.strip_prefix(base)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('.'))
        };
        if let Some(m) = MEMORY.iter().find(|m| m.name == name) {
            return Some(m.f);
        }
        Some(match name {
            _ if intrinsic("llvm.memcpy") => MemFn::Memcpy,
            _ if intrinsic("llvm.memmove") => MemFn::Memmove,
            _ if intrinsic("llvm.memset") => MemFn::Memset,
            _ => return None,
        })
    }

    /// How a block from allocation function `name` is released: the
    /// deallocation function's name and whether it takes the allocation's
    /// alignment (argument 1 of aligned `operator new`) after the pointer.
    /// `None` for functions that allocate nothing.
    pub(crate) fn release_of(name: &str) -> Option<(&'static str, bool)> {
        let m = MEMORY.iter().find(|m| m.name == name)?;
        match m.release {
            Release::None => None,
            Release::Free => Some(("free", false)),
            Release::Delete(d) => Some((d, false)),
            Release::DeleteAligned(d) => Some((d, true)),
        }
    }

    /// The arguments that are integers (sizes, alignments, fill bytes):
    /// facts for type analysis. Only those of integer LLVM type count (the
    /// `nothrow` forms of `new` take a pointer second).
    pub(crate) fn integer_arguments(self) -> &'static [u32] {
        match self {
            MemFn::Malloc | MemFn::Valloc => &[0],
            MemFn::Calloc | MemFn::AlignedAlloc | MemFn::New => &[0, 1],
            MemFn::Realloc => &[1],
            MemFn::Delete | MemFn::PosixMemalign => &[1, 2],
            MemFn::Memset | MemFn::CudaMemset => &[1, 2],
            MemFn::CudaMalloc => &[1],
            MemFn::Allocation { size_arg } => {
                static INDICES: [u32; 8] = [0, 1, 2, 3, 4, 5, 6, 7];
                INDICES
                    .get(size_arg as usize)
                    .map(std::slice::from_ref)
                    .unwrap_or(&[])
            }
            // Copies are typed by what they copy (type analysis).
            MemFn::Memcpy | MemFn::Memmove | MemFn::Free | MemFn::CudaFree => &[],
            MemFn::CudaMemcpy => &[3],
        }
    }

    /// Whether it returns a fresh block (or, for realloc, a moved one).
    pub(crate) fn allocates(self) -> bool {
        matches!(
            self,
            MemFn::Malloc
                | MemFn::Calloc
                | MemFn::Realloc
                | MemFn::AlignedAlloc
                | MemFn::Valloc
                | MemFn::New
                | MemFn::Allocation { .. }
        )
    }

    /// For an allocation that takes its size in bytes as one argument
    /// (not `calloc`), that argument's index.
    pub(crate) fn size_argument(self) -> Option<u32> {
        match self {
            MemFn::Malloc | MemFn::Valloc | MemFn::New => Some(0),
            MemFn::Realloc | MemFn::AlignedAlloc => Some(1),
            MemFn::Allocation { size_arg } => Some(size_arg),
            MemFn::PosixMemalign => Some(2),
            MemFn::CudaMalloc => Some(1),
            _ => None,
        }
    }

    /// For an allocation that writes the block through a pointer argument
    /// instead of returning it (`posix_memalign`), that argument's index.
    pub(crate) fn allocates_through(self) -> Option<u32> {
        matches!(self, MemFn::PosixMemalign | MemFn::CudaMalloc).then_some(0)
    }

    /// Whether it releases its pointer argument.
    pub(crate) fn frees(self) -> bool {
        matches!(
            self,
            MemFn::Free | MemFn::Delete | MemFn::Realloc | MemFn::CudaFree
        )
    }

    /// Whether it copies memory from its second argument to its first.
    pub(crate) fn transfers(self) -> bool {
        matches!(self, MemFn::Memcpy | MemFn::Memmove | MemFn::CudaMemcpy)
    }

    /// Whether it fills its first argument with a byte (`memset`).
    pub(crate) fn sets(self) -> bool {
        matches!(self, MemFn::Memset | MemFn::CudaMemset)
    }

    /// Whether it is CUDA's runtime, whose memory the host reaches only
    /// through more calls of it (`synth/cuda_host.rs`).
    pub(crate) fn on_device(self) -> bool {
        matches!(
            self,
            MemFn::CudaMalloc | MemFn::CudaFree | MemFn::CudaMemcpy | MemFn::CudaMemset
        )
    }
}

/// How the blocks of an allocation function are released.
#[derive(Copy, Clone)]
enum Release {
    /// Not an allocation (or one released by its own rules: realloc).
    None,
    /// `free(p)`.
    Free,
    /// `operator delete(p)` of this spelling.
    Delete(&'static str),
    /// Aligned `operator delete(p, align)` of this spelling.
    DeleteAligned(&'static str),
}

/// One spelling of a memory function.
struct MemName {
    name: &'static str,
    f: MemFn,
    release: Release,
}

const fn mem(name: &'static str, f: MemFn, release: Release) -> MemName {
    MemName { name, f, release }
}

/// Every spelling of the memory functions (the intrinsics' overloads are
/// matched by prefix in [`MemFn::from_callee`]), with how an allocation's
/// blocks are released: C library allocation, `operator new`/`new[]` in
/// every variant (plain, aligned, `nothrow`, both), `operator
/// delete`/`delete[]` in every variant (plain, sized, aligned, `nothrow`).
const MEMORY: &[MemName] = {
    use MemFn::*;
    use Release::{Delete as D, DeleteAligned as DA, Free as F, None as N};
    &[
        mem("malloc", Malloc, F),
        mem("calloc", Calloc, F),
        mem("realloc", Realloc, N),
        mem("aligned_alloc", AlignedAlloc, F),
        mem("memalign", AlignedAlloc, F),
        mem("valloc", Valloc, F),
        mem("pvalloc", Valloc, F),
        mem("posix_memalign", PosixMemalign, F),
        mem("free", Free, N),
        mem("_Znwm", New, D("_ZdlPv")),
        mem("_Znam", New, D("_ZdaPv")),
        mem("_ZnwmRKSt9nothrow_t", New, D("_ZdlPv")),
        mem("_ZnamRKSt9nothrow_t", New, D("_ZdaPv")),
        mem("_ZnwmSt11align_val_t", New, DA("_ZdlPvSt11align_val_t")),
        mem("_ZnamSt11align_val_t", New, DA("_ZdaPvSt11align_val_t")),
        mem(
            "_ZnwmSt11align_val_tRKSt9nothrow_t",
            New,
            DA("_ZdlPvSt11align_val_t"),
        ),
        mem(
            "_ZnamSt11align_val_tRKSt9nothrow_t",
            New,
            DA("_ZdaPvSt11align_val_t"),
        ),
        mem("_ZdlPv", Delete, N),
        mem("_ZdaPv", Delete, N),
        mem("_ZdlPvm", Delete, N),
        mem("_ZdaPvm", Delete, N),
        mem("_ZdlPvSt11align_val_t", Delete, N),
        mem("_ZdaPvSt11align_val_t", Delete, N),
        mem("_ZdlPvmSt11align_val_t", Delete, N),
        mem("_ZdaPvmSt11align_val_t", Delete, N),
        mem("_ZdlPvRKSt9nothrow_t", Delete, N),
        mem("_ZdaPvRKSt9nothrow_t", Delete, N),
        mem("_ZdlPvSt11align_val_tRKSt9nothrow_t", Delete, N),
        mem("_ZdaPvSt11align_val_tRKSt9nothrow_t", Delete, N),
        mem("memcpy", Memcpy, N),
        mem("memmove", Memmove, N),
        mem("memset", Memset, N),
        mem(CUDA_MALLOC, CudaMalloc, D(CUDA_FREE)),
        mem(CUDA_FREE, CudaFree, N),
        mem(CUDA_MEMCPY, CudaMemcpy, N),
        mem(CUDA_MEMSET, CudaMemset, N),
        // enz-rs's own cache allocator (synth/runtime.rs), met again when
        // a derivative is differentiated.
        mem(CACHE_TAKE, Allocation { size_arg: 1 }, F),
        mem(CACHE_GIVE, Free, N),
    ]
};

/// The machine's cache budget, read at run time (`--cache-budget auto`):
/// `__enz_machine_cache_budget()`, inactive where a checkpointed loop's
/// choice of form calls it in the primal.
pub(crate) const MACHINE_CACHE_BUDGET: &str = "__enz_machine_cache_budget";
/// `__enz_thread_cache_check(ok)`: traps unless `ok` (a GPU loop whose
/// per-thread caches do not fit and cannot be recomputed).
pub(crate) const THREAD_CACHE_CHECK: &str = "__enz_thread_cache_check";
/// Whether a range of bytes is all zero (`__enz_all_zero(p, lo, hi)`):
/// forward derivatives check the shadow memory a loop reads before
/// running its tangent work (`synth/forward/zero_skip.rs`); inactive where
/// such a derivative is differentiated again.
pub(crate) const ALL_ZERO: &str = "__enz_all_zero";
/// C11's `aligned_alloc(align, size)`: split pairs' heap shadows of
/// over-aligned allocas.
pub(crate) const ALIGNED_ALLOC: &str = "aligned_alloc";
/// `calloc(n, size)`, which makes contexts (`synth/context.rs`).
pub(crate) const CALLOC: &str = "calloc";

/// CUDA's runtime allocation on the host side, `cudaMalloc(&p, size)`.
pub(crate) const CUDA_MALLOC: &str = "cudaMalloc";
/// `cudaFree(p)`.
pub(crate) const CUDA_FREE: &str = "cudaFree";
/// `cudaMemcpy(dst, src, n, kind)`.
pub(crate) const CUDA_MEMCPY: &str = "cudaMemcpy";
/// `cudaMemset(p, value, n)`.
pub(crate) const CUDA_MEMSET: &str = "cudaMemset";
/// `cudaMemcpyDefault`: the direction told by the pointers (unified
/// addressing), host to host included.
pub(crate) const CUDA_MEMCPY_DEFAULT: i64 = 4;

/// The cache allocator of derivatives: `__enz_cache_take(spare, bytes)`.
pub(crate) const CACHE_TAKE: &str = "__enz_cache_take";
/// Its release: `__enz_cache_give(data, bytes, spare)`.
pub(crate) const CACHE_GIVE: &str = "__enz_cache_give";

/// `realloc`'s spelling, for the helpers that call it.
pub(crate) const REALLOC: &str = "realloc";
/// `malloc_usable_size` (glibc), to know how much of an old block to keep.
pub(crate) const MALLOC_USABLE_SIZE: &str = "malloc_usable_size";

/// A masked vector memory access: the lanes whose mask bit is set are
/// read or written, the others untouched (and not dereferenced).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum MaskedFn {
    /// `llvm.masked.load(ptr, <N x i1> mask, <N x T> passthru)`.
    Load,
    /// `llvm.masked.store(<N x T> value, ptr, <N x i1> mask)`.
    Store,
    /// `llvm.masked.gather(<N x ptr>, <N x i1> mask, <N x T> passthru)`:
    /// a load with one pointer per lane.
    Gather,
    /// `llvm.masked.scatter(<N x T> value, <N x ptr>, <N x i1> mask)`: a
    /// store with one pointer per lane (the last lane wins where two
    /// pointers are equal).
    Scatter,
}

impl MaskedFn {
    const ALL: [(MaskedFn, &'static str); 4] = [
        (MaskedFn::Load, "llvm.masked.load"),
        (MaskedFn::Store, "llvm.masked.store"),
        (MaskedFn::Gather, "llvm.masked.gather"),
        (MaskedFn::Scatter, "llvm.masked.scatter"),
    ];

    /// Whether the access reads (a load or gather; else it writes).
    pub(crate) fn reads(self) -> bool {
        matches!(self, MaskedFn::Load | MaskedFn::Gather)
    }

    /// Whether each lane has its own pointer (gather, scatter).
    pub(crate) fn per_lane_pointers(self) -> bool {
        matches!(self, MaskedFn::Gather | MaskedFn::Scatter)
    }

    /// The masked access a callee name designates (any overload suffix).
    pub(crate) fn from_callee(name: &str) -> Option<MaskedFn> {
        Self::ALL
            .iter()
            .find(|(_, base)| name.strip_prefix(base).is_some_and(|t| t.starts_with('.')))
            .map(|(m, _)| *m)
    }

    /// The intrinsic's name, without overload suffix.
    pub(crate) fn intrinsic(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(m, _)| *m == self)
            .map(|(_, s)| *s)
            .unwrap_or("?")
    }

    /// The index of the pointer argument.
    pub(crate) fn pointer_arg(self) -> u32 {
        match self {
            MaskedFn::Load | MaskedFn::Gather => 0,
            MaskedFn::Store | MaskedFn::Scatter => 1,
        }
    }
}
