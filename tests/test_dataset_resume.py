#!/usr/bin/python3
"""`lidarsim dataset` resumes from what is on disk, not from the manifest alone (issue 23).

usage: test_dataset_resume.py LIDARSIM_BINARY WORK_DIR

  a  the manifest lists each frame with its files' sizes and CRC-32s: a line per frame, its six
     files named, each size the file's and each CRC zlib's
  b  a frame file deleted, one emptied, one changed in place (same size): the rerun writes those
     three frames again, says so (stdout "3 redone", stderr naming the first frame), and the tree
     equals the first run's byte for byte; the untouched frame is not rewritten (same inode, mtime)
  c  a line of an older lidarsim (the frame number alone) is not trusted: that frame is written again
  d  temporary names left by a killed run ("NAME.tmp.XXXXXX" of the tree's files) are removed by
     the rerun, and said so; the user's files that only look alike stay: other names, 5 or 7
     letters, a folder, a symbolic link, a file in a folder that is not the tree's
  e  with another writer running in the folder (a shared lock on OUT/manifest held, as every writer
     holds it), a --shard 0/2 rerun removes the temporary names of its own frames only
  f  a trajectory that leaves the layout (a circle 40 m wide over a 6 m ground) writes frames with
     no points: exit 0, but a warning on stderr naming the count and the first frame, "empty" in
     the summary
Exits 1 with one line per failed check.
"""
import fcntl
import os
import shutil
import zlib

from cli_check import Lidarsim, binary_and_work, check, finish, read_bytes, write
from dataset_common import tree

BINARY, WORK = binary_and_work(fresh=True)
lidarsim = Lidarsim(BINARY, seconds=60)

CONFIG = """seed: 3
frames: 4
frames_per_sequence: 2
sensor: {preset: urg-04lx, position: [0, 0, 0.5]}
layout: {kind: scatter, extent: [6, 6]}
trajectory: {kind: %s}
library:
  - box: [0.5, 0.5, 1]
    label: car
    count: [4, 4]
    on: ground
"""
FILES = ("velodyne/%06d.bin", "labels/%06d.label", "time/%06d.bin", "clean/%06d.bin", "clean/%06d.label",
         "clean/%06d.time")


def run(*args):
    return lidarsim("dataset", *args, "--progress", "off")


def frame_path(out, k, rel):
    q, i = divmod(k, 2)
    return os.path.join(out, "sequences", "%02d" % q, rel % i)


config = write(os.path.join(WORK, "ds.yaml"), CONFIG % "straight, speed: 1")
ref = os.path.join(WORK, "ref")
r = run(config, "-o", ref, "--threads", "1")
check(r.returncode == 0, "first run exits 0 (%s)" % r.stderr.strip())
T0 = tree(ref)
manifest = os.path.join(ref, "manifest", "shard-0-of-1.rank-0-of-1.txt")

# a: the manifest's lines
lines = open(manifest).read().splitlines()
check(len(lines) == 4, "a: 4 manifest lines (%d)" % len(lines))
for line in lines:
    tok = line.split()
    k = int(tok[0])
    want = []
    for rel in FILES:
        data = read_bytes(frame_path(ref, k, rel))
        want.append("%s:%d:%08x" % (rel % (k % 2), len(data), zlib.crc32(data)))
    check(tok[1:] == want, "a: frame %d's line lists its files, sizes and CRC-32s (%s, want %s)" % (k, tok[1:], want))

# b: damaged frames are written again
work = os.path.join(WORK, "damaged")
shutil.copytree(ref, work)
os.remove(frame_path(work, 1, FILES[0]))                        # deleted
write(frame_path(work, 2, FILES[1]), b"")               # emptied
p = frame_path(work, 3, FILES[5])                               # changed, same size
data = bytearray(read_bytes(p))
data[0] ^= 0x40
write(p, bytes(data))
kept = frame_path(work, 0, FILES[0])
before = os.stat(kept)
r = run(config, "-o", work, "--threads", "1")
check(r.returncode == 0 and "1 already done; 3 redone" in r.stdout and "3 written now" in r.stdout,
      "b: the rerun writes the 3 damaged frames again (%s)" % r.stdout.strip())
check("3 frames listed in the manifest" in r.stderr and "first frame 1" in r.stderr and "written again" in r.stderr,
      "b: and says so on stderr, naming the first (%s)" % r.stderr.strip())
check(tree(work) == T0, "b: the tree equals the first run's byte for byte")
after = os.stat(kept)
check((after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns), "b: the whole frame 0 is not rewritten")
r = run(config, "-o", work, "--threads", "1")
check(r.returncode == 0 and "0 written now, 4 already done)" in r.stdout and not r.stderr,
      "b: a second rerun has nothing to do (%s / %s)" % (r.stdout.strip(), r.stderr.strip()))

