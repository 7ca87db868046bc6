"""Loading liblidarsim.so and declaring the C functions of include/lidarsim.h (ctypes).

Only functions of the public header are declared here, so the module works with a shared library
that exports nothing but the lsim_ API.

Search order for the shared library (the first that exists is loaded):
  1. the environment variable LIDARSIM_LIBRARY (the path of liblidarsim.so itself);
  2. next to the package: lidarsim/liblidarsim.so, then the installed layout, where the package is
     PREFIX/lib/python3/dist-packages/lidarsim and the library PREFIX/lib/liblidarsim.so or
     PREFIX/lib/<multiarch>/liblidarsim.so;
  3. the build tree of a source checkout: REPO/build/liblidarsim.so (the package at REPO/python/lidarsim);
  4. the system's dynamic loader (LD_LIBRARY_PATH, ldconfig's cache): "liblidarsim.so".
"""
import ctypes
import os
import sysconfig

LIBRARY_NAME = "liblidarsim.so"
_PKG_DIR = os.path.dirname(os.path.abspath(__file__))


def library_candidates():
    """The paths tried for liblidarsim.so, in order (LIDARSIM_LIBRARY first when set)."""
    out = []
    env = os.environ.get("LIDARSIM_LIBRARY")
    if env:
        out.append(env)
    out.append(os.path.join(_PKG_DIR, LIBRARY_NAME))
    # PREFIX/lib/python3/dist-packages/lidarsim -> PREFIX/lib
    libdir = os.path.normpath(os.path.join(_PKG_DIR, "..", "..", ".."))
    out.append(os.path.join(libdir, LIBRARY_NAME))
    multiarch = sysconfig.get_config_var("MULTIARCH")
    if multiarch:
        out.append(os.path.join(libdir, multiarch, LIBRARY_NAME))
    # REPO/python/lidarsim -> REPO/build
    out.append(os.path.normpath(os.path.join(_PKG_DIR, "..", "..", "build", LIBRARY_NAME)))
    return out


def _load():
    env = os.environ.get("LIDARSIM_LIBRARY")
    if env:
        if not os.path.isfile(env):
            raise ImportError("lidarsim: LIDARSIM_LIBRARY is set to '%s', which is not a file; set it to the path "
                              "of liblidarsim.so (built as build/liblidarsim.so by `make build`)" % env)
        try:
            return ctypes.CDLL(env), env
        except OSError as e:
            raise ImportError("lidarsim: cannot load LIDARSIM_LIBRARY='%s': %s" % (env, e)) from e
    tried = library_candidates()
    for path in tried:
        if os.path.isfile(path):
            try:
                return ctypes.CDLL(path), path
            except OSError as e:
                raise ImportError("lidarsim: cannot load '%s': %s (set LIDARSIM_LIBRARY to another "
                                  "liblidarsim.so)" % (path, e)) from e
    try:
        lib = ctypes.CDLL(LIBRARY_NAME)
        return lib, LIBRARY_NAME
    except OSError:
        pass
    raise ImportError("lidarsim: liblidarsim.so not found; build it (`make build` -> build/liblidarsim.so) and set "
                      "LIDARSIM_LIBRARY to its path. Tried: " + ", ".join(tried) + ", and the dynamic loader's path")


lib, library_path = _load()

c_double_p = ctypes.POINTER(ctypes.c_double)
c_float_p = ctypes.POINTER(ctypes.c_float)
c_uint16_p = ctypes.POINTER(ctypes.c_uint16)
c_uint32_p = ctypes.POINTER(ctypes.c_uint32)
c_uint8_p = ctypes.POINTER(ctypes.c_uint8)
vp = ctypes.c_void_p


class Handle(ctypes.c_void_p):
    """A C handle of one type (lsim_context *, lsim_scene *, ...). As a ctypes argument type it takes
    only its own kind (or None, NULL): a handle of another type, a bare c_void_p or an int raises
    ctypes.ArgumentError before C could read one struct as another (a Scene's handle passed where
    a sensor is expected segfaulted)."""
    kind = "handle"

    @classmethod
    def from_param(cls, value):
        if value is None or isinstance(value, cls):
            return value
        raise TypeError("expected an lsim_%s handle (lidarsim.%s), got %s"
                        % (cls.kind, cls.__name__, type(value).__name__))


