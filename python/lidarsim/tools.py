"""Thin wrappers over the `lidarsim` command-line tool for what the C library does not expose.

calibrate, validate, dataset, fit_file and pattern_from_scan exist only in the CLI (src/cli/), not
in include/lidarsim.h: each function here runs the `lidarsim` binary as a subprocess with the
arguments given and raises CLIError (with the tool's stderr) when it fails. (A fit in code, through
the public API, is lidarsim.Fit.)

The binary is found, in order: the environment variable LIDARSIM_BINARY; `lidarsim` next to the
loaded liblidarsim.so (the build tree: build/lidarsim); PREFIX/bin/lidarsim for a library in
PREFIX/lib (the installed layout); then `lidarsim` on PATH.
"""
import ctypes
import os
import shutil
import subprocess
from dataclasses import dataclass

from . import _lib
from ._core import _b, _Context
from ._fit import _STOP, FitResult
from ._lib import lib


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


_PROGRESS = {"off": 0, "auto": 1, "lines": 2, "bar": 3}


def _progress_mode(progress):
    if progress is None or progress is False:
        return 0
    if progress is True:
        return 1
    if progress not in _PROGRESS:
        raise ValueError("lidarsim: progress=%r is invalid; expected one of %s" % (progress, ", ".join(_PROGRESS)))
    return _PROGRESS[progress]


def _legacy_flags(function, extra, known):
    """The CLI-style flags the subprocess versions of these functions passed through (`extra`): those in
    `known` are accepted (flag -> True), anything else raises ValueError naming it."""
    out = {}
    for e in extra:
        flag = os.fspath(e) if isinstance(e, os.PathLike) else str(e)
        if flag not in known:
            raise ValueError("lidarsim.tools.%s: the argument %r is not supported (it runs the library, not the "
                             "binary); accepted: %s" % (function, flag, ", ".join(sorted(known)) or "none"))
        out[known[flag]] = True
    return out


@dataclass
class DatasetStats:
    """What lidarsim.tools.dataset did (lsim_dataset_run_stats): `frames` of the dataset, `mine` the ones
    this shard owns, `done_before` of those already in the manifest, `written` by this call, the noisy
    `points` written, and the wall time in `seconds`."""
    frames: int
    mine: int
    done_before: int
    written: int
    points: int
    seconds: float


def dataset(config, outdir, frames=None, seed=None, shard=None, threads=None, *extra, progress="off",
            stop_after=None, quiet=None):
    """Generate a labelled SemanticKITTI-layout dataset from the dataset config `config` into the folder
    `outdir` (created), as `lidarsim dataset CONFIG -o DIR` does, through the library (lsim_dataset_load,
    lsim_dataset_run; serial: one writer, no MPI). frames: frames in all (default: the config's); seed:
    instead of the config's; shard: "i/n" or (i, n), write only shard i of n; threads: per frame (0 or
    None: all cores); progress: "off" (default), "auto", "lines" or "bar", on stderr; stop_after: return
    after writing that many frames (a later call resumes). A rerun writes only the frames the manifest
    does not list. Returns a DatasetStats; raises lidarsim.Error (ParseError, FileError, ...) with the
    library's message naming the file, line and key at fault. `extra` may hold "--quiet" (ignored:
    nothing is printed but the progress)."""
    _legacy_flags("dataset", extra, {"--quiet": "quiet"})
    o = _lib.DatasetRunOptions()
    lib.lsim_dataset_run_options_init(ctypes.byref(o))
    if frames is not None:
        o.frames = int(frames)
        if o.frames < 1:
            raise ValueError("lidarsim.tools.dataset: frames=%r; give 1 or more" % (frames,))
    if seed is not None:
        o.seed_given, o.seed = 1, int(seed)
    if shard is not None:
        i, n = (shard.split("/") if isinstance(shard, str) else shard)
        o.shard, o.shards = int(i), int(n)
    if threads is not None:
        o.threads = int(threads)
    o.progress = _progress_mode(progress)
    if stop_after is not None:
        o.stop_after = int(stop_after)
    ctx = _Context()
    h = ctypes.c_void_p()
    ctx.check(lib.lsim_dataset_load(ctx.h, _b(config), ctypes.byref(h)))
    try:
        stats = _lib.DatasetRunStats()
        ctx.check(lib.lsim_dataset_run(h, _b(outdir), ctypes.byref(o), ctypes.byref(stats)))
    finally:
        lib.lsim_dataset_destroy(h)
    return DatasetStats(stats.frames, stats.mine, stats.done_before, stats.written, stats.points, stats.seconds)


@dataclass
class FitFileResult:
    """What lidarsim.tools.fit_file did: `result` is the run's lidarsim.FitResult (its `parameters` the
    fitted values by name, in the fit's units: metres, radians, reflectance, bias), `initial` the start
    values by name, `max_iterations` the budget used and `beams` the sensor's beams."""
    result: FitResult
    initial: dict
    max_iterations: int
    beams: int


