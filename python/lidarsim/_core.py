"""Scenes, sensors, scans and point clouds over the public C API (include/lidarsim.h)."""
import ctypes
import os

import numpy as np

from . import _lib
from ._lib import lib

# ------------------------------------------------------------------------------------ errors


class Error(RuntimeError):
    """A lidarsim call failed: `status` is the lsim_status code (int), `status_name` its name and
    `message` the library's last-error text (lsim_context_last_error), which names the file, line,
    key or value at fault. str(error) is the message."""

    def __init__(self, status, message):
        self.status = int(status)
        self.status_name = (lib.lsim_status_string(self.status) or b"").decode(errors="replace")
        self.message = message
        super().__init__(message or self.status_name)


class InvalidArgumentError(Error, ValueError):
    """LSIM_ERR_INVALID_ARGUMENT: a value passed in is out of range or missing."""


class FileError(Error, OSError):
    """LSIM_ERR_IO: a file could not be read or written."""

    def __str__(self):
        return self.message or self.status_name


class ParseError(Error):
    """LSIM_ERR_PARSE: a file's content is malformed (FILE:LINE in the message)."""


class OutOfMemoryError(Error, MemoryError):
    """LSIM_ERR_OUT_OF_MEMORY."""


class EngineError(Error):
    """LSIM_ERR_ENGINE: the ray-casting engine failed."""


class NotFoundError(Error, LookupError):
    """LSIM_ERR_NOT_FOUND: a named preset, material, file, object or field does not exist."""


class StateError(Error):
    """LSIM_ERR_STATE: a call made in the wrong order (e.g. label ids after objects), or a Points
    object whose buffer was scanned into again."""


_ERRORS = {1: InvalidArgumentError, 2: FileError, 3: ParseError, 4: OutOfMemoryError, 5: EngineError,
           6: NotFoundError, 7: StateError}


def _raise(status, message):
    raise _ERRORS.get(int(status), Error)(status, message)


def _b(s):
    if s is None:
        return None
    if isinstance(s, bytes):
        return s
    return os.fsencode(s) if isinstance(s, os.PathLike) else str(s).encode()


def _dvec(v, n, what):
    a = np.ascontiguousarray(v, dtype=np.float64).reshape(-1)
    if a.size != n:
        raise ValueError("lidarsim: %s needs %d numbers, got %d" % (what, n, a.size))
    return a


def _dp(a):
    return a.ctypes.data_as(_lib.c_double_p) if a is not None else None


class _Context:
    """An lsim_context: owns the last-error text of the handles made from it."""

    def __init__(self):
        h = ctypes.c_void_p()
        st = lib.lsim_context_create(ctypes.byref(h))
        if st:
            _raise(st, "cannot create a lidarsim context (out of memory)")
        self.h = h

    def check(self, st, *others):
        """Raise the Error of status `st` with this context's message (or another context's)."""
        if st:
            msg = (lib.lsim_context_last_error(self.h) or b"").decode(errors="replace")
            for o in others:
                if not msg and o is not None:
                    msg = (lib.lsim_context_last_error(o.h) or b"").decode(errors="replace")
            _raise(st, msg)

    def set_import_limits(self, seconds=0.0, memory_bytes=0.0):
        self.check(lib.lsim_context_set_import_limits(self.h, float(seconds), float(memory_bytes)))

    def __del__(self, _destroy=lib.lsim_context_destroy):
        h = getattr(self, "h", None)
        if h:
            _destroy(h)
            self.h = None


# ------------------------------------------------------------------------------------ fields

def _field_table():
    out = []
    f = 0
    while True:
        name = lib.lsim_field_name(f)
        if name is None:
            break
        out.append((name.decode(), {0: np.dtype(np.float32), 1: np.dtype(np.uint16),
                                    2: np.dtype(np.uint32)}[lib.lsim_field_get_type(f)]))
        f += 1
    return out


_FIELDS = _field_table()
#: The point fields, in the library's order (the CSV header's order): names, as lsim_field_name gives them.
FIELD_NAMES = tuple(n for n, _ in _FIELDS)
_FIELD_INDEX = {n: i for i, n in enumerate(FIELD_NAMES)}
FIELDS_ALL = (1 << len(FIELD_NAMES)) - 1


def field_dtype(fields=None):
    """The numpy structured dtype of points holding `fields` (names or an LSIM_FIELD_BIT mask; None:
    every field), in the library's field order, each with lsim_field_get_type's type
    (float32, uint16 or uint32)."""
    mask = fields_mask(fields)
    return np.dtype([(n, t) for i, (n, t) in enumerate(_FIELDS) if mask & (1 << i)])


