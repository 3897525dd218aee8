#!/usr/bin/env bash
# gpu-check.sh -- run the cuda_tests kernels on a real NVIDIA GPU and compare
# them with the CPU SIMT emulator.
#
#   scripts/gpu-check.sh [--fake-gpu] [KERNEL...]
#
# KERNELs are cuda_tests names (default: axpy reduce stencil loop lbm hmlstm
# xsbench). For each kernel:
#   1. device compile with clang-22 (no CUDA SDK needed for this part), then
#      `enz-rs k.bc -o k.grad.bc`; if enz-rs fails on the kernel, the kernel's
#      hand-written gradient (-DNO_AD) is used instead, and the summary says so;
#   2. `llc -march=nvptx64` -> k.ptx;
#   3. that very module retargeted to the host (`enz-rs k.grad.bc -O0
#      --emulate-host`: no differentiation, no pass, the NVVM lowering), run on
#      the emulator by cuda_tests/gpu/gpu_driver.c, which writes every buffer
#      after the primal and after the gradient kernel to k.emu.bin;
#   4. gpu_driver.c built against the CUDA driver API (nvcc, -lcuda) loads
#      k.ptx (cuModuleLoadDataEx), runs both kernels on the same deterministic
#      inputs, compares every buffer with k.emu.bin, and for stencil and lbm
#      times primal and gradient on a large problem (cuEvent, median of 21).
# Prints a summary table and exits 1 if any kernel failed to build, load, or
# match the emulator.
#
# Without an NVIDIA GPU and nvcc it prints "no GPU: skipped" and exits 0.
# --fake-gpu runs step 4 on the emulator through a stand-in for the driver API
# (cuda_tests/gpu/fake/), to test this script on a machine without a GPU.
#
# Environment: ENZ_RS (an enz-rs binary; default: cargo build --release),
# ENZ_CLANG, ENZ_LLC (LLVM 22 tools), NVCC, GPU_SM (e.g. sm_90; default: the
# GPU's compute capability, capped at sm_80 whose PTX every newer GPU JITs),
# GPU_PTX (e.g. ptx80; default from the driver's CUDA version),
# GPU_CHECK_DIR (work directory, kept; default: a new temporary one).
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
fake=0
if [[ ${1:-} == --fake-gpu ]]; then
  fake=1
  shift
