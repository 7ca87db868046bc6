#!/usr/bin/python3
"""`lidarsim fit FIT.yaml -o FITTED.yaml` end to end (issue 11; examples/cw/README.md).

usage: test_cli_fit.py LIDARSIM_BINARY WORK_DIR      (env LSIM_SOURCE_DIR: the source tree)

  a  the real scan: `lidarsim scan --keep-misses` gives one row per beam in the sensor's beam order
     (azimuths as `lidarsim presets urg-04lx --beams` lists them), misses with range 0
  b  the pose: a URG-04LX in a room with an off-centre post; the truth scene's scan (noise on,
     seed 1) and a fit scene equal but for the sensor's pose; the fitted pose, read back by
     scanning FITTED.yaml (a world-frame PCD's VIEWPOINT: lidarsim's own reader), within 1 cm and
     0.2 deg of the truth; progress lines and the result block on stdout; the same fit from PCD
     (binary and ascii) and PLY scans gives the same scene; --quiet prints nothing; on a
     terminal the progress is one line updated with \\r
  c  reflectances and the CW bias (the cw paper's experiment 4, examples/cw): within 5 %, and a
     scan of FITTED.yaml has the truth's intensities
  d  a robust (Cauchy) loss with clutter the model lacks: the pose within 1 cm and 0.2 deg
  e  a scene whose mesh is relative to it, fitted into another folder: the mesh name is rewritten
     and `lidarsim scan FITTED.yaml` finds it
  f  bad fit files, scans and arguments: non-zero exit, a message naming the key / file / number
     at fault (FILE:LINE for the fit file), and no FITTED.yaml (nor a temporary file) left
  g  examples/cw/run.sh runs (so that it cannot rot), and its fits land near their truths
Standard library only (PyYAML, when present, also reads FITTED.yaml back). Exits 1 with one line per
failed check.
"""
import math
import os
import re

from cli_check import (Lidarsim, binary_and_work, check, finish, on_terminal, read_csv, run, run_parts, source_dir,
                       write)

BINARY, WORK = binary_and_work(fresh=True)
SOURCE = source_dir()
EXAMPLE = os.path.join(SOURCE, "examples", "cw")
lidarsim = Lidarsim(BINARY, WORK, ok=True)
try:
    import yaml  # optional
except ImportError:
    yaml = None


def pcd_pose(path):
    """x, y, z and yaw (deg) of the sensor, from a world-frame PCD's VIEWPOINT (x y z qw qx qy qz)."""
    with open(path, "rb") as f:
        for _ in range(16):
            line = f.readline().decode("ascii", "replace")
            if line.startswith("VIEWPOINT"):
                x, y, z, qw, qx, qy, qz = map(float, line.split()[1:8])
                yaw = math.degrees(math.atan2(2 * (qw * qz + qx * qy), 1 - 2 * (qy * qy + qz * qz)))
                return x, y, z, yaw
    raise RuntimeError("%s: no VIEWPOINT line" % path)


def fitted_pose(scene, cwd):
    """The sensor pose lidarsim reads from a (fitted) scene: scan it, read the PCD's VIEWPOINT."""
    out = os.path.join(cwd, "pose_check.pcd")
    lidarsim("scan", scene, "-o", out, "--noise", "off", "--fields", "range", "--frame", "world", "--quiet", cwd=cwd)
    return pcd_pose(out)


def result_values(stdout):
    """{parameter: (initial, fitted)} from the result block (angles in degrees)."""
    values = {}
    for line in stdout.splitlines():
        m = re.match(r"^((?:sensor|object|material|bias)\.\S+)\s+(\S+)(?: (?:m|deg))?\s+(\S+)", line)
        if m:
            values[m.group(1)] = (float(m.group(2)), float(m.group(3)))
    return values


def angle_diff(a, b):
    return (a - b + 180.0) % 360.0 - 180.0


ROOM = """sensor:
  preset: urg-04lx
  position: [{x}, {y}, 1.0]
  rotation: [0, 0, {yaw}]
objects:
  - box: {{size: [6, 4, 3]}}
    position: [0.5, 0, 1]
  - {post}
    name: post
    position: [2, 1.2, 1]
{extra}"""
BOX_POST = "box: {size: [0.3, 0.3, 3]}"
TRUTH = (0.40, -0.30, 12.0)


