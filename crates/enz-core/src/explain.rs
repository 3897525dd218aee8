//! What `--explain` tells a user about each derivative: per loop, where it
//! is in the source, what the reverse sweep does with the values it needs
//! from it (cache them per iteration, recompute them, re-read them from
//! memory), how many bytes that costs per iteration, how the caches are
//! allocated, and how often the forward code runs. Made by synthesis from
//! what it actually emitted (not from the plan alone: only the values the
//! reverse sweep asked for count), read by the front ends as text.

use std::fmt;

/// The explanation of one derivative.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// The user's function.
    pub function: String,
    /// What was made: "gradient `diffe_f`", "augmented primal `augmented_f`
    /// and reverse `reverse_f`", "forward derivative `fwddiffe_f`".
    pub made: String,
    /// Loops, outermost first (a child follows its parent).
    pub loops: Vec<LoopPlan>,
    /// Values cached outside any loop: one tape slot each.
    pub slots: Vec<CachedValue>,
    /// Further lines: why a loop was not checkpointed under a cache
    /// budget.
    pub notes: Vec<String>,
}

/// What the reverse sweep does with one loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopPlan {
    /// The loop's number (as in `--print-plan`).
    pub id: usize,
    /// The enclosing loop's number.
    pub parent: Option<usize>,
    /// `file:line` of the loop, with debug info.
    pub location: Option<String>,
    /// The loop's strategy.
    pub strategy: Strategy,
    /// Values cached per iteration (their own, not inner loops').
    pub cached: Vec<CachedValue>,
    /// Values of the loop recomputed in the reverse sweep from their
    /// operands (induction variables included).
    pub recomputed: usize,
    /// Loads of the loop re-read from unchanged memory.
    pub reread: usize,
    /// How the caches are allocated.
    pub allocation: Allocation,
    /// Whether the iteration the loop left in is recomputed from its
    /// induction variable's start and limit (else cached per instance).
    pub exit_recomputed: bool,
}

/// How the reverse sweep gets a loop's values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// Some values are cached per iteration; the rest are recomputed or
    /// re-read. The forward code runs once.
    Cache,
    /// Nothing is cached: every value the reverse sweep needs is
    /// recomputed or re-read. The forward code runs once.
    Recompute,
    /// Forward mode: tangents run alongside the primal; nothing cached.
    Forward,
    /// Checkpointed under a cache budget: the loop's
    /// state (the memory it writes, `ranges` byte ranges computed before
    /// it) is saved every k iterations, k chosen at run time, and each
    /// segment runs again, recording, before its reverse.
    Checkpoint {
        /// The cache budget in bytes; None: the machine's (`auto`), half the
        /// machine's physical memory, read at run time.
        budget: Option<u64>,
        /// How many byte ranges its state is (its state struct included).
        ranges: u32,
        /// When the loop was kept beside its checkpointed form, chosen
        /// before it at run time: the bound on what it caches running
        /// plainly.
        plain_bound: Option<PlainBound>,
    },
}

/// The bound, computed before a checkpointed loop, on what running it
/// plainly caches, which chooses between the two forms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlainBound {
    /// Bytes per iteration of the time loop's own blocks and of each loop
    /// inside, with the number of loops around those, inside the time
    /// loop, whose trip counts multiply them.
    pub terms: Vec<(u64, usize)>,
    /// The time loop's trip count is known only as it runs: it runs
    /// plainly when one iteration's bound is at most this many bytes
    /// (else when its trip count times that is at most half the budget).
    pub per_iteration_limit: Option<u64>,
}

/// How a loop's caches are allocated.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Allocation {
    /// Nothing to allocate.
    None,
    /// Once, before the outermost loop of the nest, from a bound on every
    /// trip count of the nest (reused between calls).
    Once,
    /// On the thread's stack (GPU kernels), once before the nest.
    Stack,
    /// Grown by doubling as the loop runs: no trip bound is known before
    /// the nest.
    Doubling,
}

