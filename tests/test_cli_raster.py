#!/usr/bin/python3
"""`lidarsim scan --engine raster|raycast` and the scene key `engine:` through the command line.

usage: test_cli_raster.py LIDARSIM_BINARY WORK_DIR      (env LSIM_SOURCE_DIR: the source tree)

  a  the street demo with --engine raster, noise off, as CSV and PCD: valid files, finite
     coordinates, ranges within the sensor's 0.5..100 m, as many points as --engine raycast
     (within 0.5 %) and the same ranges beam by beam (ring, azimuth) to 1 cm on >= 99 % of them
  a2 the motion example (moving sensor, moving cars): >= 99 % of beams within 1 cm of raycast
  a3 the kernel (blooming) mode from rendered views (examples/retro_sign): point counts within 1 %,
     >= 98.5 % of the beams within 1 cm and labels the same on >= 99.5 %; closer with raster.oversample 8
  a4 determinism: --threads 1 and 2 write the same bytes (street, motion, retro_sign)
  b  `engine: raster` in a scene file works (a closed room: the same ranges as raycast, 99.9 % within
     1 mm, the few beams at its edges within 5 cm); `engine: gpu` is a parse error naming raycast and raster
  c  the flag overrides the file: with no EGL vendor (glvnd pointed at nothing) a file saying
     `engine: raster` fails with the rasterizer's EGL message, and --engine raycast scans it
  d  --engine foo is a usage error naming the valid values
  e  the `raster:` key: its settings are read (group_ms: 100 loses the motion distortion); bad values
     and unknown keys are FILE:LINE:COL errors naming the key
Standard library and numpy only. Exits 1 with one line per failed check.
"""
import os

import numpy as np
from cli_check import Lidarsim, binary_and_work, check, finish, read_bytes, read_csv, source_dir, write

BINARY, WORK = binary_and_work()
SOURCE = source_dir()
lidarsim = Lidarsim(BINARY, seconds=300)
street = os.path.join(SOURCE, "examples", "street", "street.yaml")

# a: the street through both engines
clouds = {}
for engine in ("raycast", "raster"):
    out = os.path.join(WORK, "street_%s.csv" % engine)
    r = lidarsim("scan", street, "-o", out, "--noise", "off", "--engine", engine, "--quiet")
    check(r.returncode == 0, "a: --engine %s scan exits 0 (%s)" % (engine, r.stderr.strip()))
    if r.returncode == 0:
        clouds[engine] = read_csv(out)
r = lidarsim("scan", street, "-o", os.path.join(WORK, "street_raster.pcd"), "--noise", "off", "--engine", "raster",
             "--quiet")
check(r.returncode == 0, "a: --engine raster PCD exits 0 (%s)" % r.stderr.strip())
if r.returncode == 0:
    with open(os.path.join(WORK, "street_raster.pcd"), "rb") as f:
        head = f.read(2000).split(b"DATA")[0].decode("ascii", "replace")
    points = [int(l.split()[1]) for l in head.splitlines() if l.startswith("POINTS")]
    check(len(points) == 1 and points[0] > 20000, "a: raster PCD header says POINTS > 20000 (%s)" % points)
if len(clouds) == 2:
    a, b = clouds["raycast"], clouds["raster"]
    na, nb = len(a["range"]), len(b["range"])
    print("street vlp16 points: raycast %d, raster %d" % (na, nb))
    check(abs(na - nb) <= 0.005 * na, "a: point counts within 0.5 %% (%d vs %d)" % (na, nb))
    check(np.all(np.isfinite(b["x"])) and np.all(np.isfinite(b["y"])) and np.all(np.isfinite(b["z"])),
          "a: raster coordinates finite")
    check(b["range"].min() >= 0.5 - 1e-3 and b["range"].max() <= 100.0 + 1e-3, "a: raster ranges within 0.5..100 m")
    ka = {(int(r), round(z, 3)): v for r, z, v in zip(a["ring"], a["azimuth"], a["range"])}
    same = total = 0
    for r, z, v in zip(b["ring"], b["azimuth"], b["range"]):
        k = (int(r), round(z, 3))
        if k in ka:
            total += 1
            same += abs(ka[k] - v) <= 0.01
    print("beams matched by (ring, azimuth): %d, ranges within 1 cm: %.3f %%" % (total, 100.0 * same / max(total, 1)))
    check(total > 0.9 * na and same >= 0.99 * total, "a: >= 99 %% of matched beams within 1 cm (%d of %d)" % (same, total))

# a2: the motion example (moving sensor and cars): a view per 1 ms of firing at its mean time
motion = os.path.join(SOURCE, "examples", "motion", "motion.yaml")
mc = {}
for engine in ("raycast", "raster"):
    out = os.path.join(WORK, "motion_%s.csv" % engine)
    r = lidarsim("scan", motion, "-o", out, "--noise", "off", "--engine", engine, "--quiet")
    check(r.returncode == 0, "a2: motion --engine %s exits 0 (%s)" % (engine, r.stderr.strip()))
    if r.returncode == 0:
        mc[engine] = read_csv(out)