def fields_mask(fields):
    """An LSIM_FIELD_BIT mask from field names (an iterable of str or a comma-separated str), an int
    mask (returned as is) or None (every field)."""
    if fields is None:
        return FIELDS_ALL
    if isinstance(fields, (int, np.integer)):
        return int(fields)
    if isinstance(fields, str):
        fields = [f.strip() for f in fields.split(",") if f.strip()]
    mask = 0
    for name in fields:
        if name not in _FIELD_INDEX:
            raise NotFoundError(6, "lidarsim: unknown point field '%s' (fields: %s)" % (name, ", ".join(FIELD_NAMES)))
        mask |= 1 << _FIELD_INDEX[name]
    return mask


_FORMATS = {None: 0, "auto": 0}


def _format(fmt):
    if isinstance(fmt, int):
        return fmt
    if fmt in _FORMATS:
        return _FORMATS[fmt]
    out = ctypes.c_int()
    st = lib.lsim_format_parse(_b(fmt), ctypes.byref(out))
    if st:
        _raise(st, "lidarsim: unknown format '%s' (pcd, pcd-ascii, ply, kitti, csv, las, mcap)" % fmt)
    return out.value


def format_fields(fmt):
    """The field names a file format writes (lsim_format_fields): KITTI's fixed layout, else every field."""
    return _mask_names(lib.lsim_format_fields(_format(fmt)))


def _mask_names(mask):
    return tuple(n for i, n in enumerate(FIELD_NAMES) if mask & (1 << i))


# ------------------------------------------------------------------------------------ sensor

_NOISE_MODELS = {"constant": 0, "snr": 1}
_BEAM_MODES = {"single": 0, "rays": 1, "kernel": 2}
_RETURNS = {"first": 0, "strongest": 1, "last": 2, "dual": 3, "all": 4}


def _enum(table, value, what):
    if isinstance(value, int):
        return value
    key = str(value).lower().replace("-", "_")
    if key not in table:
        raise InvalidArgumentError(1, "lidarsim: unknown %s '%s' (one of %s)" % (what, value, ", ".join(table)))
    return table[key]


def preset_names():
    """Names of the built-in sensor presets (lsim_sensor_preset_names)."""
    arr = lib.lsim_sensor_preset_names()
    out, i = [], 0
    while arr[i] is not None:
        out.append(arr[i].decode())
        i += 1
    return out


def preset_description(name):
    """One-line description of a preset, or None if there is no such preset."""
    d = lib.lsim_sensor_preset_description(_b(name))
    return d.decode() if d is not None else None


