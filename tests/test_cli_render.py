#!/usr/bin/python3
"""`lidarsim render`: pictures of point files, decoded with the tests' own PNG reader (png_read.py).

usage: test_cli_render.py LIDARSIM_BINARY WORK_DIR

A sensor at the origin sees a wall (building) 10 m ahead and a car 6 m behind. The bird's-eye
image has points of the colour bar's colours where the wall projects and the plot background
elsewhere; the colour bar is a column of many distinct viridis colours (purple at the bottom,
yellow at the top); --color label paints the wall in SemanticKITTI's building colour and the car
in car colour, with a legend; the title is real antialiased text; every view and colour renders
from PCD, PLY and CSV; a missing field and bad arguments fail with a clear message and write
nothing. A world-frame PCD is drawn from its VIEWPOINT (the same points in view as the
sensor-frame file); a dataset frame (velodyne/NNNNNN.bin) is coloured by the labels in
../labels/. `scan --bev` and `--range-image` write figures: cells scaled up to a readable plot,
axes and a colour bar. Exits 1 with one line per failed check.
"""
import os
import re

import numpy as np
from cli_check import Lidarsim, binary_and_work, check, finish, read_bytes, write
from png_read import plot_box, read_png

BIN, WORK = binary_and_work()
WORK = os.path.join(WORK, "cli_render")
run = Lidarsim(BIN, seconds=300)
BACKGROUND = (32, 32, 32)


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


# The same wall and car seen from a sensor at (30, 20) turned to face +y (yaw 90 degrees), for
# files written in the world frame (PCD VIEWPOINT 30 20 0 and the yaw's quaternion).
WORLD_SCENE = SCENE.replace("  range: [0.05, 100]\n", "  range: [0.05, 100]\n  position: [30, 20, 0]\n"
                            "  rotation: [0, 0, 90]\n").replace(
    "box: {size: [0.4, 8, 6]}\n    position: [10.2, 0, 0]", "box: {size: [8, 0.4, 6]}\n    position: [30, 30.2, 0]").replace(
    "box: {size: [2, 1.6, 1.2]}\n    position: [-7, 0, 0]", "box: {size: [1.6, 2, 1.2]}\n    position: [30, 13, 0]")


def bev_pixel(lay, e, x, y, cx=0.0, cy=0.0):
    """Row, column of (x, y) in a bird's-eye plot of half width e centred on (cx, cy)."""
    x0, y0, x1, y1 = lay[:4]
    return int(y0 + (cx + e - x) / (2 * e) * (y1 - y0)), int(x0 + (cy + e - y) / (2 * e) * (x1 - x0))


def drawn(stdout):
    m = re.search(r": (\d+) of (\d+) points drawn", stdout)
    return (int(m.group(1)), int(m.group(2))) if m else None