class ContextHandle(Handle):
    kind = "context"


class SceneHandle(Handle):
    kind = "scene"


class SensorHandle(Handle):
    kind = "sensor"


class PointsHandle(Handle):
    kind = "points"


class FitHandle(Handle):
    kind = "fit"


class DatasetHandle(Handle):
    kind = "dataset"


_HANDLES = {h.kind: h for h in (ContextHandle, SceneHandle, SensorHandle, PointsHandle, FitHandle, DatasetHandle)}
status = ctypes.c_int
size_t = ctypes.c_size_t
cstr = ctypes.c_char_p
dbl = ctypes.c_double
i32 = ctypes.c_int


class ObjectDesc(ctypes.Structure):
    """struct lsim_object_desc."""
    _fields_ = [
        ("position", ctypes.c_double * 3),
        ("rotation_deg", ctypes.c_double * 3),
        ("scale", ctypes.c_double),
        ("material", ctypes.c_char_p),
        ("label", ctypes.c_char_p),
        ("velocity", ctypes.c_double * 3),
        ("angular_velocity_deg_s", ctypes.c_double * 3),
        ("trajectory_count", ctypes.c_size_t),
        ("trajectory_t", c_double_p),
        ("trajectory_position", c_double_p),
        ("trajectory_rpy_deg", c_double_p),
        ("name", ctypes.c_char_p),
    ]


class MaterialDesc(ctypes.Structure):
    """struct lsim_material_desc."""
    _fields_ = [("type", ctypes.c_int)] + [(n, ctypes.c_double) for n in (
        "reflectance", "roughness", "ior", "f0", "metallic", "peak", "falloff_deg", "transmittance")]


class ScanOptions(ctypes.Structure):
    """struct lsim_scan_options."""
    _fields_ = [
        ("seed", ctypes.c_uint64),
        ("frame_index", ctypes.c_uint32),
        ("noise", ctypes.c_int),
        ("threads", ctypes.c_int),
        ("frame", ctypes.c_int),
        ("keep_misses", ctypes.c_int),
        ("fields", ctypes.c_uint32),
        ("scan_time", ctypes.c_double),
        ("packet_profile", ctypes.c_char_p),
    ]


class ScanStats(ctypes.Structure):
    """struct lsim_scan_stats."""
    _fields_ = [("rays", ctypes.c_uint64), ("hits", ctypes.c_uint64), ("beams_returned", ctypes.c_uint64)] + [
        (n, ctypes.c_double) for n in ("load_ms", "build_ms", "trace_ms", "shade_ms", "noise_ms", "write_ms",
                                       "total_ms")]


class RasterOptions(ctypes.Structure):
    """struct lsim_raster_options."""
    _fields_ = [("oversample", ctypes.c_double), ("group_ms", ctypes.c_double),
                ("normal_correction", ctypes.c_int), ("depth_bits", ctypes.c_int)]


class FitResult(ctypes.Structure):
    """struct lsim_fit_result."""
    _fields_ = [
        ("iterations", ctypes.c_int), ("evaluations", ctypes.c_int),
        ("initial_loss", ctypes.c_double), ("final_loss", ctypes.c_double),
        ("rms_residual_m", ctypes.c_double),
        ("beams_used", ctypes.c_size_t), ("silhouette_beams", ctypes.c_size_t),
        ("bounced_beams", ctypes.c_size_t), ("unmatched_beams", ctypes.c_size_t),
        ("wall_ms", ctypes.c_double), ("lbfgs_status", ctypes.c_int), ("stop", ctypes.c_int),
    ]


# structures of the file-driven tools: fit files, patterns, datasets
FIT_FILE_MAX_PARAMETERS = 8  # LSIM_FIT_FILE_MAX_PARAMETERS
FIT_FILE_NAME_MAX = 256  # LSIM_FIT_FILE_NAME_MAX


class FitFileOptions(ctypes.Structure):
    """struct lsim_fit_file_options."""
    _fields_ = [("max_iterations", ctypes.c_int), ("progress", ctypes.c_int), ("report", ctypes.c_int)]


