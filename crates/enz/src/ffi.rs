//! Enzyme's C API, declared once: the activity markers (pass their
//! addresses, `&raw const enzyme_dup`) and the entry points. A call
//! compiles to a call of an undefined function, which `cargo enz` replaces
//! by a call of the derivative at link time; a program linked without
//! `cargo enz` fails to link, on purpose.
//!
//! ```ignore
//! use enz::ffi::*;
//! use core::ffi::c_void;
//! fn f(x: f64) -> f64 { x * x }
//! let d = unsafe { __enzyme_autodiff(f as *const c_void, &raw const enzyme_out, 3.0) };
//! ```
//!
//! The `__enzyme_*` functions are C variadic: `f32` arguments must be
//! passed as `f64` (C's promotion; enz-rs converts them back), and the
//! result type is the one declared here, so for other results declare an
//! entry point yourself with a name that contains the entry point's name
//! (`#[link_name = "__enzyme_autodiff_pair"]`).

use core::ffi::{c_int, c_void};

unsafe extern "C" {
    pub static enzyme_dup: c_int;
    pub static enzyme_dupnoneed: c_int;
    pub static enzyme_out: c_int;
    pub static enzyme_const: c_int;
    pub static enzyme_const_return: c_int;
    pub static enzyme_active_return: c_int;
    pub static enzyme_dup_return: c_int;
    pub static enzyme_primal_return: c_int;
    pub static enzyme_noret: c_int;
    pub static enzyme_width: c_int;
    pub static enzyme_allocated: c_int;
    pub static enzyme_tape: c_int;

    /// Reverse mode; returns the adjoint of one `enzyme_out` f64 argument.
    pub fn __enzyme_autodiff(f: *const c_void, ...) -> f64;
    /// Forward mode; returns the tangent of an f64 result.
    pub fn __enzyme_fwddiff(f: *const c_void, ...) -> f64;
    /// The forward sweep of split reverse mode; returns the tape.
    pub fn __enzyme_augmentfwd(f: *const c_void, ...) -> *mut c_void;
    /// The reverse sweep of split reverse mode (no `enzyme_out` argument).
    pub fn __enzyme_reverse(f: *const c_void, ...);
}
