#!/usr/bin/python3
"""Large scenes load in linear time and scan right; absurd requests are refused up front.

usage: test_limits.py LIDARSIM_BINARY WORK_DIR

- A scene with 30,000 materials, 30,000 objects and 15,000 label names (material and label
  lookups were quadratic: ~9-25 s to load) scans with the right label, instance and reflectivity
  on the two objects the beams hit.
- A YAML syntax error names the line where the unclosed `[` began and where the parser noticed;
  100k nested `[` are refused at once (> 16 s before); neither leaves an output file.
Standard library only. Exits 1 with one line per failed check.
"""
import csv
import math
import os
import time

from cli_check import Lidarsim, binary_and_work, check, finish, new_dir, write
from timeouts import limit

BINARY, WORK = binary_and_work(fresh=True)
lidarsim = Lidarsim(BINARY, WORK)

# ---- 30k materials and objects -------------------------------------------------------------------
N = 30000
A, B = 17777, N - 1          # the objects the two beams hit
AZ = {A: 22.5, B: -22.5}     # planar, fov 90, steps 2: beams at -22.5 and +22.5 degrees
lines = ["sensor: {type: planar, fov_deg: 90, steps: 2, range: [0.1, 100], rate_hz: 10}", "materials:"]
reflectance = {}
for i in range(N):
    reflectance[i] = 0.1 + 0.01 * (i % 80)
    lines.append("  m%d: {brdf: lambertian, reflectance: %.2f}" % (i, reflectance[i]))
lines.append("labels: [%s]" % ", ".join("c%d" % k for k in range(N // 2)))  # classes are declared
lines.append("objects:")
for i in range(N):
    if i in AZ:  # 20 m away on the beam, turned to face the sensor (normal incidence)
        a = math.radians(AZ[i])
        pos, rot = "[%.6f, %.6f, 0]" % (20 * math.cos(a), 20 * math.sin(a)), "[0, 0, %g]" % AZ[i]
    else:        # out of the scan plane
        pos, rot = "[%d, %d, 50]" % (i % 200, i // 200), "[0, 0, 0]"
    lines.append("  - box: {size: [1, 2, 2]}\n    position: %s\n    rotation: %s\n    material: m%d\n    label: c%d"
                 % (pos, rot, i, i // 2))
write(os.path.join(WORK, "many.yaml"), "\n".join(lines) + "\n")

r = lidarsim("scan", "many.yaml", "-o", "many.csv", "--noise", "off", "--stats", "--quiet")
rc, err, secs = r.returncode, r.stderr, r.seconds
print("30k materials and objects: exit %d in %.2f s; %s" % (rc, secs, err.strip().splitlines()[0] if err else ""))
check(rc == 0, "30k scene: exit %d: %s" % (rc, err))
if rc == 0:
    with open(os.path.join(WORK, "many.csv")) as f:
        rows = list(csv.DictReader(f))
    check(len(rows) == 2, "30k scene: %d points, expected 2" % len(rows))
    # label names c0, c1, ... get ids 100, 101, ... in order of first use, skipping 252..259 (taken)
    def label_id(i):
        k = i // 2
        return 100 + k + (8 if 100 + k >= 252 else 0)
    by_instance = {int(r["instance"]): r for r in rows}
    for i in (A, B):
        r = by_instance.get(i + 1)
        if not check(r is not None, "30k scene: no point on object %d (instance %d)" % (i, i + 1)):
            continue
        check(abs(float(r["azimuth"]) - AZ[i]) < 1e-3, "object %d: azimuth %s" % (i, r["azimuth"]))
        check(int(r["label"]) == label_id(i), "object %d: label %s, expected %d" % (i, r["label"], label_id(i)))
        check(abs(float(r["range"]) - 19.5) < 1e-3, "object %d: range %s, expected 19.5" % (i, r["range"]))
        check(abs(float(r["reflectivity"]) - reflectance[i]) < 1e-3,
              "object %d: reflectivity %s, expected material m%d's %.2f" % (i, r["reflectivity"], i, reflectance[i]))
    check(secs < 30, "30k scene took %.1f s" % secs)

# ---- syntax errors and nesting -------------------------------------------------------------------
def expect_error(name, text, needles):
    d = new_dir(WORK, name)
    write(os.path.join(d, "s.yaml"), text)
    p = lidarsim("scan", "s.yaml", "-o", "out.pcd", cwd=d, seconds=60)
    err = p.stderr
    print("%s: %s" % (name, err.strip()[:300]))
    check(p.returncode == 1, "%s: exit %d" % (name, p.returncode))
    for n in needles:
        check(n in err, "%s: %r not in %r" % (name, n, err))
    check(sorted(os.listdir(d)) == ["s.yaml"], "%s: left %s" % (name, os.listdir(d)))


expect_error("unclosed", "sensor: {preset: vlp16}\nobjects:\n  - sphere: {radius: 1}\n    position: [5, 0, 0\n",
             ["s.yaml:4:15: objects[0].position: the `[` opened here is never closed (the parser noticed at the end "
              "of the file, 5:1: did not find expected ',' or ']'"])
t0 = time.monotonic()
expect_error("nested", "sensor: {preset: vlp16}\nobjects: " + "[" * 100000 + "\n",
             ["s.yaml:2:73: objects[0][0]", "nesting deeper than 64 levels"])
check(time.monotonic() - t0 < limit(10), "100k nested brackets took %.1f s" % (time.monotonic() - t0))
expect_error("beams", "sensor: {type: camera, width: 16384, height: 16384, hfov_deg: 60, vfov_deg: 40}\nobjects: []\n",
             ["s.yaml:1:31: sensor.width x sensor.height: 268435456 beams per frame, at most 100000000 (1e8)"])

finish("test_limits")
