//! What happened to one case, and the per-campaign tally.

use std::collections::BTreeMap;
use std::fmt;

/// The classification of one case (one input × one configuration).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Outcome {
    /// enz-rs exited 0 and everything checked afterwards held.
    Ok,
    /// enz-rs refused the input with a diagnostic (exit 1, `error:` on stderr).
    Diagnostic,
    /// enz-rs reported an internal error (exit 2).
    Internal,
    /// A signal, a panic (exit 101), an `LLVM ERROR`, or any other exit code.
    Crash,
    /// enz-rs (or the program it produced) ran past its time limit.
    Hang,
    /// enz-rs exited 0 but its output does not verify.
    Verifier,
    /// enz-rs exited 0 but its output still references `__enzyme_*`.
    Leftover,
    /// The differentiated program computed a gradient that disagrees with
    /// finite differences (or crashed at run time).
    Wrong,
    /// The campaign could not check the case: an external tool (clang,
    /// opt, llvm-nm, llvm-as, llvm-stress) is missing or failed, or the
    /// campaign's own driver is broken. Nothing was learnt about enz-rs,
    /// so it fails the campaign too.
    Harness,
}

impl Outcome {
    /// Outcomes that make a campaign fail: all but a verified output and a
    /// clean diagnostic. An internal error (exit 2: enz-rs's own output did
    /// not verify, or it caught its own bug) fails too.
    pub fn is_failure(self) -> bool {
        !matches!(self, Outcome::Ok | Outcome::Diagnostic)
    }

    /// Short lower-case name used in summary lines.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Diagnostic => "diagnostic",
            Outcome::Internal => "internal",
            Outcome::Crash => "crash",
            Outcome::Hang => "hang",
            Outcome::Verifier => "verifier",
            Outcome::Leftover => "leftover",
            Outcome::Wrong => "wrong",
            Outcome::Harness => "harness",
        }
    }

    /// Every outcome, in summary order.
    pub const ALL: [Outcome; 9] = [
        Outcome::Ok,
        Outcome::Diagnostic,
        Outcome::Internal,
        Outcome::Crash,
        Outcome::Hang,
        Outcome::Verifier,
        Outcome::Leftover,
        Outcome::Wrong,
        Outcome::Harness,
    ];
}

/// The tally of one campaign.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Campaign name (`diff`, `stress`, `malformed`).
    pub campaign: String,
    /// Inputs generated (programs, modules, files).
    pub inputs: u64,
    /// Cases per outcome (an input may give several cases: levels, modes).
    pub counts: BTreeMap<Outcome, u64>,
    /// One line per non-ok case worth showing: `seed/config: detail`.
    pub notes: Vec<String>,
    /// `diff`: the derivative values the generated programs compared with
    /// finite differences (the sum of their `N checks` lines): what a
    /// slice really checked, which its test asserts a floor on.
    pub checks: u64,
    /// `diff`: cases whose program found no usable point and checked
    /// nothing (exit 77); counted as ok, but they check no gradient.
    pub vacuous: u64,
}

impl Summary {
    /// An empty tally for `campaign`.
    pub fn new(campaign: &str) -> Summary {
        Summary {
            campaign: campaign.to_string(),
            ..Summary::default()
        }
    }

    /// Records one case.
    pub fn add(&mut self, o: Outcome, note: Option<String>) {
        *self.counts.entry(o).or_default() += 1;
        if let Some(n) = note {
            self.notes.push(n);
        }
    }

    /// Total cases.
    pub fn cases(&self) -> u64 {
        self.counts.values().sum()
    }

    /// Whether any case failed.
    pub fn has_failures(&self) -> bool {
        self.counts.iter().any(|(o, n)| o.is_failure() && *n > 0)
    }

    /// Cases with outcome `o`.
    pub fn count(&self, o: Outcome) -> u64 {
        self.counts.get(&o).copied().unwrap_or(0)
    }
}

impl fmt::Display for Summary {
    /// `campaign diff: 1000 inputs, 4000 cases: ok 3990, diagnostic 10, internal 0, crash 0, hang 0, verifier 0, leftover 0, wrong 0, harness 0; 61234 values checked, 12 vacuous`
    /// (the last part only for `diff`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "campaign {}: {} inputs, {} cases:",
            self.campaign,
            self.inputs,
            self.cases()
        )?;
        let parts: Vec<String> = Outcome::ALL
            .iter()
            .map(|o| format!("{} {}", o.name(), self.counts.get(o).copied().unwrap_or(0)))
            .collect();
        write!(f, " {}", parts.join(", "))?;
        if self.campaign == "diff" {
            write!(
                f,
                "; {} values checked, {} vacuous",
                self.checks, self.vacuous
            )?;
        }
        Ok(())
    }
}
