#!/usr/bin/python3
"""No message quotes the content of a file that is not what it should be (issue 23).

usage: test_no_quote.py LIDARSIM_BINARY WORK_DIR

A path inside one file (a fit's `scene:`, a scene material's `calibration:`, a calibrate config's
scan `file:`, a dataset's `sensor: {calibration:}` or library mesh) or on the command line (a
calibrate or dataset config) names a file holding a secret: plain text ("SECRET-1234 root:x:0:0"),
a YAML mapping with unknown keys (`password: SECRET-...`), a list, a quoted scalar, a syntax error
after a secret key, or a PLY whose header holds a secret word. Each run must fail (exit 1) with a
message that names the file and never contains "SECRET". Inside a file recognised as its kind (a
scene with `sensor:`), an unknown key may be named (truncated) but never its value.

Also: a dataset whose pattern file lies in the output folder at a later frame's path is refused
before any frame is written (before, frame 000000 was written, then the run stopped at 000001).
Standard library only. Exits 1 with one line per failed check.
"""
import os

from cli_check import Lidarsim, binary_and_work, check, finish, new_dir, write

BINARY, WORK = binary_and_work(fresh=True)
lidarsim = Lidarsim(BINARY, WORK, seconds=60, hang=True)  # a hang is a failure (exit -1), not a stuck suite

SCENE = "sensor: {preset: vlp16}\nobjects:\n  - box: {size: [10, 10, 4]}\n"
PATTERN = "azimuth_deg,elevation_deg,time_s\n0,0,0\n10,0,0.001\n20,1,0.002\n"
SECRETS = {
    "plain": "SECRET-1234 root:x:0:0\n",
    "lines": "root:SECRET-1234:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\n",
    "mapping": "password: SECRET-1234\nuser: SECRET-root\n",
    "list": "- SECRET-1234\n- root:x:0:0\n",
    "quoted": "'SECRET-1234 root:x:0:0'\n",
    "flow": "{SECRET-1234: [1, 2}\n",
    "nested": "SECRET-key:\n  SECRET-sub: [1, 2\n",
    "number": "SECRET-1234: 5\n",
}


def refused(name, args, cwd, needles, seconds=60):
    """Exit 1, each of `needles` in the message, and no "SECRET" in it."""
    err = lidarsim.refused(name, args, cwd, needles, seconds=seconds)
    check("SECRET" not in err, "%s: the message quotes the file's text: %s" % (name, err[:400]))
    return err


def secrets(d, ext):
    """Write every secret file as secret_KIND.EXT in d; return the names."""
    names = []
    for kind, text in SECRETS.items():
        names.append(os.path.basename(write(os.path.join(d, "secret_%s.%s" % (kind, ext)), text)))
    return names


