#!/usr/bin/env bash
# Loop benchmarks (bench/loops.c): for sum of squares, a pow loop, logsumexp,
# logistic regression and a 2-layer MLP (about 10^6 elements each), prints
# primal time, gradient time and their ratio. The program checks each
# gradient against finite differences first and exits 1 if one is wrong.
#
#   scripts/bench-loops.sh [--no-ad] [--quick] [KERNEL...]
#
#   (default)  gradients by enz-rs: builds enz-rs (release), compiles
#              bench/loops.c to bitcode at -O2, runs enz-rs on it, links at -O2
#   --no-ad    the same program with hand-written gradients (-DNO_AD): the
#              baseline, no tool involved
#   --quick    shorter samples (>= 10 ms, 5 of them)
#   KERNEL     sumsq pow logsumexp logreg mlp (default: all)
#
# Environment: CLANG (default clang-22), BENCH_CFLAGS (extra flags for both
# compilations, e.g. -march=native), BENCH_ENZ_ARGS (extra enz-rs
# arguments, e.g. "--cache-budget off"), KEEP=1 keeps the build directory.
set -euo pipefail
cd "$(dirname "$0")/.."

clang=${CLANG:-clang-22}
# shellcheck disable=SC2206
extra=(${BENCH_CFLAGS:-})
# shellcheck disable=SC2206
enz_args=(${BENCH_ENZ_ARGS:-})
no_ad=0
args=()
for a in "$@"; do
  case "$a" in
    --no-ad) no_ad=1 ;;
    *) args+=("$a") ;;
  esac
done

tmp=$(mktemp -d)
if [[ "${KEEP:-}" == 1 ]]; then
  echo "build directory: $tmp" >&2
else
  trap 'rm -rf "$tmp"' EXIT
fi

if [[ $no_ad == 1 ]]; then
  "$clang" -O2 -DNO_AD "${extra[@]}" -I runtime/include bench/loops.c -lm -o "$tmp/loops"
else
  cargo build --release -q -p enz-rs
  "$clang" -O2 "${extra[@]}" -c -emit-llvm -I runtime/include bench/loops.c -o "$tmp/loops.bc"
  target/release/enz-rs "${enz_args[@]}" "$tmp/loops.bc" -o "$tmp/loops.grad.bc"
  "$clang" -O2 "${extra[@]}" "$tmp/loops.grad.bc" -lm -o "$tmp/loops"
fi
"$tmp/loops" "${args[@]}"
