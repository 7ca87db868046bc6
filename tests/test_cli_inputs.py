#!/usr/bin/python3
"""Every file the CLI reads goes through the one opener, and no output replaces an input (issue 23).

usage: test_cli_inputs.py LIDARSIM_BINARY WORK_DIR

1. A FIFO or /dev/zero (through a symlink with the expected name) in each input slot is refused at
   once with "not a regular file", naming the file: the scene of `scan`, the point file of
   `render` (CSV, PCD, PLY, KITTI .bin, LAS) and the .label beside a .bin, the scan of `pattern
   from-scan`, a fit file, its `scan:` and its `scene:`, the scan column of a calibrate / validate
   config, a dataset config, and a scene's pattern and trajectory files. Before, a FIFO hung the
   command (a subprocess time limit catches that here) and /dev/zero was read until memory ran out.
2. An output that is an input is refused before it is written, whatever its spelling (./x, a
   symlink, a hard link), and the input is byte-identical afterwards: `scan` over its scene, its
   pattern file, its trajectory file, its sensor calibration and its mesh; `render` over its point
   file or the .label it read; `validate` over its config or scan; `dataset` over its pattern file.
3. A message about a file named inside another file (a fit's scan) never repeats that file's text.
Standard library only. Exits 1 with one line per failed check.
"""
import json
import os
import shutil

from cli_check import Lidarsim, binary_and_work, check, finish, new_dir, read_bytes, write

BINARY, WORK = binary_and_work(fresh=True)
lidarsim = Lidarsim(BINARY, WORK, seconds=30, hang=True)  # a hang is a failure (exit -1), not a stuck suite
refused = lidarsim.refused  # refused(name, args, cwd, needles): exit 1, each needle in the message

SCENE = "sensor: {preset: vlp16}\nobjects:\n  - box: {size: [10, 10, 4]}\n"
PATTERN = "azimuth_deg,elevation_deg,time_s\n0,0,0\n10,0,0.001\n20,1,0.002\n"
TRAJECTORY = "t,x,y,z,roll,pitch,yaw\n0,0,0,1,0,0,0\n1,1,0,1,0,0,0\n"
OUSTER = {"beam_altitude_angles": [1.0, 0.0], "beam_azimuth_angles": [0.0, 0.0], "lidar_mode": "512x10"}
MESH = ("ply\nformat ascii 1.0\nelement vertex 4\nproperty float x\nproperty float y\nproperty float z\n"
        "element face 2\nproperty list uchar int vertex_indices\nend_header\n"
        "3 -2 -1\n3 2 -1\n3 2 2\n3 -2 2\n3 0 1 2\n3 0 2 3\n")


# ---------------------------------------------------------------------------------------------
# 1. FIFOs and devices

def not_regular():
    d = new_dir(WORK, "not_regular")
    write(os.path.join(d, "room.yaml"), SCENE)
    code, _, err = lidarsim("scan", "room.yaml", "-o", "s.csv", "--keep-misses", "--quiet", cwd=d)
    check(code == 0, "scan for the fixtures: %s" % err)
    code, _, err = lidarsim("scan", "room.yaml", "-o", "ok.bin", "--quiet", cwd=d)
    check(code == 0, "scan for the fixtures: %s" % err)
    os.remove(os.path.join(d, "ok.label"))
    why = "not a regular file (a FIFO, socket or device)"
    # every name below is a FIFO ("fifo.*") or a symlink to /dev/zero ("zero.*")
    for ext in ["yaml", "csv", "pcd", "ply", "bin", "las", "config"]:
        os.mkfifo(os.path.join(d, "fifo." + ext))
        os.symlink("/dev/zero", os.path.join(d, "zero." + ext))
    for kind in ["fifo", "zero"]:
        refused("scan scene " + kind, ["scan", kind + ".yaml", "-o", "x.pcd"], d, [kind + ".yaml", why])
        for ext in ["csv", "pcd", "ply", "bin", "las"]:
            refused("render %s.%s" % (kind, ext), ["render", kind + "." + ext, "-o", "x.png"], d,
                    [kind + "." + ext, why])
        refused("pattern from-scan " + kind, ["pattern", "from-scan", kind + ".csv", "-o", "p.csv"], d,
                [kind + ".csv", why])
        write(os.path.join(d, "fit_scan.yaml"), "scene: room.yaml\nscan: %s.csv\nparameters:\n  sensor: {dof: se2}\n"
              % kind)
        refused("fit scan " + kind, ["fit", "fit_scan.yaml", "-o", "f.yaml"], d,
                ["fit_scan.yaml:2:", kind + ".csv: cannot open the scan file", why])
        write(os.path.join(d, "fit_scene.yaml"), "scene: %s.yaml\nscan: s.csv\nparameters:\n  sensor: {dof: se2}\n"
              % kind)
        refused("fit scene " + kind, ["fit", "fit_scene.yaml", "-o", "f.yaml"], d,
                ["fit_scene.yaml:1:", kind + ".yaml", why])
        refused("fit file " + kind, ["fit", kind + ".yaml", "-o", "f.yaml"], d, [kind + ".yaml", why])
        write(os.path.join(d, "cal.config"), "board,%s.csv,0.66,1.0,ON,0.5,0.0\n" % kind)
        refused("calibrate scan " + kind, ["calibrate", "cal.config", "-o", "cal.yaml"], d,
                ["cal.config:1", kind + ".csv: cannot open the scan file", why])
        refused("validate scan " + kind, ["validate", "cal.config", "-o", "vout"], d,
                [kind + ".csv: cannot open the scan file", why])
        refused("calibrate config " + kind, ["calibrate", kind + ".config", "-o", "cal.yaml"], d, [kind + ".config", why])
        refused("dataset config " + kind, ["dataset", kind + ".yaml", "-o", "ds"], d, [kind + ".yaml", why])
        write(os.path.join(d, "pattern_scene.yaml"), "sensor: {type: pattern, file: %s.csv}\n" % kind +
              SCENE.split("\n", 1)[1])
        refused("scene pattern " + kind, ["scan", "pattern_scene.yaml", "-o", "x.pcd"], d,
                [kind + ".csv: cannot open the beam pattern file", why])
        write(os.path.join(d, "traj_scene.yaml"), "sensor: {preset: vlp16, trajectory: {file: %s.csv}}\n" % kind +
              SCENE.split("\n", 1)[1])
        refused("scene trajectory " + kind, ["scan", "traj_scene.yaml", "-o", "x.pcd"], d,
                [kind + ".csv: cannot open the trajectory file", why])
        # the .label beside a KITTI .bin, read to colour by label
        label = os.path.join(d, "ok.label")
        if kind == "fifo":
            os.mkfifo(label)
        else:
            os.symlink("/dev/zero", label)
        refused("render .label " + kind, ["render", "ok.bin", "--color", "label", "-o", "x.png"], d,
                ["ok.label: cannot open the KITTI .label file", why])
        os.remove(label)
    check(not os.path.exists(os.path.join(d, "ds")), "dataset: a folder was made for a refused config")


