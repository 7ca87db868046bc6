"""calibrate, validate, dataset, fit_file and pattern_from_scan: the commands of the `lidarsim` tool as
calls into the library (lsim_calibrate_run, lsim_validate_run, lsim_dataset_load/run,
lsim_fit_file_run, lsim_pattern_from_scan of include/lidarsim.h), raising lidarsim.Error with the
library's message. (A fit in code is lidarsim.Fit.)

`run` still runs the `lidarsim` binary as a subprocess (raising CLIError with its stderr), for
what only the command line does (e.g. `mpirun -n K lidarsim dataset`). The binary is found, in
order: the environment variable LIDARSIM_BINARY; `lidarsim` next to the loaded liblidarsim.so (the
build tree: build/lidarsim); PREFIX/bin/lidarsim for a library in PREFIX/lib (the installed layout);
then `lidarsim` on PATH.

bench and view (the benchmarks of `lidarsim bench` and the viewer of `lidarsim view`) run in this
process through the public API (lsim_bench_run, lsim_view_run); see their docstrings.
"""
import contextlib
import ctypes
import json
import os
import signal
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass

from . import _lib
from ._base import _b, _Context, _format, _progress_mode, _set_int
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
    argv = [find_binary()] + [os.fspath(a) if isinstance(a, (bytes, os.PathLike)) else str(a) for a in args]
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


# ---- calibrate and validate: through the library (lsim_calibrate_run, lsim_validate_run) ----

@contextlib.contextmanager
def _termination_after_run():
    """SIGTERM and SIGHUP that arrive during a calibrate or validate run take effect once the run has
    put every output in place or none (their default would end the process half-way, leaving the
    run's staging folder): while their action is the default, in the main thread, they are held as
    Python holds SIGINT (KeyboardInterrupt comes after the call) and sent again afterwards."""
    held, old = [], {}
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGHUP):
            if signal.getsignal(sig) == signal.SIG_DFL:
                old[sig] = signal.signal(sig, lambda number, frame: held.append(number))
    try:
        yield
    finally:
        for sig, action in old.items():
            signal.signal(sig, action)
        for sig in held:
            os.kill(os.getpid(), sig)


def _cli_tokens(extra, flags):
    """CLI-style tokens ("--bin-width", "3", "--json", "--seed=4") as keyword options."""
    out, tokens = {}, [os.fspath(t) if isinstance(t, os.PathLike) else str(t) for t in extra]
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if not tok.startswith("--") or len(tok) < 3:
            raise ValueError("lidarsim: unexpected argument %r; give options as --name VALUE or keywords" % tok)
        key, eq, val = tok[2:].partition("=")
        key = key.replace("-", "_")
        if not eq:
            if key in flags:
                val = True
            elif i + 1 < len(tokens):
                i += 1
                val = tokens[i]
            else:
                raise ValueError("lidarsim: option %s needs a value" % tok)
        out[key] = val
        i += 1
    return out


def _num(options, key, default=float("nan")):
    v = options.pop(key, None)
    return default if v is None else float(v)


def _path(v, keep, what="a path or name"):
    if v is None:
        return None
    b = _b(v, what)
    keep.append(b)
    return b


def _progress(options):
    p = options.pop("progress", None)
    return 0 if options.pop("quiet", False) else _progress_mode(p)


def _unknown(options, what):
    if options:
        raise TypeError("lidarsim.tools.%s: unknown option(s) %s" % (what, ", ".join(sorted(options))))