def room(x, y, yaw, post=BOX_POST, extra=""):
    return ROOM.format(x=x, y=y, yaw=yaw, post=post, extra=extra)


def leftovers(d):
    return [n for n in os.listdir(d) if ".tmp." in n or ".part." in n]


# ---------------------------------------------------------------- a: the real scan

def part_a():
    d = os.path.join(WORK, "a")
    write(os.path.join(d, "boards.yaml"), open(os.path.join(EXAMPLE, "checkerboard_truth.yaml")).read())
    lidarsim("scan", "boards.yaml", "-o", "real.csv", "--keep-misses", "--seed", "1", "--quiet", cwd=d)
    scan = read_csv(os.path.join(d, "real.csv"))
    _, beams, _ = lidarsim("presets", "urg-04lx", "--beams")
    rows = [l.split(",") for l in beams.strip().splitlines()[1:]]
    check(len(scan["range"]) == len(rows) == 682, "a: %d scan rows, %d beams; expected 682 each"
          % (len(scan["range"]), len(rows)))
    az = [float(r[1]) for r in rows]
    check(all(abs(a - b) < 1e-3 for a, b in zip(scan["azimuth"], az)), "a: the scan's rows are not in beam order")
    misses = sum(1 for r in scan["range"] if r == 0.0)
    check(100 < misses < 600, "a: %d misses with range 0 (the boards leave most beams without a return)" % misses)


# ---------------------------------------------------------------- b: the pose

def part_b():
    d = os.path.join(WORK, "b")
    write(os.path.join(d, "truth.yaml"), room(*TRUTH))
    write(os.path.join(d, "room.yaml"), room(0, 0, 0))
    lidarsim("scan", "truth.yaml", "-o", "real.csv", "--keep-misses", "--seed", "1", "--quiet", cwd=d)
    write(os.path.join(d, "fit.yaml"), "scene: room.yaml\nscan: real.csv\nparameters:\n  sensor: {dof: se2}\n")
    os.makedirs(os.path.join(d, "out"), exist_ok=True)
    rc, out, err = lidarsim("fit", "fit.yaml", "-o", "out/fitted.yaml", cwd=d, ok=False)
    if not check(rc == 0, "b: fit failed (exit %d): %s" % (rc, err.strip())):
        return
    progress = re.findall(r"^iteration (\d+): loss (\S+) m\^2$", out, re.M)
    check(len(progress) >= 3 and [int(p[0]) for p in progress] == list(range(1, len(progress) + 1)),
          "b: progress lines 'iteration N: loss L m^2' 1, 2, ... expected: %r" % out[:300])
    check("\r" not in out, "b: a \\r in piped output")
    for needle in ("sensor.x", "sensor.y", "sensor.yaw", "loss:", "rms range residual:", "beams: ",
                   "at silhouettes", "through mirrors/glass", "unmatched", "iterations:", "scans:", "wall time:"):
        check(needle in out, "b: the result block lacks %r" % needle)
    vals = result_values(out)
    check("sensor.yaw" in vals and abs(vals["sensor.yaw"][1] - TRUTH[2]) < 0.2,
          "b: result block yaw %r (degrees expected near 12)" % (vals.get("sensor.yaw"),))
    x, y, z, yaw = fitted_pose("out/fitted.yaml", d)
    err_xy = math.hypot(x - TRUTH[0], y - TRUTH[1])
    print("b: fitted pose (%.4f, %.4f) m, yaw %.3f deg: %.2f mm, %.3f deg from the truth"
          % (x, y, yaw, 1e3 * err_xy, angle_diff(yaw, TRUTH[2])))
    check(err_xy < 0.01, "b: fitted position %.4f %.4f is %.1f mm from the truth" % (x, y, 1e3 * err_xy))
    check(abs(angle_diff(yaw, TRUTH[2])) < 0.2, "b: fitted yaw %.3f deg, truth 12" % yaw)
    check(abs(z - 1.0) < 1e-6, "b: z changed to %r (se2 keeps it)" % z)
    text = open(os.path.join(d, "out", "fitted.yaml")).read()
    check(text.startswith("# lidarsim fit fit.yaml"), "b: FITTED.yaml lacks its first comment line")
    check("name: post" in text and "[2, 1.2, 1]" in text, "b: the post changed in FITTED.yaml")
    if yaml:
        doc = yaml.safe_load(text)
        check(abs(doc["sensor"]["position"][0] - x) < 1e-6 and doc["sensor"]["preset"] == "urg-04lx",
              "b: PyYAML reads another pose: %r" % doc["sensor"])
        check(doc["objects"] == yaml.safe_load(open(os.path.join(d, "room.yaml")))["objects"],
              "b: the objects changed")
    # the same fit from PCD (binary, ascii) and PLY scans: the same fitted scene
    body = text.split("\n", 1)[1]
    for ext, extra in (("pcd", []), ("pcd", ["--format", "pcd-ascii"]), ("ply", []),
                       ("pcd", ["--fields", "range,intensity"])):
        name = "real_%s%s.%s" % (ext, "_".join(extra).replace("-", "").replace(",", ""), ext)
        lidarsim("scan", "truth.yaml", "-o", name, "--keep-misses", "--seed", "1", "--quiet", *extra, cwd=d)
        write(os.path.join(d, "fit_%s.yaml" % name), "scene: room.yaml\nscan: %s\nparameters:\n  sensor: {dof: se2}\n"
              % name)
        rc, _, err = lidarsim("fit", "fit_%s.yaml" % name, "-o", "out/fitted_%s.yaml" % name, "--quiet", cwd=d,
                              ok=False)
        if check(rc == 0, "b: fit from %s failed: %s" % (name, err.strip())):
            other = open(os.path.join(d, "out", "fitted_%s.yaml" % name)).read().split("\n", 1)[1]
            check(other == body, "b: the fit from %s differs from the CSV's" % name)
    # --quiet: nothing on stdout
    rc, out, err = lidarsim("fit", "fit.yaml", "-o", "out/quiet.yaml", "--quiet", cwd=d, ok=False)
    check(rc == 0 and out == "" and err == "", "b: --quiet printed %r %r" % (out[:100], err[:100]))
    # --max-iterations 2: stops there
    rc, out, _ = lidarsim("fit", "fit.yaml", "-o", "out/two.yaml", "--max-iterations", "2", cwd=d, ok=False)
    check(rc == 0 and "iterations: 2 of at most 2," in out and "may not have converged" in out,
          "b: --max-iterations 2: %r" % out[-300:])
    # on a terminal: one line, updated with \r
    p = on_terminal([BINARY, "fit", "fit.yaml", "-o", "out/tty.yaml"], cwd=d, seconds=60, stdin=False, stderr=False)
    tty = p.stdout
    check(p.returncode == 0 and "\riteration 2: loss" in tty and "\niteration 2" not in tty,
          "b: on a terminal the progress is not one \\r-updated line: %r" % tty[:200])
    # --help
    rc, out, _ = lidarsim("fit", "--help")
    check(rc == 0 and "intensity_weight" in out and "--max-iterations" in out, "b: --help")


