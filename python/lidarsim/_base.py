"""The pieces every module of the package shares: the errors, the context that holds a call's
last-error text, argument helpers (paths, vectors, enums, C integer fields, progress modes) and
the point fields and file formats."""
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


def _b(s, what="a path or name"):
    """A path or name for C: bytes as they are, str and os.PathLike as the file system encodes them
    (os.fsencode: a name that is not UTF-8 comes back as its bytes). Anything else (None, a number,
    a Scene) raises TypeError naming `what`, and a NUL byte raises ValueError: C would read the text
    only up to it (`evil.pcd\0.txt` would write evil.pcd)."""
    if isinstance(s, (str, bytes, os.PathLike)):
        b = os.fsencode(s)  # bytes as they are; a PathLike's __fspath__, which may be str or bytes
        if b"\0" in b:
            raise ValueError("lidarsim: %s %r holds a NUL byte at offset %d; C would read it only up to there "
                             "(remove the NUL)" % (what, s, b.index(b"\0")))
        return b
    raise TypeError("lidarsim: %s must be a str, bytes or os.PathLike, got %s" % (what, type(s).__name__))


def _b_opt(s, what="a path or name"):
    """_b for an optional argument: None stays None (NULL for C)."""
    return None if s is None else _b(s, what)


# Passed by the package's own factories (Sensor.preset, lidarsim.load, ...) to the constructors that
# take a C handle, so that a handle made elsewhere (an int, another object's) cannot be wrapped.
_OWN = object()


def _handle_of(obj, cls, what, where="lidarsim"):
    """The live C handle of `obj` for the argument `what` of `where`: TypeError naming both and the
    expected class when obj is not a `cls` (None, a number, another lidarsim object: its handle
    would be read as the wrong C type), ValueError when its handle is gone (freed)."""
    if not isinstance(obj, cls):
        raise TypeError("%s: %s must be a lidarsim.%s, got %s" % (where, what, cls.__name__,
                                                                 "None" if obj is None else type(obj).__name__))
    h = getattr(obj, "_h", None)
    if not h:
        raise ValueError("%s: %s is a lidarsim.%s without its library handle (freed, or never made by "
                         "lidarsim); make a new one" % (where, what, cls.__name__))
    return h


def _dvec(v, n, what):
    a = np.ascontiguousarray(v, dtype=np.float64).reshape(-1)
    if a.size != n:
        raise ValueError("lidarsim: %s needs %d numbers, got %d" % (what, n, a.size))
    return a


def _dp(a):
    return a.ctypes.data_as(_lib.c_double_p) if a is not None else None


class _Owned:
    """Owns a C handle in self._h and frees it with the subclass's _free (a ctypes function held
    by the class, so it is still there when instances die at interpreter exit)."""
    _free = None
    _h = None

    def __del__(self):
        h = getattr(self, "_h", None)
        if h:
            self._free(h)
            self._h = None


class _Context:
    """An lsim_context: owns the last-error text of the handles made from it."""

    def __init__(self):
        h = _lib.ContextHandle()
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
    mask (returned as is when every bit names a field; InvalidArgumentError, a ValueError, naming
    the others) or None (every field)."""
    if fields is None:
        return FIELDS_ALL
    if isinstance(fields, (int, np.integer)) and not isinstance(fields, bool):
        mask = int(fields)
        if mask < 0 or mask & ~FIELDS_ALL:
            extra = mask & ~FIELDS_ALL if mask >= 0 else mask
            raise InvalidArgumentError(1, "lidarsim: fields=%#x has bits that name no field (%s); the field bits "
                                          "are 0..%d (LSIM_FIELD_BIT), mask %#x" % (
                                              mask, "negative" if mask < 0 else "%#x" % extra,
                                              len(FIELD_NAMES) - 1, FIELDS_ALL))
        return mask
    if isinstance(fields, bool):
        raise TypeError("lidarsim: fields=%r; give field names, an LSIM_FIELD_BIT mask or None" % fields)
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
        return _c_int(fmt, ctypes.c_int, "format")
    if fmt in _FORMATS:
        return _FORMATS[fmt]
    out = ctypes.c_int()
    st = lib.lsim_format_parse(_b(fmt, "format"), ctypes.byref(out))
    if st:
        _raise(st, "lidarsim: unknown format '%s' (pcd, pcd-ascii, ply, kitti, csv, las, mcap, pcap)" % fmt)
    return out.value


def format_fields(fmt):
    """The field names a file format writes (lsim_format_fields): KITTI's fixed layout, else every field."""
    return _mask_names(lib.lsim_format_fields(_format(fmt)))


def _mask_names(mask):
    return tuple(n for i, n in enumerate(FIELD_NAMES) if mask & (1 << i))


# ------------------------------------------------------------------------------------ arguments

def _enum(table, value, what):
    if isinstance(value, int):
        return _c_int(value, ctypes.c_int, what)
    key = str(value).lower().replace("-", "_")
    if key not in table:
        raise InvalidArgumentError(1, "lidarsim: unknown %s '%s' (one of %s)" % (what, value, ", ".join(table)))
    return table[key]


_PROGRESS = {"off": 0, "auto": 1, "lines": 2, "bar": 3}


def _c_int(value, ctype, what):
    """int(value) for a C integer of type `ctype` (ctypes.c_int, c_uint32, c_size_t, ...), refusing
    (InvalidArgumentError naming `what`) a value it cannot hold -- ctypes would silently wrap -1 into
    2^64 - 1 or 2^32 + 5 into 5."""
    if getattr(ctype, "_type_", None) not in tuple("bBhHiIlLqQ"):
        raise TypeError("lidarsim: %s is not a C integer type" % getattr(ctype, "__name__", ctype))
    bits = 8 * ctypes.sizeof(ctype)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if ctype._type_.islower() else (0, (1 << bits) - 1)
    if isinstance(value, float) and abs(value) != float("inf") and not value.is_integer():
        raise InvalidArgumentError(1, "lidarsim: %s=%r is not an integer" % (what, value))
    try:
        v = int(value)
    except OverflowError:  # an infinite float
        raise InvalidArgumentError(1, "lidarsim: %s=%r is out of range; give %d..%d" % (what, value, lo, hi)) from None
    except (TypeError, ValueError):
        raise InvalidArgumentError(1, "lidarsim: %s=%r is not an integer" % (what, value)) from None
    if not lo <= v <= hi:
        raise InvalidArgumentError(1, "lidarsim: %s=%r is out of range; give %d..%d" % (what, value, lo, hi))
    return v


def _set_int(struct, field, value, what=None):
    """struct.field = value, refused as _c_int refuses it when the C field cannot hold it."""
    ctype = dict(struct._fields_)[field]
    while getattr(ctype, "_length_", None):  # an array's element
        ctype = ctype._type_
    if getattr(ctype, "_type_", None) not in tuple("bBhHiIlLqQ"):
        raise TypeError("lidarsim: %s.%s is not an integer field" % (type(struct).__name__, field))
    setattr(struct, field, _c_int(value, ctype, what or field))


def _progress_mode(progress):
    """lsim_progress_mode of a `progress=` argument: None or False "off", True "auto", a name of
    _PROGRESS ("off", "auto", "lines", "bar") or its number; InvalidArgumentError otherwise."""
    if progress is None or progress is False:
        return 0
    if progress is True:
        return 1
    return _enum(_PROGRESS, progress, "progress mode")
