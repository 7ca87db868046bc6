#!/usr/bin/python3
"""`lidarsim pattern from-scan`: a pattern file from a scan of a flat wall (raster paper §3.3).

usage: test_cli_pattern.py LIDARSIM_BINARY WORK_DIR

For each capture: a preset faces a flat wall (noise off, sensor frame); `pattern from-scan` turns
the scan into a pattern file; a scene with `sensor: {type: pattern, file: PATTERN.csv}` at the
same pose facing the same wall is scanned; its points must be the capture's (same count, same
order, positions within 1 mm, same ring and time when the capture has them).
  a  livox-mid40 (rosette), an oblique wall, CSV capture; the fitted plane's distance and normal
  b  kinect-v2 (camera), PLY capture
  c  vlp16 (rotating) in front of a big wall: only the front beams hit; binary PCD capture
  d  bad input: missing file, no x/y/z columns, fewer than 3 points, points on a line, an empty
     file, a bad subcommand, a missing -o: non-zero exit, a clear message, no output file (an
     existing one is left as it was); a room (not a wall) and a wrong --wall-distance warn
Standard library and numpy only. Exits 1 with one line per failed check.
"""
import math
import os

import numpy as np
from cli_check import Lidarsim, binary_and_work, check, finish, new_dir, read_csv, run_parts, write

BINARY, WORK = binary_and_work(fresh=True)
lidarsim = Lidarsim(BINARY, WORK, seconds=300, ok=True)


def wall_scene(sensor, position, rotation, wall_pos, wall_rot, wall_size=(200, 200)):
    return """sensor:
%s
  position: [%s]
  rotation: [%s]
objects:
  - plane: {size: [%s]}
    position: [%s]
    rotation: [%s]
""" % (sensor, ", ".join(map(str, position)), ", ".join(map(str, rotation)), ", ".join(map(str, wall_size)),
       ", ".join(map(str, wall_pos)), ", ".join(map(str, wall_rot)))


def twin(tag, preset, range_m, position, rotation, wall_pos, wall_rot, capture_ext):
    """Capture a wall with `preset`, extract the pattern, scan the twin; return (capture, twin, stdout)."""
    d = new_dir(WORK, tag)
    real = write(os.path.join(d, "real.yaml"),
                 wall_scene("  preset: %s" % preset, position, rotation, wall_pos, wall_rot))
    capture = os.path.join(d, "capture." + capture_ext)
    lidarsim("scan", real, "-o", capture, "--noise", "off", "--quiet")
    reference = os.path.join(d, "capture_ref.csv")  # the same scan as CSV, to compare against
    lidarsim("scan", real, "-o", reference, "--noise", "off", "--quiet")
    pattern = os.path.join(d, "pattern.csv")
    _, out, err = lidarsim("pattern", "from-scan", capture, "-o", pattern)
    check("warning" not in err, "%s: a flat wall gave a warning: %s" % (tag, err.strip()))
    twin_yaml = write(os.path.join(d, "twin.yaml"),
                      wall_scene("  type: pattern\n  file: pattern.csv\n  range: [%g, %g]" % range_m, position,
                                 rotation, wall_pos, wall_rot))
    twin_csv = os.path.join(d, "twin.csv")
    lidarsim("scan", twin_yaml, "-o", twin_csv, "--noise", "off", "--quiet")
    a, b = read_csv(reference), read_csv(twin_csv)
    check(len(a["x"]) >= 3, "%s: the capture has %d points" % (tag, len(a["x"])))
    if check(len(a["x"]) == len(b["x"]), "%s: the twin has %d points, the capture %d" % (tag, len(b["x"]),
                                                                                       len(a["x"]))):
        dist = np.sqrt((a["x"] - b["x"]) ** 2 + (a["y"] - b["y"]) ** 2 + (a["z"] - b["z"]) ** 2)
        check(dist.max() < 1e-3, "%s: points differ by up to %.4g m (1 mm allowed)" % (tag, dist.max()))
        check(np.array_equal(a["ring"], b["ring"]), "%s: rings differ" % tag)
        check(np.abs(a["time"] - b["time"]).max() < 1e-6, "%s: times differ by up to %g s" %
              (tag, np.abs(a["time"] - b["time"]).max()))
        print("%s: %d points, worst position difference %.3g m" % (tag, len(a["x"]), dist.max()))
    p = read_csv(pattern)
    names = list(p)
    check(names == ["azimuth_deg", "elevation_deg", "time_s", "ring"], "%s: pattern columns %s" % (tag, names))
    return a, p, out


def plane_from_stdout(out):
    for line in out.splitlines():
        if line.startswith("wall: distance"):
            parts = line.replace("[", " ").replace("]", " ").replace(",", " ").split()
            return float(parts[2]), [float(parts[5]), float(parts[6]), float(parts[7])]
    return None, None


def part_a():
    # the wall 8 m ahead of the sensor, turned 20 deg about z (its normal in the sensor frame: yaw 20)
    a, p, out = twin("a", "livox-mid40", (1, 260), [1, 2, 1.5], [0, 0, 10], [1 + 8 * math.cos(math.radians(10)),
                     2 + 8 * math.sin(math.radians(10)), 1.5], [0, -90, 30], "csv")
    check(len(a["x"]) == 10000, "a: the rosette capture has %d of 10000 points" % len(a["x"]))
    dist, normal = plane_from_stdout(out)
    if check(dist is not None, "a: no `wall:` line in the output: %s" % out):
        # the plane through the wall centre (8 m along yaw 0 in the sensor frame) with normal yaw 20
        n = np.array([math.cos(math.radians(20)), math.sin(math.radians(20)), 0.0])
        check(abs(dist - 8 * math.cos(math.radians(20))) < 1e-3, "a: wall distance %.4f, expected %.4f" %
              (dist, 8 * math.cos(math.radians(20))))
        check(np.abs(np.array(normal) - n).max() < 1e-3, "a: wall normal %s, expected %s" % (normal, n))
    az = np.degrees(np.arctan2(a["y"], a["x"]))
    check(np.abs(p["azimuth_deg"] - az).max() < 1e-4, "a: azimuths are not atan2(y, x)")