class Sensor:
    """A lidar or time-of-flight sensor (lsim_sensor). Make one with Sensor.preset(name),
    Sensor.from_calibration(path), Sensor.rotating/planar/camera/pattern, or lidarsim.load().
    Angles are in degrees, lengths in metres, times in seconds."""

    def __init__(self, _handle, _ctx):
        self._h = _handle
        self._ctx = _ctx

    @classmethod
    def _make(cls, fn, *args, ctx=None):
        ctx = ctx or _Context()
        h = ctypes.c_void_p()
        ctx.check(fn(ctx.h, *args, ctypes.byref(h)))
        return cls(h, ctx)

    def describe(self):
        """The sensor's key numbers as text, one "key: value" line each (lsim_sensor_describe), as
        `lidarsim presets NAME` prints them."""
        n = lib.lsim_sensor_describe(self._h, None, 0)
        buf = ctypes.create_string_buffer(n + 1)
        lib.lsim_sensor_describe(self._h, buf, n + 1)
        return buf.value.decode()

    @classmethod
    def preset(cls, name):
        """A built-in preset by name (see lidarsim.preset_names()), e.g. "vlp16"."""
        return cls._make(lib.lsim_sensor_create_preset, _b(name))

    @classmethod
    def from_calibration(cls, path):
        """A real unit from its calibration file (Ouster metadata JSON, Velodyne JSON/YAML/XML)."""
        return cls._make(lib.lsim_sensor_create_calibrated, _b(path))

    @classmethod
    def rotating(cls, elevations_deg, columns, rate_hz=10.0):
        """A rotating multi-channel lidar: one channel per elevation, `columns` firings per revolution."""
        el = np.ascontiguousarray(elevations_deg, dtype=np.float64).reshape(-1)
        return cls._make(lib.lsim_sensor_create_rotating, int(el.size), _dp(el), int(columns), float(rate_hz))

    @classmethod
    def planar(cls, fov_deg, steps, rate_hz=10.0):
        """A planar (2-D) scanner: `steps` beams evenly over `fov_deg` in the sensor's xy plane."""
        return cls._make(lib.lsim_sensor_create_planar, float(fov_deg), int(steps), float(rate_hz))

    @classmethod
    def camera(cls, width, height, hfov_deg, vfov_deg, rate_hz=10.0):
        """A time-of-flight camera (pinhole), one beam per pixel."""
        return cls._make(lib.lsim_sensor_create_camera, int(width), int(height), float(hfov_deg), float(vfov_deg),
                         float(rate_hz))

    @classmethod
    def pattern(cls, azimuth_deg, elevation_deg, time_s=None, ring=None):
        """An arbitrary beam table fired in row order (time_s and ring optional: then all 0)."""
        az = np.ascontiguousarray(azimuth_deg, dtype=np.float64).reshape(-1)
        el = np.ascontiguousarray(elevation_deg, dtype=np.float64).reshape(-1)
        if el.size != az.size:
            raise ValueError("lidarsim: azimuth and elevation differ in length (%d, %d)" % (az.size, el.size))
        t = None if time_s is None else _dvec(time_s, az.size, "time_s")
        r = None if ring is None else np.ascontiguousarray(ring, dtype=np.uint16).reshape(-1)
        if r is not None and r.size != az.size:
            raise ValueError("lidarsim: ring needs %d values, got %d" % (az.size, r.size))
        return cls._make(lib.lsim_sensor_create_pattern, az.size, _dp(az), _dp(el), _dp(t),
                         r.ctypes.data_as(_lib.c_uint16_p) if r is not None else None)

    def __del__(self, _destroy=lib.lsim_sensor_destroy):
        h = getattr(self, "_h", None)
        if h:
            _destroy(h)
            self._h = None

    def _check(self, st):
        self._ctx.check(st)
        return self

    @property
    def name(self):
        """The sensor's name (its preset's, or the kind it was made as)."""
        return lib.lsim_sensor_name(self._h).decode()

    def __len__(self):
        return int(lib.lsim_sensor_beam_count(self._h))

    @property
    def beam_count(self):
        """Beams per frame."""
        return len(self)

    def __repr__(self):
        return "<lidarsim.Sensor %s, %d beams>" % (self.name, len(self))

    def set_pose(self, position, rpy_deg=(0.0, 0.0, 0.0)):
        """Place the sensor: position (x, y, z) in metres, rotation (roll, pitch, yaw) in degrees."""
        p, r = _dvec(position, 3, "position"), _dvec(rpy_deg, 3, "rpy_deg")
        return self._check(lib.lsim_sensor_set_pose(self._h, _dp(p), _dp(r)))

    def set_motion(self, velocity=None, rpy_rate_deg_s=None):
        """Constant motion from the set_pose pose at t = 0: velocity (m/s, world), roll/pitch/yaw rates (deg/s)."""
        v = None if velocity is None else _dvec(velocity, 3, "velocity")
        w = None if rpy_rate_deg_s is None else _dvec(rpy_rate_deg_s, 3, "rpy_rate_deg_s")
        return self._check(lib.lsim_sensor_set_motion(self._h, _dp(v), _dp(w)))

    def set_trajectory(self, t, positions, rpy_deg):
        """A keyframed trajectory of the body the sensor is mounted on: times t (N), positions (N, 3),
        roll/pitch/yaw (N, 3) in degrees. An empty t removes it."""
        t = np.ascontiguousarray(t, dtype=np.float64).reshape(-1)
        p = _dvec(positions, 3 * t.size, "positions")
        r = _dvec(rpy_deg, 3 * t.size, "rpy_deg")
        return self._check(lib.lsim_sensor_set_trajectory(self._h, t.size, _dp(t), _dp(p), _dp(r)))

    def pose_at(self, t=0.0):
        """The sensor's pose at time t on the scene clock: array x y z qw qx qy qz (sensor -> world)."""
        out = np.zeros(7)
        self._check(lib.lsim_sensor_get_pose_at(self._h, float(t), _dp(out)))
        return out

    def set_range(self, min_m, max_m):
        """Minimum and maximum range, metres."""
        return self._check(lib.lsim_sensor_set_range(self._h, float(min_m), float(max_m)))

    def get_range(self):
        """(min_m, max_m, resolution_m)."""
        v = [ctypes.c_double() for _ in range(3)]
        self._check(lib.lsim_sensor_get_range(self._h, *[ctypes.byref(x) for x in v]))
        return tuple(x.value for x in v)

    def set_range_resolution(self, resolution_m):
        """Measured ranges become whole multiples of this (metres, 0: continuous)."""
        return self._check(lib.lsim_sensor_set_range_resolution(self._h, float(resolution_m)))

    def set_noise(self, range_sigma_m, intensity_sigma, detection_reflectance):
        """Range noise std (m), relative intensity noise std, reflectance just detected at max range."""
        return self._check(lib.lsim_sensor_set_noise(self._h, float(range_sigma_m), float(intensity_sigma),
                                                     float(detection_reflectance)))

    def get_noise(self):
        """(range_sigma_m, intensity_sigma, detection_reflectance)."""
        v = [ctypes.c_double() for _ in range(3)]
        self._check(lib.lsim_sensor_get_noise(self._h, *[ctypes.byref(x) for x in v]))
        return tuple(x.value for x in v)

    def set_noise_model(self, kind, snr_at_threshold=10.0):
        """Noise model: "constant" or "snr" (with the SNR at the detection threshold, 1..1000)."""
        return self._check(lib.lsim_sensor_set_noise_model(self._h, _enum(_NOISE_MODELS, kind, "noise model"),
                                                           float(snr_at_threshold)))

    def set_beam(self, divergence_mrad, mode="single", rings=0):
        """Beam divergence (mrad) and mode: "single", "rays" (1 + rings rings of sub-rays) or "kernel"."""
        return self._check(lib.lsim_sensor_set_beam(self._h, float(divergence_mrad),
                                                    _enum(_BEAM_MODES, mode, "beam mode"), int(rings)))

    def set_kernel(self, core_fwhm_deg=0.0, halo_level=0.0, halo_extent_deg=0.0, kernel_file=None, algorithm=1,
                   range_bin_m=0.0):
        """Kernel-mode beam: a parametric kernel or a kernel file; algorithm 1 or 2; range bin (m)."""
        return self._check(lib.lsim_sensor_set_kernel(self._h, float(core_fwhm_deg), float(halo_level),
                                                      float(halo_extent_deg), _b(kernel_file), int(algorithm),
                                                      float(range_bin_m)))

    def set_receiver(self, pulse_width_ns, mode="strongest", max_returns=1):
        """Pulsed receiver: pulse FWHM (ns), echoes reported ("first", "strongest", "last", "dual", "all")."""
        return self._check(lib.lsim_sensor_set_receiver(self._h, float(pulse_width_ns),
                                                        _enum(_RETURNS, mode, "returns mode"), int(max_returns)))

    def set_cw_receiver(self, freq_hz, samples=16, periods=100, bias=None):
        """Continuous-wave receiver: two modulation frequencies (Hz), samples, periods, phase bias c0 c1 c2
        (None: none). freq_hz None: back to the pulsed receiver."""
        f = None if freq_hz is None else _dvec(freq_hz, 2, "freq_hz")
        b = None if bias is None else _dvec(bias, 3, "bias")
        return self._check(lib.lsim_sensor_set_cw_receiver(self._h, _dp(f), int(samples), int(periods), _dp(b)))

    def set_overlap(self, start_m, full_m):
        """Overlap of beam and receiver field of view: none up to start_m, all from full_m on."""
        return self._check(lib.lsim_sensor_set_overlap(self._h, float(start_m), float(full_m)))

    def set_baseline(self, offset):
        """Receiver offset from the emitter (sensor frame, metres)."""
        o = _dvec(offset, 3, "offset")
        return self._check(lib.lsim_sensor_set_baseline(self._h, _dp(o)))

    def beams(self):
        """The beam table as a structured array: azimuth, elevation (degrees), time (s), ring."""
        n = len(self)
        out = np.zeros(n, dtype=[("azimuth", np.float64), ("elevation", np.float64), ("time", np.float64),
                                 ("ring", np.uint16)])
        az, el, t = np.zeros(n), np.zeros(n), np.zeros(n)
        ring = np.zeros(n, dtype=np.uint16)
        self._check(lib.lsim_sensor_get_beams(self._h, _dp(az), _dp(el), _dp(t),
                                              ring.ctypes.data_as(_lib.c_uint16_p)))
        out["azimuth"], out["elevation"], out["time"], out["ring"] = az, el, t, ring
        return out

    def beam_origins(self):
        """Where each beam starts, sensor frame, metres: array (beam_count, 3)."""
        out = np.zeros((len(self), 3))
        self._check(lib.lsim_sensor_get_beam_origins(self._h, _dp(out)))
        return out


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
        h = ctypes.c_void_p()
        ctx.check(lib.lsim_points_create(ctx.h, ctypes.byref(h)))
        self._buf = _Buffer(h, ctx)


