#!/usr/bin/python3
"""`lidarsim render`: pictures of point files, decoded here with a small zlib + numpy PNG reader.

usage: test_cli_render.py LIDARSIM_BINARY WORK_DIR

A sensor at the origin sees a wall (building) 10 m ahead and a car 6 m behind. The bird's-eye
image has points of the colour bar's colours where the wall projects and the plot background
elsewhere; the colour bar is a column of many distinct viridis colours (purple at the bottom,
yellow at the top); --color label paints the wall in SemanticKITTI's building colour and the car
in car colour, with a legend; the title is real antialiased text; every view and colour renders
from PCD, PLY and CSV; a missing field and bad arguments fail with a clear message and write
nothing. Exits 1 with one line per failed check.
"""
import os
import re
import struct
import subprocess
import sys
import zlib

import numpy as np

BIN, WORK = sys.argv[1], os.path.join(sys.argv[2], "cli_render")
FAILS = []
BACKGROUND = (32, 32, 32)


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def run(*args):
    return subprocess.run([BIN] + list(args), capture_output=True, text=True, timeout=300)


def read_png(path):
    """8-bit RGB or RGBA PNG -> (H, W, 3) uint8 array."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", path
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), (depth, ctype)
            ch = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(h, 1 + w * ch)
    out = np.zeros((h, w * ch), np.int32)
    prev = np.zeros(w * ch, np.int32)
    for y in range(h):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        if f == 0:
            cur = line
        elif f == 1:
            cur = np.cumsum(line.reshape(w, ch), axis=0).reshape(-1) & 255
        elif f == 2:
            cur = (line + prev) & 255
        else:
            cur = np.zeros_like(line)
            for x in range(w * ch):
                a = cur[x - ch] if x >= ch else 0
                b, c = prev[x], prev[x - ch] if x >= ch else 0
                if f == 1:
                    p = a
                elif f == 3:
                    p = (a + b) >> 1
                else:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    p = a if pa <= pb and pa <= pc else b if pb <= pc else c
                cur[x] = (line[x] + p) & 255
        out[y], prev = cur, cur
    return out.reshape(h, w, ch)[:, :, :3].astype(np.uint8)


def layout(stdout):
    m = re.search(r"plot (\d+),(\d+),(\d+),(\d+); key (\d+),(\d+),(\d+),(\d+); title (\d+),(\d+)", stdout)
    return [int(v) for v in m.groups()] if m else None


SCENE = """sensor:
  type: rotating
  channels: 16
  elevation_min: -15
  elevation_max: 15
  columns: 720
  rate_hz: 10
  range: [0.05, 100]
materials:
  wall: {brdf: lambertian, reflectance: 0.6}
objects:
  - box: {size: [0.4, 8, 6]}
    position: [10.2, 0, 0]
    material: wall
    label: building
  - box: {size: [2, 1.6, 1.2]}
    position: [-7, 0, 0]
    material: wall
    label: car
