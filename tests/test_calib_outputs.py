#!/usr/bin/python3
"""`lidarsim validate` and `calibrate --view` on awkward scans and awkward output folders (issue 8).

usage: test_calib_outputs.py LIDARSIM_BINARY WORK_DIR

Built from the real RPLIDAR wall scan (data/apollosim-rplidar, shipped in the repository),
cut to a few revolutions (720 beams each):
  - a recording that stops mid-revolution (5 revolutions + 300 beams) validates exactly as its 5
    complete revolutions do (same validation.csv), and says that it left the 300 beams out; it
    read past the scan before (ASan: heap overread; release: PASS from leftover memory);
  - one revolution and two stray beams (each an angle wrap) validates as the one revolution does,
    with finite discrepancies (it was "calibrated nan vs BRDF-only nan");
  - an alternating-angle scan (1 beam per revolution) is refused, naming the file and counts;
  - an output folder that cannot be written or created fails before any simulation (the scan
    given is one that would fail later with another message), nothing written;
  - a folder in the place of one of the outputs: validate and calibrate --view fail with no output
    file at all (calibrate wrote calibration.yaml before), a folder they made is removed, a folder
    that was there keeps only what it had; success leaves no staging folder or temporary file;
  - SIGINT or SIGTERM during validate or calibrate --view leaves nothing behind;
  - validate into a full file system names the output's path (not its staging copy) and leaves nothing.
Standard library only. Exits 1 with one line per failed check.
"""
import csv
import math
import os
import random
import re

import repo_data
from cli_check import Lidarsim, binary_and_work, check, finish, new_dir, run, signal_when, write

BINARY, WORK = binary_and_work(fresh=True)
WALL = os.path.join(repo_data.RPLIDAR, "data", "wall_data.txt")
lidarsim = Lidarsim(BINARY, WORK, seconds=300)


def case(name, scan_lines):
    """A folder holding wall.txt (the given beam lines) and data.config naming it."""
    d = new_dir(WORK, name)
    write(os.path.join(d, "wall.txt"), "".join(scan_lines))
    write(os.path.join(d, "data.config"), "wall,./wall.txt,0.457,1.25,ON,0.5,0.0\n")
    return d


def listing(d):
    return sorted(os.listdir(d)) if os.path.isdir(d) else None


def staging_in(folder, prefix):
    """For signal_when: whether a staging folder PREFIX... has appeared in `folder`."""
    return lambda pid: any(n.startswith(prefix) for n in (listing(folder) or []))


def discrepancies(verdict):
    m = re.search(r"discrepancy calibrated (\S+) vs BRDF-only (\S+) ", verdict)
    return (float(m.group(1)), float(m.group(2))) if m else (math.nan, math.nan)


OUTPUTS = ["calibration.yaml", "validation.csv", "wall_validation.png", "wall_view.png"]


def test_partial_revolutions(wall):
    # Reference: exactly 5 revolutions, and exactly 1.
    runs = {}
    for name, lines in (("rev5", wall[:3600]), ("rev5_partial", wall[:3900]), ("rev1", wall[:720]),
                        ("rev1_stray", wall[:720] + ["0.5,47.0,-3.0\n", "0.5,47.0,3.0\n"])):
        d = case(name, lines)
        rc, out, err = lidarsim("validate", "data.config", "-o", "out", "--seed", "3", cwd=d)
        check(rc in (0, 3) and "wall:" in out, "%s: validate exit %d: %s" % (name, rc, err.strip()))
        check("AddressSanitizer" not in err, "%s: ASan report: %s" % (name, err[-2000:]))
        check(listing(os.path.join(d, "out")) == OUTPUTS, "%s: outputs %r" % (name, listing(os.path.join(d, "out"))))
        csv_path = os.path.join(d, "out", "validation.csv")
        rows = list(csv.DictReader(open(csv_path))) if os.path.exists(csv_path) else []
        runs[name] = (rc, out, err, rows)
    rows5 = runs["rev5"][3]
    check(len(rows5) > 10, "rev5: only %d bins" % len(rows5))
    check(sum(int(r["n_real"]) for r in rows5) > 0, "rev5: no real beams in any bin")
    # A trailing partial revolution is left out (and said so): the same statistics as 5 revolutions.
    rc, out, err, rows = runs["rev5_partial"]
    check("its last 300 beams are left out; using 5 complete revolutions of 720 beams" in err,
          "rev5_partial: no note on the partial revolution: %s" % err.strip())
    check(rows == rows5, "rev5_partial: validation.csv differs from the 5 complete revolutions'")
    check(out == runs["rev5"][1], "rev5_partial: verdict %r vs %r" % (out, runs["rev5"][1]))
    # Two stray beams: the revolution stays 720 beams long, the verdict finite.
    rc, out, err, rows = runs["rev1_stray"]
    check("its last 2 beams are left out; using 1 complete revolution of 720 beams" in err,
          "rev1_stray: no note on the stray beams: %s" % err.strip())
    c, b = discrepancies(out)
    check(math.isfinite(c) and math.isfinite(b), "rev1_stray: discrepancies not finite: %s" % out.strip())
    check(rows == runs["rev1"][3] and len(rows) > 10, "rev1_stray: validation.csv differs from the 1 revolution's")