# c: an older lidarsim's line
work = os.path.join(WORK, "old")
shutil.copytree(ref, work)
m = os.path.join(work, "manifest", "shard-0-of-1.rank-0-of-1.txt")
lines = open(m).read().splitlines()
write(m, "0\n" + "".join(l + "\n" for l in lines if not l.startswith("0 ")))
r = run(config, "-o", work, "--threads", "1")
check(r.returncode == 0 and "1 written now, 3 already done; 1 redone" in r.stdout and tree(work) == T0,
      "c: a frame listed by number alone is written again (%s / %s)" % (r.stdout.strip(), r.stderr.strip()))

# d: leftovers of a killed run
work = os.path.join(WORK, "leftovers")
shutil.copytree(ref, work)
ours = ["sequences/00/velodyne/000001.bin.tmp.AbC123", "sequences/01/clean/000000.time.tmp.zz9ZZ9",
        "sequences/00/calib.txt.tmp.Qw3rty", "dataset.json.tmp.000000", "labels.yaml.tmp.aaaaaa"]
theirs = ["sequences/00/velodyne/notes.bin.tmp.AbC123", "sequences/00/velodyne/000001.bin.tmp.AbC12",
          "sequences/00/velodyne/000001.bin.tmp.AbC1234", "sequences/00/velodyne/000001.bin.tmp.Ab-123",
          "sequences/00/velodyne/000001.label.tmp.AbC123", "sequences/00/mine.txt.tmp.AbC123",
          "mydata.tmp.ABCDEF", "other/000000.bin.tmp.ABCDEF", "sequences/xx/calib.txt.tmp.ABCDEF"]
for rel in ours + theirs:
    write(os.path.join(work, rel), "x")
os.makedirs(os.path.join(work, "sequences/00/velodyne/000000.bin.tmp.Folder"))
os.symlink("../../../mydata.tmp.ABCDEF", os.path.join(work, "sequences/00/velodyne/000000.bin.tmp.SymLnk"))
r = run(config, "-o", work, "--threads", "1")
check(r.returncode == 0 and "removed 5 temporary files" in r.stderr,
      "d: the rerun removes the 5 temporary files and says so (%s)" % r.stderr.strip())
left = [rel for rel in ours if os.path.lexists(os.path.join(work, rel))]
check(not left, "d: lidarsim's temporary names are gone (%s)" % left)
gone = [rel for rel in theirs if not os.path.exists(os.path.join(work, rel))]
check(not gone, "d: the user's look-alike files stay (%s gone)" % gone)
check(os.path.isdir(os.path.join(work, "sequences/00/velodyne/000000.bin.tmp.Folder")) and
      os.path.islink(os.path.join(work, "sequences/00/velodyne/000000.bin.tmp.SymLnk")),
      "d: a folder and a symbolic link with such names stay")

# e: another writer runs: only this writer's frames
work = os.path.join(WORK, "shared")
r = run(config, "-o", work, "--threads", "1", "--shard", "0/2")
check(r.returncode == 0, "e: --shard 0/2 exits 0 (%s)" % r.stderr.strip())
mine = [frame_path(work, k, FILES[0]) + ".tmp.Mine00" for k in (0, 2)]  # 2 sequences of 2: block = 1 frame
other = [frame_path(work, k, FILES[0]) + ".tmp.Other0" for k in (1, 3)] + \
        [os.path.join(work, "sequences", "00", "poses.txt.tmp.Other0")]
for p in mine + other:
    write(p, "x")
lock = os.open(os.path.join(work, "manifest"), os.O_RDONLY)
fcntl.flock(lock, fcntl.LOCK_SH)
r = run(config, "-o", work, "--threads", "1", "--shard", "0/2")
os.close(lock)
check(r.returncode == 0 and "removed 2 temporary files" in r.stderr
      and not any(os.path.exists(p) for p in mine) and all(os.path.exists(p) for p in other),
      "e: beside another writer, only the temporary files of its own frames are removed (%s; left %s)"
      % (r.stderr.strip(), [os.path.basename(p) for p in mine + other if os.path.exists(p)]))

# f: a trajectory that leaves the layout
away = write(os.path.join(WORK, "away.yaml"), CONFIG % "circle, radius: 40, speed: 5")
out = os.path.join(WORK, "away")
r = run(away, "-o", out, "--threads", "1")
check(r.returncode == 0 and "warning: 4 frames have no points, the first frame 0" in r.stderr
      and "trajectory leave the layout" in r.stderr and "4 empty" in r.stdout,
      "f: empty frames are warned about (%s / %s)" % (r.stdout.strip(), r.stderr.strip()))
r = run(config, "-o", os.path.join(WORK, "fine"), "--threads", "1")
check(r.returncode == 0 and "no points" not in r.stderr and "empty" not in r.stdout,
      "f: no warning when every frame has points (%s)" % r.stderr.strip())

finish("test_dataset_resume")