def world_frame(scene_text):
    """A PCD in the world frame is drawn from its VIEWPOINT: the bird's-eye view centred on the
    sensor (30, 20), the perspective and range views from its pose, as the sensor-frame file of the
    same scan is (before: centred on 0, 0, where no point lies, and seen from the origin)."""
    scene = os.path.join(WORK, "world.yaml")
    write(scene, scene_text)
    files = {}
    for frame in ("world", "sensor"):
        files[frame] = os.path.join(WORK, "f_%s.pcd" % frame)
        r = run("scan", scene, "-o", files[frame], "--frame", frame)
        check(r.returncode == 0, "world-frame scan: " + r.stderr)
    head = open(files["world"], "rb").read(600).decode("latin-1")
    check("VIEWPOINT 30 20 0 0.707106781 0 0 0.707106781" in head, "world PCD's VIEWPOINT: %r" % head)
    counts = {}
    for view in ("bev", "perspective", "range"):
        for frame in ("world", "sensor"):
            png = os.path.join(WORK, "f_%s_%s.png" % (frame, view))
            r = run("render", files[frame], "-o", png, "--view", view, "--color", "label", "--extent", "15",
                    "--size", "640x480")
            check(r.returncode == 0, "render %s %s: %s" % (frame, view, r.stderr))
            counts[frame, view] = drawn(r.stdout)
            if frame == "world" and view == "bev":
                lay, img = layout(r.stdout), read_png(png)
                for (x, y), rgb, name in (((30.0, 30.0), (255, 200, 0), "building"),
                                          ((30.0, 13.8), (100, 150, 245), "car")):
                    row, col = bev_pixel(lay, 15, x, y, 30.0, 20.0)
                    patch = {tuple(c) for c in img[row - 3:row + 4, col - 3:col + 4].reshape(-1, 3)}
                    check(rgb in patch, "world bev: %s colour %s not at (%g, %g), pixel %d,%d" % (name, rgb, x, y,
                                                                                                row, col))
                # the sensor's cross at the plot's centre
                cy, cx = (lay[1] + lay[3]) // 2, (lay[0] + lay[2]) // 2
                cross = {tuple(c) for c in img[cy - 1:cy + 2, cx + 2:cx + 5].reshape(-1, 3)}
                check((255, 255, 255) in cross, "world bev: no sensor cross at the centre: %s" % cross)
    total = counts["sensor", "bev"][1] if counts["sensor", "bev"] else 0
    check(total > 1000, "world-frame scene: %d points" % total)
    for view in ("bev", "perspective", "range"):
        check(counts["world", view] == counts["sensor", view] and counts["world", view][0] > 0.8 * total,
              "%s view: world-frame file draws %s, sensor-frame %s" % (view, counts["world", view],
                                                                       counts["sensor", view]))
    # a VIEWPOINT that is no pose (a zero quaternion) is an error naming the file and line
    data = read_bytes(files["sensor"])
    bad = write(os.path.join(WORK, "bad_viewpoint.pcd"), data.replace(b"VIEWPOINT 0 0 0 1 0 0 0", b"VIEWPOINT 0 0 0 0 0 0 0", 1))
    png = os.path.join(WORK, "bad_viewpoint.png")
    r = run("render", bad, "-o", png)
    check(r.returncode == 1 and "bad_viewpoint.pcd:" in r.stderr and "VIEWPOINT needs 7 finite numbers" in r.stderr
          and not os.path.exists(png), "bad VIEWPOINT: rc %d: %s" % (r.returncode, r.stderr))


def colour_bar_right_of(img, box):
    """Distinct colours of the column of the colour bar right of the plot, and its top and bottom."""
    x0, y0, x1, y1 = box
    for x in range(x1 + 2, img.shape[1]):
        column = img[y0:y1, x]
        colours = {tuple(c) for c in column}
        if len(colours) > 100:
            return colours, column[0].astype(int), column[-1].astype(int)
    return set(), None, None


