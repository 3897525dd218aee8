//! A fixed-seed slice of the `malformed` fuzz campaign (see
//! `crates/enz-fuzz/src/malformed.rs`): truncated and byte-flipped
//! bitcode, edited textual IR and abused `__enzyme_*` call sites, derived
//! from a few valid seed programs, run through this enz-rs. Every case
//! must end in a clean diagnostic or a verified output: no internal
//! error, crash, hang, verifier failure, left-over `__enzyme_*` reference
//! or missing tool. Both must occur: at least [`MIN_OK`] inputs that
//! survived their mutation are differentiated (an enz-rs refusing
//! everything fails) and at least [`MIN_DIAGNOSTIC`] are refused (an
//! enz-rs accepting anything fails). Re-run a failing case alone
//! with `target/release/enz-fuzz malformed --seed <S> --count 1 -v --keep DIR`.

use enz_fuzz::outcome::Outcome;
use enz_fuzz::{run_campaign, CampaignKind, CommonArgs};

/// Inputs in the slice, one case each.
const INPUTS: u64 = 150;
/// Floor on the inputs differentiated into a verified module: this
/// slice has 27.
const MIN_OK: u64 = 20;
/// Floor on the inputs refused with a diagnostic: this slice has 123.
const MIN_DIAGNOSTIC: u64 = 100;

#[test]
fn malformed_slice_has_no_failures() {
    let args = CommonArgs::slice(INPUTS, 5000, env!("CARGO_BIN_EXE_enz-rs"));
    let summary = run_campaign(CampaignKind::Malformed, &args);
    let shown = format!("{summary}\n{}", summary.notes.join("\n"));
    println!("{shown}");
    assert!(!summary.has_failures(), "{shown}");
    assert_eq!(summary.cases(), INPUTS, "{shown}");
    assert!(
        summary.count(Outcome::Ok) >= MIN_OK,
        "only {} inputs were differentiated (floor {MIN_OK})\n{shown}",
        summary.count(Outcome::Ok)
    );
    assert!(
        summary.count(Outcome::Diagnostic) >= MIN_DIAGNOSTIC,
        "only {} inputs were refused (floor {MIN_DIAGNOSTIC})\n{shown}",
        summary.count(Outcome::Diagnostic)
    );
}
