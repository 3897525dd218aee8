#!/usr/bin/env bash
# LULESH 2.0's gradient (issue 38): enz-rs, and Enzyme when ENZYME_PLUGIN is
# set, on LLNL's Lagrangian shock-hydrodynamics proxy application.
#
#   scripts/bench-lulesh.sh [--quick] [--sizes "NX:ITS ..."] LULESH_DIR
#
#   LULESH_DIR  a checkout of https://github.com/LLNL/LULESH (2.0: lulesh.cc,
#               lulesh-init.cc, lulesh-util.cc, lulesh-viz.cc, lulesh.h); it
#               is only read, and never belongs in this repository
#   --quick     nx=6, 5 cycles only (a smoke run, seconds)
#   --sizes     the problem sizes (default "20:20 30:20": nx=20 and nx=30,
#               20 cycles each)
#
# The driver, bench/lulesh/driver.cc, includes lulesh.cc (its main renamed;
# TimeIncrement and LagrangeLeapFrog are static there) and differentiates
#
#   double simulate(Domain *d, int its)  // its x (TimeIncrement +
#                                        // LagrangeLeapFrog), then sum of e
#
# by __enzyme_autodiff(simulate, enzyme_dup, d, shadow, enzyme_const, its),
# the shadow a Domain built the same way with every floating-point member
# zeroed. Serial build: -DUSE_MPI=0, no OpenMP.
#
# Build, per tool (the files that go through an AD tool get $BENCH_ENZ_CFLAGS,
# default "-fno-vectorize -fno-slp-vectorize": the Enzyme 0.0.79 build this
# was measured with stops on an assertion in its type analysis on the SLP
# vectoriser's extractelement; BENCH_ENZ_CFLAGS= gives enz-rs the vectorised
# input):
#   enz-rs: clang++-22 -O2 -DUSE_MPI=0 -emit-llvm driver.cc lulesh-init.cc
#           lulesh-util.cc lulesh-viz.cc; llvm-link-22; enz-rs --time
#           $BENCH_ENZ_ARGS (post-AD default<O2>); clang++-22 -O2
#   Enzyme: (ENZYME_PLUGIN=.../LLVMEnzyme-N.so, N the LLVM major) the same
#           with clang++-N and llvm-link-N; opt-N -load-pass-plugin
#           -passes=enzyme; clang++-N -O2
#
# Measured, per tool and size:
#   - differentiation time: wall clock of enz-rs (its whole run: reading,
#     synthesis, post-AD O2, writing), of Enzyme's opt -passes=enzyme, the
#     least of 3 runs; then the clang++ -O2 compile after it, once
#   - gradient / primal: the gradient (one __enzyme_autodiff call) over the
#     primal (one simulate call) of the same executable, each on a fresh
#     Domain whose construction is not timed: medians (and least) of >= 3
#     gradient and >= 5 primal runs (driver time)
#   - peak resident memory: /usr/bin/time -v's maximum resident set size of
#     a process that builds both Domains and runs the gradient once (driver
#     grad), and of one that builds both and runs the primal once (driver
#     primal): "grad - primal" is what the gradient itself holds at its peak
#   - the gradient against central finite differences (driver check) of
#     exactly the function differentiated: the energy of element 0, node
#     coordinates, node velocities (the velocities and one coordinate after
#     3 primal cycles run before simulate, where they are nonzero), also
#     one-sided differences. Two properties of LULESH make the derivative at
#     its own initial state differ from central differences, both
#     legitimately (issue 38's node-coordinate question):
#       * UpdateVolumesForElems snaps |v - 1| < v_cut = 1e-10 to v = 1; in
#         the first cycle nothing moves, every v is exactly 1, so the
#         derivative with respect to an initial coordinate is that of the
#         snapped branch, and a step above ~4e-10/nx leaves it: checked with
#         v_cut = 0 (AD and FD), and with a step inside the band;
#       * the problem is symmetric under permutations of the axes, mirrored
#         elements tie in CalcCourantConstraintForElems' minimum (from cycle
#         5 at nx=6), where the result has a kink: AD gives the slope of the
#         first tied element, central FD the mean of the one-sided slopes;
#     so the checked table starts from the mesh with node (1,1,1) moved by
#     (1, 2, -3) 1e-3 of the spacing (no ties), and a second table, not
#     checked, shows LULESH's symmetric state (kinks: AD = one one-sided
#     slope, or neither where three elements tie). A mismatch in the checked
#     table (relative error above 1e-4; 1e-3 inside the band) fails the run.
#
# The machine may be shared: `uptime` is printed with every size's timings.
# Outputs under target/lulesh/ (the log: build.log).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/enzyme-plugin.sh
source scripts/enzyme-plugin.sh
root=$PWD

