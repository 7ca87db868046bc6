#!/usr/bin/python3
"""`mpirun ... lidarsim dataset` as docs/cli.md (the README's Usage until issue 26) writes it (issue 23).

usage: test_cli_mpi.py LIDARSIM_BINARY WORK_DIR   (env LSIM_SOURCE_DIR, LSIM_HAVE_MPI)

  a  docs/cli.md's mpirun line (its Usage synopsis), run as written with K=2 and the example
     dataset, as root too (CI runs as root; OpenMPI refuses root without --allow-run-as-root):
     exit 0, every frame written once, one summary (rank 0's) and no progress from rank 1
  b  an MPI build launched by another MPI's launcher (its environment announces 2 ranks, here
     PMI_SIZE=2 as MPICH's Hydra sets it, but OpenMPI's MPI_Init makes the process a single rank):
     refused, exit 1, naming PMI_SIZE=2 and what to run instead, and writing nothing (it used to
     run as rank 0 of 1: K such processes each wrote every frame, drawing K progress bars)
Skipped (77) when lidarsim is built without MPI (the sanitizer build) or mpirun is missing.
Exits 1 with one line per failed check.
"""
import os
import re
import shutil

from cli_check import Lidarsim, binary_and_work, build_flag, check, finish, run, skip, source_dir

BINARY, WORK = binary_and_work(fresh=True)
SRC = source_dir()
CONFIG = os.path.join(SRC, "examples", "dataset", "dataset.yaml")
FRAMES = 6
lidarsim = Lidarsim(BINARY, WORK, seconds=300)


def frames_written(out):
    """The frame files under OUT/sequences/*/velodyne (any points format)."""
    found = []
    for root, _, files in os.walk(os.path.join(out, "sequences")):
        if os.path.basename(root) == "velodyne":
            found += files
    return len(found)


def readme_mpirun_line():
    for line in open(os.path.join(SRC, "docs", "cli.md"), encoding="utf-8"):
        if line.startswith("mpirun "):
            return line.split("#")[0].strip()
    return None


def test_readme_line():
    line = readme_mpirun_line()
    if not check(line is not None, "docs/cli.md has no line starting with `mpirun `"):
        return
    out = os.path.join(WORK, "readme")
    cmd = line.replace(" -n K ", " -n 2 ").replace("CONFIG.yaml", CONFIG).replace("-o DIR", "-o " + out)
    cmd = cmd.replace("...", "--frames %d --threads 1 --progress lines" % FRAMES)
    cmd = re.sub(r"(^|\s)lidarsim(\s)", r"\1%s\2" % BINARY, cmd, count=1)
    print("README line, as run:", cmd)
    p = run(["bash", "-c", cmd], cwd=WORK, seconds=300)
    if not check(p.returncode == 0, "the README's mpirun line (uid %d): exit %d: %s"
                 % (os.getuid(), p.returncode, p.stderr.strip()[-1500:])):
        return
    check(frames_written(out) == FRAMES, "mpirun -n 2: %d frame files, expected %d" % (frames_written(out), FRAMES))
    summaries = [l for l in p.stderr.splitlines() + p.stdout.splitlines() if l.startswith("lidarsim dataset: ")]
    check(len(summaries) == 1, "one summary (rank 0's), got %d: %r" % (len(summaries), summaries))
    progress = [l for l in p.stderr.splitlines() if re.match(r"^dataset: \d+/\d+ frames", l)]
    totals = {re.match(r"^dataset: \d+/(\d+) frames", l).group(1) for l in progress}
    check(len(totals) <= 1, "progress lines of more than one rank (totals %s): %r" % (sorted(totals), progress))


def test_foreign_launcher():
    out = os.path.join(WORK, "foreign")
    env = dict(os.environ, PMI_SIZE="2")
    for v in ("OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMIX_RANK", "OMPI_COMM_WORLD_RANK", "MPI_LOCALNRANKS"):
        env.pop(v, None)
    p = lidarsim("dataset", CONFIG, "-o", out, "--frames", "2", "--progress", "lines", env=env)
    check(p.returncode == 1, "PMI_SIZE=2 without its launcher: exit %d (expected 1): %s"
          % (p.returncode, p.stderr.strip()[-500:]))
    check("PMI_SIZE=2" in p.stderr and "OpenMPI's mpirun" in p.stderr and "--shard" in p.stderr,
          "the refusal names PMI_SIZE=2, OpenMPI's mpirun and --shard: %r" % p.stderr.strip())
    check(not os.path.exists(out), "the refused run wrote %s" % out)


def main():
    if not build_flag("LSIM_HAVE_MPI"):
        skip("test_cli_mpi", "lidarsim is built without MPI (LSIM_HAVE_MPI=%s)" % os.environ.get("LSIM_HAVE_MPI"))
    if not shutil.which("mpirun"):
        skip("test_cli_mpi", "no mpirun (Debian: openmpi-bin; make check-deps)")
    test_readme_line()
    test_foreign_launcher()
    finish("test_cli_mpi")


if __name__ == "__main__":
    main()
