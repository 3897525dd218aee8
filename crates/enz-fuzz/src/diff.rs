//! The `diff` campaign: random self-checking C programs whose gradients
//! (reverse, forward, vector forward and split mode) are compared with
//! central finite differences, each program compiled at -O0..-O3 and
//! differentiated by enz-rs (also with `--no-inline` when asked).
//!
//! Program k uses seed `args.seed + k` ([`gen::generate`]); one case is one
//! (program, level, inline mode). A program that clang rejects, or one with
//! no usable point, is a generator defect and only noted. With `--keep`, a
//! failing program is written there as `diff_seed<S>.c`, and a
//! statement-level shrink of it ([`shrink::shrink`]) as `diff_seed<S>_min.c`;
//! both include `check.h` like the `c_tests` fixtures. The environment
//! variable `ENZ_FUZZ_DUMP=<dir>` writes every generated program there.

pub mod ast;
pub mod gen;
pub mod render;
pub mod shrink;

use crate::exec::{default_jobs, parallel, run_limited, run_with_timeout, Finished};
use crate::outcome::{Outcome, Summary};
use crate::tools::Tools;
use crate::CommonArgs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Time limit of one generated program.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(10);
/// Exit status of a generated program that found no usable point.
pub const EXIT_NO_POINT: i32 = 77;

/// One configuration of a case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Config {
    pub level: u8,
    pub no_inline: bool,
    /// Compiled with fast-math and AVX2/FMA as well (vectorised
    /// reductions reassociated, contracted multiply-adds).
    pub fast: bool,
}

/// clang's flags for a fast-math configuration, on top of `-O<level>`.
const FAST_MATH_FLAGS: [&str; 3] = ["-ffast-math", "-fno-finite-math-only", "-march=x86-64-v3"];

impl Config {
    /// Whether the program is compiled with debug information: at -O1 and
    /// -O3, so that derivatives are made both with and without it (their
    /// subprograms and inlined locations must verify).
    fn debug_info(self) -> bool {
        self.level % 2 == 1
    }

    fn label(self) -> String {
        format!(
            "O{}{}{}{}",
            self.level,
            if self.debug_info() { " -g" } else { "" },
            if self.fast { " fast-math" } else { "" },
            if self.no_inline { " no-inline" } else { "" }
        )
    }

    /// What clang compiles the program with.
    fn clang_flags(self) -> Vec<String> {
        let mut v = vec![format!("-O{}", self.level)];
        if self.debug_info() {
            v.push("-g".to_string());
        }
        if self.fast {
            v.extend(FAST_MATH_FLAGS.iter().map(|s| s.to_string()));
        }
        v
    }
}

/// What one case gave: the outcome, a detail for anything but ok,
/// whether the program ran without a usable point, and how many values
/// it compared with finite differences.
#[derive(Clone, Debug)]
pub struct CaseResult {
    pub outcome: Outcome,
    pub detail: Option<String>,
    pub vacuous: bool,
    pub checks: u64,
}

/// Where `check.h` is.
fn c_tests_dir(tools: &Tools) -> PathBuf {
    tools.include.join("../../c_tests")
}

/// Compiles `src` at `level` to bitcode; Err(stderr) when clang rejects it.
pub fn compile(tools: &Tools, src: &Path, cfg: Config, out: &Path) -> Result<(), String> {
    let f = run_with_timeout(
        Command::new(&tools.clang)
            .args(cfg.clang_flags())
            .args(["-c", "-emit-llvm", "-I"])
            .arg(&tools.include)
            .arg("-I")
            .arg(c_tests_dir(tools))
            .arg(src)
            .arg("-o")
            .arg(out),
        Duration::from_secs(120),
    );
    if f.success() {
        Ok(())
    } else {
        Err(first_lines(&f.stderr, 3))
    }
}

fn first_lines(s: &str, n: usize) -> String {
    s.lines().take(n).collect::<Vec<_>>().join(" | ")
}

/// Differentiates `bc` (already compiled at the config's level), links and
/// runs the result; `dir` is a scratch directory.
pub fn run_case(tools: &Tools, bc: &Path, cfg: Config, dir: &Path) -> CaseResult {
    let tag = format!("O{}{}", cfg.level, if cfg.no_inline { "n" } else { "" });
    let out = dir.join(format!("out_{tag}.bc"));
    let exe = dir.join(format!("exe_{tag}"));
    let _ = std::fs::remove_file(&out);
    let extra: &[&str] = if cfg.no_inline { &["--no-inline"] } else { &[] };
    let run = tools.enz(bc, &out, extra);
    let (o, d) = tools.classify_enz(&run, &out);
    if o != Outcome::Ok {
        return CaseResult {
            outcome: o,
            detail: Some(d.unwrap_or_else(|| first_lines(&run.stderr, 2))),
            vacuous: false,
            checks: 0,
        };
    }
    let link = run_with_timeout(
        Command::new(&tools.clang)
            .arg(&out)
            .arg("-lm")
            .arg("-o")
            .arg(&exe),
        Duration::from_secs(120),
    );
    if !link.success() {
        return CaseResult {
            outcome: Outcome::Wrong,
            detail: Some(format!("link failed: {}", first_lines(&link.stderr, 3))),
            vacuous: false,
            checks: 0,
        };
    }
    let r = run_limited(&exe, &[], Some(dir), RUN_TIMEOUT, 4096);
    classify_run(&r)
}

