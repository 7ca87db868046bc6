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


def test_structures_match_the_header(tmp_path):
    """Every ctypes Structure of _lib that says it is `struct lsim_X` has the C struct's size, and each
    of its fields the C field's offset and size (a C program compiled against include/lidarsim.h
    prints them): a field missing, misordered or of the wrong width would corrupt memory silently.
    And every struct the header defines has such a class."""
    import ctypes
    import shutil
    import subprocess
    header = open(os.path.join(ROOT, "include", "lidarsim.h")).read()
    c_structs = set(re.findall(r"typedef struct (lsim_[a-z0-9_]+) \{", header))
    classes = {}
    for obj in vars(_lib).values():
        if isinstance(obj, type) and issubclass(obj, ctypes.Structure) and obj.__doc__:
            m = re.match(r"struct (lsim_[a-z0-9_]+)\.", obj.__doc__.strip())
            if m:
                classes[m.group(1)] = obj
    assert c_structs <= set(classes), "no ctypes class for %s" % sorted(c_structs - set(classes))
    cc = shutil.which("cc") or shutil.which("gcc")
    assert cc, "a C compiler (cc) is needed to read the header's layouts"
    lines = ["#include <stddef.h>", "#include <stdio.h>", '#include "lidarsim.h"', "int main(void) {"]
    for name, cls in sorted(classes.items()):
        lines.append('printf("%%s - %%zu\\n", "%s", sizeof(%s));' % (name, name))
        for field in cls._fields_:
            f = field[0]
            lines.append('printf("%%s %%s %%zu %%zu\\n", "%s", "%s", offsetof(%s, %s), sizeof(((%s *)0)->%s));'
                         % (name, f, name, f, name, f))
    lines += ["return 0;", "}"]
    src, exe = tmp_path / "layout.c", tmp_path / "layout"
    src.write_text("\n".join(lines) + "\n")
    p = subprocess.run([cc, "-std=c11", "-Wall", "-Werror", "-I", os.path.join(ROOT, "include"), str(src), "-o",
                        str(exe)], capture_output=True, text=True)
    assert p.returncode == 0, "a ctypes field the C struct lacks (or misnamed):\n" + p.stderr[-3000:]
    out = subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.splitlines()
    bad = []
    for line in out:
        name, field, *nums = line.split()
        cls = classes[name]
        if field == "-":
            if ctypes.sizeof(cls) != int(nums[0]):
                bad.append("%s: sizeof %d in C, %d in ctypes" % (name, int(nums[0]), ctypes.sizeof(cls)))
            continue
        desc = getattr(cls, field)
        if (desc.offset, desc.size) != (int(nums[0]), int(nums[1])):
            bad.append("%s.%s: offset %s size %s in C, offset %d size %d in ctypes"
                       % (name, field, nums[0], nums[1], desc.offset, desc.size))
    assert not bad, "\n".join(bad)
    assert len(out) == sum(1 + len(c._fields_) for c in classes.values()) > 100  # every field compared


def test_signatures_take_the_header_arguments():
    """Each function's ctypes argtypes has as many entries as the header's prototype has parameters,
    and a function declared void in C has no ctypes result (and vice versa)."""
    header = open(os.path.join(ROOT, "include", "lidarsim.h")).read()
    header = re.sub(r"/\*.*?\*/", " ", header, flags=re.S)
    protos = re.findall(r"LSIM_API\s+([^;(]*?)\b(lsim_[a-z0-9_]+)\s*\(([^;]*?)\)\s*;", header, re.S)
    assert {n for _, n, _ in protos} == set(_lib._SIGNATURES)  # every function parsed
    bad = []
    for ret, name, params in protos:
        depth, count, text = 0, 0, params.strip()
        if text and text != "void":
            count = 1
            for ch in text:
                depth += ch == "("
                depth -= ch == ")"
                count += ch == "," and depth == 0
        res, args = _lib._SIGNATURES[name]
        if len(args) != count:
            bad.append("%s: %d parameters in the header, %d ctypes argtypes" % (name, count, len(args)))
        if (ret.split() == ["void"]) != (res is None):
            bad.append("%s: returns %r in the header, ctypes restype %r" % (name, ret.strip(), res))
    assert not bad, "\n".join(bad)