def test_degenerate(wall):
    d = case("alternating", ["0.4,47,%s\n" % ("3.0" if i % 2 else "-3.0") for i in range(2000)])
    rc, out, err = lidarsim("validate", "data.config", "-o", "out", cwd=d)
    check(rc == 1, "alternating: exit %d, expected 1" % rc)
    for s in ("wall.txt", "2000 beams in 2000 revolutions", "1 beam long", "at least 16 beams per revolution"):
        check(s in err, "alternating: stderr lacks %r: %s" % (s, err.strip()))
    check("nan" not in out and out == "", "alternating: stdout %r" % out)
    check(listing(d) == ["data.config", "wall.txt"],
          "alternating: folder now holds %r" % listing(d))


def test_unwritable(wall):
    # The scan would fail (no revolution structure) only after the folder check: the message must be
    # the folder's, which shows the folder is checked before any scan is read or simulated.
    d = case("unwritable", ["0.4,47,%s\n" % ("3.0" if i % 2 else "-3.0") for i in range(2000)])
    write(os.path.join(d, "afile"), "x")
    targets = [("/proc/lidarsim_no_such_dir", "cannot create the output folder '/proc/lidarsim_no_such_dir'"),
               (os.path.join(d, "afile", "out"), "cannot create the output folder"),
               (os.path.join(d, "afile"), "it is a file, not a folder")]
    if os.path.isdir("/proc/self/fdinfo"):  # exists; no file can be made in it, even by root
        targets.append(("/proc/self/fdinfo", "cannot write the output folder '/proc/self/fdinfo'"))
    if os.geteuid() != 0:
        ro = os.path.join(d, "readonly")
        os.makedirs(ro)
        os.chmod(ro, 0o555)
        targets.append((ro, "cannot write the output folder"))
    before = listing(d)
    for target, message in targets:
        rc, out, err = lidarsim("validate", "data.config", "-o", target, cwd=d)
        check(rc == 1, "unwritable %s: exit %d" % (target, rc))
        check(message in err and "revolution" not in err, "unwritable %s: stderr %r" % (target, err.strip()))
        check(listing(d) == before, "unwritable %s: folder now %r" % (target, listing(d)))
    # calibrate --view: same check before the work; the calibration is not written either
    rc, out, err = lidarsim("calibrate", "data.config", "-o", "cal.yaml", "--view", "/proc/lidarsim_no_views", cwd=d)
    check(rc == 1 and "cannot create the view folder '/proc/lidarsim_no_views'" in err,
          "calibrate --view unwritable: exit %d: %s" % (rc, err.strip()))
    check(listing(d) == before, "calibrate --view unwritable: folder now %r" % listing(d))


def test_half_way(wall):
    lines = wall[:3600]
    # validate into an existing folder where one output's name is taken by a folder: nothing is
    # written, what the folder held stays, no staging folder is left.
    d = case("taken_validate", lines)
    out_dir = os.path.join(d, "out")
    os.makedirs(os.path.join(out_dir, "wall_view.png"))
    write(os.path.join(out_dir, "keep.txt"), "mine")
    rc, out, err = lidarsim("validate", "data.config", "-o", "out", cwd=d)
    check(rc == 1, "taken_validate: exit %d: %s" % (rc, err.strip()))
    check("wall_view.png: it is a folder" in err, "taken_validate: stderr %r" % err.strip())
    check(listing(out_dir) == ["keep.txt", "wall_view.png"], "taken_validate: out now holds %r" % listing(out_dir))
    # calibrate --view: the view's name is taken; calibration.yaml must not be written either.
    d = case("taken_calibrate", lines)
    views = os.path.join(d, "views")
    os.makedirs(os.path.join(views, "wall_view.png"))
    rc, out, err = lidarsim("calibrate", "data.config", "-o", "cal.yaml", "--view", "views", cwd=d)
    check(rc == 1, "taken_calibrate: exit %d: %s" % (rc, err.strip()))
    check("wall_view.png: it is a folder" in err, "taken_calibrate: stderr %r" % err.strip())
    check(listing(d) == ["data.config", "views", "wall.txt"], "taken_calibrate: folder now %r" % listing(d))
    check(listing(views) == ["wall_view.png"], "taken_calibrate: views now %r" % listing(views))
    # A failure after the view folder was made (no board in the scan): the folder is removed again.
    rng = random.Random(5)  # clutter at random ranges: no board anywhere
    d = case("no_board", ["%.3f,47,%.6f\n" % (rng.uniform(0.5, 5.0), -3.14 + 6.28 * (i % 720) / 720)
                          for i in range(1440)])
    rc, out, err = lidarsim("calibrate", "data.config", "-o", "cal.yaml", "--view", "views", cwd=d)
    check(rc == 1 and listing(d) == ["data.config", "wall.txt"], "no_board: exit %d, folder %r: %s" %
          (rc, listing(d), err.strip()))
    rc, out, err = lidarsim("validate", "data.config", "-o", "out", cwd=d)
    check(rc == 1 and listing(d) == ["data.config", "wall.txt"], "no_board validate: exit %d, folder %r: %s" %
          (rc, listing(d), err.strip()))
    # Success: every output there, no staging folder or temporary file left beside them.
    d = case("success", lines)
    rc, out, err = lidarsim("calibrate", "data.config", "-o", "cal.yaml", "--view", "views", "--quiet", cwd=d)
    check(rc == 0, "success calibrate: exit %d: %s" % (rc, err.strip()))
    check(listing(d) == ["cal.yaml", "data.config", "views", "wall.txt"], "success: folder %r" % listing(d))
    check(listing(os.path.join(d, "views")) == ["wall_view.png"], "success: views %r" % listing(os.path.join(d, "views")))
    cal = open(os.path.join(d, "cal.yaml")).read() if os.path.exists(os.path.join(d, "cal.yaml")) else ""
    check("lidarsim_calibration:" in cal and "name: wall" in cal, "success: cal.yaml is not a calibration")


