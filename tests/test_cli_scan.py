#!/usr/bin/python3
"""End-to-end `lidarsim scan` through the command line, every output read back independently.

usage: test_cli_scan.py LIDARSIM_BINARY WORK_DIR      (env LSIM_SOURCE_DIR: the source tree)

  a  a sensor inside a box room (16 x 360 rotating, tilted pose), noise off, world frame, written
     as PCD binary, PCD ASCII, PLY, CSV and KITTI: all formats agree (binary bit for bit, text to
     the float32), every beam returns, and every range is the analytic distance to the walls (1 mm)
  b  KITTI .label: SemanticKITTI ids in the low 16 bits, `labels:` table ids for custom names,
     1-based instance per object in the high 16 bits; .labels.yaml lists them
  c  determinism: noise on, --threads 1 and 2 give identical bytes; another seed does not
  d  --frame sensor vs world: the pose maps one onto the other (1e-4)
  e  --keep-misses: misses kept with range 0 and NaN coordinates; absent without it
  f  --stats: one JSON line with every key, rays/hits consistent with the file
  g  the street demo (assimp test meshes) scans; only the scene's labels appear; --bev is a PNG
  h  `lidarsim presets vlp16 --beams`: 28928 rows (1808 columns), elevations -15..15 step 2 per ring,
     clockwise, no laser offsets
  i  meshes: an OBJ cube and an ASCII STL cube (relative to the YAML) at known places, ranges to
     their faces within 1 mm
  j  --fields: PCD, PCD ASCII, PLY and CSV hold exactly the listed columns (in field order), with
     the values of a full scan; bad names, an empty entry and a KITTI output are usage errors that
     leave no file
Standard library and numpy only. Exits 1 with one line per failed check.
"""
import json
import math
import os
import re

import numpy as np
from cli_check import (Lidarsim, binary_and_work, check, finish, pcd_dtype, pcd_header, read_bytes, run_parts,
                       source_dir, write)

BINARY, WORK = binary_and_work(fresh=True)
SOURCE = source_dir()
lidarsim = Lidarsim(BINARY, WORK, ok=True)

# lsim_field order and types (include/lidarsim.h).
FIELDS = [("x", "f4"), ("y", "f4"), ("z", "f4"), ("range", "f4"), ("intensity", "f4"), ("reflectivity", "f4"),
          ("ring", "u2"), ("azimuth", "f4"), ("elevation", "f4"), ("time", "f4"), ("label", "u4"),
          ("instance", "u4"), ("incidence", "f4"), ("nx", "f4"), ("ny", "f4"), ("nz", "f4"),
          ("x_clean", "f4"), ("y_clean", "f4"), ("z_clean", "f4"),
          ("return_index", "u2"), ("num_returns", "u2"), ("epw", "f4"), ("power", "f4")]
NAMES = [n for n, _ in FIELDS]
SEMANTIC_KITTI = {"unlabeled": 0, "car": 10, "truck": 18, "road": 40, "sidewalk": 48, "building": 50, "pole": 80,
                  "vegetation": 70, "trunk": 71, "terrain": 72, "traffic-sign": 81, "other-object": 99}


# ---------------------------------------------------------------- readers (independent of lidarsim)

def read_pcd(path):
    data = read_bytes(path)
    header, pos, _ = pcd_header(data, "ascii")
    check(all(c == "1" for c in header["COUNT"]), "%s: COUNT is not all 1" % path)
    n = int(header["POINTS"][0])
    check(int(header["WIDTH"][0]) * int(header["HEIGHT"][0]) == n, "%s: WIDTH * HEIGHT != POINTS" % path)
    dtype = pcd_dtype(header)
    if header["DATA"][0] == "binary":
        check(len(data) - pos == n * dtype.itemsize, "%s: %d data bytes for %d points of %d bytes" %
              (path, len(data) - pos, n, dtype.itemsize))
        return np.frombuffer(data, dtype=dtype, count=n, offset=pos)
    check(header["DATA"][0] == "ascii", "%s: DATA %s" % (path, header["DATA"]))
    return parse_text_rows(data[pos:].decode("ascii").splitlines(), " ", dtype, n, path)


def parse_text_rows(lines, sep, dtype, n, path):
    lines = [l for l in lines if l.strip()]
    check(len(lines) == n, "%s: %d rows, expected %d" % (path, len(lines), n))
    out = np.zeros(len(lines), dtype=dtype)
    cols = list(zip(*[l.split(sep) for l in lines])) if lines else [[] for _ in dtype.names]
    check(len(cols) == len(dtype.names), "%s: %d columns, expected %d" % (path, len(cols), len(dtype.names)))
    for name, col in zip(dtype.names, cols):
        if dtype[name].kind == "f":
            out[name] = np.array([float(v) for v in col], dtype=np.float64).astype(np.float32)
        else:
            out[name] = np.array([int(v) for v in col], dtype=np.int64)
    return out


