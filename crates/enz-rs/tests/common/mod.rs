//! Helpers shared by the integration tests that drive external tools
//! (clang, opt, llc, the programs they build): finding the LLVM 22 tools
//! and running a command with a timeout, reporting its output on failure.
// Each test binary uses its own subset of these helpers.
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Where Debian puts LLVM 22's tools.
pub const LLVM_BIN: &str = "/usr/lib/llvm-22/bin";
/// Generous: a hung tool or program must not hang the whole test run.
pub const STEP_TIMEOUT: Duration = Duration::from_secs(300);
/// How much of a command's output goes into a failure message.
pub const MAX_OUTPUT: usize = 12_000;

/// `$env`, else `versioned` on PATH, else `/usr/lib/llvm-22/bin/<plain>`.
pub fn find_tool(env: &str, versioned: &str, plain: &str) -> PathBuf {
    if let Some(p) = std::env::var_os(env) {
        return PathBuf::from(p);
    }
    if let Some(path) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path) {
            let cand = dir.join(versioned);
            if cand.is_file() {
                return cand;
            }
        }
    }
    Path::new(LLVM_BIN).join(plain)
}

pub struct Output {
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` with a timeout; Err (with the command and its output) unless
/// it exits 0.
pub fn run(cmd: &mut Command, what: &str) -> Result<Output, String> {
    let shown = show(cmd);
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot {what}: cannot start {shown}: {e}"))?;
    // Drain both pipes on threads so a chatty child cannot block.
    let mut so = child.stdout.take().unwrap();
    let mut se = child.stderr.take().unwrap();
    let t_out = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = so.read_to_end(&mut b);
        b
    });
    let t_err = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = se.read_to_end(&mut b);
        b
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() > STEP_TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("cannot {what}: waiting for {shown}: {e}")),
        }
    };
    let out = Output {
        stdout: String::from_utf8_lossy(&t_out.join().unwrap_or_default()).into_owned(),
        stderr: String::from_utf8_lossy(&t_err.join().unwrap_or_default()).into_owned(),
    };
    let verdict = match status {
        None => format!("timed out after {}s", STEP_TIMEOUT.as_secs()),
        Some(s) if s.success() => return Ok(out),
        Some(s) => format!("failed ({s})"),
    };
    Err(format!(
        "cannot {what}: {verdict}\ncommand: {shown}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        tail(&out.stdout),
        tail(&out.stderr)
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