/// `N` of the `N checks, M failed` line `check_report` prints last.
pub fn reported_checks(stdout: &str) -> Option<u64> {
    stdout
        .lines()
        .rev()
        .find_map(|l| l.strip_suffix(" failed")?.split_once(" checks, "))
        .and_then(|(n, _)| n.trim().parse().ok())
}

fn classify_run(r: &Finished) -> CaseResult {
    let checks = reported_checks(&r.stdout).unwrap_or(0);
    let res = |outcome, detail: Option<String>, vacuous| CaseResult {
        outcome,
        detail,
        vacuous,
        checks,
    };
    if r.timed_out {
        return res(
            Outcome::Hang,
            Some("the program ran past 10 s".into()),
            false,
        );
    }
    match r.code {
        Some(0) if checks > 0 => res(Outcome::Ok, None, false),
        Some(0) => res(
            Outcome::Wrong,
            Some("the program exited 0 without reporting its checks".into()),
            false,
        ),
        Some(EXIT_NO_POINT) => res(Outcome::Ok, None, true),
        code => {
            let fails: Vec<&str> = r
                .stdout
                .lines()
                .filter(|l| l.starts_with("FAIL"))
                .take(2)
                .collect();
            let what = if fails.is_empty() {
                format!(
                    "exit {code:?} signal {:?}: {}",
                    r.signal,
                    first_lines(&r.stderr, 2)
                )
            } else {
                fails.join(" | ")
            };
            res(Outcome::Wrong, Some(what), false)
        }
    }
}

/// The configurations of one program: -O0..-O3, each also with
/// `--no-inline` when asked, and -O3 with fast-math when asked.
pub fn configs(no_inline: bool, fast: bool) -> Vec<Config> {
    let mut v = Vec::new();
    let levels = (0..4u8)
        .map(|l| (l, false))
        .chain(fast.then_some((3, true)));
    for (level, fast) in levels {
        v.push(Config {
            level,
            no_inline: false,
            fast,
        });
        if no_inline {
            v.push(Config {
                level,
                no_inline: true,
                fast,
            });
        }
    }
    v
}

/// The header comment of a written program.
fn header(seed: u64, name: &str, what: &str) -> String {
    format!(
        "{name}: generated by `enz-fuzz diff --seed {seed} --count 1` (crates/enz-fuzz/src/diff).\n\
         {what}\n\
         fz_f(x, a, b, n) is differentiated in every mode main checks; fz_f_ref is the same\n\
         function in double, instrumented, whose central finite differences are the reference\n\
         (points near a kink are skipped; exit 77: no usable point)."
    )
}

struct ProgramResult {
    cases: Vec<(Outcome, Option<String>)>,
    notes: Vec<String>,
    /// Values compared with finite differences, over all its cases.
    checks: u64,
    /// Cases that found no usable point.
    vacuous: u64,
}