def read_ply(path):
    with open(path, "rb") as f:
        data = f.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    lines = data[:end].decode("ascii").splitlines()
    check(lines[0] == "ply" and lines[1] == "format binary_little_endian 1.0", "%s: bad PLY start %s" % (path, lines[:2]))
    n, props = None, []
    ply_types = {"float": "<f4", "double": "<f8", "uchar": "u1", "ushort": "<u2", "uint16": "<u2", "uint": "<u4",
                 "int": "<i4"}
    for line in lines:
        w = line.split()
        if w[:2] == ["element", "vertex"]:
            n = int(w[2])
        elif w[0] == "property":
            props.append((w[2], ply_types[w[1]]))
    dtype = np.dtype(props)
    check(len(data) - end == n * dtype.itemsize, "%s: %d data bytes for %d vertices" % (path, len(data) - end, n))
    return np.frombuffer(data, dtype=dtype, count=n, offset=end)


def read_csv(path, expected=None):
    with open(path) as f:
        lines = f.read().splitlines()
    names = lines[0].split(",")
    check(names == (expected or NAMES), "%s: header %s" % (path, names))
    types = dict(FIELDS)
    dtype = np.dtype([(n, "<" + types.get(n, "f4")) for n in names])
    return parse_text_rows(lines[1:], ",", dtype, len(lines) - 1, path)


def read_kitti(bin_path):
    stem = bin_path[:-4]
    xyzi = np.fromfile(bin_path, dtype="<f4")
    check(xyzi.size % 4 == 0, "%s: size not a multiple of 16 bytes" % bin_path)
    labels = np.fromfile(stem + ".label", dtype="<u4")
    label_map = {}
    with open(stem + ".labels.yaml") as f:
        for line in f:
            m = re.match(r"^\s+(\d+):\s*(.+?)\s*$", line)
            if m:
                name = m.group(2)
                if name.startswith('"'):
                    name = json.loads(name)
                label_map[int(m.group(1))] = name
    return xyzi.reshape(-1, 4), labels, label_map


def same_f32(a, b):
    """Bit-for-bit equality of float32 arrays (NaN == NaN)."""
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    return a.shape == b.shape and np.array_equal(a.view(np.uint32), b.view(np.uint32))


def same_values(a, b):
    """Equality of float32 arrays where NaN equals NaN (any payload, text formats print plain 'nan')."""
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


# ---------------------------------------------------------------- geometry

def rotation(rpy_deg):
    r, p, y = (math.radians(v) for v in rpy_deg)
    rx = np.array([[1, 0, 0], [0, math.cos(r), -math.sin(r)], [0, math.sin(r), math.cos(r)]])
    ry = np.array([[math.cos(p), 0, math.sin(p)], [0, 1, 0], [-math.sin(p), 0, math.cos(p)]])
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    return rz @ ry @ rx


def world_directions(cloud, rpy_deg):
    az, el = np.radians(cloud["azimuth"].astype(np.float64)), np.radians(cloud["elevation"].astype(np.float64))
    d = np.stack([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)], axis=1)
    return d @ rotation(rpy_deg).T


def box_exit(origin, d, lo, hi):
    """Distance from a point inside an axis-aligned box to its wall along unit directions d (N, 3)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(d > 0, (hi - origin) / d, np.where(d < 0, (lo - origin) / d, np.inf))
    return t.min(axis=1)


def box_entry(origin, d, lo, hi):
    """Distance along d to an axis-aligned box seen from outside (inf where the ray misses)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t1, t2 = (lo - origin) / d, (hi - origin) / d
    tmin = np.nanmax(np.minimum(t1, t2), axis=1)
    tmax = np.nanmin(np.maximum(t1, t2), axis=1)
    return np.where((tmax >= tmin) & (tmax > 0), tmin, np.inf)


# ---------------------------------------------------------------- scenes

ROOM_POS, ROOM_RPY = [0.7, -0.4, 1.3], [3.0, -2.0, 25.0]
ROOM_CENTER, ROOM_SIZE = np.array([1.0, -0.5, 2.0]), np.array([12.0, 9.0, 5.0])


