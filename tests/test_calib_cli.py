#!/usr/bin/python3
"""`lidarsim calibrate` end to end.

usage: test_calib_cli.py LIDARSIM_BINARY WORK_DIR

  - a synthetic scan written here (a board at 0.6 m turned 2 deg, clutter around it): calibrate
    from data.config, from YAML and in the one-material form; the file is written, --json parses
    and has the required keys; the fitted distance and normal are right;
  - the real RPLIDAR scans (data/apollosim-rplidar, MIT, (c) 2023 Gavri Kepets;
    shipped in the repository): --json has five materials with the required keys, each fitted distance is
    within 5 mm of the median range of the beams within +-2 deg of the fitted normal (computed here
    from the raw files); the table of fitted vs configured distances is printed;
  - bad input: malformed scan lines, no board, bad configs and options -> non-zero exit (2 for
    usage errors, 1 for bad files), a clear message naming file:line where there is one, and no
    output file (the case's folder holds exactly its inputs afterwards).
Standard library only. Exits 1 with one line per failed check.
"""
import json
import math
import os
import random

import repo_data
from cli_check import Lidarsim, binary_and_work, check, finish, new_dir, write

BINARY, WORK = binary_and_work(fresh=True)
REAL = repo_data.RPLIDAR
lidarsim = Lidarsim(BINARY, WORK)

BIN_KEYS = ("angle_deg", "n", "mean_intensity", "std_intensity", "std_range_m", "drop_rate")
MATERIAL_KEYS = ("name", "fitted_distance_m", "configured_distance_m", "bins", "brdf")


def wrap(a):
    a = math.fmod(a, 2 * math.pi)
    if a <= -math.pi:
        a += 2 * math.pi
    elif a > math.pi:
        a -= 2 * math.pi
    return a


def synthetic_scan(d=0.6, phi_deg=182.0, width=1.0, revolutions=40, seed=7, board=True):
    """RPLIDAR-like beam lines: 720 beams per revolution, intensity 47 or 0 (no echo)."""
    rng = random.Random(seed)
    phi = math.radians(phi_deg)
    centre = d * math.tan(wrap(math.pi - phi))
    lines = []
    for _ in range(revolutions):
        for i in range(720):
            a = -3.1241393089294434 + i * 0.008714509196579456
            psi = wrap(a - phi)
            on = board and abs(psi) < math.radians(85) and abs(d * math.tan(psi) - centre) <= width / 2
            if on:
                deg = math.degrees(abs(psi))
                if rng.random() < 0.02 + 0.5 * max(0.0, (deg - 30) / 30) ** 2:
                    lines.append("inf,0.0,%r" % a)
                else:
                    r = d / math.cos(psi) + rng.gauss(0, 0.002 + 0.004 * (deg / 60) ** 2)
                    lines.append("%r,47.0,%r" % (r, a))
            else:
                lines.append("%r,47.0,%r" % (0.5 + 4.5 * rng.random(), a))
    return "\n".join(lines) + "\n"


def check_json(text, what, count):
    try:
        doc = json.loads(text)
    except ValueError as e:
        check(False, "%s: --json output does not parse: %s" % (what, e))
        return None
    check(isinstance(doc.get("sensor"), str), "%s: no sensor" % what)
    mats = doc.get("materials", [])
    check(len(mats) == count, "%s: %d materials, expected %d" % (what, len(mats), count))
    for m in mats:
        for k in MATERIAL_KEYS:
            check(k in m, "%s: material lacks %s" % (what, k))
        check(len(m.get("bins", [])) > 0, "%s: %s has no bins" % (what, m.get("name")))
        for b in m.get("bins", []):
            for k in BIN_KEYS:
                check(k in b, "%s: %s bin lacks %s" % (what, m.get("name"), k))
            check(0 <= b.get("drop_rate", -1) <= 1 and b.get("n", 0) >= 1, "%s: bad bin %r" % (what, b))
            # the drop rates of the bin's halves (below and from its centre); the bin's rate lies between
            h = b.get("drop_halves", [])
            check(len(h) == 2 and all(0 <= v <= 1 for v in h)
                  and min(h) - 1e-12 <= b.get("drop_rate", -1) <= max(h) + 1e-12, "%s: bad drop_halves %r" % (what, b))
    return doc