class FitFileResult(ctypes.Structure):
    """struct lsim_fit_file_result."""
    _fields_ = [
        ("fit", FitResult), ("max_iterations", ctypes.c_int), ("beams", ctypes.c_size_t),
        ("parameter_count", ctypes.c_size_t),
        ("names", (ctypes.c_char * FIT_FILE_NAME_MAX) * FIT_FILE_MAX_PARAMETERS),
        ("initial", ctypes.c_double * FIT_FILE_MAX_PARAMETERS), ("fitted", ctypes.c_double * FIT_FILE_MAX_PARAMETERS),
    ]


class PatternOptions(ctypes.Structure):
    """struct lsim_pattern_options."""
    _fields_ = [("wall_distance_m", ctypes.c_double), ("report", ctypes.c_int), ("warnings", ctypes.c_int)]


class PatternScanInfo(ctypes.Structure):
    """struct lsim_pattern_scan_info."""
    _fields_ = [
        ("rows", ctypes.c_size_t), ("beams", ctypes.c_size_t), ("has_time", ctypes.c_int), ("has_ring", ctypes.c_int),
        ("time_shift_s", ctypes.c_double), ("distance_m", ctypes.c_double), ("normal", ctypes.c_double * 3),
        ("rms_m", ctypes.c_double), ("max_m", ctypes.c_double), ("planar", ctypes.c_int),
        ("distance_matches", ctypes.c_int),
    ]


class DatasetRunOptions(ctypes.Structure):
    """struct lsim_dataset_run_options."""
    _fields_ = [
        ("frames", ctypes.c_size_t), ("seed_given", ctypes.c_int), ("seed", ctypes.c_uint64),
        ("shard", ctypes.c_uint), ("shards", ctypes.c_uint), ("rank", ctypes.c_uint), ("ranks", ctypes.c_uint),
        ("threads", ctypes.c_int), ("progress", ctypes.c_int), ("stop_after", ctypes.c_size_t),
        ("points_format", ctypes.c_int),
    ]


class DatasetRunStats(ctypes.Structure):
    """struct lsim_dataset_run_stats."""
    _fields_ = [(n, ctypes.c_size_t) for n in ("frames", "mine", "done_before", "written", "points")] + [
        ("seconds", ctypes.c_double)] + [(n, ctypes.c_size_t) for n in (
            "redone", "first_redone", "empty", "first_empty", "cleaned")]


PROGRESS = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_double)


# structures of point files and pictures
class RenderOptions(ctypes.Structure):
    """struct lsim_render_options."""
    _fields_ = [("view", ctypes.c_int), ("color", ctypes.c_int), ("width", ctypes.c_int), ("height", ctypes.c_int),
                ("extent_m", ctypes.c_double), ("title", ctypes.c_char_p)]


class RecordingOptions(ctypes.Structure):
    """struct lsim_recording_options."""
    _fields_ = [("frame", ctypes.c_int64), ("partial", ctypes.c_int), ("fields", ctypes.c_uint32)]


class RenderLayout(ctypes.Structure):
    """struct lsim_render_layout."""
    _fields_ = [(n, ctypes.c_int) for n in ("plot_x0", "plot_y0", "plot_x1", "plot_y1", "key_x0", "key_y0", "key_x1",
                                            "key_y1", "title_y0", "title_y1")] + [
        ("value_lo", ctypes.c_double), ("value_hi", ctypes.c_double), ("drawn", ctypes.c_size_t),
        ("classes", ctypes.c_int)]


# structures of lidarsim compare
class CompareOptions(ctypes.Structure):
    """struct lsim_compare_options."""
    _fields_ = [("match", ctypes.c_int), ("columns", ctypes.c_int), ("rings", ctypes.c_int)]


class CompareErrors(ctypes.Structure):
    """struct lsim_compare_errors."""
    _fields_ = [("count", ctypes.c_uint64)] + [(n, ctypes.c_double) for n in ("median", "median_abs", "mean_abs",
                                                                              "rmse", "p95_abs")]


