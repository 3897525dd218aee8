//! The names of `__enzyme_fixed_point`'s API (`runtime/include/enzyme/
//! fixed_point.h`): the call, its option markers, and the attribute that
//! marks the loop function the front end lowers each call to.

/// `__enzyme_fixed_point(step, options..., args...)`.
pub const FIXED_POINT: &str = "__enzyme_fixed_point";

/// `__enzyme_set_fixed_point(reduction, max_iters, control, ...)`, the
/// in-loop form (refused by enz-rs).
pub const SET_FIXED_POINT: &str = "__enzyme_set_fixed_point";

/// The string attribute on the loop function a `__enzyme_fixed_point` call
/// becomes (see [`FixedPointLayout`]); its value is `"K,M"`, the numbers
/// of states and of checkpointed regions.
pub const FIXED_POINT_LOOP: &str = "enz-fixed-point";

/// An option marker of `__enzyme_fixed_point`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum FixedPointOption {
    /// `enzyme_fp_state, ptr, bytes`.
    State,
    /// `enzyme_fp_reduction, r`.
    Reduction,
    /// `enzyme_fp_max_iters, n`.
    MaxIters,
    /// `enzyme_fp_control, control`.
    Control,
    /// `enzyme_checkpoint_region, ptr, bytes`.
    CheckpointRegion,
}

impl FixedPointOption {
    const ALL: [(FixedPointOption, &'static str); 5] = [
        (FixedPointOption::State, "enzyme_fp_state"),
        (FixedPointOption::Reduction, "enzyme_fp_reduction"),
        (FixedPointOption::MaxIters, "enzyme_fp_max_iters"),
        (FixedPointOption::Control, "enzyme_fp_control"),
        (
            FixedPointOption::CheckpointRegion,
            super::checkpoint_loop::CHECKPOINT_REGION,
        ),
    ];

    /// The option a marker global's name designates.
    pub fn from_name(name: &str) -> Option<FixedPointOption> {
        Self::ALL.iter().find(|(_, s)| *s == name).map(|(o, _)| *o)
    }

    /// The marker's global name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(o, _)| *o == self)
            .map(|(_, s)| *s)
            .unwrap_or("?")
    }

    /// How many values follow the marker.
    pub fn values(self) -> usize {
        match self {
            FixedPointOption::State | FixedPointOption::CheckpointRegion => 2,
            _ => 1,
        }
    }
}

/// The parameters of a fixed-point loop function, in order:
///
/// ```text
///   (ptr state_1, i64 bytes_1, ..., ptr state_K, i64 bytes_K,
///    ptr region_1, i64 bytes_1, ..., ptr region_M, i64 bytes_M,
///    double reduction, i64 max_iters, ptr control,
///    args... (the step's parameters after its iteration counter))
/// ```
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct FixedPointLayout {
    /// K: the states (whose adjoint's norm decides convergence).
    pub states: usize,
    /// M: the other memory saved with the state.
    pub regions: usize,
}

impl FixedPointLayout {
    /// The index of the reduction parameter (then max_iters, control).
    pub fn reduction(self) -> usize {
        2 * (self.states + self.regions)
    }

    /// The index of the first of the step's arguments.
    pub fn first_arg(self) -> usize {
        self.reduction() + 3
    }

    /// The attribute value that describes this layout.
    pub fn attribute(self) -> String {
        format!("{},{}", self.states, self.regions)
    }

    /// The layout an attribute value describes.
    pub fn parse(value: &str) -> Option<FixedPointLayout> {
        let (k, m) = value.split_once(',')?;
        Some(FixedPointLayout {
            states: k.trim().parse().ok()?,
            regions: m.trim().parse().ok()?,
        })
    }
}

/// Defaults of the options.
pub const DEFAULT_REDUCTION: f64 = 1e-12;
/// See [`DEFAULT_REDUCTION`].
pub const DEFAULT_MAX_ITERS: i64 = 1000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_round_trips_and_places_the_options() {
        let l = FixedPointLayout {
            states: 2,
            regions: 1,
        };
        assert_eq!(FixedPointLayout::parse(&l.attribute()), Some(l));
        assert_eq!(l.reduction(), 6);
        assert_eq!(l.first_arg(), 9);
        assert_eq!(FixedPointLayout::parse("x,1"), None);
    }

    #[test]
    fn options_by_name() {
        for o in [
            FixedPointOption::State,
            FixedPointOption::Reduction,
            FixedPointOption::MaxIters,
            FixedPointOption::Control,
            FixedPointOption::CheckpointRegion,
        ] {
            assert_eq!(FixedPointOption::from_name(o.name()), Some(o));
        }
        assert_eq!(FixedPointOption::from_name("enzyme_dup"), None);
    }
}
