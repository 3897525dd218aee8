//! `cargo enz test` on the rust_tests project (its own cargo project and
//! target directory, rust_tests/target): every test there checks each of
//! its derivatives against an analytic value and against central finite
//! differences, in debug and in release builds. Every test must run: the
//! `#[test]` functions of rust_tests/src and rust_tests/tests are counted
//! here, and the passed tests libtest reports must be exactly as many; a
//! test binary without libtest (`harness = false` in rust_tests/Cargo.toml)
//! must print `NAME: N checks passed` with N > 0 (the runner, shared with
//! rust_crates.rs, is in common/mod.rs).

mod common;

use std::path::Path;
use std::process::Command;

#[test]
fn debug() {
    common::cargo_enz_test("rust_tests", &[]);
}

#[test]
fn release() {
    common::cargo_enz_test("rust_tests", &["--release"]);
}

#[test]
fn refuses_a_rustc_on_another_llvm() {
    let fake = tempfile::tempdir().expect("a temporary directory");
    let rustc = fake.path().join("rustc");
    std::fs::write(
        &rustc,
        "#!/bin/sh\necho 'rustc 1.80.0 (x 2024-07-21)'\necho 'release: 1.80.0'\necho 'LLVM version: 18.1.7'\n",
    )
    .expect("write a fake rustc");
    let status = Command::new("chmod").arg("+x").arg(&rustc).status();
    assert!(status.is_ok_and(|s| s.success()));
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-enz"))
        .args(["enz", "build"])
        .env("RUSTC", &rustc)
        .output()
        .expect("cargo-enz runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("LLVM 18.1.7") && err.contains("LLVM 22"),
        "{err}"
    );
}

/// The README's "Use it from Rust" recipe, as a new user follows it: `cargo
/// new`, the `enz` dependency, the README's program, `cargo enz run`; the
/// program's gradient is checked here.
#[test]
fn readme_recipe_on_a_new_project() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let readme = std::fs::read_to_string(repo.join("README.md")).expect("README.md");
    let section = readme
        .split("## Use it from Rust")
        .nth(1)
        .expect("a \"Use it from Rust\" section");
    let program = section
        .split("```rust\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("the section's Rust program");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let status = Command::new("cargo")
        .args(["new", "--quiet", "--name", "hello_enz"])
        .arg(dir.path().join("hello_enz"))
        .status()
        .expect("cargo runs");
    assert!(status.success());
    let project = dir.path().join("hello_enz");
    let manifest = project.join("Cargo.toml");
    let mut toml = std::fs::read_to_string(&manifest).expect("Cargo.toml");
    let enz = repo.join("crates/enz").canonicalize().expect("crates/enz");
    toml = toml.replace(
        "[dependencies]",
        &format!(
            "[dependencies]\nenz = {{ path = {:?} }}",
            enz.display().to_string()
        ),
    );
    std::fs::write(&manifest, toml).expect("write Cargo.toml");
    std::fs::write(project.join("src/main.rs"), program).expect("write main.rs");
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-enz"))
        .args(["enz", "run", "--quiet"])
        .current_dir(&project)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env("CARGO_TARGET_DIR", project.join("target"))
        .output()
        .expect("cargo-enz runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // rosen(1, 3) = 400; d/dx = -2(1-x) - 400x(y-x^2) = -800; d/dy = 200(y-x^2) = 400.
    let numbers: Vec<f64> = stdout
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert_eq!(numbers, vec![400.0, -800.0, 400.0], "{stdout}");
}
