#!/bin/sh
# Split a dataset into N shards run side by side on one machine, then resume-safe reruns.
# Each sequence is cut into blocks of consecutive frames and shard i writes the blocks b with
# b % N == i (README "Datasets": a writer builds a sequence's scene once per block), all into the
# same folder; run the same line again after a crash and only the missing frames are written.
#   usage: examples/dataset/shards.sh [N] [OUT] [FRAMES]
set -eu
N=${1:-2}
OUT=${2:-out/dataset}
FRAMES=${3:-20}
LIDARSIM=${LIDARSIM:-build/lidarsim}
CONFIG=${CONFIG:-examples/dataset/dataset.yaml}
seq 0 $((N - 1)) | xargs -P "$N" -I{} "$LIDARSIM" dataset "$CONFIG" -o "$OUT" --frames "$FRAMES" \
    --shard {}/"$N" --threads 1 --progress off
# The same with GNU parallel:
#   parallel -j "$N" "$LIDARSIM" dataset "$CONFIG" -o "$OUT" --frames "$FRAMES" --shard {}/"$N" --threads 1 ::: $(seq 0 $((N - 1)))
echo "wrote $OUT ($(cat "$OUT"/manifest/*.txt | wc -l) of $FRAMES frames)"