def scan_images(scene):
    """`scan --bev` and `--range-image` are figures: the cells (scaled up by a whole factor to a
    readable plot, at least 400 pixels wide; a planar scanner's one row at least 200 tall), axes
    with tick labels, a colour bar (before: the bare 64 x 64 cells, a 1-pixel-tall range image)."""
    bev = os.path.join(WORK, "scan_bev.png")
    r = run("scan", scene, "-o", os.path.join(WORK, "scan_bev.pcd"), "--bev", bev, "--bev-size", "64",
            "--bev-extent", "15")
    check(r.returncode == 0, "scan --bev: " + r.stderr)
    img = read_png(bev)
    box = plot_box(img)
    check(box is not None, "scan --bev: no plot area in the %s image" % (img.shape,))
    if box:
        x0, y0, x1, y1 = box
        check(x1 - x0 == 448 and y1 - y0 == 448, "scan --bev: plot %s, expected 64 cells of 7 pixels" % (box,))
        k = (x1 - x0) // 64
        # the wall, x = 10 m (cell row 10 of 64 over +-15 m), y = -3..3 (cells 25..38): coloured cells
        wall = img[y0 + 10 * k:y0 + 11 * k, x0 + 26 * k:x0 + 38 * k].reshape(-1, 3)
        lit = np.sum(np.any(wall != 0, axis=1) & np.any(wall != 255, axis=1))
        check(lit > 0.5 * len(wall), "scan --bev: the wall's cells are not lit (%d of %d pixels)" % (lit, len(wall)))
        # each cell a k x k square of one colour
        cell = img[y0 + 10 * k:y0 + 11 * k, x0 + 30 * k:x0 + 31 * k].reshape(-1, 3)
        check(len({tuple(c) for c in cell}) == 1, "scan --bev: a cell is not one colour")
        colours, top, bottom = colour_bar_right_of(img, box)
        check(len(colours) > 100 and top is not None and top[0] > 200 and top[2] < 80 and bottom[2] > 60,
              "scan --bev: no viridis colour bar right of the plot (%d colours)" % len(colours))
        left = img[y0:y1, :x0 - 2]
        below = img[y1 + 2:, x0:x1]
        check(np.sum(left < 100) > 200 and np.sum(below < 100) > 200,
              "scan --bev: no tick labels left of or below the plot")
    planar = os.path.join(WORK, "planar.yaml")
    write(planar, SCENE.replace(SCENE[:SCENE.index("materials:")], "sensor:\n  preset: rplidar-a1\n")
          .replace("position: [10.2, 0, 0]", "position: [5, 0, 0]"))
    ri = os.path.join(WORK, "scan_range.png")
    r = run("scan", planar, "-o", os.path.join(WORK, "planar.pcd"), "--range-image", ri)
    check(r.returncode == 0, "scan --range-image: " + r.stderr)
    img = read_png(ri)
    box = plot_box(img)
    check(box is not None and box[3] - box[1] >= 200 and box[2] - box[0] >= 400,
          "planar range image: plot %s in a %s image, expected at least 400 x 200" % (box, img.shape))
    if box:
        colours, top, bottom = colour_bar_right_of(img, box)
        check(len(colours) > 100, "planar range image: no colour bar (%d colours)" % len(colours))
        check(np.sum(img[box[3] + 2:, box[0]:box[2]] < 100) > 200, "planar range image: no azimuth tick labels")


def dataset_frame(scene):
    """A frame of a SemanticKITTI tree keeps its labels in ../labels/: `render --color label` of
    velodyne/NNNNNN.bin reads them (before: "has no 'label' field"); a label file of another
    point count is refused naming both files, writing nothing."""
    seq = os.path.join(WORK, "ds", "sequences", "00")
    for sub in ("velodyne", "labels"):
        os.makedirs(os.path.join(seq, sub), exist_ok=True)
    stem = os.path.join(WORK, "ds_scan")
    r = run("scan", scene, "-o", stem + ".bin", "--frame", "sensor")
    check(r.returncode == 0, "KITTI scan: " + r.stderr)
    frame = os.path.join(seq, "velodyne", "000000.bin")
    os.replace(stem + ".bin", frame)
    os.replace(stem + ".label", os.path.join(seq, "labels", "000000.label"))
    png = os.path.join(WORK, "ds_label.png")
    r = run("render", frame, "-o", png, "--color", "label", "--size", "640x480", "--extent", "15")
    check(r.returncode == 0 and "2 classes" in r.stdout, "dataset frame by label: %s %s" % (r.stdout, r.stderr))
    if r.returncode == 0:
        lay, img = layout(r.stdout), read_png(png)
        for (x, y), rgb, name in (((10.0, 0.0), (255, 200, 0), "building"), ((-6.0, 0.0), (100, 150, 245), "car")):
            row, col = bev_pixel(lay, 15, x, y)
            patch = {tuple(c) for c in img[row - 3:row + 4, col - 3:col + 4].reshape(-1, 3)}
            check(rgb in patch, "dataset frame: %s colour not at (%g, %g)" % (name, x, y))
    labels = os.path.join(seq, "labels", "000000.label")
    data = read_bytes(labels)
    write(labels, data[:-4])
    png = os.path.join(WORK, "ds_short.png")
    r = run("render", frame, "-o", png, "--color", "label")
    check(r.returncode == 1 and "labels/000000.label" in r.stderr and "velodyne/000000.bin" in r.stderr and
          "not of one frame" in r.stderr and not os.path.exists(png), "short label file: %s" % r.stderr)
    write(labels, data)


def main():
    os.makedirs(WORK, exist_ok=True)
    scene = os.path.join(WORK, "scene.yaml")
    write(scene, SCENE)
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

    world_frame(WORLD_SCENE)
    dataset_frame(scene)
    scan_images(scene)

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
    finish("test_cli_render")


main()
