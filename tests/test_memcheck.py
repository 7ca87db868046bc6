#!/usr/bin/env python3
"""Valgrind memcheck of the demo and of one scan per example scene: zero memory errors and no
definitely-lost memory (what the thread pools of OpenMP and TBB keep until exit is 'possibly
lost' and not counted; fontconfig's once-per-process font patterns, which the --bev and
--range-image figures' text loads, are suppressed by tests/valgrind.supp, as tests/lsan.supp does
under ASan). Runs on the Release build; an AddressSanitizer build cannot run under valgrind, so
there it exits 77 (skipped). Usage: test_memcheck.py LIDARSIM WORK_DIR"""
import os
import re
import shutil
import subprocess
import sys
from timeouts import limit

LIDARSIM, WORK = sys.argv[1], sys.argv[2]
SOURCE = os.environ.get("LSIM_SOURCE_DIR", os.path.join(os.path.dirname(__file__), ".."))

with open(LIDARSIM, "rb") as f:
    if b"__asan_init" in f.read():
        print("skipped: an AddressSanitizer build cannot run under valgrind")
        sys.exit(77)
if not shutil.which("valgrind"):
    print("FAIL: valgrind is not installed (make test installs it)", file=sys.stderr)
    sys.exit(1)

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
runs = [
    # the demo, as make demo runs it (PCD + bird's-eye PNG)
    ["street/street.yaml", "street.pcd", "--bev", os.path.join(WORK, "street_bev.png"), "--bev-extent", "35"],
    ["glass_facade/glass_facade.yaml", "glass.bin"],
    ["mirror_corridor/mirror_corridor.yaml", "mirror.ply"],
    ["retro_sign/retro_sign.yaml", "retro.csv", "--range-image", os.path.join(WORK, "retro.png")],
    ["motion/motion.yaml", "motion.ply", "--frame", "world", "--scan-time", "0.3"],
]
failures = []
for scene, out, *extra in runs:
    cmd = ["valgrind", "--error-exitcode=9", "--leak-check=full", "--errors-for-leak-kinds=definite",
           "--suppressions=" + os.path.join(os.path.dirname(os.path.abspath(__file__)), "valgrind.supp"),
           LIDARSIM, "scan", os.path.join(SOURCE, "examples", scene), "-o", os.path.join(WORK, out), "--quiet"] + extra
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=limit(600))
    summary = re.search(r"ERROR SUMMARY: (\d+) errors", r.stderr)
    lost = re.search(r"definitely lost: ([\d,]+) bytes", r.stderr)
    errors = int(summary.group(1)) if summary else -1
    lost_bytes = int(lost.group(1).replace(",", "")) if lost else 0
    print(f"{scene}: exit {r.returncode}, {errors} errors, {lost_bytes} bytes definitely lost")
    if r.returncode != 0 or errors != 0 or lost_bytes != 0 or not os.path.getsize(os.path.join(WORK, out)):
        failures.append(scene)
        print(r.stderr[-4000:], file=sys.stderr)
print(f"{len(runs) - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