def calibrate(config, output, *extra, **options):
    """Calibrate materials from real scans of benchmark boards (`lidarsim calibrate`, through the
    library's lsim_calibrate_run): `config` is the thesis's data.config or a YAML file (None for
    the one-material form: scan=FILE, name=NAME, width=W metres, and optionally distance=D,
    brdf="oren-nayar"|"cook-torrance"|"lambertian", roughness, ior); `output` the calibration
    file to write (YAML; None: none). Options, as keywords or CLI-style `extra` tokens
    ("--bin-width", "3"): bin_width (degrees), sensor, direction, window (degrees), seed,
    view (a folder for NAME_view.png), progress ("off" (default), "auto", "lines", "bar");
    json and quiet are accepted and change nothing. Every output appears, or none; a SIGTERM or
    SIGHUP during the run ends the process once it is over (see _termination_after_run).

    Returns the summary as a dict (what `lidarsim calibrate --json` prints: "sensor", "version",
    "output", "materials": per material its fitted board, BRDF and bins). Raises lidarsim.Error
    (InvalidArgumentError, FileError, ParseError, NotFoundError for "board not found", ...) with
    the library's message naming the file, line or value at fault."""
    from ._base import _Context
    options = dict(_cli_tokens(extra, ("json", "quiet")), **options)
    options.pop("json", None)
    keep = []
    o = _lib.CalibrateOptions()
    _lib.lib.lsim_calibrate_options_init(ctypes.byref(o))
    o.scan_path = _path(options.pop("scan", None), keep, "scan")
    o.name = _path(options.pop("name", None), keep, "name")
    o.width_m = _num(options, "width", 0.0)
    o.distance_m = _num(options, "distance", 0.0)
    brdf = options.pop("brdf", None)
    if brdf is not None:
        kind = ctypes.c_int()
        if not _lib.lib.lsim_calibration_brdf_parse(str(brdf).encode(), ctypes.byref(kind)):
            raise ValueError("lidarsim: brdf=%r is invalid; valid: oren-nayar (ON), cook-torrance (CT), "
                             "lambertian (L)" % brdf)
        o.brdf = kind.value
    o.roughness = _num(options, "roughness")
    o.ior = _num(options, "ior")
    o.bin_width_deg = _num(options, "bin_width")
    o.sensor = _path(options.pop("sensor", None), keep, "sensor")
    o.direction_deg = _num(options, "direction")
    o.window_deg = _num(options, "window")
    seed = options.pop("seed", None)
    if seed is not None:
        _set_int(o, "seed", seed)
    o.view_dir = _path(options.pop("view", None), keep, "view")
    o.progress = _progress(options)
    _unknown(options, "calibrate")
    config, output = _path(config, keep, "config"), _path(output, keep, "output")
    # the signals held around the temporary folder too, so that it is gone before they take effect
    with _termination_after_run(), tempfile.TemporaryDirectory(prefix="lidarsim-calibrate-") as tmp:
        report = os.path.join(tmp, "summary.json")
        o.report = 2  # LSIM_REPORT_JSON
        o.report_path = _path(report, keep)
        ctx = _Context()
        st = _lib.lib.lsim_calibrate_run(ctx.h, config, output, ctypes.byref(o))
        ctx.check(st)
        with open(report) as f:
            return json.load(f)


class ValidationFailed(RuntimeError):
    """validate(check=True) found a FAIL verdict: `result` is validate's dict (its "verdicts")."""

    def __init__(self, result):
        self.result = result
        super().__init__("lidarsim validate: %d of %d material(s) FAIL:\n%s" % (
            result["failed"], result["materials"], "\n".join(result["verdicts"])))


