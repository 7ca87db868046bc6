#!/usr/bin/python3
"""The viewer page's `lidarsim view` example (docs/viewer.md, the README's "Viewer" until issue 26) shows the street (issue 23: its camera showed one wall).

usage: test_readme_view.py LIDARSIM_BINARY WORK_DIR      (env LSIM_SOURCE_DIR: the source tree)

docs/viewer.md's screenshot line (once the README's section Viewer: `xvfb-run ... lidarsim view examples/street/street.yaml
--screenshot out.png ... --camera ...`) runs as written (test_readme_blocks checks only its exit
status); its PNG, decoded by the tests' own reader (png_read.py), must show the scene: no class of
colour over 60 % of the picture, the road (SemanticKITTI magenta, shaded) on at least 3 % and the
background above the buildings on at least 3 %. The old camera, inside the corner of a building,
gave 95 % building orange, 0 % road, 0.1 % background.
Skipped (77) without xvfb-run. Exits 1 with one line per failed check.
"""
import os
import re
import shutil

from cli_check import binary_and_work, build_flag, check, finish, run, skip, source_dir
from png_read import read_png

BINARY, WORK = binary_and_work(fresh=True)
SRC = source_dir()


def readme_view_line():
    text = open(os.path.join(SRC, "docs", "viewer.md"), encoding="utf-8").read().replace("\\\n", " ")
    for line in text.splitlines():
        if line.strip().startswith("xvfb-run") and " view " in line and "--camera" in line:
            return " ".join(line.split())
    return None


def main():
    if not shutil.which("xvfb-run"):
        skip("test_readme_view", "no xvfb-run (Debian: xvfb, xauth; make check-deps)")
    line = readme_view_line()
    if not check(line is not None, "docs/viewer.md has no `xvfb-run ... lidarsim view ... --camera` line"):
        return
    cmd = line.replace("examples/street/street.yaml", os.path.join(SRC, "examples", "street", "street.yaml"))
    cmd = re.sub(r"(\s)lidarsim(\s+view\s)", r"\1%s\2" % BINARY, cmd, count=1)
    m = re.search(r"--screenshot\s+(\S+)", cmd)
    png = os.path.join(WORK, m.group(1)) if m else None
    print("README line, as run:", cmd)
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    if build_flag("LSIM_SANITIZE"):
        env["ASAN_OPTIONS"] = "detect_leaks=0"  # Mesa's GLX (as test_readme_blocks)
    p = run(["bash", "-c", cmd], cwd=WORK, env=env, seconds=300)
    if not check(p.returncode == 0 and png and os.path.isfile(png), "the README's view line: exit %d: %s"
                 % (p.returncode, p.stderr.strip()[-800:])):
        return
    img = read_png(png).astype(int)
    h, w = img.shape[:2]
    n = w * h
    r, g, b = img[:, :, 0], img[:, :, 1], img[:, :, 2]
    is_background = (abs(r - 30) <= 2) & (abs(g - 30) <= 2) & (abs(b - 36) <= 2)
    is_road = ~is_background & (r > 120) & (b > 120) & (g < 80)
    is_building = ~is_background & ~is_road & (r > 90) & (g > 60) & (b < 50) & (r > g)
    background, road, building = int(is_background.sum()), int(is_road.sum()), int(is_building.sum())
    print("%dx%d: background %.1f %%, road %.1f %%, building %.1f %%"
          % (w, h, 100.0 * background / n, 100.0 * road / n, 100.0 * building / n))
    for name, k in (("background", background), ("road", road), ("building", building)):
        check(k <= 0.6 * n, "%s covers %.0f %% of the picture: the camera sees one thing" % (name, 100.0 * k / n))
    check(road >= 0.03 * n, "the road covers %.1f %% (< 3 %%): the camera does not see the street" % (100.0 * road / n))
    check(background >= 0.03 * n, "the background covers %.1f %% (< 3 %%): no sky above the buildings"
          % (100.0 * background / n))


if __name__ == "__main__":
    main()
    finish("test_readme_view")