class CompareStats(ctypes.Structure):
    """struct lsim_compare_stats."""
    _fields_ = [(n, ctypes.c_uint64) for n in ("both_hit", "real_only", "sim_only", "both_miss")] + [
        (n, ctypes.c_double) for n in ("precision", "recall", "f1")] + [
        (n, CompareErrors) for n in ("range", "intensity", "reflectivity")] + [("chamfer_m", ctypes.c_double)]


# structures of lidarsim twin
class TwinOptions(ctypes.Structure):
    """struct lsim_twin_options."""
    _fields_ = [("calibration", ctypes.c_char_p), ("sensor", ctypes.c_char_p), ("poses", ctypes.c_char_p),
                ("frames", ctypes.POINTER(ctypes.c_int64)), ("frame_count", ctypes.c_size_t),
                ("pose_time", ctypes.c_double), ("reflectance_levels", ctypes.c_int),
                ("shadow_angle_deg", ctypes.c_double), ("drop_model", ctypes.c_int), ("partial", ctypes.c_int),
                ("naive", ctypes.c_int), ("progress", ctypes.c_int)]


class TwinStats(ctypes.Structure):
    """struct lsim_twin_stats."""
    _fields_ = [(n, ctypes.c_uint64) for n in ("frames", "points", "transient", "fused", "triangles")] + [
        ("materials", ctypes.c_int), ("drop_beams", ctypes.c_uint64), ("drop_rate", ctypes.c_double)]


# structures of calibrate and validate


class CalibrateOptions(ctypes.Structure):
    """struct lsim_calibrate_options."""
    _fields_ = [
        ("scan_path", ctypes.c_char_p), ("name", ctypes.c_char_p),
        ("width_m", ctypes.c_double), ("distance_m", ctypes.c_double),
        ("brdf", ctypes.c_int), ("roughness", ctypes.c_double), ("ior", ctypes.c_double),
        ("bin_width_deg", ctypes.c_double), ("sensor", ctypes.c_char_p),
        ("direction_deg", ctypes.c_double), ("window_deg", ctypes.c_double),
        ("seed", ctypes.c_uint64), ("view_dir", ctypes.c_char_p),
        ("report", ctypes.c_int), ("report_path", ctypes.c_char_p), ("progress", ctypes.c_int),
    ]


class ValidateOptions(ctypes.Structure):
    """struct lsim_validate_options."""
    _fields_ = [
        ("bin_width_deg", ctypes.c_double), ("seed", ctypes.c_uint64), ("threads", ctypes.c_int),
        ("holdout", ctypes.c_int), ("report", ctypes.c_int), ("report_path", ctypes.c_char_p),
        ("progress", ctypes.c_int),
    ]


class ValidateResult(ctypes.Structure):
    """struct lsim_validate_result."""
    _fields_ = [("materials", ctypes.c_size_t), ("failed", ctypes.c_size_t)]




# structures of the benchmarks and the viewer
class BenchOptions(ctypes.Structure):
    """struct lsim_bench_options."""
    _fields_ = [
        ("kind", ctypes.c_int), ("threads", ctypes.c_int), ("repeat", ctypes.c_int), ("json", ctypes.c_int),
        ("progress", ctypes.c_int), ("report_path", ctypes.c_char_p),
        ("beams", ctypes.c_size_t * 16), ("beam_count", ctypes.c_int), ("triangles", ctypes.c_size_t),
        ("engine", ctypes.c_int), ("moving", ctypes.c_int), ("fields", ctypes.c_uint32), ("noise", ctypes.c_int),
        ("rings", ctypes.c_int),
        ("scenes_dir", ctypes.c_char_p), ("baselines_dir", ctypes.c_char_p),
        ("config", ctypes.c_char_p), ("frames", ctypes.c_long), ("program", ctypes.c_char_p), ("mpi", ctypes.c_int),
    ]


