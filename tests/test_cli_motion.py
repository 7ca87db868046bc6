#!/usr/bin/python3
"""Time and motion through the CLI (issue 9).

usage: test_cli_motion.py LIDARSIM_BINARY WORK_DIR

- A VLP-16 driving at 10 m/s toward a wall 10 m ahead (scene keys `velocity`): sensor-frame PCD
  points satisfy x + v t = 10 within 1 mm; world-frame points lie on the wall; the PCD and PLY
  headers carry "sensor_pose_at_frame_start" as a comment line (PCD: "# ...", PLY: "comment ...")
  and the rest of the header is plain PCD / PLY; `--scan-time` moves the frame along the motion.
- The same drive as a trajectory file (`trajectory: {file: poses.csv}`) and as inline keyframes
  gives the same points; a box driving toward a static sensor is seen at each point's time.
- `velocity: [0, 0, 0]` (sensor and objects) changes nothing: the street example's PCD is
  byte-identical with and without it, and without motion no pose comment is written.
- Bad input (non-finite or too large velocity, unsorted keyframes, a trajectory CSV with a bad
  line, a trajectory beside a velocity, a bad --scan-time): exit non-zero, a message naming the
  file, line and key, and nothing written.
Standard library only. Exits 1 with one line per failed check.
"""
import os
import struct

from cli_check import (Lidarsim, binary_and_work, check, expect_failure, finish, line_of, new_dir, read_bytes,
                       source_dir, write)

BINARY, WORK = binary_and_work(fresh=True)
SOURCE = source_dir()
lidarsim = Lidarsim(BINARY, WORK)

# Every field of a point, in file order (docs/points.md): name -> struct letter.
FIELDS = [("x", "f"), ("y", "f"), ("z", "f"), ("range", "f"), ("intensity", "f"), ("reflectivity", "f"),
          ("ring", "H"), ("azimuth", "f"), ("elevation", "f"), ("time", "f"), ("label", "I"), ("instance", "I"),
          ("incidence", "f"), ("nx", "f"), ("ny", "f"), ("nz", "f"), ("x_clean", "f"), ("y_clean", "f"),
          ("z_clean", "f"), ("return_index", "H"), ("num_returns", "H"), ("epw", "f"), ("power", "f")]
ROW = struct.Struct("<" + "".join(t for _, t in FIELDS))


def scan(d, scene, out, *extra):
    code, _, err = lidarsim("scan", scene, "-o", out, "--quiet", *extra, cwd=d)
    check(code == 0, "scan %s %s: exit %d: %s" % (scene, " ".join(extra), code, err.strip()))
    return os.path.join(d, out)


def read_pcd(path):
    """(header lines, list of point dicts) of a binary PCD; every header line must be a comment or
    one of PCD v0.7's keywords (what PCL's and Open3D's readers accept)."""
    data = read_bytes(path)
    header, pos = [], 0
    while True:
        end = data.index(b"\n", pos)
        line = data[pos:end].decode()
        pos = end + 1
        header.append(line)
        if line.startswith("DATA"):
            break
    keywords = ("VERSION", "FIELDS", "SIZE", "TYPE", "COUNT", "WIDTH", "HEIGHT", "VIEWPOINT", "POINTS", "DATA")
    for line in header:
        check(line.startswith("#") or line.split(" ")[0] in keywords, "%s: not a PCD header line: %r" % (path, line))
    names = [l for l in header if l.startswith("FIELDS")][0].split()[1:]
    check(names == [n for n, _ in FIELDS], "%s: unexpected FIELDS %s" % (path, names))
    count = int([l for l in header if l.startswith("POINTS")][0].split()[1])
    check(len(data) - pos == count * ROW.size, "%s: %d data bytes for %d points" % (path, len(data) - pos, count))
    points = [dict(zip((n for n, _ in FIELDS), ROW.unpack_from(data, pos + i * ROW.size))) for i in range(count)]
    return header, points


def read_ply_header(path):
    data = read_bytes(path)
    end = data.index(b"end_header\n")
    return data[:end].decode().split("\n")