# ---------------------------------------------------------------- c: reflectances and bias

def part_c():
    d = os.path.join(WORK, "c")
    for name in ("checkerboard.yaml", "checkerboard_truth.yaml", "checkerboard_fit.yaml"):
        write(os.path.join(d, name), open(os.path.join(EXAMPLE, name)).read())
    lidarsim("scan", "checkerboard_truth.yaml", "-o", "checkerboard_real.csv", "--keep-misses", "--seed", "9",
             "--quiet", cwd=d)
    rc, out, err = lidarsim("fit", "checkerboard_fit.yaml", "-o", "fitted.yaml", cwd=d, ok=False)
    if not check(rc == 0, "c: fit failed: %s" % err.strip()):
        return
    text = open(os.path.join(d, "fitted.yaml")).read()
    refl = {m: float(v) for m, v in re.findall(r"^  (black|white): \{brdf: lambertian, reflectance: (\S+?)\}", text,
                                               re.M)}
    bias = re.search(r"receiver: \{bias: \[(\S+), (\S+), (\S+)\]\}", text)
    print("c: reflectances %r, bias %s" % (refl, bias.groups() if bias else None))
    check(abs(refl.get("black", 0) / 0.1 - 1) < 0.05 and abs(refl.get("white", 0) / 0.8 - 1) < 0.05,
          "c: fitted reflectances %r (truth black 0.1, white 0.8)" % refl)
    check(bias is not None, "c: no receiver bias in FITTED.yaml:\n" + text[:400])
    if bias:
        c = [float(v) for v in bias.groups()]
        # the staircase (range step from black to white) as the bias puts it, within 5 %
        step = lambda c, lo, hi: (c[1] * (hi - lo) + c[2] * (hi * hi - lo * lo))
        check(abs(step(c, 0.1, 0.8) / step((0.01, 0.3, -0.2), 0.1, 0.8) - 1) < 0.05, "c: bias %r" % c)
    vals = result_values(out)
    check(abs(vals.get("material.white.reflectance", (0, 0))[1] - refl.get("white", -1)) < 1e-4,
          "c: the result block's white reflectance differs from FITTED.yaml's")
    # the fitted scene's intensities are the truth's (noise off)
    lidarsim("scan", "fitted.yaml", "-o", "fit_clean.csv", "--keep-misses", "--noise", "off", "--quiet", cwd=d)
    lidarsim("scan", "checkerboard_truth.yaml", "-o", "truth_clean.csv", "--keep-misses", "--noise", "off",
             "--quiet", cwd=d)
    a, b = read_csv(os.path.join(d, "fit_clean.csv")), read_csv(os.path.join(d, "truth_clean.csv"))
    ratios = [p / q for p, q in zip(a["intensity"], b["intensity"]) if q > 0 and p > 0]
    check(len(ratios) > 200 and max(abs(r - 1) for r in ratios) < 0.05,
          "c: fitted intensities vs the truth's: %d beams, worst ratio %r" % (len(ratios),
                                                                             max(ratios, key=lambda r: abs(r - 1))
                                                                             if ratios else None))
    if yaml:
        doc = yaml.safe_load(text)
        check(abs(doc["materials"]["black"]["reflectance"] - refl["black"]) < 1e-12, "c: PyYAML reads another value")