def test_synthetic():
    d = new_dir(WORK, "synthetic")
    write(os.path.join(d, "board.txt"), synthetic_scan())
    write(os.path.join(d, "data.config"), "board,board.txt,0.66,1.0,ON,0.5,0.0\n")
    rc, out, err = lidarsim("calibrate", "data.config", "-o", "cal.yaml", "--json", cwd=d)
    check(rc == 0, "synthetic data.config: exit %d: %s" % (rc, err))
    doc = check_json(out, "synthetic data.config", 1)
    if doc:
        m = doc["materials"][0]
        check(abs(m["fitted_distance_m"] - 0.6) < 0.001, "synthetic: fitted %r, true 0.6" % m["fitted_distance_m"])
        check(abs(m["configured_distance_m"] - 0.66) < 1e-12, "synthetic: configured %r" % m["configured_distance_m"])
        check(abs(wrap(math.radians(m["normal_angle_deg"] - 182.0))) < math.radians(0.2),
              "synthetic: normal %r, true 182" % m["normal_angle_deg"])
        check(doc["sensor"] == "rplidar-a1", "synthetic: sensor %r" % doc["sensor"])
    text = open(os.path.join(d, "cal.yaml")).read() if os.path.exists(os.path.join(d, "cal.yaml")) else ""
    check("lidarsim_calibration: 1\n" in text and "  - name: board\n" in text, "synthetic: cal.yaml content")

    # YAML config with a bin width and a sensor; the text summary.
    write(os.path.join(d, "cal_in.yaml"), "sensor: my-lidar\nbin_width_deg: 5\nmaterials:\n"
          "  - {name: board, file: board.txt, width_m: 1.0, brdf: lambertian}\n")
    rc, out, err = lidarsim("calibrate", "cal_in.yaml", "-o", "cal2.yaml", cwd=d)
    check(rc == 0 and "board at 0.6" in out and "wrote cal2.yaml" in out, "synthetic YAML: %d %s %s" % (rc, out, err))
    text = open(os.path.join(d, "cal2.yaml")).read() if rc == 0 else ""
    check("sensor: my-lidar" in text and "bin_width_deg: 5" in text and "type: lambertian" in text,
          "synthetic YAML: cal2.yaml content")

    # One material from the command line, with a bin width override.
    rc, out, err = lidarsim("calibrate", "--scan", "board.txt", "--name", "b1", "--width", "1", "--distance", "0.61",
                            "--brdf", "cook-torrance", "--bin-width", "3", "-o", "one.yaml", "--json", cwd=d)
    doc = check_json(out, "one material", 1) if check(rc == 0, "one material: exit %d: %s" % (rc, err)) else None
    if doc:
        m = doc["materials"][0]
        check(m["name"] == "b1" and m["brdf"]["type"] == "cook-torrance", "one material: name/brdf")
        check(all(abs((b["angle_deg"] - 1.5) / 3 - round((b["angle_deg"] - 1.5) / 3)) < 1e-9 for b in m["bins"]),
              "one material: 3-degree bins")
    check(os.path.exists(os.path.join(d, "one.yaml")), "one material: one.yaml written")

    # --view draws the calibration view: a 900-px-wide PNG per material, the folder made for it.
    rc, out, err = lidarsim("calibrate", "data.config", "-o", "cal3.yaml", "--view", "views", "--quiet", cwd=d)
    png = os.path.join(d, "views", "board_view.png")
    check(rc == 0 and os.path.exists(png), "--view: exit %d, %s: %s" % (rc, png, err))
    if os.path.exists(png):
        head = open(png, "rb").read(24)
        check(head[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(head[16:20], "big") == 900,
              "--view: not a 900-px PNG: %r" % head)
        check(sorted(os.listdir(os.path.join(d, "views"))) == ["board_view.png"], "--view: extra files")

    # --json without -o writes nothing.
    before = sorted(os.listdir(d))
    rc, out, err = lidarsim("calibrate", "data.config", "--json", cwd=d)
    check(rc == 0 and check_json(out, "json only", 1) is not None, "json only: exit %d" % rc)
    check(sorted(os.listdir(d)) == before, "json only: wrote a file")


def test_real():
    config = repo_data.need(os.path.join(REAL, "data.config"))
    d = new_dir(WORK, "real")
    rc, out, err = lidarsim("calibrate", config, "-o", "cal.yaml", "--json", cwd=d)
    check(rc == 0, "real: exit %d: %s" % (rc, err))
    doc = check_json(out, "real", 5)
    if not doc:
        return
    print("%-8s %11s %9s %12s %9s" % ("material", "configured", "fitted", "near-normal", "diff"))
    for m in doc["materials"]:
        phi = math.radians(m["normal_angle_deg"])
        ranges = []
        path = os.path.join(REAL, "data", "%s_data.txt" % m["name"])
        for line in open(path):
            r, i, a = line.split(",")
            r, i, a = float(r), float(i), float(a)
            if math.isfinite(r) and r > 0 and i > 0 and abs(wrap(a - phi)) <= math.radians(2):
                ranges.append(r)
        ranges.sort()
        n = len(ranges)
        med = (ranges[n // 2] if n % 2 else 0.5 * (ranges[n // 2 - 1] + ranges[n // 2])) if n else float("nan")
        diff = m["fitted_distance_m"] - med
        print("%-8s %9.3f m %7.4f m %10.4f m %+6.1f mm" % (m["name"], m["configured_distance_m"],
                                                          m["fitted_distance_m"], med, 1000 * diff))
        check(n >= 20 and abs(diff) <= 0.005, "real %s: fitted %.4f vs near-normal median %.4f (%d beams)"
              % (m["name"], m["fitted_distance_m"], med, n))
        if m["name"] == "wall":
            check(0.375 < m["fitted_distance_m"] < 0.395 and m["configured_distance_m"] == 0.457,
                  "real wall: fitted %r configured %r" % (m["fitted_distance_m"], m["configured_distance_m"]))
    check(os.path.exists(os.path.join(d, "cal.yaml")), "real: cal.yaml written")

    # The LaserScan dump calibrates too (whatever is behind the sensor there).
    rc, out, err = lidarsim("calibrate", "--scan", os.path.join(REAL, "room_laserscan_dump.txt"), "--name", "room",
                            "--width", "1", "--json", cwd=d)
    doc = check_json(out, "room dump", 1) if check(rc == 0, "room dump: exit %d: %s" % (rc, err)) else None
    if doc:
        m = doc["materials"][0]
        check(m["revolutions"] == 24 and m["beams_per_revolution"] == 720, "room dump: %r revolutions x %r beams"
              % (m["revolutions"], m["beams_per_revolution"]))


def expect_failure(name, args, files, code, contains=()):
    """Run in a folder holding `files` (name -> text); require exit `code`, every string of `contains`
    in stderr, nothing on stdout, and the folder unchanged."""
    d = new_dir(WORK, name)
    for fname, text in files.items():
        write(os.path.join(d, fname), text)
    before = sorted(os.listdir(d))
    rc, out, err = lidarsim(*args, cwd=d)
    check(rc == code, "%s: exit %d, expected %d (stderr: %s)" % (name, rc, code, err.strip()))
    for c in contains:
        check(c.lower() in err.lower(), "%s: stderr lacks %r: %s" % (name, c, err.strip()))
    check(out == "", "%s: stdout not empty: %r" % (name, out[:200]))
    check(sorted(os.listdir(d)) == before, "%s: folder changed: %r" % (name, sorted(os.listdir(d))))


def test_errors():
    good = synthetic_scan(revolutions=5)
    cfg = "board,board.txt,0.66,1.0,ON,0.5,0.0\n"
    bad_scan = "\n".join(good.split("\n")[:10]) + "\n0.5,forty-seven,1.0\n"
    expect_failure("malformed_scan", ["calibrate", "data.config", "-o", "cal.yaml", "--json"],
                   {"data.config": cfg, "board.txt": bad_scan}, 1,
                   ("board.txt:11:", "field 2 (intensity) is not a number", "data.config:1"))
    expect_failure("two_fields", ["calibrate", "--scan", "board.txt", "--name", "b", "--width", "1", "-o", "c.yaml"],
                   {"board.txt": "0.5,47.0,3.1\n0.5,47.0\n"}, 1, ("board.txt:2:", "3 comma-separated fields"))
    expect_failure("no_board", ["calibrate", "data.config", "-o", "cal.yaml"],
                   {"data.config": cfg, "board.txt": synthetic_scan(revolutions=2, board=False)}, 1,
                   ("board not found",))
    expect_failure("wrong_direction", ["calibrate", "data.config", "-o", "cal.yaml", "--direction", "0",
                                       "--window", "5"],
                   {"data.config": cfg, "board.txt": synthetic_scan(revolutions=2)}, 1, ("board not found",))
    expect_failure("bad_config", ["calibrate", "data.config", "-o", "cal.yaml"],
                   {"data.config": cfg + "wood,board.txt,0.4,1.2,XX,0.5,0.0\n", "board.txt": good}, 1,
                   ("data.config:2:", "BRDF", "ON", "CT"))
    expect_failure("no_board_view", ["calibrate", "data.config", "-o", "cal.yaml", "--view", "views"],
                   {"data.config": cfg, "board.txt": synthetic_scan(revolutions=2, board=False)}, 1,
                   ("board not found",))
    expect_failure("view_is_file", ["calibrate", "data.config", "-o", "cal.yaml", "--view", "board.txt"],
                   {"data.config": cfg, "board.txt": good}, 2, ("--view", "is a file"))
    expect_failure("missing_scan", ["calibrate", "data.config", "-o", "cal.yaml"],
                   {"data.config": "board,nothere.txt,0.66,1.0,ON,0.5,0.0\n"}, 1, ("nothere.txt", "cannot open"))
    expect_failure("missing_config", ["calibrate", "nothere.config", "-o", "cal.yaml"], {}, 1,
                   ("nothere.config", "cannot open"))
    expect_failure("yaml_key", ["calibrate", "c.yaml", "-o", "cal.yaml"],
                   {"c.yaml": "materials:\n  - name: a\n    file: board.txt\n    width: 1\n", "board.txt": good}, 1,
                   ("c.yaml:4:", "unknown key 'width'", "width_m"))
    expect_failure("output_dir", ["calibrate", "data.config", "-o", "."], {"data.config": cfg, "board.txt": good}, 1,
                   ("directory",))
    expect_failure("output_missing_dir", ["calibrate", "data.config", "-o", "no/such/cal.yaml"],
                   {"data.config": cfg, "board.txt": good}, 1, ("cannot write",))
    usage = [
        (["calibrate"], ("missing",)),
        (["calibrate", "data.config"], ("-o",)),
        (["calibrate", "data.config", "-o", "c.yaml", "--bin-width", "0"], ("--bin-width", "0.05..45")),
        (["calibrate", "data.config", "-o", "c.yaml", "--bin-width"], ("needs a value",)),
        (["calibrate", "data.config", "-o", "c.yaml", "--frobnicate"], ("unknown option",)),
        (["calibrate", "data.config", "--scan", "board.txt", "-o", "c.yaml"], ("not both",)),
        (["calibrate", "--scan", "board.txt", "--name", "b", "-o", "c.yaml"], ("--width",)),
        (["calibrate", "--scan", "board.txt", "--name", "b#1", "--width", "1", "-o", "c.yaml"], ("--name",)),
        (["calibrate", "--scan", "board.txt", "--name", "b", "--width", "1", "--brdf", "phong", "-o", "c.yaml"],
         ("--brdf", "oren-nayar")),
        (["calibrate", "--scan", "board.txt", "--name", "b", "--width", "-1", "-o", "c.yaml"], ("--width",)),
    ]
    for i, (args, contains) in enumerate(usage):
        expect_failure("usage_%d" % i, args, {"data.config": cfg, "board.txt": good}, 2, contains)


def main():
    rc, out, err = lidarsim("calibrate", "--help", cwd=WORK)
    check(rc == 0 and "--bin-width" in out and "--scan" in out, "--help")
    test_synthetic()
    test_real()
    test_errors()
    finish("test_calib_cli")


if __name__ == "__main__":
    main()