sizes="20:20 30:20"
lulesh=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) sizes="6:5" ;;
    --sizes) sizes=$2; shift ;;
    -h | --help) sed -n '2,71p' "$0"; exit 0 ;;
    -*) echo "usage: scripts/bench-lulesh.sh [--quick] [--sizes \"NX:ITS ...\"] LULESH_DIR" >&2; exit 2 ;;
    *) lulesh=$1 ;;
  esac
  shift
done
if [[ -z $lulesh || ! -f $lulesh/lulesh.cc || ! -f $lulesh/lulesh-init.cc ]]; then
  echo "error: LULESH_DIR (a checkout of LLNL/LULESH holding lulesh.cc) is required" >&2
  exit 2
fi
lulesh=$(cd "$lulesh" && pwd)
case "$lulesh/" in
  "$root"/*) echo "error: $lulesh is inside this repository; keep LULESH outside it" >&2; exit 2 ;;
esac
for t in clang++-22 llvm-link-22 /usr/bin/time; do
  command -v "$t" >/dev/null || { echo "error: $t is not installed (scripts/setup.sh; apt-get install time)" >&2; exit 2; }
done

# shellcheck disable=SC2206
enz_extra=(${BENCH_ENZ_CFLAGS--fno-vectorize -fno-slp-vectorize})
# shellcheck disable=SC2206
enz_args=(${BENCH_ENZ_ARGS:-})
out=target/lulesh
mkdir -p "$out"
log=$out/build.log
: >"$log"

enzyme_plugin=${ENZYME_PLUGIN:-}
if [[ -n $enzyme_plugin ]]; then
  n=$(enzyme_llvm_major "$enzyme_plugin" clang++ llvm-link opt) || exit 2
fi

now() { date +%s.%N; }
# min3 CMD...: runs CMD 3 times (output to the log), prints the least wall
# time in seconds; fails when a run fails
min3() {
  local best="" a b w _
  for _ in 1 2 3; do
    a=$(now)
    "$@" >>"$log" 2>&1 || return 1
    b=$(now)
    w=$(echo "$a $b" | awk '{printf "%.3f", $2 - $1}')
    if [[ -z $best ]] || awk -v w="$w" -v b="$best" 'BEGIN { exit !(w < b) }'; then best=$w; fi
  done
  echo "$best"
}
once() {
  local a b
  a=$(now)
  "$@" >>"$log" 2>&1 || return 1
  b=$(now)
  echo "$a $b" | awk '{printf "%.3f", $2 - $1}'
}

# build TOOL CLANGXX LLVM_LINK: the module of the driver and LULESH (AD input)
build_module() {
  local dir=$1 cxx=$2 link=$3 f
  mkdir -p "$dir"
  for f in "$root/bench/lulesh/driver.cc" "$lulesh/lulesh-init.cc" "$lulesh/lulesh-util.cc" "$lulesh/lulesh-viz.cc"; do
    "$cxx" -O2 "${enz_extra[@]}" -DUSE_MPI=0 -I "$lulesh" -c -emit-llvm "$f" -o "$dir/$(basename "$f" .cc).bc" >>"$log" 2>&1
  done
  "$link" "$dir"/driver.bc "$dir"/lulesh-init.bc "$dir"/lulesh-util.bc "$dir"/lulesh-viz.bc -o "$dir/lulesh.bc"
}

tools=()
declare -A dtime ctime stages
echo "building (log: $log) ..."
cargo build --release -q -p enz-rs
build_module "$out/enz" clang++-22 llvm-link-22
if dtime[enz-rs]=$(min3 target/release/enz-rs "${enz_args[@]}" --time "$out/enz/lulesh.bc" -o "$out/enz/grad.bc") &&
  ctime[enz-rs]=$(once clang++-22 -O2 "$out/enz/grad.bc" -lm -o "$out/lulesh-enz-rs"); then
  tools+=(enz-rs)
  target/release/enz-rs "${enz_args[@]}" --time "$out/enz/lulesh.bc" -o "$out/enz/grad.bc" 2>"$out/enz/time.txt"
  stages[enz-rs]=$(sed -n 's/^  \(.*[a-z]\) *\([0-9.][0-9.]*\) ms$/\1 \2/p' "$out/enz/time.txt" |
    awk '{ v = $NF; $NF = ""; sub(/ $/, ""); s = s (s == "" ? "" : ", ") $0 " " sprintf("%.0f", v) } END { print s " (ms)" }')
else
  echo "error: enz-rs failed on LULESH (log: $log)" >&2
  tail -20 "$log" >&2
fi
if [[ -n $enzyme_plugin ]]; then
  n=$(basename "$enzyme_plugin" | sed -n 's/.*-\([0-9][0-9]*\)\.so$/\1/p')
  if build_module "$out/enzyme" "clang++-$n" "llvm-link-$n" &&
    dtime[Enzyme]=$(min3 "opt-$n" -load-pass-plugin="$enzyme_plugin" -passes=enzyme "$out/enzyme/lulesh.bc" -o "$out/enzyme/grad.bc") &&
    ctime[Enzyme]=$(once "clang++-$n" -O2 "$out/enzyme/grad.bc" -lm -o "$out/lulesh-Enzyme"); then
    tools+=(Enzyme)
    stages[Enzyme]="opt-$n -passes=enzyme"
  else
    echo "warning: Enzyme failed on LULESH (log: $log); its rows are left out" >&2
    grep -v '^ *#' "$log" | tail -10 >&2
  fi
fi
[[ ${#tools[@]} -gt 0 ]] || exit 1

rss() { # max resident set size in MB of a command
  /usr/bin/time -v "$@" 2>&1 >/dev/null | awk -F: '/Maximum resident set size/ { printf "%.0f", $2 / 1024 }'
}

echo
echo "LULESH 2.0 ($lulesh), serial; AD input flags: -O2 ${enz_extra[*]}; $(nproc) cores: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo
echo "| tool | differentiation | then clang++ -O2 | stages |"
echo "|---|---:|---:|---|"
for t in "${tools[@]}"; do
  echo "| $t | ${dtime[$t]} s | ${ctime[$t]} s | ${stages[$t]} |"
done
fail=0
summary=$out/summary.md
: >"$summary"
for sz in $sizes; do
  nx=${sz%%:*} its=${sz##*:}
  echo
  echo "== nx=$nx, $its cycles; uptime before: $(uptime | sed 's/.*load/load/')"
  for t in "${tools[@]}"; do
    exe=$out/lulesh-$t
    echo "-- $t: gradient against central finite differences"
    if ! "$exe" check "$nx" "$its" | tee "$out/check-$t-$nx-$its.txt"; then
      fail=1
      echo "   $t: MISMATCH (above)"
    fi
  done
  echo
  echo "| nx=$nx, $its cycles | primal | gradient | gradient / primal (median; least) | peak RSS grad | peak RSS primal | grad - primal | d(sum e)/d e[0] | FD check |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---|"
  for t in "${tools[@]}"; do
    exe=$out/lulesh-$t
    "$exe" time "$nx" "$its" >"$out/time-$t-$nx-$its.txt"
    read -r _ pm _ < <(grep '^primal_s' "$out/time-$t-$nx-$its.txt")
    read -r _ gm _ < <(grep '^grad_s' "$out/time-$t-$nx-$its.txt")
    read -r _ rm rmin < <(grep '^ratio' "$out/time-$t-$nx-$its.txt")
    mg=$(rss "$exe" grad "$nx" "$its")
    mp=$(rss "$exe" primal "$nx" "$its")
    de0=$("$exe" grad "$nx" "$its" | awk '{ print $2 }')
    ok=$(grep -q MISMATCH "$out/check-$t-$nx-$its.txt" && echo "MISMATCH" || echo ok)
    ok="$ok ($(grep -c 'kink:' "$out/check-$t-$nx-$its.txt" || true) kinks at the symmetric state)"
    row="| $t | $(awk -v s="$pm" 'BEGIN{printf "%.1f ms", s*1e3}') | $(awk -v s="$gm" 'BEGIN{printf "%.0f ms", s*1e3}') | $rm; $rmin | $mg MB | $mp MB | $((mg - mp)) MB | $(printf '%.10g' "$de0") | $ok |"
    echo "$row"
    echo "nx=$nx its=$its $row" >>"$summary"
  done
  echo "uptime after: $(uptime | sed 's/.*load/load/')"
done
exit "$fail"