/// One cached value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CachedValue {
    /// The instruction (as IR, shortened).
    pub what: String,
    /// Bytes per iteration (per call for a tape slot).
    pub bytes: u64,
    /// `file:line` of the instruction, with debug info.
    pub location: Option<String>,
}

impl LoopPlan {
    /// Bytes cached per iteration of the loop (its own values).
    pub fn bytes_per_iteration(&self) -> u64 {
        self.cached.iter().map(|c| c.bytes).sum()
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Strategy::Cache => "cache",
            Strategy::Recompute => "recompute",
            Strategy::Forward => "forward",
            Strategy::Checkpoint { .. } => "checkpoint",
        })
    }
}

impl fmt::Display for Explanation {
    /// The text `--explain` prints: a line for the derivative, one per loop
    /// (indented by depth) and its cached values, and the tape slots.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "plan of the derivative of `{}`: {}",
            self.function, self.made
        )?;
        if self.loops.is_empty() {
            writeln!(f, "  no loops")?;
        }
        for lp in &self.loops {
            let depth = self.depth(lp);
            let pad = "  ".repeat(depth + 1);
            write!(f, "{pad}loop {}", lp.id)?;
            if let Some(loc) = &lp.location {
                write!(f, " at {loc}")?;
            }
            if let Some(p) = lp.parent {
                write!(f, " (in loop {p})")?;
            }
            write!(f, ": {}", lp.strategy)?;
            match lp.strategy {
                Strategy::Forward => {
                    writeln!(
                        f,
                        ", tangents alongside the primal; nothing cached; recomputation factor 1"
                    )?;
                    continue;
                }
                Strategy::Checkpoint {
                    budget,
                    ref plain_bound,
                    ranges,
                } => {
                    let budget = match budget {
                        Some(bytes) => format!("a cache budget of {} MiB", bytes >> 20),
                        None => "the machine's cache budget (half its physical memory, read at run time)".to_string(),
                    };
                    if let Some(bound) = plain_bound {
                        let sum: Vec<String> = std::iter::once("64".to_string())
                            .chain(bound.terms.iter().map(|(bytes, depth)| match depth {
                                0 => bytes.to_string(),
                                1 => format!("{bytes}·(trips of a loop inside)"),
                                d => format!("{bytes}·(trips of {d} nested loops inside)"),
                            }))
                            .collect();
                        match bound.per_iteration_limit {
                            None => write!(
                                f,
                                ", under {budget}, when a bound computed before it on what running it plainly caches, its trip count × ({}) bytes, is more than half the budget; else it runs plainly, with the caches of its function's own plan",
                                sum.join(" + ")
                            )?,
                            Some(limit) => write!(
                                f,
                                ", under {budget}, when a bound computed before it on what one iteration caches running plainly, {} bytes, is more than {} KiB (its trip count is known only as it runs); else it runs plainly, with the caches of its function's own plan",
                                sum.join(" + "),
                                limit >> 10
                            )?,
                        }
                    } else {
                        write!(f, ", under {budget}")?;
                    }
                    writeln!(
                        f,
                        ": the first k iterations are recorded, k = the lesser of half the budget and 128 MiB over the bytes one iteration caches (measured at run time); past them its state ({ranges} byte range{} computed before it, the loop's phis included) is saved every k iterations and each segment runs again, recording, before its reverse: recomputation factor 1 when the loop fits in one segment, else 2; the iterations' caches: the next plan",
                        if ranges == 1 { "" } else { "s" },
                    )?;
                    continue;
                }
                Strategy::Cache | Strategy::Recompute => {}
            }
            write!(
                f,
                ", {} bytes cached per iteration ({} value{}), {} recomputed, {} re-read; recomputation factor 1 (the forward code runs once)",
                lp.bytes_per_iteration(),
                lp.cached.len(),
                if lp.cached.len() == 1 { "" } else { "s" },
                lp.recomputed,
                lp.reread
            )?;
            match lp.allocation {
                Allocation::None => {}
                Allocation::Once => write!(f, "; caches allocated once before the loop nest")?,
                Allocation::Stack => write!(f, "; caches on the thread's stack")?,
                Allocation::Doubling => write!(
                    f,
                    "; caches grown by doubling (no trip bound before the loop nest)"
                )?,
            }
            if lp.exit_recomputed {
                write!(f, "; exit iteration recomputed")?;
            }
            writeln!(f)?;
            for c in &lp.cached {
                write_cached(f, &pad, c)?;
            }
            let terms = self.nest_terms(lp.id);
            if terms.iter().any(|(_, path)| !path.is_empty()) {
                writeln!(
                    f,
                    "{pad}  per iteration of loop {}, its inner loops included: {} bytes (nK: the trips of loop K per iteration of the loop around it)",
                    lp.id,
                    nest_formula(&terms),
                )?;
            }
        }
        for n in &self.notes {
            writeln!(f, "  {n}")?;
        }
        if !self.slots.is_empty() {
            let bytes: u64 = self.slots.iter().map(|c| c.bytes).sum();
            writeln!(
                f,
                "  outside loops: {} value{} cached on the tape ({bytes} bytes)",
                self.slots.len(),
                if self.slots.len() == 1 { "" } else { "s" }
            )?;
            for c in &self.slots {
                write_cached(f, "  ", c)?;
            }
        }
        Ok(())
    }
}