fi
kernels=("$@")
if [[ ${#kernels[@]} -eq 0 ]]; then
  kernels=(axpy reduce stencil loop lbm hmlstm xsbench)
fi

# ---- is there a GPU? ---------------------------------------------------
nvcc=${NVCC:-nvcc}
if [[ $fake -eq 0 ]]; then
  if ! command -v "$nvcc" >/dev/null 2>&1 || ! command -v nvidia-smi >/dev/null 2>&1 ||
    ! nvidia-smi -L >/dev/null 2>&1; then
    echo "no GPU: skipped"
    exit 0
  fi
fi

die() {
  echo "gpu-check: $*" >&2
  exit 1
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

# ---- target: SM and PTX versions ----------------------------------------
sm=${GPU_SM:-}
ptx=${GPU_PTX:-}
if [[ $fake -eq 1 ]]; then
  sm=${sm:-sm_80}
  ptx=${ptx:-ptx80}
  gpu_name="fake GPU (the emulator)"
else
  gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n1)
  if [[ -z $sm ]]; then
    cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .')
    if ! [[ $cc =~ ^[0-9]+$ ]]; then
      echo "gpu-check: cannot read the GPU's compute capability; using sm_70 (set GPU_SM to choose)" >&2
      cc=70
    fi
    if ((cc >= 80)); then
      sm=sm_80
    elif ((cc >= 60)); then
      sm=sm_$cc
    else
      die "compute capability $cc: the kernels need sm_60 or newer (double atomicAdd)"
    fi
  fi
  if [[ -z $ptx ]]; then
    cuda_major=$(nvidia-smi 2>/dev/null | grep -o 'CUDA Version: [0-9]*' | grep -o '[0-9]*$' | head -n1)
    if [[ ${cuda_major:-0} -ge 12 ]]; then
      ptx=ptx80
    else
      ptx=ptx70 # CUDA 11 drivers: PTX ISA 7.0 (enough for sm_80)
    fi
  fi
fi

work=${GPU_CHECK_DIR:-$(mktemp -d /tmp/enz-gpu-check.XXXXXX)}
mkdir -p "$work" || die "cannot create $work"
echo "gpu-check: $gpu_name, $sm +$ptx, work directory $work"

cuda_flags=(-x cuda --cuda-device-only "--cuda-gpu-arch=$sm" -nocudainc -nocudalib
  -Xclang -target-feature -Xclang "+$ptx" -O2 -emit-llvm -c -I "$root/runtime/include")
driver=$root/cuda_tests/gpu/gpu_driver.c
emu_dir=$root/runtime/emu

declare -A verdict gradient timing
failed=0

check_kernel() {
  local k=$1 d=$work/$1
  mkdir -p "$d"
  local src=$root/cuda_tests/$k.cu
  [[ -f $src ]] || {
    verdict[$k]="no cuda_tests/$k.cu"
    return 1
  }
  gradient[$k]=enz-rs
  "$clang" "${cuda_flags[@]}" "$src" -o "$d/k.bc" 2>"$d/compile.err" || {
    verdict[$k]="device compile failed (see $d/compile.err)"
    return 1
  }
  if ! "$enz_rs" "$d/k.bc" -o "$d/k.grad.bc" 2>"$d/enz.err"; then
    echo "  $k: enz-rs failed: $(head -n1 "$d/enz.err"); using the hand-written gradient (-DNO_AD)"
    gradient[$k]=hand-written
    "$clang" "${cuda_flags[@]}" -DNO_AD "$src" -o "$d/k.bc" 2>"$d/compile.err" || {
      verdict[$k]="device compile -DNO_AD failed (see $d/compile.err)"
      return 1
    }
    "$enz_rs" "$d/k.bc" -o "$d/k.grad.bc" 2>"$d/enz.err" || {
      verdict[$k]="enz-rs failed even without __enzyme calls (see $d/enz.err)"
      return 1
    }
  fi
  "$llc" -march=nvptx64 "-mcpu=$sm" "-mattr=+$ptx" "$d/k.grad.bc" -o "$d/k.ptx" 2>"$d/llc.err" || {
    verdict[$k]="llc failed (see $d/llc.err)"
    return 1
  }
  # the emulator's reference results
  "$enz_rs" "$d/k.grad.bc" -O0 -o "$d/k.emu.ll" -S --emulate-host 2>"$d/emu.err" &&
    "$clang" -c "$d/k.emu.ll" -o "$d/k.emu.o" 2>>"$d/emu.err" &&
    "$clang" -O2 "-DK_$k" -I "$emu_dir" "$driver" "$emu_dir/emu.c" "$d/k.emu.o" \
      -lpthread -lm -o "$d/drv.emu" 2>>"$d/emu.err" || {
    verdict[$k]="emulator build failed (see $d/emu.err)"
    return 1
  }
  (cd "$d" && ./drv.emu k.emu.bin >emu.out 2>>emu.err) || {
    verdict[$k]="emulator run failed (see $d/emu.err)"
    return 1
  }
  # the GPU run
  if [[ $fake -eq 1 ]]; then
    "$clang" -O2 -DGPU -DFAKE_GPU "-DK_$k" -I "$root/cuda_tests/gpu/fake" -I "$emu_dir" \
      "$driver" "$root/cuda_tests/gpu/fake/fake_cuda.c" "$emu_dir/emu.c" "$d/k.emu.o" \
      -rdynamic -ldl -lpthread -lm -o "$d/drv.gpu" 2>"$d/gpu-build.err"
  else
    "$nvcc" -O2 -DGPU "-DK_$k" "$driver" -o "$d/drv.gpu" -lcuda 2>"$d/gpu-build.err" ||
      {
        local cuda_home
        cuda_home=$(dirname "$(dirname "$(command -v "$nvcc")")")
        "$nvcc" -O2 -DGPU "-DK_$k" "$driver" -o "$d/drv.gpu" \
          -L"$cuda_home/lib64/stubs" -lcuda 2>>"$d/gpu-build.err"
      }
  fi || {
    verdict[$k]="GPU driver build failed (see $d/gpu-build.err)"
    return 1
  }
  (cd "$d" && ./drv.gpu k.ptx k.emu.bin >gpu.out 2>gpu.err)
  local rc=$?
  sed 's/^/    /' "$d/gpu.out"
  local cmp
  cmp=$(grep '^compare:' "$d/gpu.out" | sed 's/^compare: //')
  timing[$k]=$(grep '^timing:' "$d/gpu.out" | sed 's/.*primal \([0-9.]*\) ms, gradient \([0-9.]*\) ms, ratio \([0-9.]*\)/\1 | \2 | \3/')
  if [[ $rc -ne 0 ]]; then
    verdict[$k]="FAILED: ${cmp:-$(head -n3 "$d/gpu.err" | tr '\n' ' ')}"
    return 1
  fi
  verdict[$k]="ok ($cmp)"
  return 0
}

for k in "${kernels[@]}"; do
  echo "== $k"
  if ! check_kernel "$k"; then
    failed=1
  fi
  echo "  ${verdict[$k]}"
done

echo
echo "| kernel | gradient | GPU vs emulator | primal ms | gradient ms | ratio |"
echo "|---|---|---|---|---|---|"
for k in "${kernels[@]}"; do
  t=${timing[$k]:-}
  [[ -n $t ]] || t="- | - | -"
  echo "| $k | ${gradient[$k]:--} | ${verdict[$k]} | $t |"
done
echo
echo "(work directory: $work)"
exit $failed
