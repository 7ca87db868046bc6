#!/usr/bin/python3
"""The measured ray-drop table (sensor.noise.drop) through the command line.

usage: test_cli_drop_table.py LIDARSIM_BINARY WORK_DIR

- `lidarsim presets SCENE.yaml` prints the sensor of a scene file, with a `drop_table:` line when
  the sensor has a table (its bins, mean and max rate) and none without; a scene with a malformed
  table exits 1 with the file, line and key; a real unit's calibration file still reads as before.
- `lidarsim scan`: a table of zeros gives the same file, byte for byte, as no table; `--noise off`
  ignores any table; rate 1 everywhere leaves no point; a table of 0.5 keeps about half of the
  points, the same ones for 1 and 2 threads.
- Malformed tables are refused by `scan` with the file:line and the key.
Standard library only. Exits 1 with one line per failed check.
"""
import json
import os

import repo_data
from cli_check import Lidarsim, binary_and_work, check, finish, write

BINARY, WORK = binary_and_work()
run = Lidarsim(BINARY, WORK)


EDGES = "      range_m: [0, 5, 10]\n      incidence_deg: [0, 45]\n      reflectance: [0, 0.3]\n"


def scene(name, drop=None, rate=None):
    """A VLP-16 in a box room (walls 4..6 m away, two materials); `drop`: the lines under `drop:`,
    or `rate`: one rate for every one of the 3 x 2 x 2 bins."""
    if rate is not None:
        drop = EDGES + "      rate: [%s]\n" % ", ".join(["%g" % rate] * 12)
    text = "sensor:\n  preset: vlp16\n"
    if drop is not None:
        text += "  noise:\n    drop:\n" + drop
    text += ("materials:\n  grey: {brdf: lambertian, reflectance: 0.2}\n  white: {brdf: lambertian, reflectance: 0.8}\n"
             "objects:\n"
             "  - plane: {size: [12, 12]}\n    position: [5, 0, 0]\n    rotation: [0, -90, 0]\n    material: grey\n"
             "  - plane: {size: [12, 12]}\n    position: [-6, 0, 0]\n    rotation: [0, 90, 0]\n    material: white\n"
             "  - plane: {size: [12, 12]}\n    position: [0, 4, 0]\n    rotation: [90, 0, 0]\n    material: white\n"
             "  - plane: {size: [12, 12]}\n    position: [0, -4, 0]\n    rotation: [-90, 0, 0]\n    material: grey\n")
    return write(os.path.join(WORK, name), text)


def scan(path, out, *extra):
    code, _, err = run("scan", path, "-o", os.path.join(WORK, out), "--seed", "11", "--quiet", *extra)
    check(code == 0, "scan %s %s: exit %d: %s" % (os.path.basename(path), " ".join(extra), code, err.strip()))
    with open(os.path.join(WORK, out), "rb") as f:
        return f.read()


def points(csv_bytes):
    return csv_bytes.decode().count("\n") - 1


