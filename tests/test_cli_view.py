#!/usr/bin/python3
"""`lidarsim view`: the live viewer's screenshot mode, read back pixel by pixel.

usage: test_cli_view.py LIDARSIM_BINARY WORK_DIR

A VLP-16 at (0, 0, 1) on a 24 x 24 m road (SemanticKITTI colour magenta) with a red wall
(traffic-sign, 255,0,0) 8 m ahead, a blue car (100,150,245) to its left and a sphere. Every
screenshot runs under `xvfb-run` (Mesa's llvmpipe through GLX) and is decoded by the small PNG
reader below (zlib + numpy).
  a  overview (--camera -16,-20,14,5,0,1, 640x480): the four corners are the background
     (30,30,36); the white sensor marker is where the camera projects (0, 0, 1); pixels of the
     intensity colour map (viridis, within 12 of its table) are present, and fewer without beam
     lines (--beams 0) and none of them outside the beams with points coloured by label
  b  close-up on the wall (--camera -1,-7,4,7.9,0,1.5): most of a 15 x 15 window at the wall's
     projected centre is red, the rest its points (intensity map; no beam lines); the car's roof in a is blue
  c  the sensor moved (--sensor-position 2,-6,1): the marker is now at the projection of
     (2, -6, 1) and no longer at that of (0, 0, 1); more than 2 % of the pixels change
  d  errors: no display (DISPLAY and WAYLAND_DISPLAY unset, no xvfb) exits 1 naming xvfb-run and
     DISPLAY and writes no PNG; a bad scene gives the loader's FILE:LINE message; a bad --size is
     a usage error (2)
If xvfb-run is missing or the X server cannot start, the test fails with the reason (it never
skips). Standard library and numpy only. Exits 1 with one line per failed check.
"""
import math
import os
import shutil
import sys

import numpy as np
from cli_check import Lidarsim, binary_and_work, check, finish, run, write
from png_read import read_png
from view_pixels import BACKGROUND, SCENE, gl_env, is_viridis, viridis_pixels

BINARY, WORK = binary_and_work()
lidarsim = Lidarsim(BINARY, WORK, seconds=300)
W, H = 640, 480
FOV_Y = math.radians(60.0)  # the viewer's vertical field of view (src/view/view_camera.c)

OVERVIEW = (-16, -20, 14, 5, 0, 1)
CLOSE = (-1, -7, 4, 7.9, 0, 1.5)


def project(camera, p, w=W, h=H):
    """Pixel (column, row) of world point p for --camera eye,target (the viewer's orbit camera)."""
    eye, target = np.array(camera[:3], float), np.array(camera[3:], float)
    back = (eye - target) / np.linalg.norm(eye - target)
    right = np.cross([0.0, 0.0, 1.0], back)
    right /= np.linalg.norm(right)
    up = np.cross(back, right)
    d = np.array(p, float) - eye
    xc, yc, zc = d @ right, d @ up, d @ back
    f = 1.0 / math.tan(FOV_Y / 2)
    nx, ny = f / (w / h) * xc / -zc, f * yc / -zc
    return (nx + 1) / 2 * w, (1 - ny) / 2 * h


def xvfb_run():
    path = shutil.which("xvfb-run")
    if not path:
        print("FAIL: xvfb-run not found: install Debian's xvfb and xauth (make deps does)", file=sys.stderr)
        sys.exit(1)
    return path


def shot(name, camera, *extra):
    """Screenshot into WORK/name.png; the decoded image."""
    out = os.path.join(WORK, name + ".png")
    if os.path.exists(out):
        os.remove(out)
    cmd = [xvfb_run(), "-a", "-s", "-screen 0 1024x768x24", BINARY, "view", "scene.yaml", "--screenshot", out,
           "--size", "%dx%d" % (W, H), "--camera", ",".join(str(c) for c in camera)] + list(extra)
    p = run(cmd, cwd=WORK, env=gl_env(), seconds=300)
    err = p.stderr
    if p.returncode != 0 or not os.path.exists(out):
        # xvfb-run reports an X server that cannot start ("Xvfb failed to start") on stderr
        print("FAIL: %s: exit %d, no screenshot; stderr:\n%s" % (" ".join(cmd), p.returncode, err), file=sys.stderr)
        sys.exit(1)
    img = read_png(out, colour_types=(2,))  # RGB: the viewer writes no alpha
    if img.shape != (H, W, 3):
        print("FAIL: %s is %s, not %dx%d RGB" % (out, img.shape, W, H), file=sys.stderr)
        sys.exit(1)
    return img


def near_white(img, col, row, r=1):
    c, rr = int(round(col)), int(round(row))
    win = img[rr - r:rr + r + 1, c - r:c + r + 1].astype(int)
    return win.size > 0 and bool((win >= 245).all())


def fraction(img, col, row, r, test):
    c, rr = int(round(col)), int(round(row))
    win = img[rr - r:rr + r + 1, c - r:c + r + 1].reshape(-1, 3).astype(int)
    return float(np.mean([test(p) for p in win]))