class ViewOptions(ctypes.Structure):
    """struct lsim_view_options."""
    _fields_ = [
        ("scene", ctypes.c_char_p), ("screenshot", ctypes.c_char_p),
        ("width", ctypes.c_int), ("height", ctypes.c_int),
        ("has_camera", ctypes.c_int), ("eye", ctypes.c_double * 3), ("target", ctypes.c_double * 3),
        ("has_sensor_position", ctypes.c_int), ("sensor_position", ctypes.c_double * 3),
        ("has_sensor_yaw", ctypes.c_int), ("sensor_yaw_deg", ctypes.c_double),
        ("max_beams", ctypes.c_long), ("colour_by_label", ctypes.c_int), ("colour_by_material", ctypes.c_int),
        ("hide_beams", ctypes.c_int), ("threads", ctypes.c_int), ("quiet", ctypes.c_int),
    ]


_P = ctypes.POINTER
_SIGNATURES = {
    "lsim_status_string": (cstr, [status]),
    "lsim_version_string": (cstr, []),
    "lsim_sensor_describe": (size_t, [vp, ctypes.c_char_p, size_t]),
    "lsim_context_create": (status, [_P(vp)]),
    "lsim_context_destroy": (None, [vp]),
    "lsim_context_last_error": (cstr, [vp]),
    "lsim_context_last_status": (status, [vp]),
    "lsim_context_set_import_limits": (status, [vp, dbl, dbl]),
    "lsim_context_track_inputs": (status, [vp, i32]),
    "lsim_context_check_output": (status, [vp, cstr]),
    # sensor
    "lsim_sensor_preset_names": (_P(cstr), []),
    "lsim_sensor_preset_description": (cstr, [cstr]),
    "lsim_sensor_create_preset": (status, [vp, cstr, _P(vp)]),
    "lsim_sensor_create_calibrated": (status, [vp, cstr, _P(vp)]),
    "lsim_sensor_create_rotating": (status, [vp, i32, c_double_p, i32, dbl, _P(vp)]),
    "lsim_sensor_create_planar": (status, [vp, dbl, i32, dbl, _P(vp)]),
    "lsim_sensor_create_camera": (status, [vp, i32, i32, dbl, dbl, dbl, _P(vp)]),
    "lsim_sensor_create_pattern": (status, [vp, size_t, c_double_p, c_double_p, c_double_p, c_uint16_p, _P(vp)]),
    "lsim_sensor_destroy": (None, [vp]),
    "lsim_sensor_set_pose": (status, [vp, c_double_p, c_double_p]),
    "lsim_sensor_set_motion": (status, [vp, c_double_p, c_double_p]),
    "lsim_sensor_set_trajectory": (status, [vp, size_t, c_double_p, c_double_p, c_double_p]),
    "lsim_sensor_get_pose_at": (status, [vp, dbl, c_double_p]),
    "lsim_sensor_set_range": (status, [vp, dbl, dbl]),
    "lsim_sensor_set_noise": (status, [vp, dbl, dbl, dbl]),
    "lsim_sensor_set_noise_model": (status, [vp, i32, dbl]),
    "lsim_sensor_set_beam": (status, [vp, dbl, i32, i32]),
    "lsim_sensor_set_beam_layout": (status, [vp, i32]),
    "lsim_sensor_set_kernel": (status, [vp, dbl, dbl, dbl, cstr, i32, dbl]),
    "lsim_sensor_set_receiver": (status, [vp, dbl, i32, i32]),
    "lsim_sensor_set_cw_receiver": (status, [vp, c_double_p, i32, i32, c_double_p]),
    "lsim_sensor_set_overlap": (status, [vp, dbl, dbl]),
    "lsim_sensor_set_receiver_overlap": (status, [vp, dbl, c_double_p, c_double_p, size_t]),
    "lsim_sensor_set_ambient_rise": (status, [vp, dbl]),
    "lsim_sensor_set_baseline": (status, [vp, c_double_p]),
    "lsim_sensor_beam_count": (size_t, [vp]),
    "lsim_sensor_get_beams": (status, [vp, c_double_p, c_double_p, c_double_p, c_uint16_p]),
    "lsim_sensor_get_beam_origins": (status, [vp, c_double_p]),
    "lsim_sensor_name": (cstr, [vp]),
    "lsim_sensor_set_range_resolution": (status, [vp, dbl]),
    "lsim_sensor_get_range": (status, [vp, c_double_p, c_double_p, c_double_p]),
    "lsim_sensor_get_noise": (status, [vp, c_double_p, c_double_p, c_double_p]),
    # scene
    "lsim_object_desc_init": (None, [_P(ObjectDesc)]),
    "lsim_scene_create": (status, [vp, _P(vp)]),
    "lsim_scene_load": (status, [vp, cstr, _P(vp), _P(vp)]),
    "lsim_scene_destroy": (None, [vp]),
    "lsim_scene_add_lambertian": (status, [vp, cstr, dbl]),
    "lsim_material_desc_init": (None, [_P(MaterialDesc), i32]),
    "lsim_scene_add_material": (status, [vp, cstr, _P(MaterialDesc)]),
    "lsim_scene_add_calibrated_material": (status, [vp, cstr, cstr, cstr]),
    "lsim_scene_set_max_bounces": (status, [vp, i32]),
    "lsim_scene_set_atmosphere": (status, [vp, dbl, dbl]),
    "lsim_scene_set_visibility": (status, [vp, dbl]),
    "lsim_scene_set_ambient": (status, [vp, c_double_p, dbl]),
    "lsim_scene_set_label_id": (status, [vp, cstr, ctypes.c_uint32]),
    "lsim_scene_add_box": (status, [vp, c_double_p, _P(ObjectDesc)]),
    "lsim_scene_add_sphere": (status, [vp, dbl, _P(ObjectDesc)]),
    "lsim_scene_add_plane": (status, [vp, c_double_p, _P(ObjectDesc)]),
    "lsim_scene_add_mesh": (status, [vp, cstr, _P(ObjectDesc)]),
    "lsim_scene_add_triangles": (status, [vp, c_float_p, size_t, c_uint32_p, size_t, _P(ObjectDesc)]),
    "lsim_scene_set_engine": (status, [vp, i32]),
    "lsim_raster_options_init": (None, [_P(RasterOptions)]),
    "lsim_scene_set_raster_options": (status, [vp, _P(RasterOptions)]),
    "lsim_scene_commit": (status, [vp]),
    "lsim_scene_set_object_pose": (status, [vp, cstr, c_double_p, c_double_p]),
    "lsim_scene_get_object_pose": (status, [vp, cstr, c_double_p, c_double_p]),
    "lsim_scene_triangle_count": (size_t, [vp]),
    "lsim_scene_object_count": (size_t, [vp]),
    # scan and points
    "lsim_scan_options_init": (None, [_P(ScanOptions)]),
    "lsim_scene_scan": (status, [vp, vp, _P(ScanOptions), _P(vp)]),
    "lsim_scene_scan_into": (status, [vp, vp, _P(ScanOptions), vp]),
    "lsim_field_name": (cstr, [i32]),
    "lsim_field_get_type": (i32, [i32]),
    "lsim_points_create": (status, [vp, _P(vp)]),
    "lsim_points_count": (size_t, [vp]),
    "lsim_points_column": (vp, [vp, i32]),
    "lsim_points_fields": (ctypes.c_uint32, [vp]),
    "lsim_points_sensor_pose": (status, [vp, c_double_p]),
    "lsim_points_destroy": (None, [vp]),
    "lsim_points_get_stats": (status, [vp, _P(ScanStats)]),
    "lsim_format_parse": (status, [cstr, _P(i32)]),
    "lsim_format_fields": (ctypes.c_uint32, [i32]),
    "lsim_points_write": (status, [vp, cstr, i32]),
    "lsim_format_columns": (ctypes.c_uint32, [i32, ctypes.c_uint32]),
    "lsim_points_write_fields": (status, [vp, cstr, i32, ctypes.c_uint32]),
    "lsim_points_write_recording": (status, [vp, vp, cstr, cstr, ctypes.c_uint32]),
    "lsim_scene_scan_write": (status, [vp, vp, _P(ScanOptions), cstr, i32, _P(ScanStats)]),
    "lsim_scene_scan_write_frames": (status, [vp, vp, _P(ScanOptions), ctypes.c_uint, cstr, i32, _P(ScanStats)]),
    "lsim_points_write_birdseye": (status, [vp, cstr, i32, dbl]),
    "lsim_points_write_range_image": (status, [vp, cstr, dbl]),
    # fit
    "lsim_fit_create": (status, [vp, vp, i32, _P(vp)]),
    "lsim_fit_destroy": (None, [vp]),
    "lsim_fit_set_scan": (status, [vp, c_float_p, size_t]),
    "lsim_fit_set_scan_intensity": (status, [vp, c_float_p, size_t, dbl]),
    "lsim_fit_add_reflectance": (status, [vp, cstr]),
    "lsim_fit_add_cw_bias": (status, [vp]),
    "lsim_fit_add_object_pose": (status, [vp, cstr, i32]),
    "lsim_fit_parameter_count": (size_t, [vp]),
    "lsim_fit_get_parameters": (status, [vp, c_double_p]),
    "lsim_fit_set_parameters": (status, [vp, c_double_p, size_t]),
    "lsim_fit_parameter_name": (status, [vp, size_t, ctypes.c_char_p, size_t]),
    "lsim_fit_set_bounds": (status, [vp, size_t, dbl, dbl]),
    "lsim_fit_set_loss": (status, [vp, i32, dbl]),
    "lsim_fit_evaluate": (status, [vp, c_double_p, c_double_p, c_double_p]),
    "lsim_fit_get_residuals": (status, [vp, size_t, c_uint8_p, c_float_p, c_double_p]),
    "lsim_fit_run": (status, [vp, i32, PROGRESS, vp, _P(FitResult)]),
    # point files: output checks, reading back, pictures
    "lsim_format_name": (cstr, [i32]),
    "lsim_format_resolve": (status, [vp, cstr, i32, _P(i32)]),
    "lsim_points_check_output": (status, [vp, cstr, i32, _P(i32)]),
    "lsim_path_check_writable": (status, [vp, cstr]),
    "lsim_points_file_remove": (status, [vp, cstr, i32]),
    "lsim_scene_scan_write_progress": (status, [vp, vp, _P(ScanOptions), ctypes.c_uint, cstr, i32, i32,
                                                _P(ScanStats)]),
    "lsim_points_read": (status, [vp, cstr, ctypes.c_uint32, _P(vp)]),
    "lsim_recording_options_init": (None, [_P(RecordingOptions)]),
    "lsim_points_read_recording": (status, [vp, cstr, cstr, _P(RecordingOptions), _P(vp)]),
    "lsim_recording_count_frames": (status, [vp, cstr, cstr, _P(RecordingOptions), _P(ctypes.c_uint64)]),
    "lsim_render_options_init": (None, [_P(RenderOptions)]),
    "lsim_points_render": (status, [vp, cstr, _P(RenderOptions), _P(RenderLayout)]),

    # calibrate, validate, output sets
    "lsim_context_remove_partial_outputs": (status, [vp]),
    "lsim_calibration_name_valid": (i32, [cstr]),
    "lsim_calibration_brdf_parse": (i32, [cstr, _P(i32)]),
    "lsim_calibrate_options_init": (None, [_P(CalibrateOptions)]),
    "lsim_calibrate_run": (status, [vp, cstr, cstr, _P(CalibrateOptions)]),
    "lsim_validate_options_init": (None, [_P(ValidateOptions)]),
    "lsim_validate_run": (status, [vp, cstr, cstr, _P(ValidateOptions), _P(ValidateResult)]),

    # fit files, patterns, datasets
    "lsim_fit_file_options_init": (None, [_P(FitFileOptions)]),
    "lsim_fit_file_run": (status, [vp, cstr, cstr, _P(FitFileOptions), _P(FitFileResult)]),
    "lsim_pattern_options_init": (None, [_P(PatternOptions)]),
    "lsim_pattern_from_scan": (status, [vp, cstr, cstr, _P(PatternOptions), _P(PatternScanInfo)]),
    "lsim_dataset_load": (status, [vp, cstr, _P(vp)]),
    "lsim_dataset_destroy": (None, [vp]),
    "lsim_dataset_run_options_init": (None, [_P(DatasetRunOptions)]),
    "lsim_dataset_run": (status, [vp, cstr, _P(DatasetRunOptions), _P(DatasetRunStats)]),

    # benchmarks, viewer
    "lsim_bench_kind_name": (cstr, [i32]),
    "lsim_bench_options_init": (None, [_P(BenchOptions), i32]),
    "lsim_bench_run": (status, [vp, _P(BenchOptions)]),
    "lsim_view_options_init": (None, [_P(ViewOptions)]),
    "lsim_view_run": (status, [vp, _P(ViewOptions)]),

    # compare
    "lsim_compare_options_init": (None, [_P(CompareOptions)]),
    "lsim_compare_points": (status, [vp, vp, vp, _P(CompareOptions), _P(vp)]),
    "lsim_compare_get_layout": (status, [vp, _P(i32), _P(i32), _P(i32), _P(ctypes.c_double)]),
    "lsim_compare_get_stats": (status, [vp, i32, i32, _P(CompareStats)]),
    "lsim_compare_write_report": (status, [vp, cstr, cstr, cstr]),
    "lsim_compare_destroy": (None, [vp]),

    # twin
    "lsim_twin_options_init": (None, [_P(TwinOptions)]),
    "lsim_twin_build": (status, [vp, cstr, _P(TwinOptions), cstr, _P(TwinStats)]),

}

