#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit tests, every c_tests fixture
# at -O0..-O3 and every cuda_tests kernel at -O1..-O3 through the enz-rs CLI,
# the CLI error tests and the IR checks.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all --check
cargo clippy --all-targets -- -D warnings
cargo test --workspace
