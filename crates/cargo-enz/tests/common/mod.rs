//! The runner shared by the tests that build one of the repository's Rust
//! projects (rust_tests, rust_crates: each its own cargo project, with its
//! own target directory) with `cargo enz test` and check that every test
//! there ran and passed. The `#[test]` functions of the project's `src`
//! and `tests` directories are counted, and the passed tests libtest
//! reports must be exactly as many, none ignored; a test binary without
//! libtest (`harness = false` in the project's Cargo.toml) must print
//! `NAME: N checks passed` with N > 0.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The project `name`, a directory at the repository's root.
pub fn project(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(name)
}

/// The `#[test]` functions in the `.rs` files of `dir` (not recursive; none
/// if there is no such directory).
fn test_functions(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    let mut n = 0;
    for entry in entries {
        let path = entry.expect("a directory entry").path();
        if path.extension().is_some_and(|e| e == "rs") {
            let text = std::fs::read_to_string(&path).expect("a source file");
            n += text.lines().filter(|l| l.trim() == "#[test]").count();
        }
    }
    n
}

/// The `[[test]]` targets of a manifest with `harness = false`.
fn harnessless_targets(manifest: &str) -> Vec<String> {
    manifest
        .split("[[test]]")
        .skip(1)
        .filter_map(|section| {
            let section = section.split("\n[").next().unwrap_or(section);
            let value = |key: &str| {
                section.lines().find_map(|l| {
                    let (k, v) = l.split_once('=')?;
                    (k.trim() == key).then(|| v.trim().trim_matches('"').to_string())
                })
            };
            (value("harness").as_deref() == Some("false")).then(|| value("name"))?
        })
        .collect()
}

/// Runs `cargo enz test ARGS` in the project `name` (its target directory
/// its own, RUSTFLAGS cleared) and checks that every test ran and passed.
pub fn cargo_enz_test(name: &str, args: &[&str]) {
    let root = project(name);
    let expected = test_functions(&root.join("src")) + test_functions(&root.join("tests"));
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let harnessless = harnessless_targets(&manifest);
    // Every `harness = false` line belongs to a target found above.
    let declared = manifest
        .lines()
        .filter(|l| l.replace(' ', "") == "harness=false")
        .count();
    assert_eq!(
        harnessless.len(),
        declared,
        "{name}/Cargo.toml: a harness = false target without a name"
    );
    assert!(expected > 0, "no tests found in {}", root.display());
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-enz"))
        .args(["enz", "test", "--no-fail-fast"])
        .args(args)
        .current_dir(&root)
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env("CARGO_TARGET_DIR", root.join("target"))
        .output()
        .expect("cargo-enz runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "cargo enz test {args:?} in {name} failed\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}"
    );
    // The libtest binaries ran every test, and none failed or was ignored.
    let results: Vec<&str> = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("test result: ok. "))
        .collect();
    let ran: usize = results
        .iter()
        .filter_map(|l| l.split(' ').next()?.parse::<usize>().ok())
        .sum();
    assert_eq!(
        ran, expected,
        "cargo enz test {args:?}: {ran} tests passed, but {name} has {expected} #[test] \
         functions\n{stdout}"
    );
    assert!(
        results.iter().all(|l| l.contains(" 0 ignored")),
        "cargo enz test {args:?} in {name}: a test was ignored\n{stdout}"
    );
    for target in &harnessless {
        let prefix = format!("{target}: ");
        let reported = stdout.lines().any(|l| {
            l.strip_prefix(&prefix)
                .and_then(|r| r.strip_suffix(" checks passed"))
                .and_then(|n| n.parse::<usize>().ok())
                .is_some_and(|n| n > 0)
        });
        assert!(
            reported,
            "cargo enz test {args:?} in {name}: the test binary {target} (harness = false) did \
             not print '{target}: N checks passed'\n{stdout}"
        );
    }
}
