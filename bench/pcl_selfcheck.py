#!/usr/bin/python3
"""Synthetic check of build-pcl/pcl_register (make bench-pcl first).

A 2-D scanner (240 deg, 0.35 deg steps, noise-free) in a 4 m x 3 m room centred on the origin:
source = the scan from pose (0, 0, 0), target = the scan from (0.05 m, -0.03 m, yaw 2 deg), so
T = inverse(pose_target) . pose_source. Cases: planar (z = 0); planar with the target made of
the source's own points moved by T (same samples: no sampling bias); z spread uniformly over
+-5 cm (the walls are vertical, so the points stay on them). Prints each method's pose error and
whether it is within 5 mm and 0.1 deg. Exit 1 only if pcl_register misbehaves (non-zero exit,
missing or non-finite lines), not for a method's accuracy: that is the measurement.
Usage: bench/pcl_selfcheck.py [PCL_REGISTER]
"""
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

HALF = (2.0, 1.5)  # room half-extents, m


def scan(pose, z_spread, rng):
    x0, y0, yaw = pose
    ang = np.deg2rad(np.arange(-120.0, 120.0 + 1e-9, 0.35))
    d = np.stack([np.cos(ang + yaw), np.sin(ang + yaw)], 1)  # world directions
    with np.errstate(divide="ignore"):
        tx = np.where(d[:, 0] > 0, (HALF[0] - x0) / d[:, 0], (-HALF[0] - x0) / d[:, 0])
        ty = np.where(d[:, 1] > 0, (HALF[1] - y0) / d[:, 1], (-HALF[1] - y0) / d[:, 1])
    r = np.minimum(np.abs(tx), np.abs(ty))
    x, y = r * np.cos(ang), r * np.sin(ang)  # sensor frame
    z = rng.uniform(-z_spread, z_spread, r.size) if z_spread > 0 else np.zeros(r.size)
    return r, x, y, z


def write(path, r, x, y, z):
    # Columns in an unusual order, an extra one, and two rows that must be skipped.
    with open(path, "w") as f:
        f.write("range,intensity,z,x,y\n")
        f.write("0,0,nan,nan,nan\n")
        for i in range(r.size):
            f.write(f"{r[i]:.6f},1,{z[i]:.6f},{x[i]:.6f},{y[i]:.6f}\n")
        f.write("-1,0,0,1,1\n")


def parse(line):
    kv = dict(t.split("=", 1) for t in line.split())
    return kv["method"], kv


def main():
    exe = sys.argv[1] if len(sys.argv) > 1 else "build-pcl/pcl_register"
    pose_t = (0.05, -0.03, math.radians(2.0))
    c, s = math.cos(pose_t[2]), math.sin(pose_t[2])
    # T = inverse(P_t) . P_s with P_s = I: rotation R(-yaw), translation -R(-yaw) t
    true_t = (-(c * pose_t[0] + s * pose_t[1]), -(-s * pose_t[0] + c * pose_t[1]))
    true_yaw = -2.0
    print(f"truth: tx={true_t[0]:.6f} ty={true_t[1]:.6f} tz=0 yaw_deg={true_yaw:.6f}")
    ok = True
    rng = np.random.default_rng(11)
    with tempfile.TemporaryDirectory() as tmp:
        for label, zs, same in (("planar z=0", 0.0, False), ("planar z=0, same samples", 0.0, True),
                                ("z spread +-5 cm", 0.05, False)):
            src, tgt = os.path.join(tmp, "src.csv"), os.path.join(tmp, "tgt.csv")
            a = scan((0.0, 0.0, 0.0), zs, rng)
            write(src, *a)
            if same:
                r, x, y, z = a
                cy, sy = math.cos(math.radians(true_yaw)), math.sin(math.radians(true_yaw))
                write(tgt, r, cy * x - sy * y + true_t[0], sy * x + cy * y + true_t[1], z)
            else:
                write(tgt, *scan(pose_t, zs, rng))
            p = subprocess.run([exe, src, tgt], capture_output=True, text=True)
            print(f"--- {label}: {a[0].size} points a scan; exit {p.returncode}")
            if p.stderr.strip():
                print("stderr: " + p.stderr.strip().replace("\n", "\nstderr: "))
            lines = p.stdout.splitlines()
            if p.returncode != 0 or [parse(l)[0] for l in lines] != ["icp", "gicp", "ndt"]:
                ok = False
            for line in lines:
                m, kv = parse(line)
                if not all(math.isfinite(float(kv[k])) for k in ("ms", "tx", "ty", "tz", "yaw_deg")):
                    ok = False
                et = 1000 * math.hypot(float(kv["tx"]) - true_t[0], float(kv["ty"]) - true_t[1])
                ez = 1000 * abs(float(kv["tz"]))
                eyaw = abs(float(kv["yaw_deg"]) - true_yaw)
                etilt = max(abs(float(kv["roll_deg"])), abs(float(kv["pitch_deg"])))
                good = et < 5 and ez < 5 and eyaw < 0.1 and etilt < 0.1 and kv["converged"] == "1"
                print(f"{line}\n    -> error: xy {et:.3f} mm, z {ez:.3f} mm, yaw {eyaw:.4f} deg, "
                      f"roll/pitch {etilt:.4f} deg  {'within' if good else 'NOT within'} 5 mm / 0.1 deg")
    print("pcl_register ran correctly" if ok else "FAIL: pcl_register misbehaved")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
