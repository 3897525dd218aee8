//! Helpers shared by the integration tests that drive external tools
//! (clang, opt, llc, the programs they build): finding the LLVM 22 tools
//! and running a command with a timeout, reporting its output on failure.
// Each test binary uses its own subset of these helpers.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

/// Generous: a hung tool or program must not hang the whole test run.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(300);
/// How much of a command's output goes into a failure message.
pub const MAX_OUTPUT: usize = 12_000;

/// `$env`, else `versioned` on PATH, else `/usr/lib/llvm-22/bin/<plain>`.
pub fn find_tool(env: &str, versioned: &str, plain: &str) -> PathBuf {
    match std::env::var_os(env) {
        Some(p) => PathBuf::from(p),
        None => enz_fuzz::tools::llvm_tool(versioned, plain),
    }
}

pub struct Output {
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` with a timeout; Err (with the command and its output) unless
/// it exits 0.
pub fn run(cmd: &mut Command, what: &str) -> Result<Output, String> {
    let shown = show(cmd);
    let started = std::time::Instant::now();
    let done = enz_fuzz::exec::run_with_timeout(cmd, STEP_TIMEOUT);
    log_time(what, started.elapsed());
    let verdict = if done.timed_out {
        format!("timed out after {}s", STEP_TIMEOUT.as_secs())
    } else if done.success() {
        return Ok(Output {
            stdout: done.stdout,
            stderr: done.stderr,
        });
    } else {
        match (done.code, done.signal) {
            (Some(127), _) if done.stderr.starts_with("cannot start") => {
                done.stderr.trim().to_string()
            }
            (Some(c), _) => format!("failed (exit status: {c})"),
            (None, Some(sig)) => format!("failed (signal: {sig})"),
            (None, None) => "failed".to_string(),
        }
    };
    Err(format!(
        "cannot {what}: {verdict}\ncommand: {shown}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        tail(&done.stdout),
        tail(&done.stderr)
    ))
}

pub fn show(cmd: &Command) -> String {
    let mut s = cmd.get_program().to_string_lossy().into_owned();
    for a in cmd.get_args() {
        s.push(' ');
        s.push_str(&a.to_string_lossy());
    }
    s
}

/// The last MAX_OUTPUT bytes of `s` (failing checks print near the end).
pub fn tail(s: &str) -> &str {
    if s.len() <= MAX_OUTPUT {
        return s;
    }
    let mut start = s.len() - MAX_OUTPUT;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// Extra enz-rs arguments from `// enz-args: ...` lines of a fixture.
pub fn fixture_enz_args(source: &str) -> Vec<String> {
    fixture_directive(source, "enz-args")
}

/// The words of a fixture's `// NAME: ...` lines, in order.
pub fn fixture_directive(source: &str, name: &str) -> Vec<String> {
    let prefix = format!("// {name}:");
    source
        .lines()
        .filter_map(|l| l.trim().strip_prefix(prefix.as_str()))
        .flat_map(|rest| rest.split_whitespace().map(str::to_owned))
        .collect()
}

/// Whether a fixture has a line `// NAME` (alone, or followed by `:` and
/// words or by a space and a comment): a directive without arguments.
pub fn fixture_flag(source: &str, name: &str) -> bool {
    let prefix = format!("// {name}");
    source.lines().any(|l| {
        l.trim()
            .strip_prefix(prefix.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with([':', ' ']))
    })
}

/// The plugin route's spelling of `args` (`--cache-budget X`,
/// `--mode-per-loop X`): the environment the plugin's shim reads
/// (`ENZ_RS_CACHE_BUDGET`, `ENZ_RS_MODE_PER_LOOP`), set on `cmd`.
pub fn plugin_env_of_args(cmd: &mut std::process::Command, args: &[String]) {
    for (flag, var) in [
        ("--cache-budget", "ENZ_RS_CACHE_BUDGET"),
        ("--mode-per-loop", "ENZ_RS_MODE_PER_LOOP"),
        ("--gpu-thread-cache", "ENZ_RS_GPU_THREAD_CACHE"),
    ] {
        if let Some(value) = args
            .iter()
            .position(|a| a == flag)
            .and_then(|k| args.get(k + 1))
        {
            cmd.env(var, value);
        }
    }
}

std::thread_local! {
    /// The trial this thread runs, for `log_time`.
    static TRIAL: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Names the trial whose steps this thread now runs (see `log_time`).
pub fn set_trial(name: &str) {
    TRIAL.with(|t| name.clone_into(&mut t.borrow_mut()));
}

/// With `ENZ_TEST_TIMES=FILE` set, appends `trial<TAB>step<TAB>seconds`
/// to FILE (every command `run` runs is a step): where a suite's time goes.
pub fn log_time(step: &str, took: Duration) {
    use std::io::Write;
    let Some(file) = std::env::var_os("ENZ_TEST_TIMES") else {
        return;
    };
    let line = TRIAL.with(|t| format!("{}\t{step}\t{:.4}\n", t.borrow(), took.as_secs_f64()));
    // One write of one short line: lines of concurrent trials do not mix.
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)
    {
        let _ = f.write_all(line.as_bytes());
    }
}
