#!/usr/bin/python3
"""The cw paper's experiments 1 and 2 against its baselines: PCL's ICP, GICP and NDT.

Runs `lidarsim bench fit --baselines DIR` (lidarsim's fit on examples/cw, which also writes the
scan simulated at the starting pose and the "real" scan of experiments 1 and 2), then
`pcl_register` (bench/pcl_register.cpp, built by `make bench-pcl`) on each pair, and prints one
markdown table: iterations, wall time and final pose error of every method. A registration
returns T with target = T source; the sensor's pose follows as start * T^-1.

usage: /usr/bin/python3 bench/pcl_compare.py [--lidarsim build/lidarsim]
           [--pcl build-pcl/pcl_register] [--scenes examples/cw] [--repeat 3]
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile


def run(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"pcl_compare: {' '.join(cmd)} failed ({out.returncode}):\n{out.stderr}")
    return out.stdout


def pose_error(truth, start, t):
    """Error of start * T^-1 against truth; poses and T as (x, y, yaw_deg)."""
    yaw = math.radians(t[2])
    c, s = math.cos(-yaw), math.sin(-yaw)
    inv = (-(c * t[0] - s * t[1]), -(s * t[0] + c * t[1]), -t[2])  # T^-1
    c0, s0 = math.cos(math.radians(start[2])), math.sin(math.radians(start[2]))
    est = (start[0] + c0 * inv[0] - s0 * inv[1], start[1] + s0 * inv[0] + c0 * inv[1], start[2] + inv[2])
    dyaw = (est[2] - truth[2] + 180.0) % 360.0 - 180.0
    return 1e3 * math.hypot(est[0] - truth[0], est[1] - truth[1]), abs(dyaw)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--lidarsim", default="build/lidarsim")
    ap.add_argument("--pcl", default="build-pcl/pcl_register")
    ap.add_argument("--scenes", default="examples/cw")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    for tool in (a.lidarsim, a.pcl):
        if not os.access(tool, os.X_OK):
            sys.exit(f"pcl_compare: {tool} is missing; build it (make build, make bench-pcl)")
    with tempfile.TemporaryDirectory() as tmp:
        table = run([a.lidarsim, "bench", "fit", "--scenes", a.scenes, "--repeat", str(a.repeat),
                     "--baselines", tmp])
        ours = {}
        for line in table.splitlines()[1:]:
            f = line.split()
            name = " ".join(f[:-10])
            ours[name.split()[0]] = (name, int(f[-9]), float(f[-7]), float(f[-6]), float(f[-5]))
        print("| experiment | method | iterations | time (ms) | position error (mm) | yaw error (deg) |")
        print("| --- | --- | --- | --- | --- | --- |")
        for exp in ("1", "2", "3"):
            name, it, ms, mm, deg = ours[exp]
            print(f"| {name} | lidarsim fit | {it} | {ms:.1f} | {mm:.2f} | {deg:.3f} |")
            if exp == "3":
                continue
            poses = {}
            with open(os.path.join(tmp, f"exp{exp}_poses.txt")) as fp:
                for line in fp:
                    if line.strip() and not line.startswith("#"):
                        k, *v = line.split()
                        poses[k] = tuple(float(x) for x in v)
            out = run([a.pcl, os.path.join(tmp, f"exp{exp}_source.csv"), os.path.join(tmp, f"exp{exp}_target.csv"),
                       "--repeat", str(a.repeat)])
            for line in out.splitlines():
                kv = dict(item.split("=", 1) for item in line.split())
                t = (float(kv["tx"]), float(kv["ty"]), float(kv["yaw_deg"]))
                mm, deg = pose_error(poses["truth"], poses["start"], t)
                print(f"| {name} | PCL {kv['method'].upper()} | {kv['iterations']} | {float(kv['ms']):.1f} | "
                      f"{mm:.2f} | {deg:.3f} |")


if __name__ == "__main__":
    main()