class Points(np.ndarray):
    """One scanned frame: a numpy structured array (one row per point, one named column per field,
    e.g. pts["x"], pts["label"]; dtype lidarsim.field_dtype) that also keeps the library's
    lsim_points handle, so it can be written with lidarsim.write / Points.write and its stats and
    sensor pose read. Indexing (pts[:10], pts["x"], pts[mask]) gives plain numpy arrays."""

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
        """The points as a plain numpy structured array (a view, no copy)."""
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
            st = lib.lsim_points_write(b.h, _b(path), fmt)
        else:
            st = lib.lsim_points_write_fields(b.h, _b(path), fmt, fields_mask(fields))
        b.ctx.check(st)
        return path

    def write_birdseye(self, path, pixels=1024, half_extent_m=50.0):
        """A bird's-eye PNG coloured by intensity, `pixels` wide, covering +-half_extent_m."""
        b = self._handle()
        b.ctx.check(lib.lsim_points_write_birdseye(b.h, _b(path), int(pixels), float(half_extent_m)))
        return path

    def write_range_image(self, path, pixels_per_degree=10.0):
        """A PNG over azimuth x elevation coloured by range."""
        b = self._handle()
        b.ctx.check(lib.lsim_points_write_range_image(b.h, _b(path), float(pixels_per_degree)))
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
    return arr