# ---------------------------------------------------------------------------------------------
# 2. an output that is an input

def same_bytes(name, path, before):
    check(read_bytes(path) == before, "%s: %s was changed" % (name, os.path.basename(path)))


def spellings(d, target, stem):
    """Other names of `target` in d: ./name, a symlink and a hard link (with `stem` for the extension)."""
    base = os.path.basename(target)
    os.symlink(base, os.path.join(d, "link_" + stem))
    os.link(target, os.path.join(d, "hard_" + stem))
    return [base, "./" + base, "link_" + stem, "hard_" + stem]


def output_is_input():
    d = new_dir(WORK, "same")
    scene = write(os.path.join(d, "room.yaml"), SCENE)
    before = SCENE.encode()
    for out in spellings(d, scene, "room.csv"):
        refused("scan -o %s (the scene)" % out, ["scan", "room.yaml", "-o", out, "--format", "csv"], d,
                ["the output %s is " % out, "scene file", "an input of this run"])
        same_bytes("scan -o " + out, scene, before)
    # the scene's pattern, trajectory, sensor calibration and mesh files
    cases = [
        ("pattern.csv", PATTERN, "sensor: {type: pattern, file: pattern.csv}\n", "beam pattern file"),
        ("traj.csv", TRAJECTORY, "sensor: {preset: vlp16, trajectory: {file: traj.csv}}\n", "trajectory file"),
        ("ouster.json", json.dumps(OUSTER), "sensor: {calibration: ouster.json}\n", "sensor calibration file"),
    ]
    for name, text, sensor, what in cases:
        path = write(os.path.join(d, name), text)
        write(os.path.join(d, "s_" + name + ".yaml"), sensor + SCENE.split("\n", 1)[1])
        code, _, err = lidarsim("scan", "s_%s.yaml" % name, "-o", "ok_%s.csv" % name, cwd=d)
        check(code == 0, "scan with %s: %s" % (name, err))
        refused("scan -o " + name, ["scan", "s_%s.yaml" % name, "-o", name, "--format", "csv"], d,
                ["the output %s is the %s" % (name, what)])
        same_bytes("scan -o " + name, path, text.encode())
    mesh = write(os.path.join(d, "wall.ply"), MESH)
    write(os.path.join(d, "mesh.yaml"), "sensor: {preset: vlp16}\nobjects:\n  - mesh: wall.ply\n")
    refused("scan -o the mesh", ["scan", "mesh.yaml", "-o", "wall.ply"], d, ["the output wall.ply is the mesh"])
    same_bytes("scan -o the mesh", mesh, MESH.encode())

    # render: the point file, and the .label beside a .bin
    code, _, err = lidarsim("scan", "room.yaml", "-o", "s.pcd", "--quiet", cwd=d)
    check(code == 0, "scan s.pcd: %s" % err)
    pcd = read_bytes(os.path.join(d, "s.pcd"))
    for out in spellings(d, os.path.join(d, "s.pcd"), "s.png"):
        refused("render -o %s (the point file)" % out, ["render", "s.pcd", "-o", out], d,
                ["the output %s is " % out, "point file"])
        same_bytes("render -o " + out, os.path.join(d, "s.pcd"), pcd)
    code, _, err = lidarsim("scan", "room.yaml", "-o", "k.bin", "--quiet", cwd=d)
    check(code == 0, "scan k.bin: %s" % err)
    label = read_bytes(os.path.join(d, "k.label"))
    refused("render -o the .label", ["render", "k.bin", "--color", "label", "-o", "k.label"], d,
            ["the output k.label is the KITTI .label file"])
    same_bytes("render -o the .label", os.path.join(d, "k.label"), label)

    # validate: its config or its scan as one of the files it writes into OUTDIR
    v = os.path.join(d, "v")
    os.makedirs(os.path.join(v, "out"))
    code, _, err = lidarsim("scan", "../room.yaml", "-o", "board.csv", "--keep-misses", "--quiet", cwd=v)
    config = "board,out/calibration.yaml,0.66,1.0,ON,0.5,0.0\n"
    write(os.path.join(v, "out", "validation.csv"), config)
    refused("validate over its config", ["validate", "out/validation.csv", "-o", "out", "--quiet"], v,
            ["validation.csv"])
    same_bytes("validate over its config", os.path.join(v, "out", "validation.csv"), config.encode())
    shutil.copy(os.path.join(v, "board.csv"), os.path.join(v, "out", "calibration.yaml"))
    with open(os.path.join(v, "board.csv"), "rb") as f:
        scan = f.read()
    write(os.path.join(v, "cal.config"), config)
    refused("validate over its scan", ["validate", "cal.config", "-o", "out", "--quiet"], v, ["calibration.yaml"])
    same_bytes("validate over its scan", os.path.join(v, "out", "calibration.yaml"), scan)

    # dataset: its sensor's pattern file where a frame's point file goes
    ds = os.path.join(d, "ds")
    os.makedirs(os.path.join(ds, "out", "sequences", "00", "points"))
    pattern = write(os.path.join(ds, "out", "sequences", "00", "points", "000000.csv"), PATTERN)
    write(os.path.join(ds, "dataset.yaml"),
          "seed: 1\nframes: 1\nframes_per_sequence: 1\n"
          "sensor: {type: pattern, file: out/sequences/00/points/000000.csv}\n"
          "materials: {m: {brdf: lambertian, reflectance: 0.3}}\n"
          "layout: {kind: scatter, extent: [20, 20], materials: {ground: m}}\n"
          "library:\n  - box: [1, 1, 1]\n    label: car\n    material: m\n    count: [1, 1]\n")
    refused("dataset over its pattern", ["dataset", "dataset.yaml", "-o", "out", "--points-format", "csv",
                                         "--quiet"], ds, ["000000.csv", "beam pattern file", "an input of this run"],
            seconds=120)
    same_bytes("dataset over its pattern", pattern, PATTERN.encode())


