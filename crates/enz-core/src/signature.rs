//! The derivative ABI: a derivative [`Request`] (function, activity of each
//! parameter and of the return, mode) and the one [`Signature`] of each
//! function it produces, derived from the differentiated function's own
//! type by the rule written below. Every builder (reverse, forward, custom
//! adapters) declares its functions from a `Signature`, and every caller
//! (entry-point call sites, calls between derivatives) builds its argument
//! list and reads its results through one, so that the layout is written
//! once.
//!
//! For `f(p₀ … pₙ₋₁) -> r`, the parameters are the primal parameters in
//! order, each `dup`/`dupnoneed` one followed by its shadow (`width`
//! shadows or tangents in forward mode):
//!
//! | function | parameters | returns |
//! |---|---|---|
//! | `diffe_f` (combined) | `p, shadows` | `{adjoint of each out pₖ}` or void |
//! | `diffe_f` (vector, width w) | `p, w shadows` | `{[w x T] adjoints of each out pₖ}` or void |
//! | `augmented_f` (split) | `p, shadows` | `{tape, r?, shadow of r if r is a pointer}` |
//! | `reverse_f` (split) | `p, shadows, dr if r is active, tape` | `{adjoint of each out pₖ}` or void |
//! | `fwddiffe_f` (forward) | `p, tangents` | `{r, tangent₁ … tangent_w of r}` (no tangents for a non-float, non-pointer `r`), or void |
//! | `fwdsplit_f` (forward split) | `p, tangents, tape` | as `fwddiffe_f` with one tangent |
//!
//! The tape is a `ptr` to heap memory that `augmented_f` allocates and
//! `reverse_f` frees (it may be null when nothing is cached).
//!
//! A [`Request::canonical`] request derives every activity from the type
//! alone — floating parameters `out` (forward: `dup`), pointers `dup`,
//! everything else `const`, a floating return active, a pointer return
//! shadowed — so that a caller that does not know the callee (a function
//! pointer, a virtual call) can still call its derivatives.

use crate::ir::{Function, Ty, TyKind, Value};

/// Activity of one parameter of a differentiated function.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum ArgActivity {
    /// No derivative.
    Const,
    /// A floating input whose adjoint is returned.
    Out,
    /// A pointer (or, in forward mode, a float) whose shadow is passed next.
    Dup,
    /// Like `Dup`, and the primal result is not needed.
    DupNoNeed,
}

impl ArgActivity {
    /// Whether the parameter is followed by its shadow(s).
    pub fn has_shadow(self) -> bool {
        matches!(self, ArgActivity::Dup | ArgActivity::DupNoNeed)
    }
}

/// Which derivatives a request asks for.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum Mode {
    /// One gradient function holding both sweeps.
    Combined,
    /// Vector reverse mode: one gradient function, one forward sweep and
    /// `width` reverse sweeps, each with its own shadows (`enzyme_width`
    /// with `__enzyme_autodiff`).
    CombinedVector {
        /// Shadows per `dup` parameter, adjoints per `out` parameter.
        width: u32,
    },
    /// An augmented forward function and a reverse function.
    Split,
    /// A forward (tangent) function with `width` tangents per value.
    Forward {
        /// Tangents per value.
        width: u32,
    },
    /// Forward split mode (`__enzyme_fwdsplit`): a tangent function run
    /// after the augmented forward function of the matching split request
    /// ([`Request::split_counterpart`]), taking its tape.
    ForwardSplit,
    /// Forward error estimation (`__enzyme_error_estimate`): a forward
    /// function of width 1 whose tangents are floating-point error bounds
    /// (`synth/forward/error.rs`), laid out like [`Mode::Forward`].
    ForwardError,
}

impl Mode {
    /// Whether derivatives of this mode run forward (tangents, not
    /// adjoints).
    pub fn is_forward(self) -> bool {
        matches!(
            self,
            Mode::Forward { .. } | Mode::ForwardSplit | Mode::ForwardError
        )
    }
}

/// A derivative request: what to differentiate and how.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Request<'m> {
    /// The user's function.
    pub function: Function<'m>,
    /// Activity of each parameter.
    pub args: Vec<ArgActivity>,
    /// Whether the floating return is active (its adjoint is an input).
    pub ret_active: bool,
    /// Whether a returned pointer needs a shadow.
    pub ret_shadowed: bool,
    /// Which derivatives.
    pub mode: Mode,
}

