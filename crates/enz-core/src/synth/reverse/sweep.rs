//! The functions a derivative is built in: the forward and reverse
//! functions, the reverse function's parameters and signature, and the tape
//! that carries values from one sweep to the other.

use super::lanes::LaneShadows;
use super::{Derivative, GradientRequest, Mode, Reverse};
use crate::ir::{add_internal_function, Builder, Function, Ty, Value, ValueMap};
use crate::preprocess::copy_derivative_attributes;
use crate::signature::{Kind, Param, Signature};
use crate::synth::shadow::ShadowMap;
use crate::synth::tape::Tape;
use std::collections::HashMap;

/// Where the sweeps are built and what passes between them.
pub(super) struct Sweeps<'m> {
    pub(super) fns: Derivative<'m>,
    /// The signature of the function holding the reverse sweep.
    pub(super) rev_sig: Signature<'m>,
    /// Primal parameters to the reverse function's parameters.
    pub(super) rev_params: HashMap<Value<'m>, Value<'m>>,
    /// Shadows of `dup` parameters in the reverse function (current lane).
    pub(super) rev_shadow_params: HashMap<Value<'m>, Value<'m>>,
    /// The reverse function's name (`fns.reverse` is the release
    /// function while that is built).
    pub(super) reverse_name: String,
    /// Building a release function (see `release.rs`): frees only.
    pub(super) releasing: bool,
    /// Positioned at the top of the reverse function's entry, for slots.
    pub(super) top: Builder<'m>,
    pub(super) tape: Tape<'m>,
    /// Split mode: the tape pointer in the reverse function.
    pub(super) rev_tape: Option<Value<'m>>,
}

/// The derivative's parameters bound to the primal's, before the body is
/// cloned.
pub(super) struct Bound<'m> {
    /// Primal parameters to the forward function's.
    pub(super) map: ValueMap<'m>,
    /// Lane 0's shadow parameters in the forward function.
    pub(super) fwd_shadow_params: HashMap<Value<'m>, Value<'m>>,
    /// The other lanes' shadows, parked (`None` for lane 0).
    pub(super) parked: Vec<Option<LaneShadows<'m>>>,
    pub(super) rev: ReverseParams<'m>,
}

/// The reverse function's signature and lane 0's parameters.
pub(super) struct ReverseParams<'m> {
    sig: Signature<'m>,
    params: HashMap<Value<'m>, Value<'m>>,
    shadow_params: HashMap<Value<'m>, Value<'m>>,
}

/// Binds the parameters of `fns` to those of the primal.
pub(super) fn bind<'m>(req: &GradientRequest<'m, '_>, fns: Derivative<'m>) -> Bound<'m> {
    let p = req.prep;
    let (fwd_kind, rev_kind) = match req.mode {
        Mode::Combined if req.width > 1 => {
            let k = Kind::VectorGradient { width: req.width };
            (k, k)
        }
        Mode::Combined => (Kind::Gradient, Kind::Gradient),
        Mode::Split => (Kind::Augmented, Kind::Reverse),
    };
    let fty = p.function_type();
    let fwd_sig = Signature::new(fwd_kind, fty, req.args, req.ret_active);
    let rev_sig = Signature::new(rev_kind, fty, req.args, req.ret_active);
    let (fwd_params, mut fwd_shadow_params) = bind_params(&fwd_sig, p, fns.forward);
    let mut map = ValueMap::default();
    for (a, v) in &fwd_params {
        map.insert(*a, *v);
    }
    let (rev_params, mut rev_shadow_params) = match req.mode {
        Mode::Combined => (fwd_params, fwd_shadow_params.clone()),
        Mode::Split => bind_params(&rev_sig, p, fns.reverse),
    };
    let width = req.width.max(1) as usize;
    fwd_shadow_params.resize_with(width, HashMap::new);
    rev_shadow_params.resize_with(width, HashMap::new);
    let parked = fwd_shadow_params
        .drain(1..)
        .zip(rev_shadow_params.drain(1..))
        .enumerate()
        .map(|(k, (fwd, rev))| {
            Some(LaneShadows {
                shadows: ShadowMap::new(fwd).in_lane(k + 1),
                rev_params: rev,
            })
        });
    let parked = std::iter::once(None).chain(parked).collect();
    Bound {
        map,
        fwd_shadow_params: fwd_shadow_params.pop().expect("lane 0"),
        parked,
        rev: ReverseParams {
            sig: rev_sig,
            params: rev_params,
            shadow_params: rev_shadow_params.pop().expect("lane 0"),
        },
    }
}

