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
# With ENZYME_PLUGIN (Enzyme's LLVMEnzyme-N.so, as for scripts/bench.sh)
# the same files also go through clang-N, llvm-link-N, opt-N -passes=enzyme
# and clang-N -O2, the same driver times Enzyme's gradient in a process of
# its own, and a last table gives enz-rs's gradient time over Enzyme's.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/enzyme-plugin.sh
source scripts/enzyme-plugin.sh
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
tools=(enz-rs)
if [[ -n ${ENZYME_PLUGIN:-} ]]; then
  major=$(enzyme_llvm_major "$ENZYME_PLUGIN" clang llvm-link opt) || exit 2
  "clang-$major" "${flags[@]}" -c -emit-llvm bench/gmm_forms/gmm_adbench.c -o "$out/gmm.enzyme.bc"
  "clang-$major" "${flags[@]}" -c -emit-llvm bench/gmm_forms/driver.c -o "$out/driver.enzyme.bc"
  "llvm-link-$major" "$out/gmm.enzyme.bc" "$out/driver.enzyme.bc" -o "$out/all.enzyme.bc"
  "opt-$major" -load-pass-plugin="$ENZYME_PLUGIN" -passes=enzyme "$out/all.enzyme.bc" \
    -o "$out/grad.enzyme.bc"
  "clang-$major" -O2 "$out/grad.enzyme.bc" -lm -o "$out/gmm-forms-enzyme"
  tools+=(Enzyme)
fi
sizes=("10 25 1000" "64 200 100")
[[ $quick == 1 ]] && sizes=("10 25 100")
rows=$out/rows.txt
: >"$rows"
echo "| GMM (ADBench's C formulation) | tool | primal (s) | gradient (s) | gradient/primal | check |"
echo "|---|---|---:|---:|---:|---|"
for size in "${sizes[@]}"; do
  for t in "${tools[@]}"; do
    exe=$out/gmm-forms
    [[ $t == Enzyme ]] && exe=$out/gmm-forms-enzyme
    # shellcheck disable=SC2086 # the size is three arguments
    row=$("$exe" $size | sed "s/^| \([^|]*\) |/| \1 | $t |/")
    echo "$row"
    echo "$row" >>"$rows"
  done
done
if [[ ${#tools[@]} == 2 ]]; then
  echo
  echo "| GMM (ADBench's C formulation) | enz-rs gradient / Enzyme gradient |"
  echo "|---|---:|"
  awk -F'|' '{ gsub(/^ +| +$/, "", $2); gsub(/^ +| +$/, "", $3); g[$2 "," $3] = $5; sz[$2] = 1 }
    END { for (s in sz) if (g[s ",Enzyme"] > 0) printf "| %s | %.2f |\n", s, g[s ",enz-rs"] / g[s ",Enzyme"] }' "$rows"
fi
