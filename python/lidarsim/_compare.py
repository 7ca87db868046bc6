"""lidarsim.compare: the per-beam agreement of two frames of one sensor (lsim_compare_*, what
`lidarsim compare` computes; docs/compare.md)."""
import ctypes

from . import _lib
from ._lib import lib
from ._base import _Context, _b, _c_int, _enum
from ._files import read
from ._points import Points

_MATCH = {"auto": 0, "beam": 1, "direction": 2}
_MATCH_NAMES = {1: "beam", 2: "direction"}
_BAND_EDGES = (0.0, 10.0, 20.0, 40.0, 80.0, None)


def _stats(s):
    d = {n: getattr(s, n) for n in ("both_hit", "real_only", "sim_only", "both_miss", "precision", "recall", "f1")}
    for n in ("range", "intensity", "reflectivity"):
        e = getattr(s, n)
        d[n] = {k: getattr(e, k) for k, _ in e._fields_}
    d["chamfer_m"] = s.chamfer_m
    return d


def compare(real, sim, out=None, match="auto", columns=0, rings=0, metadata=None, real_metadata=None,
            sim_metadata=None, real_frame=None, sim_frame=None):
    """Compare two frames of one sensor beam by beam (lsim_compare_points): `real` and `sim` are
    Points (scene.scan, lidarsim.read) or paths (read with lidarsim.read; a recording with
    `metadata`, or `real_metadata` / `sim_metadata`, and `real_frame` / `sim_frame`). match:
    "auto", "beam" (by ring and column) or "direction"; columns, rings: 0 to infer them. With `out`
    a folder, its report (summary.json, errors.png) is written there, all or nothing. Returns a
    dict: match, rings, columns, tolerance_deg, all (both_hit, real_only, sim_only, both_miss,
    precision, recall, f1, range / intensity / reflectivity as {count, median, median_abs,
    mean_abs, rmse, p95_abs}, chamfer_m), by_ring (a list, one per ring) and by_band (one per range
    band: from_m, to_m, stats). NaN where undefined. Raises InvalidArgumentError for frames of
    different sensors, mismatched beams or a missing ring (docs/compare.md), the readers' errors
    for a path, FileError when the report cannot be written."""
    frames = []
    for pts, meta, frame in ((real, real_metadata or metadata, real_frame), (sim, sim_metadata or metadata, sim_frame)):
        frames.append(pts if isinstance(pts, Points) else read(pts, metadata=meta, frame=frame))
    hr, hs = frames[0]._handle(), frames[1]._handle()
    o = _lib.CompareOptions()
    lib.lsim_compare_options_init(ctypes.byref(o))
    o.match = _enum(_MATCH, match, "match")
    o.columns = _c_int(columns, _lib.i32, "columns")
    o.rings = _c_int(rings, _lib.i32, "rings")
    ctx = _Context()
    h = ctypes.c_void_p()
    ctx.check(lib.lsim_compare_points(ctx.h, hr.h, hs.h, ctypes.byref(o), ctypes.byref(h)))
    try:
        m, r, c, tol = _lib.i32(), _lib.i32(), _lib.i32(), ctypes.c_double()
        ctx.check(lib.lsim_compare_get_layout(h, ctypes.byref(m), ctypes.byref(r), ctypes.byref(c), ctypes.byref(tol)))
        s = _lib.CompareStats()

        def get(group, index):
            ctx.check(lib.lsim_compare_get_stats(h, group, index, ctypes.byref(s)))
            return _stats(s)

        res = {"match": _MATCH_NAMES.get(m.value, "direction"), "rings": r.value, "columns": c.value,
               "tolerance_deg": tol.value, "all": get(0, 0), "by_ring": [get(1, g) for g in range(r.value)],
               "by_band": [{"from_m": _BAND_EDGES[k], "to_m": _BAND_EDGES[k + 1], "stats": get(2, k)}
                           for k in range(5)]}
        if out is not None:
            names = [None if isinstance(x, Points) else _b(x, "path") for x in (real, sim)]
            ctx.check(lib.lsim_compare_write_report(h, _b(out, "out"), names[0], names[1]))
        return res
    finally:
        lib.lsim_compare_destroy(h)
