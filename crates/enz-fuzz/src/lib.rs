//! enz-fuzz: campaigns that try to make enz-rs crash, hang, emit a broken
//! module or a wrong gradient, and classify every case. The `enz-fuzz`
//! binary runs them from the command line; the test suite runs small
//! fixed-seed slices of each through [`run_campaign`].
#![forbid(unsafe_code)]

pub mod diff;
pub mod exec;
pub mod malformed;
pub mod outcome;
pub mod stress;
pub mod tools;

use clap::Args;
use std::path::PathBuf;

/// Options every campaign takes.
#[derive(Args, Debug, Clone)]
pub struct CommonArgs {
    /// How many cases (programs, modules, inputs) to generate.
    #[arg(long, default_value_t = 100)]
    pub count: u64,
    /// First seed; case k uses seed + k, so any case can be re-run alone.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Parallel jobs (default: available cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Where to keep failing cases (reproducers); default: a temp dir.
    #[arg(long)]
    pub keep: Option<PathBuf>,
    /// The enz-rs binary (default: next to this binary, else on PATH).
    #[arg(long)]
    pub enz_rs: Option<PathBuf>,
    /// Also pass --no-inline to enz-rs (diff: an extra trial per level).
    #[arg(long)]
    pub no_inline: bool,
    /// diff: also compile each program at -O3 with fast-math and AVX2/FMA
    /// (an extra trial per program, two with --no-inline).
    #[arg(long)]
    pub fast_math: bool,
    /// Print every non-ok case, not only the summary.
    #[arg(long, short)]
    pub verbose: bool,
}

impl CommonArgs {
    /// `count` cases from `seed` on two jobs with the given enz-rs, nothing
    /// kept, quiet: a fixed-seed slice for a test.
    pub fn slice(count: u64, seed: u64, enz_rs: impl Into<PathBuf>) -> CommonArgs {
        CommonArgs {
            count,
            seed,
            jobs: Some(2),
            keep: None,
            enz_rs: Some(enz_rs.into()),
            no_inline: false,
            fast_math: false,
            verbose: false,
        }
    }
}

/// A campaign by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CampaignKind {
    /// Random self-checking C programs.
    Diff,
    /// llvm-stress modules.
    Stress,
    /// Malformed inputs.
    Malformed,
}

/// Runs one campaign and returns its tally. When a tool the campaigns
/// drive cannot be run, nothing runs: the tally holds one
/// [`outcome::Outcome::Harness`] case per missing tool, saying which.
pub fn run_campaign(kind: CampaignKind, args: &CommonArgs) -> outcome::Summary {
    let missing = tools::Tools::find(args.enz_rs.as_deref()).missing();
    if !missing.is_empty() {
        let name = match kind {
            CampaignKind::Diff => "diff",
            CampaignKind::Stress => "stress",
            CampaignKind::Malformed => "malformed",
        };
        let mut s = outcome::Summary::new(name);
        for m in missing {
            s.add(outcome::Outcome::Harness, Some(m));
        }
        return s;
    }
    match kind {
        CampaignKind::Diff => diff::run(args),
        CampaignKind::Stress => stress::run(args),
        CampaignKind::Malformed => malformed::run(args),
    }
}
