#!/bin/sh
# MPI: mpirun splits the frames over the ranks (a lidarsim built with MPI: libopenmpi-dev, CMake
# LSIM_MPI=ON, the default when MPI is found). One thread a rank fills the cores with ranks.
#   usage: examples/dataset/mpi.sh [RANKS] [OUT] [FRAMES]
set -eu
RANKS=${1:-2}
OUT=${2:-out/dataset_mpi}
FRAMES=${3:-20}
ROOT=""
[ "$(id -u)" = 0 ] && ROOT="--allow-run-as-root"
mpirun $ROOT --oversubscribe -n "$RANKS" "${LIDARSIM:-build/lidarsim}" dataset \
    "${CONFIG:-examples/dataset/dataset.yaml}" -o "$OUT" --frames "$FRAMES" --threads 1