def pose_comment(header, prefix):
    lines = [l for l in header if l.startswith(prefix + "sensor_pose_at_frame_start")]
    if not lines:
        return None
    return [float(v) for v in lines[0].split()[-7:]]


WALL_SENSOR = """sensor:
  preset: vlp16
  position: [0, 0, 0]
"""
WALL = """objects:
  - box: {size: [2, 400, 100]}
    position: [11, 0, 0]
"""


def worst(points, f):
    return max(abs(f(p)) for p in points) if points else float("inf")


def drive_tests():
    d = new_dir(WORK, "drive")
    write(os.path.join(d, "velocity.yaml"), WALL_SENSOR + "  velocity: [10, 0, 0]\n" + WALL)
    write(os.path.join(d, "poses.csv"),
          "# a straight drive at 10 m/s\nt,x,y,z,roll,pitch,yaw\n0,0,0,0,0,0,0\n10,100,0,0,0,0,0\n")
    write(os.path.join(d, "file.yaml"), WALL_SENSOR + "  trajectory: {file: poses.csv}\n" + WALL)
    write(os.path.join(d, "keys.yaml"), WALL_SENSOR + "  trajectory:\n    keyframes:\n      - [0, 0, 0, 0, 0, 0, 0]\n"
          "      - [10, 100, 0, 0, 0, 0, 0]\n" + WALL)
    header, pts = read_pcd(scan(d, "velocity.yaml", "v.pcd", "--noise", "off"))
    check(len(pts) > 5000, "drive: only %d points" % len(pts))
    err = worst(pts, lambda p: p["x"] + 10.0 * p["time"] - 10.0)
    check(err < 1e-3, "drive: sensor frame, max |x + v t - 10| = %g m" % err)
    ahead = [p["x"] for p in pts if abs(p["y"]) < 0.5]
    skew = max(ahead) - min(ahead)
    check(abs(skew - 1.0) < 0.05, "drive: skew straight ahead %g m, expected ~1 m" % skew)
    check(header[0].startswith("# .PCD v0.7"), "drive: first PCD line %r" % header[0])
    pose = pose_comment(header, "# ")
    check(pose == [0, 0, 0, 1, 0, 0, 0], "drive: PCD pose comment %s" % pose)
    print("drive: %d points, max |x + v t - 10| = %.3g m, skew %.4f m" % (len(pts), err, skew))
    _, w = read_pcd(scan(d, "velocity.yaml", "w.pcd", "--noise", "off", "--frame", "world"))
    err = worst(w, lambda p: p["x"] - 10.0)
    check(err < 1e-3, "drive: world frame, max |x - 10| = %g m" % err)
    # --scan-time: the frame starts 0.5 s later, 5 m further on (the wall is then 5 m ahead).
    header, later = read_pcd(scan(d, "velocity.yaml", "later.pcd", "--noise", "off", "--scan-time", "0.5"))
    err = worst(later, lambda p: p["x"] + 10.0 * p["time"] - 5.0)
    check(err < 1e-3, "drive: --scan-time 0.5, max |x + v t - 5| = %g m" % err)
    pose = pose_comment(header, "# ")
    check(pose is not None and abs(pose[0] - 5.0) < 1e-9, "drive: --scan-time 0.5 pose comment %s" % pose)
    ply = read_ply_header(scan(d, "velocity.yaml", "later.ply", "--noise", "off", "--scan-time", "0.5"))
    check(ply[:3] == ["ply", "format binary_little_endian 1.0", "comment generated by lidarsim"],
          "drive: PLY header starts %s" % ply[:3])
    pose = pose_comment(ply, "comment ")
    check(pose is not None and abs(pose[0] - 5.0) < 1e-9, "drive: PLY pose comment %s" % pose)
    # The trajectory file and the inline keyframes: the same drive.
    for name in ("file", "keys"):
        _, k = read_pcd(scan(d, name + ".yaml", name + ".pcd", "--noise", "off", "--scan-time", "0.5"))
        check(len(k) == len(later), "drive: %s: %d points, velocity %d" % (name, len(k), len(later)))
        diff = max((abs(a["x"] - b["x"]) for a, b in zip(k, later)), default=float("inf"))
        check(diff < 1e-4, "drive: %s: max |dx| to the velocity case %g m" % (name, diff))
    # A box driving at 20 m/s toward a static sensor: its face at x = 11 - 20 t.
    write(os.path.join(d, "box.yaml"), WALL_SENSOR + """objects:
  - box: {size: [2, 30, 30]}
    position: [12, 0, 0]
    velocity: [-20, 0, 0]
""")
    _, b = read_pcd(scan(d, "box.yaml", "box.pcd", "--noise", "off", "--frame", "world"))
    face = [p for p in b if p["nx"] < -0.99]
    err = worst(face, lambda p: p["x"] - (11.0 - 20.0 * p["time"]))
    check(len(face) > 3000 and err < 1e-3, "box: %d face points, max |x - (11 - 20 t)| = %g m" % (len(face), err))
    print("box: %d face points, max |x - (11 - 20 t)| = %.3g m" % (len(face), err))


