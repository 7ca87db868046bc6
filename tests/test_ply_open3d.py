#!/usr/bin/python3
"""lidarsim's PLY as Open3D reads it: every column, with the CSV's values.

usage: test_ply_open3d.py LIDARSIM_BINARY WORK_DIR

One frame of the bundled street scene is written as PLY and as CSV (the same seed, so the same
points). Open3D's tensor reader (o3d.t.io.read_point_cloud) must keep every column -- it skips
properties of types it does not know, which is why src/formats/ply.c writes ring, return_index and
num_returns as "uint16" and label and instance as "int" -- and each must equal the CSV's column
bit for bit (positions = x, y, z; normals = nx, ny, nz; the rest by name, integers as integers).
The legacy reader (o3d.io.read_point_cloud) must read the same x, y, z. Skips (exit 0, saying
so) only when open3d cannot be imported (Debian: python3-open3d). Exits 1 with one line per
failed check.
"""
import os
import sys

import numpy as np
from cli_check import Lidarsim, binary_and_work, check, failures, fail, finish, read_csv

BIN, WORK = binary_and_work()
WORK = os.path.join(WORK, "ply_open3d")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENE = os.path.join(ROOT, "examples", "street", "street.yaml")
INTEGER = {"ring", "label", "instance", "return_index", "num_returns"}
lidarsim = Lidarsim(BIN, seconds=300)


try:
    import open3d as o3d
except ImportError as e:
    print("test_ply_open3d: SKIPPED: cannot import open3d (%s); install python3-open3d (Debian)" % e)
    sys.exit(0)

os.makedirs(WORK, exist_ok=True)
ply, csv = os.path.join(WORK, "street.ply"), os.path.join(WORK, "street.csv")
for out in (ply, csv):
    p = lidarsim("scan", SCENE, "-o", out, "--seed", "7", "--quiet")
    check(p.returncode == 0, "scan -o %s: exit %d: %s" % (out, p.returncode, p.stderr.strip()))
if failures:
    finish("test_ply_open3d")

want = read_csv(csv)
names = list(want)
n = len(want[names[0]])
check(n > 1000, "the street frame has %d points, expected > 1000" % n)
check(set(INTEGER) <= set(names), "the CSV lacks integer columns: %s" % names)

pc = o3d.t.io.read_point_cloud(ply)
got = {}
for key in pc.point:
    arr = pc.point[key].numpy()
    if key == "positions":
        got.update(x=arr[:, 0], y=arr[:, 1], z=arr[:, 2])
    elif key == "normals":
        got.update(nx=arr[:, 0], ny=arr[:, 1], nz=arr[:, 2])
    else:
        got[key] = arr.reshape(-1)
missing = [c for c in names if c not in got]
check(not missing, "Open3D dropped the PLY columns %s (kept %s)" % (missing, sorted(got)))
for name in names:
    if name not in got:
        continue
    g, w = got[name], want[name]
    if g.shape != (n,):
        fail("%s: %s values, expected %d" % (name, g.shape, n))
    elif name in INTEGER:
        check(g.dtype.kind in "iu", "%s: Open3D gives dtype %s, expected an integer type" % (name, g.dtype))
        bad = np.flatnonzero(g.astype(np.int64) != w.astype(np.int64))
        check(bad.size == 0, "%s: %d rows differ from the CSV; first row %s: %s vs %s"
              % (name, bad.size, bad[:1], g[bad[:1]], w[bad[:1]]))
        check(w.max() > 0 or name == "return_index", "%s: every value is 0; the check would prove nothing" % name)
    else:
        w32 = w.astype(np.float32)
        same = (g.astype(np.float32) == w32) | (np.isnan(g) & np.isnan(w32))
        bad = np.flatnonzero(~same)
        check(bad.size == 0, "%s: %d rows differ from the CSV; first row %s: %r vs %r"
              % (name, bad.size, bad[:1], g[bad[:1]], w32[bad[:1]]))

legacy = np.asarray(o3d.io.read_point_cloud(ply).points)
check(legacy.shape == (n, 3) and np.array_equal(legacy.astype(np.float32),
                                               np.stack([want["x"], want["y"], want["z"]], 1).astype(np.float32)),
      "the legacy reader's points %s differ from the CSV's x, y, z" % (legacy.shape,))

finish("test_ply_open3d", "%d points, all %d columns read by Open3D with the CSV's values" % (n, len(names)))
