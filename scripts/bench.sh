#!/usr/bin/env bash
# ADBench-style benchmarks (bench/adbench): GMM, BA, D-LSTM and hand-tracking
# objectives and an in-place stencil, their gradients (Jacobians) by enz-rs, Enzyme (when ENZYME_PLUGIN is set), ADOL-C,
# hand-written code (GMM) and central finite differences, checked against
# each other, their peak memory measured and timed in one process per size.
# Prints the tables, writes them to BENCHMARKS.md (with the machine, date,
# compiler versions and how long each AD tool took to differentiate each
# file) and a bar chart of gradient/primal ratios to bench/ratios.png.
#
#   scripts/bench.sh [--quick] [--one-process] [gmm] [ba] [lstm] [hand] [stencil]
#
#   --quick    fewer sizes and 20 ms samples: a smoke run; writes its
#              table to target/adbench/ only (BENCHMARKS.md is left alone)
#   --one-process  every size in one process (by default each size runs in
#              a child process of its own: every tool then starts from a
#              fresh heap, whatever the sizes before it left behind)
#   names      only these benchmarks (default all; BENCHMARKS.md is then
#              not written either)
#
# Installs what is missing: scripts/setup.sh's packages (LLVM 22, clang,
# ADOL-C = libadolc-dev) through apt-get, and matplotlib from PyPI into the
# virtual environment target/bench-venv (for the chart; without it the chart
# is skipped with a warning).
#
# Build: enz-rs (cargo, release); gmm.c ba.c lstm.c hand.c stencil.c: clang-22 -O2
# $BENCH_ENZ_CFLAGS -emit-llvm -> enz-rs --time -> object (-O2); harness.c
# main.c: clang-22 -O2; adolc.cpp: clang++-22 -O2; linked with -ladolc. If
# enz-rs fails on one of the five files, that file is compiled without its
# enz-rs gradient (-DNO_ENZ), the other tools are still measured, the table
# says FAIL and the exit status is non-zero.
#
# Enzyme: when ENZYME_PLUGIN names Enzyme's LLVM pass plugin (e.g.
# .../build/Enzyme/LLVMEnzyme-16.so; the LLVM major N is read from the name),
# gmm.c ba.c lstm.c hand.c stencil.c are compiled a second time with -DAD_ENZYME (only the
# objectives and their gradient wrappers, renamed *_enzyme): clang-N -O2
# $BENCH_ENZ_CFLAGS -emit-llvm, opt-N -load-pass-plugin=$ENZYME_PLUGIN
# -passes=enzyme, clang-N -O2 -c; these objects are linked in too (the
# drivers reach them through weak declarations). A file Enzyme cannot build
# reads FAIL in the Enzyme column; that is no error. Without ENZYME_PLUGIN
# the column reads "-" (not run).
#
# Differentiation time: each enz-rs and Enzyme opt run on the five files is
# timed (wall clock, the least of 3 runs) and tabulated in BENCHMARKS.md.
#
# Environment: BENCH_ENZ_CFLAGS flags for the clang step before enz-rs and
# Enzyme (default ADBench's "-fno-vectorize -fno-slp-vectorize
# -fno-unroll-loops"; set it to "" to drop them), BENCH_CFLAGS extra flags
# for every C/C++ compilation (e.g. -march=native), BENCH_ENZ_ARGS extra
# arguments for enz-rs (e.g. "--cache-budget 256"), ENZYME_PLUGIN (above).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/enzyme-plugin.sh
source scripts/enzyme-plugin.sh
root=$PWD

quick=0
one_process=0
args=()
for a in "$@"; do
  case "$a" in
    --quick) quick=1; args+=("$a") ;;
    --one-process) one_process=1; args+=("$a") ;;
    gmm | ba | lstm | hand | stencil) args+=("$a") ;;
    -h | --help) sed -n '2,48p' "$0"; exit 0 ;;
    *) echo "usage: scripts/bench.sh [--quick] [--one-process] [gmm] [ba] [lstm] [hand] [stencil]" >&2; exit 2 ;;
  esac
