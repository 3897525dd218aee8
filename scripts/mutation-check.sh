#!/usr/bin/env bash
# Mutation check of the test net: is each safety net able to fail?
#
# Builds enz-rs and its tests with the `fault-injection` feature (into
# target/mutation, so the normal build is untouched), then runs the fuzz
# slices (fuzz_diff, fuzz_stress, fuzz_malformed) and a few c_tests trials
# once without a fault (all must pass) and once per fault, which the
# feature's enz-rs reads from ENZ_RS_FAULT (crates/enz-rs/src/fault.rs):
#
#   fmul   the fmul rule drops its second operand's term (wrong gradients)
#   store  forward mode stores no float tangent into shadow memory
#   exit2  a successful run writes its output, then exits 2 (internal error)
#
# Every test whose scope covers a fault must fail under it (see `runs`):
# the gradient checks (fuzz_diff, c_tests) under the faults their code
# reaches, the slices that only differentiate and verify (fuzz_stress,
# fuzz_malformed) under exit2; a pass there is "MISSED", a pass out of
# scope "passed". Prints a table; exits 1 when the
# fault-free run fails or any fault is missed. Takes about 10 minutes on
# 2 cores after the build. Logs: target/mutation/logs/.
#
#   scripts/mutation-check.sh            all faults
#   scripts/mutation-check.sh fmul       one fault (the fault-free run too)
set -uo pipefail

cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${MUTATION_TARGET_DIR:-target/mutation}"
logs="$CARGO_TARGET_DIR/logs"
mkdir -p "$logs"

faults=(fmul store exit2)
if [[ $# -gt 0 ]]; then
  faults=("$@")
fi

# (test binary, libtest filter or "", label, faults it must catch): the
# gradient checks catch every fault whose code they reach (rev_arith is
# reverse mode only: no forward shadow store); stress and malformed only
# differentiate and verify, so only an internal error is theirs.
runs=(
  "fuzz_diff||fuzz_diff|fmul store exit2"
  "fuzz_stress||fuzz_stress|exit2"
  "fuzz_malformed||fuzz_malformed|exit2"
  "c_tests|rev_arith::O2|c_tests rev_arith::O2|fmul exit2"
  "c_tests|fwd_mem_overwrite::O2|c_tests fwd_mem_overwrite::O2|fmul store exit2"
)

cargo_test() {
  cargo test -q -p enz-rs --features fault-injection "$@"
}

echo "== building enz-rs with fault-injection into $CARGO_TARGET_DIR" >&2
if ! cargo_test --test fuzz_diff --test fuzz_stress --test fuzz_malformed \
  --test c_tests --no-run >"$logs/build.log" 2>&1; then
  cat "$logs/build.log" >&2
  exit 1
fi

# Runs one test under ENZ_RS_FAULT=$1 (empty: none); prints passed/FAILED
# and a short reason.
run_one() {
  local fault="$1" test="$2" filter="$3" label="$4"
  local log="$logs/${fault:-none}-${label//[^A-Za-z0-9_]/_}.log"
  local args=(--test "$test" --)
  if [[ -n "$filter" ]]; then
    args+=("$filter" --exact)
  fi
  if ENZ_RS_FAULT="$fault" cargo_test "${args[@]}" >"$log" 2>&1; then
    echo "passed"
  else
    local why
    # The last summary is the slice's own (fuzz_diff's regression seeds
    # print theirs first).
    why="$(grep -oE 'campaign [a-z]+: .*' "$log" | tail -1 | cut -c1-150)"
    if [[ -z "$why" ]]; then
      why="$(grep -m1 -E '^FAIL|error:|checks, [1-9]' "$log" | cut -c1-150)"
    fi
    echo "FAILED ${why}"
  fi
}

status=0
printf '%-8s %-32s %-8s %s\n' FAULT TEST VERDICT DETAIL
for fault in "" "${faults[@]}"; do
  for r in "${runs[@]}"; do
    IFS='|' read -r test filter label scope <<<"$r"
    echo "== ENZ_RS_FAULT=${fault:-none}: $label" >&2
    got="$(run_one "$fault" "$test" "$filter" "$label")"
    verdict="${got%% *}"
    detail="${got#"$verdict"}"
    if [[ -z "$fault" ]]; then
      # The fault-free build must pass everything.
      [[ "$verdict" == passed ]] && shown=ok || { shown=BROKEN; status=1; }
    elif [[ "$verdict" == FAILED ]]; then
      shown=caught
    elif [[ " $scope " == *" $fault "* ]]; then
      shown=MISSED
      status=1
    else
      shown=passed
    fi
    printf '%-8s %-32s %-8s %s\n' "${fault:-none}" "$label" "$shown" "${detail# }"
  done
done
exit "$status"
