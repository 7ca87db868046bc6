"""Thin wrappers over the `lidarsim` command-line tool for what the C library does not expose.

calibrate, validate, dataset, fit_file and pattern_from_scan exist only in the CLI (src/cli/), not
in include/lidarsim.h: each function here runs the `lidarsim` binary as a subprocess with the
arguments given and raises CLIError (with the tool's stderr) when it fails. (A fit in code, through
the public API, is lidarsim.Fit.)

The binary is found, in order: the environment variable LIDARSIM_BINARY; `lidarsim` next to the
loaded liblidarsim.so (the build tree: build/lidarsim); PREFIX/bin/lidarsim for a library in
PREFIX/lib (the installed layout); then `lidarsim` on PATH.

bench and view (the benchmarks of `lidarsim bench` and the viewer of `lidarsim view`) run in this
process through the public API (lsim_bench_run, lsim_view_run); see their docstrings.
"""
import os
import shutil
import subprocess

from . import _lib


class CLIError(RuntimeError):
    """The lidarsim binary exited with a non-zero status: `returncode`, `args`, `stdout`, `stderr`."""

    def __init__(self, returncode, args, stdout, stderr):
        self.returncode, self.args_list, self.stdout, self.stderr = returncode, args, stdout, stderr
        super().__init__("%s exited with %d: %s" % (" ".join(args[:2]), returncode, (stderr or "").strip()))


def find_binary():
    """The path of the `lidarsim` binary (see the module docstring for the search order); raises
    FileNotFoundError naming LIDARSIM_BINARY when there is none."""
    env = os.environ.get("LIDARSIM_BINARY")
    if env:
        if os.path.isfile(env) and os.access(env, os.X_OK):
            return env
        raise FileNotFoundError("lidarsim: LIDARSIM_BINARY='%s' is not an executable file" % env)
    libdir = os.path.dirname(os.path.abspath(_lib.library_path)) if os.path.sep in _lib.library_path else None
    candidates = []
    if libdir:
        candidates.append(os.path.join(libdir, "lidarsim"))
        parent = os.path.dirname(libdir)
        candidates.append(os.path.join(parent, "bin", "lidarsim"))
        candidates.append(os.path.join(os.path.dirname(parent), "bin", "lidarsim"))  # PREFIX/lib/<multiarch>
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    found = shutil.which("lidarsim")
    if found:
        return found
    raise FileNotFoundError("lidarsim: the `lidarsim` binary was not found (tried %s and PATH); set LIDARSIM_BINARY "
                            "to its path (build/lidarsim after `make build`)" % ", ".join(candidates))


def run(*args, check=True):
    """Run `lidarsim ARGS...` and return the subprocess.CompletedProcess (text output captured);
    with check, a non-zero exit raises CLIError carrying the tool's stderr."""
    argv = [find_binary()] + [os.fspath(a) if isinstance(a, os.PathLike) else str(a) for a in args]
    p = subprocess.run(argv, capture_output=True, text=True)
    if check and p.returncode != 0:
        raise CLIError(p.returncode, argv, p.stdout, p.stderr)
    return p


def _opts(**kw):
    out = []
    for k, v in kw.items():
        if v is None or v is False:
            continue
        out.append("--" + k.replace("_", "-"))
        if v is not True:
            out.append(v)
    return out


def calibrate(config, output, *extra, **options):
    """`lidarsim calibrate CONFIG -o OUTPUT [options]` (CLI only): calibrate materials from real scans.
    Keyword options become --options (bin_width=2 -> --bin-width 2; True -> a flag); `extra` are
    passed as they are. Returns the CompletedProcess."""
    return run("calibrate", config, "-o", output, *extra, *_opts(**options))


def validate(config, outdir, *extra, **options):
    """`lidarsim validate CONFIG -o OUTDIR [options]` (CLI only): calibrate, simulate and compare with
    the real scans. Exit status 3 (a FAIL verdict) raises CLIError unless check=False is passed."""
    check = options.pop("check", True)
    return run("validate", config, "-o", outdir, *extra, *_opts(**options), check=check)


def dataset(config, outdir, frames=None, seed=None, shard=None, threads=None, *extra, **options):
    """`lidarsim dataset CONFIG -o DIR [--frames N] [--seed S] [--shard i/n] [--threads N]` (CLI only):
    generate a labelled SemanticKITTI-layout dataset. Returns the CompletedProcess."""
    return run("dataset", config, "-o", outdir, *extra,
               *_opts(frames=frames, seed=seed, shard=shard, threads=threads, progress="off", **options))


def fit_file(fit_yaml, output, max_iterations=None, *extra):
    """`lidarsim fit FIT.yaml -o FITTED.yaml` (the CLI's fit-file driver; in code use lidarsim.Fit)."""
    return run("fit", fit_yaml, "-o", output, *extra, *_opts(max_iterations=max_iterations))


def pattern_from_scan(scan, output, wall_distance=None):
    """`lidarsim pattern from-scan SCAN -o PATTERN.csv` (CLI only): a pattern file from a wall scan."""
    return run("pattern", "from-scan", scan, "-o", output, *_opts(wall_distance=wall_distance), "--quiet")


def scan(scene_yaml, output, *extra, **options):
    """`lidarsim scan SCENE -o OUT [options]` through the CLI (in code use lidarsim.load + Scene.scan)."""
    return run("scan", scene_yaml, "-o", output, *extra, *_opts(**options))


# section D: bench and view through the library (python/lidarsim/_bench_view.py)
from ._bench_view import bench, bench_options, view, view_options  # noqa: E402,F401