impl Explanation {
    /// What one iteration of loop `id` caches, its inner loops included,
    /// as terms: bytes per iteration of a loop (`id` or one inside it) with
    /// the loops between (whose trip counts multiply them), outermost
    /// first. Loops that cache nothing (and checkpointed or forward ones,
    /// which describe their own caches) add no term.
    pub fn nest_terms(&self, id: usize) -> Vec<(u64, Vec<usize>)> {
        let mut out = Vec::new();
        let mut todo = vec![(id, Vec::new())];
        while let Some((l, path)) = todo.pop() {
            let Some(lp) = self.loops.iter().find(|x| x.id == l) else {
                continue;
            };
            if !matches!(lp.strategy, Strategy::Cache | Strategy::Recompute) {
                continue;
            }
            let bytes = lp.bytes_per_iteration();
            if bytes > 0 {
                out.push((bytes, path.clone()));
            }
            for child in self.loops.iter().filter(|c| c.parent == Some(l)) {
                let mut p = path.clone();
                p.push(child.id);
                todo.push((child.id, p));
            }
        }
        out.sort_by(|a, b| a.1.len().cmp(&b.1.len()).then(a.1.cmp(&b.1)));
        out
    }

    fn depth(&self, lp: &LoopPlan) -> usize {
        let mut depth = 0;
        let mut cur = lp.parent;
        while let Some(p) = cur {
            depth += 1;
            cur = self.loops.iter().find(|l| l.id == p).and_then(|l| l.parent);
            if depth > self.loops.len() {
                break;
            }
        }
        depth
    }
}

/// `24 + 84·n1 + 16·n1·n3`: the terms of [`Explanation::nest_terms`],
/// `nK` standing for the trips of loop K in one iteration of the loop
/// around it.
fn nest_formula(terms: &[(u64, Vec<usize>)]) -> String {
    let parts: Vec<String> = terms
        .iter()
        .map(|(bytes, path)| {
            std::iter::once(bytes.to_string())
                .chain(path.iter().map(|k| format!("n{k}")))
                .collect::<Vec<_>>()
                .join("·")
        })
        .collect();
    parts.join(" + ")
}

fn write_cached(f: &mut fmt::Formatter<'_>, pad: &str, c: &CachedValue) -> fmt::Result {
    write!(f, "{pad}  cached: {} ({} bytes)", c.what, c.bytes)?;
    if let Some(loc) = &c.location {
        write!(f, " at {loc}")?;
    }
    writeln!(f)
}
