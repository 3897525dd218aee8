//! `cargo enz test` on the rust_crates project: Rust as people write it,
//! with crates.io's nalgebra, ndarray and num-complex (pinned by
//! rust_crates/Cargo.lock) and iterator chains over `Vec<Vec<f64>>`. Every
//! test there checks each of its derivatives against an analytic value and
//! against central finite differences, in debug and in release builds;
//! every `#[test]` must run and pass (see common/mod.rs).

mod common;

#[test]
fn debug() {
    common::cargo_enz_test("rust_crates", &[]);
}

#[test]
fn release() {
    common::cargo_enz_test("rust_crates", &["--release"]);
}
