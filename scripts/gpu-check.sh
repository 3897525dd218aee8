#!/usr/bin/env bash
# gpu-check.sh -- run the cuda_tests kernels on a real NVIDIA GPU, compare them
# with the CPU SIMT emulator, and time them. Two steps, which may run on two
# machines (a GPU machine typically has nvcc and the CUDA driver but no LLVM 22):
#
#   scripts/gpu-check.sh prepare DIR [KERNEL...]   here: clang-22, llc-22, enz-rs
#   scripts/gpu-check.sh run [--fake-gpu] DIR      there: bash, nvcc, the driver
#   bash DIR/run.sh [--fake-gpu]                   the same, from DIR's own copy
#   scripts/gpu-check.sh [--fake-gpu] [KERNEL...]  both, in a temporary DIR
#                                                  (GPU_CHECK_DIR to choose it)
#
# KERNELs are cuda_tests names; the default is every kernel with a gradient:
# axpy reduce stencil loop lbm hmlstm hmlstm_chunk hmlstm_chunk_reverse
# gridstride gridstride_mixed xsbench (hmlstm_chunk_reverse is skipped, with a
# note, while cuda_tests/hmlstm_chunk_reverse.cu does not exist).
#
# prepare, per kernel, into DIR/KERNEL/:
#   1. device compile with clang-22 (-O2, no CUDA SDK), and again with -DNO_AD
#      (the kernel's hand-written gradient);
#   2. `enz-rs k.bc ENZ-ARGS -o enz.bc` (ENZ-ARGS: the kernel's `// enz-args:`
#      lines, as crates/enz-rs/tests/cuda_tests.rs passes them);
#   3. `llc -march=nvptx64` -> enz.ptx, hand.ptx;
#   4. the references: each NVPTX module of step 3 retargeted to the host as it
#      is (`enz-rs M.bc -O0 --emulate-host`, no second differentiation), built
#      as a shared object and run on the emulator by gpu/gpu_driver.c for each
#      of the kernel's configurations (loop at 1, 20, 64 and 1000 steps) ->
#      enz.CONFIG.bin, hand.CONFIG.bin (every buffer after the primal and after
#      the gradient; none for hand-written gradients that cannot take a
#      configuration, loop's beyond 64 steps);
# and copies gpu_driver.c (with fake/ and the emulator, for --fake-gpu) and
# this script into DIR, so that DIR can be copied to the GPU machine. It
# prints a table of the kernels: configurations, PTX sizes, and a scan of
# each PTX module (dynamic `alloca`, `atom.`/`red.` instructions, the largest
# __local_depot frame, external calls), enz-rs's against the hand-written's,
# and whether the two gradients agree on the emulator.
#
# run builds gpu_driver.c with nvcc (-lcuda) and, per kernel, in one process
# each (a launch error poisons its CUDA context):
#   - every configuration, with enz-rs's PTX and with the hand-written PTX:
#     loads it (cuModuleLoadDataEx with no JIT option but the error log, at
#     CUDA's default stack and heap limits), runs the primal and the
#     gradient, compares every buffer with the reference from the emulator;
#   - the large configuration (e.g. hmlstm 4096 x 4096, one element a thread;
#     hmlstm_chunk the same, 128 elements a thread): median of 11 launches of
#     the primal, the hand-written gradient and enz-rs's, and the two
#     gradients' results compared with each other.
# It prints markdown tables (also in DIR/results/summary.md; logs in
# DIR/results/) and exits 1 on any mismatch, launch or load error, or kernel
# that prepare could not make. Meant to take about a minute on an H200 (not
# measured yet: 3 minutes is the budget).
#
# Without nvcc, the one-shot form prints "no GPU: skipped" and exits 0; run
# fails. --fake-gpu runs the run step on the emulator through a stand-in for
# the driver API (cuda_tests/gpu/fake/, built with clang: only where prepare
# ran), to test this script without a GPU; its times are the emulator's.
# prepare and --fake-gpu need x86-64 (the emulator's kernel calls).
#
# Environment: ENZ_RS (an enz-rs binary; default: cargo build --release),
# ENZ_CLANG, ENZ_LLC (LLVM 22 tools), GPU_SM, GPU_PTX (the PTX target;
# default sm_80 and ptx80, which CUDA 12+ drivers JIT for newer GPUs),
# NVCC (default nvcc, else /usr/local/cuda/bin/nvcc), GPU_CHECK_TIMEOUT
# (seconds per process, default 120).
set -uo pipefail

