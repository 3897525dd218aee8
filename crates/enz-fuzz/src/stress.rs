//! The `stress` campaign: llvm-stress modules wrapped in a driver that
//! calls `__enzyme_autodiff` / `__enzyme_fwddiff` on the generated function.
//!
//! Seed S generates `llvm-stress-22 --seed=S --size=N` (N varies with S,
//! some seeds add `--enable-scalable-vectors`, some retype `double` or
//! `float` to half/bfloat/fp128/x86_fp80/ppc_fp128 when the result still
//! assembles), appends a driver (see [`wrap`]) once per mode, assembles it
//! with llvm-as and runs enz-rs at a random -O level (`--no-inline` on
//! some seeds, or on all with `--no-inline`). Each module gives two cases,
//! reverse and forward, classified by [`Tools::classify_enz`]. Internal
//! errors and failures are noted; with `--keep DIR` every case that is
//! neither ok nor a diagnostic is kept under `DIR/<symptom>/` with its
//! stderr, and `DIR/SUMMARY.txt` names the smallest input per symptom.

pub mod common;
pub mod wrap;

use crate::exec::{default_jobs, parallel, run_with_timeout};
use crate::outcome::{Outcome, Summary};
use crate::tools::Tools;
use crate::CommonArgs;
use common::{keep_case, symptom, write_keep_summary, Rng};
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use wrap::{driver, retype, signature, Mode, RETYPES};

/// Salt so that stress seeds draw differently from other campaigns'.
const SALT: u64 = 0x5757_2E55;

/// Module sizes (llvm-stress `--size`), small ones more often: a failure
/// in a small module is easier to read.
const SIZES: [u32; 12] = [4, 8, 12, 20, 32, 50, 80, 128, 200, 400, 800, 1600];

/// One generated module, before wrapping.
struct Generated {
    text: String,
    desc: String,
}

fn generate(tools: &Tools, seed: u64, rng: &mut Rng) -> Result<Generated, String> {
    let size = *rng.pick(&SIZES);
    let scalable = rng.chance(0.12);
    let mut cmd = Command::new(&tools.llvm_stress);
    cmd.arg(format!("--seed={}", seed & 0xFFFF_FFFF))
        .arg(format!("--size={size}"));
    if scalable {
        cmd.arg("--enable-scalable-vectors");
    }
    let r = run_with_timeout(&mut cmd, Duration::from_secs(60));
    if !r.success() {
        return Err(format!("llvm-stress failed: {}", r.stderr.trim()));
    }
    let mut desc = format!("size={size}{}", if scalable { " scalable" } else { "" });
    let mut text = r.stdout;
    if rng.chance(0.2) {
        let from = if rng.chance(0.5) { "double" } else { "float" };
        let to = *rng.pick(&RETYPES);
        let cand = retype(&text, from, to);
        if assemble(tools, &cand).is_ok() {
            text = cand;
            let _ = std::fmt::Write::write_fmt(&mut desc, format_args!(" {from}->{}", to.0));
        }
    }
    if rng.chance(0.35) {
        // Users differentiate optimised IR: give enz-rs what clang -O1..3
        // would have made of the function.
        let level = rng.range(1, 3);
        match optimise(tools, &text, level) {
            Ok(t) => {
                text = t;
                let _ = std::fmt::Write::write_fmt(&mut desc, format_args!(" opt-O{level}"));
            }
            Err(e) => {
                let _ = std::fmt::Write::write_fmt(&mut desc, format_args!(" (opt failed: {e})"));
            }
        }
    } else if rng.chance(0.2) {
        // What clang -O0 emits: optnone noinline.
        if let Some(i) = text.find("define ") {
            if let Some(j) = text[i..].find(" {") {
                text.insert_str(i + j, " noinline optnone");
                desc.push_str(" optnone");
            }
        }
    }
    Ok(Generated { text, desc })
}

/// `opt-22 -passes=default<O{level}>` on textual IR.
fn optimise(tools: &Tools, text: &str, level: usize) -> Result<String, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let ll = dir.path().join("in.ll");
    let out = dir.path().join("out.ll");
    std::fs::write(&ll, text).map_err(|e| e.to_string())?;
    let r = run_with_timeout(
        Command::new(&tools.opt)
            .arg(format!("-passes=default<O{level}>"))
            .arg("-S")
            .arg(&ll)
            .arg("-o")
            .arg(&out),
        Duration::from_secs(60),
    );
    if !r.success() {
        return Err(r.stderr.lines().next().unwrap_or("").to_string());
    }
    std::fs::read_to_string(&out).map_err(|e| e.to_string())
}

