//! `cargo enz <build|run|test|bench> [cargo args]`: runs cargo with
//! linker-plugin LTO and cargo-enz as the linker, after checking that
//! rustc's LLVM is the one enz-rs reads.

use crate::LINKER_ENV;
use std::process::{Command, ExitCode};

/// The LLVM major version whose bitcode enz-rs reads.
const LLVM_MAJOR: u32 = 22;

const USAGE: &str = "usage: cargo enz <build|run|test|bench|check> [cargo arguments]

Builds the project with linker-plugin LTO and differentiates it at link
time with enz-rs: every `__enzyme_*` call (the enz crate's #[autodiff_*]
functions) becomes a call of its derivative. Environment:
  CARGO_ENZ_LINKER   the linker to hand the link to (default: cc)";

pub(crate) fn main(args: &[String]) -> ExitCode {
    // As `cargo enz ...`, cargo passes "enz" first.
    let args: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .skip_while(|a| *a == "enz")
        .collect();
    let Some((&command, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return ExitCode::from(1);
    };
    if matches!(command, "-h" | "--help" | "help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    if !matches!(
        command,
        "build" | "run" | "test" | "bench" | "check" | "b" | "r" | "t"
    ) {
        eprintln!("error: cargo enz does not know `{command}`\n\n{USAGE}");
        return ExitCode::from(1);
    }
    if let Err(e) = check_rustc_llvm() {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    let me = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: cannot find the cargo-enz executable: {e}");
            return ExitCode::from(1);
        }
    };
    let real_linker = std::env::var("CARGO_ENZ_LINKER").unwrap_or_else(|_| "cc".into());
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo.arg(command).args(rest);
    // Every generic function the build uses is instantiated in its own
    // crate's bitcode (-Zshare-generics=no): in debug builds rustc would
    // otherwise call std's precompiled instances (Vec's growth, iterator
    // adaptors...), which are machine code enz-rs cannot differentiate.
    // The flag is unstable; RUSTC_BOOTSTRAP=1 lets the stable compiler
    // take it, for this build only.
    let flags = [
        "-C".to_string(),
        "linker-plugin-lto".to_string(),
        "-C".to_string(),
        format!("linker={}", me.display()),
        "-Z".to_string(),
        "share-generics=no".to_string(),
        // Which cargo-enz links: cargo relinks (and rebuilds) when it
        // changes, so no binary keeps derivatives an older enz-rs made.
        format!("--cfg=cargo_enz_build=\"{}\"", build_id(&me)),
    ];
    // CARGO_ENCODED_RUSTFLAGS (0x1f-separated) wins over RUSTFLAGS in
    // cargo; keep what the user set in either.
    match std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        Ok(enc) if !enc.is_empty() => {
            let mut all: Vec<String> = enc.split('\x1f').map(str::to_owned).collect();
            all.extend(flags);
            cargo.env("CARGO_ENCODED_RUSTFLAGS", all.join("\x1f"));
        }
        _ => {
            let mut all: Vec<String> = std::env::var("RUSTFLAGS")
                .unwrap_or_default()
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            all.extend(flags);
            cargo.env_remove("RUSTFLAGS");
            cargo.env("CARGO_ENCODED_RUSTFLAGS", all.join("\x1f"));
        }
    }
    cargo.env(LINKER_ENV, real_linker);
    cargo.env("RUSTC_BOOTSTRAP", "1");
    match cargo.status() {
        Ok(s) => ExitCode::from(s.code().unwrap_or(1).clamp(0, 255) as u8),
        Err(e) => {
            eprintln!("error: cannot run cargo: {e}");
            ExitCode::from(1)
        }
    }
}

/// The identity of the cargo-enz executable: its size and modification
/// time.
fn build_id(exe: &std::path::Path) -> String {
    let meta = std::fs::metadata(exe).ok();
    let size = meta.as_ref().map_or(0, |m| m.len());
    let mtime = meta
        .and_then(|m| m.modified().ok())
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    format!("{size}-{mtime}")
}

/// rustc's LLVM major version (`rustc -vV`) must be the one enz-rs reads:
/// its bitcode is what cargo-enz differentiates.
fn check_rustc_llvm() -> Result<(), String> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(&rustc)
        .arg("-vV")
        .output()
        .map_err(|e| format!("cannot run `{rustc} -vV`: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let version = text
        .lines()
        .find_map(|l| l.strip_prefix("LLVM version: "))
        .ok_or_else(|| format!("`{rustc} -vV` does not say which LLVM it uses"))?;
    let major: u32 = version
        .split('.')
        .next()
        .and_then(|m| m.trim().parse().ok())
        .ok_or_else(|| format!("cannot read rustc's LLVM version `{version}`"))?;
    if major != LLVM_MAJOR {
        let release = text
            .lines()
            .find_map(|l| l.strip_prefix("release: "))
            .unwrap_or("?");
        return Err(format!(
            "rustc {release} is built on LLVM {version}; enz-rs reads LLVM {LLVM_MAJOR} bitcode. \
             Use a Rust toolchain built on LLVM {LLVM_MAJOR} (Rust 1.95 is), e.g. `rustup run 1.95 cargo enz ...`"
        ));
    }
    Ok(())
}