def room_scene(noise="", extra_objects="", labels=""):
    return """# a small rotating sensor inside a closed box room
sensor:
  type: rotating
  channels: 16
  elevation_min: -15
  elevation_max: 15
  columns: 360
  rate_hz: 10
  position: [%s]
  rotation: [%s]
  range: [0.05, 100]
%smaterials:
  wall: {brdf: lambertian, reflectance: 0.6}
  dark: {brdf: lambertian, reflectance: 0.1}
%sobjects:
  - box: {size: [%s]}
    position: [%s]
    material: wall
    label: building
%s""" % (", ".join(map(str, ROOM_POS)), ", ".join(map(str, ROOM_RPY)), noise, labels,
         ", ".join(map(str, ROOM_SIZE)), ", ".join(map(str, ROOM_CENTER)), extra_objects)


def part_a():
    d = os.path.join(WORK, "a")
    scene = write(os.path.join(d, "room.yaml"), room_scene())
    outs = {"pcd": "room.pcd", "ascii": "room_ascii.pcd", "ply": "room.ply", "csv": "room.csv", "kitti": "room.bin"}
    for key, name in outs.items():
        extra = ["--format", "pcd-ascii"] if key == "ascii" else []
        lidarsim("scan", scene, "-o", os.path.join(d, name), "--noise", "off", "--frame", "world", "--quiet", *extra)
    pcd = read_pcd(os.path.join(d, outs["pcd"]))
    ascii_pcd = read_pcd(os.path.join(d, outs["ascii"]))
    ply = read_ply(os.path.join(d, outs["ply"]))
    csv = read_csv(os.path.join(d, outs["csv"]))
    xyzi, labels, label_map = read_kitti(os.path.join(d, outs["kitti"]))
    beams = 16 * 360
    check(list(pcd.dtype.names) == NAMES, "a: PCD fields %s" % (pcd.dtype.names,))
    check(list(ply.dtype.names) == NAMES, "a: PLY properties %s" % (ply.dtype.names,))
    check(len(pcd) == beams, "a: %d points, expected every one of the %d beams to hit" % (len(pcd), beams))
    for name, other in (("PLY", ply), ("PCD ASCII", ascii_pcd), ("CSV", csv)):
        check(len(other) == len(pcd), "a: %s has %d points, PCD %d" % (name, len(other), len(pcd)))
        if len(other) != len(pcd):
            continue
        for field, t in FIELDS:
            if t == "f4":
                ok = same_f32(pcd[field], other[field]) if name == "PLY" else same_values(pcd[field], other[field])
            else:
                ok = np.array_equal(pcd[field], other[field])
            check(ok, "a: field %s differs between PCD and %s" % (field, name))
    check(xyzi.shape == (len(pcd), 4), "a: KITTI .bin shape %s" % (xyzi.shape,))
    if xyzi.shape == (len(pcd), 4):
        for k, field in enumerate("xyz"):
            check(same_f32(xyzi[:, k], pcd[field]), "a: KITTI %s differs from PCD" % field)
        check(same_f32(xyzi[:, 3], np.clip(np.nan_to_num(pcd["reflectivity"], nan=0.0), 0, 1)),
              "a: KITTI 4th column is not the reflectivity clamped to [0, 1]")
    check(labels.shape == (len(pcd),) and np.all(labels == (50 | (1 << 16))),
          "a: .label is not building (50) / instance 1 everywhere")
    check(label_map.get(50) == "building", "a: .labels.yaml lacks 50: building (%s)" % label_map)

    # Ranges against the analytic room.
    pos = np.array(ROOM_POS)
    dw = world_directions(pcd, ROOM_RPY)
    t = box_exit(pos, dw, ROOM_CENTER - ROOM_SIZE / 2, ROOM_CENTER + ROOM_SIZE / 2)
    err = np.abs(pcd["range"].astype(np.float64) - t)
    check(err.max() <= 1e-3, "a: worst range error %.6f m (beam %d)" % (err.max(), err.argmax()))
    xyz = np.stack([pcd["x"], pcd["y"], pcd["z"]], axis=1).astype(np.float64)
    xerr = np.abs(xyz - (pos + t[:, None] * dw)).max()
    check(xerr <= 1e-3, "a: worst xyz error %.6f m" % xerr)
    check(same_f32(pcd["x"], pcd["x_clean"]) and same_f32(pcd["z"], pcd["z_clean"]),
          "a: noise off but x/z differ from x_clean/z_clean")
    # The beam table: ring r at elevation -15 + 2 r, azimuths a 1-degree grid.
    rings = pcd["ring"].astype(int)
    check(np.allclose(pcd["elevation"], -15 + 2 * rings, atol=1e-4), "a: elevation is not -15 + 2 * ring")
    check(len(np.unique(np.round(pcd["azimuth"] % 360, 3))) == 360, "a: not 360 distinct azimuths")
    print("a: %d points, 5 formats agree, worst range error %.2e m" % (len(pcd), err.max()))


