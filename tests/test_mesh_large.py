#!/usr/bin/env python3
"""One mesh of many triangles through the importer (assimp in the contained child, vertices joined
there by exact position), as OBJ text and as binary PLY: each scans byte-identically to the same
file with a line assimp reads past (an OBJ group, a PLY vertex property), noise on, fixed seed. Timings are
printed, never asserted. Usage: test_mesh_large.py LIDARSIM WORK_DIR [TRIANGLES]"""
import math
import os
import struct
import sys

from cli_check import Lidarsim, binary_and_work, check, finish, read_bytes, write

LIDARSIM, WORK = binary_and_work(fresh=True)
TRIANGLES = int(sys.argv[3]) if len(sys.argv) > 3 else 48000
lidarsim = Lidarsim(LIDARSIM, seconds=300)

# A bumpy torus around the sensor (no poles or seams: no two vertices at nearly one place).
lat = max(8, int(math.sqrt(TRIANGLES / 2 / 6)))
lon = max(8, TRIANGLES // (2 * lat))
verts = []
for i in range(lat):
    a = 2 * math.pi * i / lat
    for j in range(lon):
        b = 2 * math.pi * j / lon
        r = 5.0 + 0.3 * math.sin(7 * b) * math.cos(3 * a)
        verts.append(((20 + r * math.cos(a)) * math.cos(b), (20 + r * math.cos(a)) * math.sin(b), r * math.sin(a)))
faces = []
for i in range(lat):
    for j in range(lon):
        p, q = i * lon + j, i * lon + (j + 1) % lon
        s, t = (i + 1) % lat * lon + j, (i + 1) % lat * lon + (j + 1) % lon
        faces += [(p, s, q), (q, s, t)]


def write_obj(name, group):
    with open(os.path.join(WORK, name), "w") as f:
        f.write("# bumpy torus\no torus\n")
        f.writelines("v %.9g %.9g %.9g\n" % v for v in verts)
        if group:
            f.write("g torus\n")
        f.writelines("f %d %d %d\n" % (a + 1, b + 1, c + 1) for a, b, c in faces)


def write_ply(name, extra):
    with open(os.path.join(WORK, name), "wb") as f:
        f.write(("ply\nformat binary_little_endian 1.0\nelement vertex %d\nproperty float x\nproperty float y\n"
                 "property float z\n%selement face %d\nproperty list uchar int vertex_indices\nend_header\n"
                 % (len(verts), "property float confidence\n" if extra else "", len(faces))).encode())
        for v in verts:
            f.write(struct.pack("<3f", *v) + (struct.pack("<f", 1.0) if extra else b""))
        for a, b, c in faces:
            f.write(struct.pack("<B3i", 3, a, b, c))


def scan(mesh):
    scene = write(os.path.join(WORK, mesh + ".yaml"),
                  "sensor: {preset: vlp16, position: [0, 20, 0]}\nobjects:\n  - mesh: %s\n" % mesh)
    out = os.path.join(WORK, mesh + ".pcd")
    r = lidarsim("scan", scene, "-o", out, "--seed", "5", "--stats", "--quiet")
    check(r.returncode == 0, "%s: exit %d: %s" % (mesh, r.returncode, r.stderr.strip()))
    stats = [line for line in r.stderr.splitlines() if line.startswith("{")]
    print("%s: %s" % (mesh, stats[-1] if stats else r.stderr.strip()))
    return read_bytes(out)


write_obj("plain.obj", False)
write_obj("grouped.obj", True)
write_ply("plain.ply", False)
write_ply("extra.ply", True)
a, b = scan("plain.obj"), scan("grouped.obj")
check(a == b, "plain.obj and grouped.obj scan differently")
c, d = scan("plain.ply"), scan("extra.ply")
check(c == d, "plain.ply and extra.ply scan differently")
check(len(a) > 100000 and len(c) > 100000, "the scans are nearly empty")
print("%d triangles, %d vertices" % (len(faces), len(verts)))
finish("test_mesh_large")
