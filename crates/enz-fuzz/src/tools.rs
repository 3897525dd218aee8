//! The external tools a campaign drives (clang, opt, llvm-stress, enz-rs),
//! and the checks on an output enz-rs reported as successful.

use crate::exec::{run_limited, run_with_timeout, Finished};
use crate::outcome::Outcome;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Where Debian puts LLVM 22's tools.
pub const LLVM_BIN: &str = "/usr/lib/llvm-22/bin";

/// Time limit for one enz-rs run: far above any legitimate case here.
pub const ENZ_TIMEOUT: Duration = Duration::from_secs(60);
/// Address-space limit for one enz-rs run, MiB.
pub const ENZ_MEM_MB: u64 = 4096;

/// Paths of the tools.
#[derive(Clone, Debug)]
pub struct Tools {
    pub clang: PathBuf,
    pub opt: PathBuf,
    pub llvm_as: PathBuf,
    pub llvm_dis: PathBuf,
    pub llvm_nm: PathBuf,
    pub llvm_stress: PathBuf,
    pub enz_rs: PathBuf,
    /// `runtime/include` of the repository (enzyme.h).
    pub include: PathBuf,
}

/// `$env` when set (the names the c_tests harness reads too:
/// `ENZ_CLANG`, `ENZ_OPT`, `ENZ_LLVM_NM`...), else [`llvm_tool`].
pub fn chosen_tool(env: &str, versioned: &str, plain: &str) -> PathBuf {
    match std::env::var_os(env) {
        Some(p) => PathBuf::from(p),
        None => llvm_tool(versioned, plain),
    }
}