impl<'m> Request<'m> {
    /// The canonical request for `function` in `mode`: every activity
    /// follows from the function's type (see the module documentation).
    pub fn canonical(function: Function<'m>, mode: Mode) -> Request<'m> {
        let c = Canonical::of(function.function_type(), mode);
        Request {
            function,
            args: c.args,
            ret_active: c.ret_active,
            ret_shadowed: c.ret_shadowed,
            mode,
        }
    }

    /// For a forward split request, the split request whose augmented
    /// forward function makes the tape it takes: the same activities, a
    /// floating `dup` parameter `out` instead.
    pub fn split_counterpart(&self) -> Request<'m> {
        let params = self.function.function_type().param_types();
        Request {
            function: self.function,
            args: self
                .args
                .iter()
                .zip(params)
                .map(|(a, t)| match a {
                    ArgActivity::Dup | ArgActivity::DupNoNeed if t.is_fp_or_fp_vector() => {
                        ArgActivity::Out
                    }
                    a => *a,
                })
                .collect(),
            ret_active: self.ret_active,
            ret_shadowed: self.ret_shadowed,
            mode: Mode::Split,
        }
    }

    /// The signature of one function of this request (see [`Kind`]).
    pub fn signature(&self, kind: Kind) -> Signature<'m> {
        Signature::new(
            kind,
            self.function.function_type(),
            &self.args,
            self.ret_active,
        )
    }
}

/// The activities of the canonical ABI for a function type: what a
/// caller that knows only the type (an indirect call) passes and expects.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Canonical {
    /// Floating parameters `out` (forward mode: `dup`), pointers `dup`,
    /// everything else `const`.
    pub args: Vec<ArgActivity>,
    /// A floating return is active.
    pub ret_active: bool,
    /// A pointer return is shadowed.
    pub ret_shadowed: bool,
}

impl Canonical {
    /// The canonical activities of a function of type `fty` in `mode`.
    pub fn of(fty: Ty<'_>, mode: Mode) -> Canonical {
        let args = fty
            .param_types()
            .into_iter()
            .map(|t| match t.kind() {
                TyKind::Pointer => ArgActivity::Dup,
                _ if t.is_fp_or_fp_vector() && mode.is_forward() => ArgActivity::Dup,
                _ if t.is_fp_or_fp_vector() => ArgActivity::Out,
                _ => ArgActivity::Const,
            })
            .collect();
        let ret = fty.return_type();
        Canonical {
            args,
            ret_active: ret.is_fp_scalar(),
            ret_shadowed: ret.kind() == TyKind::Pointer,
        }
    }

    /// The signature of one function of the canonical derivative of a
    /// function of type `fty`.
    pub fn signature<'m>(fty: Ty<'m>, mode: Mode, kind: Kind) -> Signature<'m> {
        let c = Canonical::of(fty, mode);
        Signature::new(kind, fty, &c.args, c.ret_active)
    }
}

/// One function of a derivative.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Kind {
    /// `diffe_f`: both sweeps of combined reverse mode.
    Gradient,
    /// `diffe_f` of vector reverse mode: `width` shadows per `dup`
    /// parameter, each `out` parameter's adjoints as a `[width x T]` array.
    VectorGradient {
        /// Lanes.
        width: u32,
    },
    /// `augmented_f`: the forward sweep of split mode.
    Augmented,
    /// `reverse_f`: the reverse sweep of split mode.
    Reverse,
    /// `fwddiffe_f`: forward mode with `width` tangents.
    Forward {
        /// Tangents per value.
        width: u32,
    },
    /// `fwdsplit_f`: forward split mode, `fwddiffe_f`'s parameters and
    /// return, then the tape of `augmented_f` (which it frees).
    ForwardSplit,
}

/// What one parameter of a derivative function carries.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Param {
    /// Primal parameter `k`.
    Primal(usize),
    /// A shadow (forward mode: tangent) of primal parameter `of`.
    Shadow {
        /// The primal parameter.
        of: usize,
        /// Which of the `width` shadows.
        lane: u32,
    },
    /// The adjoint of the primal return (split reverse function).
    ReturnAdjoint,
    /// The tape (split reverse function).
    Tape,
}

/// What one field of a derivative function's returned struct carries.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Field {
    /// The tape (augmented function).
    Tape,
    /// The primal return value.
    Return,
    /// A shadow (forward mode: tangent) of the primal return.
    ReturnShadow {
        /// Which of the `width` shadows.
        lane: u32,
    },
    /// The adjoint of primal parameter `k` (an `out` parameter).
    Adjoint(usize),
}