# ---------------------------------------------------------------- d: robust loss

def part_d():
    d = os.path.join(WORK, "d")
    clutter = ("  - box: {size: [0.6, 0.5, 2]}\n    position: [-1.8, 1.6, 1]\n"
               "  - sphere: {radius: 0.25}\n    position: [1.5, -1.3, 1.0]\n")
    write(os.path.join(d, "truth.yaml"), room(*TRUTH, extra=clutter))
    write(os.path.join(d, "room.yaml"), room(0, 0, 0))
    lidarsim("scan", "truth.yaml", "-o", "real.csv", "--keep-misses", "--seed", "2", "--quiet", cwd=d)
    write(os.path.join(d, "fit.yaml"), """scene: room.yaml
scan: real.csv
parameters:
  sensor:
    dof: se2
    initial: {x: 0.1, y: 0.0, yaw_deg: 3}
    bounds: {x: [-2, 3], y: [-1.5, 1.5]}
loss: {type: cauchy, scale: 0.05}
""")
    rc, out, err = lidarsim("fit", "fit.yaml", "-o", "fitted.yaml", cwd=d, ok=False)
    if not check(rc == 0, "d: fit failed: %s" % err.strip()):
        return
    vals = result_values(out)
    check(vals.get("sensor.x", (None,))[0] == 0.1 and vals.get("sensor.yaw", (None,))[0] == 3.0,
          "d: the result block's initial values are not the fit file's: %r" % vals)
    x, y, _, yaw = fitted_pose("fitted.yaml", d)
    err_xy = math.hypot(x - TRUTH[0], y - TRUTH[1])
    print("d: Cauchy loss with clutter: %.2f mm, %.3f deg from the truth" % (1e3 * err_xy, angle_diff(yaw, TRUTH[2])))
    check(err_xy < 0.01 and abs(angle_diff(yaw, TRUTH[2])) < 0.2,
          "d: robust fit (%.4f, %.4f, %.3f deg) is not within 1 cm and 0.2 deg of the truth" % (x, y, yaw))


# ---------------------------------------------------------------- e: relative file names

OBJ_BOX = """v -0.15 -0.15 -1.5
v 0.15 -0.15 -1.5
v 0.15 0.15 -1.5
v -0.15 0.15 -1.5
v -0.15 -0.15 1.5
v 0.15 -0.15 1.5
v 0.15 0.15 1.5
v -0.15 0.15 1.5
f 1 3 2
f 1 4 3
f 5 6 7
f 5 7 8
f 1 2 6
f 1 6 5
f 2 3 7
f 2 7 6
f 3 4 8
f 3 8 7
f 4 1 5
f 4 5 8
"""


