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
}

impl Outcome {
    /// Outcomes that make a campaign fail.
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            Outcome::Crash | Outcome::Hang | Outcome::Verifier | Outcome::Leftover | Outcome::Wrong
        )
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
        }
    }

    /// Every outcome, in summary order.
    pub const ALL: [Outcome; 8] = [
        Outcome::Ok,
        Outcome::Diagnostic,
        Outcome::Internal,
        Outcome::Crash,
        Outcome::Hang,
        Outcome::Verifier,
        Outcome::Leftover,
        Outcome::Wrong,
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
}

impl fmt::Display for Summary {
    /// `campaign diff: 1000 inputs, 4000 cases: ok 3990, diagnostic 10, internal 0, crash 0, hang 0, verifier 0, leftover 0, wrong 0`
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
        write!(f, " {}", parts.join(", "))
    }
}