def part_b():
    d = os.path.join(WORK, "b")
    objects = """  - plane: {size: [11, 8]}
    position: [1, -0.5, 0.01]
    material: dark
    label: road
  - box: {size: [2, 1.5, 1.2]}
    position: [4.5, -0.5, 0.6]
    label: car
  - sphere: {radius: 0.8}
    position: [-3, -0.5, 1.3]
    label: mything
  - box: {size: [1, 1, 2.5]}
    position: [1, 2.5, 1.25]
    label: gizmo
  - box: {size: [1, 1, 2.5]}
    position: [1, -3.5, 1.25]
    label: car
"""
    scene = write(os.path.join(d, "labels.yaml"),
                  room_scene(extra_objects=objects, labels="labels:\n  mything: 123\n  gizmo: auto\n"))
    lidarsim("scan", scene, "-o", os.path.join(d, "labels.bin"), "--noise", "off", "--quiet")
    lidarsim("scan", scene, "-o", os.path.join(d, "labels.pcd"), "--noise", "off", "--quiet")
    xyzi, raw, label_map = read_kitti(os.path.join(d, "labels.bin"))
    pcd = read_pcd(os.path.join(d, "labels.pcd"))
    check(len(raw) == len(xyzi) == len(pcd), "b: .label %d, .bin %d, .pcd %d entries" % (len(raw), len(xyzi), len(pcd)))
    semantic, instance = raw & 0xFFFF, raw >> 16
    check(np.array_equal(semantic, pcd["label"]) and np.array_equal(instance, pcd["instance"]),
          "b: .label differs from the PCD's label/instance fields")
    gizmo = label_map and {v: k for k, v in label_map.items()}.get("gizmo")
    expected = {1: 50, 2: 40, 3: 10, 4: 123, 5: gizmo, 6: 10}
    check(gizmo is not None and gizmo not in (0, 10, 40, 50, 123) and gizmo <= 0xFFFF,
          "b: 'gizmo' (declared auto) got no fresh id in .labels.yaml: %s" % label_map)
    check(set(np.unique(instance).tolist()) == set(expected),
          "b: instances %s, expected one per object %s" % (np.unique(instance).tolist(), sorted(expected)))
    for inst, sem in expected.items():
        got = np.unique(semantic[instance == inst]).tolist()
        check(got == [sem], "b: instance %d has semantic ids %s, expected [%s]" % (inst, got, sem))
    for name, sem in (("building", 50), ("road", 40), ("car", 10), ("mything", 123)):
        check(label_map.get(sem) == name, "b: .labels.yaml maps %d to %r, expected %r" % (sem, label_map.get(sem), name))
    print("b: %d points, instances %s, label map %s" % (len(raw), np.unique(instance).tolist(),
                                                        {k: label_map[k] for k in sorted(set(expected.values()))}))


def part_c():
    d = os.path.join(WORK, "c")
    scene = write(os.path.join(d, "noisy.yaml"),
                  room_scene(noise="  noise: {range_sigma: 0.03, intensity_sigma: 0.1}\n"))
    blobs = {}
    for tag, args in (("t1", ["--threads", "1", "--seed", "42"]), ("t2", ["--threads", "2", "--seed", "42"]),
                      ("t0", ["--threads", "0", "--seed", "42"]), ("s43", ["--threads", "2", "--seed", "43"])):
        out = os.path.join(d, tag + ".pcd")
        lidarsim("scan", scene, "-o", out, "--noise", "on", "--quiet", *args)
        with open(out, "rb") as f:
            blobs[tag] = f.read()
    check(blobs["t1"] == blobs["t2"] == blobs["t0"], "c: --threads 1, 2 and 0 give different bytes (same seed)")
    check(blobs["t1"] != blobs["s43"], "c: seeds 42 and 43 give identical bytes")
    a, b = read_pcd(os.path.join(d, "t1.pcd")), read_pcd(os.path.join(d, "s43.pcd"))
    # Pair the two scans' points by beam (ring, column), in case a seed drops different beams.
    key_a = a["ring"].astype(np.int64) * 100000 + np.round(a["azimuth"] * 100).astype(np.int64)
    key_b = b["ring"].astype(np.int64) * 100000 + np.round(b["azimuth"] * 100).astype(np.int64)
    common, ia, ib = np.intersect1d(key_a, key_b, return_indices=True)
    spread = float(np.std(a["range"][ia].astype(np.float64) - b["range"][ib].astype(np.float64))) if len(common) else 0
    check(len(common) > 0.9 * 16 * 360 and 0.02 < spread < 0.07,
          "c: %d beams in common; range difference between seeds has std %.4f m, expected about 0.03 * sqrt(2)"
          % (len(common), spread))
    print("c: threads 0/1/2 identical, seed change moves ranges by std %.4f m" % spread)


