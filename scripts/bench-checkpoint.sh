#!/usr/bin/env bash
# Checkpointing benchmark (bench/checkpoint.c, a nonlinear heat equation of
# N cells and T steps updated in place): prints, side by side, the primal
# time, and for the gradient without a cache budget (`--cache-budget off`), with
# `--cache-budget MB` and with the default (the machine's budget: half its
# physical memory, the loop running plainly when a bound on its caches fits
# in half of that) the time, gradient/primal and peak resident memory;
# then how far the budgeted gradients are from the unbounded one. Each
# gradient is checked against central differences before it is written.
#
#   scripts/bench-checkpoint.sh [--quick]
#
#   (default)  N = 10^4: T = 10^4 (both gradients; the unbounded one caches
#              about 1.6 GB) and T = 10^5 (with the budget only: unbounded,
#              the caches would take about 16 GB)
#   --quick    N = 10^4, T = 10^3 and 10^4
#
# Environment: CLANG (default clang-22), BUDGET (MiB, default 256), KEEP=1
# keeps the build directory.
set -euo pipefail
cd "$(dirname "$0")/.."

clang=${CLANG:-clang-22}
budget=${BUDGET:-256}
n=10000
steps=(10000 100000)
unbounded_max=10000
if [[ "${1:-}" == "--quick" ]]; then
  steps=(1000 10000)
fi

tmp=$(mktemp -d)
if [[ "${KEEP:-}" == 1 ]]; then
  echo "build directory: $tmp" >&2
else
  trap 'rm -rf "$tmp"' EXIT
fi

cargo build --release -q -p enz-rs
"$clang" -O2 -c -emit-llvm -I runtime/include bench/checkpoint.c -o "$tmp/heat.bc"
target/release/enz-rs "$tmp/heat.bc" --cache-budget off -o "$tmp/plain.bc"
target/release/enz-rs "$tmp/heat.bc" --cache-budget "$budget" -o "$tmp/budget.bc"
target/release/enz-rs "$tmp/heat.bc" -o "$tmp/auto.bc"
"$clang" -O2 "$tmp/plain.bc" -lm -o "$tmp/plain"
"$clang" -O2 "$tmp/budget.bc" -lm -o "$tmp/budget"
"$clang" -O2 "$tmp/auto.bc" -lm -o "$tmp/auto"

# Runs "$@" under GNU time; prints its output, then sets $secs (the
# program's own timing line) and $rss (peak resident memory, MB).
measure() {
  local log="$tmp/time.log"
  /usr/bin/time -f '%M' -o "$log" "$@" > "$tmp/out.txt"
  secs=$(sed -n 's/^[a-z]* \([0-9.]*\) s.*/\1/p' "$tmp/out.txt" | head -1)
  rss=$(awk '{printf "%.0f", $1 / 1024}' "$log")
}

printf '%-8s %-8s | %-10s | %-28s | %-28s | %-28s | %s\n' "N" "T" "primal" \
  "gradient, unbounded" "gradient, --cache-budget $budget" "gradient, default budget" \
  "max rel. difference (budget, default)"
printf '%-8s %-8s | %-10s | %-28s | %-28s | %-28s | %s\n' "" "" "s" "s (x primal), peak MB" \
  "s (x primal), peak MB" "s (x primal), peak MB" ""
for T in "${steps[@]}"; do
  measure "$tmp/plain" primal "$n" "$T"
  primal=$secs
  if [[ $T -le $unbounded_max ]]; then
    measure "$tmp/plain" grad "$n" "$T" "$tmp/g_plain.bin"
    plain="$secs ($(awk -v a="$secs" -v b="$primal" 'BEGIN{printf "%.1f", a/b}')), $rss MB"
  else
    plain="not run (caches ~$((n * T * 16 / 1000000)) MB)"
  fi
  measure "$tmp/budget" grad "$n" "$T" "$tmp/g_budget.bin"
  budgeted="$secs ($(awk -v a="$secs" -v b="$primal" 'BEGIN{printf "%.1f", a/b}')), $rss MB"
  measure "$tmp/auto" grad "$n" "$T" "$tmp/g_auto.bin"
  auto="$secs ($(awk -v a="$secs" -v b="$primal" 'BEGIN{printf "%.1f", a/b}')), $rss MB"
  diff="-"
  if [[ $T -le $unbounded_max ]]; then
    diff="$("$tmp/plain" compare "$tmp/g_budget.bin" "$tmp/g_plain.bin" | sed 's/.*= //'), $("$tmp/plain" compare "$tmp/g_auto.bin" "$tmp/g_plain.bin" | sed 's/.*= //')"
  fi
  printf '%-8s %-8s | %-10s | %-28s | %-28s | %-28s | %s\n' "$n" "$T" "$primal" "$plain" "$budgeted" "$auto" "$diff"
done