def part_e():
    d = os.path.join(WORK, "e")
    write(os.path.join(d, "scene", "models", "post.obj"), OBJ_BOX)
    write(os.path.join(d, "scene", "truth.yaml"), room(*TRUTH, post="mesh: models/post.obj"))
    write(os.path.join(d, "scene", "room.yaml"), room(0, 0, 0, post="mesh: models/post.obj"))
    os.makedirs(os.path.join(d, "fit"))
    lidarsim("scan", "scene/truth.yaml", "-o", "fit/real.csv", "--keep-misses", "--seed", "1", "--quiet", cwd=d)
    write(os.path.join(d, "fit", "fit.yaml"), "scene: ../scene/room.yaml\nscan: real.csv\nparameters:\n"
          "  sensor: {dof: se2}\n")
    os.makedirs(os.path.join(d, "out", "deeper"))
    rc, _, err = lidarsim("fit", "fit/fit.yaml", "-o", "out/deeper/fitted.yaml", "--quiet", cwd=d, ok=False)
    if not check(rc == 0, "e: fit failed: %s" % err.strip()):
        return
    text = open(os.path.join(d, "out", "deeper", "fitted.yaml")).read()
    check("mesh: ../../scene/models/post.obj" in text, "e: the mesh name is not rewritten:\n" + text)
    x, y, _, yaw = fitted_pose("out/deeper/fitted.yaml", d)
    check(math.hypot(x - TRUTH[0], y - TRUTH[1]) < 0.01 and abs(angle_diff(yaw, TRUTH[2])) < 0.2,
          "e: fitted pose (%.4f, %.4f, %.3f) with a mesh post" % (x, y, yaw))
    # beside the scene: names stay as they are
    rc, _, err = lidarsim("fit", "fit/fit.yaml", "-o", "scene/fitted.yaml", "--quiet", cwd=d, ok=False)
    check(rc == 0 and "mesh: models/post.obj" in open(os.path.join(d, "scene", "fitted.yaml")).read(),
          "e: beside the scene the mesh name changed: %s" % err.strip())


# ---------------------------------------------------------------- f: bad input

GOOD = {"scene": "scene: room.yaml", "scan": "scan: real.csv",
        "params": "parameters:\n  sensor: {dof: se2, initial: {x: 0.1, yaw_deg: 3}}"}


def fit_text(**over):
    parts = dict(GOOD)
    parts.update(over)
    return "\n".join(v for v in parts.values() if v) + "\n"


