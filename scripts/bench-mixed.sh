#!/usr/bin/env bash
# Mixed-mode benchmark (bench/mixed.c): for the HM-LSTM cell update and a
# 20-step elementwise chain over N x N doubles, the primal time and, with
# `--mode-per-loop=reverse`, `auto` (the default) and `mixed` side by
# side, the gradient time, gradient/primal and the bytes the elementwise
# loop caches (bytes per iteration from `enz-rs --explain`, times N^2);
# all with `--cache-budget off`, so that only the mode differs.
# Each gradient is checked against central differences before it is timed.
#
#   scripts/bench-mixed.sh [N]        (default N = 1024)
#
# Environment: CLANG (default clang-22), KEEP=1 keeps the build directory.
set -euo pipefail
cd "$(dirname "$0")/.."

clang=${CLANG:-clang-22}
n=${1:-1024}
tmp=$(mktemp -d)
if [[ "${KEEP:-}" == 1 ]]; then
  echo "build directory: $tmp" >&2
else
  trap 'rm -rf "$tmp"' EXIT
fi

cargo build --release -q -p enz-rs
"$clang" -O2 -g -c -emit-llvm bench/mixed.c -o "$tmp/mixed.bc"
for mode in reverse auto mixed; do
  target/release/enz-rs "$tmp/mixed.bc" --mode-per-loop "$mode" --cache-budget off --explain \
    -o "$tmp/$mode.bc" > "$tmp/$mode.explain"
  "$clang" -O2 "$tmp/$mode.bc" -lm -o "$tmp/$mode"
done

# The bytes per iteration of the loop at bench/mixed.c:LINE in an
# explanation (the first loop line there).
per_iteration() {
  grep -E "mixed\.c:$2:[0-9]+: (cache|recompute)" "$1" | head -1 |
    sed 's/.*: [a-z]*, \([0-9]*\) bytes cached per iteration.*/\1/'
}

secs() { "$@" | sed 's/^[a-z]* \([0-9.]*\) s$/\1/'; }

printf '%-7s | %-9s | %-30s | %-30s | %-30s | %s\n' kernel primal "reverse" "auto" "mixed" \
  "mixed vs reverse"
printf '%-7s | %-9s | %-30s | %-30s | %-30s | %s\n' "" s "s (x primal), cache MB" \
  "s (x primal), cache MB" "s (x primal), cache MB" "speed-up, cache"
for kernel in hmlstm chain; do
  line=$(grep -n "double $kernel(" bench/mixed.c | head -1 | cut -d: -f1)
  loop=$(awk -v s="$line" 'NR > s && /for \(long k = 0; k < n; k\+\+\) \{/ {print NR; exit}' bench/mixed.c)
  primal=$(secs "$tmp/auto" primal "$kernel" "$n")
  row=()
  for mode in reverse auto mixed; do
    t=$(secs "$tmp/$mode" grad "$kernel" "$n")
    b=$(per_iteration "$tmp/$mode.explain" "$loop")
    mb=$(awk -v b="$b" -v n="$n" 'BEGIN{printf "%.1f", b * n * n / 1e6}')
    ratio=$(awk -v a="$t" -v p="$primal" 'BEGIN{printf "%.2f", a / p}')
    row+=("$t ($ratio), $mb MB")
    eval "t_$mode=$t b_$mode=$b"
  done
  summary=$(awk -v r="$t_reverse" -v a="$t_mixed" -v br="$b_reverse" -v ba="$b_mixed" \
    'BEGIN{printf "%.2fx faster, %.2f of the bytes", r / a, ba / br}')
  printf '%-7s | %-9s | %-30s | %-30s | %-30s | %s\n' "$kernel" "$primal" "${row[0]}" "${row[1]}" \
    "${row[2]}" "$summary"
done
