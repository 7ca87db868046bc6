#!/usr/bin/python3
"""`lidarsim dataset`: the SemanticKITTI tree, shards, threads, resume after SIGKILL, MPI, bad input.

usage: test_cli_dataset.py LIDARSIM_BINARY WORK_DIR
  env LSIM_SOURCE_DIR (the source tree), LSIM_HAVE_MPI (ON: the binary is built with MPI),
      LSIM_DATASET_CONFIG (default examples/dataset/dataset.yaml)

  a  one run (--shard 0/1, 2 threads): the tree's files load with numpy in the SemanticKITTI
     conventions (velodyne float32 x 4, labels uint32 = semantic | instance << 16, poses 3 x 4 a
     line, times a line a frame, calib P0..P3 and Tr, labels.yaml naming every id used,
     dataset.json with config, seed and version); clean row i is noisy row i's twin (same label,
     within 30 cm); per-point times within the frame; poses.txt's first line the identity
  b  --shard 0/2 and 1/2 into two folders: their union equals the 0/1 tree byte for byte (files
     both write are identical), each shard wrote exactly its frames (blocks of a sequence's frames)
  c  --threads 1 and --threads 3 (frames side by side: 3 workers) give the same bytes as 2 threads,
     the manifest's lines included (appended in frame order whatever the threads); --seed changes
     the noisy points
  d  a run killed with SIGKILL mid-way, then rerun: equals an uninterrupted run byte for byte, the
     frames finished before the kill are not rewritten (same inode and mtime), no temporary files
  e  mpirun -n 2 (an MPI build) equals the serial run; a build without MPI refuses to run under mpirun
  g  examples/dataset/shards.sh and mpi.sh (2 shards, 2 ranks) write the same tree
  f  progress: plain lines on a pipe; bad input: --shard 2/2, --shard x, --frames 0, a missing
     config, -o naming a file, unknown option: non-zero exit, a clear message, no tree
Exits 1 with one line per failed check.
"""
import functools
import json
import os
import shutil
import signal
import subprocess
import time

import numpy as np

from cli_check import Lidarsim, binary_and_work, build_flag, check, finish, on_terminal, run, source_dir, write
from dataset_common import CONFIG, manifests, run_dataset, tree
from timeouts import limit

BINARY, WORK = binary_and_work(fresh=True)
SOURCE = source_dir()
FRAMES = 12
MPI = build_flag("LSIM_HAVE_MPI") and shutil.which("mpirun")  # a build with MPI, and mpirun to run it
lidarsim = Lidarsim(BINARY, seconds=600)
dataset = functools.partial(run_dataset, lidarsim, frames=FRAMES)