if len(mc) == 2:
    a, b = mc["raycast"], mc["raster"]
    ka = {(int(r), round(z, 3)): (v, l) for r, z, v, l in zip(a["ring"], a["azimuth"], a["range"], a["label"])}
    d, labels = [], 0
    for r, z, v, l in zip(b["ring"], b["azimuth"], b["range"], b["label"]):
        k = (int(r), round(z, 3))
        if k in ka:
            d.append(abs(ka[k][0] - v))
            labels += ka[k][1] == l
    d = np.array(d)
    print("motion: %d / %d points, %d matched, median %.3g mm, p99 %.3g mm, within 1 cm %.2f %%, labels %.2f %%"
          % (len(a["range"]), len(b["range"]), len(d), 1e3 * np.median(d), 1e3 * np.percentile(d, 99),
             100 * np.mean(d < 0.01), 100.0 * labels / len(d)))
    check(len(d) > 0.98 * len(a["range"]) and np.mean(d < 0.01) >= 0.99 and labels >= 0.99 * len(d),
          "a2: motion example: >= 99 % of matched beams within 1 cm and with the same label")


def match(a, b):
    """Beams in both clouds (ring, time, return index): |range difference| and label agreement."""
    def key(c):
        return {(int(r), round(t, 7), int(q)): i for i, (r, t, q) in enumerate(zip(c["ring"], c["time"], c["return_index"]))}
    ka, kb = key(a), key(b)
    common = sorted(set(ka) & set(kb))
    d = np.array([abs(a["range"][ka[k]] - b["range"][kb[k]]) for k in common])
    same = np.array([a["label"][ka[k]] == b["label"][kb[k]] for k in common])
    return d, same


# a3: the kernel (blooming) mode's image from the rendered views
retro = os.path.join(SOURCE, "examples", "retro_sign", "retro_sign.yaml")
with open(retro) as f:
    retro_text = f.read()
retro8 = os.path.join(WORK, "retro_sign_oversample8.yaml")
write(retro8, "raster: {oversample: 8}\n" + retro_text.replace("file: ", "file: " + os.path.dirname(retro) + "/"))
kc = {}
for name, path, engine in (("raycast", retro, "raycast"), ("raster", retro, "raster"), ("raster8", retro8, "raster")):
    out = os.path.join(WORK, "retro_%s.csv" % name)
    r = lidarsim("scan", path, "-o", out, "--noise", "off", "--engine", engine, "--quiet")
    check(r.returncode == 0, "a3: retro_sign %s exits 0 (%s)" % (name, r.stderr.strip()))
    if r.returncode == 0:
        kc[name] = read_csv(out)
if len(kc) == 3:
    na = len(kc["raycast"]["range"])
    within = {}
    for name in ("raster", "raster8"):
        d, same = match(kc["raycast"], kc[name])
        within[name] = np.mean(d < 0.01)
        print("kernel mode (%s): %d / %d points, %d matched, median %.3g mm, p99 %.3g mm, within 1 cm %.2f %%, "
              "labels %.2f %%" % (name, na, len(kc[name]["range"]), len(d), 1e3 * np.median(d),
                                  1e3 * np.percentile(d, 99), 100 * within[name], 100 * np.mean(same)))
        check(abs(len(kc[name]["range"]) - na) <= 0.01 * na and len(d) >= 0.98 * na,
              "a3: kernel mode %s: point counts within 1 %%" % name)
        check(within[name] >= 0.985 and np.mean(same) >= 0.995,
              "a3: kernel mode %s: >= 98.5 %% within 1 cm, labels >= 99.5 %%" % name)
    check(within["raster8"] >= within["raster"], "a3: oversample 8 is at least as close as 2")

# a4: the same bytes whatever the thread count
for name, path, extra in (("street", street, []), ("motion", motion, ["--scan-time", "0.3"]), ("retro", retro, [])):
    outs = []
    for threads in ("1", "2"):
        out = os.path.join(WORK, "threads_%s_%s.csv" % (name, threads))
        r = lidarsim("scan", path, "-o", out, "--engine", "raster", "--threads", threads, "--quiet", *extra)
        check(r.returncode == 0, "a4: %s --threads %s exits 0 (%s)" % (name, threads, r.stderr.strip()))
        outs.append(out)
    if all(os.path.exists(o) for o in outs):
        check(read_bytes(outs[0]) == read_bytes(outs[1]), "a4: %s: --threads 1 and 2 write the same bytes" % name)

