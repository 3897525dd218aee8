//! Derivatives of Rust functions on stable Rust, synthesised by enz-rs at
//! link time (build with `cargo enz build|run|test|bench`).
//!
//! With rustc's nightly `std::autodiff` syntax:
//!
//! ```ignore
//! use enz::autodiff_reverse;
//!
//! #[autodiff_reverse(d_rosenbrock, Active, Active, Active)]
//! fn rosenbrock(x: f64, y: f64) -> f64 {
//!     (1.0 - x).powi(2) + 100.0 * (y - x * x).powi(2)
//! }
//! // fn d_rosenbrock(x: f64, y: f64, dret: f64) -> (f64, f64, f64):
//! // (f(x, y), df/dx, df/dy) times the seed dret.
//! let (f, dx, dy) = d_rosenbrock(1.0, 3.0, 1.0);
//! ```
//!
//! Activities, one per parameter, then one for the result unless the
//! function returns `()`:
//! - reverse ([`autodiff_reverse`]): `Active` (a float: its adjoint is
//!   appended to the returned tuple; on the result, a seed argument `dret`
//!   is added last), `ActiveOnly` (the result's primal is not returned),
//!   `Duplicated` (a reference, slice or raw pointer: a shadow argument of
//!   the mutable type follows it, and the adjoints are added into it),
//!   `DuplicatedOnly`, `Const`;
//! - forward ([`autodiff_forward`]): `Dual` (a tangent argument of the
//!   same type follows the parameter; on the result, `(primal, tangent)`
//!   is returned), `DualOnly` (the tangent only), `Const`; with a width
//!   (`#[autodiff_forward(NAME, 4, ...)]`), one tangent argument per lane
//!   and an array `[primal, tangents...]` (or `[tangents...]`) returned.
//!
//! Parameters go to the derivative as they go to the function at the
//! LLVM level: floats and integers by value, references and raw pointers
//! as pointers, slices as pointer and length. Pass other types by
//! reference.
//!
//! The raw C API is in [`ffi`] for those who want it.
#![no_std]
// Unsafe only in `ffi`, the C API's declarations.
#![deny(unsafe_code)]

pub use enz_macros::{autodiff_forward, autodiff_reverse};

#[allow(unsafe_code)]
pub mod ffi;