# (name, fit file text, extra CLI args, expected exit, substrings the message must hold)
BAD = [
    ("unknown top key", fit_text(extra="scan_file: x.csv"), [], 1,
     ["fit.yaml:5:1", "unknown key 'scan_file'", "valid keys: scene, scan, intensity_weight, parameters, loss"]),
    ("unknown sensor key", fit_text(params="parameters:\n  sensor: {dof: se2, start: {x: 1}}"), [], 1,
     ["fit.yaml:4:", "parameters.sensor", "unknown key 'start'", "valid keys: dof, initial, bounds"]),
    ("unknown parameter kind", fit_text(params="parameters:\n  pose: {dof: se2}"), [], 1,
     ["fit.yaml:4:3", "unknown key 'pose'", "sensor, objects, reflectance, cw_bias"]),
    ("yaw without _deg", fit_text(params="parameters:\n  sensor: {dof: se2, initial: {yaw: 3}}"), [], 1,
     ["parameters.sensor.initial", "'yaw'", "yaw_deg"]),
    ("z in se2", fit_text(params="parameters:\n  sensor: {dof: se2, initial: {z: 1}}"), [], 1,
     ["fit.yaml:4:", "'z' is not a parameter of an se2 pose", "x, y, yaw_deg"]),
    ("dof se4", fit_text(params="parameters:\n  sensor: {dof: se4}"), [], 1,
     ["parameters.sensor.dof", "'se4' is not valid", "se2", "se3"]),
    ("no dof", fit_text(params="parameters:\n  sensor: {initial: {x: 1}}"), [], 1,
     ["parameters.sensor", "dof: se2"]),
    ("non-numeric", fit_text(params="parameters:\n  sensor: {dof: se2, initial: {x: abc}}"), [], 1,
     ["fit.yaml:4:", "parameters.sensor.initial.x", "'abc'"]),
    ("nan", fit_text(params="parameters:\n  sensor: {dof: se2, initial: {x: nan}}"), [], 1,
     ["parameters.sensor.initial.x", "finite number", "'nan'"]),
    ("yaml nan", fit_text(params="parameters:\n  sensor: {dof: se2, initial: {x: .nan}}"), [], 1,
     ["parameters.sensor.initial.x", "'.nan'"]),
    ("bounds reversed", fit_text(params="parameters:\n  sensor: {dof: se2, bounds: {x: [1, -1]}}"), [], 1,
     ["parameters.sensor.bounds.x", "lower bound 1 must be below the upper bound -1"]),
    ("bounds equal", fit_text(params="parameters:\n  sensor: {dof: se2, bounds: {yaw_deg: [5, 5]}}"), [], 1,
     ["parameters.sensor.bounds.yaw_deg", "lower bound 5"]),
    ("bounds not a pair", fit_text(params="parameters:\n  sensor: {dof: se2, bounds: {x: [1, 2, 3]}}"), [], 1,
     ["parameters.sensor.bounds.x", "exactly 2 numbers"]),
    ("initial outside bounds", fit_text(params="parameters:\n  sensor: {dof: se2, initial: {yaw_deg: 30}, "
                                               "bounds: {yaw_deg: [-10, 10]}}"), [], 1,
     ["parameters.sensor.initial.yaw_deg", "30 deg is outside its bounds [-10, 10]"]),
    ("scene value outside bounds", fit_text(params="parameters:\n  sensor: {dof: se2, bounds: {x: [0.5, 1]}}"), [],
     1, ["parameters.sensor.bounds.x", "the start value 0 m is outside its bounds [0.5, 1]", "the scene's value"]),
    ("too many parameters", fit_text(params="parameters:\n  sensor: {dof: se3}\n  cw_bias: {}"), [], 1,
     ["fit.yaml:4:", "9 parameters", "at most 8"]),
    ("nothing to fit", fit_text(params="parameters: {}"), [], 1, ["parameters", "nothing to fit"]),
    ("no scene key", fit_text(scene=""), [], 1, ["needs `scene:`"]),
    ("missing scene file", fit_text(scene="scene: nowhere.yaml"), [], 1,
     ["fit.yaml:1:8: scene", "nowhere.yaml", "cannot open"]),
    ("missing scan file", fit_text(scan="scan: nowhere.csv"), [], 1,
     ["fit.yaml:2:7: scan", "nowhere.csv", "cannot open the scan file"]),
    ("short scan", fit_text(scan="scan: short.csv"), [], 1,
     ["scan", "short.csv has 681 rows", "682 beams", "--keep-misses"]),
    ("scan without misses", fit_text(scan="scan: nomiss.csv"), [], 1,
     ["nomiss.csv has", "682 beams", "--keep-misses"]),
    ("scan without intensity", fit_text(scan="scan: range_only.csv", extra="intensity_weight: 1"), [], 1,
     ["range_only.csv:1", "no `intensity` column", "range"]),
    ("scan with a bad range", fit_text(scan="scan: bad_range.csv"), [], 1, ["bad_range.csv:6", "column 4 (range) is not a number"]),
    ("scan without range", fit_text(scan="scan: no_range.csv"), [], 1, ["no_range.csv:1", "no `range` column"]),
    ("no such object", fit_text(params="parameters:\n  objects:\n    door: {dof: se2}"), [], 1,
     ["fit.yaml:5:5", "parameters.objects.door", "no object named 'door'", "post"]),
    ("no such material", fit_text(params="parameters:\n  reflectance:\n    grey: {initial: 0.3}"), [], 1,
     ["fit.yaml:5:5", "parameters.reflectance.grey", "no material 'grey'", "wall"]),
    ("reflectance above 1", fit_text(params="parameters:\n  reflectance:\n    wall: {initial: 1.5}"), [], 1,
     ["parameters.reflectance.wall.initial", "1.5", "[0.0001, 1]"]),
    ("not lambertian", fit_text(params="parameters:\n  reflectance:\n    shiny: {}"), [], 1,
     ["parameters.reflectance.shiny", "not plain Lambertian"]),
    ("bias of a pulsed sensor", fit_text(scene="scene: pulsed.yaml", scan="scan: pulsed_real.csv", params="parameters:\n  cw_bias: {}"), [], 1,
     ["parameters.cw_bias", "pulsed"]),
    ("bias initial of 2", fit_text(params="parameters:\n  cw_bias: {initial: [0, 1]}"), [], 1,
     ["parameters.cw_bias.initial", "exactly 3 numbers"]),
    ("loss type", fit_text(extra="loss: {type: l1}"), [], 1, ["loss.type", "'l1'", "squared, huber, cauchy"]),
    ("huber without scale", fit_text(extra="loss: {type: huber}"), [], 1, ["loss", "needs `scale:`"]),
    ("negative scale", fit_text(extra="loss: {type: cauchy, scale: -1}"), [], 1, ["loss.scale", "-1"]),
    ("max_iterations 0", fit_text(extra="max_iterations: 0"), [], 1, ["max_iterations", "0 is out of range", "10000"]),
    ("intensity weight 0", fit_text(extra="intensity_weight: 0"), [], 1, ["intensity_weight", "(0, 1e6]"]),
    ("empty fit file", "", [], 1, ["fit.yaml:1", "the fit file is empty"]),
    ("yaml syntax", "scene: [room.yaml\n", [], 1, ["fit.yaml:1:8", "never closed"]),
    ("cli: bad --max-iterations", fit_text(), ["--max-iterations", "abc"], 2, ["--max-iterations", "'abc'"]),
    ("cli: output is the fit file", fit_text(), ["-o", "fit.yaml"], 2, ["is the fit file"]),
]