"""


def bev_pixel(lay, e, x, y):
    x0, y0, x1, y1 = lay[:4]
    return int(y0 + (e - x) / (2 * e) * (y1 - y0)), int(x0 + (e - y) / (2 * e) * (x1 - x0))


def main():
    os.makedirs(WORK, exist_ok=True)
    scene = os.path.join(WORK, "scene.yaml")
    open(scene, "w").write(SCENE)
    pcd = os.path.join(WORK, "p.pcd")
    r = run("scan", scene, "-o", pcd, "--frame", "sensor")
    check(r.returncode == 0, "scan failed: " + r.stderr)
    for ext in ("ply", "csv", "las"):
        run("scan", scene, "-o", os.path.join(WORK, "p." + ext), "--frame", "sensor")

    # bird's-eye by intensity: wall pixels have colour-bar colours, empty places the background
    png = os.path.join(WORK, "bev.png")
    r = run("render", pcd, "-o", png, "--view", "bev", "--color", "range", "--size", "900x700", "--extent", "15")
    check(r.returncode == 0, "bev render failed: " + r.stderr)
    lay = layout(r.stdout)
    check(lay is not None, "no layout line: " + r.stdout)
    img = read_png(png)
    check(img.shape == (700, 900, 3), "bev size %s" % (img.shape,))
    kx0, ky0, kx1, ky1 = lay[4:8]
    bar = img[ky0:ky1, (kx0 + kx1) // 2]
    bar_colours = {tuple(c) for c in bar}
    check(len(bar_colours) > 100, "colour bar has only %d colours" % len(bar_colours))
    top, bottom = bar[0].astype(int), bar[-1].astype(int)
    check(top[0] > 200 and top[1] > 200 and top[2] < 80, "colour bar top is not yellow: %s" % top)
    check(bottom[0] > 50 and bottom[1] < 20 and bottom[2] > 60, "colour bar bottom is not purple: %s" % bottom)
    for y in (-3.0, 0.0, 3.0):
        row, col = bev_pixel(lay, 15, 10.0, y)
        patch = img[row - 3:row + 4, col - 3:col + 4].reshape(-1, 3)
        hits = [tuple(c) for c in patch if tuple(c) in bar_colours]
        check(len(hits) >= 3, "no wall points at y=%g (pixel %d,%d): %s" % (y, row, col, patch[:5].tolist()))
    for x, y in ((-12, 10), (5, -10), (12, 12), (-3, 6)):
        row, col = bev_pixel(lay, 15, x, y)
        check(tuple(img[row, col]) == BACKGROUND, "not background at (%g, %g): %s" % (x, y, img[row, col]))
    # the title: antialiased text (grey levels) in its band, and only black/white/grey there
    band = img[lay[8]:lay[9], :]
    grey = np.sum((band[:, :, 0] == band[:, :, 1]) & (band[:, :, 0] > 40) & (band[:, :, 0] < 215))
    dark = np.sum(band[:, :, 0] < 40)
    check(grey > 100 and dark > 100, "title: %d grey, %d dark pixels" % (grey, dark))

    # labels: the wall in building colour, the car in car colour, a legend swatch of each
    png = os.path.join(WORK, "label.png")
    r = run("render", pcd, "-o", png, "--color", "label", "--size", "900x700", "--extent", "15")
    check(r.returncode == 0 and "2 classes" in r.stdout, "label render: %s %s" % (r.stdout, r.stderr))
    lay = layout(r.stdout)
    img = read_png(png)
    for (x, y), rgb, name in (((10.0, 0.0), (255, 200, 0), "building"), ((-6.0, 0.0), (100, 150, 245), "car")):
        row, col = bev_pixel(lay, 15, x, y)
        patch = {tuple(c) for c in img[row - 3:row + 4, col - 3:col + 4].reshape(-1, 3)}
        check(rgb in patch, "%s colour %s not at its place (%d,%d): %s" % (name, rgb, row, col, patch))
        legend = {tuple(c) for c in img[lay[5]:lay[7], lay[4]:lay[6]].reshape(-1, 3)}
        check(rgb in legend, "legend lacks %s's swatch" % name)

    # every view and colour, from each format
    for src in ("p.pcd", "p.ply", "p.csv"):
        for view in ("bev", "range", "perspective"):
            for colour in ("intensity", "label", "range", "epw"):
                if src != "p.pcd" and (view, colour) != ("bev", "intensity"):
                    continue
                png = os.path.join(WORK, "%s_%s_%s.png" % (src, view, colour))
                r = run("render", os.path.join(WORK, src), "-o", png, "--view", view, "--color", colour,
                        "--size", "640x480")
                ok = r.returncode == 0 and os.path.exists(png)
                check(ok, "render %s %s %s: %s" % (src, view, colour, r.stderr))
                if ok and colour == "intensity":  # decoding is slow in Python: one per view
                    img = read_png(png)
                    check(img.shape == (480, 640, 3), "%s size %s" % (png, img.shape))
                    m = re.search(r": (\d+) of (\d+) points drawn", r.stdout)
                    check(m and (int(m.group(1)) > 100 or colour == "epw"),
                          "%s %s %s drew too few points: %s" % (src, view, colour, r.stdout))
                    lay = layout(r.stdout)
                    inside = img[lay[1]:lay[3], lay[0]:lay[2]].reshape(-1, 3)
                    fg = np.sum(np.any(inside != BACKGROUND, axis=1))
                    check(fg > 100 or colour == "epw", "%s: only %d point pixels" % (png, fg))
                    # nothing drawn between the plot and the colour bar, nor over the plot's top
                    # right (the caption, "intensity (relative, log scale)", once ran there)
                    gap = img[lay[1]:lay[3], lay[2] + 2:lay[4] - 2].reshape(-1, 3)
                    check(np.all(gap == 255), "%s: %d pixels drawn between the plot and the colour bar"
                          % (png, np.sum(np.any(gap != 255, axis=1))))
                    caption = img[lay[5]:lay[7], lay[6] + 1:].reshape(-1, 3)
                    check(np.sum(np.any(caption < 100, axis=1)) > 200, "%s: no tick labels or caption right of "
                          "the colour bar" % png)

    # a LAS file (no intensity field): by default coloured by reflectivity, its caption and range as
    # the PCD's reflectivity gives them; the wall drawn where it stands; --color intensity refused
    png = os.path.join(WORK, "las.png")
    r = run("render", os.path.join(WORK, "p.las"), "-o", png, "--size", "900x700", "--extent", "15")
    check(r.returncode == 0 and "colour reflectivity" in r.stdout,
          "LAS render: %s %s" % (r.stdout, r.stderr))
    lay = layout(r.stdout)
    ref = run("render", pcd, "-o", os.path.join(WORK, "refl.png"), "--color", "reflectivity", "--size", "900x700",
              "--extent", "15")
    m_las = re.search(r"colour bar (\S+)\.\.(\S+)", r.stdout)
    m_pcd = re.search(r"colour bar (\S+)\.\.(\S+)", ref.stdout)
    check(m_las and m_pcd and all(abs(float(a) - float(b)) <= 1e-4 for a, b in zip(m_las.groups(), m_pcd.groups())),
          "LAS reflectivity bar %s vs PCD %s" % (m_las and m_las.groups(), m_pcd and m_pcd.groups()))
    img = read_png(png)
    bar_colours = {tuple(c) for c in img[lay[5]:lay[7], (lay[4] + lay[6]) // 2]}
    row, col = bev_pixel(lay, 15, 10.0, 0.0)
    check(any(tuple(c) in bar_colours for c in img[row - 3:row + 4, col - 3:col + 4].reshape(-1, 3)),
          "LAS render: no wall at (10, 0)")
    r = run("render", os.path.join(WORK, "p.las"), "-o", os.path.join(WORK, "las_i.png"), "--color", "intensity")
    check(r.returncode == 1 and "no 'intensity' field" in r.stderr, "LAS --color intensity: %s" % r.stderr)

    # a field the file lacks: named, with how to get it; nothing written
    slim = os.path.join(WORK, "slim.pcd")
    r = run("scan", scene, "-o", slim, "--fields", "x,y,z,intensity")
    check(r.returncode == 0, "slim scan: " + r.stderr)
    png = os.path.join(WORK, "no_epw.png")
    r = run("render", slim, "-o", png, "--color", "epw")
    check(r.returncode == 1 and "'epw'" in r.stderr and "--fields" in r.stderr,
          "missing epw: rc %d: %s" % (r.returncode, r.stderr))
    check(not os.path.exists(png), "missing epw left a file")
    for args in (["--view", "top"], ["--color", "colour"], ["--size", "100x100"], ["--size", "800"],
                 ["--extent", "-1"], ["--bogus"]):
        r = run("render", pcd, "-o", png, *args)
        check(r.returncode == 2 and "lidarsim render" in r.stderr, "%s: rc %d %s" % (args, r.returncode, r.stderr))
        check(not os.path.exists(png), "%s left a file" % args)
    r = run("render", pcd)
    check(r.returncode == 2 and "-o PNG" in r.stderr, "no -o: %s" % r.stderr)
    r = run("render", os.path.join(WORK, "absent.pcd"), "-o", png)
    check(r.returncode == 1 and "absent.pcd" in r.stderr and not os.path.exists(png), "absent file: " + r.stderr)

    if FAILS:
        print("test_cli_render: %d checks failed" % len(FAILS))
        sys.exit(1)
    print("test_cli_render: all checks passed")


main()
