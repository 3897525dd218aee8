//! The names of the helpers and marks enz-rs adds to a module itself:
//! functions it emits once per module and calls from derivatives, globals,
//! and metadata kinds.

/// Prefix of the functions mixed mode outlines for an iteration's linear
/// part (`synth/mixed.rs`): `__enz_linear_<suffix>_<n>`.
pub(crate) const LINEAR_PREFIX: &str = "__enz_linear_";
/// Prefix of the functions running the earlier iterations of a loop that
/// repeats one computation (`transform/repeated.rs`) as primal code only:
/// `__enz_repeat_<function>.<n>`; calls of them carry no derivative.
pub(crate) const REPEAT_PREFIX: &str = "__enz_repeat_";
/// Prefix of `__enz_add_and_zero_<ty>(d, s, nbytes)`: adds shadow memory
/// into shadow memory element by element and zeroes the source.
pub(crate) const ADD_AND_ZERO_PREFIX: &str = "__enz_add_and_zero_";
/// The global counting the bytes of loop caches live (`--cache-budget`).
pub(crate) const CACHE_BYTES: &str = "__enz_cache_bytes";
/// Prefix of the GPU block reductions `__enz_block_sum_<ty>`.
pub(crate) const BLOCK_SUM_PREFIX: &str = "__enz_block_sum_";
/// `__enz_budget_exceeded(over, msg, len, flag)`: writes `msg` to stderr
/// once per process (`flag`) when `over`, a gradient call's caches having
/// passed an explicit `--cache-budget`, unless [`QUIET_BUDGET_ENV`] is set.
pub(crate) const BUDGET_EXCEEDED: &str = "__enz_budget_exceeded";
/// The environment variable that silences [`BUDGET_EXCEEDED`] at run time.
pub(crate) const QUIET_BUDGET_ENV: &str = "ENZ_RS_QUIET_BUDGET";
/// The names of the constant strings [`BUDGET_EXCEEDED`]'s callers and
/// itself add: the line a gradient writes, and [`QUIET_BUDGET_ENV`].
pub(crate) const BUDGET_MESSAGE_GLOBAL: &str = "enz.budget_message";
/// See [`BUDGET_MESSAGE_GLOBAL`].
pub(crate) const QUIET_BUDGET_ENV_GLOBAL: &str = "enz.quiet_budget_env";
/// `__enz_null_global_shadow(primal, shadow, msg, len)`: stops the
/// program with `msg` on stderr when a pointer read from a global is not
/// null but its shadow is (memory the program pointed the global to
/// outside differentiated code has no shadow), instead of a fault.
pub(crate) const NULL_GLOBAL_SHADOW: &str = "__enz_null_global_shadow";
/// The name of the constant string [`NULL_GLOBAL_SHADOW`]'s callers pass.
pub(crate) const NULL_SHADOW_MESSAGE_GLOBAL: &str = "enz.null_shadow_message";
/// libc's `getenv` and `write`, which [`BUDGET_EXCEEDED`] calls.
pub(crate) const GETENV: &str = "getenv";
/// See [`GETENV`].
pub(crate) const WRITE: &str = "write";
/// `__enz_cache_slot(holder, pos, size)`: the address of an element of a
/// growable loop cache.
pub(crate) const CACHE_SLOT: &str = "__enz_cache_slot";
/// The metadata kind marking the `inttoptr` made for an integer computed
/// by arithmetic (`preprocess/int_pointers.rs`): the shadow mirror gives it
/// a null shadow.
pub(crate) const NOT_A_POINTER: &str = "enz.not_a_pointer";
/// Prefix of `__enz_combine_add_<ty>(values, tags, i, shadow, v)`: adds
/// `v` to element `i` of a thread's table of partial adjoint sums (an
/// OpenMP microtask's combined object), first adding to `shadow` the entry
/// it replaces.
pub(crate) const COMBINE_ADD_PREFIX: &str = "__enz_combine_add_";
/// Prefix of `__enz_combine_flush_<ty>(values, tags, shadow)`: adds every
/// entry of such a table to `shadow`, atomically.
pub(crate) const COMBINE_FLUSH_PREFIX: &str = "__enz_combine_flush_";
