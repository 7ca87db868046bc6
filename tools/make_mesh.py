#!/usr/bin/python3
"""A reproducible large test mesh: the benchmark's displaced UV sphere (src/bench/bench_scene.c).

    tools/make_mesh.py OUTDIR [--triangles N]

writes OUTDIR/sphere.obj (text), OUTDIR/sphere.ply (binary little-endian) and the scenes
OUTDIR/sphere_obj.yaml and OUTDIR/sphere_ply.yaml: the mesh around a VLP-16 at its centre (every
beam hits). The default is 1,000,000 triangles (lat 500 x lon 1000 quads, 501,000 vertices,
radius about 20 m):

    /usr/bin/time -v build/lidarsim scan OUTDIR/sphere_obj.yaml -o /tmp/x.pcd --stats

prints load_ms and build_ms (stderr, JSON) and the peak memory ("Maximum resident set size",
the larger of lidarsim and its importer child). Needs numpy. The OBJ's coordinates have 9
significant digits (assimp's and lidarsim's OBJ number reading is not correctly rounded, so
they may differ from the PLY's float32 values in the last bit).
"""
import argparse
import os
import sys

import numpy as np


def sphere(triangles):
    lat = max(4, int((triangles / 4.0) ** 0.5))
    lon = 2 * lat
    theta = np.pi * np.arange(lat + 1, dtype=np.float64) / lat
    phi = 2.0 * np.pi * np.arange(lon, dtype=np.float64) / lon
    th, ph = np.meshgrid(theta, phi, indexing="ij")
    r = 20.0 + 1.5 * np.sin(7.0 * ph) * np.sin(5.0 * th) + 0.5 * np.sin(31.0 * ph + 3.0 * th)
    v = np.stack([r * np.sin(th) * np.cos(ph), r * np.sin(th) * np.sin(ph), r * np.cos(th)], axis=-1)
    v = v.reshape(-1, 3).astype(np.float32)
    i = np.arange(lat, dtype=np.uint32)[:, None]
    j = np.arange(lon, dtype=np.uint32)[None, :]
    a = i * lon + j
    b = i * lon + (j + 1) % lon
    c = (i + 1) * lon + j
    d = (i + 1) * lon + (j + 1) % lon
    t = np.stack([a, c, b, b, c, d], axis=-1).reshape(-1, 3).astype(np.uint32)
    return v, t


def write_obj(path, v, t):
    with open(path, "w") as f:
        f.write("# displaced UV sphere, %d vertices, %d triangles (tools/make_mesh.py)\n" % (len(v), len(t)))
        f.write("o sphere\n")
        f.write("".join("v %.9g %.9g %.9g\n" % tuple(p) for p in v.tolist()))
        f.write("".join("f %d %d %d\n" % tuple(q) for q in (t.astype(np.int64) + 1).tolist()))


def write_ply(path, v, t):
    face = np.zeros(len(t), dtype=[("n", "u1"), ("i", "<u4", (3,))])
    face["n"] = 3
    face["i"] = t
    with open(path, "wb") as f:
        f.write(("ply\nformat binary_little_endian 1.0\ncomment displaced UV sphere (tools/make_mesh.py)\n"
                 "element vertex %d\nproperty float x\nproperty float y\nproperty float z\n"
                 "element face %d\nproperty list uchar uint vertex_indices\nend_header\n"
                 % (len(v), len(t))).encode())
        f.write(v.astype("<f4").tobytes())
        f.write(face.tobytes())


SCENE = """# %d-triangle displaced sphere around a VLP-16 (tools/make_mesh.py); every beam hits it.
sensor:
  preset: vlp16
  position: [0, 0, 0]
materials:
  wall: {brdf: lambertian, reflectance: 0.4}
objects:
  - mesh: %s
    material: wall
    label: building
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--triangles", type=int, default=1000000)
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    v, t = sphere(args.triangles)
    write_obj(os.path.join(args.outdir, "sphere.obj"), v, t)
    write_ply(os.path.join(args.outdir, "sphere.ply"), v, t)
    for ext in ("obj", "ply"):
        with open(os.path.join(args.outdir, "sphere_%s.yaml" % ext), "w") as f:
            f.write(SCENE % (len(t), "sphere." + ext))
    print("%s: %d vertices, %d triangles" % (args.outdir, len(v), len(t)), file=sys.stderr)


if __name__ == "__main__":
    main()