def street_identity():
    d = new_dir(WORK, "street")
    src = os.path.join(SOURCE, "examples", "street", "street.yaml")
    text = open(src).read()
    moved = text.replace("  rotation: [0, 0, 0]\n", "  rotation: [0, 0, 0]\n  velocity: [0, 0, 0]\n"
                         "  angular_velocity_deg_s: [0, 0, 0]\n", 1)
    moved = moved.replace("    label: road\n", "    label: road\n    velocity: [0, 0, 0]\n", 1)
    check(moved.count("velocity: [0, 0, 0]") == 2, "street: test bug, keys not inserted")
    write(os.path.join(d, "street.yaml"), text)
    write(os.path.join(d, "street_v0.yaml"), moved)
    for frame in ("sensor", "world"):
        a = scan(d, "street.yaml", "a_%s.pcd" % frame, "--seed", "7", "--frame", frame)
        b = scan(d, "street_v0.yaml", "b_%s.pcd" % frame, "--seed", "7", "--frame", frame)
        same = read_bytes(a) == read_bytes(b)
        check(same, "street: --frame %s: PCD differs with velocity: [0, 0, 0]" % frame)
        check(b"sensor_pose_at_frame_start" not in open(a, "rb").read(2000),
              "street: a static frame has a pose comment")
    print("street: velocity [0, 0, 0] byte-identical in both frames")


def refused(name, d, args, inputs, contains, exit_code=1):
    """lidarsim ARGS in d stops cleanly: exit_code, each of `contains` in the message, d holds `inputs`."""
    expect_failure(name, lidarsim(*args, cwd=d), d, inputs, exit_code, contains)


SMALL = """sensor:
  type: rotating
  channels: 2
  elevations: [-5, 5]
  columns: 8
"""
BOX = """objects:
  - box: {size: [10, 10, 4]}
    position: [0, 0, 1]
"""


