# Sourced by the benchmark scripts that compare with Enzyme (bench.sh,
# bench-gmm-forms.sh, bench-lulesh.sh): which LLVM an Enzyme plugin is for.
#
# enzyme_llvm_major PLUGIN TOOL...: prints N for PLUGIN = .../LLVMEnzyme-N.so
# after checking that the file exists and that each TOOL-N (clang, opt,
# llvm-link, ...) is installed; otherwise says why on stderr and fails.
enzyme_llvm_major() {
  local plugin=$1 n t
  shift
  if [[ ! -f $plugin ]]; then
    echo "error: ENZYME_PLUGIN=$plugin: no such file" >&2
    return 2
  fi
  n=$(basename "$plugin" | sed -n 's/.*-\([0-9][0-9]*\)\.so$/\1/p')
  if [[ -z $n ]]; then
    echo "error: ENZYME_PLUGIN=$plugin: the LLVM major is not in its name (LLVMEnzyme-N.so)" >&2
    return 2
  fi
  for t in "$@"; do
    command -v "$t-$n" >/dev/null || { echo "error: $t-$n (for $plugin) is not installed" >&2; return 2; }
  done
  echo "$n"
}