def fit_file(fit_yaml, output, max_iterations=None, *extra, progress="off", report=False):
    """Fit the parameters the fit file `fit_yaml` names to its real scan and write the scene with the
    fitted values to `output` ("-": standard output), as `lidarsim fit FIT.yaml -o FITTED.yaml` does,
    through the library (lsim_fit_file_run; for a fit in code use lidarsim.Fit). max_iterations:
    1..10000 (default: the fit file's, or 100); progress: "off" (default), "auto", "lines" or "bar"
    (on stdout); report: print the CLI's result table on stdout. `extra` may hold "--quiet" (progress
    and report off). Returns a FitFileResult; raises lidarsim.Error: InvalidArgumentError when output
    is the fit file, its scene or its scan; ParseError "FIT:LINE:COL: KEY: ..." for the fit file's
    content; FileError when a file cannot be read or the output written (nothing is left behind)."""
    flags = _legacy_flags("fit_file", extra, {"--quiet": "quiet"})
    o = _lib.FitFileOptions()
    lib.lsim_fit_file_options_init(ctypes.byref(o))
    if max_iterations is not None:
        o.max_iterations = int(max_iterations)
        if not 1 <= o.max_iterations <= 10000:
            raise ValueError("lidarsim.tools.fit_file: max_iterations=%r; give 1..10000" % (max_iterations,))
    o.progress = 0 if flags.get("quiet") else _progress_mode(progress)
    o.report = 0 if flags.get("quiet") else int(bool(report))
    ctx = _Context()
    r = _lib.FitFileResult()
    ctx.check(lib.lsim_fit_file_run(ctx.h, _b(fit_yaml), _b(output), ctypes.byref(o), ctypes.byref(r)))
    n = int(r.parameter_count)
    names = [r.names[k].value.decode(errors="replace") for k in range(n)]
    f = r.fit
    result = FitResult(f.iterations, f.evaluations, f.initial_loss, f.final_loss, f.rms_residual_m, f.beams_used,
                       f.silhouette_beams, f.bounced_beams, f.unmatched_beams, f.wall_ms, f.lbfgs_status,
                       _STOP.get(f.stop, str(f.stop)), dict(zip(names, (float(r.fitted[k]) for k in range(n)))))
    return FitFileResult(result, dict(zip(names, (float(r.initial[k]) for k in range(n)))), int(r.max_iterations),
                         int(r.beams))


@dataclass
class PatternInfo:
    """What lidarsim.tools.pattern_from_scan found (lsim_pattern_scan_info): the scan's `rows`, the
    pattern's `beams` (points with a return), whether it has time_s / ring columns, the `time_shift_s`
    subtracted from the times, the fitted wall plane (`distance_m`, unit `normal` towards the wall,
    `rms_m` and `max_m` off it), `planar` (rms <= 2 cm) and `distance_matches` (wall_distance not given
    or within 2 cm)."""
    rows: int
    beams: int
    has_time: bool
    has_ring: bool
    time_shift_s: float
    distance_m: float
    normal: tuple
    rms_m: float
    max_m: float
    planar: bool
    distance_matches: bool


def pattern_from_scan(scan, output, wall_distance=None, report=False, warnings=True):
    """Turn a scan of a flat wall in the sensor frame (`scan`: CSV, PCD or PLY with x, y, z) into a
    pattern file `output` (azimuth_deg,elevation_deg[,time_s,ring]), as `lidarsim pattern from-scan`
    does, through the library (lsim_pattern_from_scan). wall_distance: the wall's known distance (m),
    checked against the fitted plane; report: print the CLI's summary on stdout; warnings: print the
    warnings (not planar, wrong distance) on stderr. Returns a PatternInfo; raises lidarsim.Error:
    InvalidArgumentError when output is the scan itself or wall_distance <= 0, ParseError for a
    malformed scan or one without a plane (fewer than 3 points, all on a line), FileError for an
    unreadable scan or an unwritable output (nothing is left behind)."""
    o = _lib.PatternOptions()
    lib.lsim_pattern_options_init(ctypes.byref(o))
    if wall_distance is not None:
        o.wall_distance_m = float(wall_distance)
        if not o.wall_distance_m > 0:
            raise ValueError("lidarsim.tools.pattern_from_scan: wall_distance=%r; give the distance in metres, > 0"
                             % (wall_distance,))
    o.report, o.warnings = int(bool(report)), int(bool(warnings))
    ctx = _Context()
    i = _lib.PatternScanInfo()
    ctx.check(lib.lsim_pattern_from_scan(ctx.h, _b(scan), _b(output), ctypes.byref(o), ctypes.byref(i)))
    return PatternInfo(int(i.rows), int(i.beams), bool(i.has_time), bool(i.has_ring), i.time_shift_s, i.distance_m,
                       tuple(i.normal), i.rms_m, i.max_m, bool(i.planar), bool(i.distance_matches))


def scan(scene_yaml, output, *extra, **options):
    """`lidarsim scan SCENE -o OUT [options]` through the CLI (in code use lidarsim.load + Scene.scan)."""
    return run("scan", scene_yaml, "-o", output, *extra, *_opts(**options))
