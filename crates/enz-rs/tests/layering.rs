//! The architecture's invariants that the sources themselves can show
//! (ARCHITECTURE.md, "Invariants"): `unsafe` and llvm-sys only in the IR
//! crate, every other crate root forbidding unsafe code, dependencies
//! pointing one way along the layers, libraries that read no environment
//! and touch no files, and no source file over 1,000 lines.

use std::path::{Path, PathBuf};

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("crates/")
        .to_path_buf()
}

/// The `.rs` files under `dir`, recursively.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("readable source directory") {
            let p = e.expect("directory entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The lines of `text` that are code: comments dropped (`//`, `///`,
/// `//!` lines and trailing comments).
fn code_lines(text: &str) -> Vec<&str> {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .filter(|l| !l.trim().is_empty())
        .collect()
}

fn is_test_source(p: &Path) -> bool {
    p.components().any(|c| c.as_os_str() == "tests") || p.ends_with("tests.rs")
}

/// Build scripts run at build time, not inside a user's process.
fn is_build_script(p: &Path) -> bool {
    p.ends_with("build.rs")
}

const CRATES: [&str; 9] = [
    "enz-ir",
    "enz-core",
    "enz-enzyme-api",
    "enz-rs",
    "enz-fuzz",
    "enz-plugin",
    "cargo-enz",
    "enz",
    "enz-macros",
];

/// The one file outside the IR crate allowed `unsafe`: the pass plugin's
/// FFI boundary (the C entry points LLVM and the C++ shim call).
const FFI_BOUNDARY: &str = "enz-plugin/src/lib.rs";

/// Files that declare or emit the user-facing C API: the Rust API's
/// declarations of Enzyme's entry points and markers (`enz/src/ffi.rs`,
/// an `unsafe extern` block; the `enz` root denies unsafe code and
/// allows it for that module only) and the code the attribute macros
/// write into the user's crate (`enz-macros/src/expand.rs`, in `quote!`).
const USER_API_FFI: [&str; 2] = ["enz/src/ffi.rs", "enz-macros/src/expand.rs"];

#[test]
fn unsafe_and_the_c_bindings_only_in_the_ir_crate() {
    let mut offenders = Vec::new();
    for krate in CRATES.iter().filter(|c| **c != "enz-ir") {
        for p in sources(&crates_dir().join(krate)) {
            let text = std::fs::read_to_string(&p).unwrap();
            let boundary = p.ends_with(FFI_BOUNDARY) || USER_API_FFI.iter().any(|f| p.ends_with(f));
            for l in code_lines(&text) {
                // Spelled in pieces so that this file does not match itself.
                let unsafe_code = ["{", "fn", "impl", "extern"]
                    .iter()
                    .any(|k| l.contains(&format!("{} {k}", concat!("un", "safe"))));
                if (unsafe_code && !boundary) || l.contains(concat!("llvm", "_sys")) {
                    offenders.push(format!("{}: {}", p.display(), l.trim()));
                }
            }
        }
        let manifest =
            std::fs::read_to_string(crates_dir().join(krate).join("Cargo.toml")).unwrap();
        assert!(
            !manifest.contains("llvm-sys"),
            "{krate} depends on llvm-sys: only enz-ir may"
        );
    }
    assert!(
        offenders.is_empty(),
        "outside enz-ir:\n{}",
        offenders.join("\n")
    );
}

#[test]
fn every_crate_but_the_ir_crate_forbids_unsafe_code() {
    for krate in CRATES.iter().filter(|c| **c != "enz-ir") {
        let dir = crates_dir().join(krate).join("src");
        let roots: Vec<PathBuf> = ["lib.rs", "main.rs"]
            .iter()
            .map(|r| dir.join(r))
            .filter(|p| p.exists())
            .collect();
        assert!(!roots.is_empty(), "{krate} has no crate root");
        for r in roots {
            let text = std::fs::read_to_string(&r).unwrap();
            // The FFI boundary cannot forbid it; each unsafe operation
            // there is still its own block.
            let wanted = if r.ends_with(FFI_BOUNDARY) {
                "#![deny(unsafe_op_in_unsafe_fn)]"
            } else if r.ends_with("enz/src/lib.rs") {
                "#![deny(unsafe_code)]"
            } else {
                "#![forbid(unsafe_code)]"
            };
            assert!(text.contains(wanted), "{} lacks {wanted}", r.display());
        }
    }
}

/// The workspace crates each crate may depend on (normal dependencies):
/// the layers point one way.
#[test]
fn dependencies_point_down_the_layers() {
    let allowed: [(&str, &[&str]); 9] = [
        ("enz-ir", &[]),
        ("enz-core", &["enz-ir"]),
        ("enz-enzyme-api", &["enz-ir", "enz-core"]),
        ("enz-rs", &["enz-enzyme-api"]),
        ("enz-fuzz", &[]),
        ("enz-plugin", &["enz-enzyme-api"]),
        ("cargo-enz", &["enz-enzyme-api"]),
        // The Rust API is a user's dependency: nothing of the compiler.
        ("enz", &["enz-macros"]),
        ("enz-macros", &[]),
    ];
    for (krate, may) in allowed {
        let manifest =
            std::fs::read_to_string(crates_dir().join(krate).join("Cargo.toml")).unwrap();
        let deps = manifest
            .split("\n[dependencies]")
            .nth(1)
            .map(|s| s.split("\n[").next().unwrap_or(""))
            .unwrap_or("");
        for other in CRATES {
            let named = deps
                .lines()
                .any(|l| l.split('=').next().is_some_and(|k| k.trim() == other));
            assert!(
                !named || may.contains(&other),
                "{krate} depends on {other}, which is not below it"
            );
        }
    }
}

#[test]
fn libraries_read_no_environment_and_touch_no_files() {
    let forbidden = [
        "std::env",
        "std::fs",
        "File::",
        "println!",
        "eprintln!",
        "print!(",
    ];
    let mut offenders = Vec::new();
    for krate in [
        "enz-ir",
        "enz-core",
        "enz-enzyme-api",
        "enz-plugin",
        "enz",
        "enz-macros",
    ] {
        for p in sources(&crates_dir().join(krate)) {
            if is_test_source(&p) || is_build_script(&p) {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            // Unit tests at the end of a module may read fixtures.
            let text = text.split("#[cfg(test)]").next().unwrap_or("");
            for l in code_lines(text) {
                if forbidden.iter().any(|f| l.contains(f)) {
                    offenders.push(format!("{}: {}", p.display(), l.trim()));
                }
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}

#[test]
fn no_source_file_over_a_thousand_lines() {
    for krate in CRATES {
        for p in sources(&crates_dir().join(krate)) {
            let n = std::fs::read_to_string(&p).unwrap().lines().count();
            assert!(
                n <= 1000,
                "{} has {n} lines: split it by concept",
                p.display()
            );
        }
    }
}
