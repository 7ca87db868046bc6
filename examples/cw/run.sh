#!/usr/bin/env bash
# examples/cw: make the "real" scans from the truth scenes (lidarsim scan, noise on, the true
# parameters the models do not know) and fit the models to them (lidarsim fit). Every file is
# written to WORK_DIR (the example's YAML files are copied there first).
#   usage: examples/cw/run.sh [LIDARSIM [WORK_DIR]]   (defaults: build/lidarsim, examples/cw/out)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
lidarsim="${1:-$here/../../build/lidarsim}"
[ -x "$lidarsim" ] || { echo "run.sh: no lidarsim at $lidarsim (build it with make, or give its path)" >&2; exit 1; }
lidarsim="$(cd "$(dirname "$lidarsim")" && pwd)/$(basename "$lidarsim")"
work="${2:-$here/out}"
mkdir -p "$work"
cp "$here"/*.yaml "$work"/
cd "$work"

scan() { "$lidarsim" scan "$1" -o "$2" --keep-misses --seed "$3" --quiet; }

echo "== experiment 1: the sensor's pose in a known room (truth: x 0.40 m, y -0.30 m, yaw 12 deg)"
scan room_truth.yaml room_real.csv 1
"$lidarsim" fit room_fit.yaml -o room_fitted.yaml

echo "== experiment 1 with clutter the model lacks, Cauchy loss, rougher start (truth as above)"
scan room_clutter_truth.yaml room_clutter_real.csv 2
"$lidarsim" fit room_robust_fit.yaml -o room_robust_fitted.yaml

echo "== a named object's pose: the post moved (truth: x 2.1 m, y 1.1 m, yaw 15 deg)"
scan room_post_truth.yaml room_post_real.csv 3
"$lidarsim" fit room_post_fit.yaml -o room_post_fitted.yaml

echo "== experiment 4: reflectances and CW bias (truth: black 0.1, white 0.8, bias 0.01 0.3 -0.2)"
scan checkerboard_truth.yaml checkerboard_real.csv 9
"$lidarsim" fit checkerboard_fit.yaml -o checkerboard_fitted.yaml

echo "== experiment 2: the sensor's pose among mirrors and glass (truth: x 0.12 m, y -0.08 m, yaw 4 deg)"
scan mirror_room_truth.yaml mirror_room_real.csv 4
"$lidarsim" fit mirror_room_fit.yaml -o mirror_room_fitted.yaml

echo "== experiment 3, one scan: the mirror pillar's pose (truth: x 1.215 m, y 0.29 m, yaw 41 deg)"
scan mirror_pillar_truth.yaml mirror_pillar_real.csv 5
"$lidarsim" fit mirror_pillar_fit.yaml -o mirror_pillar_fitted.yaml

echo "== the fitted scenes scan"
for f in room_fitted room_robust_fitted room_post_fitted checkerboard_fitted mirror_room_fitted mirror_pillar_fitted; do
  "$lidarsim" scan "$f.yaml" -o "$f.csv" --keep-misses --noise off --quiet
done
echo "run.sh: done; files in $work"