def main():
    write(os.path.join(WORK, "scene.yaml"), SCENE)

    # a: overview
    a = shot("a_overview", OVERVIEW, "--beams", "300")
    corners = [tuple(int(v) for v in a[y, x]) for y, x in ((0, 0), (0, W - 1), (H - 1, 0), (H - 1, W - 1))]
    check(all(max(abs(c[k] - BACKGROUND[k]) for k in range(3)) <= 1 for c in corners),
          "a: corners %s are not the background %s" % (corners, BACKGROUND))
    sx, sy = project(OVERVIEW, (0, 0, 1))
    check(near_white(a, sx, sy), "a: no white sensor marker at the projection (%.1f, %.1f) of (0, 0, 1): %s"
          % (sx, sy, a[int(round(sy)), int(round(sx))]))
    n_beams = viridis_pixels(a)
    no_beams = shot("a_no_beams", OVERVIEW, "--beams", "0")
    n_points = viridis_pixels(no_beams)
    by_label = shot("a_label", OVERVIEW, "--beams", "0", "--color", "label")
    n_label = viridis_pixels(by_label)
    print("a: intensity-map pixels: %d with 300 beam lines, %d points only, %d points by label; marker at (%.0f, %.0f)"
          % (n_beams, n_points, n_label, sx, sy))
    check(n_points >= 1000, "a: only %d pixels of the intensity map with the points drawn" % n_points)
    check(n_beams >= n_points + 1000, "a: beam lines add only %d intensity-map pixels" % (n_beams - n_points))
    check(n_label < n_points / 10, "a: %d intensity-map pixels with points coloured by label (%d by intensity)"
          % (n_label, n_points))

    # b: close-up on the red wall and the blue car
    b = shot("b_close", CLOSE, "--beams", "0")
    wx, wy = project(CLOSE, (7.9, 0, 1.5))
    red = fraction(b, wx, wy, 7, lambda p: p[0] >= 90 and p[0] > 2 * p[1] and p[0] > 2 * p[2])
    wall_points = fraction(b, wx, wy, 7, is_viridis)
    cx, cy = project(OVERVIEW, (0, 6, 1.5))  # the car's roof (no points: the sensor is below it)
    blue = fraction(no_beams, cx, cy, 3, lambda p: p[2] >= 90 and p[2] > p[0] + 30)
    print("b: wall centre at (%.0f, %.0f): %.0f %% red, %.0f %% points (intensity map); car roof in a at (%.0f, %.0f): "
          "%.0f %% blue" % (wx, wy, 100 * red, 100 * wall_points, cx, cy, 100 * blue))
    check(abs(wx - W / 2) < 1 and abs(wy - H / 2) < 1, "b: the camera's target is not the image centre")
    check(red >= 0.5, "b: only %.0f %% of the wall's centre window is red" % (100 * red))
    check(wall_points >= 0.1 and red + wall_points >= 0.95,
          "b: the wall's centre window is %.0f %% red and %.0f %% points" % (100 * red, 100 * wall_points))
    check(0 <= cx < W and 0 <= cy < H and blue >= 0.5, "b: only %.0f %% of the car's window is blue" % (100 * blue))

    # c: the sensor moved
    c = shot("c_moved", OVERVIEW, "--beams", "300", "--sensor-position", "2,-6,1")
    mx, my = project(OVERVIEW, (2, -6, 1))
    check(near_white(c, mx, my), "c: no white marker at the projection (%.1f, %.1f) of (2, -6, 1)" % (mx, my))
    check(not near_white(c, sx, sy), "c: the marker is still at the projection of (0, 0, 1)")
    check(not near_white(a, mx, my), "a: white at the projection of (2, -6, 1) before the move")
    changed = float(np.mean((np.abs(a.astype(int) - c.astype(int)).max(axis=2) > 8)))
    print("c: marker moved from (%.0f, %.0f) to (%.0f, %.0f); %.1f %% of the pixels changed" % (sx, sy, mx, my,
                                                                                               100 * changed))
    check(changed > 0.02, "c: only %.2f %% of the pixels changed after moving the sensor" % (100 * changed))

    # d: errors
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    out = os.path.join(WORK, "d_nodisplay.png")
    p = lidarsim("view", "scene.yaml", "--screenshot", out, env=env)
    err = p.stderr
    print("d: no display: exit %d: %s" % (p.returncode, err.strip()))
    check(p.returncode == 1 and "no display" in err and "xvfb-run" in err and "DISPLAY" in err,
          "d: no display: exit %d, %r" % (p.returncode, err))
    check(not os.path.exists(out), "d: no display, yet %s was written" % out)
    write(os.path.join(WORK, "bad.yaml"),
          "sensor:\n  preset: vlp16\nobjects:\n  - box: {size: [1, 1, 1]}\n    colour: red\n")
    p = lidarsim("view", "bad.yaml", "--screenshot", out, env=env)
    err = p.stderr
    check(p.returncode == 1 and "bad.yaml:5:" in err and "colour" in err,
          "d: bad scene: exit %d, %r" % (p.returncode, err))
    p = lidarsim("view", "scene.yaml", "--size", "10x10", env=env)
    err = p.stderr
    check(p.returncode == 2 and "--size" in err and "16..8192" in err, "d: bad --size: exit %d, %r" % (p.returncode, err))
    finish("test_cli_view", "ok")


if __name__ == "__main__":
    main()
