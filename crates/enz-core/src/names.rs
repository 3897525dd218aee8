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

/// The function attribute saying that a call to the function may be made
/// again in the reverse sweep instead of caching its result.
pub(crate) const SHOULD_RECOMPUTE: &str = "enzyme_shouldrecompute";

/// Whether `name` is `__enzyme_iter`, the derivative-level-dependent
/// integer (see `preprocess/iteration.rs`); C++ may mangle it.
pub fn is_iteration_count(name: &str) -> bool {
    name.contains("__enzyme_iter")
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
    /// `enzyme_const_return`: the return value is inactive (reverse mode:
    /// not seeded; forward mode: no tangent returned).
    ConstReturn,
    /// `enzyme_active_return`: the floating return value is active.
    ActiveReturn,
    /// `enzyme_dup_return`: the return value is duplicated (forward mode:
    /// its tangents are returned).
    DupReturn,
    /// `enzyme_noret`: the primal return value is not needed.
    NoRet,
    /// `enzyme_primal_return`: the call also returns the primal result,
    /// first.
    PrimalReturn,
    /// `enzyme_not_overwritten`: a hint that the next argument's memory is
    /// not overwritten (enz-rs's own analysis decides; accepted, ignored).
    NotOverwritten,
    /// Another Enzyme marker enz-rs recognises but does not implement (a
    /// diagnostic naming it): an index into [`UNSUPPORTED_MARKERS`].
    Unsupported(u8),
}

/// Enzyme call-site markers enz-rs does not implement.
const UNSUPPORTED_MARKERS: &[&str] = &[
    "enzyme_byref",
    "enzyme_dupv",
    "enzyme_dupnoneedv",
    "enzyme_interleave",
    "enzyme_nofree",
    "enzyme_runtime_activity",
    "enzyme_strong_zero",
    "enzyme_interface",
    "enzyme_trace",
    "enzyme_duptrace",
    "enzyme_likelihood",
    "enzyme_duplikelihood",
    "enzyme_observations",
    "enzyme_active_rand_var",
];

impl Marker {
    const ALL: [(Marker, &'static str); 14] = [
        (Marker::Dup, "enzyme_dup"),
        (Marker::DupNoNeed, "enzyme_dupnoneed"),
        (Marker::Out, "enzyme_out"),
        (Marker::Const, "enzyme_const"),
        (Marker::Allocated, "enzyme_allocated"),
        (Marker::Tape, "enzyme_tape"),
        (Marker::Width, "enzyme_width"),
        (Marker::Scalar, "enzyme_scalar"),
        (Marker::ConstReturn, "enzyme_const_return"),
        (Marker::ActiveReturn, "enzyme_active_return"),
        (Marker::DupReturn, "enzyme_dup_return"),
        (Marker::NoRet, "enzyme_noret"),
        (Marker::PrimalReturn, "enzyme_primal_return"),
        (Marker::NotOverwritten, "enzyme_not_overwritten"),
    ];

    /// The marker a global (or metadata string) name designates.
    pub fn from_name(name: &str) -> Option<Marker> {
        Self::ALL
            .iter()
            .find(|(_, s)| *s == name)
            .map(|(m, _)| *m)
            .or_else(|| {
                UNSUPPORTED_MARKERS
                    .iter()
                    .position(|s| *s == name)
                    .map(|k| Marker::Unsupported(k as u8))
            })
    }

    /// The spelling: the entry point's or the marker's global name.
    pub fn name(self) -> &'static str {
        if let Marker::Unsupported(k) = self {
            return UNSUPPORTED_MARKERS.get(k as usize).copied().unwrap_or("?");
        }
        Self::ALL
            .iter()
            .find(|(m, _)| *m == self)
            .map(|(_, s)| *s)
            .unwrap_or("?")
    }

