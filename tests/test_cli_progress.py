#!/usr/bin/python3
"""Progress bars: drawn on a terminal for a long run, never on a pipe, silenced by --quiet.

usage: test_cli_progress.py LIDARSIM_BINARY WORK_DIR

`lidarsim scan` of the bundled street scene with --frames N into one MCAP, N large enough that
the frames take more than the bar's one-second delay (doubled until a run on a terminal takes
2 s of wall time). On a pseudo-terminal (python's pty) stderr shows the bar: carriage-return
redraws "scan [###...] k/N frames ... ETA S s" with k rising to N/N, and the line ends before
the summary. With stderr a pipe, the same run writes no "\\r" and no bar. With --quiet on the
terminal: no bar. A one-frame run on the terminal (well under a second) draws nothing.
One long frame (a camera on primitives, wider until a run takes 2.5 s) shows its progress
while it is computed: the bar is redrawn with fractions of the frame ("0.4/1 frames") below the
0.9 that computing the echoes is given, at least three values over at least 0.3 s (before, the
frame's progress came only from writing its points: nothing, then "1/1").
Exits 1 with one line per failed check.
"""
import os
import re

from cli_check import Lidarsim, binary_and_work, check, finish, on_terminal, write

BIN, WORK = binary_and_work()
WORK = os.path.join(WORK, "cli_progress")
os.makedirs(WORK, exist_ok=True)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENE = os.path.join(ROOT, "examples", "street", "street.yaml")
lidarsim = Lidarsim(BIN, WORK, seconds=600)


def on_tty(args, arrivals=None):
    """Run with stdin, stdout and stderr on a new pseudo-terminal: (exit status, output, seconds).
    arrivals (a list): gets (seconds since the start, bytes) of every read."""
    r = on_terminal([BIN] + args, cwd=WORK, seconds=600, arrivals=arrivals)
    return r.returncode, r.stdout, r.seconds


frames, out = 100, ""
while True:
    rc, out, seconds = on_tty(["scan", SCENE, "-o", "frames.mcap", "--frames", str(frames)])
    check(rc == 0, "scan --frames %d on a terminal: exit %d: %s" % (frames, rc, out[-500:]))
    if rc != 0 or "\rscan [" in out or seconds >= 2.0 or frames >= 6400:
        break
    frames *= 2
bars = re.findall(r"\rscan \[([#.]{30})\] (\d+(?:\.\d)?)/(\d+) frames\s+[\d.]+ frames/s\s+ETA (\d+) s", out)
check(len(bars) >= 2, "a terminal run of %d frames (%.1f s) draws a bar with ETA at least twice: %r"
      % (frames, seconds, out[:400]))
if bars:
    done = [float(b[1]) for b in bars]
    check(all(int(b[2]) == frames for b in bars), "the bar counts to %d frames: %s" % (frames, bars[-1]))
    check(done == sorted(done) and done[-1] == frames and bars[-1][0] == "#" * 30,
          "the bar rises to a full %d/%d: %s" % (frames, frames, done))
    check(re.search(r"ETA \d+ s\s*\r?\n\r?lidarsim: vlp16", out) is not None,
          "the bar's line ends before the summary: %r" % out[-300:])

# the same run with stderr on a pipe: no bar, no carriage return
p = lidarsim("scan", SCENE, "-o", "pipe.mcap", "--frames", frames)
check(p.returncode == 0, "scan to a pipe: exit %d: %s" % (p.returncode, p.stderr.strip()))
check("\r" not in p.stderr and "ETA" not in p.stderr and p.stderr == "",
      "a pipe gets no progress (stderr %r)" % p.stderr[:200])
check(os.path.getsize(os.path.join(WORK, "pipe.mcap")) == os.path.getsize(os.path.join(WORK, "frames.mcap")),
      "the run on a pipe writes the same file size as on a terminal")

# --quiet on the terminal: nothing at all
rc, quiet, _ = on_tty(["scan", SCENE, "-o", "quiet.mcap", "--frames", str(frames), "--quiet"])
check(rc == 0 and "\r" not in quiet.replace("\r\n", "\n") and "ETA" not in quiet and quiet.strip() == "",
      "--quiet on a terminal prints nothing: %r" % quiet[:200])

# a short run on the terminal: no bar (it would only flicker)
rc, short, _ = on_tty(["scan", SCENE, "-o", "one.pcd"])
check(rc == 0 and "ETA" not in short and short.count("\n") == 1, "a one-frame run shows no bar: %r" % short[:300])

# one long frame: progress while it is computed. A camera whose width doubles (one thread, 217
# sub-rays a beam) until a run takes 2.5 s, whatever the machine's speed.
LONG = """sensor:
  type: camera
  width: %d
  height: 64
  hfov_deg: 90
  vfov_deg: 60
  range: [0.5, 100]
  position: [0, 0, 1.8]
  beam: {divergence_mrad: 3, mode: rays, rings: 8}
materials:
  ground: {brdf: lambertian, reflectance: 0.2}
  wall: {brdf: lambertian, reflectance: 0.5}
objects:
  - plane: {size: [200, 200]}
    material: ground
  - box: {size: [2, 60, 10]}
    position: [20, 0, 5]
    material: wall
"""
inside, width = [], 32
while True:
    write(os.path.join(WORK, "long.yaml"), LONG % width)
    arrivals = []
    rc, long_out, seconds = on_tty(["scan", "long.yaml", "-o", "long.bin", "--threads", "1"], arrivals)
    check(rc == 0, "scan of one long frame: exit %d: %s" % (rc, long_out[-300:]))
    inside = []  # (arrival, fraction) of the bars drawn while the echoes were computed
    for at, data in arrivals:
        for value in re.findall(r"\] (0\.\d)/1 frames", data.decode("utf-8", "replace")):
            if float(value) < 0.9:
                inside.append((at, float(value)))
    if rc != 0 or seconds >= 2.5 or width >= 65536:
        break
    width *= 2
values = sorted(set(v for _, v in inside))
check(len(values) >= 3 and inside[-1][0] - inside[0][0] >= 0.3,
      "one frame of %d x 64 beams (%.1f s) shows its progress while computed: %s" % (width, seconds, inside[:12]))
check([v for _, v in inside] == sorted(v for _, v in inside), "the frame's progress rises: %s" % inside[:12])
check(re.search(r"\] 1/1 frames", long_out) is not None, "the long frame ends at 1/1: %r" % long_out[-300:])

finish("test_cli_progress", "OK (%d frames, %d bar redraws; one frame: %s)" % (frames, len(bars), values))
