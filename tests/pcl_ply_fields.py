#!/usr/bin/python3
"""lidarsim's PLY and PCD as PCL reads them: every column, with the CSV's values.

usage: pcl_ply_fields.py LIDARSIM_BINARY PCL_READ_CLOUD WORK_DIR

One frame of the bundled street scene is written as PLY, PCD and CSV (the same seed, so the same
points). tests/pcl_read_cloud.cpp loads each file with PCL's own reader (pcl::io::loadPLYFile /
loadPCDFile into a pcl::PCLPointCloud2) and prints the fields PCL kept with their types, then every
point. Each must keep every CSV column -- by name, with an integer type for ring, label, instance,
return_index and num_returns -- and each value must equal the CSV's (floats as float32, integers
exactly; PCL's PLY reader calls nx, ny, nz normal_x, normal_y, normal_z). Exits 1 with one line per failed check.
"""
import os
import sys

import numpy as np
from cli_check import Lidarsim, check, fail, failures, finish, read_csv, run

BIN, READER, WORK = sys.argv[1], sys.argv[2], os.path.join(sys.argv[3], "ply_pcl")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENE = os.path.join(ROOT, "examples", "street", "street.yaml")
INTEGER = {"ring", "label", "instance", "return_index", "num_returns"}
# pcl::PCLPointField::PointFieldTypes
PCL_INT = {1: "int8", 2: "uint8", 3: "int16", 4: "uint16", 5: "int32", 6: "uint32"}
PCL_FLOAT = {7: "float32", 8: "float64"}
# PCL's PLY reader names the PLY's normals nx, ny, nz as its PointNormal fields
PCL_NAMES = {"normal_x": "nx", "normal_y": "ny", "normal_z": "nz"}
lidarsim = Lidarsim(BIN, seconds=300)


def read_with_pcl(path):
    p = run([READER, path], seconds=300)
    check(p.returncode == 0, "PCL cannot read %s: %s" % (path, p.stderr.strip()))
    if p.returncode != 0:
        return {}, {}
    lines = p.stdout.splitlines()
    nfields = int(lines[0].split()[1])
    fields = [lines[1 + i].split() for i in range(nfields)]
    npoints = int(lines[1 + nfields].split()[1])
    rows = lines[2 + nfields:2 + nfields + npoints]
    table = np.array([r.split(",") for r in rows], dtype=np.float64).reshape(npoints, -1)
    types, values, col = {}, {}, 0
    for name, datatype, count in fields:
        name = PCL_NAMES.get(name, name)
        types[name] = int(datatype)
        values[name] = table[:, col]  # lidarsim writes every field with count 1
        col += int(count)
    return types, values


os.makedirs(WORK, exist_ok=True)
outs = {ext: os.path.join(WORK, "street." + ext) for ext in ("csv", "ply", "pcd")}
for out in outs.values():
    p = lidarsim("scan", SCENE, "-o", out, "--seed", "7", "--quiet")
    check(p.returncode == 0, "scan -o %s: exit %d: %s" % (out, p.returncode, p.stderr.strip()))
if failures:
    finish("pcl_ply_fields")

want = read_csv(outs["csv"])
names = list(want)
n = len(want[names[0]])
check(n > 1000, "the street frame has %d points, expected > 1000" % n)

for ext in ("ply", "pcd"):
    types, got = read_with_pcl(outs[ext])
    if not types:
        continue
    missing = [c for c in names if c not in got]
    check(not missing, "%s: PCL dropped the columns %s (kept %s)" % (ext, missing, sorted(got)))
    for name in names:
        if name not in got:
            continue
        g, w = got[name], want[name]
        if g.shape != (n,):
            fail("%s %s: %s values, expected %d" % (ext, name, g.shape, n))
            continue
        if name in INTEGER:
            check(types[name] in PCL_INT, "%s %s: PCL's type %d, expected an integer type" % (ext, name, types[name]))
            bad = np.flatnonzero(g.astype(np.int64) != w.astype(np.int64))
            check(w.max() > 0 or name == "return_index", "%s: every value is 0; the check would prove nothing" % name)
        else:
            check(types[name] in PCL_FLOAT, "%s %s: PCL's type %d, expected a float type" % (ext, name, types[name]))
            w32, g32 = w.astype(np.float32), g.astype(np.float32)
            bad = np.flatnonzero(~((g32 == w32) | (np.isnan(g32) & np.isnan(w32))))
        check(bad.size == 0, "%s %s: %d rows differ from the CSV; first row %s: %r vs %r"
              % (ext, name, bad.size, bad[:1], g[bad[:1]], w[bad[:1]]))

finish("pcl_ply_fields", "PCL reads all %d columns of %d points from PLY and PCD, equal to the CSV" % (len(names), n))
