"""Sensors (lsim_sensor): presets, real units' calibrations, sensors built in code, poses,
motion, noise, beams and receivers."""
import ctypes

import numpy as np

from . import _lib
from ._lib import lib
from ._base import _OWN, _Context, _Owned, _b, _b_opt, _c_int, _dp, _dvec, _enum, InvalidArgumentError

# ------------------------------------------------------------------------------------ sensor

_NOISE_MODELS = {"constant": 0, "snr": 1}
_BEAM_MODES = {"single": 0, "rays": 1, "kernel": 2}
_BEAM_LAYOUTS = {"rings": 0, "line": 1}
_RETURNS = {"first": 0, "strongest": 1, "last": 2, "dual": 3, "all": 4}

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
    d = lib.lsim_sensor_preset_description(_b(name, "preset name"))
    return d.decode() if d is not None else None


class Sensor(_Owned):
    """A lidar or time-of-flight sensor (lsim_sensor). Make one with Sensor.preset(name),
    Sensor.from_calibration(path), Sensor.rotating/planar/camera/pattern, or lidarsim.load().
    Angles are in degrees, lengths in metres, times in seconds."""

    _free = lib.lsim_sensor_destroy

    def __init__(self, _handle=None, _ctx=None, _own=None):
        if _own is not _OWN:  # only the factories below and lidarsim.load wrap a C handle
            raise TypeError("lidarsim.Sensor cannot be made directly; use Sensor.preset(name), "
                            "Sensor.from_calibration(path), Sensor.rotating/planar/camera/pattern or lidarsim.load()")
        self._h = _handle
        self._ctx = _ctx

    @classmethod
    def _make(cls, fn, *args, ctx=None):
        ctx = ctx or _Context()
        h = _lib.SensorHandle()
        ctx.check(fn(ctx.h, *args, ctypes.byref(h)))
        return cls(h, ctx, _OWN)

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
        return cls._make(lib.lsim_sensor_create_preset, _b(name, "preset name"))

    @classmethod
    def from_calibration(cls, path):
        """A real unit from its calibration file (Ouster metadata JSON, Velodyne JSON/YAML/XML)."""
        return cls._make(lib.lsim_sensor_create_calibrated, _b(path, "calibration path"))

    @classmethod
    def rotating(cls, elevations_deg, columns, rate_hz=10.0):
        """A rotating multi-channel lidar: one channel per elevation, `columns` firings per revolution."""
        el = np.ascontiguousarray(elevations_deg, dtype=np.float64).reshape(-1)
        return cls._make(lib.lsim_sensor_create_rotating, _c_int(el.size, _lib.i32, "elevations"), _dp(el),
                         _c_int(columns, _lib.i32, "columns"), float(rate_hz))

    @classmethod
    def planar(cls, fov_deg, steps, rate_hz=10.0):
        """A planar (2-D) scanner: `steps` beams evenly over `fov_deg` in the sensor's xy plane."""
        return cls._make(lib.lsim_sensor_create_planar, float(fov_deg), _c_int(steps, _lib.i32, "steps"),
                         float(rate_hz))

    @classmethod
    def camera(cls, width, height, hfov_deg, vfov_deg, rate_hz=10.0):
        """A time-of-flight camera (pinhole), one beam per pixel."""
        return cls._make(lib.lsim_sensor_create_camera, _c_int(width, _lib.i32, "width"),
                         _c_int(height, _lib.i32, "height"), float(hfov_deg), float(vfov_deg),
                         float(rate_hz))

    @classmethod
    def pattern(cls, azimuth_deg, elevation_deg, time_s=None, ring=None):
        """An arbitrary beam table fired in row order (time_s and ring optional: then all 0)."""
        az = np.ascontiguousarray(azimuth_deg, dtype=np.float64).reshape(-1)
        el = np.ascontiguousarray(elevation_deg, dtype=np.float64).reshape(-1)
        if el.size != az.size:
            raise ValueError("lidarsim: azimuth and elevation differ in length (%d, %d)" % (az.size, el.size))
        t = None if time_s is None else _dvec(time_s, az.size, "time_s")
        r = None
        if ring is not None:
            rings = np.asarray(ring).reshape(-1)
            if rings.size and not (np.issubdtype(rings.dtype, np.integer) and rings.min() >= 0 and
                                   rings.max() <= 65535):
                raise InvalidArgumentError(1, "lidarsim: ring must hold integers 0..65535 (uint16), got %s from "
                                              "%r to %r" % (rings.dtype, rings.min(), rings.max()))
            r = np.ascontiguousarray(rings, dtype=np.uint16)  # 70000 would have been 4464
        if r is not None and r.size != az.size:
            raise ValueError("lidarsim: ring needs %d values, got %d" % (az.size, r.size))
        return cls._make(lib.lsim_sensor_create_pattern, az.size, _dp(az), _dp(el), _dp(t),
                         r.ctypes.data_as(_lib.c_uint16_p) if r is not None else None)

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
                                                    _enum(_BEAM_MODES, mode, "beam mode"), _c_int(rings, _lib.i32, "rings")))

    def set_beam_layout(self, layout):
        """Rays mode's sub-ray layout: "rings" (1 + 6k rays a ring) or "line" (1 + 2 rings rays along the
        scan, equal shares: the cw paper's three-ray beam with rings 1, as the urg-04lx preset has)."""
        return self._check(lib.lsim_sensor_set_beam_layout(self._h, _enum(_BEAM_LAYOUTS, layout, "beam layout")))

    def set_kernel(self, core_fwhm_deg=0.0, halo_level=0.0, halo_extent_deg=0.0, kernel_file=None, algorithm=1,
                   range_bin_m=0.0):
        """Kernel-mode beam: a parametric kernel or a kernel file; algorithm 1 or 2; range bin (m)."""
        return self._check(lib.lsim_sensor_set_kernel(self._h, float(core_fwhm_deg), float(halo_level),
                                                      float(halo_extent_deg), _b_opt(kernel_file, "kernel_file"),
                                                      _c_int(algorithm, _lib.i32, "algorithm"), float(range_bin_m)))

    def set_receiver(self, pulse_width_ns, mode="strongest", max_returns=1):
        """Pulsed receiver: pulse FWHM (ns), echoes reported ("first", "strongest", "last", "dual", "all")."""
        return self._check(lib.lsim_sensor_set_receiver(self._h, float(pulse_width_ns),
                                                        _enum(_RETURNS, mode, "returns mode"),
                                                        _c_int(max_returns, _lib.i32, "max_returns")))

    def set_cw_receiver(self, freq_hz, samples=16, periods=100, bias=None):
        """Continuous-wave receiver: two modulation frequencies (Hz), samples, periods, phase bias c0 c1 c2
        (None: none). freq_hz None: back to the pulsed receiver."""
        f = None if freq_hz is None else _dvec(freq_hz, 2, "freq_hz")
        b = None if bias is None else _dvec(bias, 3, "bias")
        return self._check(lib.lsim_sensor_set_cw_receiver(self._h, _dp(f), _c_int(samples, _lib.i32, "samples"),
                                                           _c_int(periods, _lib.i32, "periods"), _dp(b)))

    def set_overlap(self, start_m, full_m):
        """Overlap of beam and receiver field of view: none up to start_m, all from full_m on."""
        return self._check(lib.lsim_sensor_set_overlap(self._h, float(start_m), float(full_m)))

    def set_receiver_overlap(self, full_m=0.0, curve=None):
        """Overlap of every echo: (R / full_m)^2 below full_m, or a curve [[range_m, factor], ...]; neither: none."""
        pts = [] if curve is None else [(float(r), float(f)) for r, f in curve]
        r = _dvec([p[0] for p in pts], len(pts), "curve") if pts else None
        f = _dvec([p[1] for p in pts], len(pts), "curve") if pts else None
        return self._check(lib.lsim_sensor_set_receiver_overlap(self._h, float(full_m), _dp(r), _dp(f), len(pts)))

    def set_ambient_rise(self, ambient_ref_w_m2):
        """Threshold rise with ambient light: T0 sqrt(1 + B / B_ref), B_ref a white surface under this in-band sun."""
        return self._check(lib.lsim_sensor_set_ambient_rise(self._h, float(ambient_ref_w_m2)))

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
