#!/usr/bin/python3
"""The cw paper's experiments 1 and 2: lidarsim's fit against PCL's ICP, GICP and NDT on the same
scans (bench/pcl_compare.py). lidarsim must reach the true pose within 1 cm and 0.2 deg, and in
experiment 2 (mirrors and glass) its pose error must be below every registration's.

usage: pcl_baselines.py LIDARSIM PCL_REGISTER"""
import os
import sys

from cli_check import fail, finish, run

lidarsim, pcl = sys.argv[1], sys.argv[2]
root = os.environ.get("LSIM_SOURCE_DIR", ".")
out = run(["/usr/bin/python3", os.path.join(root, "bench", "pcl_compare.py"), "--lidarsim", lidarsim,
           "--pcl", pcl, "--scenes", os.path.join(root, "examples", "cw"), "--repeat", "1"], seconds=600)
print(out.stdout, out.stderr)
if out.returncode != 0:
    sys.exit("pcl_compare.py failed")
rows = {}
for line in out.stdout.splitlines()[2:]:
    cells = [c.strip() for c in line.strip("|").split("|")]
    rows[(cells[0][0], cells[1])] = (float(cells[4]), float(cells[5]))
for exp in ("1", "2", "3"):
    mm, deg = rows[(exp, "lidarsim fit")]
    if not (mm < 10.0 and deg < 0.2):
        fail(f"experiment {exp}: lidarsim's fit is {mm} mm, {deg} deg off")
for method in ("PCL ICP", "PCL GICP", "PCL NDT"):
    ours, theirs = rows[("2", "lidarsim fit")], rows[("2", method)]
    if not (ours[0] < theirs[0] and ours[1] < theirs[1]):
        fail(f"experiment 2: {method} ({theirs[0]} mm, {theirs[1]} deg) is not worse than lidarsim's "
             f"fit ({ours[0]} mm, {ours[1]} deg)")
finish("pcl_baselines", "lidarsim's fit beats ICP, GICP and NDT in experiment 2")