def bad_input():
    cases = [
        ("nan_velocity", SMALL + "  velocity: [1, .nan, 0]\n" + BOX, {}, ".nan", ["sensor.velocity", "finite"]),
        ("inf_velocity", SMALL + "  velocity: [1, 0, .inf]\n" + BOX, {}, ".inf", ["sensor.velocity", "finite"]),
        ("fast_velocity", SMALL + "  velocity: [2e4, 0, 0]\n" + BOX, {}, "2e4", ["sensor.velocity", "10000"]),
        ("nan_rate", SMALL + BOX + "    angular_velocity_deg_s: [0, 0, nan]\n", {}, "nan]",
         ["objects[0].angular_velocity_deg_s"]),
        ("unsorted_keys", SMALL + "  trajectory:\n    keyframes:\n      - [0, 0, 0, 0, 0, 0, 0]\n"
         "      - [0.2, 1, 0, 0, 0, 0, 0]\n      - [0.1, 2, 0, 0, 0, 0, 0]\n" + BOX, {}, "[0.1, 2",
         ["sensor.trajectory.keyframes[2]", "ascending"]),
        ("short_key", SMALL + BOX + "    trajectory: {keyframes: [[0, 1, 2]]}\n", {}, "keyframes:",
         ["objects[0].trajectory.keyframes[0]", "7 numbers"]),
        ("both_rates_traj", SMALL + "  velocity: [1, 0, 0]\n  trajectory: {file: poses.csv}\n" + BOX,
         {"poses.csv": "t,x,y,z,roll,pitch,yaw\n0,0,0,0,0,0,0\n"}, "trajectory:", ["sensor.trajectory", "velocity"]),
        ("file_and_keys", SMALL + "  trajectory: {file: poses.csv, keyframes: [[0, 0, 0, 0, 0, 0, 0]]}\n" + BOX,
         {"poses.csv": "t,x,y,z,roll,pitch,yaw\n0,0,0,0,0,0,0\n"}, "trajectory:", ["sensor.trajectory", "one of"]),
        ("csv_bad_line", SMALL + "  trajectory: {file: poses.csv}\n" + BOX,
         {"poses.csv": "t,x,y,z,roll,pitch,yaw\n0,0,0,0,0,0,0\n0.1,abc,0,0,0,0,0\n"}, "poses.csv",
         ["sensor.trajectory.file", "poses.csv:3:", "column 2 (x) is not a finite number"]),
        ("csv_short_line", SMALL + BOX + "    trajectory: {file: poses.csv}\n",
         {"poses.csv": "t,x,y,z,roll,pitch,yaw\n0,0,0,0,0,0,0\n\n# ok\n0.1,1,0,0,0,0\n"}, "poses.csv",
         ["objects[0].trajectory.file", "poses.csv:5:", "6 fields"]),
        ("csv_unsorted", SMALL + "  trajectory: {file: poses.csv}\n" + BOX,
         {"poses.csv": "t,x,y,z,roll,pitch,yaw\n1,0,0,0,0,0,0\n0.5,1,0,0,0,0,0\n"}, "poses.csv",
         ["poses.csv:3:", "ascending"]),
        ("csv_header", SMALL + "  trajectory: {file: poses.csv}\n" + BOX,
         {"poses.csv": "t,x,y,z,roll,pitch\n0,0,0,0,0,0\n"}, "poses.csv", ["poses.csv:1:", "'yaw'"]),
        ("csv_missing", SMALL + "  trajectory: {file: nothere.csv}\n" + BOX, {}, "nothere.csv",
         ["nothere.csv", "cannot open"]),
        ("csv_empty", SMALL + "  trajectory: {file: poses.csv}\n" + BOX, {"poses.csv": "# nothing\n"}, "poses.csv",
         ["poses.csv", "no header"]),
    ]
    for name, text, files, marker, contains in cases:
        d = new_dir(WORK, name)
        write(os.path.join(d, "scene.yaml"), text)
        for fname, content in files.items():
            write(os.path.join(d, fname), content)
        refused(name, d, ["scan", "scene.yaml", "-o", "out.pcd"], ["scene.yaml"] + list(files),
                ["scene.yaml:%d:" % line_of(text, marker)] + contains)
    d = new_dir(WORK, "scan_time")
    write(os.path.join(d, "scene.yaml"), SMALL + "  velocity: [9000, 0, 0]\n" + BOX)
    for value in ("nan", "inf", "1e8", "abc", ""):
        refused("scan_time_" + (value or "empty"), d, ["scan", "scene.yaml", "-o", "out.pcd", "--scan-time", value],
                ["scene.yaml"], ["--scan-time"], exit_code=2)
    refused("scan_time_far", d, ["scan", "scene.yaml", "-o", "out.pcd", "--scan-time", "5e6"], ["scene.yaml"],
            ["scan_time", "beyond"])


if __name__ == "__main__":
    drive_tests()
    street_identity()
    bad_input()
    finish("test_cli_motion")
