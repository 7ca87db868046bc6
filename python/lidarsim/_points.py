"""Scanned frames as numpy structured arrays (Points) over the library's lsim_points handles,
and reusable point buffers."""
import ctypes

import numpy as np

from . import _lib
from ._lib import lib
from ._base import (_Context, _FIELD_INDEX, _b, _c_int, _dp, _format, _handle_of, StateError, field_dtype,
                    fields_mask)


# ------------------------------------------------------------------------------------ points

class _Buffer:
    """An lsim_points handle with a generation count (bumped by each scan into it)."""

    def __init__(self, handle, ctx):
        self.h = handle
        self.ctx = ctx
        self.generation = 0

    def __del__(self, _destroy=lib.lsim_points_destroy):
        h = getattr(self, "h", None)
        if h:
            _destroy(h)
            self.h = None


class PointBuffer:
    """A reusable point buffer (lsim_points_create) for multi-frame scanning: pass it as
    scene.scan(sensor, into=buffer) and each frame is scanned into it (lsim_scene_scan_into), with
    no allocation once the first frame has sized it. A Points array from an earlier frame of the
    same buffer keeps its values but can no longer be written with lidarsim.write (StateError)."""

    def __init__(self):
        ctx = _Context()
        h = _lib.PointsHandle()
        ctx.check(lib.lsim_points_create(ctx.h, ctypes.byref(h)))
        self._buf = _Buffer(h, ctx)


class Points(np.ndarray):
    """One scanned frame: a numpy structured array (one row per point, one named column per field,
    e.g. pts["x"], pts["label"]; dtype lidarsim.field_dtype) that also keeps the library's
    lsim_points handle, so it can be written with lidarsim.write / Points.write and its stats and
    sensor pose read. Indexing (pts[:10], pts["x"], pts[mask]) gives plain numpy arrays.
    Read-only: write() and lidarsim.render() write the values the library holds, so a change made
    here would be silently left out of the file; change a copy (np.array(pts), pts.array.copy())."""

    def __new__(cls, array, buf):
        obj = np.asarray(array).view(cls)
        obj._buf = buf
        obj._gen = buf.generation
        return obj

    def __array_finalize__(self, obj):
        self._buf = None
        self._gen = None

    def __getitem__(self, key):
        r = super().__getitem__(key)
        return r.view(np.ndarray) if isinstance(r, Points) else r

    def __reduce__(self):
        return self.view(np.ndarray).__reduce__()

    @property
    def array(self):
        """The points as a plain numpy structured array (a read-only view, no copy)."""
        return self.view(np.ndarray)

    def _handle(self):
        if self._buf is None:
            raise TypeError("lidarsim: this array is not a scanned frame (a slice or copy of one); write the "
                            "Points that scene.scan() returned")
        if self._gen != self._buf.generation:
            raise StateError(7, "lidarsim: the point buffer of this frame was scanned into again; its handle now "
                                "holds a later frame (write each frame before scanning the next)")
        return self._buf

    @property
    def fields(self):
        """The field names these points hold (the dtype's names)."""
        return self.dtype.names

    @property
    def sensor_pose(self):
        """The sensor's pose at the frame start: x y z qw qx qy qz."""
        b = self._handle()
        out = np.zeros(7)
        b.ctx.check(lib.lsim_points_sensor_pose(b.h, _dp(out)))
        return out

    @property
    def stats(self):
        """The scan's statistics (rays, hits, beams_returned, *_ms timings) as a dict."""
        b = self._handle()
        s = _lib.ScanStats()
        b.ctx.check(lib.lsim_points_get_stats(b.h, ctypes.byref(s)))
        return {n: getattr(s, n) for n, _ in s._fields_}

    def write(self, path, format=None, fields=None):
        """Write the frame to `path` (lsim_points_write, atomically): format from the extension
        (.pcd .ply .bin .csv) or "pcd", "pcd-ascii", "ply", "kitti", "csv"; `fields` (names or mask)
        limits the columns (lsim_points_write_fields). Returns path."""
        b = self._handle()
        fmt = _format(format)
        if fields is None:
            st = lib.lsim_points_write(b.h, _b(path, "path"), fmt)
        else:
            st = lib.lsim_points_write_fields(b.h, _b(path, "path"), fmt, fields_mask(fields))
        b.ctx.check(st)
        return path

    def write_recording(self, sensor, path, ouster_profile=None, frame_index=0):
        """The frame as `sensor`'s own UDP packets in a pcap (lsim_points_write_recording; docs/
        formats.md "pcap out"): an Ouster's, with its metadata JSON beside it (X.json for X.pcap), in
        `ouster_profile` ("RNG19_RFL8_SIG16_NIR16" when None, "LEGACY", "RNG15_RFL8_NIR8",
        "RNG19_RFL8_SIG16_NIR16_DUAL"), or a Velodyne VLP-16's, HDL-32E's or HDL-64E's. `sensor` is
        the one these points were scanned with. Returns path."""
        from ._sensor import Sensor
        b = self._handle()
        sh = _handle_of(sensor, Sensor, "sensor", "lidarsim.Points.write_recording")
        profile = None if ouster_profile is None else _b(ouster_profile, "ouster_profile")
        st = lib.lsim_points_write_recording(b.h, sh, _b(path, "path"), profile,
                                             _c_int(frame_index, ctypes.c_uint32, "frame_index"))
        b.ctx.check(st, sensor._ctx)
        return path

    def write_birdseye(self, path, pixels=1024, half_extent_m=50.0):
        """A bird's-eye figure coloured by intensity: `pixels` x `pixels` cells (16..8192) covering
        +-half_extent_m around the sensor, with axes in metres and a colour bar (cells of several
        pixels under 400)."""
        b = self._handle()
        b.ctx.check(lib.lsim_points_write_birdseye(b.h, _b(path, "path"), _c_int(pixels, _lib.i32, "pixels"),
                                                   float(half_extent_m)))
        return path

    def write_range_image(self, path, pixels_per_degree=10.0):
        """A figure over azimuth x elevation coloured by range, `pixels_per_degree` cells a degree,
        with axes in degrees and a colour bar (a plot under 400 x 200 pixels scaled up)."""
        b = self._handle()
        b.ctx.check(lib.lsim_points_write_range_image(b.h, _b(path, "path"), float(pixels_per_degree)))
        return path


def _to_array(buf):
    """The structured array of an lsim_points handle: one copy of each column into it."""
    h = buf.h
    n = int(lib.lsim_points_count(h))
    mask = int(lib.lsim_points_fields(h))
    dtype = field_dtype(mask)
    arr = np.empty(n, dtype=dtype)
    if n:
        for name in dtype.names:
            f = _FIELD_INDEX[name]
            ptr = lib.lsim_points_column(h, f)
            if not ptr:
                raise StateError(7, "lidarsim: the points hold no column '%s' though their field mask has it" % name)
            t = dtype.fields[name][0]
            col = np.frombuffer((ctypes.c_char * (n * t.itemsize)).from_address(ptr), dtype=t, count=n)
            arr[name] = col
    arr.flags.writeable = False  # the frame's values as its handle holds them, which write() writes
    return arr


def write(points, path, format=None, fields=None):
    """Write a scanned frame (the Points that scene.scan returned) to `path` through
    lsim_points_write: format from the extension or "pcd", "pcd-ascii", "ply", "kitti", "csv";
    `fields` limits the columns. Returns path."""
    if not isinstance(points, Points):
        raise TypeError("lidarsim.write: expected the Points that scene.scan() returned, got %s"
                        % type(points).__name__)
    return points.write(path, format=format, fields=fields)
