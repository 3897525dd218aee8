//! Analyses over a (preprocessed) function. They read IR and never change it;
//! synthesis consumes their facts.

pub(crate) mod activity;
pub(crate) mod addresses;
pub(crate) mod blas;
pub(crate) mod calls;
pub(crate) mod cfg;
pub(crate) mod checkpoint;
pub(crate) mod deferred_stores;
pub(crate) mod elementwise;
pub(crate) mod global_activity;
pub(crate) mod gpu;
pub(crate) mod invariance;
pub(crate) mod lazy_shadows;
pub(crate) mod loops;
pub(crate) mod mpi;
pub(crate) mod outlining;
pub(crate) mod overlap;
pub(crate) mod repeated;
pub(crate) mod sibling_loops;
pub(crate) mod team;
pub(crate) mod trips;
pub(crate) mod types;
pub(crate) mod writes;
