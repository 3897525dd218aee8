#!/usr/bin/env bash
# How enz-rs's own time grows with the size of the function it
# differentiates: a generated C function of N straight-line active
# statements (libm calls, products, updates of four locals), inlined into
# one block, for N = 2,000, 4,000, 8,000 (or the sizes given). Prints, per
# size, the stage times `enz-rs --time` reports and the ratio to the
# previous size (close to 2 means linear; the sizes double).
#
#   scripts/bench-scaling.sh [N ...]
#
# Post-optimisation is LLVM's default<O2> on the derivative (its SLP
# vectoriser is itself superlinear on one huge block); the primal's own
# clang -O2 time is printed for comparison.
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=("$@")
if [[ ${#sizes[@]} -eq 0 ]]; then
  sizes=(2000 4000 8000)
fi
cargo build --release -q -p enz-rs
enz=target/release/enz-rs
clang=$(command -v clang-22 || echo /usr/lib/llvm-22/bin/clang)
dir=target/bench-scaling
mkdir -p "$dir"

# gen N: the C source on stdout (a fixed linear congruential sequence).
gen() {
  awk -v n="$1" 'BEGIN {
    s = 12345
    split("a b c d", v, " "); split("sin cos exp tanh", f, " ")
    print "#include <math.h>\n#include \"enzyme.h\""
    print "double f(double *x) {\n  double a = x[0], b = x[1], c = x[2], d = x[3];"
    for (k = 0; k < n; k++) {
      s = (s * 1103515245 + 12345) % 2147483648; t = v[int(s / 65536) % 4 + 1]
      s = (s * 1103515245 + 12345) % 2147483648; u = v[int(s / 65536) % 4 + 1]
      s = (s * 1103515245 + 12345) % 2147483648; w = v[int(s / 65536) % 4 + 1]
      s = (s * 1103515245 + 12345) % 2147483648; g = f[int(s / 65536) % 4 + 1]
      s = (s * 1103515245 + 12345) % 2147483648; r = int(s / 65536) % 10
      if (r < 4) printf "  %s = %s * %s * 0.5 + 0.25 * %s;\n", t, u, w, t
      else if (r < 7) printf "  %s = %s(%s) + 0.5 * %s;\n", t, g, u, w
      else printf "  %s = %s - 0.1 * %s * %s(%s);\n", t, t, u, g, w
    }
    print "  return a + b + c + d;\n}"
    print "void g(double *x, double *dx) { __enzyme_autodiff((void *)f, x, dx); }"
  }'
}

# ms STAGE FILE: the milliseconds `--time` printed for STAGE.
ms() { awk -v s="$1" '$0 ~ "^  "s" " { print $(NF-1) }' "$2"; }

printf '%-7s %12s %12s %12s %12s %14s\n' statements "clang -O2" preprocess analyses synthesis post-opt
prev_syn="" prev_an=""
for n in "${sizes[@]}"; do
  gen "$n" >"$dir/s$n.c"
  start=$(date +%s.%N)
  "$clang" -O2 -c -I runtime/include "$dir/s$n.c" -o /dev/null
  primal=$(echo "$(date +%s.%N) - $start" | bc)
  "$clang" -O2 -c -emit-llvm -I runtime/include "$dir/s$n.c" -o "$dir/s$n.bc"
  "$enz" --time "$dir/s$n.bc" -o "$dir/s$n.out.bc" 2>"$dir/s$n.time"
  pre=$(ms preprocess "$dir/s$n.time")
  an=$(ms analyses "$dir/s$n.time")
  syn=$(ms synthesis "$dir/s$n.time")
  post=$(ms post-optimisation "$dir/s$n.time")
  ratio=""
  if [[ -n "$prev_syn" ]]; then
    ratio=$(printf '  (analyses x%.2f, synthesis x%.2f)' \
      "$(echo "$an / $prev_an" | bc -l)" "$(echo "$syn / $prev_syn" | bc -l)")
  fi
  printf '%-7s %10.0f ms %9.1f ms %9.1f ms %9.1f ms %11.1f ms%s\n' \
    "$n" "$(echo "$primal * 1000" | bc)" "$pre" "$an" "$syn" "$post" "$ratio"
  prev_syn=$syn prev_an=$an
done
