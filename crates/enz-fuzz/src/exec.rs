//! Running a child process with a time limit and an address-space limit,
//! and running many cases on a pool of threads.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How a limited child ended.
#[derive(Debug, Clone)]
pub struct Finished {
    /// Exit code, `None` when killed by a signal (or by the time limit).
    pub code: Option<i32>,
    /// Signal number when killed by one.
    pub signal: Option<i32>,
    /// Whether the time limit killed it.
    pub timed_out: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Finished {
    /// Exit code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }
}

/// Runs `program args...` with stdin closed, at most `timeout`, and at
/// most `mem_mb` MiB of address space (through the shell's `ulimit -v`, so
/// no unsafe code is needed here). Output is captured.
pub fn run_limited(
    program: &std::path::Path,
    args: &[&std::ffi::OsStr],
    cwd: Option<&std::path::Path>,
    timeout: Duration,
    mem_mb: u64,
) -> Finished {
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(format!("ulimit -v {}; exec \"$0\" \"$@\"", mem_mb * 1024))
        .arg(program)
        .args(args);
    if let Some(d) = cwd {
        cmd.current_dir(d);
    }
    run_with_timeout(&mut cmd, timeout)
}

/// Runs `cmd` (stdin closed, output captured), killing it after `timeout`.
pub fn run_with_timeout(cmd: &mut Command, timeout: Duration) -> Finished {
    use std::os::unix::process::ExitStatusExt;
    let mut child = match cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            return Finished {
                code: Some(127),
                signal: None,
                timed_out: false,
                stdout: String::new(),
                stderr: format!("cannot start {:?}: {e}", cmd.get_program()),
            }
        }
    };
    let so = child.stdout.take().unwrap();
    let se = child.stderr.take().unwrap();
    // Each reader says when its pipe closed, which is when the child
    // exits (or closes it): waiting for that instead of polling the child
    // every 5 ms saves the poll's 2.5 ms on average per command, which
    // the test suites (thousands of short clang, enz-rs, opt and
    // program runs) pay on every step.
    let (closed_tx, closed) = std::sync::mpsc::channel::<()>();
    let read_all = |mut pipe: Box<dyn Read + Send>, closed: std::sync::mpsc::Sender<()>| {
        std::thread::spawn(move || {
            let mut b = Vec::new();
            let _ = pipe.read_to_end(&mut b);
            let _ = closed.send(());
            b
        })
    };
    let t_out = read_all(Box::new(so), closed_tx.clone());
    let t_err = read_all(Box::new(se), closed_tx);
    let start = Instant::now();
    for _ in 0..2 {
        if closed
            .recv_timeout(timeout.saturating_sub(start.elapsed()))
            .is_err()
        {
            break;
        }
    }
    let mut timed_out = false;
    // Short sleeps first: with both pipes closed the child has exited
    // or is exiting.
    let mut pause = Duration::from_micros(100);
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Some(s),
            Ok(None) if start.elapsed() > timeout => {
                timed_out = true;
                let _ = child.kill();
                break child.wait().ok();
            }
            Ok(None) => {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(5));
            }
            Err(_) => break None,
        }
    };
    let stdout = String::from_utf8_lossy(&t_out.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&t_err.join().unwrap_or_default()).into_owned();
    Finished {
        code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| s.signal()),
        timed_out,
        stdout,
        stderr,
    }
}

/// Runs `case(k)` for k in `0..count` on `jobs` threads; results come back
/// in index order.
pub fn parallel<T: Send>(count: u64, jobs: usize, case: impl Fn(u64) -> T + Sync) -> Vec<T> {
    let next = AtomicU64::new(0);
    let results: Mutex<Vec<(u64, T)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::Relaxed);
                if k >= count {
                    break;
                }
                let r = case(k);
                results.lock().unwrap().push((k, r));
            });
        }
    });
    let mut v = results.into_inner().unwrap();
    v.sort_by_key(|(k, _)| *k);
    v.into_iter().map(|(_, r)| r).collect()
}

/// Default job count: the machine's cores.
pub fn default_jobs() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
}
