//! `ENZ_RS_FAULT`, in builds with the `fault-injection` feature only (the
//! mutation check of the test net, `scripts/mutation-check.sh`): makes
//! this enz-rs wrong in a known way, to show that the tests catch it.
//!
//! - `fmul`: the `fmul` rule drops its second operand's term;
//! - `store`: forward mode stores no float tangent into shadow memory;
//! - `exit2`: a successful run writes its output, then reports an
//!   internal error and exits 2.

use enz_enzyme_api::{inject_fault, Fault};

/// Reads `ENZ_RS_FAULT`, injects a library fault, and says whether the
/// run must end in an internal error after writing its output.
pub fn arm() -> bool {
    match std::env::var("ENZ_RS_FAULT").as_deref() {
        Ok("fmul") => inject_fault(Fault::DropFmulTerm),
        Ok("store") => inject_fault(Fault::SkipShadowStore),
        Ok("exit2") => return true,
        Ok("") | Err(_) => {}
        Ok(other) => panic!("ENZ_RS_FAULT={other}: not one of fmul, store, exit2"),
    }
    false
}
