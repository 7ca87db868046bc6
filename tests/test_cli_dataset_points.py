#!/usr/bin/python3
"""`lidarsim dataset --points-format` and the config's `points_format`: every frame's noisy points
also as a point file, sequences/SS/points/NNNNNN.EXT, in the frame's all-or-none write.

usage: test_cli_dataset_points.py LIDARSIM_BINARY WORK_DIR
  env LSIM_SOURCE_DIR (the source tree), LSIM_DATASET_CONFIG (default examples/dataset/dataset.yaml)

  a  --points-format pcd, ply, las, csv: each frame's point file exists, holds as many points as
     the velodyne .bin has rows, x y z equal the .bin's (float32; LAS within its 0.1 mm step), label
     and instance the .label's, reflectivity the .bin's 4th column; PCD, PLY and CSV hold every
     field, LAS its extra bytes; the KITTI files are the same bytes as a run without points (the
     wider scan changes nothing); dataset.json records the format; no points/ without one
  b  pcd: --shard 0/2 + 1/2 and --threads 1 give the 0/1, 2-thread tree byte for byte; a resume of
     a finished tree writes nothing; a tree whose last frames are gone (files and manifest lines,
     as after a kill) resumes to the uninterrupted tree, point files included
  c  the config's points_format: pcd writes .pcd files; --points-format ply overrides it; a bad
     value (points_format: xyz, or a number) is "CONFIG:LINE:COL: points_format: ..." naming the
     valid values, exit 1, no tree; --points-format xyz (or pcd-ascii, kitti) exits 2
  d  resuming a tree with another points format (or none, or one over a tree without) is refused
     with exit 1, a message naming dataset.json and both formats, and no file changed
  e  a frame whose point file cannot be written (a folder in its place) leaves none of its seven
     files and no manifest line
Exits 1 with one line per failed check.
"""
import functools
import json
import os
import shutil
import struct

import numpy as np

from cli_check import Lidarsim, binary_and_work, check, finish, read_csv, read_pcd, write
from dataset_common import CONFIG, run_dataset, tree

BINARY, WORK = binary_and_work(fresh=True)
FRAMES = 6
dataset = functools.partial(run_dataset, Lidarsim(BINARY, seconds=600), frames=FRAMES)

PLY_TYPES = {"float": "<f4", "float32": "<f4", "double": "<f8", "uchar": "u1", "uint8": "u1", "ushort": "<u2",
             "uint16": "<u2", "uint": "<u4", "uint32": "<u4", "char": "i1", "short": "<i2", "int": "<i4"}
EB_TYPES = {1: "u1", 2: "i1", 3: "<u2", 4: "<i2", 5: "<u4", 6: "<i4", 7: "<u8", 8: "<i8", 9: "<f4", 10: "<f8"}


def read_ply(data):
    """PLY 1.0 binary_little_endian with one vertex element."""
    end = data.index(b"end_header\n") + len(b"end_header\n")
    lines = data[:end].decode().splitlines()
    assert lines[0] == "ply" and lines[1] == "format binary_little_endian 1.0", lines[:2]
    n, props = 0, []
    for line in lines:
        w = line.split()
        if w[0] == "element":
            assert w[1] == "vertex", line
            n = int(w[2])
        elif w[0] == "property":
            props.append((w[2], PLY_TYPES[w[1]]))
    dtype = np.dtype(props)
    assert len(data) - end == n * dtype.itemsize, (len(data) - end, n, dtype.itemsize)
    return np.frombuffer(data, dtype=dtype, count=n, offset=end)