def part_b():
    a, _, _ = twin("b", "kinect-v2", (0.5, 4.5), [0, 0, 1], [0, 0, 0], [3, 0, 1], [0, -90, 0], "ply")
    check(len(a["x"]) == 512 * 424, "b: the camera capture has %d of %d points" % (len(a["x"]), 512 * 424))


def part_c():
    a, _, _ = twin("c", "vlp16", (0.5, 100), [0, 0, 1], [0, 0, 0], [6, 0, 1], [0, -90, 0], "pcd")
    check(2000 < len(a["x"]) < 28928 * 0.6, "c: %d of 28928 vlp16 beams hit the wall (only the front ones should)"
          % len(a["x"]))
    check(np.all(a["x"] > 0), "c: a point behind the sensor")


def part_d():
    d = new_dir(WORK, "d")
    out = os.path.join(d, "out.csv")
    no_xyz = write(os.path.join(d, "no_xyz.csv"), "range,intensity\n1,0.5\n2,0.5\n3,0.5\n")
    two = write(os.path.join(d, "two.csv"), "x,y,z\n1,0,0\n1,1,0\n")
    misses = write(os.path.join(d, "misses.csv"), "x,y,z,range\n1,0,0,1\nnan,nan,nan,0\n1,1,0,1.4\nnan,nan,nan,0\n")
    line = write(os.path.join(d, "line.csv"), "x,y,z\n1,0,0\n2,0,0\n3,0,0\n4,0,0\n")
    empty = write(os.path.join(d, "empty.csv"), "")
    bad_num = write(os.path.join(d, "bad_num.csv"), "x,y,z\n1,0,0\n1,abc,0\n1,1,1\n")
    cases = [
        (["pattern", "from-scan", os.path.join(d, "nope.csv"), "-o", out], 1, "cannot open"),
        (["pattern", "from-scan", no_xyz, "-o", out], 1, "no `x` column"),
        (["pattern", "from-scan", two, "-o", out], 1, "at least 3"),
        (["pattern", "from-scan", misses, "-o", out], 1, "2 points with a return (of 4 rows)"),
        (["pattern", "from-scan", line, "-o", out], 1, "on one line"),
        (["pattern", "from-scan", empty, "-o", out], 1, "empty"),
        (["pattern", "from-scan", bad_num, "-o", out], 1, "bad_num.csv:3: column 2 (y) is not a number"),
        (["pattern", "from-scan", d, "-o", out], 1, "is a directory"),
        (["pattern", "to-scan", two, "-o", out], 2, "unknown subcommand 'to-scan'"),
        (["pattern", "from-scan", two], 2, "missing -o"),
        (["pattern"], 2, "usage"),
        (["pattern", "from-scan", two, "-o", out, "--wall-distance", "-1"], 2, "--wall-distance"),
    ]
    for args, code, needle in cases:
        rc, _, err = lidarsim(*args, ok=False)
        check(rc == code, "d: %s: exit %d, expected %d" % (args[1:], rc, code))
        check(needle in err, "d: %s: message lacks %r: %s" % (args[1:], needle, err.strip()))
        check(not os.path.exists(out), "d: %s left an output file" % args[1:])
    # an existing output stays as it was when the conversion fails
    write(out, "old\n")
    lidarsim("pattern", "from-scan", line, "-o", out, ok=False)
    check(open(out).read() == "old\n", "d: a failed conversion changed the existing output")
    os.remove(out)
    # a room is not a wall: written, with a warning; a wrong --wall-distance warns too
    room = write(os.path.join(d, "room.yaml"), """sensor:
  preset: vlp16
  position: [0, 0, 1]
objects:
  - box: {size: [10, 8, 4]}
    position: [0, 0, 1.5]
""")
    scan = os.path.join(d, "room.csv")
    lidarsim("scan", room, "-o", scan, "--noise", "off", "--quiet")
    rc, _, err = lidarsim("pattern", "from-scan", scan, "-o", out, ok=False)
    check(rc == 0, "d: room: exit %d" % rc)
    check("warning: the points are not planar" in err, "d: room: no planarity warning: %s" % err.strip())
    check(os.path.exists(out), "d: room: no pattern written")
    wall = os.path.join(WORK, "c", "capture.pcd")
    rc, _, err = lidarsim("pattern", "from-scan", wall, "-o", out, "--wall-distance", "7", ok=False)
    check(rc == 0 and "--wall-distance says 7" in err, "d: a wrong --wall-distance: exit %d, %s" % (rc, err.strip()))
    rc, _, err = lidarsim("pattern", "from-scan", wall, "-o", out, "--wall-distance", "6", ok=False)
    check(rc == 0 and "warning" not in err, "d: the right --wall-distance: exit %d, %s" % (rc, err.strip()))


if __name__ == "__main__":
    run_parts((part_a, part_b, part_c, part_d))
    finish("test_cli_pattern", "OK")
