#!/usr/bin/python3
"""`lidarsim bench` through the command line: small sizes, so it runs in a second.

usage: test_cli_bench.py LIDARSIM_BINARY WORK_DIR

  a  --json: one object per size with every key; every beam of the closed sphere returns, in the
     frame and in raw Embree, so points == beams (noise off, no drop-outs)
  b  --fields and --noise: a frame filling x, y, z and time only still returns every beam
  c  bad options are usage errors (exit 2) naming the option: --fields with an unknown field,
     --noise maybe, --beams 10, --repeat 0, --engine frob, and an unknown option
  d  --engine raster: the same frames through the raster engine (EGL/OpenGL; make test installs
     Mesa) still return every beam; engine is "raster" in the JSON, raycast the default
Timings are printed, never asserted (they depend on the machine).
"""
import json
import os
import shutil

from cli_check import Lidarsim, binary_and_work, build_flag, check, finish, source_dir

BINARY, _ = binary_and_work()
lidarsim = Lidarsim(BINARY, seconds=300)
KEYS = {"engine", "moving", "first_ms", "beams", "triangles", "threads", "raw_embree_ms", "frame_ms", "trace_ms", "shade_ms",
        "noise_ms", "ratio", "points"}


def bench(*args):
    return lidarsim("bench", *args)


def rows(out):
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def main():
    rc, out, err = bench("--beams", "1000,3000", "--triangles", "2000", "--repeat", "2", "--threads", "2", "--json",
                         "--noise", "off")
    check(rc == 0, "a: exit %d: %s" % (rc, err.strip()))
    got = rows(out) if rc == 0 else []
    check(len(got) == 2, "a: %d rows, expected 2" % len(got))
    for r in got:
        check(set(r) == KEYS, "a: keys %s" % sorted(r))
        check(r["beams"] >= 1000 and r["beams"] % 128 == 0, "a: beams %s" % r["beams"])
        check(r["points"] == r["beams"], "a: %s points for %s beams inside a closed sphere" % (r["points"], r["beams"]))
        check(r["threads"] == 2, "a: threads %s" % r["threads"])
        check(r["engine"] == "raycast", "a: engine %s" % r["engine"])
        check(r["frame_ms"] > 0 and r["raw_embree_ms"] > 0, "a: times %s" % r)
        check(abs(r["ratio"] - r["raw_embree_ms"] / r["frame_ms"]) < 1e-2 * max(1.0, r["ratio"]), "a: ratio %s" % r)
        print("a: %d beams: frame %.3f ms, raw Embree %.3f ms" % (r["beams"], r["frame_ms"], r["raw_embree_ms"]))

    rc, out, err = bench("--beams", "2000", "--triangles", "2000", "--repeat", "1", "--json", "--fields",
                         "time,x,y,z", "--noise", "off")
    check(rc == 0, "b: exit %d: %s" % (rc, err.strip()))
    got = rows(out) if rc == 0 else []
    check(len(got) == 1 and got[0]["points"] == got[0]["beams"], "b: %s" % got)

    for args, needle in ((["--fields", "x,colour"], "'colour' is not a point field"),
                         (["--noise", "maybe"], "--noise 'maybe'"),
                         (["--beams", "10"], "--beams '10'"),
                         (["--repeat", "0"], "--repeat '0'"),
                         (["--engine", "frob"], "--engine 'frob'"),
                         (["--frobnicate"], "'--frobnicate'")):
        rc, out, err = bench(*args)
        check(rc == 2, "c: %s: exit %d, expected 2" % (args, rc))
        check(needle in err, "c: %s: message lacks %r: %s" % (args, needle, err.strip()))
        check(out == "", "c: %s: printed %r" % (args, out))

    rc, out, err = bench("--engine", "raster", "--beams", "1000", "--triangles", "2000", "--repeat", "2", "--threads",
                         "2", "--json", "--noise", "off")
    check(rc == 0, "d: exit %d: %s" % (rc, err.strip()))
    got = rows(out) if rc == 0 else []
    check(len(got) == 1, "d: %d rows, expected 1" % len(got))
    for r in got:
        check(set(r) == KEYS, "d: keys %s" % sorted(r))
        check(r["engine"] == "raster", "d: engine %s" % r["engine"])
        check(r["points"] == r["beams"], "d: %s points for %s beams inside a closed sphere" % (r["points"], r["beams"]))
        check(r["first_ms"] > 0 and r["frame_ms"] > 0, "d: times %s" % r)
        print("d: raster %d beams: first frame %.3f ms, later %.3f ms" % (r["beams"], r["first_ms"], r["frame_ms"]))
    rc, out, err = bench("--engine", "raster", "--moving", "--beams", "1000", "--triangles", "2000", "--repeat", "2",
                         "--threads", "2", "--json", "--noise", "off")
    check(rc == 0, "e: exit %d: %s" % (rc, err.strip()))
    got = rows(out) if rc == 0 else []
    check(len(got) == 1, "e: %d rows, expected 1" % len(got))
    for r in got:
        check(r["engine"] == "raster" and r["moving"] is True, "e: engine %s moving %s" % (r["engine"], r["moving"]))
        check(r["points"] == r["beams"], "e: %s points for %s beams inside a closed sphere (moving)" % (r["points"], r["beams"]))
    config = os.path.join(source_dir(), "examples", "dataset", "dataset.yaml")
    rc, out, err = bench("dataset", "--config", config, "--frames", "4")
    check(rc == 0, "f: bench dataset exit %d: %s" % (rc, err.strip()))
    got = rows(out) if rc == 0 else []
    check(len(got) == 1, "f: bench dataset prints one JSON line (%d)" % len(got))
    for r in got:
        check(r["frames"] == 4 and r["serial_1core_s"] > 0 and r["serial_2threads_s"] > 0 and r["shards2_s"] > 0
              and 0 < r["shards2_efficiency"] < 2, "f: bench dataset figures %s" % r)
        mpi = build_flag("LSIM_HAVE_MPI")
        check((r["mpi2_s"] is not None) == (mpi and shutil.which("mpirun") is not None),
              "f: mpi2_s present exactly in an MPI build (%s)" % r["mpi2_s"])
    rc, out, err = bench("dataset", "--frames", "1")
    check(rc == 2 and "--frames" in err, "f: bench dataset --frames 1 is a usage error (%s)" % err.strip())
    finish("test_cli_bench", "OK")


if __name__ == "__main__":
    main()
