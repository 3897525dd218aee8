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

/// `text` without its unit tests: an inline `#[cfg(test)] mod tests { ... }`
/// at the end of a module is cut off there; a `#[cfg(test)]` on anything
/// else (`mod tests;` in a file of its own, a test-only item) hides only
/// the line it is on and the next one.
fn without_unit_tests(text: &str) -> String {
    let mut out = String::new();
    let mut lines = text.lines().peekable();
    while let Some(l) = lines.next() {
        if l.trim() == "#[cfg(test)]" {
            match lines.next() {
                Some(next)
                    if next.trim_start().starts_with("mod ") && next.trim_end().ends_with('{') =>
                {
                    break
                }
                _ => continue,
            }
        }
        out.push_str(l);
        out.push('\n');
    }
    out
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
            let text = without_unit_tests(&text);
            for l in code_lines(&text) {
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

/// The code lines of the non-test sources of enz-core under `rel` (a
/// directory or a file, relative to `crates/enz-core/src`), with their
/// paths; unit tests at the end of a module are left out.
fn core_code(rel: &str) -> Vec<(PathBuf, String)> {
    let root = crates_dir().join("enz-core/src");
    let path = root.join(rel);
    let files = if path.is_dir() {
        sources(&path)
    } else if path.exists() {
        vec![path]
    } else {
        Vec::new()
    };
    let mut out = Vec::new();
    for p in files {
        if is_test_source(&p) {
            continue;
        }
        let text = without_unit_tests(&std::fs::read_to_string(&p).unwrap());
        for l in code_lines(&text) {
            out.push((p.clone(), l.to_string()));
        }
    }
    out
}

/// Inside enz-core, the stages point one way: the analyses produce facts
/// and name neither the synthesis that consumes them nor the session that
/// drives both; the synthesis does not name the session (the options it
/// reads live in the leaf `options.rs`).
#[test]
fn analysis_and_synthesis_point_down_the_stages() {
    let rules: [(&str, &[&str]); 6] = [
        ("analysis", &["synth::", "session::", "transform::"]),
        ("analysis.rs", &["synth::", "session::", "transform::"]),
        ("transform", &["synth::", "session::"]),
        ("transform.rs", &["synth::", "session::"]),
        ("synth", &["session::"]),
        ("options.rs", &["synth::", "session::", "transform::"]),
    ];
    let mut offenders = Vec::new();
    for (rel, forbidden) in rules {
        for (p, l) in core_code(rel) {
            if forbidden.iter().any(|f| l.contains(f)) {
                offenders.push(format!("{}: {}", p.display(), l.trim()));
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}

/// Every name enz-rs recognises or emits (`__enzyme_*` entry points and
/// markers, `enzyme_*` attributes, its own `__enz_*` helpers and `enz.*`
/// metadata) is spelled once, in `names/`: a string literal that is such
/// a name anywhere else in enz-core is an offender.
#[test]
fn names_live_in_names() {
    let prefixes = ["__enz_", "__enzyme_", "enzyme_", "enz."];
    let mut offenders = Vec::new();
    for (p, l) in core_code(".") {
        if p.components().any(|c| c.as_os_str() == "names") || p.ends_with("names.rs") {
            continue;
        }
        // Each string literal on the line: whole names only (a message
        // mentioning `__enzyme_fwddiff` in a sentence is not a name).
        for (k, lit) in l.split('"').enumerate() {
            let is_literal = k % 2 == 1;
            let is_name = !lit.is_empty()
                && lit.chars().all(|c| {
                    c.is_ascii_alphanumeric() || c == '_' || c == '.' || c == '{' || c == '}'
                });
            if is_literal && is_name && prefixes.iter().any(|x| lit.starts_with(x)) {
                offenders.push(format!("{}: {}", p.display(), l.trim()));
            }
        }
    }
    assert!(offenders.is_empty(), "{}", offenders.join("\n"));
}
