//! `enz-fuzz`: campaigns that try to make enz-rs crash, hang, emit a broken
//! module or a wrong gradient, and classify every case.
//!
//! ```text
//! enz-fuzz diff      --count N --seed S   random self-checking C programs, O0..O3
//! enz-fuzz stress    --count N --seed S   llvm-stress modules wrapped in __enzyme_*
//! enz-fuzz malformed --count N --seed S   truncated / byte-flipped / edited inputs
//! ```
//!
//! Each campaign prints one summary line (see [`outcome::Summary`]) and exits
//! non-zero when any case was neither ok nor a clean diagnostic: an
//! internal error, crash, hang, verifier failure, left-over `__enzyme_*`
//! reference, wrong gradient, or a tool that cannot be run (harness).
#![forbid(unsafe_code)]

use clap::{Parser, Subcommand};
use enz_fuzz::{run_campaign, CampaignKind, CommonArgs};
use std::process::ExitCode;

#[derive(Parser, Debug)]
#[command(
    name = "enz-fuzz",
    about = "Fuzzing and stress campaigns against enz-rs"
)]
struct Cli {
    #[command(subcommand)]
    campaign: Campaign,
}

#[derive(Subcommand, Debug)]
enum Campaign {
    /// Random self-checking C programs: enz-rs gradients vs finite differences.
    Diff(CommonArgs),
    /// llvm-stress modules wrapped in __enzyme_autodiff / __enzyme_fwddiff.
    Stress(CommonArgs),
    /// Truncated and byte-flipped bitcode, text IR edits, call-site abuse.
    Malformed(CommonArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (kind, args) = match cli.campaign {
        Campaign::Diff(a) => (CampaignKind::Diff, a),
        Campaign::Stress(a) => (CampaignKind::Stress, a),
        Campaign::Malformed(a) => (CampaignKind::Malformed, a),
    };
    let summary = run_campaign(kind, &args);
    if args.verbose {
        for n in &summary.notes {
            eprintln!("{n}");
        }
    }
    println!("{summary}");
    if summary.has_failures() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