script=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")
root=$(cd "$(dirname "$script")/.." && pwd)
default_kernels=(axpy reduce stencil loop lbm hmlstm hmlstm_chunk hmlstm_chunk_reverse
  gridstride gridstride_mixed xsbench)
optional_kernels=" hmlstm_chunk_reverse "

die() {
  echo "gpu-check: $*" >&2
  exit 2
}

usage() {
  sed -n '2,/^set -uo/p' "$script" | sed '$d; s/^# \{0,1\}//'
  exit 2
}

find_tool() { # ENV_VALUE versioned plain
  if [[ -n $1 ]]; then
    echo "$1"
  elif command -v "$2" >/dev/null 2>&1; then
    command -v "$2"
  elif [[ -x /usr/lib/llvm-22/bin/$3 ]]; then
    echo "/usr/lib/llvm-22/bin/$3"
  else
    return 1
  fi
}

find_nvcc() {
  if [[ -n ${NVCC:-} ]]; then
    command -v "$NVCC"
  elif command -v nvcc >/dev/null 2>&1; then
    command -v nvcc
  elif [[ -x /usr/local/cuda/bin/nvcc ]]; then
    echo /usr/local/cuda/bin/nvcc
  else
    return 1
  fi
}

# A markdown table cell: no pipes, no newlines.
cell() { printf '%s' "$*" | tr '|\n' '/ '; }

# ptx_scan FILE: "BYTES ALLOCAS ATOMICS DEPOT EXTERNS" of a PTX module
# (ALLOCAS: dynamic `alloca` instructions; ATOMICS: atom./red.
# instructions; DEPOT: the largest __local_depot frame in bytes; EXTERNS:
# the external functions it calls, comma-separated, or -).
ptx_scan() {
  local f=$1 pred='^[[:space:]]*(@!?%[[:alnum:]_]+[[:space:]]+)?'
  if [[ ! -f $f ]]; then
    echo "- - - - -"
    return
  fi
  local bytes allocas atomics depot externs
  bytes=$(wc -c <"$f" | tr -d ' ')
  allocas=$(grep -cE "${pred}alloca\." "$f")
  atomics=$(grep -cE "${pred}(atom|red)\." "$f")
  depot=$(sed -n 's/.*__local_depot[0-9]*\[\([0-9]*\)\].*/\1/p' "$f" | sort -n | tail -n1)
  externs=$(sed -n 's/^[[:space:]]*\.extern \.func[[:space:]]*\(([^)]*)\)\{0,1\}[[:space:]]*\([[:alnum:]_$.]*\).*/\2/p' "$f" |
    sort -u | paste -sd, -)
  echo "$bytes $allocas $atomics ${depot:-0} ${externs:--}"
}

