//! A fixed-seed slice of the `stress` fuzz campaign (see
//! `crates/enz-fuzz/src/stress.rs`): llvm-stress modules wrapped in
//! `__enzyme_autodiff` / `__enzyme_fwddiff` drivers, run through this
//! enz-rs at random -O levels. Every case must end in a verified output or
//! a diagnostic: no crash, hang, verifier failure or left-over
//! `__enzyme_*` reference. Re-run a failing case alone with
//! `target/release/enz-fuzz stress --seed <S> --count 1 -v --keep DIR`.

use enz_fuzz::{run_campaign, CampaignKind, CommonArgs};

#[test]
fn stress_slice_has_no_failures() {
    let args = CommonArgs::slice(60, 1000, env!("CARGO_BIN_EXE_enz-rs"));
    let summary = run_campaign(CampaignKind::Stress, &args);
    println!("{summary}");
    assert_eq!(summary.inputs, 60);
    assert!(
        !summary.has_failures(),
        "{summary}\n{}",
        summary.notes.join("\n")
    );
}
