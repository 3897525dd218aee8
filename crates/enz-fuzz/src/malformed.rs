//! The `malformed` campaign: inputs derived from a few valid seed programs
//! ([`seeds::SOURCES`], compiled once per run at -O0 and -O2) by
//!
//! * truncating their bitcode at a random length,
//! * changing 1..8 bytes of their bitcode (random values or bit flips):
//!   the hostile-bitcode case, where LLVM's reader used to segfault, abort
//!   with `LLVM ERROR: out of memory` or allocate without bound,
//! * editing their textual IR (delete / duplicate a line, swap tokens,
//!   change a type, drop a `}`, swap markers or globals, drop or duplicate
//!   an argument of an `__enzyme_*` call, change a number),
//! * call-site abuse ([`abuse`]): wrong arity, junk where a shadow belongs,
//!   unknown or trailing markers, declared-only / variadic / indirect
//!   callees, mistyped entry-point declarations, `musttail`, `invoke`,
//!   unsupported entry points, odd functions to differentiate.
//!
//! Each input is one case, run through enz-rs at a random -O level and
//! classified; a diagnostic is the expected good outcome, exit 0 is fine
//! when the output verifies and has no `__enzyme_*` left. Every note names
//! the mutation. With `--keep DIR`, cases that are neither ok nor a
//! diagnostic are kept under `DIR/<symptom>/`; byte-flipped ones are also
//! minimised (flips that do not matter for the symptom are undone) into
//! `<name>-min.bc`.

pub mod abuse;
pub mod mutate;
pub mod seeds;

use crate::exec::{default_jobs, parallel, Finished};
use crate::outcome::{Outcome, Summary};
use crate::stress::assemble;
use crate::stress::common::{keep_case, slug, symptom, write_keep_summary, Rng};
use crate::tools::Tools;
use crate::CommonArgs;
use seeds::Seed;
use std::path::Path;

const SALT: u64 = 0x3A1F_0A3D;

/// One generated input.
struct Input {
    bytes: Vec<u8>,
    /// `bc` or `ll`.
    ext: &'static str,
    /// The mutation, for notes.
    what: String,
    /// For byte flips: the seed's bitcode and the flips, to minimise.
    flips: Option<(Vec<u8>, Vec<mutate::Flip>)>,
}

fn make_input(tools: &Tools, seeds: &[Seed], rng: &mut Rng, dir: &Path) -> Input {
    let seed = rng.pick(seeds);
    let roll = rng.below(100);
    if roll < 15 {
        let (bytes, what) = mutate::truncate(&seed.bitcode, rng);
        Input {
            bytes,
            ext: "bc",
            what: format!("{} {what}", seed.name),
            flips: None,
        }
    } else if roll < 60 {
        let (bytes, flips) = mutate::flip(&seed.bitcode, rng);
        Input {
            bytes,
            ext: "bc",
            what: format!("{} {}", seed.name, mutate::describe(&flips)),
            flips: Some((seed.bitcode.clone(), flips)),
        }
    } else if roll < 80 {
        let (text, what) = mutate::edit_text(&seed.text, rng);
        text_input(tools, text, format!("{} edit {what}", seed.name), rng)
    } else {
        let i = rng.below(abuse::COUNT);
        let (name, src) = abuse::template(i, rng);
        match src {
            abuse::Source::Ir(text) => text_input(tools, text, format!("abuse {name}"), rng),
            abuse::Source::C(c) => {
                let level = if rng.chance(0.5) { "-O0" } else { "-O2" };
                match seeds::compile_c(tools, dir, &name, &c, level) {
                    Ok((bc, _)) => Input {
                        bytes: bc,
                        ext: "bc",
                        what: format!("abuse {name}{level}"),
                        flips: None,
                    },
                    // Not enz-rs's business: hand it the C compiler's view.
                    Err(e) => Input {
                        bytes: c.into_bytes(),
                        ext: "ll",
                        what: format!("abuse {name} (clang failed: {e})"),
                        flips: None,
                    },
                }
            }
        }
    }
}

/// Textual IR as given, or (half the time, when it assembles) as bitcode.
fn text_input(tools: &Tools, text: String, what: String, rng: &mut Rng) -> Input {
    if rng.chance(0.5) {
        if let Ok(bc) = assemble(tools, &text) {
            return Input {
                bytes: bc,
                ext: "bc",
                what: format!("{what} (as bitcode)"),
                flips: None,
            };
        }
    }
    Input {
        bytes: text.into_bytes(),
        ext: "ll",
        what,
        flips: None,
    }
}

/// Runs enz-rs on `bytes` in a fresh temp dir and classifies it.
fn run_bytes(
    tools: &Tools,
    bytes: &[u8],
    ext: &str,
    extra: &[&str],
) -> (Finished, Outcome, Option<String>) {
    let dir = tempfile::tempdir().expect("temp dir");
    let input = dir.path().join(format!("in.{ext}"));
    let output = dir.path().join("out.bc");
    std::fs::write(&input, bytes).expect("write input");
    let run = tools.enz(&input, &output, extra);
    let (o, d) = tools.classify_enz(&run, &output);
    (run, o, d)
}

