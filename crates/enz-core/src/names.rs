//! The registry of names enz-rs recognises: entry points and activity
//! markers here; math functions (`math`), memory functions (`memory`) and
//! library functions by their effect on derivatives (`library`) in the
//! submodules, re-exported.
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
    /// `__enzyme_fwdsplit`: forward mode after `__enzyme_augmentfwd`,
    /// taking its tape.
    FwdSplit,
    /// `__enzyme_error_estimate`: forward mode whose tangents are
    /// floating-point error bounds.
    ErrorEstimate,
}

impl EntryPoint {
    const ALL: [(EntryPoint, &'static str); 6] = [
        (EntryPoint::Autodiff, "__enzyme_autodiff"),
        (EntryPoint::FwdDiff, "__enzyme_fwddiff"),
        (EntryPoint::AugmentFwd, "__enzyme_augmentfwd"),
        (EntryPoint::Reverse, "__enzyme_reverse"),
        (EntryPoint::FwdSplit, "__enzyme_fwdsplit"),
        (EntryPoint::ErrorEstimate, "__enzyme_error_estimate"),
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

/// The string attribute holding a parameter's or the return value's type
/// tree, as rustc writes it for Enzyme: `"enzyme_type"="{[-1]:Pointer,
/// [-1,0]:Float@float}"`.
pub(crate) const DECLARED_TYPE: &str = "enzyme_type";

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
    /// `enzyme_dupv`: a byte stride, the value, then one shadow: with
    /// `enzyme_width N`, lane k's shadow is at `shadow + k * stride`.
    DupV,
    /// `enzyme_dupnoneedv`: `DupV` whose primal result is not needed.
    DupNoNeedV,
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
    /// `enzyme_scalar`: `__enzyme_batch`'s one value for every lane
    /// (a diagnostic at the differentiating entry points).
    Scalar,
    /// `enzyme_vector`: `__enzyme_batch`'s N values, one per lane.
    Vector,
    /// `enzyme_buffer`: `__enzyme_batch`'s pointer to N consecutive values.
    Buffer,
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
    /// `enzyme_context`: the context (`__enzyme_context`) whose shadows of
    /// globals the derivative uses follows.
    Context,
    /// Another Enzyme marker enz-rs recognises but does not implement (a
    /// diagnostic naming it): an index into [`UNSUPPORTED_MARKERS`].
    Unsupported(u8),
}

/// Enzyme call-site markers enz-rs does not implement.
const UNSUPPORTED_MARKERS: &[&str] = &[
    "enzyme_byref",
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
    const ALL: [(Marker, &'static str); 19] = [
        (Marker::Dup, "enzyme_dup"),
        (Marker::DupNoNeed, "enzyme_dupnoneed"),
        (Marker::DupV, "enzyme_dupv"),
        (Marker::DupNoNeedV, "enzyme_dupnoneedv"),
        (Marker::Out, "enzyme_out"),
        (Marker::Const, "enzyme_const"),
        (Marker::Allocated, "enzyme_allocated"),
        (Marker::Tape, "enzyme_tape"),
        (Marker::Width, "enzyme_width"),
        (Marker::Scalar, "enzyme_scalar"),
        (Marker::Vector, "enzyme_vector"),
        (Marker::Buffer, "enzyme_buffer"),
        (Marker::ConstReturn, "enzyme_const_return"),
        (Marker::ActiveReturn, "enzyme_active_return"),
        (Marker::DupReturn, "enzyme_dup_return"),
        (Marker::NoRet, "enzyme_noret"),
        (Marker::PrimalReturn, "enzyme_primal_return"),
        (Marker::NotOverwritten, "enzyme_not_overwritten"),
        (Marker::Context, "enzyme_context"),
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
        matches!(
            self,
            Marker::Width | Marker::Allocated | Marker::Tape | Marker::Context
        )
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

mod blas;
mod checkpoint_loop;
mod context;
pub(crate) mod error_log;
mod fixed_point;
mod helpers;
mod library;
mod math;
mod memory;
mod mpi;
mod openmp;

pub(crate) use blas::*;
pub use checkpoint_loop::*;
pub use context::*;
pub use fixed_point::*;
pub(crate) use helpers::*;
pub(crate) use library::*;
pub use math::function_like_spelling;
pub(crate) use math::*;
pub(crate) use memory::*;
pub(crate) use mpi::*;
pub(crate) use openmp::*;

/// Enzyme's gradient logger, `enzymeLogGrad(grad, opcode, callee, module,
/// function, block, inst)`: called by reverse sweeps where the module has
/// it (`synth/reverse/log_grad.rs`).
pub(crate) const LOG_GRAD: &str = "enzymeLogGrad";
/// Its C++ spelling (`enzymeLogGrad(double, const char *, ...)` outside
/// `extern "C"`): the mangled name's prefix.
pub(crate) const LOG_GRAD_CXX_PREFIX: &str = "_Z13enzymeLogGrad";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_runtime_functions_without_derivatives() {
        for inactive in [
            "_RNvNtNtCsjrHSEGnQ3l9_3std2io5stdio6__print",
            "_RNvNtNtCsjrHSEGnQ3l9_3std2io5stdio7__eprint",
            "_RNvXs7_NtNtCsgEmfK2I1SDS_4core3fmt5floatdNtB7_7Display3fmt",
            "_RNvNtCsgEmfK2I1SDS_4core9panicking9panic_fmt",
            "_ZN4core9panicking5panic17h0123456789abcdefE",
        ] {
            assert!(is_rust_runtime_inactive(inactive), "{inactive}");
        }
        for other in ["fmt_core", "_RNvCs2YocFTn48gG_4demo1f", "printf"] {
            assert!(!is_rust_runtime_inactive(other), "{other}");
        }
    }

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
        assert_eq!(
            MaskedFn::from_callee("llvm.masked.gather.v4f64.v4p0"),
            Some(MaskedFn::Gather)
        );
        assert_eq!(MaskedFn::from_callee("llvm.masked.expandload.v4f64"), None);
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