def yaml_slots():
    d = new_dir(WORK, "yaml")
    write(os.path.join(d, "room.yaml"), SCENE)
    code, _, err = lidarsim("scan", "room.yaml", "-o", "s.csv", "--keep-misses", "--quiet", cwd=d)
    check(code == 0, "scan for the fixtures: %s" % err)
    for name in secrets(d, "yaml"):
        # a fit file's scene
        write(os.path.join(d, "fit.yaml"), "scene: %s\nscan: s.csv\nparameters:\n  sensor: {dof: se2}\n" % name)
        refused("fit scene " + name, ["fit", "fit.yaml", "-o", "f.yaml"], d, [name])
        # a scene material's calibration file
        write(os.path.join(d, "cal_scene.yaml"), "sensor: {preset: vlp16}\nmaterials:\n  wall: {calibration: %s#wall}\n"
              "objects:\n  - box: {size: [10, 10, 4]}\n    material: wall\n" % name)
        refused("scene calibration " + name, ["scan", "cal_scene.yaml", "-o", "x.pcd"], d, [name])
        # a calibrate config and a dataset config given on the command line
        refused("calibrate config " + name, ["calibrate", name, "-o", "cal.yaml"], d, [name])
        refused("dataset config " + name, ["dataset", name, "-o", "ds"], d, [name])
        # a dataset's sensor calibration
        write(os.path.join(d, "ds.yaml"), "seed: 1\nframes: 1\nframes_per_sequence: 1\n"
              "sensor: {calibration: %s}\n"
              "materials: {m: {brdf: lambertian, reflectance: 0.3}}\n"
              "layout: {kind: scatter, extent: [20, 20], materials: {ground: m}}\n"
              "library:\n  - box: [1, 1, 1]\n    label: car\n    material: m\n    count: [1, 1]\n" % name)
        refused("dataset sensor calibration " + name, ["dataset", "ds.yaml", "-o", "ds", "--quiet"], d, [name])
    for name in secrets(d, "csv"):
        # a calibrate config's scan
        write(os.path.join(d, "cal.yaml"), "materials:\n  - {name: board, file: %s, width_m: 0.66, distance_m: 1.0,"
              " brdf: oren-nayar}\n" % name)
        refused("calibrate scan " + name, ["calibrate", "cal.yaml", "-o", "cal_out.yaml"], d, [name])
    # recognised as a scene: an unknown key may be named, its value never
    write(os.path.join(d, "known.yaml"), SCENE + "password: SECRET-1234\n")
    write(os.path.join(d, "fit.yaml"), "scene: known.yaml\nscan: s.csv\nparameters:\n  sensor: {dof: se2}\n")
    refused("fit scene with an unknown key", ["fit", "fit.yaml", "-o", "f.yaml"], d,
            ["known.yaml:4:1", "unknown key 'password'"])
    write(os.path.join(d, "long.yaml"), SCENE + "x" * 60 + "\xe9: 1\n")
    err = refused("an unknown key is truncated", ["scan", "long.yaml", "-o", "x.pcd"], d, ["long.yaml:4:1"])
    check("x" * 41 not in err and "\xe9" not in err, "an unknown key is not truncated to 40 bytes: %s" % err)
    # known top-level kind, a scalar where a mapping is expected: the kind, not the text
    write(os.path.join(d, "scalar_sensor.yaml"), "sensor: SECRET-1234\nobjects: []\n")
    refused("a scalar for sensor", ["scan", "scalar_sensor.yaml", "-o", "x.pcd"], d,
            ["scalar_sensor.yaml:1:9", "expected a mapping", "a scalar"])
    write(os.path.join(d, "list_sensor.yaml"), "sensor: [SECRET-1, 2, 3]\nobjects: []\n")
    refused("a list for sensor", ["scan", "list_sensor.yaml", "-o", "x.pcd"], d, ["a list of 3"])


def meshes():
    d = new_dir(WORK, "mesh")
    head = "ply\nformat ascii 1.0\n"
    cases = {
        "word": head + "SECRET-1234 root\nend_header\n",
        "format": "ply\nformat SECRET-1234 1.0\nend_header\n",
        "type": head + "element vertex 1\nproperty SECRET-1234 x\nend_header\n",
        "magic": "SECRET-1234\nformat ascii 1.0\nend_header\n",
        "count": head + "element SECRET-1234 99999999999999\nend_header\n",
    }
    for kind, text in cases.items():
        write(os.path.join(d, "m_%s.ply" % kind), text)
        write(os.path.join(d, "s.yaml"), "sensor: {preset: vlp16}\nobjects:\n  - mesh: m_%s.ply\n" % kind)
        refused("mesh " + kind, ["scan", "s.yaml", "-o", "x.pcd"], d, ["m_%s.ply" % kind])


def dataset_output_first():
    """The pattern file is frame 000001's output: refused before frame 000000 is written."""
    d = os.path.join(WORK, "dataset")
    points = os.path.join(d, "out", "sequences", "00", "points")
    os.makedirs(points)
    pattern = write(os.path.join(points, "000001.csv"), PATTERN)
    write(os.path.join(d, "dataset.yaml"),
          "seed: 1\nframes: 2\nframes_per_sequence: 2\n"
          "sensor: {type: pattern, file: out/sequences/00/points/000001.csv}\n"
          "materials: {m: {brdf: lambertian, reflectance: 0.3}}\n"
          "layout: {kind: scatter, extent: [20, 20], materials: {ground: m}}\n"
          "library:\n  - box: [1, 1, 1]\n    label: car\n    material: m\n    count: [1, 1]\n")
    refused("dataset over its pattern", ["dataset", "dataset.yaml", "-o", "out", "--points-format", "csv", "--quiet"],
            d, ["000001.csv", "beam pattern file", "an input of this run"], seconds=120)
    with open(pattern) as f:
        check(f.read() == PATTERN, "dataset over its pattern: the pattern file was changed")
    check(not os.path.exists(os.path.join(points, "000000.csv")),
          "dataset over its pattern: frame 000000 was written before the refusal")


yaml_slots()
meshes()
dataset_output_first()
finish("test_no_quote", remove=WORK)