# Which handle each `vp` argument (in) and each `_P(vp)` argument (out) of a function is: by default
# the function's prefix (lsim_scene_... takes a scene), or a context for the functions that take one
# first; listed where it differs. A name None leaves that argument a plain pointer (a user pointer).
_CTX_FIRST = ("lsim_sensor_create_", "lsim_scene_create", "lsim_scene_load", "lsim_points_create",
              "lsim_points_read", "lsim_format_resolve", "lsim_points_check_output", "lsim_path_check_writable",
              "lsim_points_file_remove", "lsim_calibrate_run", "lsim_validate_run", "lsim_fit_file_run",
              "lsim_pattern_from_scan", "lsim_dataset_load", "lsim_bench_run", "lsim_view_run",
              "lsim_recording_count_frames", "lsim_twin_build")
_IN = {"lsim_scene_scan": ("scene", "sensor"), "lsim_scene_scan_into": ("scene", "sensor", "points"),
       "lsim_scene_scan_write": ("scene", "sensor"), "lsim_scene_scan_write_frames": ("scene", "sensor"),
       "lsim_scene_scan_write_progress": ("scene", "sensor"), "lsim_fit_create": ("scene", "sensor"),
       "lsim_fit_run": ("fit", None), "lsim_points_write_recording": ("points", "sensor"),
       "lsim_compare_points": ("context", "points", "points")}
