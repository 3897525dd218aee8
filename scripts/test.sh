#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit tests, every c_tests fixture
# at -O0..-O3 and every cuda_tests kernel at -O1..-O3 through the enz-rs CLI,
# the CLI error tests and the IR checks.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all --check
# The tests are built before clippy runs: on a fresh target directory, a
# first `cargo test` right after `cargo clippy` was seen to fail in cargo's
# rustc probe (cargo 1.95), while this order is reliable.
cargo test --workspace --no-run
cargo clippy --all-targets -- -D warnings
cargo test --workspace
