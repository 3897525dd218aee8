//! `cargo enz`: builds a cargo project with the derivatives its code asks
//! for (`__enzyme_*` calls, the `enz` crate's `#[autodiff_*]` macros).
//!
//! Two roles in one executable:
//! - the cargo subcommand (`cargo enz build|run|test|bench [args]`,
//!   [`subcommand`]): checks that rustc's LLVM is one enz-rs reads, then
//!   runs cargo with linker-plugin LTO (every crate of the build compiled
//!   to LLVM bitcode) and this executable as the linker;
//! - the linker ([`link`], when cargo-enz's environment says so): merges
//!   the bitcode of the link, differentiates it with enz-rs, compiles it
//!   to one object and hands the link, with that object in place of the
//!   bitcode, to the real linker.
#![forbid(unsafe_code)]

mod archive;
mod link;
mod subcommand;

use std::process::ExitCode;

/// Set (to the real linker) in the environment of the cargo run that
/// cargo-enz starts: rustc then runs this executable as its linker.
pub(crate) const LINKER_ENV: &str = "CARGO_ENZ_REAL_LINKER";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match std::env::var(LINKER_ENV) {
        Ok(real) if !real.is_empty() => link::main(&real, &args),
        _ => subcommand::main(&args),
    }
}
