#!/usr/bin/env python3
"""Hostile meshes through the CLI: each is a clear error naming the file, exit 1, within
seconds, and no output file; --import-timeout and --import-memory are honoured and checked;
a valid mesh used by several objects scans. Usage: test_cli_mesh.py LIDARSIM WORK_DIR"""
import os
import struct

from cli_check import Lidarsim, binary_and_work, check, finish, read_bytes, source_dir, write
from timeouts import limit

LIDARSIM, WORK = binary_and_work(fresh=True)
lidarsim = Lidarsim(LIDARSIM)


def scan(mesh_name, data, *extra, objects=1):
    write(os.path.join(WORK, mesh_name), data)
    scene = write(os.path.join(WORK, "scene.yaml"), "sensor: {type: planar, fov_deg: 360, steps: 360}\nobjects:\n" +
                  "".join(f"  - mesh: {mesh_name}\n    position: [{3 + i}, 0, -0.5]\n" for i in range(objects)))
    out = os.path.join(WORK, "out.pcd")
    if os.path.exists(out):
        os.remove(out)
    r = lidarsim("scan", scene, "-o", out, "--quiet", *extra)
    return r, r.seconds, os.path.exists(out)


header = (b"ply\nformat binary_little_endian 1.0\nelement vertex 100\nproperty float x\nproperty float y\n"
          b"property float z\nelement face 100\nproperty list uchar int vertex_indices\nend_header\n")
rng = 12345
garbage = bytearray()
for _ in range(2000):
    rng = (rng * 1103515245 + 12345) & 0x7FFFFFFF
    garbage.append(rng >> 16 & 0xFF)
hostile = {
    "garbage.ply": header + bytes(garbage),  # used to SIGSEGV or spin for 20+ minutes in assimp
    "lying.ply": header.replace(b"vertex 100", b"vertex 400000000"),
    "short.ply": header + b"\0" * 40,
    "lying.stl": b"\0" * 80 + struct.pack("<I", 10 ** 9) + b"\0" * 100,
    "eight.off": b"OFF\n1 1\n",  # used to abort in assimp's triangulation
    "index.obj": b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99\n",
    "nan.obj": b"v nan 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    "empty.obj": b"",
}
for name, data in hostile.items():
    r, seconds, wrote = scan(name, data)
    check(r.returncode == 1, f"{name}: exit {r.returncode}, expected 1 ({r.stderr.strip()})")
    check(name in r.stderr and "scene.yaml:3:" in r.stderr, f"{name}: message names neither file nor line: {r.stderr}")
    check(seconds < limit(10), f"{name}: took {seconds:.1f} s")
    check(not wrote, f"{name}: an output file was written")
    print(f"{name}: exit {r.returncode} in {seconds:.2f} s: {r.stderr.strip()[:160]}")

# a contained crash inside assimp itself (found by fuzzing; passes lidarsim's own checks)
r, seconds, wrote = scan("crash.off", read_bytes(os.path.join(source_dir(), "tests", "data", "mesh",
                                                               "assimp_segv.off")))
check(r.returncode == 1 and "importer (assimp) crashed" in r.stderr and not wrote,
      f"assimp crash not contained: exit {r.returncode}: {r.stderr}")

# a valid grid, 3 objects sharing it; then the limits


def grid_obj(n):
    lines = [f"v {i} {j} {(i * j) % 5 * 0.01}" for j in range(n + 1) for i in range(n + 1)]
    for j in range(n):
        for i in range(n):
            a = j * (n + 1) + i + 1
            lines += [f"f {a} {a + 1} {a + n + 2}", f"f {a} {a + n + 2} {a + n + 1}"]
    return ("\n".join(lines) + "\n").encode()


grid = grid_obj(100)
r, seconds, wrote = scan("grid.obj", grid, objects=3)
check(r.returncode == 0 and wrote, f"valid grid mesh: exit {r.returncode}: {r.stderr}")
# 180,000 triangles (~5 MB) cannot be imported in 10 ms, however fast the machine
r, seconds, wrote = scan("big.obj", grid_obj(300), "--import-timeout", "0.01")
check(r.returncode == 1 and "did not finish within" in r.stderr and not wrote,
      f"--import-timeout 0.01: exit {r.returncode}: {r.stderr}")
for opt, val in (("--import-timeout", "0"), ("--import-timeout", "nan"), ("--import-memory", "-5")):
    r, seconds, wrote = scan("grid.obj", grid, opt, val)
    check(r.returncode == 2 and opt in r.stderr, f"{opt} {val}: exit {r.returncode}: {r.stderr}")

finish("test_cli_mesh", f"{len(hostile) + 6} cases passed")
