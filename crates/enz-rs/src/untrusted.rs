//! Reading untrusted input safely: LLVM's bitcode reader runs in this
//! process, and hostile bytes can make it crash (segfault, `LLVM ERROR: out
//! of memory`) or allocate without bound. So a child process (this
//! executable with `--read-check`) first parses and verifies the input
//! under an address-space and a time limit; only an input the child read
//! cleanly is parsed here. A child that dies, runs out of memory or time
//! becomes an ordinary diagnostic (exit 1, no output).

use enz_enzyme_api::inkwell::context::Context;
use enz_enzyme_api::Diagnostic;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// Address space the reading child may use, before the allowance per
/// input byte: far above what a valid small module needs.
const BASE_MEMORY: u64 = 2 << 30;
/// Extra address space per byte of input (bitcode expands when read).
const MEMORY_PER_BYTE: u64 = 64;
/// Time the reading child may take, before the allowance per MiB.
const BASE_TIME: Duration = Duration::from_secs(10);
/// Extra time per MiB of input.
const TIME_PER_MIB: Duration = Duration::from_secs(1);

/// The limits for an input of `len` bytes: (address space, time).
fn limits(len: u64) -> (u64, Duration) {
    let memory = BASE_MEMORY.saturating_add(len.saturating_mul(MEMORY_PER_BYTE));
    let time = BASE_TIME + TIME_PER_MIB * u32::try_from(len >> 20).unwrap_or(u32::MAX / 2);
    (memory, time)
}

/// Runs the reading child on `path`; `Ok` when it parsed and verified the
/// input, else the diagnostic to report.
pub(crate) fn check_in_child(path: &Path) -> Result<(), Diagnostic> {
    let len = std::fs::metadata(path)
        .map_err(|e| Diagnostic::new(format!("cannot read input file `{}`: {e}", path.display())))?
        .len();
    let (_, time) = limits(len);
    let exe = std::env::current_exe().map_err(|e| {
        Diagnostic::internal(format_args!(
            "cannot find the enz-rs executable to read `{}` safely: {e}",
            path.display()
        ))
    })?;
    let mut child = Command::new(exe)
        .arg("--read-check")
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Diagnostic::internal(format_args!(
                "cannot start a process to read `{}` safely: {e}",
                path.display()
            ))
        })?;
    let mut stderr = child.stderr.take().expect("piped stderr");
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let start = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if start.elapsed() > time => {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => break None,
        }
    };
    let text = reader.join().unwrap_or_default();
    let unreadable = |what: String| {
        Diagnostic::new(format!(
            "`{}` cannot be read: LLVM's reader {what}",
            path.display()
        ))
        .help("the file is corrupt, truncated or not LLVM 22 bitcode or IR; regenerate it (e.g. clang-22 -c -emit-llvm)")
    };
    use std::os::unix::process::ExitStatusExt;
    match status {
        None => Err(unreadable(format!(
            "did not finish within {} s",
            time.as_secs()
        ))),
        Some(s) if s.success() => Ok(()),
        // The child's own diagnostic: pass it on as it is.
        Some(s) if s.code() == Some(1) && text.starts_with("error: ") => {
            let msg = text.trim_end().trim_start_matches("error: ");
            Err(Diagnostic::new(msg.to_string()))
        }
        Some(s) => {
            let what = match (s.signal(), text.contains("out of memory")) {
                (_, true) => "ran out of memory".to_string(),
                (Some(sig), _) => format!("crashed (signal {sig})"),
                (None, _) => {
                    let first = text.lines().next().unwrap_or("").trim();
                    format!("failed (exit {}): {first}", s.code().unwrap_or(-1))
                }
            };
            Err(unreadable(what))
        }
    }
}

/// The child's side: cap memory, parse and verify, report, exit 0 or 1.
pub(crate) fn read_check_child(path: &Path) -> ExitCode {
    let len = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    let (memory, _) = limits(len);
    // Without the cap the child still protects the parent from crashes.
    let _ = enz_enzyme_api::limit_address_space(memory);
    let context = Context::create();
    let result = crate::read_module(&context, path).and_then(|m| {
        m.verify().map_err(|e| {
            Diagnostic::new(format!(
                "`{}` is not a valid LLVM module: {}",
                path.display(),
                e.to_string().trim()
            ))
        })
    });
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(d) => {
            let _ = writeln!(std::io::stderr(), "{d}");
            ExitCode::from(1)
        }
    }
}
