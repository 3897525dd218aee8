//! A fixed-seed slice of the `stress` fuzz campaign (see
//! `crates/enz-fuzz/src/stress.rs`): llvm-stress modules wrapped in
//! `__enzyme_autodiff` / `__enzyme_fwddiff` drivers, run through this
//! enz-rs at random -O levels. Every case must end in a verified output or
//! a clean diagnostic: no internal error, crash, hang, verifier failure,
//! left-over `__enzyme_*` reference or missing tool; and at least
//! [`MIN_OK`] cases must be differentiated, verified and checked for
//! left-overs. Re-run a failing case alone with
//! `target/release/enz-fuzz stress --seed <S> --count 1 -v --keep DIR`.

use enz_fuzz::outcome::Outcome;
use enz_fuzz::{run_campaign, CampaignKind, CommonArgs};

/// Modules in the slice; each gives a reverse and a forward case.
const MODULES: u64 = 60;
/// Floor on the cases differentiated into a verified module with no
/// left-over reference: this slice has 109 (and 11 diagnostics); an
/// enz-rs refusing everything has none.
const MIN_OK: u64 = 95;

#[test]
fn stress_slice_has_no_failures() {
    let args = CommonArgs::slice(MODULES, 1000, env!("CARGO_BIN_EXE_enz-rs"));
    let summary = run_campaign(CampaignKind::Stress, &args);
    let shown = format!("{summary}\n{}", summary.notes.join("\n"));
    println!("{shown}");
    assert!(!summary.has_failures(), "{shown}");
    assert_eq!(summary.cases(), 2 * MODULES, "{shown}");
    assert!(
        summary.count(Outcome::Ok) >= MIN_OK,
        "only {} cases were differentiated (floor {MIN_OK}): enz-rs refused the rest\n{shown}",
        summary.count(Outcome::Ok)
    );
}
