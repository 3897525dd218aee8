#!/usr/bin/env bash
# ADBench-style benchmarks (bench/adbench): GMM, BA and D-LSTM objectives,
# their gradients by enz-rs, ADOL-C, hand-written code (GMM) and central
# finite differences, checked against each other and timed in one process.
# Prints the table, writes it to BENCHMARKS.md (with the machine, date and
# compiler versions) and a bar chart of gradient/primal ratios to
# bench/ratios.png.
#
#   scripts/bench.sh [--quick] [gmm] [ba] [lstm]
#
#   --quick    fewer sizes and 20 ms samples: a smoke run; writes its
#              table to target/adbench/ only (BENCHMARKS.md is left alone)
#   names      only these benchmarks (default all; BENCHMARKS.md is then
#              not written either)
#
# Installs what is missing: scripts/setup.sh's packages (LLVM 22, clang,
# ADOL-C = libadolc-dev) through apt-get, and matplotlib from PyPI into the
# virtual environment target/bench-venv (for the chart; without it the chart
# is skipped with a warning).
#
# Build: enz-rs (cargo, release); gmm.c ba.c lstm.c: clang-22 -O2 -emit-llvm
# -> enz-rs -> object (-O2); harness.c main.c: clang-22 -O2; adolc.cpp:
# clang++-22 -O2; linked with -ladolc. If enz-rs fails on one of the three
# files, that file is compiled without its enz-rs gradient (-DNO_ENZ), the
# other tools are still measured, the table says FAIL and the exit status is
# non-zero.
#
# Environment: BENCH_ENZ_CFLAGS extra flags for the clang step before enz-rs
# (e.g. "-fno-vectorize -fno-slp-vectorize -fno-unroll-loops"), BENCH_CFLAGS
# extra flags for every C/C++ compilation (e.g. -march=native).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

quick=0
args=()
for a in "$@"; do
  case "$a" in
    --quick) quick=1; args+=("$a") ;;
    gmm | ba | lstm) args+=("$a") ;;
    -h | --help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "usage: scripts/bench.sh [--quick] [gmm] [ba] [lstm]" >&2; exit 2 ;;
  esac
