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
import json
import os
import shutil
import subprocess
import tempfile

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


# ---- calibrate and validate: through the library (lsim_calibrate_run, lsim_validate_run) ----

_BRDFS = {"oren-nayar": 1, "on": 1, "cook-torrance": 2, "ct": 2, "lambertian": 0, "l": 0}
_PROGRESS = {"off": 0, "auto": 1, "lines": 2, "bar": 3}


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


def _path(v, keep):
    if v is None:
        return None
    b = os.fsencode(v) if isinstance(v, os.PathLike) else str(v).encode()
    keep.append(b)
    return b


def _progress(options):
    p = options.pop("progress", None)
    if options.pop("quiet", False) or p is None:
        return 0
    if p not in _PROGRESS:
        raise ValueError("lidarsim: progress=%r is invalid; valid: %s" % (p, ", ".join(_PROGRESS)))
    return _PROGRESS[p]


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
    json and quiet are accepted and change nothing. Every output appears, or none.

    Returns the summary as a dict (what `lidarsim calibrate --json` prints: "sensor", "version",
    "output", "materials": per material its fitted board, BRDF and bins). Raises lidarsim.Error
    (InvalidArgumentError, FileError, ParseError, NotFoundError for "board not found", ...) with
    the library's message naming the file, line or value at fault."""
    from ._core import _Context
    options = dict(_cli_tokens(extra, ("json", "quiet")), **options)
    options.pop("json", None)
    keep = []
    o = _lib.CalibrateOptions()
    _lib.lib.lsim_calibrate_options_init(ctypes.byref(o))
    o.scan_path = _path(options.pop("scan", None), keep)
    o.name = _path(options.pop("name", None), keep)
    o.width_m = _num(options, "width", 0.0)
    o.distance_m = _num(options, "distance", 0.0)
    brdf = options.pop("brdf", None)
    if brdf is not None:
        if str(brdf).lower() not in _BRDFS:
            raise ValueError("lidarsim: brdf=%r is invalid; valid: oren-nayar, cook-torrance, lambertian" % brdf)
        o.brdf = _BRDFS[str(brdf).lower()]
    o.roughness = _num(options, "roughness")
    o.ior = _num(options, "ior")
    o.bin_width_deg = _num(options, "bin_width")
    o.sensor = _path(options.pop("sensor", None), keep)
    o.direction_deg = _num(options, "direction")
    o.window_deg = _num(options, "window")
    seed = options.pop("seed", None)
    if seed is not None:
        o.seed = int(seed)
    o.view_dir = _path(options.pop("view", None), keep)
    o.progress = _progress(options)
    _unknown(options, "calibrate")
    with tempfile.TemporaryDirectory(prefix="lidarsim-calibrate-") as tmp:
        report = os.path.join(tmp, "summary.json")
        o.report = 2  # LSIM_REPORT_JSON
        o.report_path = _path(report, keep)
        ctx = _Context()
        ctx.check(_lib.lib.lsim_calibrate_run(ctx.h, _path(config, keep), _path(output, keep), ctypes.byref(o)))
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
    calibration.yaml, NAME_validation.png and NAME_view.png (all or none). Options, as keywords
    or CLI-style `extra` tokens: bin_width (degrees), seed (default 1), threads (0: all cores),
    holdout (True: calibrate on the even revolutions, compare with the odd ones), progress
    ("off" (default), "auto", "lines", "bar"; quiet is accepted), check (default True).

    Returns {"materials": N, "failed": K, "verdicts": [one line per material, as the CLI prints]}.
    With check, a FAIL verdict raises ValidationFailed (carrying that dict); errors raise
    lidarsim.Error with the library's message."""
    from ._core import _Context
    options = dict(_cli_tokens(extra, ("holdout", "quiet")), **options)
    check = options.pop("check", True)
    keep = []
    o = _lib.ValidateOptions()
    _lib.lib.lsim_validate_options_init(ctypes.byref(o))
    o.bin_width_deg = _num(options, "bin_width")
    seed = options.pop("seed", None)
    if seed is not None:
        o.seed = int(seed)
    threads = options.pop("threads", None)
    if threads is not None:
        o.threads = int(threads)
    holdout = options.pop("holdout", False)
    o.holdout = 1 if holdout not in (False, None, 0, "0") else 0
    o.progress = _progress(options)
    _unknown(options, "validate")
    res = _lib.ValidateResult()
    with tempfile.TemporaryDirectory(prefix="lidarsim-validate-") as tmp:
        report = os.path.join(tmp, "verdicts.txt")
        o.report = 1  # LSIM_REPORT_TEXT
        o.report_path = _path(report, keep)
        ctx = _Context()
        ctx.check(_lib.lib.lsim_validate_run(ctx.h, _path(config, keep), _path(outdir, keep), ctypes.byref(o),
                                             ctypes.byref(res)))
        with open(report) as f:
            verdicts = [line.rstrip("\n") for line in f if line.strip()]
    result = {"materials": int(res.materials), "failed": int(res.failed), "verdicts": verdicts}
    if check and result["failed"]:
        raise ValidationFailed(result)
    return result


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
