#!/usr/bin/python3
"""The viewer page's `lidarsim view` example (docs/viewer.md, the README's "Viewer" until issue 26) shows the street (issue 23: its camera showed one wall).

usage: test_readme_view.py LIDARSIM_BINARY WORK_DIR      (env LSIM_SOURCE_DIR: the source tree)

docs/viewer.md's screenshot line (once the README's section Viewer: `xvfb-run ... lidarsim view examples/street/street.yaml
--screenshot out.png ... --camera ...`) runs as written (test_readme_blocks checks only its exit
status); its PNG, decoded here (zlib + the PNG filters), must show the scene: no class of colour
over 60 % of the picture, the road (SemanticKITTI magenta, shaded) on at least 3 % and the
background above the buildings on at least 3 %. The old camera, inside the corner of a building,
gave 95 % building orange, 0 % road, 0.1 % background.
Skipped (77) without xvfb-run. Exits 1 with one line per failed check.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import zlib

from timeouts import limit

BINARY = os.path.abspath(sys.argv[1])
WORK = os.path.abspath(sys.argv[2])
SRC = os.path.abspath(os.environ.get("LSIM_SOURCE_DIR") or os.path.join(os.path.dirname(__file__), ".."))
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what, file=sys.stderr)
    return cond


def read_png_rgb(path):
    """(width, height, rows of bytes R,G,B,...) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            if depth != 8 or ctype not in (2, 6):
                raise ValueError("PNG depth %d colour type %d" % (depth, ctype))
            ch = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * ch
    rows, prev = [], bytearray(stride)
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - ch] if i >= ch else 0
            b = prev[i]
            if f == 1:
                p = a
            elif f == 2:
                p = b
            elif f == 3:
                p = (a + b) >> 1
            elif f == 4:
                c = prev[i - ch] if i >= ch else 0
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            else:
                p = 0
            line[i] = (line[i] + p) & 255
        rows.append(bytes(line) if ch == 3 else bytes(v for k, v in enumerate(line) if k % 4 != 3))
        prev = line
    return w, h, rows


def readme_view_line():
    text = open(os.path.join(SRC, "docs", "viewer.md"), encoding="utf-8").read().replace("\\\n", " ")
    for line in text.splitlines():
        if line.strip().startswith("xvfb-run") and " view " in line and "--camera" in line:
            return " ".join(line.split())
    return None


def main():
    if not shutil.which("xvfb-run"):
        print("test_readme_view: SKIPPED: no xvfb-run (Debian: xvfb, xauth; make check-deps)")
        return 77
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    line = readme_view_line()
    if not check(line is not None, "docs/viewer.md has no `xvfb-run ... lidarsim view ... --camera` line"):
        return 1
    cmd = line.replace("examples/street/street.yaml", os.path.join(SRC, "examples", "street", "street.yaml"))
    cmd = re.sub(r"(\s)lidarsim(\s+view\s)", r"\1%s\2" % BINARY, cmd, count=1)
    m = re.search(r"--screenshot\s+(\S+)", cmd)
    png = os.path.join(WORK, m.group(1)) if m else None
    print("README line, as run:", cmd)
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    if os.environ.get("LSIM_SANITIZE", "OFF").upper() in ("ON", "1", "TRUE"):
        env["ASAN_OPTIONS"] = "detect_leaks=0"  # Mesa's GLX (as test_readme_blocks)
    p = subprocess.run(["bash", "-c", cmd], cwd=WORK, env=env, capture_output=True, text=True, timeout=limit(300))
    if not check(p.returncode == 0 and png and os.path.isfile(png), "the README's view line: exit %d: %s"
                 % (p.returncode, p.stderr.strip()[-800:])):
        return 1
    w, h, rows = read_png_rgb(png)
    n = w * h
    background = road = building = 0
    for row in rows:
        for k in range(0, len(row), 3):
            r, g, b = row[k], row[k + 1], row[k + 2]
            if abs(r - 30) <= 2 and abs(g - 30) <= 2 and abs(b - 36) <= 2:
                background += 1
            elif r > 120 and b > 120 and g < 80:
                road += 1
            elif r > 90 and g > 60 and b < 50 and r > g:
                building += 1
    print("%dx%d: background %.1f %%, road %.1f %%, building %.1f %%"
          % (w, h, 100.0 * background / n, 100.0 * road / n, 100.0 * building / n))
    for name, k in (("background", background), ("road", road), ("building", building)):
        check(k <= 0.6 * n, "%s covers %.0f %% of the picture: the camera sees one thing" % (name, 100.0 * k / n))
    check(road >= 0.03 * n, "the road covers %.1f %% (< 3 %%): the camera does not see the street" % (100.0 * road / n))
    check(background >= 0.03 * n, "the background covers %.1f %% (< 3 %%): no sky above the buildings"
          % (100.0 * background / n))
    if failures:
        print("%d failure(s)" % len(failures), file=sys.stderr)
        return 1
    print("test_readme_view: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