fn run_program(tools: &Tools, args: &CommonArgs, seed: u64) -> ProgramResult {
    let mut res = ProgramResult {
        cases: Vec::new(),
        notes: Vec::new(),
        checks: 0,
        vacuous: 0,
    };
    let prog = gen::generate(seed);
    let src_text = render::render(&prog, &header(seed, &format!("diff_seed{seed}.c"), ""));
    let dir = match tempfile::tempdir() {
        Ok(d) => d,
        Err(e) => {
            res.notes.push(format!("seed={seed}: no temp dir: {e}"));
            return res;
        }
    };
    let src = dir.path().join("prog.c");
    if std::fs::write(&src, &src_text).is_err() {
        res.notes
            .push(format!("seed={seed}: cannot write the program"));
        return res;
    }
    if let Some(d) = std::env::var_os("ENZ_FUZZ_DUMP") {
        let _ = std::fs::create_dir_all(&d);
        let _ = std::fs::write(Path::new(&d).join(format!("diff_seed{seed}.c")), &src_text);
    }
    let mut vacuous = false;
    let mut first_failure: Option<(Config, Outcome, String)> = None;
    let all = configs(args.no_inline, args.fast_math);
    // One compile per (level, fast-math), shared by its configurations.
    for first in all.iter().filter(|c| !c.no_inline) {
        let (level, fast) = (first.level, first.fast);
        let bc = dir
            .path()
            .join(format!("in_O{level}{}.bc", if fast { "f" } else { "" }));
        if let Err(e) = compile(tools, &src, *first, &bc) {
            res.notes.push(format!(
                "seed={seed} {}: generator bug: clang rejects the program: {e}",
                first.label()
            ));
            continue;
        }
        for cfg in all
            .iter()
            .copied()
            .filter(|c| c.level == level && c.fast == fast)
        {
            let r = run_case(tools, &bc, cfg, dir.path());
            vacuous |= r.vacuous;
            res.vacuous += u64::from(r.vacuous);
            res.checks += r.checks;
            let note = if r.outcome == Outcome::Ok {
                None
            } else {
                let d = r.detail.clone().unwrap_or_default();
                if r.outcome.is_failure() && first_failure.is_none() {
                    first_failure = Some((cfg, r.outcome, d.clone()));
                }
                Some(format!(
                    "seed={seed} {}: {}: {d}",
                    cfg.label(),
                    r.outcome.name()
                ))
            };
            res.cases.push((r.outcome, note));
        }
    }
    if vacuous {
        res.notes.push(format!(
            "seed={seed}: generator: no usable point (the checks were skipped)"
        ));
    }
    if let (Some((cfg, outcome, detail)), Some(keep)) = (first_failure, &args.keep) {
        keep_failure(tools, keep, &prog, cfg, outcome, &detail, &mut res.notes);
    }
    res
}

/// Writes the failing program and its shrunk version to `keep`.
fn keep_failure(
    tools: &Tools,
    keep: &Path,
    prog: &gen::Program,
    cfg: Config,
    outcome: Outcome,
    detail: &str,
    notes: &mut Vec<String>,
) {
    let seed = prog.seed;
    let _ = std::fs::create_dir_all(keep);
    let what = format!(
        "Failed at {}{}: {}: {}",
        cfg.clang_flags().join(" "),
        if cfg.no_inline {
            " with enz-rs --no-inline"
        } else {
            ""
        },
        outcome.name(),
        detail
    );
    let name = format!("diff_seed{seed}.c");
    let _ = std::fs::write(
        keep.join(&name),
        render::render(prog, &header(seed, &name, &what)),
    );
    let min = shrink::shrink(prog, |p| still_fails(tools, p, cfg, outcome));
    let name = format!("diff_seed{seed}_min.c");
    let what = format!("{what}\nShrunk by statement removal; it still fails the same way.");
    let _ = std::fs::write(
        keep.join(&name),
        render::render(&min, &header(seed, &name, &what)),
    );
    notes.push(format!(
        "seed={seed}: kept {} and {name}",
        keep.join(format!("diff_seed{seed}.c")).display()
    ));
}

/// Whether `p` still gives `outcome` in `cfg`.
pub fn still_fails(tools: &Tools, p: &gen::Program, cfg: Config, outcome: Outcome) -> bool {
    let Ok(dir) = tempfile::tempdir() else {
        return false;
    };
    let src = dir.path().join("prog.c");
    if std::fs::write(&src, render::render(p, "shrinking")).is_err() {
        return false;
    }
    let bc = dir.path().join("in.bc");
    if compile(tools, &src, cfg, &bc).is_err() {
        return false;
    }
    run_case(tools, &bc, cfg, dir.path()).outcome == outcome
}

/// Runs the campaign and returns its tally.
pub fn run(args: &CommonArgs) -> Summary {
    let tools = Tools::find(args.enz_rs.as_deref());
    let jobs = args.jobs.unwrap_or_else(default_jobs);
    let results = parallel(args.count, jobs, |k| {
        run_program(&tools, args, args.seed.wrapping_add(k))
    });
    let mut s = Summary::new("diff");
    for r in results {
        s.inputs += 1;
        s.checks += r.checks;
        s.vacuous += r.vacuous;
        for (o, note) in r.cases {
            s.add(o, note);
        }
        s.notes.extend(r.notes);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::reported_checks;

    #[test]
    fn reads_the_check_count_of_check_report() {
        let out = "ok   [point 0] rev dx[0]: got 1 want 1\n14 checks, 0 failed\n";
        assert_eq!(reported_checks(out), Some(14));
        assert_eq!(reported_checks("3 checks, 2 failed\n"), Some(3));
        assert_eq!(reported_checks("no usable point\n"), None);
        assert_eq!(reported_checks(""), None);
    }
}
