//! Math functions with derivative rules, in every spelling (libm, LLVM
//! intrinsics, their float and vector forms), and what some of them write
//! through a pointer.

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
    Erfc,
    Asinh,
    Acosh,
    Atanh,
    Exp10,
    /// `fdim(a, b)` = max(a - b, 0).
    Fdim,
    /// `remainder(a, b)` = a - b n, n = a / b rounded to nearest, ties even.
    Remainder,
    /// Bessel functions of the first (`j0`, `j1`) and second (`y0`, `y1`)
    /// kind.
    J0,
    J1,
    Y0,
    Y1,
    /// `lgamma(x)` = ln |Γ(x)|.
    Lgamma,
    /// `tgamma(x)` = Γ(x).
    Tgamma,
    /// `lgamma_r(x, int *sign)` = ln |Γ(x)|; writes the sign of Γ(x) to
    /// `*sign` (the reentrant `lgamma`).
    LgammaR,
    /// ψ(x) = Γ'(x)/Γ(x): no libm spelling; derivatives call enz-rs's own
    /// (`synth::runtime::digamma`).
    Digamma,
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
        f: MathFn::Erfc,
        libm: &["erfc", "erfcf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Asinh,
        libm: &["asinh", "asinhf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Acosh,
        libm: &["acosh", "acoshf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Atanh,
        libm: &["atanh", "atanhf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Exp10,
        libm: &["exp10", "exp10f"],
        intrinsics: &["exp10"],
    },
    MathNames {
        f: MathFn::Fdim,
        libm: &["fdim", "fdimf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Remainder,
        libm: &["remainder", "remainderf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::J0,
        libm: &["j0", "j0f"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::J1,
        libm: &["j1", "j1f"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Y0,
        libm: &["y0", "y0f"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Y1,
        libm: &["y1", "y1f"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Lgamma,
        libm: &["lgamma", "lgammaf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::Tgamma,
        libm: &["tgamma", "tgammaf"],
        intrinsics: &[],
    },
    MathNames {
        f: MathFn::LgammaR,
        libm: &["lgamma_r", "lgammaf_r"],
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
            MathFn::Frexp | MathFn::LgammaR => Some((1, Written::Int32)),
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

/// The digamma function derivatives call (`synth::runtime::digamma`):
/// `double __enz_digamma(double)`, emitted into the module.
pub(crate) const DIGAMMA: &str = "__enz_digamma";

/// What a math function writes through its pointer argument.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Written {
    /// An `int` (no derivative: an inactive integer write).
    Int32,
    /// A float of the call's result type, whose derivative is zero.
    ResultType,
}

/// libm functions with no derivative rule that write no user memory (only
/// `errno` or `signgam`): calls to them do not stop loads from being
/// re-read.
pub(crate) fn is_libm_without_side_effects(name: &str) -> bool {
    const PURE: &[&str] = &[
        "lgamma",
        "lgammaf",
        "tgamma",
        "tgammaf",
        "jn",
        "jnf",
        "yn",
        "ynf",
        "nextafter",
        "nextafterf",
    ];
    PURE.contains(&name)
}