    /// Whether the marker configures the whole call and is followed by
    /// one value (`enzyme_width N`, `enzyme_allocated SIZE`,
    /// `enzyme_tape PTR`): it may appear anywhere in the argument list.
    pub fn takes_value(self) -> bool {
        matches!(self, Marker::Width | Marker::Allocated | Marker::Tape)
    }

    /// Whether the marker says something of the return value and takes no
    /// value (`enzyme_const_return`, `enzyme_primal_return`, ...): it may
    /// appear anywhere in the argument list.
    pub fn is_return_flag(self) -> bool {
        matches!(
            self,
            Marker::ConstReturn
                | Marker::ActiveReturn
                | Marker::DupReturn
                | Marker::NoRet
                | Marker::PrimalReturn
        )
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
    /// `ldexp(x, n)` = x 2^n (also the intrinsic `llvm.ldexp`).
    Ldexp,
    /// `scalbn(x, int n)` = x 2^n.
    Scalbn,
    /// `scalbln(x, long n)` = x 2^n.
    Scalbln,
    /// `frexp(x, int *e)`: the mantissa; writes the exponent to `*e`.
    Frexp,
    /// `modf(x, T *ip)`: the fractional part; writes the integer part to
    /// `*ip` (`llvm.modf` returns both, `{frac, int}`).
    Modf,
    /// `ilogb(x)`: the exponent as an integer.
    Ilogb,
    /// `logb(x)`: the exponent as a float.
    Logb,
    /// `cabs(z)`: |z| (z as two floats, or `<2 x float>` for `cabsf`).
    Cabs,
    /// `carg(z)`: the argument of z.
    Carg,
    /// `cexp(z)`: a complex result (`{T, T}` or `<2 x float>`).
    Cexp,
    /// `__muldc3(a, b, c, d)`: (a + ib)(c + id), what clang calls for a
    /// complex product without fast-math.
    CMul,
    /// `__divdc3(a, b, c, d)`: (a + ib)/(c + id).
    CDiv,
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
    MathNames {
        f: MathFn::Ldexp,
        libm: &["ldexp", "ldexpf"],
        intrinsics: &["ldexp"],
    },
    MathNames {
        f: MathFn::Scalbn,
        libm: &["scalbn", "scalbnf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Scalbln,
        libm: &["scalbln", "scalblnf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Frexp,
        libm: &["frexp", "frexpf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Modf,
        libm: &["modf", "modff"],
        intrinsics: &["modf"],
    },
    MathNames {
        f: MathFn::Ilogb,
        libm: &["ilogb", "ilogbf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Logb,
        libm: &["logb", "logbf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Cabs,
        libm: &["cabs", "cabsf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Carg,
        libm: &["carg", "cargf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Cexp,
        libm: &["cexp", "cexpf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::CMul,
        libm: &["__muldc3", "__mulsc3"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::CDiv,
        libm: &["__divdc3", "__divsc3"],
        intrinsics: &[],
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

    /// The argument a call writes through and what it writes there: libm
    /// functions with a second result (`frexp`'s exponent, `modf`'s
    /// integer part), when the call has a pointer there (the intrinsic
    /// `llvm.modf` returns it instead).
    pub(crate) fn writes_through(self) -> Option<(u32, Written)> {
        match self {
            MathFn::Frexp => Some((1, Written::Int32)),
            MathFn::Modf => Some((1, Written::ResultType)),
            _ => None,
        }
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

/// The spelling of a library function a user function may be registered
/// as behaving like (`__enzyme_function_like`): a libm function with a
/// derivative rule, or an allocation or deallocation function taking the
/// same arguments.
pub fn function_like_spelling(name: &str) -> Option<&'static str> {
    const MEMORY: &[&str] = &[
        "malloc",
        "calloc",
        "realloc",
        "free",
        "aligned_alloc",
        "memalign",
        "valloc",
        "pvalloc",
    ];
    MATH.iter()
        .flat_map(|m| m.libm.iter())
        .chain(MEMORY)
        .find(|s| **s == name)
        .copied()
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

/// What a math function writes through its pointer argument.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Written {
    /// An `int` (no derivative: an inactive integer write).
    Int32,
    /// A float of the call's result type, whose derivative is zero.
    ResultType,
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
            MemFn::Memset => &[1, 2],
            MemFn::Allocation { size_arg } => {
                static INDICES: [u32; 8] = [0, 1, 2, 3, 4, 5, 6, 7];
                INDICES
                    .get(size_arg as usize)
                    .map(std::slice::from_ref)
                    .unwrap_or(&[])
            }
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
            _ => None,
        }
    }

    /// For an allocation that writes the block through a pointer argument
    /// instead of returning it (`posix_memalign`), that argument's index.
    pub(crate) fn allocates_through(self) -> Option<u32> {
        (self == MemFn::PosixMemalign).then_some(0)
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
    ]
};

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

/// Functions of the C++ runtime that only relink a pointer structure
/// (libstdc++'s red-black tree behind `std::map`/`std::set`, its list
/// hooks): no float passes through them, and a shadow structure shaped
/// like the primal one stays so by the same call on the shadow pointers.
pub(crate) fn is_structure_function(name: &str) -> bool {
    const STRUCTURE: &[&str] = &[
        "_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base",
        "_ZSt18_Rb_tree_incrementPKSt18_Rb_tree_node_base",
        "_ZSt18_Rb_tree_decrementPSt18_Rb_tree_node_base",
        "_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base",
        "_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_",
        "_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_",
        "_ZNSt8__detail15_List_node_base7_M_hookEPS0_",
        "_ZNSt8__detail15_List_node_base9_M_unhookEv",
        "_ZNSt8__detail15_List_node_base4swapERS0_S1_",
        "_ZNSt8__detail15_List_node_base11_M_transferEPS0_S1_",
        "_ZNSt8__detail15_List_node_base10_M_reverseEv",
    ];
    STRUCTURE.contains(&name)
}

/// Functions that read floating-point values from a stream or file into
/// memory: `std::istream`'s `>>` for `double`/`float`/`long double`, the
/// `scanf` family, `fread`, `read`. What they read may have been written
/// from active data (a round trip through a stream or file), a path no
/// derivative follows, so reading inside differentiated code is refused
/// unless the user declares the reading function inactive.
pub(crate) fn reads_floats_from_input(name: &str) -> bool {
    const INPUT: &[&str] = &[
        "scanf",
        "fscanf",
        "sscanf",
        "__isoc99_scanf",
        "__isoc99_fscanf",
        "__isoc99_sscanf",
        "__isoc23_scanf",
        "__isoc23_fscanf",
        "__isoc23_sscanf",
        "fread",
        "read",
    ];
    let istream_float = name.starts_with("_ZNSirsER") && matches!(&name[9..], "d" | "f" | "e");
    let extract_float = name.starts_with("_ZNSi10_M_extractI")
        && matches!(&name[18..], "dEERSiRT_" | "fEERSiRT_" | "eEERSiRT_");
    istream_float || extract_float || INPUT.contains(&name)
}

/// The C++ library's output and text: `std::ostream` and its `<<`
/// operators, output file and string streams, their buffers, locales and
/// `ios_base`, and `std::string`, whose bytes are characters. What is only
/// written out carries no derivative. Input (`std::istream`, `>>`,
/// `getline`, input streams) is not here: a value read back may have been
/// written from active data, so a call reading into active memory stays a
/// diagnostic.
fn is_output_or_text(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "_ZNSo",                          // std::ostream members
        "_ZStls",                         // operator<<(ostream&, ...)
        "_ZSt16__ostream_insert",         // the characters behind <<
        "_ZSt4endl",                      // std::endl
        "_ZSt5flush",                     // std::flush
        "_ZSt4ends",                      // std::ends
        "_ZNSt8ios_base",                 // ios_base and its Init
        "_ZNSt6locale",                   // locales
        "_ZNKSt5ctype",                   // ctype<char>::widen
        "_ZNSt9basic_ios",                // basic_ios
        "_ZNKSt9basic_ios",               //
        "_ZNSt15basic_streambuf",         // stream buffers
        "_ZNSt13basic_filebuf",           //
        "_ZNSt14basic_ofstream",          // output files
        "_ZNSt7__cxx1115basic_stringbuf", // string buffers
        "_ZNKSt7__cxx1115basic_stringbuf",
        "_ZNSt7__cxx1119basic_ostringstream", // output string streams
        "_ZNKSt7__cxx1119basic_ostringstream",
        "_ZNSt7__cxx1112basic_string", // std::string
        "_ZNKSt7__cxx1112basic_string",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
}

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
        "sprintf",
        "snprintf",
        "vsnprintf",
        "vsprintf",
        "vprintf",
        "vfprintf",
        "fopen",
        "fclose",
        "__cxa_atexit",
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
        // Comparisons and lengths of bytes: integer results.
        "memcmp",
        "bcmp",
        "strcmp",
        "strncmp",
        "strlen",
        // The C++ runtime: hashing and bucket policy of unordered
        // containers (integers), the exception machinery.
        "_ZSt11_Hash_bytesPKvmm",
        "_ZSt15_Fnv_hash_bytesPKvmm",
        "_ZNKSt8__detail20_Prime_rehash_policy14_M_need_rehashEmmm",
        "_ZNKSt8__detail20_Prime_rehash_policy11_M_next_bktEm",
        "__cxa_begin_catch",
        "__cxa_end_catch",
        "__cxa_rethrow",
        "__cxa_allocate_exception",
        "__cxa_free_exception",
        "__cxa_throw",
        "__cxa_call_unexpected",
        "_ZSt9terminatev",
    ];
    // libstdc++'s `std::__throw_length_error(const char*)` and the like.
    let throws = name.starts_with("_ZSt") && name.contains("__throw_");
    throws
        || is_output_or_text(name)
        || INACTIVE
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
        assert_eq!(
            MathFn::from_callee("llvm.ldexp.f64.i32"),
            Some(MathFn::Ldexp)
        );
        assert_eq!(MathFn::from_callee("scalblnf"), Some(MathFn::Scalbln));
        assert_eq!(MathFn::from_callee("llvm.modf.f64"), Some(MathFn::Modf));
        assert_eq!(MathFn::from_callee("__mulsc3"), Some(MathFn::CMul));
        assert_eq!(MathFn::from_callee("__divdc3"), Some(MathFn::CDiv));
        assert_eq!(MathFn::Frexp.writes_through(), Some((1, Written::Int32)));
        assert_eq!(
            MathFn::Modf.writes_through(),
            Some((1, Written::ResultType))
        );
        assert_eq!(MathFn::Cabs.writes_through(), None);
        assert_eq!(
            MemFn::from_callee("posix_memalign"),
            Some(MemFn::PosixMemalign)
        );
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
        // C++ templates `template <typename R, typename... Args> R
        // __enzyme_autodiff(void *, Args...)`, one mangled name per
        // instantiation (clang++-22).
        assert_eq!(
            EntryPoint::from_callee("_Z17__enzyme_autodiffIdJPidS0_dEET_PvDpT0_"),
            Some(EntryPoint::Autodiff)
        );
        assert_eq!(
            EntryPoint::from_callee("_Z16__enzyme_fwddiffIdJPiddS0_dEET_PvDpT0_"),
            Some(EntryPoint::FwdDiff)
        );
        assert_eq!(EntryPoint::from_callee("autodiff"), None);
        assert!(is_known_inactive("printf"));
        assert!(is_known_inactive("llvm.lifetime.start.p0"));
        assert!(!is_known_inactive("sin"));
    }
}