# a: one run
full = os.path.join(WORK, "full")
r = dataset(full, "--threads", "2")
check(r.returncode == 0, "a: dataset exits 0 (%s)" % r.stderr.strip())
T0 = tree(full) if r.returncode == 0 else {}
print(r.stdout.strip())
if T0:
    info = json.loads(T0["dataset.json"])
    check(info["frames"] == FRAMES and "seed" in info and info["generator"].startswith("lidarsim ")
          and "config" in info and len(info["config"]) > 10, "a: dataset.json has frames, seed, generator, config")
    per = info["frames_per_sequence"]
    names = {}
    for line in T0["labels.yaml"].decode().splitlines():
        s = line.strip()
        if s and s[0].isdigit() and ":" in s:
            k, v = s.split(":", 1)
            names[int(k)] = v.strip()
    check(len(names) > 5 and names.get(10) == "car" and names.get(40) == "road", "a: labels.yaml maps 10 car, 40 road")
    used = set()
    for k in range(FRAMES):
        q, i = divmod(k, per)
        seq = "sequences/%02d/" % q
        v = np.frombuffer(T0[seq + "velodyne/%06d.bin" % i], dtype="<f4").reshape(-1, 4)
        lab = np.frombuffer(T0[seq + "labels/%06d.label" % i], dtype="<u4")
        t = np.frombuffer(T0[seq + "time/%06d.bin" % i], dtype="<f4")
        c = np.frombuffer(T0[seq + "clean/%06d.bin" % i], dtype="<f4").reshape(-1, 4)
        cl = np.frombuffer(T0[seq + "clean/%06d.label" % i], dtype="<u4")
        ct = np.frombuffer(T0[seq + "clean/%06d.time" % i], dtype="<f4")
        n = len(v)
        check(n > 1000 and len(lab) == n and len(t) == n, "a: frame %d: %d points, %d labels, %d times" % (k, n, len(lab), len(t)))
        check(len(c) >= n and len(cl) == len(c) and len(ct) == len(c), "a: frame %d: clean holds the noisy rows" % k)
        check(np.all(np.isfinite(v)) and v[:, 3].min() >= 0 and v[:, 3].max() <= 1, "a: frame %d: finite, reflectance 0..1" % k)
        twin = c[:n]
        ok = np.isfinite(twin[:, 0])
        d = np.linalg.norm(v[ok, :3] - twin[ok, :3], axis=1)
        check(ok.mean() > 0.99 and np.all((lab[ok] & 0xFFFF) == (cl[:n][ok] & 0xFFFF)) and d.max() < 0.3,
              "a: frame %d: clean row i is noisy row i's twin (%.4f matched, worst %.3f m)" % (k, ok.mean(), d.max() if len(d) else -1))
        check(t.min() >= 0 and t.max() < 0.2, "a: frame %d: point times within the frame" % k)
        used |= set(np.unique(lab & 0xFFFF).tolist())
        check(len(np.unique(lab >> 16)) > 3, "a: frame %d: several instances" % k)
    check(used <= set(names), "a: every semantic id used is in labels.yaml (%s)" % sorted(used - set(names)))
    for q in range((FRAMES + per - 1) // per):
        seq = "sequences/%02d/" % q
        count = min(per, FRAMES - q * per)
        poses = np.loadtxt(np.array(T0[seq + "poses.txt"].decode().splitlines()), ndmin=2)
        times = np.loadtxt(np.array(T0[seq + "times.txt"].decode().splitlines()), ndmin=1)
        check(poses.shape == (count, 12) and times.shape == (count,), "a: seq %d: poses %s times %s" % (q, poses.shape, times.shape))
        check(np.allclose(poses[0], [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0]), "a: seq %d: the first pose is the identity" % q)
        R = poses[:, [0, 1, 2, 4, 5, 6, 8, 9, 10]].reshape(-1, 3, 3)
        check(np.allclose(np.einsum("nij,nkj->nik", R, R), np.eye(3), atol=1e-9), "a: seq %d: rotations orthonormal" % q)
        check(np.all(np.diff(times) > 0), "a: seq %d: times increase" % q)
        calib = T0[seq + "calib.txt"].decode()
        check(all(("%s:" % k) in calib for k in ("P0", "P1", "P2", "P3", "Tr")), "a: seq %d: calib.txt keys" % q)

# b: shards
parts = []
for i in (0, 1):
    out = os.path.join(WORK, "shard%d" % i)
    r = dataset(out, "--shard", "%d/2" % i, "--threads", "2")
    check(r.returncode == 0, "b: --shard %d/2 exits 0 (%s)" % (i, r.stderr.strip()))
    parts.append(tree(out) if r.returncode == 0 else {})
if T0 and all(parts):
    union, clash = {}, []
    for p in parts:
        for k, v in p.items():
            if k in union and union[k] != v:
                clash.append(k)
            union[k] = v
    check(not clash, "b: files both shards write are identical (%s)" % clash[:3])
    check(union == T0, "b: the union of 0/2 and 1/2 equals 0/1 (%d vs %d files, %d differ)"
          % (len(union), len(T0), sum(1 for k in T0 if union.get(k) != T0[k])))
    per = json.loads(T0["dataset.json"])["frames_per_sequence"]

    def owner(k, shards):
        """docs/datasets.md: blocks of a sequence's frames dealt out to the shards."""
        sequences = (FRAMES + per - 1) // per
        cut = min(max((4 * shards + sequences - 1) // sequences, 1), per)
        block = (per + cut - 1) // cut
        b = (k // per) * ((per + block - 1) // block) + (k % per) // block
        return b % shards

    for i in (0, 1):
        got = sorted(k for k in parts[i] if "/velodyne/" in k)
        want = sorted("sequences/%02d/velodyne/%06d.bin" % divmod(k, per) for k in range(FRAMES) if owner(k, 2) == i)
        check(got == want and len(got) > 0, "b: shard %d wrote its frames (%d, expected %d)" % (i, len(got), len(want)))

# c: threads and seeds
one = os.path.join(WORK, "threads1")
r = dataset(one, "--threads", "1")
check(r.returncode == 0 and tree(one) == T0, "c: --threads 1 writes the same bytes as 2 threads")
M0 = manifests(full)
check(len(M0) == 1 and len(next(iter(M0.values())).splitlines()) == FRAMES and manifests(one) == M0,
      "c: --threads 1 writes the same manifest as 2 threads (%d lists)" % len(M0))
three = os.path.join(WORK, "threads3")
r = dataset(three, "--threads", "3")
check(r.returncode == 0 and tree(three) == T0 and manifests(three) == M0,
      "c: --threads 3 writes the same bytes and manifest as 2 threads")
other = os.path.join(WORK, "seed")
r = dataset(other, "--seed", "12345", "--frames", "1")
if r.returncode == 0 and T0:
    T = tree(other)
    check(T["sequences/00/velodyne/000000.bin"] != T0["sequences/00/velodyne/000000.bin"], "c: --seed changes the points")

# d: SIGKILL and resume
KILL_FRAMES = 40
ref = os.path.join(WORK, "uninterrupted")
r = dataset(ref, "--threads", "1", frames=KILL_FRAMES)
check(r.returncode == 0, "d: uninterrupted run exits 0 (%s)" % r.stderr.strip())
killed = os.path.join(WORK, "killed")
shutil.rmtree(killed, ignore_errors=True)
p = subprocess.Popen([BINARY, "dataset", CONFIG, "-o", killed, "--frames", str(KILL_FRAMES), "--threads", "1",
                      "--progress", "off"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
manifest = os.path.join(killed, "manifest", "shard-0-of-1.rank-0-of-1.txt")
deadline = time.time() + limit(120)
while time.time() < deadline and p.poll() is None:
    try:
        with open(manifest) as f:
            if f.read().count("\n") >= 3:
                break
    except OSError:
        pass
    time.sleep(0.002)
was_running = p.poll() is None
p.send_signal(signal.SIGKILL)
p.wait()
check(was_running, "d: the run was still going when killed")
with open(manifest) as f:  # whole lines "K NAME:SIZE:CRC ...": the frame number first
    finished = [int(line.split()[0]) for line in f.read().split("\n")[:-1]]
print("killed after %d finished frames" % len(finished))
per = json.loads(T0["dataset.json"])["frames_per_sequence"] if T0 else 10
stamps = {}
for k in finished:
    q, i = divmod(k, per)
    for rel in ("velodyne/%06d.bin", "labels/%06d.label", "clean/%06d.bin"):
        path = os.path.join(killed, "sequences", "%02d" % q, rel % i)
        st = os.stat(path)
        stamps[path] = (st.st_ino, st.st_mtime_ns)
check(finished and len(finished) < KILL_FRAMES, "d: some but not all frames finished before the kill (%d)" % len(finished))
r = lidarsim("dataset", CONFIG, "-o", killed, "--frames", KILL_FRAMES, "--threads", "1", "--progress", "off")
check(r.returncode == 0 and ("%d already done" % len(finished)) in r.stdout,
      "d: the rerun exits 0 and reports the finished frames (%s / %s)" % (r.stdout.strip(), r.stderr.strip()))
check(tree(killed) == tree(ref), "d: killed + resumed equals the uninterrupted run byte for byte")
for path, (ino, mt) in stamps.items():
    st = os.stat(path)
    check(st.st_ino == ino and st.st_mtime_ns == mt, "d: %s was not rewritten" % os.path.relpath(path, killed))
leftovers = [f for d, _, fs in os.walk(killed) for f in fs if ".tmp" in f]
check(not leftovers, "d: no temporary files left (%s)" % leftovers[:3])
with open(manifest) as f:
    listed = [int(line.split()[0]) for line in f.read().split("\n")[:-1]]
check(sorted(listed) == list(range(KILL_FRAMES)), "d: the manifest lists every frame once")

# e: MPI
if MPI:
    mpi = os.path.join(WORK, "mpi")
    shutil.rmtree(mpi, ignore_errors=True)
    r = run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "2", BINARY, "dataset", CONFIG,
             "-o", mpi, "--frames", FRAMES, "--threads", "1", "--progress", "off"], seconds=600)
    check(r.returncode == 0, "e: mpirun -n 2 exits 0 (%s)" % r.stderr.strip()[-500:])
    print(r.stdout.strip())
    check(tree(mpi) == T0, "e: mpirun -n 2 equals the serial run byte for byte")
    lists = sorted(os.listdir(os.path.join(mpi, "manifest")))
    check(lists == ["shard-0-of-1.rank-0-of-2.txt", "shard-0-of-1.rank-1-of-2.txt"], "e: one manifest a rank (%s)" % lists)
elif shutil.which("mpirun"):
    mpi = os.path.join(WORK, "mpi_refused")
    r = run(["mpirun", "--allow-run-as-root", "--oversubscribe", "-n", "2", BINARY, "dataset", CONFIG,
             "-o", mpi, "--frames", "2"], seconds=600)
    check(r.returncode != 0 and "built without MPI" in r.stderr and not os.path.exists(mpi),
          "e: a build without MPI refuses to run under mpirun -n 2 (%s)" % r.stderr.strip()[-300:])
else:
    print("e: skipped (no mpirun)")

# h: classes outside SemanticKITTI keep one id in every sequence (ids by library order, not by
# which entries a sequence happens to place), and the root labels.yaml names them all
custom = write(os.path.join(WORK, "custom.yaml"), """seed: 3
frames: 8
frames_per_sequence: 1
sensor: {preset: urg-04lx, position: [0, 0, 0.5]}
layout: {kind: scatter, extent: [30, 30]}
trajectory: {kind: straight, speed: 1}
library:
  - box: [0.5, 0.5, 1]
    label: bench
    count: [0, 1]
    on: ground
  - box: [0.5, 0.5, 1]
    label: kiosk
    count: [0, 1]
    on: ground
""")
out = os.path.join(WORK, "custom_ds")
r = lidarsim("dataset", custom, "-o", out, "--progress", "off")
check(r.returncode == 0, "h: custom-label dataset exits 0 (%s)" % r.stderr.strip())
if r.returncode == 0:
    maps = set()
    for q in range(8):
        with open(os.path.join(out, "sequences", "%02d" % q, "labels.yaml")) as f:
            maps.add(f.read())
    with open(os.path.join(out, "labels.yaml")) as f:
        root = f.read()
    check(len(maps) == 1 and root in maps and "100: bench" in root and "101: kiosk" in root,
          "h: one label map in every sequence and at the root, bench 100, kiosk 101 (%d maps)" % len(maps))
    r2 = lidarsim("dataset", custom, "-o", out, "--progress", "off", "--seed", "4")
    check(r2.returncode == 1 and "dataset.json" in r2.stderr and "seed" in r2.stderr,
          "h: resuming into a folder of another dataset (--seed 4 over seed 3) is refused naming dataset.json and the seed (%s)"
          % r2.stderr.strip())

# g: the shipped scale-out scripts run as documented (examples/dataset/shards.sh, mpi.sh)
env = dict(os.environ, LIDARSIM=BINARY, CONFIG=CONFIG)
for script, needs_mpi in (("shards.sh", False), ("mpi.sh", True)):
    if needs_mpi and not MPI:
        continue
    out = os.path.join(WORK, "script_" + script)
    shutil.rmtree(out, ignore_errors=True)
    r = run(["sh", os.path.join(SOURCE, "examples", "dataset", script), "2", out, FRAMES], seconds=600, env=env,
            cwd=SOURCE)
    check(r.returncode == 0 and T0 and tree(out) == T0, "g: examples/dataset/%s 2 writes the 0/1 tree (%s)"
          % (script, r.stderr.strip()[-300:]))

# f: progress and bad input
out = os.path.join(WORK, "progress")
r = lidarsim("dataset", CONFIG, "-o", out, "--frames", "2")
check(r.returncode == 0 and "dataset: 2/2 frames" in r.stderr and "\r" not in r.stderr,
      "f: progress on a pipe is plain lines (%r)" % r.stderr[-200:])
out = os.path.join(WORK, "progress_tty")  # a terminal: the bar redraws one line with \r
p = on_terminal([BINARY, "dataset", CONFIG, "-o", out, "--frames", "3"], seconds=600, stdin=False, stdout=False)
text = p.stdout
check(p.returncode == 0 and "\r" in text and "[" in text and "frames/s" in text and "ETA" in text and "3/3 frames" in text,
      "f: on a terminal the progress is a bar redrawn with \\r, with frames/s and ETA (%r)" % text[-200:])
bad = os.path.join(WORK, "bad")
cases = ((["--shard", "2/2"], "--shard"), (["--shard", "x"], "--shard"), (["--frames", "0"], "--frames"),
         (["--frobnicate"], "--frobnicate"))
for extra, needle in cases:
    shutil.rmtree(bad, ignore_errors=True)
    r = lidarsim("dataset", CONFIG, "-o", bad, *extra)
    check(r.returncode == 2 and needle in r.stderr and not os.path.exists(bad),
          "f: %s: usage error naming %s, no tree (%d: %s)" % (extra, needle, r.returncode, r.stderr.strip()))
r = lidarsim("dataset", os.path.join(WORK, "missing.yaml"), "-o", bad)
check(r.returncode == 1 and "missing.yaml" in r.stderr and not os.path.exists(bad),
      "f: a missing config is an error naming it (%s)" % r.stderr.strip())
afile = os.path.join(WORK, "afile")
write(afile, "x")
r = lidarsim("dataset", CONFIG, "-o", afile, "--frames", "1")
check(r.returncode == 1 and "afile" in r.stderr, "f: -o naming a file is an error (%s)" % r.stderr.strip())

finish("test_cli_dataset")
