"""lidarsim: Python bindings over liblidarsim.so (ctypes, the public C API of include/lidarsim.h)."""
from ._core import *  # noqa
