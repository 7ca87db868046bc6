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
import sys

from cli_check import binary_and_work, built_with_asan, check, fail, finish, run, skip, source_dir

LIDARSIM, WORK = binary_and_work(fresh=True)
SOURCE = source_dir()

if built_with_asan(LIDARSIM):
    skip("test_memcheck", "an AddressSanitizer build cannot run under valgrind")
if not shutil.which("valgrind"):
    fail("valgrind is not installed (make test installs it)")
    finish("test_memcheck")

runs = [
    # the demo, as make demo runs it (PCD + bird's-eye PNG)
    ["street/street.yaml", "street.pcd", "--bev", os.path.join(WORK, "street_bev.png"), "--bev-extent", "35"],
    ["glass_facade/glass_facade.yaml", "glass.bin"],
    ["mirror_corridor/mirror_corridor.yaml", "mirror.ply"],
    ["retro_sign/retro_sign.yaml", "retro.csv", "--range-image", os.path.join(WORK, "retro.png")],
    ["motion/motion.yaml", "motion.ply", "--frame", "world", "--scan-time", "0.3"],
]
for scene, out, *extra in runs:
    cmd = ["valgrind", "--error-exitcode=9", "--leak-check=full", "--errors-for-leak-kinds=definite",
           "--suppressions=" + os.path.join(os.path.dirname(os.path.abspath(__file__)), "valgrind.supp"),
           LIDARSIM, "scan", os.path.join(SOURCE, "examples", scene), "-o", os.path.join(WORK, out), "--quiet"] + extra
    r = run(cmd, seconds=600)
    summary = re.search(r"ERROR SUMMARY: (\d+) errors", r.stderr)
    lost = re.search(r"definitely lost: ([\d,]+) bytes", r.stderr)
    errors = int(summary.group(1)) if summary else -1
    lost_bytes = int(lost.group(1).replace(",", "")) if lost else 0
    print(f"{scene}: exit {r.returncode}, {errors} errors, {lost_bytes} bytes definitely lost")
    if not check(r.returncode == 0 and errors == 0 and lost_bytes == 0 and os.path.getsize(os.path.join(WORK, out)),
                 f"{scene}: exit {r.returncode}, {errors} errors, {lost_bytes} bytes definitely lost, or no output"):
        print(r.stderr[-4000:], file=sys.stderr)
finish("test_memcheck", f"{len(runs)} scans without memory errors or leaks")
