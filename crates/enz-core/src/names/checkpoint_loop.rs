//! The names of the checkpointed time loops' API (`runtime/include/enzyme/
//! checkpoint.h`): `__enzyme_checkpoint_for`, `__enzyme_checkpoint_while`,
//! their option markers, the attribute that marks the loop function the
//! front end lowers each call to, and the C layout of the scheme and
//! action structs the reverse sweep's driver reads.

/// `__enzyme_checkpoint_for(step, start, n, options..., args...)`.
pub const CHECKPOINT_FOR: &str = "__enzyme_checkpoint_for";

/// `__enzyme_checkpoint_while(step, options..., args...)`.
pub const CHECKPOINT_WHILE: &str = "__enzyme_checkpoint_while";

/// The string attribute on the loop function a checkpointed loop call
/// becomes (see [`CheckpointLayout`]).
pub const CHECKPOINT_LOOP: &str = "enz-checkpoint-loop";

/// `enzyme_checkpoint_region, ptr, bytes`: memory a snapshot holds (also
/// an option of `__enzyme_fixed_point`).
pub const CHECKPOINT_REGION: &str = "enzyme_checkpoint_region";

/// An option marker of a checkpointed loop call.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub enum CheckpointOption {
    /// `enzyme_scheme, &scheme, data`: the scheme and its `init`'s data.
    Scheme,
    /// `enzyme_checkpoint_region, ptr, bytes`.
    Region,
}

impl CheckpointOption {
    const ALL: [(CheckpointOption, &'static str); 2] = [
        (CheckpointOption::Scheme, "enzyme_scheme"),
        (CheckpointOption::Region, CHECKPOINT_REGION),
    ];

    /// The option a marker global's name designates.
    pub fn from_name(name: &str) -> Option<CheckpointOption> {
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
        2
    }
}

/// The parameters of a checkpointed loop function, in order:
///
/// ```text
///   (ptr region_1, i64 bytes_1, ..., ptr region_M, i64 bytes_M,
///    ptr scheme, ptr data, i64 start, i64 n,
///    args... (the step's parameters after its iteration counter))
/// ```
///
/// A while loop has start 0 and n -1.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct CheckpointLayout {
    /// M: the listed regions.
    pub regions: usize,
    /// Whether the loop runs until the step returns zero.
    pub while_loop: bool,
}

impl CheckpointLayout {
    /// The index of the scheme parameter (then data, start, n).
    pub fn scheme(self) -> usize {
        2 * self.regions
    }

    /// The index of the first of the step's arguments.
    pub fn first_arg(self) -> usize {
        self.scheme() + 4
    }

    /// The attribute value that describes this layout: `"M,for"` or
    /// `"M,while"`.
    pub fn attribute(self) -> String {
        let kind = if self.while_loop { "while" } else { "for" };
        format!("{},{kind}", self.regions)
    }

    /// The layout an attribute value describes.
    pub fn parse(value: &str) -> Option<CheckpointLayout> {
        let (m, kind) = value.split_once(',')?;
        let while_loop = match kind.trim() {
            "for" => false,
            "while" => true,
            _ => return None,
        };
        Some(CheckpointLayout {
            regions: m.trim().parse().ok()?,
            while_loop,
        })
    }
}

/// The fields of `EnzymeCheckpointScheme` after its `uint32_t version`,
/// each a function pointer: field k is at byte k × (pointer size).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum SchemeField {
    /// `void *init(void *data, int64_t nsteps, uint64_t snapshot_bytes)`.
    Init = 1,
    /// `void next_action(void *state, EnzymeCkptAction *out)`.
    NextAction = 2,
    /// `void store(void *state, int64_t slot, int64_t step, const
    /// EnzymeCkptRegion *regions, uint64_t nregions)`.
    Store = 3,
    /// Like `store`.
    Restore = 4,
    /// `void set_nsteps(void *state, int64_t nsteps)`.
    SetNsteps = 5,
    /// `void finalize(void *state)`.
    Finalize = 6,
}

/// `EnzymeCkptAction`'s flags (Checkpointing.jl's `ActionFlag` values).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum ActionFlag {
    /// Save the state into slot `cpnum`.
    Store = 1,
    /// Load slot `cpnum`.
    Restore = 2,
    /// Run steps `startiteration .. iteration - 1` plainly.
    Forward = 3,
    /// The forward sweep's last action: step `iteration - 1` is next.
    FirstUturn = 4,
    /// Differentiate step `iteration - 1`.
    Uturn = 5,
    /// The schedule is complete.
    Done = 7,
}

/// `EnzymeCkptAction { int32_t flag; int64_t iteration, startiteration,
/// cpnum; }`: the byte offsets of its fields and its size.
pub const ACTION_ITERATION: u64 = 8;
/// See [`ACTION_ITERATION`].
pub const ACTION_START: u64 = 16;
/// See [`ACTION_ITERATION`].
pub const ACTION_SLOT: u64 = 24;
/// See [`ACTION_ITERATION`].
pub const ACTION_BYTES: u64 = 32;
/// `EnzymeCkptRegion { void *ptr; uint64_t bytes; uint32_t addrspace,
/// flags; }` on a 64-bit target.
pub const REGION_BYTES: u64 = 24;
/// The driver's slot for the state before the last step.
pub const SLOT_LAST_STEP: i64 = -2;
/// The driver's slot for the state the reverse sweep starts from.
pub const SLOT_REVERSE_START: i64 = -1;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_round_trips_and_places_the_options() {
        for while_loop in [false, true] {
            let l = CheckpointLayout {
                regions: 2,
                while_loop,
            };
            assert_eq!(CheckpointLayout::parse(&l.attribute()), Some(l));
            assert_eq!(l.scheme(), 4);
            assert_eq!(l.first_arg(), 8);
        }
        assert_eq!(CheckpointLayout::parse("1,loop"), None);
        assert_eq!(CheckpointLayout::parse("x,for"), None);
    }

    #[test]
    fn options_by_name() {
        for o in [CheckpointOption::Scheme, CheckpointOption::Region] {
            assert_eq!(CheckpointOption::from_name(o.name()), Some(o));
        }
        assert_eq!(CheckpointOption::from_name("enzyme_fp_state"), None);
    }
}