done
full=1
[[ $quick == 1 || ${#args[@]} -gt $((quick + one_process)) ]] && full=0

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
# ADBench compiles the objectives that go through an AD tool without
# vectorisation and unrolling; BENCH_ENZ_CFLAGS="" drops that
enz_flags_default="-fno-vectorize -fno-slp-vectorize -fno-unroll-loops"
# shellcheck disable=SC2206
enz_extra=(${BENCH_ENZ_CFLAGS-$enz_flags_default})
# shellcheck disable=SC2206
enz_args=(${BENCH_ENZ_ARGS:-})
out=target/adbench
mkdir -p "$out"
log=$out/build.log
: >"$log"

# Enzyme's plugin, and the clang/opt of its LLVM
enzyme_plugin=${ENZYME_PLUGIN:-}
enzyme_failed=()
enzyme_objs=()
if [[ -n $enzyme_plugin ]]; then
  enzyme_llvm=$(enzyme_llvm_major "$enzyme_plugin" clang opt) || exit 2
  eclang=clang-$enzyme_llvm
  eopt=opt-$enzyme_llvm
fi

now() { date +%s.%N; }
# timed CMD...: runs CMD (its output appended to the log), prints its wall
# time in seconds
timed() {
  local a b
  a=$(now)
  "$@" >>"$log" 2>&1 || return 1
  b=$(now)
  echo "$a $b" | awk '{printf "%.6f\n", $2 - $1}'
}
# timed_min NAME CMD...: the least wall time of 3 runs of CMD; the stderr of
# the fastest run is kept in $out/NAME.stderr (a failed run's goes to the
# log)
timed_min() {
  local name=$1 best="" a b w i
  shift
  for i in 1 2 3; do
    a=$(now)
    if ! "$@" >>"$log" 2>"$out/$name.run"; then
      cat "$out/$name.run" >>"$log"
      rm -f "$out/$name.run"
      return 1
    fi
    b=$(now)
    w=$(echo "$a $b" | awk '{printf "%.6f\n", $2 - $1}')
    if [[ -z $best ]] || awk -v w="$w" -v b="$best" 'BEGIN { exit !(w < b) }'; then
      best=$w
      mv "$out/$name.run" "$out/$name.stderr"
    fi
  done
  rm -f "$out/$name.run"
  echo "$best"
}

cargo build --release -q -p enz-rs
src=bench/adbench
inc=(-I runtime/include -I "$src")
for f in harness main; do
  "$clang" -O2 "${extra[@]}" "${inc[@]}" -c "$src/$f.c" -o "$out/$f.o"
done
"$clangxx" -O2 "${extra[@]}" "${inc[@]}" -c "$src/adolc.cpp" -o "$out/adolc.o"

# differentiation times, one line per file: file, enz-rs wall on the
# objectives only (as Enzyme gets them), enz-rs wall on the whole file (the
# build), clang -c wall after it, Enzyme opt wall, clang -c wall after it
# ("-": not run / failed)
dt=$out/difftime.tsv
: >"$dt"
enz_failed=()
for f in gmm ba lstm hand stencil; do
  "$clang" -O2 "${extra[@]}" "${enz_extra[@]}" "${inc[@]}" -c -emit-llvm "$src/$f.c" -o "$out/$f.bc"
  ew=- ec=- zw=- zc=-
  if ew=$(timed_min "$f.enz" target/release/enz-rs "${enz_args[@]}" --time "$out/$f.bc" -o "$out/$f.grad.bc") &&
    target/release/enz-rs "${enz_args[@]}" -S "$out/$f.bc" -o "$out/$f.grad.ll" >>"$log" 2>&1 &&
    ec=$(timed "$clang" -O2 "${extra[@]}" -c "$out/$f.grad.bc" -o "$out/$f.o"); then
    :
  else
    ew=- ec=-
    echo "error: enz-rs failed on $src/$f.c (log: $log); building it without the enz-rs gradient" >&2
    sed 's/^/  /' "$log" | tail -20 >&2
    enz_failed+=("$f.c")
    "$clang" -O2 -DNO_ENZ "${extra[@]}" "${inc[@]}" -c "$src/$f.c" -o "$out/$f.o"
  fi
  if [[ -n $enzyme_plugin ]]; then
    echo "== Enzyme: $f.c" >>"$log"
    if "$eclang" -O2 "${extra[@]}" "${enz_extra[@]}" -DAD_ENZYME "${inc[@]}" -c -emit-llvm \
      "$src/$f.c" -o "$out/$f.enzyme.bc" >>"$log" 2>&1 &&
      zw=$(timed_min "$f.enzyme" "$eopt" -load-pass-plugin="$enzyme_plugin" -passes=enzyme \
        "$out/$f.enzyme.bc" -o "$out/$f.enzyme.ad.bc") &&
      zc=$(timed "$eclang" -O2 "${extra[@]}" -c "$out/$f.enzyme.ad.bc" -o "$out/$f.enzyme.o"); then
      enzyme_objs+=("$out/$f.enzyme.o")
    else
      zw=- zc=-
      echo "warning: Enzyme failed on $src/$f.c (log: $log); its Enzyme column reads FAIL" >&2
      sed 's/^/  /' "$log" | tail -10 >&2
      enzyme_failed+=("$f.c")
    fi
  fi
  # enz-rs on what Enzyme gets (-DAD_ENZYME: the objectives and wrappers
  # only), for the differentiation time table; not linked
  aw=-
  if [[ $ew != - ]] && "$clang" -O2 "${extra[@]}" "${enz_extra[@]}" -DAD_ENZYME "${inc[@]}" -c -emit-llvm \
    "$src/$f.c" -o "$out/$f.adonly.bc" >>"$log" 2>&1; then
    aw=$(timed_min "$f.adonly" target/release/enz-rs "${enz_args[@]}" --time "$out/$f.adonly.bc" -o "$out/$f.adonly.grad.bc") || aw=-
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$f.c" "$aw" "$ew" "$ec" "$zw" "$zc" >>"$dt"
done
"$clangxx" -O2 "${extra[@]}" "$out"/{main,harness,gmm,ba,lstm,hand,stencil,adolc}.o "${enzyme_objs[@]}" \
  -ladolc -lm -lpthread -o "$out/adbench"

# ---- run -------------------------------------------------------------------
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date -u '+%Y-%m-%d %H:%M UTC')
t0=$(date +%s)
rc=0
# ADOL-C may write tape files into the working directory: run in $out
enzyme_arg=()
[[ -n $enzyme_plugin ]] && enzyme_arg=(--enzyme)
(cd "$out" && ./adbench "${enzyme_arg[@]}" --md table.md --tsv results.tsv "${args[@]}") || rc=$?
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
enz_flags=${enz_extra[*]}
if [[ -n $enzyme_plugin ]]; then
  # the version of Enzyme's source, when the plugin sits in its build tree
  ever=""
  ecm=$(dirname "$enzyme_plugin")/../../CMakeLists.txt
  if [[ -f $ecm ]]; then
    ever=$(awk '/set\(ENZYME_(MAJOR|MINOR|PATCH)_VERSION/ { gsub(/\)/, "", $2); v = v (v == "" ? "" : ".") $2 } END { print v }' "$ecm")
  fi
  [[ -n $ever ]] && ever=", Enzyme $ever (from its source's CMakeLists.txt)"
  eopt_ver=$("$eopt" --version | sed -n 's/^ *//; /version/{p;q}')
fi

# the differentiation time table (from $dt and enz-rs --time)
ms() { [[ $1 == - ]] && echo - || awk -v s="$1" 'BEGIN { printf "%.0f ms", s * 1e3 }'; }
difftime_md() {
  local file aw ew ec zw zc stages
  echo "Differentiation time per file (wall clock of the command, the least of 3 runs; the clang steps after it timed once). \"Objectives only\" is what Enzyme gets: the file built with \`-DAD_ENZYME\` (the objectives and their gradient wrappers); the whole file (drivers, hand-written gradient) is what the enz-rs build differentiates. enz-rs's time includes reading and writing the bitcode and its post-AD \`default<O2>\` over the whole module; its stages are from \`enz-rs --time\`, in ms. Enzyme's \`opt\` runs the \`enzyme\` pass alone; the optimisation after it is the \`clang -O2 -c\` step."
  echo
  echo "| file | enz-rs, objectives only | its stages (ms) | enz-rs, whole file | then \`$clang -O2 -c\` | Enzyme \`opt -passes=enzyme\`, objectives only | then \`${eclang:-clang} -O2 -c\` |"
  echo "|---|---:|---|---:|---:|---:|---:|"
  while IFS=$'\t' read -r file aw ew ec zw zc; do
    stages=-
    if [[ $aw != - && -f $out/${file%.c}.adonly.stderr ]]; then
      stages=$(sed -n 's/^  \(.*[a-z]\) *\([0-9.][0-9.]*\) ms$/\1 \2/p; s/^  instructions: \([0-9]*\) before, \([0-9]*\) after.*/instructions \1 -> \2/p' \
        "$out/${file%.c}.adonly.stderr" |
        awk '/^instructions/ { ins = $2 " -> " $4 " instructions"; next }
             { v = $NF; $NF = ""; sub(/ $/, ""); sum += v; s = s (s == "" ? "" : ", ") $0 " " sprintf("%.1f", v) }
             END { printf "%s (sum %.0f); %s", s, sum, ins }')
    fi
    if [[ -z $enzyme_plugin ]]; then
      zw="not run" zc="not run"
    elif [[ $zw == - ]]; then
      zw=FAIL
    else
      zw=$(ms "$zw") zc=$(ms "$zc")
    fi
    [[ $ew == - ]] && ew=FAIL
    [[ $ew != FAIL ]] && ew=$(ms "$ew")
    echo "| $file | $(ms "$aw") | $stages | $ew | $(ms "$ec") | $zw | $zc |"
  done <"$dt"
}

report=$out/BENCHMARKS.md
{
  echo "# Benchmarks: ADBench GMM, BA, D-LSTM and hand tracking; an in-place stencil"
  echo
  echo "Generated by \`scripts/bench.sh\` (sources in \`bench/adbench/\`); do not edit by hand."
  echo
  echo "- date: $start; run took $((t1 - t0)) s"
  echo "- machine: $cpu, $ncpu cores, $mem; $(uname -sr); load average $load_before before, $load_after after"
  if [[ $one_process == 1 ]]; then
    echo "- every size ran in one process (\`--one-process\`): a tool's times may depend on what the sizes before it left in the heap"
  else
    echo "- each size ran in a process of its own (all tools, interleaved): every tool starts from a fresh heap (\`--one-process\` for one process)"
  fi
  echo "- compilers: $($clang --version | head -1); rustc $(rustc --version | cut -d' ' -f2-)"
  enz_cmd=$(echo "$clang -O2 ${extra[*]} ${enz_extra[*]} -c -emit-llvm" | tr -s ' ')
  echo "- enz-rs: commit $commit$dirty; objectives compiled with \`$enz_cmd\`, then \`enz-rs${enz_args[*]:+ ${enz_args[*]}}\` (post-AD \`default<O2>\`), then \`$clang -O2 -c\`"
  if [[ -n $enzyme_plugin ]]; then
    ez_cmd=$(echo "$eclang -O2 ${extra[*]} ${enz_extra[*]} -DAD_ENZYME -c -emit-llvm" | tr -s ' ')
    echo "- Enzyme: plugin \`$(basename "$enzyme_plugin")\`$ever; \`$eopt --version\`: $eopt_ver; objectives compiled with \`$ez_cmd\` (the same source: only the objectives and their \`__enzyme_autodiff\` wrappers, renamed \`*_enzyme\`), then \`$eopt -load-pass-plugin=$(basename "$enzyme_plugin") -passes=enzyme\`, then \`$eclang -O2 -c\`"
  else
    echo "- Enzyme: not run (ENZYME_PLUGIN not set)"
  fi
  if [[ $enz_flags == "$enz_flags_default" ]]; then
    echo "- the files that go through an AD tool (enz-rs and Enzyme) are compiled with \`$enz_flags\` before differentiation, as ADBench does (the default of BENCH_ENZ_CFLAGS; \`BENCH_ENZ_CFLAGS=\` drops them); the optimisation after differentiation runs without them"
  elif [[ -z $enz_flags ]]; then
    echo "- the files that go through an AD tool are compiled without ADBench's \`$enz_flags_default\` (BENCH_ENZ_CFLAGS set to empty)"
  else
    echo "- the files that go through an AD tool are compiled with \`$enz_flags\` before differentiation (BENCH_ENZ_CFLAGS; ADBench's are \`$enz_flags_default\`)"
  fi
  echo "- ADOL-C: Debian libadolc-dev $adolc_ver, objectives as C++ templates (\`adolc.cpp\`), \`$clangxx -O2\`"
  echo
  where="one process per size"
  [[ $one_process == 1 ]] && where="one process"
  echo "What is measured (every time is the median of 11 interleaved samples of >= 100 ms (5 with --quick), per call, in $where):"
  echo
  echo "- **primal**: the C objective (GMM, LSTM: the scalar loss; BA: all 2p reprojection and p weight residuals; Hand: all 3 npts residuals; Stencil: the scalar loss, after copying the initial state into a scratch buffer), the copy in the enz-rs build (compiled as above); every ratio, Enzyme's too, is over this primal."
  echo "- **enz-rs**: one \`__enzyme_autodiff\` call on the objective, parameters \`enzyme_dup\`, data \`enzyme_const\` (GMM: alphas, means, icf; LSTM: main and extra parameters). BA: the Jacobian rows, per observation two \`__enzyme_autodiff\` calls of the per-observation residual function (output shadow seeded with a unit vector) and one of the weight residual. Hand: the full Jacobian (3 npts x 26) in forward mode, 26 \`__enzyme_fwddiff\` calls, the tangent of the pose a unit vector (ADBench's simple hand model: 22 bones, Euler angles for the finger joints, angle-axis global rotation, linear blend skinning; synthetic data, \`hand.c\`). Stencil: \`enzyme_dup\` on the state (a scratch copy of the initial state, made outside the differentiated function), T sweeps of an in-place reaction-diffusion update (\`stencil.c\`)."
  echo "- **Enzyme**: the same calls (the same C source) differentiated by Enzyme's LLVM plugin."
  echo "- **ADOL-C tape+grad**: \`trace_on\` ... \`trace_off\` (taping the objective with \`adouble\`), then the \`gradient()\` driver (a zero-order forward sweep plus a first-order reverse sweep over the tape); BA: per observation a tape and \`jacobian()\` (reverse mode, 3 adjoint directions)."
  echo "- **ADOL-C re-eval**: the driver alone on an existing tape (GMM, LSTM: the tape of the same point; BA: one tape, made at observation 0 with the feature as an extra independent, re-evaluated at every observation)."
  echo "- **hand-written**: the analytic GMM gradient (\`gmm_grad_hand\` in \`gmm.c\`); the stencil's reverse sweep over its stored old values (\`stencil_grad_hand\` in \`stencil.c\`, the trajectory buffer allocated by the driver, so its memory is not measured)."
  echo "- **FD**: central finite differences of the primal, 2 runs per parameter (BA: per observation, 15 parameters; Hand: 26 parameters; Stencil: 16 spot components, checked, not timed); timed only where it is cheap."
  echo "- **ratio**: gradient time / primal time; **speed-up**: ADOL-C time / enz-rs time; **enz-rs / Enzyme**: enz-rs time / Enzyme time."
  echo "- **peak memory**: after the checks and before the timings, one call each of the primal and the enz-rs, Enzyme and hand-written gradients on a fresh thread (so that memory a tool keeps per thread between calls, such as enz-rs's spare cache blocks, counts again), after \`malloc_trim(0)\`: VmRSS is read from \`/proc/self/status\`, the peak is reset (\`5\` written to \`/proc/self/clear_refs\`), the call runs, and VmHWM - VmRSS before is reported, in MB (2^20 bytes)."
  echo "- The benchmarks run in the order BA, LSTM, GMM (ADOL-C keeps global state from large tapes that slows the tiny BA tapes taped afterwards); ADOL-C's buffers are sized so that tapes stay in memory$([[ $spilled == 1 ]] && echo " (**this run it spilled tape files to disk**)")."
  echo
  echo "Before anything is timed every gradient is checked component by component, |got - want| <= rtol (|want| + 1e-3 max_j |want_j|): Enzyme, ADOL-C and the hand-written gradient against enz-rs with rtol 1e-6, FD against enz-rs with rtol 1e-3 (Hand: the whole Jacobian; others in full where that takes <= 4 s of primal runs, otherwise at spot components). A mismatch stops the run."
  echo
  if [[ ${#enz_failed[@]} -gt 0 ]]; then
    echo "**enz-rs failed to build: ${enz_failed[*]}** (see \`$log\`)."
    echo
  fi
  if [[ ${#enzyme_failed[@]} -gt 0 ]]; then
    echo "**Enzyme failed to build: ${enzyme_failed[*]}** (see \`$log\`)."
    echo
  fi
  cat "$out/table.md"
  echo
  difftime_md
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
