#!/usr/bin/env bash
# The whole test suite: formatting, lints, unit tests, every c_tests fixture
# at -O0..-O3 and every cuda_tests kernel at -O1..-O3 through the enz-rs CLI,
# the CLI error tests, the IR checks and the golden IR tests.
#
# scripts/test.sh --quick: the same formatting and lints, the unit tests of
# every crate, the golden IR tests, the IR checks, the CLI error and layering
# tests, and one -O level (O2) of the c_tests fixtures and cuda_tests
# kernels through the CLI (not through the plugin or at link time): a few
# minutes, for a change in progress. The full suite is what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
case "${1:-}" in
"") ;;
--quick) quick=1 ;;
*)
    echo "usage: scripts/test.sh [--quick]" >&2
    exit 2
    ;;
esac

cargo fmt --all --check
cargo clippy --all-targets -- -D warnings
if [ "$quick" = 0 ]; then
    cargo test --workspace
    exit
fi

# Unit tests (each crate's src/), then enz-rs's fast integration tests.
cargo test --workspace --lib --bins
cargo test -p enz-rs --test golden_ir --test ir_checks --test cli_errors --test layering
# libtest-mimic filters: trials whose name contains `::O2`, less the
# plugin, link-time, -fno-exceptions, no-AD and thread-cache routes
# (`rev_relu3::O2` and `call_mutual::O2::no-inline` stay).
cargo test -p enz-rs --test c_tests -- ::O2 \
    --skip ::plugin --skip ::lto --skip ::no-exceptions
cargo test -p enz-rs --test cuda_tests -- ::O2 \
    --skip ::plugin --skip ::noad --skip ::thread_cache