_OUT = {"lsim_scene_load": ("scene", "sensor"), "lsim_scene_scan": ("points",), "lsim_points_read": ("points",),
        "lsim_points_read_recording": ("points",),
        "lsim_dataset_load": ("dataset",), "lsim_context_create": ("context",)}


def _handle_kinds(name, table, default):
    if name in table:
        return list(table[name])
    if default == "in" and name.startswith(_CTX_FIRST):
        return ["context"]
    for kind in ("context", "scene", "sensor", "points", "fit", "dataset"):
        if name.startswith("lsim_%s_" % kind):
            return [kind] * 8
    return []


def _typed(name, args):
    """args with each vp / _P(vp) replaced by its handle type (see _IN, _OUT)."""
    ins, outs = _handle_kinds(name, _IN, "in"), _handle_kinds(name, _OUT, "out")
    if name.startswith(_CTX_FIRST) and name not in _OUT:
        outs = [n for n in ("scene", "sensor", "points", "fit", "dataset") if n in name] or outs
    out = []
    for a in args:
        if a is vp and ins:
            kind = ins.pop(0)
            a = _HANDLES[kind] if kind else a
        elif a is _P(vp) and outs:
            a = _P(_HANDLES[outs.pop(0)])
        out.append(a)
    return out


for _name, (_res, _args) in _SIGNATURES.items():
    try:
        _fn = getattr(lib, _name)
    except AttributeError as e:
        raise ImportError("lidarsim: '%s' does not export %s (an older or different liblidarsim.so?); set "
                          "LIDARSIM_LIBRARY to the library of this checkout" % (library_path, _name)) from e
    _fn.restype = _res
    _fn.argtypes = _typed(_name, _args)
