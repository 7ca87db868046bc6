"""Fitting parameters to a real scan through the public lsim_fit_* API (L-BFGS with exact gradients)."""
import ctypes
from dataclasses import dataclass

import numpy as np

from . import _lib
from ._base import _Owned, _b, _c_int, _dp, _enum, _handle_of
from ._scene import Scene
from ._sensor import Sensor
from ._lib import lib

_DOF = {"fixed": 0, "se2": 3, "se3": 6}
_LOSS = {"squared": 0, "huber": 1, "cauchy": 2}
_STOP = {0: "converged", 1: "no_descent", 2: "iterations"}
_BEAM = {0: "none", 1: "used", 2: "silhouette", 3: "unmatched"}


@dataclass
class FitResult:
    """The outcome of Fit.run (lsim_fit_result); `stop` is "converged", "no_descent" or "iterations"."""
    iterations: int
    evaluations: int
    initial_loss: float
    final_loss: float
    rms_residual_m: float
    beams_used: int
    silhouette_beams: int
    bounced_beams: int
    unmatched_beams: int
    wall_ms: float
    lbfgs_status: int
    stop: str
    parameters: dict


class Fit(_Owned):
    """A fit of `sensor` in `scene` to a real scan (lsim_fit): minimise the range residuals over the
    sensor's pose (dof "fixed", "se2": x, y, yaw, or "se3": all six), plus the reflectances, CW bias
    and object poses added with add_*. The sensor's pose is changed by evaluate and run. The Fit
    keeps the scene and the sensor alive."""

    _free = lib.lsim_fit_destroy

    def __init__(self, scene, sensor, dof="se2"):
        scene_h = _handle_of(scene, Scene, "scene", "lidarsim.Fit")
        sensor_h = _handle_of(sensor, Sensor, "sensor", "lidarsim.Fit")
        self._scene, self._sensor = scene, sensor
        self._ctx = scene._ctx
        h = _lib.FitHandle()
        self._ctx.check(lib.lsim_fit_create(scene_h, sensor_h, _enum(_DOF, dof, "dof"), ctypes.byref(h)),
                        sensor._ctx)
        self._h = h

    def _check(self, st):
        self._ctx.check(st, self._sensor._ctx)
        return self

    def set_scan(self, ranges, intensity=None, intensity_weight_m2=1.0):
        """The real scan: one range per beam in the sensor's beam order (0 or NaN: no return), e.g. the
        "range" column of a scan with keep_misses=True. With `intensity` the amplitudes are fitted too
        (weight in m^2 per squared relative error)."""
        r = np.ascontiguousarray(ranges, dtype=np.float32).reshape(-1)
        self._check(lib.lsim_fit_set_scan(self._h, r.ctypes.data_as(_lib.c_float_p), r.size))
        if intensity is not None:
            i = np.ascontiguousarray(intensity, dtype=np.float32).reshape(-1)
            self._check(lib.lsim_fit_set_scan_intensity(self._h, i.ctypes.data_as(_lib.c_float_p), i.size,
                                                        float(intensity_weight_m2)))
        return self

    def add_reflectance(self, material):
        """Also fit the reflectance of a Lambertian material."""
        return self._check(lib.lsim_fit_add_reflectance(self._h, _b(material, "material")))

    def add_cw_bias(self):
        """Also fit the continuous-wave receiver's phase bias c0, c1, c2."""
        return self._check(lib.lsim_fit_add_cw_bias(self._h))

    def add_object_pose(self, name, dof="se2"):
        """Also fit a named object's pose ("se2" or "se3")."""
        return self._check(lib.lsim_fit_add_object_pose(self._h, _b(name, "name"), _enum(_DOF, dof, "dof")))

    def __len__(self):
        return int(lib.lsim_fit_parameter_count(self._h))

    @property
    def parameter_names(self):
        """The parameters' names, e.g. ["sensor.x", "sensor.y", "sensor.yaw", "material.wall.reflectance"]."""
        out = []
        buf = ctypes.create_string_buffer(256)
        for k in range(len(self)):
            self._check(lib.lsim_fit_parameter_name(self._h, k, buf, len(buf)))
            out.append(buf.value.decode())
        return out

    @property
    def parameters(self):
        """Current parameter values (metres, radians, reflectances, bias) as an array."""
        p = np.zeros(len(self))
        self._check(lib.lsim_fit_get_parameters(self._h, _dp(p)))
        return p

    @parameters.setter
    def parameters(self, values):
        p = np.ascontiguousarray(values, dtype=np.float64).reshape(-1)
        self._check(lib.lsim_fit_set_parameters(self._h, _dp(p), p.size))

    def set_bounds(self, k, lower, upper):
        """Keep parameter k (index or name) within [lower, upper]."""
        if isinstance(k, str):
            k = self.parameter_names.index(k)
        return self._check(lib.lsim_fit_set_bounds(self._h, _c_int(k, _lib.size_t, "k"), float(lower), float(upper)))

    def set_loss(self, loss="squared", scale_m=0.05):
        """Loss of a range residual: "squared", "huber" or "cauchy" with a scale in metres."""
        return self._check(lib.lsim_fit_set_loss(self._h, _enum(_LOSS, loss, "loss"), float(scale_m)))

    def evaluate(self, params=None):
        """(loss, gradient) at `params` (default: the current ones); sets the sensor's pose to them."""
        p = self.parameters if params is None else np.ascontiguousarray(params, dtype=np.float64).reshape(-1)
        if p.size != len(self):
            raise ValueError("lidarsim: %d parameters needed, got %d" % (len(self), p.size))
        loss = ctypes.c_double()
        g = np.zeros(len(self))
        self._check(lib.lsim_fit_evaluate(self._h, _dp(p), ctypes.byref(loss), _dp(g)))
        return loss.value, g

    def residuals(self, jacobian=False):
        """Each beam's part in the last evaluation: (status, residual[, jacobian]) with status an array
        of "none", "used", "silhouette", "unmatched", residual r_sim - r_real (m, float32) and the
        Jacobian (beams, parameters)."""
        n = len(self._sensor)
        st = np.zeros(n, dtype=np.uint8)
        res = np.zeros(n, dtype=np.float32)
        jac = np.zeros((n, len(self))) if jacobian else None
        self._check(lib.lsim_fit_get_residuals(self._h, n, st.ctypes.data_as(_lib.c_uint8_p),
                                               res.ctypes.data_as(_lib.c_float_p), _dp(jac)))
        names = np.array([_BEAM[s] for s in range(4)])[st]
        return (names, res, jac) if jacobian else (names, res)

    def run(self, max_iterations=100, progress=None):
        """Run at most max_iterations of L-BFGS from the current parameters; the sensor ends at the
        fit. progress(iteration, loss) is called after each iteration. Returns a FitResult."""
        errors = []

        def cb(_user, it, loss):
            try:
                progress(it, loss)
            except BaseException as e:  # an exception cannot cross the C frames: re-raised after the run
                errors.append(e)

        cfn = _lib.PROGRESS(cb) if progress else ctypes.cast(None, _lib.PROGRESS)
        r = _lib.FitResult()
        self._check(lib.lsim_fit_run(self._h, _c_int(max_iterations, _lib.i32, "max_iterations"), cfn, None, ctypes.byref(r)))
        if errors:
            raise errors[0]
        return FitResult(r.iterations, r.evaluations, r.initial_loss, r.final_loss, r.rms_residual_m, r.beams_used,
                         r.silhouette_beams, r.bounced_beams, r.unmatched_beams, r.wall_ms, r.lbfgs_status,
                         _STOP.get(r.stop, str(r.stop)), dict(zip(self.parameter_names, self.parameters)))
