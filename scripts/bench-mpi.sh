#!/usr/bin/env bash
# The cost of MPI gradients: bench/mpi/heat2d.c (a 2-D heat equation with
# halo exchange, 256x256 cells, 20 steps, rows split over the ranks) built
# at -O2 with MPICH through enz-rs, run with 1, 2 and 4 ranks; prints the
# primal's and the gradient's best time of 5 and their ratio.
# Usage: scripts/bench-mpi.sh   (ENZ_RS: the enz-rs binary, default
# target/release/enz-rs; MPI=openmpi to use Open MPI instead).
# Not a test; on a machine with fewer cores than ranks the times include
# oversubscription.
set -euo pipefail
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ENZ_RS="${ENZ_RS:-$REPO/target/release/enz-rs}"
if [ "${MPI:-mpich}" = openmpi ]; then
  INC=/usr/lib/x86_64-linux-gnu/openmpi/include
  LIB="-L/usr/lib/x86_64-linux-gnu/openmpi/lib -lmpi"
  RUN="mpirun.openmpi --allow-run-as-root --oversubscribe"
else
  INC=/usr/include/x86_64-linux-gnu/mpich
  LIB=-lmpich
  RUN=mpirun.mpich
fi
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
clang-22 -O2 -c -emit-llvm -I "$INC" "$REPO/bench/mpi/heat2d.c" -o "$TMP/in.bc"
"$ENZ_RS" "$TMP/in.bc" -o "$TMP/out.bc"
clang-22 "$TMP/out.bc" $LIB -lm -o "$TMP/heat2d"
printf '%-6s %12s %12s %8s\n' ranks primal_s gradient_s ratio
for np in 1 2 4; do
  read -r p g _ < <($RUN -np "$np" "$TMP/heat2d")
  awk -v n="$np" -v p="$p" -v g="$g" 'BEGIN { printf "%-6s %12.5f %12.5f %8.2f\n", n, p, g, g / p }'
done