# ---------------------------------------------------------------------------------------------
# 3. no message repeats the text of a file named in another file

def no_quote():
    d = new_dir(WORK, "no_quote")
    write(os.path.join(d, "room.yaml"), SCENE)
    for i, text in enumerate(["range,range,SECRET-1\n1,2,3\n", "range\nSECRET-2\n", "intensity,x\n1,SECRET-3\n",
                              "ply\nformat ascii 1.0\nSECRET-4 x\n"]):
        write(os.path.join(d, "scan%d.csv" % i), text)
        write(os.path.join(d, "fit%d.yaml" % i), "scene: room.yaml\nscan: scan%d.csv\nparameters:\n"
              "  sensor: {dof: se2}\n" % i)
        err = refused("fit scan %d" % i, ["fit", "fit%d.yaml" % i, "-o", "f.yaml"], d, ["scan%d.csv:" % i])
        check("SECRET" not in err, "fit scan %d: the message repeats the scan's text: %s" % (i, err))
    write(os.path.join(d, "pat.csv"), "azimuth_deg,elevation_deg\n1,SECRET-5\n")
    write(os.path.join(d, "p.yaml"), "sensor: {type: pattern, file: pat.csv}\n" + SCENE.split("\n", 1)[1])
    err = refused("pattern value", ["scan", "p.yaml", "-o", "x.pcd"], d, ["pat.csv:2: column 2 (elevation_deg)"])
    check("SECRET" not in err, "pattern: the message repeats the file's text: %s" % err)
    write(os.path.join(d, "traj.csv"), "t,x,y,z,roll,pitch,SECRET-6\n")
    write(os.path.join(d, "t.yaml"), "sensor: {preset: vlp16, trajectory: {file: traj.csv}}\n" +
          SCENE.split("\n", 1)[1])
    err = refused("trajectory header", ["scan", "t.yaml", "-o", "x.pcd"], d, ["traj.csv:1: column 7"])
    check("SECRET" not in err, "trajectory: the message repeats the file's text: %s" % err)


not_regular()
output_is_input()
no_quote()
finish("test_cli_inputs", remove=WORK)
