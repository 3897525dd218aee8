//! The registry of names enz-rs recognises: entry points, activity markers
//! and math functions.
//!
//! Every string such as `"sinf"`, `"llvm.sin.f32"` or `"__enzyme_autodiff"`
//! lives here; the rest of the crate matches on the enums.

/// A user-facing entry point, matched by a callee name that *contains* it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum EntryPoint {
    /// `__enzyme_autodiff`: combined reverse mode.
    Autodiff,
    /// `__enzyme_fwddiff`: forward (tangent) mode.
    FwdDiff,
    /// `__enzyme_augmentfwd`: the forward sweep of split reverse mode.
    AugmentFwd,
    /// `__enzyme_reverse`: the reverse sweep of split reverse mode.
    Reverse,
}

impl EntryPoint {
    const ALL: [(EntryPoint, &'static str); 4] = [
        (EntryPoint::Autodiff, "__enzyme_autodiff"),
        (EntryPoint::FwdDiff, "__enzyme_fwddiff"),
        (EntryPoint::AugmentFwd, "__enzyme_augmentfwd"),
        (EntryPoint::Reverse, "__enzyme_reverse"),
    ];

    /// The entry point a callee name designates, if any.
    pub fn from_callee(name: &str) -> Option<EntryPoint> {
        Self::ALL
            .iter()
            .find(|(_, s)| name.contains(s))
            .map(|(e, _)| *e)
    }

    /// The spelling: the entry point's or the marker's global name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(e, _)| *e == self)
            .map(|(_, s)| *s)
            .unwrap_or("?")
    }
}

/// Whether `name` belongs to the `__enzyme_*` / `enzyme_*` API: a
/// declaration of it left in an output would fail at link time.
pub fn is_api_symbol(name: &str) -> bool {
    name.contains("__enzyme_") || name.starts_with("enzyme_")
}

/// An activity marker argument (`enzyme_dup`, ...).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Marker {
    /// `enzyme_dup`: the next value is followed by its shadow.
    Dup,
    /// `enzyme_dupnoneed`: like `Dup`, the primal result is not needed.
    DupNoNeed,
    /// `enzyme_out`: the next value's adjoint is returned.
    Out,
    /// `enzyme_const`: the next value has no derivative.
    Const,
    /// `enzyme_allocated`: the size of the caller's tape buffer follows.
    Allocated,
    /// `enzyme_tape`: the caller's tape buffer follows.
    Tape,
    /// `enzyme_width`: the vector width of forward mode follows.
    Width,
    /// `enzyme_scalar`: recognised, not supported (a diagnostic).
    Scalar,
}

impl Marker {
    const ALL: [(Marker, &'static str); 8] = [
        (Marker::Dup, "enzyme_dup"),
        (Marker::DupNoNeed, "enzyme_dupnoneed"),
        (Marker::Out, "enzyme_out"),
        (Marker::Const, "enzyme_const"),
        (Marker::Allocated, "enzyme_allocated"),
        (Marker::Tape, "enzyme_tape"),
        (Marker::Width, "enzyme_width"),
        (Marker::Scalar, "enzyme_scalar"),
    ];

    /// The marker a global (or metadata string) name designates.
    pub fn from_name(name: &str) -> Option<Marker> {
        Self::ALL.iter().find(|(_, s)| *s == name).map(|(m, _)| *m)
    }

    /// The spelling: the entry point's or the marker's global name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(m, _)| *m == self)
            .map(|(_, s)| *s)
            .unwrap_or("?")
    }

    /// Whether a global of this name is a marker global.
    pub fn is_marker_global(name: &str) -> bool {
        Self::from_name(name).is_some()
    }
}

/// A math function with a derivative rule, whatever its spelling
/// (`sin`, `sinf`, `llvm.sin.f64`, `llvm.sin.v2f32` are all [`MathFn::Sin`]).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
#[allow(missing_docs)]
pub(crate) enum MathFn {
    Sqrt,
    Sin,
    Cos,
    Tan,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Pow,
    Powi,
    Fabs,
    Fma,
    FMulAdd,
    CopySign,
    Min,
    Max,
    Floor,
    Ceil,
    Trunc,
    Round,
    RoundEven,
    Rint,
    NearbyInt,
    Tanh,
    Sinh,
    Cosh,
    Atan,
    Atan2,
    Asin,
    Acos,
    Hypot,
    Cbrt,
    Erf,
    Fmod,
    /// `llvm.vector.reduce.fadd(start, v)`: `start + Σ v` (any order).
    ReduceFAdd,
    /// `llvm.vector.reduce.fmul(start, v)`: `start · Π v`.
    ReduceFMul,
    /// `llvm.vector.reduce.fmax` / `fmaximum`: the largest lane.
    ReduceFMax,
    /// `llvm.vector.reduce.fmin` / `fminimum`: the smallest lane.
    ReduceFMin,
}

