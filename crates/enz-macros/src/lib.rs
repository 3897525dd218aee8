//! `#[autodiff_reverse]` and `#[autodiff_forward]` with the syntax and the
//! generated signatures of rustc's nightly `std::autodiff` (see the `enz`
//! crate, which re-exports them). Each expands to the function itself and
//! its derivative, a function that calls one of Enzyme's C entry points
//! (`__enzyme_autodiff`, `__enzyme_fwddiff`) with the activity markers;
//! `cargo enz` replaces that call by the derivative at link time.

#![forbid(unsafe_code)]

mod expand;
mod params;

use proc_macro::TokenStream;

/// `#[autodiff_reverse(NAME, ACTIVITIES...)]`: reverse mode.
#[proc_macro_attribute]
pub fn autodiff_reverse(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(expand::Mode::Reverse, attr.into(), item.into()).into()
}

/// `#[autodiff_forward(NAME, ACTIVITIES...)]`: forward mode.
#[proc_macro_attribute]
pub fn autodiff_forward(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(expand::Mode::Forward, attr.into(), item.into()).into()
}
