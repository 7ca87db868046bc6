"""The module calls only functions of the public header, so that it works with a library that exports
nothing else (the shared library's visibility)."""
import os
import re

from lidarsim import _lib
from conftest import ROOT


def test_only_public_header_functions():
    header = open(os.path.join(ROOT, "include", "lidarsim.h")).read()
    declared = set(re.findall(r"\b(lsim_[a-z0-9_]+)\s*\(", header))
    used = set(_lib._SIGNATURES)
    assert used <= declared, sorted(used - declared)
    # and every function of the header is declared for ctypes
    assert declared <= used, sorted(declared - used)


def test_version_and_describe():
    import lidarsim
    assert lidarsim.version() == lidarsim.__version__
    text = lidarsim.Sensor.preset("vlp16").describe()
    assert "vlp16" in text and "beams: 28928" in text.replace(",", "")
