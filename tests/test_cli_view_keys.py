#!/usr/bin/python3
"""`lidarsim view` live: keys pressed in the window move the sensor, re-scan and redraw.

usage: test_cli_view_keys.py LIDARSIM_BINARY WORK_DIR

The viewer runs in a real window on a virtual X server (the script runs itself again under
`xvfb-run -a`; no window manager), showing the
scene of test_cli_view.py; xdotool presses keys in the window (X's XTEST extension, as a user's
keyboard would) and xwd grabs the window's pixels. After every scan the viewer prints
"scan: N points in T ms, sensor at (X, Y, Z) yaw A deg".
  a  the first scan has the sensor at (0, 0, 1), yaw 0, and the window shows beams and points
     (pixels of the intensity colour map)
  b  W moves the sensor 0.5 m forward, Left turns it 5 deg, A then moves it 0.5 m to its own
     left (along the turned axes), Q 0.5 m up: each key gives one new scan with exactly that pose
  c  the window's pixels change after the moves (more than 2 % of them): the frame is redrawn
  d  Space hides the beam lines without a new scan: fewer intensity-coloured pixels
  e  Esc closes the window and the viewer exits 0
Needs xvfb-run, xdotool and xwd (Debian: xvfb and xauth, xdotool, x11-apps; make test installs them): fails,
never skips, when one is missing. Exits 1 with one line per failed check.
"""
import math
import os
import re
import select
import shutil
import subprocess
import sys
import time

import numpy as np
from cli_check import binary_and_work, check, finish, run, write
from timeouts import limit
from view_pixels import SCENE, gl_env, viridis_pixels

BINARY, WORK = binary_and_work()
W, H = 640, 480
CAMERA = (-16, -20, 14, 5, 0, 1)
SCAN = re.compile(r"scan: (\d+) points in [0-9.]+ ms, sensor at \(([-0-9.]+), ([-0-9.]+), ([-0-9.]+)\) "
                  r"yaw ([-0-9.]+) deg")


def need(tool, package):
    path = shutil.which(tool)
    if not path:
        print("FAIL: %s not found: install Debian's %s (make test-deps does)" % (tool, package), file=sys.stderr)
        sys.exit(1)
    return path


