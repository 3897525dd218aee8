#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit tests, and every c_tests
# fixture at -O0..-O3 through the enz-rs CLI.
set -euo pipefail
cd "$(dirname "$0")/.."
# Cargo caches rustc's target information in target/.rustc_info.json; a
# probe that once failed under clippy's wrapper was seen to poison the
# following `cargo test`. Probe afresh every time.
export CARGO_CACHE_RUSTC_INFO=0
cargo fmt --all --check
cargo clippy --all-targets -- -D warnings
cargo test --workspace
