#!/usr/bin/env bash
# Installs the toolchain, builds enz-rs, differentiates examples/demo.c and
# prints its gradient next to finite differences.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh >/dev/null
cargo build --release -q -p enz-rs
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
set -x
clang-22 -O2 -c -emit-llvm -I runtime/include examples/demo.c -o "$tmp/demo.bc"
target/release/enz-rs "$tmp/demo.bc" -o "$tmp/demo.grad.bc"
clang-22 "$tmp/demo.grad.bc" -lm -o "$tmp/demo"
"$tmp/demo"
