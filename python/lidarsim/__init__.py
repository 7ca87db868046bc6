"""lidarsim: a LiDAR simulator, in Python over liblidarsim.so (ctypes, the public C API of
include/lidarsim.h only).

    import lidarsim
    scene, sensor = lidarsim.load("examples/street/street.yaml")
    pts = scene.scan(sensor, seed=7)          # numpy structured array: pts["x"], pts["label"], ...
    lidarsim.write(pts, "street.pcd")
    back = lidarsim.read("street.pcd")        # a point file lidarsim wrote (CSV, PCD, PLY, KITTI .bin)
    lidarsim.render(back, "street.png", view="bev", color="label")

The shared library is found through LIDARSIM_LIBRARY, next to the package, or in the build tree
(lidarsim._lib's docstring gives the order). lidarsim.tools has the command line's tools as calls
into the library: calibrate, validate, dataset, fit_file, pattern_from_scan.
"""
from ._base import (Error, InvalidArgumentError, FileError, ParseError, OutOfMemoryError, EngineError,  # noqa: F401
                    NotFoundError, StateError, FIELD_NAMES, FIELDS_ALL, field_dtype, fields_mask, format_fields)
from ._sensor import preset_names, preset_description, Sensor  # noqa: F401
from ._points import Points, PointBuffer, write  # noqa: F401
from ._scene import Scene, load, version  # noqa: F401
from ._fit import Fit, FitResult  # noqa: F401
from ._files import (read, recording_frames, render, format_name, format_resolve, check_output,  # noqa: F401
                     check_writable, remove_file)
from ._compare import compare  # noqa: F401
from ._twin import twin  # noqa: F401
from ._lib import library_path  # noqa: F401
from . import tools  # noqa: F401

__version__ = "0.1.0"
__all__ = ["Error", "InvalidArgumentError", "FileError", "ParseError", "OutOfMemoryError", "EngineError",
           "NotFoundError", "StateError", "FIELD_NAMES", "FIELDS_ALL", "field_dtype", "fields_mask", "format_fields",
           "preset_names", "preset_description", "Sensor", "Scene", "Points", "PointBuffer", "write", "load", "Fit",
           "read", "render", "format_name", "format_resolve", "check_output", "check_writable", "remove_file",
           "FitResult", "library_path", "tools", "version", "compare", "twin"]
