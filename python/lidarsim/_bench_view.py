"""The benchmarks and the viewer (include/lidarsim.h: lsim_bench_run, lsim_view_run),
re-exported as lidarsim.tools.bench and lidarsim.tools.view."""
import ctypes
import os
import tempfile

from . import _base
from ._lib import BenchOptions, ViewOptions, lib

BENCH_KINDS = ("frame", "blooming", "pulses", "fit", "dataset")  # lsim_bench_kind 0..4
_ENGINES = {"raycast": 0, "embree": 0, "raster": 2}


def bench_options(kind="frame"):
    """The defaults of a `kind` benchmark (lsim_bench_options_init) as a ctypes BenchOptions."""
    if kind not in BENCH_KINDS:
        raise _base.InvalidArgumentError(1, "lidarsim: unknown benchmark '%s' (one of %s)" % (kind, ", ".join(BENCH_KINDS)))
    o = BenchOptions()
    lib.lsim_bench_options_init(ctypes.byref(o), BENCH_KINDS.index(kind))
    return o


def bench(kind="frame", report_path=None, *, threads=None, repeat=None, json=None, progress=None, beams=None,
          triangles=None, engine=None, moving=None, fields=None, noise=None, rings=None, scenes_dir=None,
          baselines_dir=None, config=None, frames=None, program=None, mpi=None):
    """Run one of `lidarsim bench`'s benchmarks in this process (lsim_bench_run) and return its
    report, the text `lidarsim bench` prints (JSON lines with json=True, or a table).

    kind: "frame" (`lidarsim bench`: lidarsim frames vs raw Embree per beam count), "blooming",
    "pulses", "fit" or "dataset". report_path: also keep the report in that file (written
    atomically); "-": print it on standard output and return None; by default it goes through a
    temporary file and is only returned. Options left
    None keep the library's defaults (lsim_bench_options_init): threads (0 = all cores), repeat,
    json, progress ("off", "auto", "lines", "bar"; default "off"), beams (a list of counts,
    each >= 128), triangles, engine ("raycast" or "raster"), moving, fields (point field names or an
    LSIM_FIELD_BIT mask), noise, rings, scenes_dir, baselines_dir, config, frames, program (the
    lidarsim binary the dataset benchmark spawns; default lidarsim.tools.find_binary()) and mpi.
    Raises lidarsim.Error (InvalidArgumentError for an option out of range) with the library's
    message."""
    o = bench_options(kind)
    for name, value in (("threads", threads), ("repeat", repeat), ("triangles", triangles), ("rings", rings),
                        ("frames", frames)):
        if value is not None:
            _base._set_int(o, name, value)
    for name, value in (("json", json), ("moving", moving), ("noise", noise), ("mpi", mpi)):
        if value is not None:
            setattr(o, name, 1 if value else 0)
    if progress is not None:
        o.progress = _base._progress_mode(progress)
    if engine is not None:
        o.engine = _base._enum(_ENGINES, engine, "engine")
    if fields is not None:
        o.fields = _base.fields_mask(fields)
    if beams is not None:
        counts = [int(b) for b in ([beams] if isinstance(beams, int) else beams)]
        if not 1 <= len(counts) <= len(o.beams):
            raise _base.InvalidArgumentError(1, "lidarsim: bench takes 1..%d beam counts, got %d" % (len(o.beams),
                                                                                                  len(counts)))
        for i, b in enumerate(counts):
            if b < 0:
                raise _base.InvalidArgumentError(1, "lidarsim: beam count %d is negative" % b)
            o.beams[i] = _base._c_int(b, ctypes.c_size_t, "beams[%d]" % i)  # 2^64 + 3 would have been 3
        o.beam_count = len(counts)
    keep = []  # the bytes the struct's char pointers point into
    for name, value in (("scenes_dir", scenes_dir), ("baselines_dir", baselines_dir), ("config", config)):
        if value is not None:
            keep.append(_base._b(value, name))
            setattr(o, name, keep[-1])
    if kind == "dataset" or program is not None:
        keep.append(_base._b(program if program is not None else _find_binary(), "program"))
        o.program = keep[-1]
    ctx = _base._Context()
    if report_path == "-":  # standard output, as `lidarsim bench` prints it
        ctx.check(lib.lsim_bench_run(ctx.h, ctypes.byref(o)))
        return None
    if report_path is not None:
        keep.append(_base._b(report_path, "report_path"))
        o.report_path = keep[-1]
        ctx.check(lib.lsim_bench_run(ctx.h, ctypes.byref(o)))
        with open(report_path) as f:
            return f.read()
    with tempfile.TemporaryDirectory(prefix="lidarsim-bench-") as tmp:
        path = os.path.join(tmp, "report.txt")
        o.report_path = _base._b(path)
        keep.append(o.report_path)
        ctx.check(lib.lsim_bench_run(ctx.h, ctypes.byref(o)))
        with open(path) as f:
            return f.read()


def _find_binary():
    from .tools import find_binary
    return find_binary()


def view_options():
    """The viewer's defaults (lsim_view_options_init) as a ctypes ViewOptions."""
    o = ViewOptions()
    lib.lsim_view_options_init(ctypes.byref(o))
    return o


def view(scene, screenshot=None, *, size=None, camera=None, sensor_position=None, sensor_yaw=None, beams=None,
         hide_beams=False, color="intensity", scene_color="label", threads=0, quiet=False):
    """Show `scene` (a scene YAML) in the live viewer (lsim_view_run; `lidarsim view`) until its
    window is closed, or with screenshot=PATH render one frame off-screen into that PNG and return.

    size (width, height) in pixels (default 1280 x 800), camera (eye_x, eye_y, eye_z, target_x,
    target_y, target_z) in metres, sensor_position (x, y, z) and sensor_yaw (degrees) before the
    first scan, beams (beam lines drawn at most; default 5000), hide_beams, color ("intensity" or
    "label": the points), scene_color ("label" or "material": the triangles), threads, quiet (no
    key help, no "wrote FILE" line). Needs a display (DISPLAY; headless: xvfb-run). Raises
    lidarsim.Error with the library's message (no display, the scene's FILE:LINE, ...)."""
    o = view_options()
    keep = [_base._b(scene, "scene (a scene YAML's path)")]
    o.scene = keep[0]
    if screenshot is not None:
        keep.append(_base._b(screenshot, "screenshot"))
        o.screenshot = keep[-1]
    if size is not None:
        _base._set_int(o, "width", size[0], "size")
        _base._set_int(o, "height", size[1], "size")
    if camera is not None:
        c = _base._dvec(camera, 6, "camera")
        o.eye[:] = c[:3].tolist()
        o.target[:] = c[3:].tolist()
        o.has_camera = 1
    if sensor_position is not None:
        o.sensor_position[:] = _base._dvec(sensor_position, 3, "sensor_position").tolist()
        o.has_sensor_position = 1
    if sensor_yaw is not None:
        o.sensor_yaw_deg = float(sensor_yaw)
        o.has_sensor_yaw = 1
    if beams is not None:
        _base._set_int(o, "max_beams", beams, "beams")
    o.hide_beams = 1 if hide_beams else 0
    o.colour_by_label = _base._enum({"intensity": 0, "label": 1}, color, "point colour")
    o.colour_by_material = _base._enum({"label": 0, "material": 1}, scene_color, "scene colour")
    _base._set_int(o, "threads", threads)
    o.quiet = 1 if quiet else 0
    ctx = _base._Context()
    ctx.check(lib.lsim_view_run(ctx.h, ctypes.byref(o)))
