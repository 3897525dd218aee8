//! The names of the helpers and marks enz-rs adds to a module itself:
//! functions it emits once per module and calls from derivatives, globals,
//! and metadata kinds.

/// Prefix of the functions mixed mode outlines for an iteration's linear
/// part (`synth/mixed.rs`): `__enz_linear_<suffix>_<n>`.
pub(crate) const LINEAR_PREFIX: &str = "__enz_linear_";
/// Prefix of `__enz_add_and_zero_<ty>(d, s, nbytes)`: adds shadow memory
/// into shadow memory element by element and zeroes the source.
pub(crate) const ADD_AND_ZERO_PREFIX: &str = "__enz_add_and_zero_";
/// The global counting the bytes of loop caches live (`--cache-budget`).
pub(crate) const CACHE_BYTES: &str = "__enz_cache_bytes";
/// Prefix of the GPU block reductions `__enz_block_sum_<ty>`.
pub(crate) const BLOCK_SUM_PREFIX: &str = "__enz_block_sum_";
/// `__enz_cache_slot(holder, pos, size)`: the address of an element of a
/// growable loop cache.
pub(crate) const CACHE_SLOT: &str = "__enz_cache_slot";
/// The metadata kind marking the `inttoptr` made for an integer computed
/// by arithmetic (`preprocess/int_pointers.rs`): the shadow mirror gives it
/// a null shadow.
pub(crate) const NOT_A_POINTER: &str = "enz.not_a_pointer";