def read_las(data):
    """ASPRS LAS 1.4, point data record format 6 and its extra bytes: x y z (scaled) and the records."""
    header_size, data_offset, vlr_count = struct.unpack_from("<HII", data, 94)
    pdrf = data[104]
    record_length, = struct.unpack_from("<H", data, 105)
    scale = struct.unpack_from("<3d", data, 131)
    offset = struct.unpack_from("<3d", data, 155)
    count, = struct.unpack_from("<Q", data, 247)
    assert data[:4] == b"LASF" and pdrf == 6, (data[:4], pdrf)
    extra, pos = [], header_size
    for _ in range(vlr_count):
        user = data[pos + 2:pos + 18].rstrip(b"\0").decode()
        rid, length = struct.unpack_from("<HH", data, pos + 18)
        body = data[pos + 54:pos + 54 + length]
        if user == "LASF_Spec" and rid == 4:
            for k in range(len(body) // 192):
                d = body[192 * k:192 * (k + 1)]
                extra.append((d[4:36].rstrip(b"\0").decode(), EB_TYPES[d[2]]))
        pos += 54 + length
    dtype = np.dtype([("X", "<i4"), ("Y", "<i4"), ("Z", "<i4"), ("intensity", "<u2"), ("returns", "u1"),
                      ("flags", "u1"), ("classification", "u1"), ("user", "u1"), ("scan_angle", "<i2"),
                      ("source", "<u2"), ("gps_time", "<f8")] + extra)
    assert dtype.itemsize == record_length and data_offset + count * record_length == len(data)
    recs = np.frombuffer(data, dtype=dtype, count=count, offset=data_offset)
    xyz = np.stack([recs[a] * scale[i] + offset[i] for i, a in enumerate("XYZ")], axis=1)
    return xyz, recs


def check_points(T, fmt, where):
    """Every frame's point file against its velodyne .bin and .label."""
    info = json.loads(T["dataset.json"])
    check(info.get("points_format") == fmt, "%s: dataset.json records points_format %s (%s)"
          % (where, fmt, info.get("points_format")))
    per = info["frames_per_sequence"]
    for k in range(FRAMES):
        q, i = divmod(k, per)
        seq = "sequences/%02d/" % q
        name = seq + "points/%06d.%s" % (i, fmt)
        if not check(name in T, "%s: frame %d: %s exists" % (where, k, name)):
            continue
        v = np.frombuffer(T[seq + "velodyne/%06d.bin" % i], dtype="<f4").reshape(-1, 4)
        lab = np.frombuffer(T[seq + "labels/%06d.label" % i], dtype="<u4")
        n = len(v)
        if fmt == "las":
            xyz, recs = read_las(T[name])
            check(len(recs) == n, "%s: frame %d: %d points, velodyne %d rows" % (where, k, len(recs), n))
            if len(recs) != n:
                continue
            check(np.abs(xyz - v[:, :3]).max() <= 0.51e-4, "%s: frame %d: x y z within LAS's 0.1 mm step" % (where, k))
            check(np.array_equal(recs["label"], lab & 0xFFFF) and np.array_equal(recs["instance"], lab >> 16),
                  "%s: frame %d: label, instance = the .label's" % (where, k))
            names = set(recs.dtype.names)
            check({"label", "instance", "epw", "ring", "range"} <= names, "%s: frame %d: every extra byte (%s)"
                  % (where, k, sorted(names)))
            check(np.array_equal(recs["intensity"], np.round(65535 * np.clip(v[:, 3].astype(np.float64), 0, 1))),
                  "%s: frame %d: intensity = 65535 x the .bin's reflectance" % (where, k))
            continue
        if fmt == "csv":
            cols = read_csv(T[name])
            got = {c: np.asarray(cols[c]) for c in cols}
            rows = len(got["x"])
        else:
            p = read_pcd(T[name]) if fmt == "pcd" else read_ply(T[name])
            got = {c: p[c] for c in p.dtype.names}
            rows = len(p)
        check(rows == n, "%s: frame %d: %d points, velodyne %d rows" % (where, k, rows, n))
        if rows != n:
            continue
        fields = set(got)
        check(len(fields) >= 20 and {"range", "ring", "time", "x_clean", "epw", "nx"} <= fields,
              "%s: frame %d: every field (%d: %s)" % (where, k, len(fields), sorted(fields)))
        if fmt == "csv":  # text: the float32 printed with round-trip precision
            xyz = np.stack([got[a].astype(np.float32) for a in "xyz"], axis=1)
        else:
            xyz = np.stack([got[a] for a in "xyz"], axis=1)
        check(np.array_equal(xyz, v[:, :3]), "%s: frame %d: x y z = the .bin's (float32)" % (where, k))
        check(np.array_equal(np.asarray(got["label"]).astype(np.uint32), lab & 0xFFFF)
              and np.array_equal(np.asarray(got["instance"]).astype(np.uint32), lab >> 16),
              "%s: frame %d: label, instance = the .label's" % (where, k))
        refl = np.clip(np.asarray(got["reflectivity"]).astype(np.float32), 0, 1)
        check(np.array_equal(refl, v[:, 3]), "%s: frame %d: reflectivity = the .bin's 4th column" % (where, k))


def kitti_only(T):
    return {k: v for k, v in T.items() if "/points/" not in k and k != "dataset.json"}



# a: each format against the KITTI files
plain = os.path.join(WORK, "plain")
r = dataset(plain, "--threads", "2")
check(r.returncode == 0, "a: a run without points exits 0 (%s)" % r.stderr.strip())
TP = tree(plain) if r.returncode == 0 else {}
check(TP and not any("/points/" in k for k in TP) and not any(os.path.isdir(os.path.join(plain, "sequences", q, "points"))
                                                            for q in os.listdir(os.path.join(plain, "sequences"))),
      "a: no points/ folder without a points format")
check(TP and "points_format" not in json.loads(TP["dataset.json"]), "a: dataset.json names no points format without one")
trees = {}
for fmt in ("pcd", "ply", "las", "csv"):
    out = os.path.join(WORK, fmt)
    r = dataset(out, "--threads", "2", "--points-format", fmt)
    if not check(r.returncode == 0, "a: --points-format %s exits 0 (%s)" % (fmt, r.stderr.strip())):
        continue
    T = tree(out)
    trees[fmt] = T
    try:
        check_points(T, fmt, "a: " + fmt)
    except (AssertionError, ValueError, KeyError) as e:
        check(False, "a: %s: the point files read back (%r)" % (fmt, e))
    check(kitti_only(T) == kitti_only(TP), "a: %s: the KITTI files equal a run without points byte for byte" % fmt)
    check(not [f for d, _, fs in os.walk(out) for f in fs if ".tmp" in f], "a: %s: no temporary files" % fmt)

# b: shards, threads and a resume give the same bytes
T0 = trees.get("pcd", {})
parts = []
for i in (0, 1):
    out = os.path.join(WORK, "shard%d" % i)
    r = dataset(out, "--shard", "%d/2" % i, "--threads", "2", "--points-format", "pcd")
    check(r.returncode == 0, "b: --shard %d/2 exits 0 (%s)" % (i, r.stderr.strip()))
    parts.append(tree(out) if r.returncode == 0 else {})
if T0 and all(parts):
    union = {}
    for p in parts:
        union.update(p)
    check(union == T0, "b: the union of --shard 0/2 and 1/2 equals 0/1 with points (%d vs %d files, %d differ)"
          % (len(union), len(T0), sum(1 for k in T0 if union.get(k) != T0[k])))
    check(all(any("/points/" in k for k in p) for p in parts), "b: each shard wrote point files")
one = os.path.join(WORK, "threads1")
r = dataset(one, "--threads", "1", "--points-format", "pcd")
check(r.returncode == 0 and T0 and tree(one) == T0, "b: --threads 1 writes the same bytes as 2 threads")
r = dataset(one, "--threads", "1", "--points-format", "pcd", fresh=False)
check(r.returncode == 0 and ("%d already done" % FRAMES) in r.stdout and tree(one) == T0,
      "b: a resume of the finished tree writes nothing and keeps its bytes (%s)" % r.stdout.strip())
# half the frames, then the rest: the missing frames' point files come with their KITTI files
half = os.path.join(WORK, "half")
shutil.rmtree(half, ignore_errors=True)
r = dataset(half, "--threads", "1", "--points-format", "pcd")
if r.returncode == 0 and T0:
    per = json.loads(T0["dataset.json"])["frames_per_sequence"]
    # drop the last frames from the manifest and their files: as if the run had been killed there
    mpath = os.path.join(half, "manifest", "shard-0-of-1.rank-0-of-1.txt")
    with open(mpath) as f:
        lines = [line for line in f.read().splitlines(True) if int(line.split()[0]) < FRAMES // 2]
    write(mpath, "".join(lines))
    for k in range(FRAMES // 2, FRAMES):
        q, i = divmod(k, per)
        for rel in ("velodyne/%06d.bin", "labels/%06d.label", "time/%06d.bin", "clean/%06d.bin",
                    "clean/%06d.label", "clean/%06d.time", "points/%06d.pcd"):
            os.remove(os.path.join(half, "sequences", "%02d" % q, rel % i))
    r = dataset(half, "--threads", "2", "--points-format", "pcd", fresh=False)
    check(r.returncode == 0 and ("%d already done" % (FRAMES // 2)) in r.stdout and tree(half) == T0,
          "b: a resume writes the missing frames' point files, the tree equals the uninterrupted one (%s / %s)"
          % (r.stdout.strip(), r.stderr.strip()))

# c: the config's points_format
with open(CONFIG) as f:
    base = f.read()


def config(name, extra):
    return write(os.path.join(WORK, name), extra + base)  # the key first: line 1


cfg = config("with_pcd.yaml", "points_format: pcd\n")
out = os.path.join(WORK, "config_pcd")
r = dataset(out, "--threads", "2", config=cfg)
if check(r.returncode == 0, "c: points_format: pcd in the config exits 0 (%s)" % r.stderr.strip()) and T0:
    T = tree(out)
    check({k: v for k, v in T.items() if k != "dataset.json"} == {k: v for k, v in T0.items() if k != "dataset.json"},
          "c: points_format: pcd writes the tree --points-format pcd does")
out = os.path.join(WORK, "config_override")
r = dataset(out, "--threads", "2", "--points-format", "ply", config=cfg)
if check(r.returncode == 0, "c: --points-format ply over the config's pcd exits 0 (%s)" % r.stderr.strip()):
    T = tree(out)
    check(any(k.endswith(".ply") for k in T) and not any(k.endswith(".pcd") for k in T)
          and json.loads(T["dataset.json"])["points_format"] == "ply", "c: --points-format ply overrides the config's pcd")
for value in ("xyz", "pcd-ascii", "7", "[pcd]"):
    bad_cfg = config("bad_%s.yaml" % value.strip("[]"), "points_format: %s\n" % value)
    out = os.path.join(WORK, "bad_config")
    r = dataset(out, config=bad_cfg)
    msg = r.stderr.strip()
    want = "%s:1:" % bad_cfg
    named = value.startswith("[") or all(f in msg for f in ("pcd", "ply", "las", "csv"))
    check(r.returncode == 1 and want in msg and "points_format" in msg and named and not os.path.exists(out),
          "c: points_format: %s is %s...: points_format: naming pcd ply las csv, exit 1, no tree (%d: %s)"
          % (value, want, r.returncode, msg))
for value in ("xyz", "pcd-ascii", "kitti", "PCDX", ""):
    out = os.path.join(WORK, "bad_cli")
    r = dataset(out, "--points-format", value)
    check(r.returncode == 2 and "--points-format" in r.stderr and "pcd, ply, las or csv" in r.stderr
          and not os.path.exists(out), "c: --points-format %r: usage error, exit 2, no tree (%d: %s)"
          % (value, r.returncode, r.stderr.strip()))

# d: a resume with another points format is refused, nothing changes
if T0:
    pcd_dir = os.path.join(WORK, "pcd")
    for extra, asks in ((["--points-format", "ply"], "ply"), ([], "none"), (["--points-format", "las"], "las")):
        r = dataset(pcd_dir, *extra, fresh=False)
        check(r.returncode == 1 and "dataset.json" in r.stderr and "points format pcd" in r.stderr
              and ("asks for %s" % asks) in r.stderr and tree(pcd_dir) == T0,
              "d: resuming the pcd tree with %s is refused naming both formats, nothing written (%d: %s)"
              % (asks, r.returncode, r.stderr.strip()))
if TP:
    r = dataset(plain, "--points-format", "csv", fresh=False)
    check(r.returncode == 1 and "points format none" in r.stderr and "asks for csv" in r.stderr and tree(plain) == TP,
          "d: resuming a tree without points with --points-format csv is refused (%d: %s)"
          % (r.returncode, r.stderr.strip()))

# e: all or none: a point file that cannot be written (its name taken by a folder) fails the frame,
# and none of the frame's seven files appears, nor the frame in the manifest
blocked = os.path.join(WORK, "blocked")
shutil.rmtree(blocked, ignore_errors=True)
os.makedirs(os.path.join(blocked, "sequences", "00", "points", "000000.pcd"))
r = dataset(blocked, "--frames", "1", "--points-format", "pcd", frames=1, fresh=False)
seq = os.path.join(blocked, "sequences", "00")
left = [os.path.relpath(os.path.join(d, f), seq) for d, _, fs in os.walk(seq) for f in fs]
mpath = os.path.join(blocked, "manifest", "shard-0-of-1.rank-0-of-1.txt")
listed = open(mpath).read() if os.path.exists(mpath) else ""
check(r.returncode == 1 and "000000.pcd" in r.stderr and not [f for f in left if "000000" in f] and listed == "",
      "e: a point file that cannot be written fails the frame: exit 1 naming it, none of its files, not in the "
      "manifest (%d: %s; left %s; manifest %r)" % (r.returncode, r.stderr.strip(), left, listed))

finish("test_cli_dataset_points")
