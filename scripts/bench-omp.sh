#!/usr/bin/env bash
# OpenMP benchmark (bench/omp.c): three parallel loops (an element-wise
# reduction, an explicit 1-D heat stencil, a row-by-row matrix-vector
# product), their primal and their enz-rs gradient, each timed at 1 and 2
# threads (least of 5 runs). Prints a table: times, each one's parallel
# speed-up, gradient/primal, and the gradient's speed-up divided by the
# primal's (1.0: the gradient scales as well as the primal). Each gradient
# is checked against central differences first (exit 1 if one is off).
#
#   scripts/bench-omp.sh
#
# Build: clang-22 -O2 -fopenmp -emit-llvm -> enz-rs -> clang-22 -O2
# -fopenmp (libomp, from scripts/setup.sh). Environment: CLANG (default
# clang-22).
set -euo pipefail
cd "$(dirname "$0")/.."
clang=${CLANG:-clang-22}
cargo build --release -q -p enz-rs
dir=target/bench-omp
mkdir -p "$dir"
"$clang" -O2 -fopenmp -I runtime/include -c -emit-llvm bench/omp.c -o "$dir/omp.bc"
target/release/enz-rs "$dir/omp.bc" -o "$dir/omp.grad.bc"
"$clang" -O2 -fopenmp "$dir/omp.grad.bc" -lm -o "$dir/omp"
echo "machine: $(nproc) cores; $(date -u +%Y-%m-%d)"
OMP_PROC_BIND=false "$dir/omp"