def validate(config, outdir, *extra, **options):
    """Validate the calibration of `config`'s materials (`lidarsim validate`, through the library's
    lsim_validate_run): calibrate each from its real scan, simulate the setup with the calibration
    and with a BRDF-only model, compare per incidence bin, and write outdir/validation.csv,
    calibration.yaml, NAME_validation.png and NAME_view.png (all or none; a SIGTERM or SIGHUP
    during the run ends the process once it is over). Options, as keywords
    or CLI-style `extra` tokens: bin_width (degrees), seed (default 1), threads (0: all cores),
    holdout (True: calibrate on the even revolutions, compare with the odd ones), progress
    ("off" (default), "auto", "lines", "bar"; quiet is accepted), check (default True).

    Returns {"materials": N, "failed": K, "verdicts": [one line per material, as the CLI prints]}.
    With check, a FAIL verdict raises ValidationFailed (carrying that dict); errors raise
    lidarsim.Error with the library's message."""
    from ._base import _Context
    options = dict(_cli_tokens(extra, ("holdout", "quiet")), **options)
    check = options.pop("check", True)
    keep = []
    o = _lib.ValidateOptions()
    _lib.lib.lsim_validate_options_init(ctypes.byref(o))
    o.bin_width_deg = _num(options, "bin_width")
    seed = options.pop("seed", None)
    if seed is not None:
        _set_int(o, "seed", seed)
    threads = options.pop("threads", None)
    if threads is not None:
        _set_int(o, "threads", threads)
    holdout = options.pop("holdout", False)
    o.holdout = 1 if holdout not in (False, None, 0, "0") else 0
    o.progress = _progress(options)
    _unknown(options, "validate")
    config, outdir = _path(config, keep, "config"), _path(outdir, keep, "outdir")
    res = _lib.ValidateResult()
    # the signals held around the temporary folder too, so that it is gone before they take effect
    with _termination_after_run(), tempfile.TemporaryDirectory(prefix="lidarsim-validate-") as tmp:
        report = os.path.join(tmp, "verdicts.txt")
        o.report = 1  # LSIM_REPORT_TEXT
        o.report_path = _path(report, keep)
        ctx = _Context()
        st = _lib.lib.lsim_validate_run(ctx.h, config, outdir, ctypes.byref(o),
                                        ctypes.byref(res))
        ctx.check(st)
        with open(report) as f:
            verdicts = [line.rstrip("\n") for line in f if line.strip()]
    result = {"materials": int(res.materials), "failed": int(res.failed), "verdicts": verdicts}
    if check and result["failed"]:
        raise ValidationFailed(result)
    return result


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
            stop_after=None, quiet=None, points_format=None):
    """Generate a labelled SemanticKITTI-layout dataset from the dataset config `config` into the folder
    `outdir` (created), as `lidarsim dataset CONFIG -o DIR` does, through the library (lsim_dataset_load,
    lsim_dataset_run; serial: one writer, no MPI). frames: frames in all (default: the config's); seed:
    instead of the config's; shard: "i/n" or (i, n), write only shard i of n; threads: per frame (0 or
    None: all cores); progress: "off" (default), "auto", "lines" or "bar", on stderr; stop_after: return
    after writing that many frames (a later call resumes); points_format: "pcd", "ply", "las" or "csv",
    also write each frame's noisy points as sequences/SS/points/NNNNNN.EXT with every field the format
    holds (instead of the config's `points_format`; None: the config's, none without one). A rerun
    writes only the frames the manifest does not list (and is refused for another points format). Returns a DatasetStats; raises lidarsim.Error (ParseError, FileError, ...) with the
    library's message naming the file, line and key at fault. `extra` may hold "--quiet" (ignored:
    nothing is printed but the progress)."""
    _legacy_flags("dataset", extra, {"--quiet": "quiet"})
    o = _lib.DatasetRunOptions()
    lib.lsim_dataset_run_options_init(ctypes.byref(o))
    if frames is not None:
        _set_int(o, "frames", frames)
        if o.frames < 1:
            raise ValueError("lidarsim.tools.dataset: frames=%r; give 1 or more" % (frames,))
    if seed is not None:
        _set_int(o, "seed", seed)
        o.seed_given = 1
    if shard is not None:
        i, n = (shard.split("/") if isinstance(shard, str) else shard)
        _set_int(o, "shard", i)
        _set_int(o, "shards", n)
    if threads is not None:
        _set_int(o, "threads", threads)
    o.progress = _progress_mode(progress)
    if stop_after is not None:
        _set_int(o, "stop_after", stop_after)
    if points_format is not None:
        if points_format not in ("pcd", "ply", "las", "csv"):
            raise ValueError("lidarsim.tools.dataset: points_format=%r; give \"pcd\", \"ply\", \"las\" or \"csv\" "
                             "(None: the config's)" % (points_format,))
        o.points_format = _format(points_format)
    ctx = _Context()
    h = _lib.DatasetHandle()
    config, outdir = _b(config, "config"), _b(outdir, "outdir")
    ctx.check(lib.lsim_dataset_load(ctx.h, config, ctypes.byref(h)))
    try:
        stats = _lib.DatasetRunStats()
        ctx.check(lib.lsim_dataset_run(h, outdir, ctypes.byref(o), ctypes.byref(stats)))
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
        if not 1 <= int(max_iterations) <= 10000:
            raise ValueError("lidarsim.tools.fit_file: max_iterations=%r; give 1..10000" % (max_iterations,))
        o.max_iterations = int(max_iterations)
    o.progress = 0 if flags.get("quiet") else _progress_mode(progress)
    o.report = 0 if flags.get("quiet") else int(bool(report))
    ctx = _Context()
    r = _lib.FitFileResult()
    ctx.check(lib.lsim_fit_file_run(ctx.h, _b(fit_yaml, "fit_yaml"), _b(output, "output"), ctypes.byref(o),
                                    ctypes.byref(r)))
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
    InvalidArgumentError when output is the scan itself, ValueError for wall_distance <= 0, ParseError for a
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
    ctx.check(lib.lsim_pattern_from_scan(ctx.h, _b(scan, "scan"), _b(output, "output"), ctypes.byref(o),
                                         ctypes.byref(i)))
    return PatternInfo(int(i.rows), int(i.beams), bool(i.has_time), bool(i.has_ring), i.time_shift_s, i.distance_m,
                       tuple(i.normal), i.rms_m, i.max_m, bool(i.planar), bool(i.distance_matches))


def scan(scene_yaml, output, *extra, **options):
    """`lidarsim scan -o OUT [options] -- SCENE` through the CLI (in code use lidarsim.load +
    Scene.scan): `extra` are CLI tokens ("--frames", "3") and `options` keywords (frames=3); the
    scene goes after "--" and the output as -o's value, so a file named like an option
    ("--version", "-h") is still that file."""
    return run("scan", "-o", output, *extra, *_opts(**options), "--", scene_yaml)


# bench and view through the library (python/lidarsim/_bench_view.py)
from ._bench_view import bench, bench_options, view, view_options  # noqa: E402,F401