def part_f():
    d = os.path.join(WORK, "f")
    write(os.path.join(d, "room.yaml"), room(0, 0, 0) + """materials:
  wall: {brdf: lambertian, reflectance: 0.5}
  shiny: {brdf: cook-torrance, reflectance: 0.5}
""")
    write(os.path.join(d, "truth.yaml"), room(*TRUTH))
    write(os.path.join(d, "pulsed.yaml"), room(0, 0, 0).replace("preset: urg-04lx", "preset: rplidar-a1"))
    lidarsim("scan", "truth.yaml", "-o", "real.csv", "--keep-misses", "--seed", "1", "--quiet", cwd=d)
    lidarsim("scan", "pulsed.yaml", "-o", "pulsed_real.csv", "--keep-misses", "--quiet", cwd=d)
    lines = open(os.path.join(d, "real.csv")).read().splitlines()
    write(os.path.join(d, "short.csv"), "\n".join(lines[:-1]) + "\n")
    bad = list(lines)
    cols = bad[5].split(",")
    cols[lines[0].split(",").index("range")] = "oops"
    bad[5] = ",".join(cols)
    write(os.path.join(d, "bad_range.csv"), "\n".join(bad) + "\n")
    write(os.path.join(d, "no_range.csv"), "\n".join(l.replace("range", "rng") if i == 0 else l
                                                     for i, l in enumerate(lines)) + "\n")
    lidarsim("scan", "truth.yaml", "-o", "range_only.csv", "--keep-misses", "--fields", "range", "--quiet", cwd=d)
    # a scene with misses scanned without --keep-misses: fewer rows than beams
    write(os.path.join(d, "open.yaml"), "sensor: {preset: urg-04lx}\nobjects:\n  - box: {size: [0.5, 3, 1]}\n"
          "    position: [2, 0, 0]\n")
    lidarsim("scan", "open.yaml", "-o", "nomiss.csv", "--quiet", cwd=d)
    for name, text, args, code, needles in BAD:
        write(os.path.join(d, "fit.yaml"), text)
        out = os.path.join(d, "FITTED.yaml")
        if os.path.exists(out):
            os.remove(out)
        rc, stdout, err = lidarsim("fit", "fit.yaml", *(args if "-o" in args else ["-o", "FITTED.yaml"] + args),
                                   cwd=d, ok=False)
        check(rc == code, "f: %s: exit %d, expected %d (%s)" % (name, rc, code, err.strip()))
        for needle in needles:
            check(needle in err, "f: %s: the message lacks %r: %s" % (name, needle, err.strip()))
        check(err.startswith("lidarsim fit: ") and err.count("\n") == 1,
              "f: %s: not one line 'lidarsim fit: ...': %r" % (name, err))
        check(not os.path.exists(out), "f: %s: left FITTED.yaml behind" % name)
        check(not leftovers(d), "f: %s: left %r" % (name, leftovers(d)))
        check(open(os.path.join(d, "fit.yaml")).read() == text, "f: %s: the fit file changed" % name)
    # usage errors
    for args, needle in ((["fit.yaml"], "missing -o"), ([], "missing the fit file"),
                         (["fit.yaml", "-o", "x.yaml", "--bogus"], "unknown option '--bogus'")):
        rc, _, err = lidarsim("fit", *args, cwd=d, ok=False)
        check(rc == 2 and needle in err, "f: lidarsim fit %s: exit %d, %s" % (" ".join(args), rc, err.strip()[:200]))
    # an output folder that does not exist: refused before any work
    write(os.path.join(d, "fit.yaml"), fit_text())
    rc, _, err = lidarsim("fit", "fit.yaml", "-o", "nowhere/FITTED.yaml", cwd=d, ok=False)
    check(rc == 1 and "nowhere/FITTED.yaml" in err, "f: a missing output folder: exit %d, %s" % (rc, err.strip()))