def test_signals(wall):
    """Ctrl-C or SIGTERM during validate (and calibrate --view): no staging folder, no temporary file, and the output
    folder the command made is gone; the exit status is the signal's. The signal is sent as soon
    as the staging folder appears, before the (second-long) simulations of the whole wall scan."""
    import signal
    for sig in (signal.SIGINT, signal.SIGTERM):
        d = case("signal_%d" % sig, wall)
        out_dir = os.path.join(d, "out")
        staged, code, _ = signal_when([BINARY, "validate", "data.config", "-o", "out"], sig,
                                      staging_in(out_dir, ".lidarsim-validate."), cwd=d)
        check(staged, "signal %d: validate finished before its staging folder was seen" % sig)
        if staged:
            check(code == -sig, "signal %d: exit status %d" % (sig, code))
            check(listing(d) == ["data.config", "wall.txt"], "signal %d: folder now holds %r, out holds %r" %
                  (sig, listing(d), listing(out_dir)))
    # calibrate --view: the same once its view folder's staging folder appears (the calibration
    # is staged beside cal.yaml); a long recording of eight materials keeps it busy meanwhile.
    for sig in (signal.SIGINT, signal.SIGTERM):
        d = case("signal_calibrate_%d" % sig, wall * 40)
        write(os.path.join(d, "data.config"), "".join("wall%d,./wall.txt,0.457,1.25,ON,0.5,0.0\n" % i
                                                      for i in range(8)))
        views = os.path.join(d, "views")
        staged, code, _ = signal_when([BINARY, "calibrate", "data.config", "-o", "cal.yaml", "--view", "views"], sig,
                                      staging_in(views, ".lidarsim-calibrate."), cwd=d)
        check(staged, "calibrate signal %d: calibrate finished before its staging folder was seen" % sig)
        if staged:
            check(code == -sig, "calibrate signal %d: exit status %d" % (sig, code))
            check(listing(d) == ["data.config", "wall.txt"], "calibrate signal %d: folder now holds %r, views %r" %
                  (sig, listing(d), listing(views)))


def test_full_disk(wall):
    """validate into a full file system (a 16 KiB tmpfs): exit 1, the message names the output's own
    path and the full disk -- not the staging copy, which is gone -- and nothing is left there."""
    d = case("full_disk", wall[:3600])
    tiny = os.path.join(d, "tiny")
    os.makedirs(tiny)
    p = run(["mount", "-t", "tmpfs", "-o", "size=16k", "tmpfs", tiny])
    if p.returncode != 0:
        print("NOTE: full_disk: cannot mount a tmpfs (%s): not checked" % p.stderr.strip())
        return
    try:
        rc, out, err = lidarsim("validate", "data.config", "-o", "tiny/out", "--quiet", cwd=d)
        check(rc == 1, "full_disk: exit %d: %s" % (rc, err.strip()))
        check(("no space left" in err.lower() or "disk space" in err) and ".lidarsim-validate" not in err and
              "tiny/out/" in err,
              "full_disk: the message should name the output in tiny/out/ and the full disk: %r" % err.strip())
        check(listing(tiny) == [], "full_disk: left in the file system: %r" % listing(tiny))
    finally:
        run(["umount", tiny])


def main():
    repo_data.need(WALL)
    wall = [l for l in open(WALL) if l.strip() and not l.startswith("#")]
    check(len(wall) >= 3900, "the wall scan has only %d lines" % len(wall))
    test_partial_revolutions(wall)
    test_degenerate(wall)
    test_unwritable(wall)
    test_half_way(wall)
    test_full_disk(wall)
    test_signals(wall)
    finish("test_calib_outputs", remove=WORK)


if __name__ == "__main__":
    main()
