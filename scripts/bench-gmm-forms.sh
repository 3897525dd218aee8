#!/usr/bin/env bash
# GMM written the way ADBench's C reference writes it (bench/gmm_forms/:
# helper functions, scratch vectors the point loop overwrites, a
# triangular product through them, the result through an output pointer):
# the primal and enz-rs's gradient timed in one process (least of 5 runs),
# gradient/primal printed, 20 entries checked against central differences.
# bench/adbench/gmm.c (scripts/bench.sh gmm) is the same objective written
# from its definition.
#
#   scripts/bench-gmm-forms.sh [--quick]
#
# Build: enz-rs (cargo, release); gmm_adbench.c: clang-22 -O2 with
# ADBench's flags (-fno-vectorize -fno-slp-vectorize -fno-unroll-loops, as
# scripts/bench.sh) -emit-llvm, linked with the driver, enz-rs, clang-22 -O2.
set -euo pipefail
cd "$(dirname "$0")/.."
quick=0
[[ ${1:-} == --quick ]] && quick=1
bash scripts/setup.sh >/dev/null
cargo build --release -q
out=target/gmm-forms
mkdir -p "$out"
flags=(-O2 -fno-vectorize -fno-slp-vectorize -fno-unroll-loops)
clang-22 "${flags[@]}" -c -emit-llvm bench/gmm_forms/gmm_adbench.c -o "$out/gmm.bc"
clang-22 "${flags[@]}" -c -emit-llvm bench/gmm_forms/driver.c -o "$out/driver.bc"
llvm-link-22 "$out/gmm.bc" "$out/driver.bc" -o "$out/all.bc"
target/release/enz-rs "$out/all.bc" -o "$out/grad.bc"
clang-22 -O2 "$out/grad.bc" -lm -o "$out/gmm-forms"
echo "| GMM (ADBench's C formulation) | primal (s) | gradient (s) | gradient/primal | check |"
echo "|---|---:|---:|---:|---|"
if [[ $quick == 1 ]]; then
  "$out/gmm-forms" 10 25 100
else
  "$out/gmm-forms" 10 25 1000
  "$out/gmm-forms" 64 200 100
fi
