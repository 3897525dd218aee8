//! A fixed-seed slice of the differential fuzz campaign (`enz-fuzz diff`):
//! random self-checking C programs, each compiled at -O0..-O3 (and at -O3
//! with fast-math and AVX2), differentiated by this enz-rs (also with
//! `--no-inline`) in reverse, forward, vector
//! forward and split mode, and checked against central finite differences.
//! A failing seed is re-run alone with
//! `target/release/enz-fuzz diff --seed S --count 1 --no-inline --fast-math --keep DIR -v`.
//!
//! Passing means something was checked: every case must be a verified
//! output or a clean diagnostic (an internal error fails), every program
//! must compile and run all its configurations, and the slice must
//! compare at least [`MIN_CHECKS`] derivative values with finite
//! differences in at least [`MIN_OK`] differentiated programs. A missing
//! tool (clang, opt, llvm-nm...) fails with its name.

use enz_fuzz::outcome::{Outcome, Summary};
use enz_fuzz::{run_campaign, CampaignKind, CommonArgs};

/// Programs in the slice.
const PROGRAMS: u64 = 12;
/// Configurations per program: -O0..-O3 and -O3 fast-math, each also
/// with `--no-inline`.
const CONFIGS: u64 = 10;
/// Floor on the cases differentiated, linked and run with all checks
/// passing: all 120 of this slice are; an enz-rs that refused more than
/// a tenth of them fails.
const MIN_OK: u64 = 108;
/// Floor on the values compared with finite differences: this slice
/// compares 2140; an enz-rs refusing everything compares none.
const MIN_CHECKS: u64 = 1800;

/// The summary line and every note, for a failure message.
fn shown(s: &Summary) -> String {
    format!("{s}\n{}", s.notes.join("\n"))
}

#[test]
fn diff_fixed_seeds() {
    let args = CommonArgs {
        no_inline: true,
        fast_math: true,
        ..CommonArgs::slice(PROGRAMS, 20_250_101, env!("CARGO_BIN_EXE_enz-rs"))
    };
    let summary = run_campaign(CampaignKind::Diff, &args);
    println!("{}", shown(&summary));
    assert!(!summary.has_failures(), "{}", shown(&summary));
    let generator_bugs: Vec<&String> = summary
        .notes
        .iter()
        .filter(|n| n.contains("generator"))
        .collect();
    assert!(
        generator_bugs.is_empty(),
        "generator defects: {generator_bugs:?}"
    );
    assert_eq!(
        summary.cases(),
        PROGRAMS * CONFIGS,
        "not every program ran every configuration\n{}",
        shown(&summary)
    );
    assert!(
        summary.count(Outcome::Ok) >= MIN_OK,
        "only {} of {} cases were differentiated and checked (floor {MIN_OK}): \
         enz-rs refused the rest\n{}",
        summary.count(Outcome::Ok),
        summary.cases(),
        shown(&summary)
    );
    assert!(
        summary.checks >= MIN_CHECKS,
        "only {} derivative values were compared with finite differences (floor {MIN_CHECKS})\n{}",
        summary.checks,
        shown(&summary)
    );
}

/// Seeds that once failed (each re-run alone): 5082, 5130 and 5134 gave
/// wrong split-mode gradients when split mode took mixed mode's rewrite
/// of an elementwise loop: the clone both modes share had lost its
/// `__enz_linear_*` calls to the module-wide `always-inline` of a later
/// preprocessing (they are inlined only at the end now). 50132 and 50179
/// (an inactive loop nest checkpointed under the default budget) made
/// enz-rs crash in the verifier or fail it: a derivative kept the
/// primal's call of the loop's driver, which was then deleted.
/// 301033, 302044, 303008 and 305008 (floats moved as integers by the
/// generator's `bits_block`: a `<2 x i64>` load over an overwritten
/// source, a constant stored as `i64`, a phi of an `i32` load and a
/// truncated `i64`, a `freeze` of a swapped `i32`) gave silently wrong
/// gradients at -O2/-O3. A seed names a program of the generator of its
/// time: a change to the generator changes what these seeds test (the
/// c_tests fixtures written from them do not change).
///
/// Each seed must still test something: its program compiles at every
/// level, and enz-rs differentiates it at every level into a program
/// that compares at least one value with finite differences (a program
/// with no usable point, exit 77, checks nothing and fails here).
#[test]
fn diff_regression_seeds() {
    for seed in [
        5082, 5130, 5134, 50132, 50179, 301033, 302044, 303008, 305008,
    ] {
        let args = CommonArgs::slice(1, seed, env!("CARGO_BIN_EXE_enz-rs"));
        let summary = run_campaign(CampaignKind::Diff, &args);
        println!("seed {seed}: {summary}");
        assert!(!summary.has_failures(), "seed {seed}: {}", shown(&summary));
        assert!(
            summary.notes.is_empty(),
            "seed {seed} no longer tests what it did: {}",
            shown(&summary)
        );
        assert_eq!(
            summary.count(Outcome::Ok),
            4,
            "seed {seed}: not differentiated and checked at -O0..-O3: {}",
            shown(&summary)
        );
        assert!(
            summary.checks > 0 && summary.vacuous == 0,
            "seed {seed}: no derivative value was checked: {}",
            shown(&summary)
        );
    }
}