def read_xwd(data):
    """A 24/32-bit TrueColor ZPixmap XWD dump (xwd's output on Xvfb -screen 0 WxHx24) as H x W x 3."""
    field = [int.from_bytes(data[4 * i:4 * i + 4], "big") for i in range(25)]
    header_size, version, pixmap_format, depth, width, height = field[0:6]
    byte_order, bits_per_pixel, bytes_per_line = field[7], field[11], field[12]
    red_mask, green_mask, blue_mask, ncolors = field[14], field[15], field[16], field[19]
    if version != 7 or pixmap_format != 2 or bits_per_pixel != 32:
        raise ValueError("xwd: version %d, format %d, %d bits per pixel: expected 7, ZPixmap, 32"
                         % (version, pixmap_format, bits_per_pixel))
    start = header_size + 12 * ncolors
    raw = np.frombuffer(data[start:start + bytes_per_line * height], dtype=">u4" if byte_order else "<u4")
    px = raw.reshape(height, bytes_per_line // 4)[:, :width]
    out = np.zeros((height, width, 3), dtype=np.uint8)
    for k, mask in enumerate((red_mask, green_mask, blue_mask)):
        shift = (mask & -mask).bit_length() - 1
        out[:, :, k] = (px & mask) >> shift
    return out


class Viewer:
    """The viewer's process, its stdout read line by line without blocking past a deadline."""

    def __init__(self, env):
        self.p = subprocess.Popen([BINARY, "view", "scene.yaml", "--size", "%dx%d" % (W, H), "--camera",
                                   ",".join(str(c) for c in CAMERA), "--threads", "2"],
                                  cwd=WORK, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.buf = b""

    def next_scan(self, timeout=limit(60.0)):
        """The next scan line's (points, x, y, z, yaw), or None when none comes in time."""
        end = time.monotonic() + timeout
        while True:
            while b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                m = SCAN.match(line.decode("utf-8", "replace"))
                if m:
                    return (int(m.group(1)),) + tuple(float(m.group(k)) for k in range(2, 6))
            left = end - time.monotonic()
            if left <= 0 or self.p.poll() is not None:
                return None
            ready, _, _ = select.select([self.p.stdout], [], [], left)
            if ready:
                chunk = os.read(self.p.stdout.fileno(), 65536)
                if not chunk:
                    return None
                self.buf += chunk

    def quiet_for(self, seconds):
        """True when no scan line comes within `seconds`."""
        return self.next_scan(seconds) is None


def main():
    write(os.path.join(WORK, "scene.yaml"), SCENE)
    xdotool, xwd = need("xdotool", "xdotool"), need("xwd", "x11-apps")

    if os.environ.get("LSIM_VIEW_KEYS_SERVER") != "1":
        # run this script again inside a virtual X server (xvfb-run picks a free display, its auth),
        # its output straight through
        xvfb_run = need("xvfb-run", "xvfb")
        env = dict(os.environ, LSIM_VIEW_KEYS_SERVER="1")
        env.pop("WAYLAND_DISPLAY", None)
        p = subprocess.run([xvfb_run, "-a", "-s", "-screen 0 1024x768x24", sys.executable, os.path.abspath(__file__),
                            BINARY, WORK], env=env, timeout=limit(600))
        sys.exit(p.returncode)
    env = gl_env()
    viewer = None
    try:
        viewer = Viewer(env)
        press_keys(viewer, env, xdotool, xwd)
    finally:
        if viewer and viewer.p.poll() is None:
            viewer.p.kill()
            viewer.p.wait()


def press_keys(viewer, env, xdotool, xwd):
    first = viewer.next_scan()
    if not check(first is not None, "a: the viewer printed no scan line: stderr %s"
                 % (viewer.p.stderr.read().decode("utf-8", "replace") if viewer.p.poll() is not None else "")):
        return
    check(first[1:] == (0.0, 0.0, 1.0, 0.0) and first[0] > 10000,
          "a: first scan: %d points, sensor at %s yaw %s; expected > 10000 points at (0, 0, 1) yaw 0"
          % (first[0], first[1:4], first[4]))
    for attempt in range(5):  # a client refused while the server is busy: ask again
        found = run([xdotool, "search", "--sync", "--onlyvisible", "--name", "^lidarsim view"], env=env, seconds=60)
        if found.returncode == 0 and found.stdout.split():
            break
        time.sleep(1)
    ids = found.stdout.split()
    if not check(found.returncode == 0 and ids, "a: xdotool found no viewer window on DISPLAY=%s (viewer %s): %s"
                 % (env.get("DISPLAY"), "running" if viewer.p.poll() is None else "exited %d: %s"
                    % (viewer.p.returncode, viewer.p.stderr.read().decode("utf-8", "replace")), found.stderr.strip())):
        return
    window = ids[0]
    run([xdotool, "windowfocus", "--sync", window], env=env, seconds=30)

    def grab():
        time.sleep(0.5)  # the redraw after the last event
        p = run([xwd, "-silent", "-id", window], env=env, seconds=60, text=False)
        check(p.returncode == 0, "xwd -id %s: exit %d: %s" % (window, p.returncode, p.stderr.strip()))
        img = read_xwd(p.stdout)
        check(img.shape == (H, W, 3), "the window grabbed is %s, not %dx%d" % (img.shape, W, H))
        return img

    def key(name):
        subprocess.run([xdotool, "key", "--delay", "50", name], env=env, check=True, timeout=limit(30))

    before = grab()
    beams_on = viridis_pixels(before)
    check(beams_on > 2000, "a: %d intensity-coloured pixels with beams and points; expected > 2000" % beams_on)

    # b: each key, one scan at the pose it asks for
    pose = [0.0, 0.0, 1.0, 0.0]
    for name, forward, left, up, yaw in (("w", 0.5, 0, 0, 0), ("Left", 0, 0, 0, 5), ("a", 0, 0.5, 0, 0),
                                         ("q", 0, 0, 0.5, 0)):
        y = math.radians(pose[3])
        pose = [pose[0] + forward * math.cos(y) - left * math.sin(y), pose[1] + forward * math.sin(y) +
                left * math.cos(y), pose[2] + up, pose[3] + yaw]
        key(name)
        got = viewer.next_scan(60)
        if not check(got is not None, "b: key %s gave no new scan" % name):
            return
        check(all(abs(g - e) <= 0.006 for g, e in zip(got[1:], pose)),
              "b: after key %s the sensor is at %s yaw %s; expected (%.2f, %.2f, %.2f) yaw %.1f"
              % (name, got[1:4], got[4], *pose))

    moved = grab()
    changed = float(np.mean(np.any(moved != before, axis=2)))
    check(changed > 0.02, "c: %.1f %% of the pixels changed after the moves; expected > 2 %%" % (100 * changed))

    # d: Space toggles the beams: no scan, fewer intensity pixels
    key("space")
    check(viewer.quiet_for(1.5), "d: Space started a new scan; it only hides the beams")
    hidden = grab()
    with_beams, without = viridis_pixels(moved), viridis_pixels(hidden)
    check(without < 0.8 * with_beams, "d: %d intensity-coloured pixels with the beams hidden, %d shown; expected "
          "fewer than 80 %%" % (without, with_beams))

    # e: Esc quits
    key("Escape")
    try:
        rc = viewer.p.wait(timeout=limit(30))
    except subprocess.TimeoutExpired:
        rc = None
    check(rc == 0, "e: after Esc the viewer exited with %s; expected 0" % rc)


main()
finish("test_cli_view_keys")
