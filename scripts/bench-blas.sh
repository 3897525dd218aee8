#!/usr/bin/env bash
# The cost of gradients through BLAS: bench/blas/mlp.c (a two-layer
# perceptron's loss on 1024 x 1024 matrices: two cblas_dgemm and element
# loops) built at -O2 through enz-rs and linked with OpenBLAS; prints the
# primal's and the gradient's best time of 5 and their ratio (the goal is
# at most 3.5), and checks one entry of each gradient against central
# differences (exit 1 if they differ).
# Usage: scripts/bench-blas.sh [n]   (ENZ_RS: the enz-rs binary, default
# target/release/enz-rs; PERF=1: also profile 20 gradient calls with
# `perf record` and print the top symbols, by library).
# Not a test.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ENZ_RS="${ENZ_RS:-$REPO/target/release/enz-rs}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
clang-22 -O2 -c -emit-llvm -I "$REPO/runtime/include" "$REPO/bench/blas/mlp.c" -o "$TMP/in.bc"
"$ENZ_RS" "$TMP/in.bc" -o "$TMP/out.bc"
clang-22 -O2 "$TMP/out.bc" -lopenblas -lm -o "$TMP/mlp"
"$TMP/mlp" "$@"
if [ "${PERF:-0}" = 1 ]; then
  perf record -q -o "$TMP/perf.data" "$TMP/mlp" "${1:-1024}" grad > /dev/null 2>&1
  perf report -q -i "$TMP/perf.data" --sort dso 2>/dev/null | head -6
  perf report -q -i "$TMP/perf.data" --sort dso,symbol 2>/dev/null | head -8
fi