/// Spellings of one math function: libm double and float names, and the
/// intrinsic base names (without `llvm.` and type suffix).
struct MathNames {
    f: MathFn,
    libm: &'static [&'static str],
    intrinsics: &'static [&'static str],
}

const MATH: &[MathNames] = &[
    MathNames {
        f: MathFn::Sqrt,
        libm: &["sqrt", "sqrtf"],
        intrinsics: &["sqrt"],
    },
    MathNames {
        f: MathFn::Sin,
        libm: &["sin", "sinf"],
        intrinsics: &["sin"],
    },
    MathNames {
        f: MathFn::Cos,
        libm: &["cos", "cosf"],
        intrinsics: &["cos"],
    },
    MathNames {
        f: MathFn::Tan,
        libm: &["tan", "tanf"],
        intrinsics: &["tan"],
    },
    MathNames {
        f: MathFn::Exp,
        libm: &["exp", "expf"],
        intrinsics: &["exp"],
    },
    MathNames {
        f: MathFn::Exp2,
        libm: &["exp2", "exp2f"],
        intrinsics: &["exp2"],
    },
    MathNames {
        f: MathFn::Expm1,
        libm: &["expm1", "expm1f"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Log,
        libm: &["log", "logf"],
        intrinsics: &["log"],
    },
    MathNames {
        f: MathFn::Log2,
        libm: &["log2", "log2f"],
        intrinsics: &["log2"],
    },
    MathNames {
        f: MathFn::Log10,
        libm: &["log10", "log10f"],
        intrinsics: &["log10"],
    },
    MathNames {
        f: MathFn::Log1p,
        libm: &["log1p", "log1pf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Pow,
        libm: &["pow", "powf"],
        intrinsics: &["pow"],
    },
    MathNames {
        f: MathFn::Powi,
        libm: &[],
        intrinsics: &["powi"],
    },
    MathNames {
        f: MathFn::Fabs,
        libm: &["fabs", "fabsf"],
        intrinsics: &["fabs"],
    },
    MathNames {
        f: MathFn::Fma,
        libm: &["fma", "fmaf"],
        intrinsics: &["fma"],
    },
    MathNames {
        f: MathFn::FMulAdd,
        libm: &[],
        intrinsics: &["fmuladd"],
    },
    MathNames {
        f: MathFn::CopySign,
        libm: &["copysign", "copysignf"],
        intrinsics: &["copysign"],
    },
    MathNames {
        f: MathFn::Min,
        libm: &["fmin", "fminf"],
        intrinsics: &["minnum", "minimum", "minimumnum"],
    },
    MathNames {
        f: MathFn::Max,
        libm: &["fmax", "fmaxf"],
        intrinsics: &["maxnum", "maximum", "maximumnum"],
    },
    MathNames {
        f: MathFn::Floor,
        libm: &["floor", "floorf"],
        intrinsics: &["floor"],
    },
    MathNames {
        f: MathFn::Ceil,
        libm: &["ceil", "ceilf"],
        intrinsics: &["ceil"],
    },
    MathNames {
        f: MathFn::Trunc,
        libm: &["trunc", "truncf"],
        intrinsics: &["trunc"],
    },
    MathNames {
        f: MathFn::Round,
        libm: &["round", "roundf"],
        intrinsics: &["round"],
    },
    MathNames {
        f: MathFn::RoundEven,
        libm: &["roundeven", "roundevenf"],
        intrinsics: &["roundeven"],
    },
    MathNames {
        f: MathFn::Rint,
        libm: &["rint", "rintf"],
        intrinsics: &["rint"],
    },
    MathNames {
        f: MathFn::NearbyInt,
        libm: &["nearbyint", "nearbyintf"],
        intrinsics: &["nearbyint"],
    },
    MathNames {
        f: MathFn::Tanh,
        libm: &["tanh", "tanhf"],
        intrinsics: &["tanh"],
    },
    MathNames {
        f: MathFn::Sinh,
        libm: &["sinh", "sinhf"],
        intrinsics: &["sinh"],
    },
    MathNames {
        f: MathFn::Cosh,
        libm: &["cosh", "coshf"],
        intrinsics: &["cosh"],
    },
    MathNames {
        f: MathFn::Atan,
        libm: &["atan", "atanf"],
        intrinsics: &["atan"],
    },
    MathNames {
        f: MathFn::Atan2,
        libm: &["atan2", "atan2f"],
        intrinsics: &["atan2"],
    },
    MathNames {
        f: MathFn::Asin,
        libm: &["asin", "asinf"],
        intrinsics: &["asin"],
    },
    MathNames {
        f: MathFn::Acos,
        libm: &["acos", "acosf"],
        intrinsics: &["acos"],
    },
    MathNames {
        f: MathFn::Hypot,
        libm: &["hypot", "hypotf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Cbrt,
        libm: &["cbrt", "cbrtf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Erf,
        libm: &["erf", "erff"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Fmod,
        libm: &["fmod", "fmodf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::ReduceFAdd,
        libm: &[],
        intrinsics: &["vector.reduce.fadd"],
    },
    MathNames {
        f: MathFn::ReduceFMul,
        libm: &[],
        intrinsics: &["vector.reduce.fmul"],
    },
    MathNames {
        f: MathFn::ReduceFMax,
        libm: &[],
        intrinsics: &["vector.reduce.fmax", "vector.reduce.fmaximum"],
    },
    MathNames {
        f: MathFn::ReduceFMin,
        libm: &[],
        intrinsics: &["vector.reduce.fmin", "vector.reduce.fminimum"],
    },
];

impl MathFn {
    /// The math function a callee name designates (libm or intrinsic spelling).
    pub(crate) fn from_callee(name: &str) -> Option<MathFn> {
        if let Some(rest) = name.strip_prefix("llvm.") {
            // The base name (which may itself hold dots, as in
            // `vector.reduce.fadd`) followed by the overload suffix.
            let is_base = |base: &&str| {
                rest.strip_prefix(*base)
                    .is_some_and(|tail| tail.is_empty() || tail.starts_with('.'))
            };
            return MATH
                .iter()
                .find(|m| m.intrinsics.iter().any(is_base))
                .map(|m| m.f);
        }
        MATH.iter().find(|m| m.libm.contains(&name)).map(|m| m.f)
    }

    /// The intrinsic (e.g. `llvm.cos`) that computes this function, if LLVM has one.
    pub(crate) fn intrinsic(self) -> Option<String> {
        let m = MATH.iter().find(|m| m.f == self)?;
        m.intrinsics.first().map(|base| format!("llvm.{base}"))
    }

    /// The libm name for a scalar of `bits` (32 or 64), if libm has one.
    pub(crate) fn libm_name(self, bits: u32) -> Option<&'static str> {
        let m = MATH.iter().find(|m| m.f == self)?;
        match bits {
            64 => m.libm.first().copied(),
            32 => m.libm.get(1).copied(),
            _ => None,
        }
    }
}

/// A masked vector memory access: the lanes whose mask bit is set are
/// read or written, the others untouched (and not dereferenced).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum MaskedFn {
    /// `llvm.masked.load(ptr, <N x i1> mask, <N x T> passthru)`.
    Load,
    /// `llvm.masked.store(<N x T> value, ptr, <N x i1> mask)`.
    Store,
}

impl MaskedFn {
    const ALL: [(MaskedFn, &'static str); 2] = [
        (MaskedFn::Load, "llvm.masked.load"),
        (MaskedFn::Store, "llvm.masked.store"),
    ];

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
            MaskedFn::Load => 0,
            MaskedFn::Store => 1,
        }
    }
}

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
    Free,
    /// C++ `operator new` / `new[]` (also aligned and `nothrow`).
    New,
    /// C++ `operator delete` / `delete[]`.
    Delete,
    Memcpy,
    Memmove,
    Memset,
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
        Some(match name {
            "malloc" => MemFn::Malloc,
            "calloc" => MemFn::Calloc,
            "realloc" => MemFn::Realloc,
            "aligned_alloc" | "memalign" => MemFn::AlignedAlloc,
            "valloc" | "pvalloc" => MemFn::Valloc,
            "free" => MemFn::Free,
            "_Znwm"
            | "_Znam"
            | "_ZnwmSt11align_val_t"
            | "_ZnamSt11align_val_t"
            | "_ZnwmRKSt9nothrow_t"
            | "_ZnamRKSt9nothrow_t" => MemFn::New,
            "_ZdlPv"
            | "_ZdaPv"
            | "_ZdlPvm"
            | "_ZdaPvm"
            | "_ZdlPvSt11align_val_t"
            | "_ZdaPvSt11align_val_t"
            | "_ZdlPvmSt11align_val_t"
            | "_ZdaPvmSt11align_val_t" => MemFn::Delete,
            "memcpy" => MemFn::Memcpy,
            "memmove" => MemFn::Memmove,
            "memset" => MemFn::Memset,
            _ if intrinsic("llvm.memcpy") => MemFn::Memcpy,
            _ if intrinsic("llvm.memmove") => MemFn::Memmove,
            _ if intrinsic("llvm.memset") => MemFn::Memset,
            _ => return None,
        })
    }

    /// The arguments that are integers (sizes, alignments, fill bytes):
    /// facts for type analysis. Only those of integer LLVM type count (the
    /// `nothrow` forms of `new` take a pointer second).
    pub(crate) fn integer_arguments(self) -> &'static [u32] {
        match self {
            MemFn::Malloc | MemFn::Valloc => &[0],
            MemFn::Calloc | MemFn::AlignedAlloc | MemFn::New => &[0, 1],
            MemFn::Realloc => &[1],
            MemFn::Delete => &[1, 2],
            MemFn::Memset => &[1, 2],
            // Copies are typed by what they copy (type analysis).
            MemFn::Memcpy | MemFn::Memmove | MemFn::Free => &[],
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
        )
    }

    /// For an allocation that takes its size in bytes as one argument
    /// (not `calloc`), that argument's index.
    pub(crate) fn size_argument(self) -> Option<u32> {
        match self {
            MemFn::Malloc | MemFn::Valloc | MemFn::New => Some(0),
            MemFn::Realloc | MemFn::AlignedAlloc => Some(1),
            _ => None,
        }
    }

    /// Whether it releases its pointer argument.
    pub(crate) fn frees(self) -> bool {
        matches!(self, MemFn::Free | MemFn::Delete | MemFn::Realloc)
    }

    /// Whether it copies memory from its second argument to its first.
    pub(crate) fn transfers(self) -> bool {
        matches!(self, MemFn::Memcpy | MemFn::Memmove)
    }
}

