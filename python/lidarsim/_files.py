"""Point files and pictures of points (include/lidarsim.h): read a point file that
lidarsim wrote back into Points (lsim_points_read), draw points as a PNG (lsim_points_render, what
`lidarsim render` draws), and the output checks `lidarsim scan` makes before a scan (format from a
path, whether a file can be written there)."""
import ctypes

from . import _lib
from ._lib import lib
from ._base import (_Context, _b, _c_int, _format, _enum, _FIELD_INDEX, fields_mask, InvalidArgumentError,
                    NotFoundError)
from ._points import _Buffer, Points, _to_array

_VIEWS = {"bev": 0, "birdseye": 0, "range": 1, "perspective": 2}


def read(path, fields=None, metadata=None, frame=None, partial=False):
    """Read a point file lidarsim wrote (lsim_points_read): CSV with a header line, PCD (ascii or
    binary), PLY (ascii or binary), LAS 1.0-1.4 (any writer's: x, y, z, intensity / 65535 as
    reflectivity, returns, GPS time, and lidarsim's extra bytes) or a KITTI .bin (with the .label
    beside it, when there is one); or one frame of a real recording (lsim_points_read_recording):
    a pcap of an Ouster's packets with `metadata` its metadata JSON, or of a Velodyne's with
    `metadata` its laser table (JSON, ROS YAML, VeloView XML; None: the model's built-in table).
    `frame` (from 0; None: 0) counts complete frames, or every frame with `partial`; giving
    metadata, frame or partial, or a .pcap/.pcapng path, reads a recording (docs/formats.md).
    Returns Points: a numpy structured array with one column per field the file holds (or, with
    `fields`, names or a mask, only those of them; x, y and z always) that can be written again
    (lidarsim.write, Points.write) or drawn (lidarsim.render). Raises FileError when the file cannot
    be opened, ParseError ("FILE:LINE: ...") when it is malformed or lacks x, y or z,
    InvalidArgumentError for an MCAP file (not read back) or a recording without the calibration it
    needs, NotFoundError for a frame the recording does not hold."""
    ctx = _Context()
    h = _lib.PointsHandle()
    mask = 0 if fields is None else fields_mask(fields)
    name = str(path)
    if metadata is not None or frame is not None or partial or name.lower().endswith((".pcap", ".pcapng")):
        o = _lib.RecordingOptions()
        lib.lsim_recording_options_init(ctypes.byref(o))
        o.frame = 0 if frame is None else int(frame)
        o.partial = 1 if partial else 0
        o.fields = mask
        ctx.check(lib.lsim_points_read_recording(ctx.h, _b(path, "path"),
                                                 None if metadata is None else _b(metadata, "metadata"),
                                                 ctypes.byref(o), ctypes.byref(h)))
    else:
        ctx.check(lib.lsim_points_read(ctx.h, _b(path, "path"), mask, ctypes.byref(h)))
    buf = _Buffer(h, ctx)
    return Points(_to_array(buf), buf)


def recording_frames(path, metadata=None, partial=False):
    """The frames a recording holds (lsim_recording_count_frames), as lidarsim.read counts them:
    complete frames, or every frame with `partial`. Errors as lidarsim.read's."""
    ctx = _Context()
    o = _lib.RecordingOptions()
    lib.lsim_recording_options_init(ctypes.byref(o))
    o.partial = 1 if partial else 0
    n = ctypes.c_uint64(0)
    cal = None if metadata is None else _b(metadata, "metadata")
    ctx.check(lib.lsim_recording_count_frames(ctx.h, _b(path, "path"), cal, ctypes.byref(o), ctypes.byref(n)))
    return int(n.value)


