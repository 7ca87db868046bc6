#!/usr/bin/python3
"""`lidarsim scan --frames N --stats`: the scene's load and the BVH build count once in the totals.

usage: test_cli_stats.py LIDARSIM_BINARY WORK_DIR

Scans the bundled street scene (its meshes make the load a large part of a run) 12 frames into one
MCAP with --stats and compares the reported figures with each other and with the run's own wall
time, never with a speed: every figure is a measured duration inside the process, so when each
is counted once, total_ms is at most the wall time around the process and the stages add up to
at most total_ms. Before the fix every frame added the scene's load again (and the build when
the commit took more than a microsecond): total_ms passed the wall time by 11 loads.
Exits 1 with one line per failed check.
"""
import json
import os

from cli_check import Lidarsim, binary_and_work, check, finish

BIN, WORK = binary_and_work()
WORK = os.path.join(WORK, "cli_stats")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENE = os.path.join(ROOT, "examples", "street", "street.yaml")
lidarsim = Lidarsim(BIN, WORK, seconds=600)


def stats_run(frames):
    """(stats, wall milliseconds) of a --stats run of `frames` frames."""
    p = lidarsim("scan", SCENE, "-o", "f%d.mcap" % frames, "--frames", frames, "--stats", "--quiet")
    wall = p.seconds * 1e3
    check(p.returncode == 0, "scan --frames %d --stats: exit %d: %s" % (frames, p.returncode, p.stderr[-300:]))
    lines = p.stderr.strip().splitlines()
    check(len(lines) == 1, "--stats prints one line: %r" % p.stderr[:300])
    return json.loads(lines[-1]) if lines else {}, wall


os.makedirs(WORK, exist_ok=True)
for frames in (1, 12):
    s, wall = stats_run(frames)
    if not s:
        continue
    stages = s["load_ms"] + s["build_ms"] + s["trace_ms"] + s["shade_ms"] + s["noise_ms"] + s["write_ms"]
    print("%d frames: load %.1f ms, build %.1f ms, stages %.1f ms, total %.1f ms, wall %.1f ms"
          % (frames, s["load_ms"], s["build_ms"], stages, s["total_ms"], wall))
    check(s["rays"] == 28928 * frames, "%d frames: rays %d, expected %d" % (frames, s["rays"], 28928 * frames))
    check(s["load_ms"] > 0 and s["build_ms"] > 0, "%d frames: the load and the build are reported: %s" % (frames, s))
    check(s["total_ms"] <= wall, "%d frames: total_ms %.1f is more than the run's wall time %.1f ms"
          % (frames, s["total_ms"], wall))
    check(stages <= s["total_ms"] * 1.001 + 0.5, "%d frames: the stages add up to %.1f ms, more than total_ms %.1f"
          % (frames, stages, s["total_ms"]))
    check(s["load_ms"] + s["build_ms"] <= wall, "%d frames: load %.1f + build %.1f ms is more than the wall time %.1f ms"
          % (frames, s["load_ms"], s["build_ms"], wall))

finish("test_cli_stats", "OK")