/// Textual IR -> bitcode bytes (llvm-as, through a temp dir).
pub fn assemble(tools: &Tools, text: &str) -> Result<Vec<u8>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let ll = dir.path().join("in.ll");
    let bc = dir.path().join("in.bc");
    std::fs::write(&ll, text).map_err(|e| e.to_string())?;
    let r = run_with_timeout(
        Command::new(&tools.llvm_as).arg(&ll).arg("-o").arg(&bc),
        Duration::from_secs(60),
    );
    if !r.success() {
        return Err(r.stderr.lines().next().unwrap_or("").to_string());
    }
    std::fs::read(&bc).map_err(|e| e.to_string())
}

/// What one case gave.
struct CaseResult {
    outcome: Outcome,
    note: Option<String>,
}

fn run_mode(
    tools: &Tools,
    args: &CommonArgs,
    seed: u64,
    g: &Generated,
    mode: Mode,
    rng: &mut Rng,
) -> CaseResult {
    let name = format!("stress-{seed}-{}", mode.name());
    let Some(mut sig) = signature(&g.text) else {
        return CaseResult {
            outcome: Outcome::Harness,
            note: Some(format!("{name}: harness: no define in llvm-stress output")),
        };
    };
    // Some seeds differentiate a wrapper that calls the generated function
    // once or twice, so that it is a callee (inlined, or with its own
    // derivative under --no-inline).
    let mut wrapper = String::new();
    if rng.chance(0.25) {
        wrapper = wrap::wrapper(&sig, if rng.chance(0.5) { 1 } else { 2 });
        sig.name = "enz_stress_wrap".into();
    }
    let (drv, mut ddesc) = driver(&sig, mode, rng);
    if !wrapper.is_empty() {
        ddesc.push_str(" via-wrapper");
    }
    let text = format!("{}{wrapper}{drv}", g.text);
    let level = format!("-O{}", rng.below(4));
    let no_inline = args.no_inline || rng.chance(0.25);
    let mut extra = vec![level.as_str()];
    if no_inline {
        extra.push("--no-inline");
    }
    if rng.chance(0.1) {
        extra.push("--no-preopt");
    }
    let config = format!("{} {ddesc} {}", g.desc, extra.join(" "));
    let bc = match assemble(tools, &text) {
        Ok(b) => b,
        Err(e) => {
            // The driver is ours: an llvm-as failure is a harness bug, not
            // an enz-rs one. Say so loudly instead of hiding it.
            return CaseResult {
                outcome: Outcome::Harness,
                note: Some(format!(
                    "{name} [{config}]: harness: llvm-as rejected the wrapped module: {e}"
                )),
            };
        }
    };
    let Ok(dir) = tempfile::tempdir() else {
        return CaseResult {
            outcome: Outcome::Harness,
            note: Some(format!("{name}: harness: no temp dir")),
        };
    };
    let input = dir.path().join("in.bc");
    let output = dir.path().join("out.bc");
    if std::fs::write(&input, &bc).is_err() {
        return CaseResult {
            outcome: Outcome::Harness,
            note: Some(format!("{name}: harness: cannot write input")),
        };
    }
    let run = tools.enz(&input, &output, &extra);
    let (outcome, detail) = tools.classify_enz(&run, &output);
    let note = match outcome {
        Outcome::Ok => None,
        Outcome::Diagnostic if args.verbose => Some(format!(
            "{name} [{config}]: diagnostic: {}",
            run.stderr.lines().next().unwrap_or("")
        )),
        Outcome::Diagnostic => None,
        _ => {
            let sym = symptom(outcome, &run, detail.as_deref());
            if let Some(keep) = &args.keep {
                keep_case(keep, &sym, &name, text.as_bytes(), "ll", &extra, &run);
            }
            Some(format!(
                "{name} [{config}]: {}: {sym}: {}",
                outcome.name(),
                detail.unwrap_or_default()
            ))
        }
    };
    CaseResult { outcome, note }
}

fn run_seed(tools: &Tools, args: &CommonArgs, seed: u64) -> Vec<CaseResult> {
    let mut rng = Rng::new(seed, SALT);
    let g = match generate(tools, seed, &mut rng) {
        Ok(g) => g,
        Err(e) => {
            return vec![CaseResult {
                outcome: Outcome::Harness,
                note: Some(format!("stress-{seed}: harness: {e}")),
            }]
        }
    };
    [Mode::Reverse, Mode::Forward]
        .into_iter()
        .map(|m| run_mode(tools, args, seed, &g, m, &mut rng))
        .collect()
}

/// Runs the campaign and returns its tally.
pub fn run(args: &CommonArgs) -> Summary {
    let tools = Tools::find(args.enz_rs.as_deref());
    let jobs = args.jobs.unwrap_or_else(default_jobs);
    let results = parallel(args.count, jobs, |k| {
        run_seed(&tools, args, args.seed.wrapping_add(k))
    });
    let mut summary = Summary::new("stress");
    summary.inputs = args.count;
    for cases in results {
        for c in cases {
            summary.add(c.outcome, c.note);
        }
    }
    if let Some(keep) = &args.keep {
        write_keep_summary(Path::new(keep));
    }
    summary
}
