//! The OpenMP runtime (LLVM's libomp, what clang's `-fopenmp` calls):
//! the call that runs a parallel region, the bookkeeping calls that carry
//! no derivative, the synchronisation calls the reverse sweep mirrors, and
//! the reduction calls preprocessing rewrites.

/// `__kmpc_fork_call(loc, argc, microtask, args...)`: runs
/// `microtask(&gtid, &btid, args...)` on every thread of a new team.
pub(crate) const FORK_CALL: &str = "__kmpc_fork_call";
/// `__kmpc_push_num_threads(loc, gtid, n)`: the next fork's team size.
pub(crate) const PUSH_NUM_THREADS: &str = "__kmpc_push_num_threads";
/// `__kmpc_global_thread_num(loc)`: the calling thread's global id.
pub(crate) const GLOBAL_THREAD_NUM: &str = "__kmpc_global_thread_num";
/// `omp_get_thread_num()`: the thread's number in its team.
pub(crate) const THREAD_NUM: &str = "omp_get_thread_num";
/// `omp_get_num_threads()`: the size of the current team.
pub(crate) const NUM_THREADS: &str = "omp_get_num_threads";
/// `omp_get_max_threads()`: the size of the next team without a
/// `num_threads` clause.
pub(crate) const MAX_THREADS: &str = "omp_get_max_threads";

/// Whether `name` is the runtime call that runs a parallel region.
pub(crate) fn is_fork_call(name: &str) -> bool {
    name == FORK_CALL
}

/// Whether `name` is an OpenMP runtime or API function that carries no
/// derivative: worksharing bounds (`__kmpc_for_static_init_*`, the
/// dispatch calls of dynamic and guided schedules), thread and team
/// queries, team sizes. Some write integer bookkeeping through their
/// pointer arguments (loop bounds), so they are not "writes nothing".
pub(crate) fn is_openmp_bookkeeping(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "__kmpc_for_static_init_",
        "__kmpc_for_static_fini",
        "__kmpc_dist_for_static_init_",
        "__kmpc_dispatch_init_",
        "__kmpc_dispatch_next_",
        "__kmpc_dispatch_fini_",
        "__kmpc_dispatch_deinit",
        "__kmpc_global_thread_num",
        "__kmpc_push_num_threads",
        "__kmpc_push_proc_bind",
        "__kmpc_single",
        "__kmpc_end_single",
        "__kmpc_master",
        "__kmpc_end_master",
        "__kmpc_masked",
        "__kmpc_end_masked",
        "__kmpc_flush",
        "omp_get_thread_num",
        "omp_get_num_threads",
        "omp_get_max_threads",
        "omp_get_num_procs",
        "omp_in_parallel",
        "omp_set_num_threads",
        "omp_get_wtime",
        "omp_get_level",
        "omp_get_team_size",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
}

/// A synchronisation call of a parallel region whose reverse sweep runs
/// its mirror image.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum OmpSync {
    /// `__kmpc_barrier(loc, gtid)`: a barrier again.
    Barrier,
    /// `__kmpc_critical(loc, gtid, lock)`: leaves the section
    /// (`__kmpc_end_critical`).
    Critical,
    /// `__kmpc_end_critical(loc, gtid, lock)`: enters it
    /// (`__kmpc_critical`).
    EndCritical,
}

impl OmpSync {
    /// The synchronisation call `name` designates, if any.
    pub(crate) fn from_callee(name: &str) -> Option<OmpSync> {
        match name {
            "__kmpc_barrier" => Some(OmpSync::Barrier),
            "__kmpc_critical" | "__kmpc_critical_with_hint" => Some(OmpSync::Critical),
            "__kmpc_end_critical" => Some(OmpSync::EndCritical),
            _ => None,
        }
    }

    /// How many of the call's arguments its mirror takes: `(loc, gtid)`
    /// for a barrier, `(loc, gtid, lock)` for a critical section (a hint
    /// is left out).
    pub(crate) fn mirror_arity(self) -> u32 {
        match self {
            OmpSync::Barrier => 2,
            OmpSync::Critical | OmpSync::EndCritical => 3,
        }
    }

    /// The function the reverse sweep calls, with the same arguments.
    pub(crate) fn mirror(self) -> &'static str {
        match self {
            OmpSync::Barrier => "__kmpc_barrier",
            OmpSync::Critical => "__kmpc_end_critical",
            OmpSync::EndCritical => "__kmpc_critical",
        }
    }
}

/// Whether `name` is an OpenMP runtime call that orders the team's
/// iterations (`#pragma omp ordered`, doacross loops): what it orders, the
/// reverse sweep would have to run in the opposite order, which enz-rs
/// does not do (reverse mode refuses it; forward mode runs it as is).
pub(crate) fn is_openmp_ordering(name: &str) -> bool {
    name.starts_with("__kmpc_ordered")
        || name.starts_with("__kmpc_end_ordered")
        || name.starts_with("__kmpc_doacross_")
}

/// A reduction's entry call: `__kmpc_reduce_nowait` or `__kmpc_reduce`
/// (`(loc, gtid, n, size, list, combiner, lock)`), returning 1 (combine
/// under the lock), 2 (combine with atomics) or 0.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum OmpReduce {
    /// `__kmpc_reduce_nowait`.
    NoWait,
    /// `__kmpc_reduce` (the team waits at its end).
    Blocking,
}

impl OmpReduce {
    /// The reduction entry call `name` designates, if any.
    pub(crate) fn from_callee(name: &str) -> Option<OmpReduce> {
        match name {
            "__kmpc_reduce_nowait" => Some(OmpReduce::NoWait),
            "__kmpc_reduce" => Some(OmpReduce::Blocking),
            _ => None,
        }
    }

    /// The matching end call of the combine-under-the-lock path.
    pub(crate) fn end(self) -> &'static str {
        match self {
            OmpReduce::NoWait => "__kmpc_end_reduce_nowait",
            OmpReduce::Blocking => "__kmpc_end_reduce",
        }
    }
}

/// `__kmpc_barrier(loc, gtid)`.
pub(crate) const BARRIER: &str = "__kmpc_barrier";

/// The name of the wrapper that forks derivative `f` as a microtask.
pub(crate) fn team_wrapper_name(f: &str) -> String {
    format!("{f}.omp_team")
}

/// The name of the microtask taking `f`'s floats passed by value
/// (`firstprivate`) through pointers instead (`preprocess/openmp.rs`).
pub(crate) fn by_reference_name(f: &str) -> String {
    format!("{f}.floats_by_reference")
}

/// The argument through which a worksharing call writes the lower bound
/// of the calling thread's chunk: `plower` of `__kmpc_for_static_init_*`
/// (argument 4) and of `__kmpc_dispatch_next_*` (argument 3).
pub(crate) fn lower_bound_argument(name: &str) -> Option<u32> {
    if name.starts_with("__kmpc_for_static_init_") {
        Some(4)
    } else if name.starts_with("__kmpc_dispatch_next_") {
        Some(3)
    } else {
        None
    }
}
