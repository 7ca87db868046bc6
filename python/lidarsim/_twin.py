"""lidarsim.twin: a digital twin of a real recording (lsim_twin_build, what `lidarsim twin` builds;
docs/twin.md)."""
import ctypes
import math

from . import _lib
from ._lib import lib
from ._base import _Context, _b, _b_opt, _c_int, _progress_mode, InvalidArgumentError


def twin(recording, out, poses=None, metadata=None, sensor=None, frames=None, pose_time=0.5, levels=48,
         shadow_angle_deg=3.0, drop=True, naive=False, partial=False, progress=None):
    """Build the twin of `recording` (a pcap with its unit's `metadata`, or a sequence folder of
    point files with `sensor` a preset or `metadata` a unit's file) into folder `out`, all files or
    none: scene.yaml (the sensor on the recorded path; load it with lidarsim.load), surface_NNN.ply,
    trajectory.csv, the calibration copied, twin.json. poses: the KITTI poses file (one 3 x 4
    matrix a line per frame; default a folder's poses.txt); frames: the frames to build from (an
    iterable of ints; None: every posed frame); pose_time: where in its frame a pose holds (0.5
    mid-sweep, as SLAM gives them; 0 the first firing, as lidarsim writes them); levels: reflectance
    materials 1..256; drop: measure the ray drop, threshold and noise; naive: the baseline (frames
    as read, one material). Returns a dict of what was built: frames, points, transient (returns
    left out as moving), fused (averaged with another frame), triangles, materials, drop_beams,
    drop_rate. Raises InvalidArgumentError, ParseError (a poses file, naming its line), FileError,
    NotFoundError as lsim_twin_build does."""
    o = _lib.TwinOptions()
    lib.lsim_twin_options_init(ctypes.byref(o))
    keep = []
    o.calibration = _b_opt(metadata, "metadata")
    o.sensor = _b_opt(sensor, "sensor")
    o.poses = _b_opt(poses, "poses")
    if frames is not None:
        try:
            fl = [_c_int(f, ctypes.c_int64, "frames") for f in frames]
        except TypeError:
            raise TypeError("lidarsim.twin: frames must be an iterable of frame numbers, got %s"
                            % type(frames).__name__) from None
        arr = (ctypes.c_int64 * max(1, len(fl)))(*fl)
        keep.append(arr)
        o.frames = ctypes.cast(arr, ctypes.POINTER(ctypes.c_int64))
        o.frame_count = len(fl)
    for name, value in (("pose_time", pose_time), ("shadow_angle_deg", shadow_angle_deg)):
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise InvalidArgumentError(1, "lidarsim.twin: %s=%r is not a number" % (name, value)) from None
        if not math.isfinite(v):
            raise InvalidArgumentError(1, "lidarsim.twin: %s=%r is not finite" % (name, value))
        setattr(o, name, v)
    o.reflectance_levels = _c_int(levels, ctypes.c_int, "levels")
    o.drop_model = 1 if drop else 0
    o.naive = 1 if naive else 0
    o.partial = 1 if partial else 0
    o.progress = _progress_mode(progress)
    ctx = _Context()
    s = _lib.TwinStats()
    ctx.check(lib.lsim_twin_build(ctx.h, _b(recording, "recording"), ctypes.byref(o), _b(out, "out"), ctypes.byref(s)))
    return {n: getattr(s, n) for n, _ in s._fields_}
