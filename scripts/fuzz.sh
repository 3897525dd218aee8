#!/usr/bin/env bash
# Runs the enz-fuzz campaigns against a release build of enz-rs.
#
#   scripts/fuzz.sh diff [COUNT]        random self-checking C programs (-O0..-O3, also --no-inline, and -O3 fast-math)
#   scripts/fuzz.sh stress [COUNT]      llvm-stress modules
#   scripts/fuzz.sh malformed [COUNT]   malformed inputs
#   scripts/fuzz.sh all [COUNT]         the three, one after the other
#
# Environment: FUZZ_COUNT (default count, 200), FUZZ_SEED (first seed, 1),
# FUZZ_JOBS (parallel jobs, default: all cores), FUZZ_OUT (where failing
# cases are kept, default fuzz-out; one folder per campaign).
# Prints each campaign's summary line; exits 1 when any campaign failed.
set -euo pipefail

cd "$(dirname "$0")/.."

campaign="${1:-all}"
count="${2:-${FUZZ_COUNT:-200}}"
seed="${FUZZ_SEED:-1}"
out="${FUZZ_OUT:-fuzz-out}"

case "$campaign" in
  diff | stress | malformed) campaigns=("$campaign") ;;
  all) campaigns=(diff stress malformed) ;;
  *)
    echo "usage: $0 diff|stress|malformed|all [COUNT]" >&2
    exit 2
    ;;
esac

cargo build --release -p enz-rs -p enz-fuzz

jobs_args=()
if [[ -n "${FUZZ_JOBS:-}" ]]; then
  jobs_args=(--jobs "$FUZZ_JOBS")
fi

status=0
summaries=()
for c in "${campaigns[@]}"; do
  extra=()
  if [[ "$c" == diff ]]; then
    extra=(--no-inline --fast-math)
  fi
  echo "== enz-fuzz $c: $count cases from seed $seed, failures kept in $out/$c" >&2
  set +e
  line="$(target/release/enz-fuzz "$c" --count "$count" --seed "$seed" \
    --keep "$out/$c" --enz-rs target/release/enz-rs -v \
    ${jobs_args[@]+"${jobs_args[@]}"} ${extra[@]+"${extra[@]}"})"
  rc=$?
  set -e
  echo "$line"
  summaries+=("$line")
  if [[ $rc -ne 0 ]]; then
    status=1
  fi
done

if [[ ${#summaries[@]} -gt 1 ]]; then
  echo "== summary" >&2
  printf '%s\n' "${summaries[@]}"
fi
exit "$status"