def part_d():
    d = os.path.join(WORK, "d")
    scene = write(os.path.join(d, "room.yaml"), room_scene(noise="  noise: {range_sigma: 0.02}\n"))
    for frame in ("sensor", "world"):
        lidarsim("scan", scene, "-o", os.path.join(d, frame + ".pcd"), "--frame", frame, "--seed", "5", "--quiet")
    s, w = read_pcd(os.path.join(d, "sensor.pcd")), read_pcd(os.path.join(d, "world.pcd"))
    if not check(len(s) == len(w) and len(s) > 0, "d: %d sensor-frame and %d world-frame points" % (len(s), len(w))):
        return
    r, t = rotation(ROOM_RPY), np.array(ROOM_POS)
    worst = 0.0
    for cols, shift in ((("x", "y", "z"), True), (("x_clean", "y_clean", "z_clean"), True),
                        (("nx", "ny", "nz"), False)):
        ps = np.stack([s[c] for c in cols], axis=1).astype(np.float64)
        pw = np.stack([w[c] for c in cols], axis=1).astype(np.float64)
        mapped = ps @ r.T + (t if shift else 0)
        e = np.abs(mapped - pw).max()
        worst = max(worst, e)
        check(e <= 1e-4, "d: pose * sensor-frame %s differs from world-frame by %.2e" % ("/".join(cols), e))
    for field in ("range", "intensity", "ring", "azimuth", "elevation", "label", "instance", "incidence"):
        check(np.array_equal(s[field], w[field]), "d: field %s differs between the frames" % field)
    # In the sensor frame the point lies along the beam's own direction.
    ds = world_directions(s, [0, 0, 0])
    ps = np.stack([s["x"], s["y"], s["z"]], axis=1).astype(np.float64)
    e = np.abs(ps - ds * s["range"].astype(np.float64)[:, None]).max()
    check(e <= 1e-4, "d: sensor-frame xyz is not range * beam direction (%.2e)" % e)
    print("d: sensor->world worst difference %.2e" % worst)


def open_scene(d, name):
    """A rotating sensor over a floor, half the rings pointing at the sky."""
    return write(os.path.join(d, name), """sensor:
  type: rotating
  elevations: [-20, -10, 5, 15]
  columns: 90
  position: [0, 0, 1.5]
  range: [0.1, 40]
objects:
  - plane: {size: [200, 200]}
    label: road
""")


