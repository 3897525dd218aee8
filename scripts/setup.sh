#!/usr/bin/env bash
# Installs what enz-rs needs to build and test: LLVM 22 (library, clang, lld,
# clang's headers and libclang-cpp for the clang plugin, compiler-rt for the
# ThreadSanitizer runs of cuda_tests)
# from Debian, plus zlib/zstd/libxml2 headers that linking against libLLVM needs,
# the C++ libraries the C++ fixtures use (libstdc++, Eigen), LLVM's OpenMP
# runtime (libomp, for the OpenMP fixtures), Open MPI and MPICH (headers,
# libraries and mpirun, for the MPI fixtures in c_tests/mpi), and CMake for
# the CMake example (examples/cmake, built by the tests).
# Idempotent: does nothing that is already done.
set -euo pipefail

pkgs=(llvm-22-dev llvm-22 clang-22 lld-22 libclang-22-dev libzstd-dev zlib1g-dev libxml2-dev libffi-dev libncurses-dev libpolly-22-dev libadolc-dev libclang-rt-22-dev libstdc++-12-dev libeigen3-dev libomp-22-dev libopenmpi-dev openmpi-bin libmpich-dev mpich cmake libopenblas-dev liblapacke-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}"
fi
command -v clang-22 >/dev/null
/usr/lib/llvm-22/bin/llvm-config --version
