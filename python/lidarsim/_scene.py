"""Scenes (lsim_scene): built in code or loaded from YAML, scanned by a sensor into Points or
straight into files."""
import ctypes

import numpy as np

from . import _lib
from ._lib import lib
from ._base import (_OWN, _Context, _Owned, _b, _c_int, _dp, _dvec, _enum, _format, _handle_of,
                    _progress_mode, _set_int, fields_mask)
from ._points import _Buffer, PointBuffer, Points, _to_array
from ._sensor import Sensor

# ------------------------------------------------------------------------------------ scene

_MATERIALS = {"lambertian": 0, "oren_nayar": 1, "cook_torrance": 2, "retroreflector": 3, "mirror": 4, "glass": 5}
_ENGINES = {"embree": 0, "raycast": 0, "brute": 1, "raster": 2}
_FRAMES = {"sensor": 0, "world": 1}


class Scene(_Owned):
    """A scene (lsim_scene): objects with materials and labels, atmosphere and engine. Build it in
    code (Scene(), add_box, add_sphere, add_plane, add_mesh, add_triangles, ...) or load it from a
    YAML file with lidarsim.load(). Scan it with scene.scan(sensor)."""

    _free = lib.lsim_scene_destroy

    def __init__(self, engine=None, _handle=None, _ctx=None, _own=None):
        if _handle is not None and _own is not _OWN:  # only lidarsim.load wraps a C handle
            raise TypeError("lidarsim.Scene(engine=None) makes an empty scene; lidarsim.load(path) loads one "
                            "(a C handle cannot be given)")
        if _handle is None:
            _ctx = _Context()
            h = _lib.SceneHandle()
            _ctx.check(lib.lsim_scene_create(_ctx.h, ctypes.byref(h)))
            _handle = h
        self._h = _handle
        self._ctx = _ctx
        if engine is not None:
            self.set_engine(engine)

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
        return self._check(lib.lsim_scene_add_lambertian(self._h, _b(name, "name"), float(reflectance)))

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
        return self._check(lib.lsim_scene_add_material(self._h, _b(name, "name"), ctypes.byref(d)))

    def add_calibrated_material(self, name, calibration_file, calibrated_name):
        """A material measured with the real sensor (`lidarsim calibrate`'s output file)."""
        return self._check(lib.lsim_scene_add_calibrated_material(self._h, _b(name, "name"),
                                                                  _b(calibration_file, "calibration_file"),
                                                                  _b(calibrated_name, "calibrated_name")))

    def set_label_id(self, name, label_id):
        """Map a semantic label name to an id (0..65535); before adding objects."""
        return self._check(lib.lsim_scene_set_label_id(self._h, _b(name, "name"),
                                                       _c_int(label_id, ctypes.c_uint32, "label_id")))

    def set_max_bounces(self, bounces):
        """Mirror and glass recursion depth (0..16, default 5)."""
        return self._check(lib.lsim_scene_set_max_bounces(self._h, _c_int(bounces, _lib.i32, "bounces")))

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
        for k, v in (("oversample", oversample), ("group_ms", group_ms)):
            if v is not None:
                setattr(o, k, float(v))
        for k, v in (("normal_correction", normal_correction), ("depth_bits", depth_bits)):
            if v is not None:
                _set_int(o, k, v)  # 2^32 + 16 bits would have been 16
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
                bv = _b(v, attr)
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
        return self._check(lib.lsim_scene_add_mesh(self._h, _b(path, "path"), ctypes.byref(d)))

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
        return self._check(lib.lsim_scene_set_object_pose(self._h, _b(name, "name"), _dp(p), _dp(r)))

    def get_object_pose(self, name):
        """(position, rotation_deg) of the named object, as set_object_pose takes them."""
        p, r = np.zeros(3), np.zeros(3)
        self._check(lib.lsim_scene_get_object_pose(self._h, _b(name, "name"), _dp(p), _dp(r)))
        return p, r

    # -- scanning
    @staticmethod
    def _options(seed, frame_index, noise, threads, frame, keep_misses, fields, scan_time):
        o = _lib.ScanOptions()
        lib.lsim_scan_options_init(ctypes.byref(o))
        _set_int(o, "seed", seed)
        _set_int(o, "frame_index", frame_index)
        o.noise = 1 if noise else 0
        _set_int(o, "threads", threads)
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
        sh = _handle_of(sensor, Sensor, "sensor", "lidarsim.Scene.scan")
        o = self._options(seed, frame_index, noise, threads, frame, keep_misses, fields, scan_time)
        if into is not None:
            buf = into._buf if isinstance(into, (PointBuffer, Points)) else None
            if buf is None or not buf.h:
                raise TypeError("lidarsim.Scene.scan: into must be a lidarsim.PointBuffer or the lidarsim.Points of "
                                "an earlier scan, got %s" % type(into).__name__)
            buf.generation += 1
            st = lib.lsim_scene_scan_into(self._h, sh, ctypes.byref(o), buf.h)
            self._ctx.check(st, sensor._ctx, buf.ctx)
        else:
            h = _lib.PointsHandle()
            st = lib.lsim_scene_scan(self._h, sh, ctypes.byref(o), ctypes.byref(h))
            self._ctx.check(st, sensor._ctx)
            buf = _Buffer(h, self._ctx)
        return Points(_to_array(buf), buf)

    def scan_write(self, sensor, path, format=None, seed=0, noise=True, threads=0, frame="sensor", scan_time=0.0,
                   frame_index=0, fields=None, keep_misses=False, frames=1, progress=None, ouster_profile=None):
        """Scan one frame straight into a file (lsim_scene_scan_write: a slice at a time, no frame-sized
        buffer; the same bytes as scan + write); same options as scan. frames > 1 writes that many
        successive frames into one file of a format that holds several (MCAP;
        lsim_scene_scan_write_frames). progress: None (none), "auto" (a bar on a terminal, lines
        otherwise), "lines" or "bar" (a terminal only), on stderr after the first second
        (lsim_scene_scan_write_progress). A .pcap (format "pcap") holds the sensor's own UDP
        packets (Ouster, with X.json beside X.pcap, or Velodyne; several frames too);
        ouster_profile: its Ouster lidar profile ("RNG19_RFL8_SIG16_NIR16" when None, "LEGACY",
        "RNG15_RFL8_NIR8", "RNG19_RFL8_SIG16_NIR16_DUAL"). Returns the stats dict (summed over the
        frames)."""
        sh = _handle_of(sensor, Sensor, "sensor", "lidarsim.Scene.scan_write")
        path = _b(path, "path")
        o = self._options(seed, frame_index, noise, threads, frame, keep_misses, fields, scan_time)
        profile = None if ouster_profile is None else _b(ouster_profile, "ouster_profile")
        o.packet_profile = profile  # kept alive by `profile` until the call returns
        s = _lib.ScanStats()
        frames = _c_int(frames, ctypes.c_uint, "frames")
        if progress not in (None, False, "off", 0):
            st = lib.lsim_scene_scan_write_progress(self._h, sh, ctypes.byref(o), frames, path,
                                                    _format(format), _progress_mode(progress),
                                                    ctypes.byref(s))
        elif frames != 1:
            st = lib.lsim_scene_scan_write_frames(self._h, sh, ctypes.byref(o), frames, path,
                                                  _format(format), ctypes.byref(s))
        else:
            st = lib.lsim_scene_scan_write(self._h, sh, ctypes.byref(o), path, _format(format),
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
    sh, nh = _lib.SceneHandle(), _lib.SensorHandle()
    ctx.check(lib.lsim_scene_load(ctx.h, _b(path, "path"), ctypes.byref(sh), ctypes.byref(nh)))
    scene = Scene(_handle=sh, _ctx=ctx, _own=_OWN)
    sensor = Sensor(nh, ctx, _OWN) if nh.value else None
    return scene, sensor


def version():
    """The library's version, "MAJOR.MINOR.PATCH" (lsim_version_string)."""
    return lib.lsim_version_string().decode()