# b: the scene key
room = """sensor: {preset: vlp16, position: [0, 0, 1]}
engine: %s
objects:
  - box: {size: [10, 8, 4]}
    position: [0, 0, 1.5]
"""
for value, ok in (("raster", True), ("raycast", True), ("gpu", False)):
    path = os.path.join(WORK, "room_%s.yaml" % value)
    write(path, room % value)
    r = lidarsim("scan", path, "-o", os.path.join(WORK, "room_%s.csv" % value), "--noise", "off", "--quiet")
    if ok:
        check(r.returncode == 0, "b: engine: %s scans (%s)" % (value, r.stderr.strip()))
    else:
        check(r.returncode != 0 and "raycast" in r.stderr and "raster" in r.stderr and "engine" in r.stderr,
              "b: engine: gpu is an error naming raycast and raster (%s)" % r.stderr.strip())
if os.path.exists(os.path.join(WORK, "room_raster.csv")) and os.path.exists(os.path.join(WORK, "room_raycast.csv")):
    ra, rb = read_csv(os.path.join(WORK, "room_raycast.csv")), read_csv(os.path.join(WORK, "room_raster.csv"))
    # beams at the room's edges may read the other wall's pixel (its tangent plane): a few cm there
    ok = len(ra["range"]) == len(rb["range"])
    d = np.abs(ra["range"] - rb["range"]) if ok else np.array([1.0])
    print("room: %d beams, %d differ by > 1 mm, worst %.4g m" % (len(d), int((d > 1e-3).sum()), d.max()))
    check(ok and np.mean(d <= 1e-3) >= 0.999 and d.max() < 0.05,
          "b: the closed room gives the same ranges with both engines (99.9 %% within 1 mm, all within 5 cm)")

# c: the flag overrides the file
no_egl = {"__EGL_VENDOR_LIBRARY_FILENAMES": "/nonexistent/lidarsim_no_egl_vendor.json"}
path = os.path.join(WORK, "room_raster.yaml")
r = lidarsim("scan", path, "-o", os.path.join(WORK, "noegl.csv"), "--quiet", add_env=no_egl)
check(r.returncode != 0 and "EGL" in r.stderr, "c: engine: raster without EGL fails naming EGL (%s)" % r.stderr.strip())
r = lidarsim("scan", path, "-o", os.path.join(WORK, "noegl.csv"), "--quiet", "--engine", "raycast", add_env=no_egl)
check(r.returncode == 0, "c: --engine raycast overrides engine: raster (%s)" % r.stderr.strip())

# d: a bad flag value
r = lidarsim("scan", street, "-o", os.path.join(WORK, "bad.csv"), "--engine", "foo")
check(r.returncode == 2 and "raycast or raster" in r.stderr, "d: --engine foo is a usage error (%s)" % r.stderr.strip())

# e: the raster: key
with open(motion) as f:
    motion_text = f.read().replace("file: drive.csv", "file: " + os.path.join(os.path.dirname(motion), "drive.csv"))
whole = os.path.join(WORK, "motion_group100.yaml")
write(whole, "raster: {group_ms: 100, oversample: 2, normal_correction: 1, depth_bits: 32}\n" + motion_text)
r = lidarsim("scan", whole, "-o", os.path.join(WORK, "motion_group100.csv"), "--noise", "off", "--engine", "raster",
             "--quiet")
check(r.returncode == 0, "e: raster: {group_ms: 100, ...} scans (%s)" % r.stderr.strip())
if r.returncode == 0 and "raycast" in mc:
    d, _ = match(mc["raycast"], read_csv(os.path.join(WORK, "motion_group100.csv")))
    d1, _ = match(mc["raycast"], mc["raster"]) if "raster" in mc else (np.array([0.0]), None)
    print("motion, one view per frame: within 1 cm %.2f %% (1 ms groups: %.2f %%)"
          % (100 * np.mean(d < 0.01), 100 * np.mean(d1 < 0.01)))
    check(np.mean(d < 0.01) < np.mean(d1 < 0.01), "e: group_ms 100 is further from raycast than 1 ms groups")
bad = (("{oversample: 0}", "raster.oversample"), ("{group_ms: -1}", "raster.group_ms"),
       ("{depth_bits: 24}", "raster.depth_bits"), ("{normal_correction: 2}", "raster.normal_correction"),
       ("{pixels: 3}", "pixels"), ("[1, 2]", "raster"))
for value, key in bad:
    path = os.path.join(WORK, "bad_raster.yaml")
    write(path, "raster: %s\n" % value + room % "raster")
    r = lidarsim("scan", path, "-o", os.path.join(WORK, "bad_raster.csv"), "--quiet")
    check(r.returncode != 0 and "bad_raster.yaml:1:" in r.stderr and key in r.stderr
          and not os.path.exists(os.path.join(WORK, "bad_raster.csv")),
          "e: raster: %s is an error at line 1 naming %s (%s)" % (value, key, r.stderr.strip()))

finish("test_cli_raster")
