#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit tests, and every c_tests
# fixture at -O0..-O3 through the enz-rs CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo fmt --all --check
cargo clippy --all-targets -- -D warnings
cargo test --workspace
