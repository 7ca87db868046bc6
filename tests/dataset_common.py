"""What the dataset tests (test_cli_dataset.py, test_cli_dataset_points.py) share: the config they
run, a run of `lidarsim dataset` into a fresh tree, and a tree's files."""
import os
import shutil

from cli_check import source_dir

# LSIM_DATASET_CONFIG, or the shipped example.
CONFIG = os.environ.get("LSIM_DATASET_CONFIG", os.path.join(source_dir(), "examples", "dataset", "dataset.yaml"))


def run_dataset(lidarsim, out, *extra, frames, config=CONFIG, fresh=True):
    """`lidarsim dataset CONFIG -o OUT --frames N --progress off EXTRA...` (a Ran); OUT is removed
    first unless fresh=False. A test binds its own: functools.partial(run_dataset, lidarsim, frames=N)."""
    if fresh and os.path.exists(out):
        shutil.rmtree(out)
    return lidarsim("dataset", config, "-o", out, "--frames", str(frames), "--progress", "off", *extra)


def tree(root):
    """{relative path: bytes} of every file of a dataset tree but the manifest (whose line order
    depends on which writer finished first)."""
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            rel = os.path.relpath(p, root)
            if not rel.startswith("manifest"):
                with open(p, "rb") as fp:
                    out[rel] = fp.read()
    return out


def manifests(root):
    """{file name: bytes} of a tree's manifest/ folder: one list per writer, its lines in frame
    order whatever the thread count."""
    d = os.path.join(root, "manifest")
    out = {}
    for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        with open(os.path.join(d, f), "rb") as fp:
            out[f] = fp.read()
    return out