/// `versioned` on PATH, else `/usr/lib/llvm-22/bin/<plain>`.
pub fn llvm_tool(versioned: &str, plain: &str) -> PathBuf {
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

impl Tools {
    /// Finds the tools; `enz_rs` overrides where enz-rs is.
    pub fn find(enz_rs: Option<&Path>) -> Tools {
        let enz_rs = enz_rs.map(Path::to_path_buf).unwrap_or_else(|| {
            let here = std::env::current_exe().ok();
            here.and_then(|p| p.parent().map(|d| d.join("enz-rs")))
                .filter(|p| p.is_file())
                .unwrap_or_else(|| PathBuf::from("enz-rs"))
        });
        Tools {
            clang: chosen_tool("ENZ_CLANG", "clang-22", "clang"),
            opt: chosen_tool("ENZ_OPT", "opt-22", "opt"),
            llvm_as: chosen_tool("ENZ_LLVM_AS", "llvm-as-22", "llvm-as"),
            llvm_dis: chosen_tool("ENZ_LLVM_DIS", "llvm-dis-22", "llvm-dis"),
            llvm_nm: chosen_tool("ENZ_LLVM_NM", "llvm-nm-22", "llvm-nm"),
            llvm_stress: chosen_tool("ENZ_LLVM_STRESS", "llvm-stress-22", "llvm-stress"),
            enz_rs,
            include: Path::new(env!("CARGO_MANIFEST_DIR")).join("../../runtime/include"),
        }
    }

    /// The tools that cannot be run (`TOOL --version` does not exit 0),
    /// one line each saying which, where it was looked for and how to
    /// choose another: a campaign with a tool missing checks nothing (no
    /// clang: no program; no llvm-nm: no left-over check), so it must not
    /// run at all.
    pub fn missing(&self) -> Vec<String> {
        let tools: [(&str, &Path, &str); 6] = [
            (
                "clang",
                &self.clang,
                "put clang-22 on PATH or name it in ENZ_CLANG",
            ),
            ("opt", &self.opt, "put opt-22 on PATH or name it in ENZ_OPT"),
            (
                "llvm-as",
                &self.llvm_as,
                "put llvm-as-22 on PATH or name it in ENZ_LLVM_AS",
            ),
            (
                "llvm-nm",
                &self.llvm_nm,
                "put llvm-nm-22 on PATH or name it in ENZ_LLVM_NM",
            ),
            (
                "llvm-stress",
                &self.llvm_stress,
                "put llvm-stress-22 on PATH or name it in ENZ_LLVM_STRESS",
            ),
            ("enz-rs", &self.enz_rs, "build it, or name it with --enz-rs"),
        ];
        let mut out = Vec::new();
        for (name, path, how) in tools {
            let r = run_with_timeout(Command::new(path).arg("--version"), Duration::from_secs(60));
            if !r.success() {
                let why = match r.code {
                    Some(127) if r.stderr.starts_with("cannot start") => {
                        r.stderr.trim().to_string()
                    }
                    code => format!("`{} --version` exited {code:?}", path.display()),
                };
                out.push(format!(
                    "harness: the tool {name} cannot be run ({why}); install LLVM 22, or {how}"
                ));
            }
        }
        out
    }

    /// Runs `enz-rs input -o output extra...` under the campaign limits.
    pub fn enz(&self, input: &Path, output: &Path, extra: &[&str]) -> Finished {
        let mut args: Vec<&OsStr> = vec![input.as_os_str(), OsStr::new("-o"), output.as_os_str()];
        args.extend(extra.iter().map(OsStr::new));
        run_limited(&self.enz_rs, &args, None, ENZ_TIMEOUT, ENZ_MEM_MB)
    }

    /// Classifies an enz-rs run, and for a success, its output file:
    /// it must exist, verify, and reference no `__enzyme_*` entry point.
    /// Returns the outcome and, for anything but ok/diagnostic, a detail.
    pub fn classify_enz(&self, run: &Finished, output: &Path) -> (Outcome, Option<String>) {
        let first_lines = |s: &str| s.lines().take(6).collect::<Vec<_>>().join(" | ");
        if run.timed_out {
            return (Outcome::Hang, Some("enz-rs ran past its time limit".into()));
        }
        if run.stderr.contains("LLVM ERROR") || run.stderr.contains("panicked") {
            return (Outcome::Crash, Some(first_lines(&run.stderr)));
        }
        match run.code {
            Some(0) => {}
            Some(1) if run.stderr.starts_with("error:") || run.stderr.contains("\nerror:") => {
                if output.exists() {
                    return (
                        Outcome::Crash,
                        Some("exit 1 but an output file was written".into()),
                    );
                }
                return (Outcome::Diagnostic, None);
            }
            Some(2) => return (Outcome::Internal, Some(first_lines(&run.stderr))),
            other => {
                return (
                    Outcome::Crash,
                    Some(format!(
                        "exit {:?} signal {:?}: {}",
                        other,
                        run.signal,
                        first_lines(&run.stderr)
                    )),
                )
            }
        }
        self.check_output(output)
    }

    /// An output reported as successful: verifies, and references no
    /// `__enzyme_*` entry point.
    pub fn check_output(&self, output: &Path) -> (Outcome, Option<String>) {
        let verify = run_with_timeout(
            Command::new(&self.opt)
                .args(["-passes=verify", "-disable-output"])
                .arg(output),
            Duration::from_secs(60),
        );
        if !verify.success() {
            return (
                Outcome::Verifier,
                Some(
                    verify
                        .stderr
                        .lines()
                        .take(4)
                        .collect::<Vec<_>>()
                        .join(" | "),
                ),
            );
        }
        let nm = run_with_timeout(
            Command::new(&self.llvm_nm)
                .arg("--undefined-only")
                .arg(output),
            Duration::from_secs(60),
        );
        if !nm.success() {
            // Without llvm-nm's list the left-over check did not happen.
            return (
                Outcome::Harness,
                Some(format!(
                    "llvm-nm ({}) failed on the output, so the left-over `__enzyme_*` check did not run: exit {:?}: {}",
                    self.llvm_nm.display(),
                    nm.code,
                    nm.stderr.lines().take(2).collect::<Vec<_>>().join(" | ")
                )),
            );
        }
        if let Some(name) = leftover_api_symbol(&nm.stdout) {
            return (
                Outcome::Leftover,
                Some(format!("output still references {name}")),
            );
        }
        (Outcome::Ok, None)
    }
}

/// The first undefined `__enzyme_*` / `enzyme_*` symbol in `llvm-nm
/// --undefined-only` output: a reference the link would fail on.
pub fn leftover_api_symbol(nm_output: &str) -> Option<String> {
    nm_output
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .find(|s| s.contains("__enzyme_") || s.starts_with("enzyme_"))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::leftover_api_symbol;

    #[test]
    fn finds_undefined_api_symbols_only() {
        let nm = "                 U cos\n                 U __enzyme_autodiff\n";
        assert_eq!(
            leftover_api_symbol(nm).as_deref(),
            Some("__enzyme_autodiff")
        );
        let markers = "                 U enzyme_dup\n";
        assert_eq!(leftover_api_symbol(markers).as_deref(), Some("enzyme_dup"));
        assert_eq!(leftover_api_symbol("                 U sin\n"), None);
        assert_eq!(leftover_api_symbol(""), None);
        // A user symbol that merely mentions the word is not the API.
        assert_eq!(
            leftover_api_symbol("                 U my_enzyme_helper\n"),
            None
        );
    }
}