def write(points, path, format=None, fields=None):
    """Write a scanned frame (the Points that scene.scan returned) to `path` through
    lsim_points_write: format from the extension or "pcd", "pcd-ascii", "ply", "kitti", "csv";
    `fields` limits the columns. Returns path."""
    if not isinstance(points, Points):
        raise TypeError("lidarsim.write: expected the Points that scene.scan() returned, got %s"
                        % type(points).__name__)
    return points.write(path, format=format, fields=fields)


# ------------------------------------------------------------------------------------ scene

_MATERIALS = {"lambertian": 0, "oren_nayar": 1, "cook_torrance": 2, "retroreflector": 3, "mirror": 4, "glass": 5}
_ENGINES = {"embree": 0, "raycast": 0, "brute": 1, "raster": 2}
_FRAMES = {"sensor": 0, "world": 1}
_PROGRESS = {"off": 0, "auto": 1, "lines": 2, "bar": 3}


def _set_int(struct, field, value, what=None):
    """struct.field = int(value), refusing (InvalidArgumentError naming `what`, default the field) a
    value the C field cannot hold -- ctypes would silently wrap -1 into 2^64 - 1 or 2^32 + 5 into 5."""
    ctype = dict(struct._fields_)[field]
    while getattr(ctype, "_length_", None):  # an array's element
        ctype = ctype._type_
    if getattr(ctype, "_type_", None) not in tuple("bBhHiIlLqQ"):
        raise TypeError("lidarsim: %s.%s is not an integer field" % (type(struct).__name__, field))
    bits = 8 * ctypes.sizeof(ctype)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if ctype._type_.islower() else (0, (1 << bits) - 1)
    try:
        v = int(value)
    except OverflowError:  # an infinite float
        raise InvalidArgumentError(1, "lidarsim: %s=%r is out of range; give %d..%d" % (what or field, value, lo,
                                                                                          hi)) from None
    except (TypeError, ValueError):
        raise InvalidArgumentError(1, "lidarsim: %s=%r is not an integer" % (what or field, value)) from None
    if not lo <= v <= hi:
        raise InvalidArgumentError(1, "lidarsim: %s=%r is out of range; give %d..%d" % (what or field, value, lo, hi))
    setattr(struct, field, v)


def _progress_mode(progress):
    """lsim_progress_mode of a `progress=` argument: None or False "off", True "auto", a name of
    _PROGRESS ("off", "auto", "lines", "bar") or its number; InvalidArgumentError otherwise."""
    if progress is None or progress is False:
        return 0
    if progress is True:
        return 1
    return _enum(_PROGRESS, progress, "progress mode")