# ---- prepare -------------------------------------------------------------
prepare() {
  [[ $# -ge 1 ]] || usage
  local dir=$1
  shift
  local kernels=("$@")
  [[ ${#kernels[@]} -gt 0 ]] || kernels=("${default_kernels[@]}")
  [[ -d $root/cuda_tests && -f $root/cuda_tests/gpu/gpu_driver.c ]] ||
    die "prepare needs an enz-rs checkout ($root/cuda_tests not found)"
  [[ $(uname -m) == x86_64 ]] || die "prepare needs x86-64 (the emulator's kernel calls)"

  local clang llc enz_rs
  clang=$(find_tool "${ENZ_CLANG:-}" clang-22 clang) || die "clang-22 not found (run scripts/setup.sh)"
  llc=$(find_tool "${ENZ_LLC:-}" llc-22 llc) || die "llc-22 not found (run scripts/setup.sh)"
  if [[ -n ${ENZ_RS:-} ]]; then
    enz_rs=$ENZ_RS
  else
    echo "building enz-rs (cargo build --release -p enz-rs)..."
    (cd "$root" && cargo build --release -q -p enz-rs) || die "cannot build enz-rs"
    enz_rs=$root/target/release/enz-rs
  fi
  [[ -x $enz_rs ]] || die "no enz-rs at $enz_rs"
  local sm=${GPU_SM:-sm_80} ptx=${GPU_PTX:-ptx80}

  mkdir -p "$dir" || die "cannot create $dir"
  dir=$(cd "$dir" && pwd)
  echo "gpu-check prepare: $dir ($sm +$ptx)"
  rm -rf "$dir/driver" "$dir/work" "$dir/results"
  mkdir -p "$dir/driver/fake" "$dir/driver/emu" "$dir/work"
  cp "$root/cuda_tests/gpu/gpu_driver.c" "$dir/driver/"
  cp "$root/cuda_tests/gpu/fake/cuda.h" "$root/cuda_tests/gpu/fake/fake_cuda.c" "$dir/driver/fake/"
  cp "$root/runtime/emu/emu.c" "$root/runtime/emu/emu.h" "$dir/driver/emu/"
  cp "$script" "$dir/gpu-check.sh"
  cat >"$dir/run.sh" <<'EOF'
#!/usr/bin/env bash
# Runs the kernels prepared here on the GPU: bash run.sh [--fake-gpu]
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
exec bash "$here/gpu-check.sh" run "$@" "$here"
EOF
  chmod +x "$dir/run.sh" "$dir/gpu-check.sh"

  local emu_ref=$dir/work/emu_ref
  "$clang" -O2 -I "$dir/driver/emu" "$dir/driver/gpu_driver.c" "$dir/driver/emu/emu.c" \
    -rdynamic -ldl -lpthread -lm -o "$emu_ref" 2>"$dir/work/emu_ref.log" ||
    die "cannot build the emulator's driver (see $dir/work/emu_ref.log)"

  local commit
  commit=$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)
  {
    echo "# gpu-check manifest: KERNEL CONFIG... (the large configuration is implicit)"
    echo "# prepared $(date -u +%Y-%m-%dT%H:%MZ) from enz-rs $commit, $sm +$ptx, clang -O2"
  } >"$dir/manifest"

  local cuda_flags=(-x cuda --cuda-device-only "--cuda-gpu-arch=$sm" -nocudainc -nocudalib
    -Xclang -target-feature -Xclang "+$ptx" -O2 -emit-llvm -c -I "$root/runtime/include")
  local llc_flags=(-march=nvptx64 "-mcpu=$sm" "-mattr=+$ptx")
  local failed=0 k rows=()

  for k in "${kernels[@]}"; do
    local src=$root/cuda_tests/$k.cu w=$dir/work/$k o=$dir/$k
    if [[ ! -f $src ]]; then
      if [[ $optional_kernels == *" $k "* ]]; then
        echo "== $k: cuda_tests/$k.cu does not exist (yet): skipped"
        rows+=("| $k | - | absent: skipped | - | - | - | - | - |")
        continue
      fi
      echo "== $k: no cuda_tests/$k.cu"
      rows+=("| $k | - | **no cuda_tests/$k.cu** | - | - | - | - | - |")
      failed=1
      continue
    fi
    echo "== $k"
    rm -rf "$w" "$o"
    mkdir -p "$w" "$o"
    local args=() line words
    while IFS= read -r line; do
      read -ra words <<<"$line"
      args+=("${words[@]}")
    done < <(sed -n 's|^[[:space:]]*// enz-args:||p' "$src")
    local problems=() variants=()
    if ! "$clang" "${cuda_flags[@]}" "$src" -o "$w/k.bc" 2>"$w/compile.log"; then
      problems+=("device compile failed")
    elif "$enz_rs" "$w/k.bc" "${args[@]}" -o "$w/enz.bc" 2>"$w/enz-rs.log"; then
      variants+=(enz)
    else
      problems+=("enz-rs failed: $(grep -m1 . "$w/enz-rs.log")")
    fi
    if "$clang" "${cuda_flags[@]}" -DNO_AD "$src" -o "$w/hand.bc" 2>"$w/compile-hand.log"; then
      variants+=(hand)
    else
      problems+=("device compile -DNO_AD failed")
    fi
    local v ok_variants=()
    for v in "${variants[@]}"; do
      if ! "$llc" "${llc_flags[@]}" "$w/$v.bc" -o "$o/$v.ptx" 2>"$w/llc-$v.log"; then
        problems+=("llc failed on $v.bc (see work/$k/llc-$v.log)")
        rm -f "$o/$v.ptx"
      elif ! { "$enz_rs" "$w/$v.bc" -O0 -o "$w/$v.emu.ll" -S --emulate-host &&
        "$clang" -shared -fPIC -Wl,-Bsymbolic "$w/$v.emu.ll" -o "$w/$v.emu.so"; } 2>"$w/emu-$v.log"; then
        problems+=("the $v module does not build for the emulator (see work/$k/emu-$v.log)")
      else
        ok_variants+=("$v")
      fi
    done
    local configs=() cfg flag emu_cmp=()
    while read -r cfg flag; do
      [[ -n $cfg ]] || continue
      configs+=("$cfg")
      local made=()
      for v in "${ok_variants[@]}"; do
        if [[ $v == hand && $flag == no-hand ]]; then
          continue
        fi
        if "$emu_ref" ref "$k" "$cfg" "$w/$v.emu.so" "$o/$v.$cfg.bin" >>"$w/emu-run.log" 2>&1; then
          made+=("$v")
        else
          problems+=("the emulator failed on $v $cfg (see work/$k/emu-run.log)")
          rm -f "$o/$v.$cfg.bin"
        fi
      done
      if [[ ${made[*]} == "enz hand" ]]; then
        if "$emu_ref" diff "$k" "$cfg" "$o/enz.$cfg.bin" "$o/hand.$cfg.bin" >"$w/diff.$cfg.log" 2>&1; then
          emu_cmp+=("$cfg =")
        else
          emu_cmp+=("$cfg **differ** ($(grep -o '[0-9]* mismatches' "$w/diff.$cfg.log"))")
        fi
      elif [[ ${made[*]} == enz ]]; then
        emu_cmp+=("$cfg (enz-rs only)")
      else
        emu_cmp+=("$cfg (${made[*]:-none})")
      fi
    done < <("$emu_ref" configs "$k" 2>>"$w/emu-run.log")
    [[ ${#configs[@]} -gt 0 ]] || problems+=("gpu_driver.c has no configuration for $k")
    echo "$k ${configs[*]}" >>"$dir/manifest"
    if [[ ${#problems[@]} -gt 0 ]]; then
      failed=1
      printf '%s\n' "${problems[@]}" >"$o/problems"
      printf '  %s\n' "${problems[@]}"
    fi
    local se sh
    read -ra se < <(ptx_scan "$o/enz.ptx")
    read -ra sh < <(ptx_scan "$o/hand.ptx")
    local emu_summary
    emu_summary=$(
      IFS=,
      echo "${emu_cmp[*]}"
    )
    emu_summary=$(cell "${emu_summary//,/, }")
    [[ ${#problems[@]} -eq 0 ]] || emu_summary="$emu_summary **$(cell "${problems[*]}")**"
    rows+=("| $k | $(cell "${args[*]:--}") | $emu_summary | ${se[0]} / ${sh[0]} | ${se[1]} / ${sh[1]} | ${se[2]} / ${sh[2]} | ${se[3]} / ${sh[3]} | $(cell "${se[4]} / ${sh[4]}") |")
  done

  echo
  echo "Prepared in $dir (PTX for $sm +$ptx). Each PTX module holds the primal kernel too (the same in"
  echo "both); emulator: whether enz-rs's and the hand-written gradient agree there, per configuration."
  echo
  echo "| kernel | enz-args | configurations (emulator: enz-rs = hand-written) | PTX bytes enz-rs / hand | dynamic alloca | atom/red | largest local frame B | external calls |"
  echo "|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "On the GPU machine: copy $dir there, then: bash $(basename "$dir")/run.sh"
  return $failed
}

# ---- run -----------------------------------------------------------------
# cuda_error ERR: "NAME in WHAT" from the driver's first "CUDA error in WHAT: NAME (...)".
cuda_error() {
  grep -m1 '^CUDA error in' "$1" | sed 's/^CUDA error in \(.*\): \([A-Z_0-9]*\).*/\2 in \1/'
}

# verdict LOG ERR RC: a table cell for one `drv check`.
verdict() {
  local log=$1 err=$2 rc=$3 cmp e
  cmp=$(sed -n 's/^compare: \([0-9]*\) values, \([0-9]*\) mismatches/\1 \2/p' "$log")
  if [[ $rc -eq 0 && -n $cmp ]]; then
    echo "ok (${cmp% *})"
    return 0
  fi
  if [[ $rc -eq 124 || $rc -eq 137 ]]; then
    echo "**timeout**"
  elif [[ -n $cmp ]]; then
    echo "**MISMATCH** ${cmp#* } of ${cmp% *}: $(cell "$(grep -m1 '^MISMATCH' "$log" | sed 's/^MISMATCH //')")"
  elif e=$(cuda_error "$err") && [[ -n $e ]]; then
    echo "**$e**"
  elif e=$(grep -m1 '^load error' "$log"); then
    echo "**JIT refused: $(cell "${e#*JIT log: }")**"
  else
    echo "**exit $rc: $(cell "$(grep -m1 . "$err")")**"
  fi
  return 1
}

ratio() { # A B: A / B, or -
  awk -v a="$1" -v b="$2" 'BEGIN { if (a ~ /^[0-9.]+$/ && b ~ /^[0-9.]+$/ && b > 0) printf "%.2f", a / b; else printf "-" }'
}

run_step() {
  local fake=0 dir=""
  while [[ $# -gt 0 ]]; do
    case $1 in
    --fake-gpu) fake=1 ;;
    -h | --help) usage ;;
    -*) die "run: unknown option $1" ;;
    *)
      [[ -z $dir ]] || die "run: one DIR only"
      dir=$1
      ;;
    esac
    shift
  done
  [[ -n $dir ]] || usage
  [[ -f $dir/manifest ]] || die "$dir/manifest not found: not a prepared directory (gpu-check.sh prepare DIR)"
  dir=$(cd "$dir" && pwd)
  local out=$dir/results drv
  rm -rf "$out"
  mkdir -p "$out"
  drv=$out/drv
  local gpu_name
  if [[ $fake -eq 1 ]]; then
    [[ $(uname -m) == x86_64 ]] || die "--fake-gpu needs x86-64"
    local clang
    clang=$(find_tool "${ENZ_CLANG:-}" clang-22 clang) || die "--fake-gpu needs clang-22"
    "$clang" -O2 -DGPU -DFAKE_GPU -I "$dir/driver/fake" -I "$dir/driver/emu" \
      "$dir/driver/gpu_driver.c" "$dir/driver/fake/fake_cuda.c" "$dir/driver/emu/emu.c" \
      -rdynamic -ldl -lpthread -lm -o "$drv" 2>"$out/build.log" ||
      die "cannot build the fake GPU driver (see $out/build.log)"
    local pairs=() k v
    while read -r k _; do
      [[ -n $k && $k != \#* ]] || continue
      for v in enz hand; do
        if [[ -f $dir/$k/$v.ptx && -f $dir/work/$k/$v.emu.so ]]; then
          pairs+=("$dir/$k/$v.ptx=$dir/work/$k/$v.emu.so")
        fi
      done
    done <"$dir/manifest"
    FAKE_CUDA_MODULES=$(
      IFS=:
      echo "${pairs[*]}"
    )
    export FAKE_CUDA_MODULES
    gpu_name="fake GPU (the CPU SIMT emulator; times are the emulator's)"
  else
    local nvcc
    nvcc=$(find_nvcc) || die "run: nvcc not found (set NVCC): not a GPU machine?"
    if ! "$nvcc" -O2 -DGPU "$dir/driver/gpu_driver.c" -o "$drv" -lcuda >"$out/build.log" 2>&1; then
      local cuda_home
      cuda_home=$(dirname "$(dirname "$nvcc")")
      "$nvcc" -O2 -DGPU "$dir/driver/gpu_driver.c" -o "$drv" -L"$cuda_home/lib64/stubs" -lcuda \
        >>"$out/build.log" 2>&1 || die "cannot build gpu_driver.c with $nvcc (see $out/build.log)"
    fi
    gpu_name=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n1)
    gpu_name="${gpu_name:-an NVIDIA GPU}, $("$nvcc" --version | grep -m1 -o 'release [0-9.]*')"
  fi
  local runner=()
  if command -v timeout >/dev/null 2>&1; then
    runner=(timeout "${GPU_CHECK_TIMEOUT:-120}")
  fi

  echo "gpu-check run: $dir on $gpu_name"
  sed -n 's/^# prepared/prepared/p' "$dir/manifest"
  local failed=0 check_rows=() time_rows=() scan_rows=() k cfgs
  while read -r k cfgs; do
    [[ -n $k && $k != \#* ]] || continue
    echo "== $k"
    local r=$out/$k
    mkdir -p "$r"
    local notes=""
    if [[ -f $dir/$k/problems ]]; then
      notes=" **prepare: $(cell "$(paste -sd';' "$dir/$k/problems")")**"
      failed=1
    fi
    local cfg cells v rc c
    for cfg in $cfgs; do
      cells=()
      for v in enz hand; do
        if [[ ! -f $dir/$k/$v.ptx || ! -f $dir/$k/$v.$cfg.bin ]]; then
          if [[ $v == hand && -f $dir/$k/hand.ptx && -f $dir/$k/enz.$cfg.bin ]]; then
            cells+=("n/a (the hand-written gradient does not support it)")
          else
            cells+=("**not prepared**")
            failed=1
          fi
          continue
        fi
        "${runner[@]}" "$drv" check "$k" "$cfg" "$dir/$k/$v.ptx" "$dir/$k/$v.$cfg.bin" \
          >"$r/check.$cfg.$v.out" 2>"$r/check.$cfg.$v.err"
        rc=$?
        c=$(verdict "$r/check.$cfg.$v.out" "$r/check.$cfg.$v.err" "$rc") || failed=1
        cells+=("$c")
        echo "  $cfg $v: $c"
      done
      check_rows+=("| $k | $cfg | ${cells[0]} | ${cells[1]} |")
    done
    [[ -z $notes ]] || check_rows+=("| $k | - |$notes | |")

    # the large configuration: times and the cross-check
    local hp=- ep=- t=$r/time
    [[ -f $dir/$k/hand.ptx ]] && hp=$dir/$k/hand.ptx
    [[ -f $dir/$k/enz.ptx ]] && ep=$dir/$k/enz.ptx
    "${runner[@]}" "$drv" time "$k" "$hp" "$ep" >"$t.out" 2>"$t.err"
    rc=$?
    sed 's/^/  /' "$t.out"
    local size tp th te cross err attrs_e attrs_h
    size=$(sed -n 's/^size: \(.*\), [0-9]* blocks of \([0-9]*\)/\1/p' "$t.out")
    tp=$(sed -n 's/^time primal //p' "$t.out")
    th=$(sed -n 's/^time hand //p' "$t.out")
    te=$(sed -n 's/^time enz //p' "$t.out")
    attrs_e=$(sed -n 's/^attrs enz: \([0-9]*\) registers, \([0-9]*\) B.*/\1, \2/p' "$t.out")
    attrs_h=$(sed -n 's/^attrs hand: \([0-9]*\) registers, \([0-9]*\) B.*/\1, \2/p' "$t.out")
    cross=$(sed -n 's/^crosscheck: [0-9]* values, \(.*\)/\1/p' "$t.out")
    if grep -q '^CROSS-MISMATCH' "$t.out"; then
      cross="**differ**: $(cell "$(grep '^CROSS-MISMATCH' "$t.out" | sed 's/^CROSS-MISMATCH //; s/:.*//' | paste -sd, -)") ($cross)"
    elif [[ -n $cross ]]; then
      cross="ok (max rel diff ${cross##*max rel diff })"
    fi
    err=""
    if [[ $rc -eq 124 || $rc -eq 137 ]]; then
      err="**timeout**"
    elif c=$(cuda_error "$t.err") && [[ -n $c ]]; then
      err="**$c**"
    elif c=$(grep -m1 '^load error' "$t.out"); then
      err="**JIT refused: $(cell "${c#*JIT log: }")**"
    elif [[ $rc -ne 0 && -z $cross ]]; then
      err="**exit $rc: $(cell "$(grep -m1 . "$t.err")")**"
    fi
    if [[ $rc -ne 0 || -n $err ]]; then
      failed=1
    fi
    [[ -n $cross ]] || cross=${err:--}
    [[ $cross == "$err" || -z $err ]] || cross="$cross; $err"
    time_rows+=("| $k | $(cell "${size:--}") | ${tp:--} | ${te:--} | ${th:--} | $(ratio "$te" "$tp") | $(ratio "$th" "$tp") | $(ratio "$te" "$th") | $cross | ${attrs_e:--} / ${attrs_h:--} |")

    local se sh
    read -ra se < <(ptx_scan "$dir/$k/enz.ptx")
    read -ra sh < <(ptx_scan "$dir/$k/hand.ptx")
    scan_rows+=("| $k | ${se[0]} / ${sh[0]} | ${se[1]} / ${sh[1]} | ${se[2]} / ${sh[2]} | ${se[3]} / ${sh[3]} | $(cell "${se[4]} / ${sh[4]}") |")
  done <"$dir/manifest"

  {
    echo "## gpu-check on $gpu_name"
    echo
    sed -n 's/^# prepared/Prepared/p' "$dir/manifest"
    echo "Default JIT options, stack and heap limits; every buffer compared with the emulator's run of the same module."
    echo
    echo "| kernel | configuration | enz-rs vs emulator | hand-written vs emulator |"
    echo "|---|---|---|---|"
    printf '%s\n' "${check_rows[@]}"
    echo
    echo "Large configurations, median of 11 launches (ms); last two columns: the two gradients' results"
    echo "compared with each other (normwise per buffer), and the JIT's registers and local bytes per thread."
    echo
    echo "| kernel | size | primal | enz-rs | hand-written | enz-rs / primal | hand-written / primal | enz-rs / hand-written | enz-rs vs hand-written | regs, local B enz-rs / hand |"
    echo "|---|---|---|---|---|---|---|---|---|---|"
    printf '%s\n' "${time_rows[@]}"
    echo
    echo "PTX modules (primal kernel included), enz-rs / hand-written:"
    echo
    echo "| kernel | bytes | dynamic alloca | atom/red | largest local frame B | external calls |"
    echo "|---|---|---|---|---|---|"
    printf '%s\n' "${scan_rows[@]}"
  } >"$out/summary.md"
  echo
  cat "$out/summary.md"
  echo
  if [[ $failed -eq 0 ]]; then
    echo "gpu-check: all kernels match (logs in $out)"
  else
    echo "gpu-check: FAILED (logs in $out)"
  fi
  return $failed
}

# ---- the one-shot form: prepare into a temporary directory, then run -----
one_shot() {
  local fake=0
  if [[ ${1:-} == --fake-gpu ]]; then
    fake=1
    shift
  fi
  if [[ $fake -eq 0 ]]; then
    if ! find_nvcc >/dev/null || ! command -v nvidia-smi >/dev/null 2>&1 ||
      ! nvidia-smi -L >/dev/null 2>&1; then
      echo "no GPU: skipped"
      exit 0
    fi
  fi
  local dir=${GPU_CHECK_DIR:-}
  [[ -n $dir ]] || dir=$(mktemp -d /tmp/enz-gpu-check.XXXXXX) || die "cannot create a temporary directory"
  local failed=0
  prepare "$dir" "$@" || failed=1
  local flags=()
  [[ $fake -eq 0 ]] || flags=(--fake-gpu)
  run_step "${flags[@]}" "$dir" || failed=1
  echo "(work directory: $dir)"
  exit $failed
}

case ${1:-} in
prepare)
  shift
  prepare "$@"
  exit $?
  ;;
run)
  shift
  run_step "$@"
  exit $?
  ;;
-h | --help) usage ;;
*) one_shot "$@" ;;
esac
