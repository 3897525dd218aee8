//! A fixed-seed slice of the `malformed` fuzz campaign (see
//! `crates/enz-fuzz/src/malformed.rs`): truncated and byte-flipped
//! bitcode, edited textual IR and abused `__enzyme_*` call sites, derived
//! from a few valid seed programs, run through this enz-rs. Every case
//! must end in a diagnostic or a verified output: no crash, hang, verifier
//! failure or left-over `__enzyme_*` reference. Re-run a failing case alone
//! with `target/release/enz-fuzz malformed --seed <S> --count 1 -v --keep DIR`.

use enz_fuzz::{run_campaign, CampaignKind, CommonArgs};

#[test]
fn malformed_slice_has_no_failures() {
    let args = CommonArgs::slice(150, 5000, env!("CARGO_BIN_EXE_enz-rs"));
    let summary = run_campaign(CampaignKind::Malformed, &args);
    println!("{summary}");
    assert_eq!(summary.inputs, 150);
    assert!(
        !summary.has_failures(),
        "{summary}\n{}",
        summary.notes.join("\n")
    );
}
