#!/usr/bin/python3
"""`lidarsim compare REAL SIM -o DIR` on the repository's real Ouster recordings (data/).

usage: test_cli_compare.py LIDARSIM_BINARY WORK_DIR

The OS-1-128 drive's frame 0 against itself (one --metadata for both) is exact: every beam
matched by (ring, column) on the 128 x 1024 grid, F1 1, every error 0, Chamfer 0. Frame 0 against
frame 1 (the car has moved): matching by beam and by direction pair the same beams (the
recording's beam azimuths and elevations), with the ray-drop and range figures measured when this
test was written. Frames of different sensors (the OS-0-32 recording against the OS-1-128 one),
bad arguments and a report folder that is a file fail with a clear message and leave nothing
behind. Exits 1 with one line per failed check.
"""
import os

from cli_check import Lidarsim, binary_and_work, check, finish, fresh_dir, read_json, write
from repo_data import DATA, need

BIN, WORK = binary_and_work()
WORK = fresh_dir(WORK, "cli_compare")
lidarsim = Lidarsim(BIN)
REC = os.path.join(DATA, "ouster-recordings")
PCAP = need(os.path.join(REC, "OS-1-128_v2.3.0_1024x10_lb_n3.pcap"))
META = need(os.path.join(REC, "OS-1-128_v2.3.0_1024x10.json"))
PCAP32 = need(os.path.join(REC, "OS-0-32-U1_v2.2.0_1024x10.pcap"))
META32 = need(os.path.join(REC, "OS-0-32-U1_v2.2.0_1024x10.json"))


def run(*args):
    return lidarsim("compare", *args)


def summary(out):
    return read_json(os.path.join(out, "summary.json"))


# frame 0 against itself
out = os.path.join(WORK, "self")
r = run(PCAP, PCAP, "--metadata", META, "-o", out)
check(r.returncode == 0, "self compare exits 0: %s" % r.stderr)
if r.returncode == 0:
    s = summary(out)
    a = s["all"]
    check((s["match"], s["rings"], s["columns"]) == ("beam", 128, 1024), "self: 128 x 1024 by beam: %s" % s["match"])
    check(a["f1"] == 1 and a["real_only"] == 0 and a["sim_only"] == 0, "self: F1 1: %s" % a)
    check(a["both_hit"] + a["both_miss"] == 128 * 1024, "self: every beam hit or missed by both")
    check(a["both_hit"] > 100000, "self: most beams returned (%d)" % a["both_hit"])
    for key in ("range_m", "intensity", "reflectivity"):
        check(a[key]["count"] == a["both_hit"] and a[key]["rmse"] == 0 and a[key]["p95_abs"] == 0,
              "self: %s error 0: %s" % (key, a[key]))
    check(a["chamfer_m"] == 0, "self: Chamfer 0")
    check(len(s["by_ring"]) == 128 and len(s["by_band"]) == 5, "self: 128 rings, 5 bands")
    check(sum(b["stats"]["both_hit"] for b in s["by_band"]) == a["both_hit"], "self: the bands partition the hits")
    check(os.path.getsize(os.path.join(out, "errors.png")) > 1000, "self: errors.png written")
    check(os.path.getsize(os.path.join(out, "range_images.png")) > 10000, "self: range_images.png written")
    check(sorted(os.listdir(out)) == ["errors.png", "range_images.png", "summary.json"],
          "self: nothing else left: %s" % os.listdir(out))

# frame 0 against frame 1, by beam and by direction
res = {}
for match in ("beam", "direction"):
    out = os.path.join(WORK, "f01_" + match)
    r = run(PCAP, PCAP, "--metadata", META, "--sim-frame", "1", "--match", match, "-o", out)
    check(r.returncode == 0, "frame 0 vs 1 by %s exits 0: %s" % (match, r.stderr))
    if r.returncode == 0:
        res[match] = summary(out)["all"]
        print(match, r.stdout.strip().replace("\n", " |"))
if len(res) == 2:
    b, d = res["beam"], res["direction"]
    check(all(b[k] == d[k] for k in ("both_hit", "real_only", "sim_only")),
          "beam and direction matching pair the same beams: %s / %s" % (b, d))
    # measured when written (issue 25): F1 0.9647, median |dr| 8.8 cm, the car moved ~1 m between frames
    check(0.95 < b["f1"] < 0.98, "frame 0 vs 1: F1 %.4f, measured 0.9647" % b["f1"])
    check(0.05 < b["range_m"]["median_abs"] < 0.15, "frame 0 vs 1: median |dr| %.3f m, measured 0.088"
          % b["range_m"]["median_abs"])
    check(0.05 < b["chamfer_m"] < 0.2, "frame 0 vs 1: Chamfer %.3f m, measured 0.120" % b["chamfer_m"])

# bad inputs: nothing written
out = os.path.join(WORK, "bad")
r = run(PCAP, PCAP32, "--real-metadata", META, "--sim-metadata", META32, "-o", out)
check(r.returncode == 1 and "different sensors" in r.stderr and "128 rings" in r.stderr,
      "OS-1-128 vs OS-0-32: different sensors: %s" % r.stderr.strip())
check(not os.path.exists(out), "a failed compare leaves no report folder")
r = run(PCAP, PCAP, "--metadata", META, "--columns", "512", "-o", out)
check(r.returncode == 1 and "share a beam" in r.stderr, "--columns 512: mismatched beams: %s" % r.stderr.strip())
r = run(PCAP, "-o", out)
check(r.returncode == 2 and "REAL SIM" in r.stderr, "one frame: usage error: %s" % r.stderr.strip())
r = run(PCAP, PCAP, "--metadata", META)
check(r.returncode == 2 and "-o" in r.stderr, "no -o: usage error")
r = run(PCAP, PCAP, "--match", "nearest", "-o", out)
check(r.returncode == 2 and "auto, beam or direction" in r.stderr, "--match nearest: usage error")
r = run(PCAP, PCAP, "-o", out)
check(r.returncode == 1 and "metadata" in r.stderr, "an Ouster pcap without --metadata: %s" % r.stderr.strip())
check(not os.path.exists(out), "failed runs leave no report folder")
afile = os.path.join(WORK, "afile")
write(afile, "")
r = run(PCAP, PCAP, "--metadata", META, "-o", afile)
check(r.returncode == 1 and afile in r.stderr, "a report folder that is a file: %s" % r.stderr.strip())
check(os.path.isfile(afile) and os.path.getsize(afile) == 0, "the file is left as it was")
r = lidarsim("compare", "--help", seconds=30)
check(r.returncode == 0 and "--real-metadata" in r.stdout, "compare --help")

finish("test_cli_compare")