impl<'m> Sweeps<'m> {
    /// The sweeps of a derivative whose forward function holds the cloned
    /// primal: adds a block of its own for stack slots ahead of the cloned
    /// entry (so that no instruction the synthesis later replaces is an
    /// insertion point), and the tape.
    pub(super) fn new(
        req: &GradientRequest<'m, '_>,
        fns: Derivative<'m>,
        rev: ReverseParams<'m>,
    ) -> Sweeps<'m> {
        let ctx = req.prep.context();
        let g = fns.forward;
        let old_entry = g.entry_block();
        let slots = old_entry.insert_block_before("slots");
        let sb = Builder::new(ctx);
        sb.position_at_end(slots);
        sb.br(old_entry);
        let tape = match req.mode {
            Mode::Combined => Tape::stack(g),
            Mode::Split => Tape::heap(g),
        };
        let top = Builder::new(ctx);
        if req.mode == Mode::Split {
            let entry = fns.reverse.append_block("entry");
            top.position_at_end(entry);
        } else {
            top.position_before(slots.terminator().expect("just built"));
        }
        Sweeps {
            fns,
            rev_sig: rev.sig,
            rev_params: rev.params,
            rev_shadow_params: rev.shadow_params,
            reverse_name: fns.reverse.name(),
            releasing: false,
            top,
            tape,
            rev_tape: None,
        }
    }
}

impl<'m, 'a> Reverse<'m, 'a> {
    /// The `dret` parameter of a split reverse function.
    pub(super) fn dret_param(&self) -> Value<'m> {
        self.rev_param(Param::ReturnAdjoint)
    }

    /// The reverse function's parameter carrying `p`.
    pub(super) fn rev_param(&self, p: Param) -> Value<'m> {
        let k = self.sweep.rev_sig.param_index(p);
        self.sweep.fns.reverse.params()[k.expect("the reverse function's signature has it")]
    }
}

/// The parameters of `f`, a derivative of `prep` with signature `sig`:
/// `prep`'s parameters to their primal copies, and to their shadows (named
/// after them), one map per lane.
pub(super) fn bind_params<'m>(
    sig: &Signature<'m>,
    prep: Function<'m>,
    f: Function<'m>,
) -> (
    HashMap<Value<'m>, Value<'m>>,
    Vec<HashMap<Value<'m>, Value<'m>>>,
) {
    let primal = prep.params();
    let mut copies = HashMap::new();
    let mut shadows = vec![HashMap::new()];
    for ((param, _), v) in sig.params().iter().zip(f.params()) {
        match *param {
            Param::Primal(k) => {
                v.set_name(&primal[k].name());
                copies.insert(primal[k], v);
            }
            Param::Shadow { of, lane } => {
                let lane = lane as usize;
                if lane == 0 {
                    v.set_name(&format!("d_{}", primal[of].name()));
                } else {
                    v.set_name(&format!("d{lane}_{}", primal[of].name()));
                }
                if shadows.len() <= lane {
                    shadows.resize_with(lane + 1, HashMap::new);
                }
                shadows[lane].insert(primal[of], v);
            }
            _ => {}
        }
    }
    (copies, shadows)
}

/// Creates a new internal function `name` of type `fty` in `like`'s module.
pub(crate) fn new_function<'m>(like: Function<'m>, name: &str, fty: Ty<'m>) -> Function<'m> {
    let f = add_internal_function(like.global_parent(), name, fty);
    copy_derivative_attributes(like, f);
    f
}