def part_e_f():
    d = os.path.join(WORK, "e")
    scene = open_scene(d, "open.yaml")
    beams = 4 * 90
    _, _, err_keep = lidarsim("scan", scene, "-o", os.path.join(d, "keep.pcd"), "--keep-misses", "--noise", "off",
                              "--stats", "--quiet")
    _, _, err_drop = lidarsim("scan", scene, "-o", os.path.join(d, "drop.pcd"), "--noise", "off", "--stats", "--quiet")
    keep, drop = read_pcd(os.path.join(d, "keep.pcd")), read_pcd(os.path.join(d, "drop.pcd"))
    check(len(keep) == beams, "e: --keep-misses wrote %d points, expected all %d beams" % (len(keep), beams))
    miss = keep["range"] == 0
    check(miss.sum() == 2 * 90, "e: %d points with range 0, expected the 180 upward beams" % miss.sum())
    check(np.all(keep["elevation"][miss] > 0) and np.all(keep["elevation"][~miss] < 0),
          "e: the misses are not exactly the upward beams")
    for c in ("x", "y", "z"):
        check(np.all(np.isnan(keep[c][miss])), "e: a miss has a finite %s" % c)
        check(np.all(np.isfinite(keep[c][~miss])), "e: a hit has a non-finite %s" % c)
    check(len(drop) == 2 * 90 and np.all(drop["range"] > 0) and np.all(np.isfinite(drop["x"])),
          "e: without --keep-misses: %d points, expected the 180 hits only" % len(drop))
    check(np.array_equal(drop["range"], keep["range"][~miss]), "e: the hits differ with and without --keep-misses")
    # Ranges to the floor: 1.5 / sin(-elevation).
    expect = 1.5 / np.sin(np.radians(-drop["elevation"].astype(np.float64)))
    check(np.abs(drop["range"] - expect).max() <= 1e-3, "e: floor ranges off by %.2e m" % np.abs(drop["range"] - expect).max())
    # CSV spells the misses' NaN too.
    lidarsim("scan", scene, "-o", os.path.join(d, "keep.csv"), "--keep-misses", "--noise", "off", "--quiet")
    csv = read_csv(os.path.join(d, "keep.csv"))
    check(len(csv) == beams and same_values(csv["x"], keep["x"]), "e: CSV with misses differs from the PCD")
    print("e: keep-misses %d points (%d misses), without %d" % (len(keep), miss.sum(), len(drop)))

    # f: --stats
    keys = ["rays", "hits", "beams_returned", "load_ms", "build_ms", "trace_ms", "shade_ms", "noise_ms", "write_ms", "total_ms"]
    for tag, err, cloud in (("keep", err_keep, keep), ("drop", err_drop, drop)):
        lines = [l for l in err.splitlines() if l.strip()]
        if not check(len(lines) == 1, "f: --stats printed %d lines on stderr: %r" % (len(lines), err)):
            continue
        stats = json.loads(lines[0])
        check(sorted(stats) == sorted(keys), "f: --stats keys %s" % sorted(stats))
        check(stats.get("rays") == beams, "f: rays %s, expected %d" % (stats.get("rays"), beams))
        check(stats.get("hits") == 2 * 90, "f: hits %s, expected 180" % stats.get("hits"))
        check(stats.get("hits") == int(np.sum(cloud["range"] > 0)), "f (%s): hits does not match the file" % tag)
        check(all(isinstance(stats.get(k), (int, float)) and stats[k] >= 0 for k in keys),
              "f: a negative or non-numeric stat: %s" % stats)
        stages = sum(stats[k] for k in keys[3:9])
        check(stats["total_ms"] + 0.01 >= max(stats[k] for k in keys[3:9]) and stats["total_ms"] <= stages * 1.5 + 50,
              "f: total_ms %.3f is inconsistent with the stages (sum %.3f)" % (stats["total_ms"], stages))
    code, out, err = lidarsim("scan", scene, "-o", os.path.join(d, "quiet.pcd"))
    check("360 beams" in out and "quiet.pcd" in out and err == "", "f: summary line %r / stderr %r" % (out, err))
    print("f: stats %s" % lines[0] if lines else "f: no stats")


def part_g():
    street = os.path.join(SOURCE, "examples", "street", "street.yaml")
    if not check(os.path.isdir("/usr/share/assimp/models"),
                 "g: /usr/share/assimp/models is missing (Debian package assimp-testmodels; `make deps`)"):
        return
    d = os.path.join(WORK, "g")
    os.makedirs(d, exist_ok=True)
    _, out, _ = lidarsim("scan", street, "-o", os.path.join(d, "street.bin"), "--bev", os.path.join(d, "street.png"),
                         "--bev-size", "256", "--bev-extent", "35", "--seed", "3")
    xyzi, raw, label_map = read_kitti(os.path.join(d, "street.bin"))
    with open(street) as f:
        names = set(re.findall(r"^\s*label:\s*([\w-]+)\s*$", f.read(), re.M))
    allowed = {SEMANTIC_KITTI[n] for n in names}
    seen = set(np.unique(raw & 0xFFFF).tolist())
    check(seen <= allowed, "g: labels %s in the output are not in the scene (%s)" % (sorted(seen - allowed), sorted(names)))
    for name in ("road", "building", "truck", "sidewalk"):
        check(SEMANTIC_KITTI[name] in seen, "g: no %s points (label %d) in the street scan" % (name, SEMANTIC_KITTI[name]))
    check(all(label_map.get(SEMANTIC_KITTI[n]) == n for n in names if SEMANTIC_KITTI[n] in seen),
          "g: .labels.yaml names disagree with the scene: %s" % label_map)
    check(len(np.unique(raw >> 16)) >= 8, "g: only %d distinct instances hit" % len(np.unique(raw >> 16)))
    check(28800 * 0.5 < len(xyzi) <= 28800, "g: %d points of 28800 beams" % len(xyzi))
    with open(os.path.join(d, "street.png"), "rb") as f:
        png = f.read()
    check(png[:8] == b"\x89PNG\r\n\x1a\n", "g: --bev output does not start with the PNG signature")
    check(png[12:16] == b"IHDR" and int.from_bytes(png[16:20], "big") > 256 + 100,
          "g: the --bev figure is not wider than its 256-pixel plot")
    print("g: street %d points, labels %s" % (len(xyzi), sorted(seen)))