/// The parameters and return of one derivative function.
#[derive(Clone, Debug)]
pub struct Signature<'m> {
    params: Vec<(Param, Ty<'m>)>,
    fields: Vec<(Field, Ty<'m>)>,
    /// The return type: void, or the literal struct of `fields`.
    ret: Ty<'m>,
}

impl<'m> Signature<'m> {
    /// The signature of the `kind` function of the derivative of a function
    /// of type `fty` with parameter activities `args`.
    pub fn new(kind: Kind, fty: Ty<'m>, args: &[ArgActivity], ret_active: bool) -> Signature<'m> {
        let ctx = fty.context();
        let lanes = match kind {
            Kind::Forward { width } | Kind::VectorGradient { width } => width,
            _ => 1,
        };
        let mut params = Vec::new();
        for (k, (t, a)) in fty.param_types().into_iter().zip(args).enumerate() {
            params.push((Param::Primal(k), t));
            if a.has_shadow() {
                params.extend((0..lanes).map(|lane| (Param::Shadow { of: k, lane }, t)));
            }
        }
        let r = fty.return_type();
        let ptr = Ty::ptr(ctx);
        let adjoints = || -> Vec<(Field, Ty)> {
            fty.param_types()
                .into_iter()
                .zip(args)
                .enumerate()
                .filter(|(_, (_, a))| **a == ArgActivity::Out)
                .map(|(k, (t, _))| (Field::Adjoint(k), t))
                .collect()
        };
        let fields = match kind {
            Kind::Gradient => adjoints(),
            Kind::VectorGradient { width } => adjoints()
                .into_iter()
                .map(|(f, t)| (f, t.array(u64::from(width))))
                .collect(),
            Kind::Reverse => {
                if ret_active {
                    params.push((Param::ReturnAdjoint, r));
                }
                params.push((Param::Tape, ptr));
                adjoints()
            }
            Kind::Augmented => {
                let mut f = vec![(Field::Tape, ptr)];
                if !r.is_void() {
                    f.push((Field::Return, r));
                    if r.kind() == TyKind::Pointer {
                        f.push((Field::ReturnShadow { lane: 0 }, ptr));
                    }
                }
                f
            }
            Kind::Forward { .. } | Kind::ForwardSplit => {
                let width = if let Kind::Forward { width } = kind {
                    width
                } else {
                    params.push((Param::Tape, ptr));
                    1
                };
                let mut f = Vec::new();
                if !r.is_void() {
                    f.push((Field::Return, r));
                    if r.carries_float() || r.kind() == TyKind::Pointer {
                        f.extend((0..width).map(|lane| (Field::ReturnShadow { lane }, r)));
                    }
                }
                f
            }
        };
        let ret = if fields.is_empty() {
            Ty::void(ctx)
        } else {
            let tys: Vec<Ty> = fields.iter().map(|(_, t)| *t).collect();
            Ty::literal_struct(ctx, &tys)
        };
        Signature {
            params,
            fields,
            ret,
        }
    }

    /// The derivative function's type.
    pub fn function_type(&self) -> Ty<'m> {
        let tys: Vec<Ty> = self.params.iter().map(|(_, t)| *t).collect();
        Ty::function(self.ret, &tys, false)
    }

    /// What each parameter carries, in order, with its type.
    pub fn params(&self) -> &[(Param, Ty<'m>)] {
        &self.params
    }

    /// The position of the parameter carrying `p`.
    pub fn param_index(&self, p: Param) -> Option<usize> {
        self.params.iter().position(|(q, _)| *q == p)
    }

    /// What each field of the returned struct carries, in order.
    pub fn fields(&self) -> &[(Field, Ty<'m>)] {
        &self.fields
    }

    /// The position of the returned field carrying `f`.
    pub fn field_index(&self, f: Field) -> Option<u32> {
        self.fields
            .iter()
            .position(|(g, _)| *g == f)
            .map(|k| k as u32)
    }

    /// The return type (void or a literal struct of the fields).
    pub fn return_type(&self) -> Ty<'m> {
        self.ret
    }

    /// The argument list of a call to this function: `value` gives each
    /// parameter's value (or an error, which stops the list).
    pub fn arguments<E>(
        &self,
        mut value: impl FnMut(Param, Ty<'m>) -> Result<Value<'m>, E>,
    ) -> Result<Vec<Value<'m>>, E> {
        self.params.iter().map(|(p, t)| value(*p, *t)).collect()
    }
}

#[cfg(test)]
mod tests;