def render(points, path, view="bev", color=None, size=(1024, 768), extent=None, title=None):
    """Draw points as a PNG at `path` (lsim_points_render, written atomically), as `lidarsim render`
    does: `points` is the Points of scene.scan or lidarsim.read, or a point file's path (read with
    only the fields needed). view: "bev" (bird's-eye, x up, y left), "range" (azimuth x elevation) or
    "perspective" (90 degrees along +x from the sensor); color: the field that colours the points
    ("intensity": log scale, "label": SemanticKITTI colours with a legend, any other field: linear
    colour bar; None: "intensity", or "reflectivity" where the points have no intensity, as LAS); size: (width, height) in pixels, 200..8192 each; extent: metres, the bird's-eye
    view's half width (None: 50) or, for the other views, the farthest range drawn (None: all);
    title: None for "VIEW view, coloured by FIELD"; either is followed by "(N of M points in view)".
    A world-frame scan (or a PCD read back with its VIEWPOINT) is drawn from its sensor: the
    bird's-eye view centred on it, the others from its pose. Returns the layout as a dict (plot,
    key and title pixel boxes, value_lo and value_hi of the colour bar, drawn points, classes).
    Raises NotFoundError when the points lack the colour field, InvalidArgumentError for a bad
    size, view or extent, FileError when the PNG cannot be written."""
    default = color is None
    if default:
        color = "intensity"
    if isinstance(color, str):
        if color not in _FIELD_INDEX:
            raise NotFoundError(6, "lidarsim.render: unknown colour field '%s' (fields: %s)"
                                % (color, ", ".join(_FIELD_INDEX)))
        field = _FIELD_INDEX[color]
    else:
        field = _c_int(color, _lib.i32, "color")
    if not isinstance(points, Points):
        if not isinstance(points, (str, bytes)) and not hasattr(points, "__fspath__"):
            raise TypeError("lidarsim.render: expected Points or a point file's path, got %s" % type(points).__name__)
        points = read(points, fields=(1 << _FIELD_INDEX["x"]) | (1 << _FIELD_INDEX["y"]) |
                      (1 << _FIELD_INDEX["z"]) | (1 << field) | (1 << _FIELD_INDEX["reflectivity"]) * default)
    if default and "intensity" not in points.dtype.names and "reflectivity" in points.dtype.names:
        field = _FIELD_INDEX["reflectivity"]
    b = points._handle()
    o = _lib.RenderOptions()
    lib.lsim_render_options_init(ctypes.byref(o))
    o.view = _enum(_VIEWS, view, "view")
    o.color = field
    try:
        width, height = size
    except (TypeError, ValueError):
        raise InvalidArgumentError(1, "lidarsim.render: size must be (width, height), got %r" % (size,)) from None
    o.width, o.height = _c_int(width, _lib.i32, "size"), _c_int(height, _lib.i32, "size")
    o.extent_m = 0.0 if extent is None else float(extent)
    o.title = None if title is None else _b(title, "title")
    lay = _lib.RenderLayout()
    b.ctx.check(lib.lsim_points_render(b.h, _b(path, "path"), ctypes.byref(o), ctypes.byref(lay)))
    return {n: getattr(lay, n) for n, _ in lay._fields_}


def format_name(fmt):
    """The name of a format ("pcd", "pcd-ascii", "ply", "kitti", "csv", "las", "mcap", "auto")."""
    return lib.lsim_format_name(_format(fmt)).decode()


def format_resolve(path, format=None):
    """The format a point file at `path` is written in (lsim_format_resolve): `format` itself, or
    from the extension when it is None; returned by name. Raises InvalidArgumentError for an
    unknown or missing extension."""
    ctx = _Context()
    out = ctypes.c_int()
    ctx.check(lib.lsim_format_resolve(ctx.h, _b(path, "path"), _format(format), ctypes.byref(out)))
    return format_name(out.value)


def check_output(path, format=None):
    """Check that a point cloud can be written at `path` before scanning (lsim_points_check_output,
    then lsim_path_check_writable): the format (name, from the extension when None) must suit the
    path (KITTI needs a .bin name; neither KITTI nor LAS goes to "-"), and the file must be
    creatable there (not a directory, the directory exists and is writable; nothing is left).
    Returns the format's name; raises InvalidArgumentError or FileError with the reason."""
    ctx = _Context()
    out = ctypes.c_int()
    ctx.check(lib.lsim_points_check_output(ctx.h, _b(path, "path"), _format(format), ctypes.byref(out)))
    ctx.check(lib.lsim_path_check_writable(ctx.h, _b(path, "path")))
    return format_name(out.value)


def check_writable(path):
    """Check that a file can be written at `path` (lsim_path_check_writable): not a directory, and
    its directory exists and is writable (probed with a temporary file that is removed at once).
    Returns path; raises FileError naming the path and what to do."""
    ctx = _Context()
    ctx.check(lib.lsim_path_check_writable(ctx.h, _b(path, "path")))
    return path


def remove_file(path, format=None):
    """Remove a point file written earlier (lsim_points_file_remove), e.g. when a later step of a run
    failed: for KITTI (`format`, or a .bin path) also its .label and .labels.yaml; "-", devices,
    FIFOs and missing files are left alone."""
    ctx = _Context()
    ctx.check(lib.lsim_points_file_remove(ctx.h, _b(path, "path"), _format(format)))