def part_h():
    code, out, _ = lidarsim("presets", "vlp16", "--beams")
    lines = out.splitlines()
    check(lines[0] == "ring,azimuth_deg,elevation_deg,time_s,origin_x,origin_y,origin_z", "h: header %r" % lines[0])
    rows = np.array([[float(v) for v in l.split(",")] for l in lines[1:] if l.strip()])
    # a VLP-16 fires a sequence every 55.296 us: 1808 columns in a 10 Hz revolution
    check(rows.shape == (28928, 7), "h: %s rows, expected 28928 x 7" % (rows.shape,))
    rings = rows[:, 0].astype(int)
    check(sorted(set(rings.tolist())) == list(range(16)), "h: rings %s" % sorted(set(rings.tolist())))
    per_ring = {r: np.unique(rows[rings == r, 2]) for r in range(16)}
    check(all(len(v) == 1 for v in per_ring.values()), "h: a ring has more than one elevation")
    elev = sorted(float(v[0]) for v in per_ring.values())
    check(np.allclose(elev, np.arange(-15, 16, 2), atol=1e-6), "h: elevations %s, expected -15..15 step 2" % elev)
    check(all(np.sum(rings == r) == 1808 for r in range(16)), "h: not 1808 beams per ring")
    check(rows[:, 3].min() >= 0 and rows[:, 3].max() < 0.1, "h: time_s outside one 10 Hz revolution")
    # clockwise: ring 0's azimuth falls by 360 * 10 Hz * 55.296 us per column
    az0 = rows[rings == 0, 1]
    step = np.diff(np.unwrap(np.radians(az0)))
    check(np.allclose(np.degrees(step), -360 * 10 * 55.296e-6, atol=1e-6), "h: ring 0 does not turn clockwise")
    check(np.all(rows[:, 4:7] == 0), "h: the nominal VLP-16 table has no laser offsets")
    print("h: vlp16 beam table %d rows, elevations %s" % (len(rows), elev))


OBJ_CUBE = """# unit cube centred on the origin
v -0.5 -0.5 -0.5
v  0.5 -0.5 -0.5
v  0.5  0.5 -0.5
v -0.5  0.5 -0.5
v -0.5 -0.5  0.5
v  0.5 -0.5  0.5
v  0.5  0.5  0.5
v -0.5  0.5  0.5
f 1 4 3 2
f 5 6 7 8
f 1 2 6 5
f 2 3 7 6
f 3 4 8 7
f 4 1 5 8
"""


def stl_cube():
    """ASCII STL of the unit cube [0, 1]^3 (12 facets)."""
    corners = [(x, y, z) for z in (0, 1) for y in (0, 1) for x in (0, 1)]
    quads = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    out = ["solid cube"]
    for q in quads:
        for tri in ((q[0], q[1], q[2]), (q[0], q[2], q[3])):
            out.append("  facet normal 0 0 0\n    outer loop")
            out += ["      vertex %g %g %g" % corners[i] for i in tri]
            out.append("    endloop\n  endfacet")
    out.append("endsolid cube")
    return "\n".join(out) + "\n"