done
full=1
[[ $quick == 1 || ${#args[@]} -gt $quick ]] && full=0

# ---- what the run needs ----------------------------------------------------
bash scripts/setup.sh >/dev/null
if ! dpkg-query -W -f='${Status}' libadolc-dev 2>/dev/null | grep -q "install ok installed"; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libadolc-dev
fi

venv=target/bench-venv
plot_ok=0
if [[ -x $venv/bin/python ]] && $venv/bin/python -c "import matplotlib" 2>/dev/null; then
  plot_ok=1
elif python3 -m venv "$venv" >/dev/null 2>&1 &&
  "$venv/bin/pip" install -q --disable-pip-version-check matplotlib >/dev/null 2>&1; then
  plot_ok=1
else
  echo "warning: could not set up matplotlib in $venv: no chart" >&2
fi

# ---- build -----------------------------------------------------------------
clang=clang-22
clangxx=clang++-22
# shellcheck disable=SC2206
extra=(${BENCH_CFLAGS:-})
# shellcheck disable=SC2206
enz_extra=(${BENCH_ENZ_CFLAGS:-})
out=target/adbench
mkdir -p "$out"
log=$out/build.log
: >"$log"

cargo build --release -q -p enz-rs
src=bench/adbench
inc=(-I runtime/include -I "$src")
for f in harness main; do
  "$clang" -O2 "${extra[@]}" "${inc[@]}" -c "$src/$f.c" -o "$out/$f.o"
done
"$clangxx" -O2 "${extra[@]}" "${inc[@]}" -c "$src/adolc.cpp" -o "$out/adolc.o"

enz_failed=()
for f in gmm ba lstm; do
  "$clang" -O2 "${extra[@]}" "${enz_extra[@]}" "${inc[@]}" -c -emit-llvm "$src/$f.c" -o "$out/$f.bc"
  if target/release/enz-rs "$out/$f.bc" -o "$out/$f.grad.bc" >>"$log" 2>&1 &&
    target/release/enz-rs -S "$out/$f.bc" -o "$out/$f.grad.ll" >>"$log" 2>&1 &&
    "$clang" -O2 "${extra[@]}" -c "$out/$f.grad.bc" -o "$out/$f.o" >>"$log" 2>&1; then
    :
  else
    echo "error: enz-rs failed on $src/$f.c (log: $log); building it without the enz-rs gradient" >&2
    sed 's/^/  /' "$log" | tail -20 >&2
    enz_failed+=("$f.c")
    "$clang" -O2 -DNO_ENZ "${extra[@]}" "${inc[@]}" -c "$src/$f.c" -o "$out/$f.o"
  fi
done
"$clangxx" -O2 "${extra[@]}" "$out"/{main,harness,gmm,ba,lstm,adolc}.o -ladolc -lm -o "$out/adbench"

# ---- run -------------------------------------------------------------------
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date -u '+%Y-%m-%d %H:%M UTC')
t0=$(date +%s)
rc=0
# ADOL-C may write tape files into the working directory: run in $out
(cd "$out" && ./adbench --md table.md --tsv results.tsv "${args[@]}") || rc=$?
t1=$(date +%s)
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
spilled=0
if compgen -G "$out/ADOLC-*.tap" >/dev/null; then
  spilled=1
  echo "warning: ADOL-C wrote tape files (its buffers overflowed): its times include file I/O" >&2
  rm -f "$out"/ADOLC-*.tap
fi
if [[ $rc -ne 0 && $rc -ne 4 ]]; then
  echo "error: the benchmark program failed (exit $rc); nothing written" >&2
  exit "$rc"
fi

# ---- report ----------------------------------------------------------------
if [[ $plot_ok == 1 ]]; then
  "$venv/bin/python" "$src/plot.py" "$out/results.tsv" "$out/ratios.png" \
    "ADBench-style gradients: time / primal time" || plot_ok=0
fi

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
ncpu=$(nproc)
mem=$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=""
git diff --quiet HEAD -- crates 2>/dev/null || dirty=" (with uncommitted changes in crates/)"
adolc_ver=$(dpkg-query -W -f='${Version}' libadolc-dev 2>/dev/null || echo unknown)
report=$out/BENCHMARKS.md
{
  echo "# Benchmarks: ADBench GMM, BA and D-LSTM"
  echo
  echo "Generated by \`scripts/bench.sh\` (sources in \`bench/adbench/\`); do not edit by hand."
  echo
  echo "- date: $start; run took $((t1 - t0)) s"
  echo "- machine: $cpu, $ncpu cores, $mem; $(uname -sr); load average $load_before before, $load_after after"
  echo "- compilers: $($clang --version | head -1); rustc $(rustc --version | cut -d' ' -f2-)"
  enz_cmd=$(echo "$clang -O2 ${extra[*]} ${enz_extra[*]} -c -emit-llvm" | tr -s ' ')
  echo "- enz-rs: commit $commit$dirty; objectives compiled with \`$enz_cmd\`, then \`enz-rs\` (post-AD \`default<O2>\`), then \`$clang -O2 -c\`"
  echo "- ADOL-C: Debian libadolc-dev $adolc_ver, objectives as C++ templates (\`adolc.cpp\`), \`$clangxx -O2\`"
  echo
  echo "What is measured (every time is the median of >= 5 samples of >= 100 ms, per call, in one process):"
  echo
  echo "- **primal**: the C objective (GMM, LSTM: the scalar loss; BA: all 2p reprojection and p weight residuals)."
  echo "- **enz-rs**: one \`__enzyme_autodiff\` call on the objective, parameters \`enzyme_dup\`, data \`enzyme_const\` (GMM: alphas, means, icf; LSTM: main and extra parameters). BA: the Jacobian rows, per observation two \`__enzyme_autodiff\` calls of the per-observation residual function (output shadow seeded with a unit vector) and one of the weight residual."
  echo "- **ADOL-C tape+grad**: \`trace_on\` ... \`trace_off\` (taping the objective with \`adouble\`), then the \`gradient()\` driver (a zero-order forward sweep plus a first-order reverse sweep over the tape); BA: per observation a tape and \`jacobian()\` (reverse mode, 3 adjoint directions)."
  echo "- **ADOL-C re-eval**: the driver alone on an existing tape (GMM, LSTM: the tape of the same point; BA: one tape, made at observation 0 with the feature as an extra independent, re-evaluated at every observation)."
  echo "- **hand-written**: the analytic GMM gradient (\`gmm_grad_hand\` in \`gmm.c\`)."
  echo "- **FD**: central finite differences of the primal, 2 runs per parameter (BA: per observation, 15 parameters); timed only where it is cheap."
  echo "- **ratio**: gradient time / primal time; **speed-up**: ADOL-C time / enz-rs time."
  echo "- The benchmarks run in the order BA, LSTM, GMM (ADOL-C keeps global state from large tapes that slows the tiny BA tapes taped afterwards); ADOL-C's buffers are sized so that tapes stay in memory$([[ $spilled == 1 ]] && echo " (**this run it spilled tape files to disk**)")."
  echo
  echo "Before anything is timed every gradient is checked component by component, |got - want| <= rtol (|want| + 1e-3 max_j |want_j|): ADOL-C and the hand-written gradient against enz-rs with rtol 1e-6, FD against enz-rs with rtol 1e-3 (in full where that takes <= 4 s of primal runs, otherwise at spot components). A mismatch stops the run."
  echo
  if [[ ${#enz_failed[@]} -gt 0 ]]; then
    echo "**enz-rs failed to build: ${enz_failed[*]}** (see \`$log\`)."
    echo
  fi
  cat "$out/table.md"
  echo
  if [[ $plot_ok == 1 ]]; then
    echo "![gradient / primal ratios](bench/ratios.png)"
  fi
} >"$report"

if [[ $full == 1 ]]; then
  cp "$report" BENCHMARKS.md
  [[ $plot_ok == 1 ]] && cp "$out/ratios.png" bench/ratios.png
  echo
  echo "wrote BENCHMARKS.md$([[ $plot_ok == 1 ]] && echo " and bench/ratios.png")"
else
  echo
  echo "wrote $report$([[ $plot_ok == 1 ]] && echo " and $out/ratios.png") (partial run: BENCHMARKS.md unchanged)"
fi
echo "run: $((t1 - t0)) s, load average $load_before -> $load_after"
if [[ ${#enz_failed[@]} -gt 0 ]]; then
  echo "error: enz-rs failed on: ${enz_failed[*]}" >&2
  exit 1
fi
[[ $rc -eq 0 ]] || exit "$rc"
