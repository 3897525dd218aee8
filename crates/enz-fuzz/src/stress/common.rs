//! Helpers the `stress` and `malformed` campaigns share: a small seeded
//! random number generator, the symptom key that groups failing cases, and
//! keeping reproducers on disk.

use crate::exec::Finished;
use crate::outcome::Outcome;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// SplitMix64: tiny, seedable, good enough to pick mutations.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`, decorrelated per campaign by `salt`.
    pub fn new(seed: u64, salt: u64) -> Rng {
        let mut r = Rng(seed ^ salt.wrapping_mul(0xA076_1D64_78BD_642F));
        r.next_u64();
        r
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when `n == 0`).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// Lower-case words of `s`, numbers and IR names dropped, joined by `-`,
/// at most `max` characters: stable across cases that fail the same way.
pub fn slug(s: &str, max: usize) -> String {
    let mut out = String::new();
    for word in s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '%' || c == '@'))
    {
        if word.is_empty()
            || word.starts_with('%')
            || word.starts_with('@')
            || word.chars().any(|c| c.is_ascii_digit()) && !word.starts_with('i')
            || word.chars().all(|c| c.is_ascii_digit())
        {
            continue;
        }
        if !out.is_empty() {
            out.push('-');
        }
        out.push_str(&word.to_ascii_lowercase());
        if out.len() >= max {
            out.truncate(max);
            break;
        }
    }
    if out.is_empty() {
        out.push_str("none");
    }
    out
}

/// The symptom of a failing (or internal-error) case: the outcome and a
/// normalised form of the message that identifies it. Cases with the same
/// key are the same bug, most likely.
pub fn symptom(o: Outcome, run: &Finished, detail: Option<&str>) -> String {
    let err = &run.stderr;
    match o {
        Outcome::Hang => "hang".into(),
        Outcome::Crash => {
            if let Some(i) = err.find("LLVM ERROR:") {
                let line = err[i + 11..].lines().next().unwrap_or("");
                format!("crash-llvm-error-{}", slug(line, 50))
            } else if let Some(i) = err.find("panicked at ") {
                let loc = err[i + 12..].split(':').next().unwrap_or("");
                let loc = loc.rsplit('/').next().unwrap_or(loc);
                let msg = err[i..].lines().nth(1).unwrap_or("");
                format!("crash-panic-{}-{}", slug(loc, 30), slug(msg, 40))
            } else if let Some(sig) = run.signal {
                let what = err
                    .lines()
                    .find(|l| l.contains("Assertion") || l.contains("error"))
                    .map(|l| format!("-{}", slug(l, 40)))
                    .unwrap_or_default();
                format!("crash-signal{sig}{what}")
            } else if run.code == Some(1) {
                format!("crash-exit1-{}", slug(detail.unwrap_or(err), 40))
            } else {
                format!("crash-exit{}", run.code.unwrap_or(-1))
            }
        }
        Outcome::Internal => {
            let line = err
                .lines()
                .find(|l| l.starts_with("error") || l.contains("internal"))
                .unwrap_or_else(|| err.lines().next().unwrap_or(""));
            let line = line
                .trim_start_matches("error: ")
                .trim_start_matches("internal error: ");
            // `the synthesised derivatives do not verify (...): <verifier
            // message>`: the verifier message tells the bugs apart.
            let key = match line.split_once("(this is a bug in enz-rs)") {
                Some((what, why)) => format!("{}-{}", slug(what, 30), slug(why, 40)),
                None => slug(line, 60),
            };
            format!("internal-{key}")
        }
        Outcome::Verifier => {
            let d = detail.unwrap_or("");
            // opt cannot even load a module whose triple names no known
            // architecture; group those however the triple was mangled.
            if d.contains("unrecognized architecture") || d.contains("failed to infer data layout")
            {
                "verifier-unknown-target-triple".into()
            } else {
                let d = d.split_once(": ").map_or(d, |(_, r)| r);
                format!("verifier-{}", slug(d, 60))
            }
        }
        Outcome::Leftover => format!("leftover-{}", slug(detail.unwrap_or(""), 60)),
        other => other.name().to_string(),
    }
}

/// Keeps a reproducer: `dir/<symptom>/<name>.<ext>` (the input), plus
/// `<name>.stderr` (enz-rs's stderr, its exit status) and `<name>.cmd`
/// (how to re-run it). Returns the kept input's path.
pub fn keep_case(
    dir: &Path,
    symptom: &str,
    name: &str,
    input: &[u8],
    ext: &str,
    enz_args: &[&str],
    run: &Finished,
) -> Option<PathBuf> {
    let d = dir.join(symptom);
    std::fs::create_dir_all(&d).ok()?;
    let path = d.join(format!("{name}.{ext}"));
    std::fs::write(&path, input).ok()?;
    let mut status = String::new();
    let _ = writeln!(
        status,
        "# exit {:?} signal {:?} timed_out {}",
        run.code, run.signal, run.timed_out
    );
    status.push_str(&run.stderr);
    let _ = std::fs::write(d.join(format!("{name}.stderr")), status);
    let _ = std::fs::write(
        d.join(format!("{name}.cmd")),
        format!(
            "target/release/enz-rs {} -o /tmp/out.bc {}\n",
            path.display(),
            enz_args.join(" ")
        ),
    );
    Some(path)
}

/// Writes `dir/SUMMARY.txt`: per symptom directory, how many inputs it
/// holds and the smallest one (the reproducer to start from).
pub fn write_keep_summary(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut lines = Vec::new();
    let mut groups: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    groups.sort();
    for g in groups {
        let mut inputs: Vec<(u64, PathBuf)> = std::fs::read_dir(&g)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("bc" | "ll")))
            .filter_map(|p| Some((std::fs::metadata(&p).ok()?.len(), p)))
            .collect();
        inputs.sort();
        if let Some((size, smallest)) = inputs.first() {
            let stderr = smallest.with_extension("stderr");
            let first = std::fs::read_to_string(&stderr)
                .unwrap_or_default()
                .lines()
                .take(3)
                .collect::<Vec<_>>()
                .join(" | ");
            lines.push(format!(
                "{}: {} inputs; smallest {} ({} bytes): {}",
                g.file_name().unwrap_or_default().to_string_lossy(),
                inputs.len(),
                smallest.display(),
                size,
                first
            ));
        }
    }
    let _ = std::fs::write(dir.join("SUMMARY.txt"), lines.join("\n") + "\n");
}