class Scene:
    """A scene (lsim_scene): objects with materials and labels, atmosphere and engine. Build it in
    code (Scene(), add_box, add_sphere, add_plane, add_mesh, add_triangles, ...) or load it from a
    YAML file with lidarsim.load(). Scan it with scene.scan(sensor)."""

    def __init__(self, engine=None, _handle=None, _ctx=None):
        if _handle is None:
            _ctx = _Context()
            h = ctypes.c_void_p()
            _ctx.check(lib.lsim_scene_create(_ctx.h, ctypes.byref(h)))
            _handle = h
        self._h = _handle
        self._ctx = _ctx
        if engine is not None:
            self.set_engine(engine)

    def __del__(self, _destroy=lib.lsim_scene_destroy):
        h = getattr(self, "_h", None)
        if h:
            _destroy(h)
            self._h = None

    def _check(self, st):
        self._ctx.check(st)
        return self

    def __repr__(self):
        return "<lidarsim.Scene %d objects, %d triangles>" % (self.object_count, self.triangle_count)

    @property
    def object_count(self):
        """Objects in the scene."""
        return int(lib.lsim_scene_object_count(self._h))

    @property
    def triangle_count(self):
        """Triangles in the scene's meshes (boxes and planes count their triangles)."""
        return int(lib.lsim_scene_triangle_count(self._h))

    # -- materials, labels, environment
    def add_lambertian(self, name, reflectance):
        """A Lambertian material `name` of the given reflectance (0..1)."""
        return self._check(lib.lsim_scene_add_lambertian(self._h, _b(name), float(reflectance)))

    def add_material(self, name, type="lambertian", **params):
        """A material of a type ("lambertian", "oren_nayar", "cook_torrance", "retroreflector", "mirror",
        "glass") starting from that type's defaults; keyword parameters override them: reflectance,
        roughness, ior, f0, metallic, peak, falloff_deg, transmittance."""
        d = _lib.MaterialDesc()
        lib.lsim_material_desc_init(ctypes.byref(d), _enum(_MATERIALS, type, "material type"))
        for k, v in params.items():
            if k == "type" or k not in dict(d._fields_):
                raise TypeError("lidarsim: unknown material parameter '%s'" % k)
            setattr(d, k, float(v))
        return self._check(lib.lsim_scene_add_material(self._h, _b(name), ctypes.byref(d)))

    def add_calibrated_material(self, name, calibration_file, calibrated_name):
        """A material measured with the real sensor (`lidarsim calibrate`'s output file)."""
        return self._check(lib.lsim_scene_add_calibrated_material(self._h, _b(name), _b(calibration_file),
                                                                  _b(calibrated_name)))

    def set_label_id(self, name, label_id):
        """Map a semantic label name to an id (0..65535); before adding objects."""
        return self._check(lib.lsim_scene_set_label_id(self._h, _b(name), int(label_id)))

    def set_max_bounces(self, bounces):
        """Mirror and glass recursion depth (0..16, default 5)."""
        return self._check(lib.lsim_scene_set_max_bounces(self._h, int(bounces)))

    def set_atmosphere(self, extinction_per_m, backscatter_per_m_sr=0.0):
        """Atmospheric extinction (1/m) and backscatter (1/(m sr))."""
        return self._check(lib.lsim_scene_set_atmosphere(self._h, float(extinction_per_m),
                                                         float(backscatter_per_m_sr)))

    def set_visibility(self, visibility_m):
        """Fog of a meteorological visibility (metres)."""
        return self._check(lib.lsim_scene_set_visibility(self._h, float(visibility_m)))

    def set_ambient(self, sun_direction, irradiance_w_m2):
        """Ambient light: direction towards the sun (world) and in-band irradiance (W/m^2)."""
        d = _dvec(sun_direction, 3, "sun_direction")
        return self._check(lib.lsim_scene_set_ambient(self._h, _dp(d), float(irradiance_w_m2)))

    def set_engine(self, engine):
        """Geometry engine: "embree" (alias "raycast", the default), "brute" or "raster"."""
        return self._check(lib.lsim_scene_set_engine(self._h, _enum(_ENGINES, engine, "engine")))

    def set_raster_options(self, oversample=None, group_ms=None, normal_correction=None, depth_bits=None):
        """Raster engine settings (None keeps the default)."""
        o = _lib.RasterOptions()
        lib.lsim_raster_options_init(ctypes.byref(o))
        for k, v in (("oversample", oversample), ("group_ms", group_ms), ("normal_correction", normal_correction),
                     ("depth_bits", depth_bits)):
            if v is not None:
                setattr(o, k, v)
        return self._check(lib.lsim_scene_set_raster_options(self._h, ctypes.byref(o)))

    def commit(self):
        """Build the acceleration structure now (scan does it when needed)."""
        return self._check(lib.lsim_scene_commit(self._h))

    # -- objects
    @staticmethod
    def _desc(position, rotation, scale, material, label, name, velocity, angular_velocity, trajectory):
        d = _lib.ObjectDesc()
        lib.lsim_object_desc_init(ctypes.byref(d))
        keep = []
        d.position[:] = list(_dvec(position, 3, "position"))
        d.rotation_deg[:] = list(_dvec(rotation, 3, "rotation"))
        d.scale = float(scale)
        for attr, v in (("material", material), ("label", label), ("name", name)):
            if v is not None:
                bv = _b(v)
                keep.append(bv)
                setattr(d, attr, bv)
        if velocity is not None:
            d.velocity[:] = list(_dvec(velocity, 3, "velocity"))
        if angular_velocity is not None:
            d.angular_velocity_deg_s[:] = list(_dvec(angular_velocity, 3, "angular_velocity"))
        if trajectory is not None:
            t, p, r = trajectory
            t = np.ascontiguousarray(t, dtype=np.float64).reshape(-1)
            p = _dvec(p, 3 * t.size, "trajectory positions")
            r = _dvec(r, 3 * t.size, "trajectory rotations")
            keep += [t, p, r]
            d.trajectory_count = t.size
            d.trajectory_t, d.trajectory_position, d.trajectory_rpy_deg = _dp(t), _dp(p), _dp(r)
        return d, keep

    def add_box(self, size, position=(0, 0, 0), rotation=(0, 0, 0), scale=1.0, material=None, label=None, name=None,
                velocity=None, angular_velocity=None, trajectory=None):
        """A box of size (sx, sy, sz) metres centred on its position. Placement keywords: see Scene.add_sphere."""
        d, keep = self._desc(position, rotation, scale, material, label, name, velocity, angular_velocity, trajectory)
        s = _dvec(size, 3, "size")
        return self._check(lib.lsim_scene_add_box(self._h, _dp(s), ctypes.byref(d)))

    def add_sphere(self, radius, position=(0, 0, 0), rotation=(0, 0, 0), scale=1.0, material=None, label=None,
                   name=None, velocity=None, angular_velocity=None, trajectory=None):
        """A sphere of `radius` metres. Placement keywords (all optional): position (x, y, z) m, rotation
        (roll, pitch, yaw) deg, scale, material (name; default "default"), label (semantic class, e.g.
        "car"), name (for set_object_pose and fits), velocity (m/s) and angular_velocity (deg/s) for
        constant motion, or trajectory=(t, positions (N,3), rpy_deg (N,3))."""
        d, keep = self._desc(position, rotation, scale, material, label, name, velocity, angular_velocity, trajectory)
        return self._check(lib.lsim_scene_add_sphere(self._h, float(radius), ctypes.byref(d)))

    def add_plane(self, size, position=(0, 0, 0), rotation=(0, 0, 0), scale=1.0, material=None, label=None, name=None,
                  velocity=None, angular_velocity=None, trajectory=None):
        """A plane (sx, sy) metres in its xy plane, facing +z. Placement keywords: see Scene.add_sphere."""
        d, keep = self._desc(position, rotation, scale, material, label, name, velocity, angular_velocity, trajectory)
        s = _dvec(size, 2, "size")
        return self._check(lib.lsim_scene_add_plane(self._h, _dp(s), ctypes.byref(d)))

    def add_mesh(self, path, position=(0, 0, 0), rotation=(0, 0, 0), scale=1.0, material=None, label=None, name=None,
                 velocity=None, angular_velocity=None, trajectory=None):
        """A triangle mesh from a file (OBJ, PLY, STL, glTF, ... via assimp). Placement keywords: see
        Scene.add_sphere."""
        d, keep = self._desc(position, rotation, scale, material, label, name, velocity, angular_velocity, trajectory)
        return self._check(lib.lsim_scene_add_mesh(self._h, _b(path), ctypes.byref(d)))

    def add_triangles(self, vertices, indices, position=(0, 0, 0), rotation=(0, 0, 0), scale=1.0, material=None,
                      label=None, name=None, velocity=None, angular_velocity=None, trajectory=None):
        """A triangle mesh from arrays: vertices (N, 3) (float32; object frame) and indices (M, 3)
        (uint32). Placement keywords: see Scene.add_sphere."""
        v = np.ascontiguousarray(vertices, dtype=np.float32).reshape(-1, 3)
        i = np.ascontiguousarray(indices, dtype=np.uint32).reshape(-1, 3)
        d, keep = self._desc(position, rotation, scale, material, label, name, velocity, angular_velocity, trajectory)
        return self._check(lib.lsim_scene_add_triangles(self._h, v.ctypes.data_as(_lib.c_float_p), v.shape[0],
                                                        i.ctypes.data_as(_lib.c_uint32_p), i.shape[0],
                                                        ctypes.byref(d)))

    def set_object_pose(self, name, position, rotation=(0.0, 0.0, 0.0)):
        """Move the named static object to a new pose (position m, roll/pitch/yaw deg; the pose it was
        added with is the reference frame, so that pose leaves it where it was)."""
        p, r = _dvec(position, 3, "position"), _dvec(rotation, 3, "rotation")
        return self._check(lib.lsim_scene_set_object_pose(self._h, _b(name), _dp(p), _dp(r)))

    def get_object_pose(self, name):
        """(position, rotation_deg) of the named object, as set_object_pose takes them."""
        p, r = np.zeros(3), np.zeros(3)
        self._check(lib.lsim_scene_get_object_pose(self._h, _b(name), _dp(p), _dp(r)))
        return p, r

    # -- scanning
    @staticmethod
    def _options(seed, frame_index, noise, threads, frame, keep_misses, fields, scan_time):
        o = _lib.ScanOptions()
        lib.lsim_scan_options_init(ctypes.byref(o))
        o.seed = int(seed)
        o.frame_index = int(frame_index)
        o.noise = 1 if noise else 0
        o.threads = int(threads)
        o.frame = _enum(_FRAMES, frame, "frame")
        o.keep_misses = 1 if keep_misses else 0
        o.fields = 0 if fields is None else fields_mask(fields)
        o.scan_time = float(scan_time)
        return o

    def scan(self, sensor, seed=0, noise=True, threads=0, frame="sensor", scan_time=0.0, frame_index=0,
             fields=None, keep_misses=False, into=None):
        """Scan one frame of `sensor` in this scene; returns Points (a numpy structured array with the
        CLI's column names and types). The same options as `lidarsim scan`: seed, noise (False: exact
        geometry), threads (0: all cores), frame ("sensor" or "world"), scan_time (frame start on the
        scene clock, s), frame_index (part of the noise key), fields (names or mask: only those
        columns), keep_misses. into: a PointBuffer (or the Points of an earlier frame) to scan into,
        reusing its memory (lsim_scene_scan_into)."""
        o = self._options(seed, frame_index, noise, threads, frame, keep_misses, fields, scan_time)
        if into is not None:
            buf = into._buf if isinstance(into, (PointBuffer, Points)) else None
            if buf is None:
                raise TypeError("lidarsim: into= takes a PointBuffer or the Points of an earlier scan")
            buf.generation += 1
            st = lib.lsim_scene_scan_into(self._h, sensor._h, ctypes.byref(o), buf.h)
            self._ctx.check(st, sensor._ctx, buf.ctx)
        else:
            h = ctypes.c_void_p()
            st = lib.lsim_scene_scan(self._h, sensor._h, ctypes.byref(o), ctypes.byref(h))
            self._ctx.check(st, sensor._ctx)
            buf = _Buffer(h, self._ctx)
        return Points(_to_array(buf), buf)

    def scan_write(self, sensor, path, format=None, seed=0, noise=True, threads=0, frame="sensor", scan_time=0.0,
                   frame_index=0, fields=None, keep_misses=False, frames=1, progress=None):
        """Scan one frame straight into a file (lsim_scene_scan_write: a slice at a time, no frame-sized
        buffer; the same bytes as scan + write); same options as scan. frames > 1 writes that many
        successive frames into one file of a format that holds several (MCAP;
        lsim_scene_scan_write_frames). progress: None (none), "auto" (a bar on a terminal, lines
        otherwise), "lines" or "bar" (a terminal only), on stderr after the first second
        (lsim_scene_scan_write_progress). Returns the stats dict (summed over the frames)."""
        o = self._options(seed, frame_index, noise, threads, frame, keep_misses, fields, scan_time)
        s = _lib.ScanStats()
        if progress not in (None, False, "off", 0):
            st = lib.lsim_scene_scan_write_progress(self._h, sensor._h, ctypes.byref(o), int(frames), _b(path),
                                                    _format(format), _progress_mode(progress),
                                                    ctypes.byref(s))
        elif frames != 1:
            st = lib.lsim_scene_scan_write_frames(self._h, sensor._h, ctypes.byref(o), int(frames), _b(path),
                                                  _format(format), ctypes.byref(s))
        else:
            st = lib.lsim_scene_scan_write(self._h, sensor._h, ctypes.byref(o), _b(path), _format(format),
                                           ctypes.byref(s))
        self._ctx.check(st, sensor._ctx)
        return {n: getattr(s, n) for n, _ in s._fields_}


def load(path, import_timeout=0.0, import_memory=0.0):
    """Load a scene file (YAML): returns (scene, sensor), the sensor being the file's `sensor:`
    (None if the file has none). import_timeout (s) and import_memory (bytes) limit each mesh import
    (0: automatic). A malformed file raises ParseError whose message names FILE:LINE."""
    ctx = _Context()
    if import_timeout or import_memory:
        ctx.set_import_limits(import_timeout, import_memory)
    sh, nh = ctypes.c_void_p(), ctypes.c_void_p()
    ctx.check(lib.lsim_scene_load(ctx.h, _b(path), ctypes.byref(sh), ctypes.byref(nh)))
    scene = Scene(_handle=sh, _ctx=ctx)
    sensor = Sensor(nh, ctx) if nh.value else None
    return scene, sensor


def version():
    """The library's version, "MAJOR.MINOR.PATCH" (lsim_version_string)."""
    return lib.lsim_version_string().decode()