/// What enz-rs says when its reading child died on the input: the hostile
/// bitcode LLVM's reader crashes, runs out of memory or loops on, now
/// contained as a diagnostic.
const CONTAINED: &str = "cannot be read: LLVM's reader ";

/// The group a case is kept under, `None` for cases not worth keeping:
/// every failure and internal error by its symptom, and diagnostics that
/// contain a reader crash as `contained-reader-<what>` (reproducers of the
/// bitcode-reader bugs, for the CLI tests).
fn keep_key(o: Outcome, run: &Finished, detail: Option<&str>) -> Option<String> {
    match o {
        Outcome::Ok => None,
        Outcome::Diagnostic => run.stderr.find(CONTAINED).map(|i| {
            let what = run.stderr[i + CONTAINED.len()..]
                .lines()
                .next()
                .unwrap_or("");
            format!("contained-reader-{}", slug(what, 40))
        }),
        _ => Some(symptom(o, run, detail)),
    }
}

/// Undoes every flip that the symptom does not need. Skipped for hangs
/// (each try would cost the whole time limit).
fn minimise(
    tools: &Tools,
    base: &[u8],
    flips: &[mutate::Flip],
    extra: &[&str],
    sym: &str,
) -> Vec<mutate::Flip> {
    let mut cur = flips.to_vec();
    let mut i = 0;
    while i < cur.len() && cur.len() > 1 {
        let mut cand = cur.clone();
        cand.remove(i);
        let (run, o, d) = run_bytes(tools, &mutate::apply(base, &cand), "bc", extra);
        if keep_key(o, &run, d.as_deref()).as_deref() == Some(sym) {
            cur = cand;
        } else {
            i += 1;
        }
    }
    cur
}

fn run_case(
    tools: &Tools,
    args: &CommonArgs,
    seeds: &[Seed],
    seed: u64,
) -> (Outcome, Option<String>) {
    let mut rng = Rng::new(seed, SALT);
    let Ok(dir) = tempfile::tempdir() else {
        return (
            Outcome::Harness,
            Some(format!("malformed-{seed}: harness: no temp dir")),
        );
    };
    let input = make_input(tools, seeds, &mut rng, dir.path());
    let level = format!("-O{}", rng.below(4));
    let mut extra = vec![level.as_str()];
    if args.no_inline || rng.chance(0.2) {
        extra.push("--no-inline");
    }
    let name = format!("malformed-{seed}");
    let (run, outcome, detail) = run_bytes(tools, &input.bytes, input.ext, &extra);
    let key = keep_key(outcome, &run, detail.as_deref());
    let note = match (&key, outcome) {
        (None, Outcome::Diagnostic) if args.verbose => Some(format!(
            "{name} [{} {}]: diagnostic: {}",
            input.what,
            extra.join(" "),
            run.stderr.lines().next().unwrap_or("")
        )),
        (None, _) => None,
        (Some(sym), _) => {
            let mut min_note = String::new();
            if let Some(keep) = &args.keep {
                keep_case(keep, sym, &name, &input.bytes, input.ext, &extra, &run);
                let slow = outcome == Outcome::Hang || sym.contains("did-not-finish");
                if let (Some((base, flips)), false) = (&input.flips, slow) {
                    let min = minimise(tools, base, flips, &extra, sym);
                    if min.len() < flips.len() {
                        let bytes = mutate::apply(base, &min);
                        let (r, _, _) = run_bytes(tools, &bytes, "bc", &extra);
                        keep_case(keep, sym, &format!("{name}-min"), &bytes, "bc", &extra, &r);
                        min_note = format!(" (minimal: {})", mutate::describe(&min));
                    }
                }
            }
            Some(format!(
                "{name} [{} {}]: {}: {sym}: {}{min_note}",
                input.what,
                extra.join(" "),
                outcome.name(),
                detail.unwrap_or_else(|| run.stderr.lines().next().unwrap_or("").to_string())
            ))
        }
    };
    (outcome, note)
}

/// Runs the campaign and returns its tally.
pub fn run(args: &CommonArgs) -> Summary {
    let tools = Tools::find(args.enz_rs.as_deref());
    let mut summary = Summary::new("malformed");
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            summary.add(Outcome::Harness, Some(format!("harness: no temp dir: {e}")));
            return summary;
        }
    };
    let (seeds, errors) = seeds::compile_all(&tools, dir.path());
    for e in errors {
        summary.notes.push(format!("harness: {e}"));
    }
    if seeds.is_empty() {
        summary.add(
            Outcome::Harness,
            Some("harness: no seed program compiled".into()),
        );
        return summary;
    }
    let jobs = args.jobs.unwrap_or_else(default_jobs);
    let results = parallel(args.count, jobs, |k| {
        run_case(&tools, args, &seeds, args.seed.wrapping_add(k))
    });
    summary.inputs = args.count;
    for (o, n) in results {
        summary.add(o, n);
    }
    if let Some(keep) = &args.keep {
        write_keep_summary(keep);
    }
    summary
}