# ---------------------------------------------------------------- g: examples/cw/run.sh

def part_g():
    d = os.path.join(WORK, "g")
    p = run(["bash", os.path.join(EXAMPLE, "run.sh"), BINARY, d], seconds=300)
    out, err = p.stdout, p.stderr
    if not check(p.returncode == 0, "g: run.sh failed (exit %d): %s" % (p.returncode, err.strip()[-500:])):
        return
    blocks = out.split("== ")[1:]
    check(len(blocks) == 7, "g: run.sh printed %d sections, expected 7" % len(blocks))
    if len(blocks) < 6:
        return
    room_fit, robust, post, boards, mirrors, pillar = (result_values(b) for b in blocks[:6])
    ok = all(k in mirrors for k in ("sensor.x", "sensor.y", "sensor.yaw"))
    check(ok and math.hypot(mirrors["sensor.x"][1] - 0.12, mirrors["sensor.y"][1] + 0.08) < 0.01
          and abs(mirrors["sensor.yaw"][1] - 4) < 0.2, "g: experiment 2: %r" % mirrors)
    ok = all(k in pillar for k in ("object.pillar.x", "object.pillar.y", "object.pillar.yaw"))
    check(ok and math.hypot(pillar["object.pillar.x"][1] - 1.215, pillar["object.pillar.y"][1] - 0.29) < 0.01
          and abs(angle_diff(pillar["object.pillar.yaw"][1], 41)) < 0.2, "g: experiment 3: %r" % pillar)
    for name, vals in (("experiment 1", room_fit), ("robust", robust)):
        ok = all(k in vals for k in ("sensor.x", "sensor.y", "sensor.yaw"))
        check(ok and math.hypot(vals["sensor.x"][1] - 0.4, vals["sensor.y"][1] + 0.3) < 0.01
              and abs(vals["sensor.yaw"][1] - 12) < 0.2, "g: %s: %r" % (name, vals))
    ok = all(k in post for k in ("object.post.x", "object.post.y", "object.post.yaw"))
    check(ok and math.hypot(post["object.post.x"][1] - 2.1, post["object.post.y"][1] - 1.1) < 0.02
          and abs((angle_diff(post["object.post.yaw"][1], 15) + 45) % 90 - 45) < 1.0, "g: the post: %r" % post)
    ok = "material.black.reflectance" in boards and "material.white.reflectance" in boards
    check(ok and abs(boards["material.black.reflectance"][1] / 0.1 - 1) < 0.05
          and abs(boards["material.white.reflectance"][1] / 0.8 - 1) < 0.05, "g: experiment 4: %r" % boards)
    for f in ("room_fitted", "room_robust_fitted", "room_post_fitted", "checkerboard_fitted", "mirror_room_fitted",
              "mirror_pillar_fitted"):
        check(os.path.isfile(os.path.join(d, f + ".yaml")) and os.path.isfile(os.path.join(d, f + ".csv")),
              "g: run.sh did not write %s.yaml and its scan" % f)


if __name__ == "__main__":
    run_parts((part_a, part_b, part_c, part_d, part_e, part_f, part_g))
    finish("test_cli_fit", "OK")