/// libm functions with no derivative rule that write no user memory (only
/// `errno` or `signgam`): calls to them do not stop loads from being
/// re-read.
pub(crate) fn is_libm_without_side_effects(name: &str) -> bool {
    const PURE: &[&str] = &[
        "lgamma", "lgammaf", "tgamma", "tgammaf", "erfc", "erfcf", "j0", "j1", "y0", "y1", "j0f",
        "j1f", "y0f", "y1f", "asinh", "acosh", "atanh", "asinhf", "acoshf", "atanhf",
    ];
    PURE.contains(&name)
}

/// Whether `name` is a GPU barrier (`__syncthreads` and its forms).
pub(crate) fn is_barrier(name: &str) -> bool {
    name.starts_with("llvm.nvvm.barrier") || name == "llvm.nvvm.bar.sync"
}

/// `realloc`'s spelling, for the helpers that call it.
pub(crate) const REALLOC: &str = "realloc";
/// `malloc_usable_size` (glibc), to know how much of an old block to keep.
pub(crate) const MALLOC_USABLE_SIZE: &str = "malloc_usable_size";

/// Functions known to carry no derivative (I/O, clocks, allocation
/// bookkeeping): calls to them are kept in the forward sweep and skipped in
/// the reverse sweep.
pub(crate) fn is_known_inactive(name: &str) -> bool {
    const INACTIVE: &[&str] = &[
        "printf",
        "puts",
        "putchar",
        "fprintf",
        "fputs",
        "fputc",
        "fflush",
        "fwrite",
        "clock",
        "time",
        "rand",
        "srand",
        "gettimeofday",
        "clock_gettime",
        "abort",
        "exit",
        "__assert_fail",
        "llvm.assume",
        "llvm.lifetime.start",
        "llvm.lifetime.end",
        "llvm.dbg.value",
        "llvm.dbg.declare",
        "llvm.dbg.assign",
        "llvm.dbg.label",
        "llvm.experimental.noalias.scope.decl",
        "llvm.invariant.start",
        "llvm.invariant.end",
        "llvm.prefetch",
        "llvm.donothing",
        "llvm.sideeffect",
        "llvm.pseudoprobe",
        "llvm.nvvm.barrier0",
        "llvm.nvvm.barrier.cta.sync.aligned.all",
        "llvm.nvvm.barrier.cta.sync.aligned",
        "llvm.nvvm.barrier.cta.sync.all",
        "llvm.nvvm.barrier.cta.sync",
        "llvm.nvvm.bar.sync",
    ];
    INACTIVE
        .iter()
        .any(|n| name == *n || (n.starts_with("llvm.") && name.starts_with(&format!("{n}."))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_share_one_entry() {
        assert_eq!(MathFn::from_callee("sin"), Some(MathFn::Sin));
        assert_eq!(MathFn::from_callee("sinf"), Some(MathFn::Sin));
        assert_eq!(MathFn::from_callee("llvm.sin.f64"), Some(MathFn::Sin));
        assert_eq!(MathFn::from_callee("llvm.sin.v2f32"), Some(MathFn::Sin));
        assert_eq!(MathFn::from_callee("llvm.maxnum.f32"), Some(MathFn::Max));
        assert_eq!(MathFn::from_callee("llvm.powi.f64.i32"), Some(MathFn::Powi));
        assert_eq!(MathFn::from_callee("sinl"), None);
        assert_eq!(
            MathFn::from_callee("llvm.minimumnum.f32"),
            Some(MathFn::Min)
        );
        assert_eq!(MathFn::from_callee("llvm.powi.f32.i32"), Some(MathFn::Powi));
        assert_eq!(MathFn::from_callee("llvm.pow.f32"), Some(MathFn::Pow));
        assert_eq!(
            MathFn::from_callee("llvm.vector.reduce.fadd.v4f64"),
            Some(MathFn::ReduceFAdd)
        );
        assert_eq!(
            MathFn::from_callee("llvm.vector.reduce.fmaximum.v8f32"),
            Some(MathFn::ReduceFMax)
        );
        assert_eq!(
            MathFn::from_callee("llvm.vector.reduce.fmin.v3f32"),
            Some(MathFn::ReduceFMin)
        );
        assert_eq!(MathFn::from_callee("llvm.vector.reduce.add.v4i32"), None);
        assert_eq!(
            MaskedFn::from_callee("llvm.masked.load.v4f64.p0"),
            Some(MaskedFn::Load)
        );
        assert_eq!(
            MaskedFn::from_callee("llvm.masked.store.v8f32.p0"),
            Some(MaskedFn::Store)
        );
        assert_eq!(MaskedFn::from_callee("llvm.masked.gather.v4f64.v4p0"), None);
        assert_eq!(
            MemFn::from_callee("llvm.memcpy.p0.p0.i64"),
            Some(MemFn::Memcpy)
        );
        assert_eq!(
            MemFn::from_callee("llvm.memcpy.inline.p0.p0.i64"),
            Some(MemFn::Memcpy)
        );
        assert_eq!(
            MemFn::from_callee("llvm.memset.p0.i64"),
            Some(MemFn::Memset)
        );
        assert_eq!(MemFn::from_callee("llvm.memcpyx"), None);
        assert_eq!(MemFn::from_callee("_ZnwmRKSt9nothrow_t"), Some(MemFn::New));
        assert_eq!(
            MemFn::from_callee("memalign").and_then(MemFn::size_argument),
            Some(1)
        );
        assert_eq!(MathFn::from_callee("my_sin"), None);
    }

    #[test]
    fn entry_points_match_by_containment() {
        assert_eq!(
            EntryPoint::from_callee("__enzyme_autodiff"),
            Some(EntryPoint::Autodiff)
        );
        assert_eq!(
            EntryPoint::from_callee("__enzyme_autodiff_grad2"),
            Some(EntryPoint::Autodiff)
        );
        assert_eq!(
            EntryPoint::from_callee("_Z17__enzyme_autodiffPvz"),
            Some(EntryPoint::Autodiff)
        );
        assert_eq!(EntryPoint::from_callee("autodiff"), None);
        assert!(is_known_inactive("printf"));
        assert!(is_known_inactive("llvm.lifetime.start.p0"));
        assert!(!is_known_inactive("sin"));
    }
}