def part_i():
    d = os.path.join(WORK, "i")
    write(os.path.join(d, "models", "cube.obj"), OBJ_CUBE)
    write(os.path.join(d, "models", "cube.stl"), stl_cube())
    sensor_pos = np.array([0.0, 0.0, 1.0])
    # OBJ cube: 1 m, centred at (3, 0.2, 1.1). STL cube [0,1]^3 scaled 1.5, yawed 90 degrees about
    # its origin and put at (0.5, 2.5, 0.4): it covers x in [-1, 0.5], y in [2.5, 4], z in [0.4, 1.9].
    scene = write(os.path.join(d, "scene", "meshes.yaml"), """sensor:
  type: rotating
  channels: 16
  elevation_min: -15
  elevation_max: 15
  columns: 720
  position: [0, 0, 1]
  range: [0.1, 50]
objects:
  - mesh: ../models/cube.obj
    position: [3, 0.2, 1.1]
    label: car
  - mesh: ../models/cube.stl
    position: [0.5, 2.5, 0.4]
    rotation: [0, 0, 90]
    scale: 1.5
    label: other-object
""")
    # Run from elsewhere: the mesh paths are relative to the YAML, not to the working directory.
    lidarsim("scan", os.path.relpath(scene, WORK), "-o", os.path.join(d, "meshes.pcd"), "--noise", "off",
             "--frame", "world", "--quiet", cwd=WORK)
    pcd = read_pcd(os.path.join(d, "meshes.pcd"))
    dw = world_directions(pcd, [0, 0, 0])
    boxes = {1: (np.array([2.5, -0.3, 0.6]), np.array([3.5, 0.7, 1.6]), 10),
             2: (np.array([-1.0, 2.5, 0.4]), np.array([0.5, 4.0, 1.9]), 99)}
    for inst, (lo, hi, sem) in boxes.items():
        sel = pcd["instance"] == inst
        t = box_entry(sensor_pos, dw, lo, hi)
        expected_hits = np.isfinite(t)
        check(sel.sum() > 20, "i: only %d points on mesh %d" % (sel.sum(), inst))
        # Every beam whose ray enters the cube hits it (nothing else is in the scene), and only those.
        all_t = box_entry(sensor_pos, world_directions_all(720), lo, hi)
        grazing = np.isfinite(all_t).sum()
        check(abs(int(sel.sum()) - int(grazing)) <= max(2, grazing // 50),
              "i: mesh %d: %d points, %d beams cross its box" % (inst, sel.sum(), grazing))
        if sel.sum():
            check(np.all(expected_hits[sel]), "i: mesh %d points on beams that miss its box" % inst)
            err = np.abs(pcd["range"][sel].astype(np.float64) - t[sel])
            check(err.max() <= 1e-3, "i: mesh %d worst range error %.6f m" % (inst, err.max()))
            check(np.all(pcd["label"][sel] == sem), "i: mesh %d label %s" % (inst, np.unique(pcd["label"][sel])))
            print("i: mesh %d: %d points, worst range error %.2e m" % (inst, sel.sum(), err.max()))
    check(set(np.unique(pcd["instance"]).tolist()) == {1, 2}, "i: instances %s" % np.unique(pcd["instance"]).tolist())


def world_directions_all(columns):
    el = np.radians(np.linspace(-15, 15, 16))
    az = np.radians(np.arange(columns) * 360.0 / columns)
    e, a = np.meshgrid(el, az)
    e, a = e.ravel(), a.ravel()
    return np.stack([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)], axis=1)


def part_j():
    d = os.path.join(WORK, "j")
    scene = write(os.path.join(d, "room.yaml"), room_scene())
    lidarsim("scan", scene, "-o", os.path.join(d, "full.pcd"), "--seed", "3", "--quiet")
    full = read_pcd(os.path.join(d, "full.pcd"))
    listed = ["time", "x", "y", "z", "intensity", "ring"]  # any order on the command line
    want = [n for n in NAMES if n in listed]              # field order in the file
    for name, extra in (("sub.pcd", []), ("sub_ascii.pcd", ["--format", "pcd-ascii"]), ("sub.ply", []),
                        ("sub.csv", [])):
        path = os.path.join(d, name)
        lidarsim("scan", scene, "-o", path, "--seed", "3", "--quiet", "--fields", ",".join(listed), *extra)
        got = read_ply(path) if name.endswith(".ply") else read_csv(path, want) if name.endswith(".csv") \
            else read_pcd(path)
        check(list(got.dtype.names) == want, "j: %s columns %s, expected %s" % (name, got.dtype.names, want))
        check(len(got) == len(full), "j: %s has %d points, the full scan %d" % (name, len(got), len(full)))
        if len(got) == len(full) and list(got.dtype.names) == want:
            for field in want:
                same = np.array_equal(got[field], full[field]) if name in ("sub.pcd", "sub.ply") \
                    else same_values(got[field], full[field])
                check(same, "j: %s field %s differs from the full scan" % (name, field))
    check(os.path.getsize(os.path.join(d, "sub.pcd")) < os.path.getsize(os.path.join(d, "full.pcd")) / 3,
          "j: a 6-column PCD is not smaller than a third of the full one")
    for bad, out, needle in ((["--fields", "x,bogus"], "bad.pcd", "'bogus' is not a point field"),
                             (["--fields", "x,,y"], "bad.csv", "'' is not a point field"),
                             (["--fields", "x,y,z"], "bad.bin", "does not apply to a KITTI")):
        rc, _, err = lidarsim("scan", scene, "-o", os.path.join(d, out), *bad, ok=False)
        check(rc == 2, "j: %s: exit %d, expected 2 (usage)" % (bad, rc))
        check(needle in err, "j: %s: message lacks %r: %s" % (bad, needle, err.strip()))
        check(not os.path.exists(os.path.join(d, out)), "j: %s left %s behind" % (bad, out))


if __name__ == "__main__":
    run_parts((part_a, part_b, part_c, part_d, part_e_f, part_g, part_h, part_i, part_j))
    finish("test_cli_scan", "OK")