def main():
    plain, zeros = scene("plain.yaml"), scene("zeros.yaml", rate=0)
    ones, half = scene("ones.yaml", rate=1), scene("half.yaml", rate=0.5)

    # presets SCENE: the table's line, none without one
    code, out, err = run("presets", half)
    line = [l for l in out.splitlines() if l.startswith("drop_table:")]
    check(code == 0 and line == ["drop_table: 3 x 2 x 2 bins (range x incidence x reflectance), mean rate 0.5, max 0.5"],
          "presets half.yaml: exit %d, drop_table lines %r: %s" % (code, line, err.strip()))
    check("name: vlp16" in out and "beams: 28928" in out, "presets half.yaml: not the scene's vlp16: %s" % out[:200])
    code, out, _ = run("presets", plain)
    check(code == 0 and "beams: 28928" in out and "drop_table" not in out, "presets plain.yaml: exit %d: %s" % (code, out))
    code, out, _ = run("presets", plain, "--beams")
    check(code == 0 and len(out.splitlines()) == 28929, "presets plain.yaml --beams: exit %d, %d lines" %
          (code, len(out.splitlines())))
    # a real unit's calibration, YAML (the ROS driver's) and JSON, still reads as one
    with open(repo_data.need(os.path.join(repo_data.CALIBRATIONS, "velodyne", "VLP16db.json"))) as f:
        lasers = json.load(f)["lasers"]
    unit = write(os.path.join(WORK, "vlp16_calibration.yaml"),
                 "lasers:\n" + "".join("  - {laser_id: %d, vert_correction: %r, rot_correction: 0.0}\n" %
                                       (l["laser_id"], l["vert_correction"]) for l in lasers) + "num_lasers: 16\n")
    for path in (unit, os.path.join(repo_data.CALIBRATIONS, "velodyne", "VLP16db.json")):
        code, out, err = run("presets", path)
        check(code == 0 and "beams: 28928" in out and "a real unit" in out,
              "presets %s: exit %d: %s" % (path, code, err.strip()))

    # scan: zeros == no table, byte for byte (binary PCD and CSV); noise off ignores the table
    for fmt in ("pcd", "csv"):
        a, b = scan(plain, "plain." + fmt), scan(zeros, "zeros." + fmt)
        check(a == b and len(a) > 1000, "%s: a table of zeros changes the file (%d vs %d bytes)" % (fmt, len(a), len(b)))
    base = scan(plain, "plain.csv")
    n = points(base)
    check(n > 20000, "the room gives %d points, expected > 20000" % n)
    check(scan(ones, "ones_off.csv", "--noise", "off") == scan(plain, "plain_off.csv", "--noise", "off"),
          "--noise off: a table of ones changes the points")
    check(points(scan(ones, "ones.csv")) == 0, "rate 1: points left")
    kept = points(scan(half, "half1.csv", "--threads", "1"))
    sigma = (n * 0.25) ** 0.5
    print("room: %d points without the table, %d with rate 0.5 (expected %d +- %.0f)" % (n, kept, n / 2, 3 * sigma))
    check(abs(kept - n / 2) < 3 * sigma, "rate 0.5 kept %d of %d" % (kept, n))
    check(scan(half, "half1.csv", "--threads", "1") == scan(half, "half2.csv", "--threads", "2"),
          "rate 0.5: 1 and 2 threads differ")
    # the kept points are rows of the plain scan (the table draws from a stream of its own)
    rows = set(base.decode().splitlines()[1:])
    half_rows = scan(half, "half1.csv", "--threads", "1").decode().splitlines()[1:]
    check(all(r in rows for r in half_rows), "rate 0.5: a kept point differs from the plain scan's")

    # malformed tables, refused by scan and presets at their line
    bad = [
        ("count", EDGES + "      rate: [0, 0.1]\n", ":8:", "sensor.noise.drop.rate", "need 12"),
        ("over", EDGES + "      rate: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1.5]\n", ":8:", "sensor.noise.drop.rate[11]",
         "[0, 1]"),
        ("descending", "      range_m: [0, 10, 5]\n      incidence_deg: [0, 45]\n      reflectance: [0, 0.3]\n"
         "      rate: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n", ":5:", "sensor.noise.drop.range_m[2]", "rise"),
        ("first", "      range_m: [1, 5, 10]\n      incidence_deg: [0, 45]\n      reflectance: [0, 0.3]\n"
         "      rate: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n", ":5:", "sensor.noise.drop.range_m[0]", "must be 0"),
        ("many", "      range_m: [%s]\n      incidence_deg: [0]\n      reflectance: [0]\n      rate: [0]\n" %
         ", ".join(str(i) for i in range(65)), ":5:", "sensor.noise.drop.range_m", "1 to 64"),
        ("scalar", "      range_m: 5\n      incidence_deg: [0]\n      reflectance: [0]\n      rate: [0]\n", ":5:",
         "sensor.noise.drop.range_m", "list"),
    ]
    for name, drop, line, key, what in bad:
        path = scene("bad_%s.yaml" % name, drop=drop)
        for args in (("scan", path, "-o", os.path.join(WORK, "bad.csv")), ("presets", path)):
            code, _, err = run(*args)
            ok = code == 1 and os.path.basename(path) + line in err and key in err and what in err
            check(ok, "%s %s: exit %d, message %r (want %s, %s, %s)" % (args[0], name, code, err.strip(), line, key, what))
        print("%s: %s" % (name, err.strip()))


if __name__ == "__main__":
    main()
    finish("test_cli_drop_table")
