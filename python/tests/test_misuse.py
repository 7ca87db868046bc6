"""Misuse of the Python module is refused with an exception naming what is wrong, never a crash or a
silently different result (issue 23): handles of the wrong type, None, numbers or freed objects;
field masks with bits of no field; paths holding a NUL byte; and a scene file named like an option
for lidarsim.tools.scan. The calls that crashed the interpreter before run in a child process."""
import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import lidarsim
from conftest import ROOT

# Time limits only catch hangs: LSIM_TIMEOUT_SCALE (tests/CMakeLists.txt, tests/timeouts.py) widens them.
HANG = max(float(os.environ.get("LSIM_TIMEOUT_SCALE") or 1), 1.0)


def isolated(code):
    """Run `code` (after `import lidarsim`) in a child interpreter: a crash there fails the test
    instead of ending the test run. Returns its stdout."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(ROOT, "python")] + sys.path))
    p = subprocess.run([sys.executable, "-c", "import lidarsim\n" + textwrap.dedent(code)], capture_output=True,
                       text=True, env=env, timeout=HANG * 300)
    assert p.returncode == 0, "child exited with %d (a signal if negative)\n%s" % (p.returncode, p.stderr)
    return p.stdout


def test_wrong_handle_types_raise_typeerror():
    out = isolated("""
        import numpy as np
        scene = lidarsim.Scene()
        scene.add_box((6, 6, 3))
        sensor = lidarsim.Sensor.preset("vlp16")
        fit = lidarsim.Fit(scene, sensor)
        buf = lidarsim.PointBuffer()
        def refused(call, kind=TypeError):
            try:
                call()
            except kind as e:
                print(type(e).__name__ + ": " + str(e))
            else:
                print("ACCEPTED")
        refused(lambda: scene.scan(scene))             # segfaulted: a scene's handle read as a sensor's
        refused(lambda: scene.scan(fit))               # segfaulted: a fit's handle
        refused(lambda: scene.scan(None))
        refused(lambda: scene.scan(7))
        refused(lambda: scene.scan_write(scene, "x.pcd"))
        refused(lambda: scene.scan(sensor, into=scene))
        refused(lambda: scene.scan(sensor, into=np.zeros(3)))
        refused(lambda: lidarsim.Fit(sensor, scene))
        refused(lambda: lidarsim.Fit(scene, None))
        refused(lambda: lidarsim.Fit(scene, buf))
        refused(lambda: lidarsim.Sensor(12345, None))  # a number as a handle: read as a pointer
        refused(lambda: lidarsim.Sensor(scene._h, scene._ctx))
        refused(lambda: lidarsim.Scene(_handle=sensor._h, _ctx=sensor._ctx))
        refused(lambda: lidarsim.write(np.zeros(3), "x.pcd"))
        refused(lambda: lidarsim.render(3, "x.png"))
        gone = lidarsim.Sensor.preset("vlp16")
        gone.__del__()                                 # freed (as at interpreter exit)
        refused(lambda: scene.scan(gone), ValueError)
        refused(lambda: lidarsim.Fit(scene, gone), ValueError)
        print("scan", len(scene.scan(sensor, noise=False)))  # the right objects still work
    """)
    lines = out.splitlines()
    assert "ACCEPTED" not in out, out
    assert len(lines) == 18, out
    assert lines[0] == "TypeError: lidarsim.Scene.scan: sensor must be a lidarsim.Sensor, got Scene"
    assert lines[1] == "TypeError: lidarsim.Scene.scan: sensor must be a lidarsim.Sensor, got Fit"
    assert lines[2] == "TypeError: lidarsim.Scene.scan: sensor must be a lidarsim.Sensor, got None"
    assert lines[3] == "TypeError: lidarsim.Scene.scan: sensor must be a lidarsim.Sensor, got int"
    assert lines[4] == "TypeError: lidarsim.Scene.scan_write: sensor must be a lidarsim.Sensor, got Scene"
    assert lines[5].startswith("TypeError: lidarsim.Scene.scan: into must be a lidarsim.PointBuffer")
    assert lines[5].endswith("got Scene")
    assert lines[6].startswith("TypeError: lidarsim.Scene.scan: into must be") and "ndarray" in lines[6]
    assert lines[7] == "TypeError: lidarsim.Fit: scene must be a lidarsim.Scene, got Sensor"
    assert lines[8] == "TypeError: lidarsim.Fit: sensor must be a lidarsim.Sensor, got None"
    assert lines[9] == "TypeError: lidarsim.Fit: sensor must be a lidarsim.Sensor, got PointBuffer"
    assert lines[10].startswith("TypeError: lidarsim.Sensor cannot be made directly; use Sensor.preset")
    assert lines[11].startswith("TypeError: lidarsim.Sensor cannot be made directly")
    assert lines[12].startswith("TypeError: lidarsim.Scene(engine=None) makes an empty scene")
    assert lines[13] == "TypeError: lidarsim.write: expected the Points that scene.scan() returned, got ndarray"
    assert lines[14] == "TypeError: lidarsim.render: expected Points or a point file's path, got int"
    assert lines[15].startswith("ValueError: lidarsim.Scene.scan: sensor is a lidarsim.Sensor without its library "
                                "handle (freed")
    assert lines[16].startswith("ValueError: lidarsim.Fit: sensor is a lidarsim.Sensor without its library handle")
    scene = lidarsim.Scene()
    scene.add_box((6, 6, 3))
    pts = scene.scan(lidarsim.Sensor.preset("vlp16"), noise=False)
    assert len(pts) >= 28800 and lines[17] == "scan %d" % len(pts)  # every beam of 16 x 1800 hits the box


def test_paths_and_names_of_wrong_type(tmp_path):
    with pytest.raises(TypeError, match=r"path must be a str, bytes or os.PathLike, got int"):
        lidarsim.read(3)
    with pytest.raises(TypeError, match=r"path must be a str, bytes or os.PathLike, got NoneType"):
        lidarsim.load(None)
    with pytest.raises(TypeError, match=r"preset name must be a str, bytes or os.PathLike, got NoneType"):
        lidarsim.Sensor.preset(None)
    scene = lidarsim.Scene()
    with pytest.raises(TypeError, match=r"name must be a str, bytes or os.PathLike, got Scene"):
        scene.add_lambertian(scene, 0.5)
    with pytest.raises(TypeError, match=r"config must be a str, bytes or os.PathLike, got float"):
        lidarsim.tools.dataset(1.5, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_integer_arguments_beyond_c_int_are_refused():
    """Enumerations given as numbers were passed as C ints, which ctypes wraps: 2**32 + 1 was 1."""
    scene = lidarsim.Scene()
    with pytest.raises(lidarsim.InvalidArgumentError, match=r"engine=4294967298 is out of range"):
        scene.set_engine(2**32 + 2)  # would have been 2, the raster engine
    with pytest.raises(lidarsim.InvalidArgumentError, match=r"format=4294967297 is out of range"):
        lidarsim.format_name(2**32 + 1)  # would have been 1, pcd
    with pytest.raises(lidarsim.InvalidArgumentError, match=r"depth_bits=4294967312 is out of range"):
        scene.set_raster_options(depth_bits=2**32 + 16)  # would have been 16
    with pytest.raises(lidarsim.InvalidArgumentError, match=r"ring must hold integers 0..65535"):
        lidarsim.Sensor.pattern([0, 1], [0, 0], ring=[1, 70000])  # would have been ring 4464
    with pytest.raises(lidarsim.InvalidArgumentError, match=r"ring must hold integers"):
        lidarsim.Sensor.pattern([0, 1], [0, 0], ring=[0.5, 1])
    with pytest.raises(lidarsim.InvalidArgumentError, match=r"beams\[0\]=18446744073709551619 is out of range"):
        lidarsim.tools.bench("frame", beams=[2**64 + 3])  # would have been 3
    assert lidarsim.Sensor.pattern([0, 1], [0, 0], ring=[3, 65535]).beams()["ring"].tolist() == [3, 65535]


def test_field_masks_with_unknown_bits_are_refused(tmp_path):
    scene = lidarsim.Scene()
    scene.add_box((6, 6, 3))
    sensor = lidarsim.Sensor.preset("vlp16")
    bit_x = 1 << lidarsim.FIELD_NAMES.index("x")
    with pytest.raises(ValueError, match=r"fields=0x100000001 has bits that name no field \(0x100000000\)"):
        scene.scan(sensor, fields=(1 << 32) | bit_x)  # silently gave only x
    beyond = 1 << len(lidarsim.FIELD_NAMES)
    with pytest.raises(lidarsim.InvalidArgumentError, match=r"\(%#x\)" % beyond):
        scene.scan(sensor, fields=beyond | bit_x)
    with pytest.raises(ValueError, match="negative"):
        scene.scan(sensor, fields=-1)
    with pytest.raises(ValueError, match="name no field"):
        scene.scan_write(sensor, tmp_path / "a.pcd", fields=(1 << 40) | bit_x)
    with pytest.raises(ValueError, match="name no field"):
        lidarsim.field_dtype(1 << 33)
    assert not (tmp_path / "a.pcd").exists()
    pts = scene.scan(sensor, fields=bit_x | (1 << lidarsim.FIELD_NAMES.index("range")), noise=False)
    assert pts.dtype.names == ("x", "range") and len(pts) == len(scene.scan(sensor, noise=False)) >= 28800
    with pytest.raises(ValueError, match="name no field"):
        pts.write(tmp_path / "b.pcd", fields=1 << 32)
    assert lidarsim.fields_mask(lidarsim.FIELDS_ALL) == lidarsim.FIELDS_ALL


def test_paths_with_nul_are_refused(tmp_path):
    scene = lidarsim.Scene()
    scene.add_box((6, 6, 3))
    sensor = lidarsim.Sensor.preset("vlp16")
    pts = scene.scan(sensor, noise=False)
    good = tmp_path / "good.pcd"
    pts.write(good)
    evil = str(tmp_path / "evil.pcd") + "\0.txt"
    for path in (evil, os.fsencode(evil), pathlib.PurePosixPath(evil)):
        calls = [
            lambda: pts.write(path),  # wrote evil.pcd
            lambda: lidarsim.write(pts, path),
            lambda: pts.write_birdseye(path),
            lambda: pts.write_range_image(path),
            lambda: scene.scan_write(sensor, path),
            lambda: lidarsim.render(pts, path),
            lambda: lidarsim.render(path, str(tmp_path / "x.png")),
            lambda: lidarsim.read(path),
            lambda: lidarsim.load(path),
            lambda: lidarsim.check_output(path),
            lambda: lidarsim.check_writable(path),
            lambda: lidarsim.remove_file(path),
            lambda: lidarsim.format_resolve(path),
            lambda: lidarsim.Sensor.from_calibration(path),
            lambda: scene.add_mesh(path),
            lambda: lidarsim.tools.dataset(path, tmp_path / "ds"),
            lambda: lidarsim.tools.dataset(good, path),
            lambda: lidarsim.tools.fit_file(path, tmp_path / "fit.yaml"),
            lambda: lidarsim.tools.pattern_from_scan(good, path),
            lambda: lidarsim.tools.calibrate(path, tmp_path / "cal.yaml"),
            lambda: lidarsim.tools.validate(path, tmp_path / "val"),
            lambda: lidarsim.tools.bench("frame", path),
        ]
        for k, call in enumerate(calls):
            with pytest.raises(ValueError, match="NUL byte at offset %d" % len(str(tmp_path / "evil.pcd"))):
                call()
    with pytest.raises(ValueError, match="NUL"):
        scene.add_lambertian("wall\0paint", 0.5)  # a name is cut short as well
    with pytest.raises(ValueError, match="NUL"):
        scene.add_box((1, 1, 1), label="car\0x")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["good.pcd"]  # nothing written beside it


def test_tools_scan_passes_the_scene_after_double_dash(tmp_path, monkeypatch, cli):
    """`lidarsim.tools.scan('--version', 'out.pcd')` printed the version, returned 0 and wrote
    nothing; the scene file named '--version' is now scanned."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "--version").write_text("sensor:\n  preset: vlp16\nobjects:\n  - box: {size: [6, 6, 3]}\n")
    p = lidarsim.tools.scan("--version", "out.pcd", "--noise", "off")
    assert p.returncode == 0
    back = lidarsim.read(tmp_path / "out.pcd")
    scene, sensor = lidarsim.load(tmp_path / "--version")
    assert len(back) == len(scene.scan(sensor, noise=False)) >= 28800
    (tmp_path / "-o").write_text("sensor:\n  preset: vlp16\nobjects:\n  - box: {size: [8, 8, 3]}\n")
    lidarsim.tools.scan("-o", "-h.csv", noise="off")  # a scene named -o, an output named -h.csv
    scene, sensor = lidarsim.load(tmp_path / "-o")
    assert len(lidarsim.read(tmp_path / "-h.csv")) == len(scene.scan(sensor, noise=False)) >= 28800
    with pytest.raises(lidarsim.tools.CLIError, match="--help"):
        lidarsim.tools.scan("--help", "out2.pcd")  # no such file: an error, not the usage text
    assert not (tmp_path / "out2.pcd").exists()


def test_handles_are_typed_at_the_c_boundary():
    """A handle reaches C only as the header's type: even a method called unbound on another object
    (Sensor.set_pose(scene, ...)) or a raw call with an int raises ctypes.ArgumentError; before,
    each read one struct as another (segfaults)."""
    out = isolated("""
        import ctypes
        from lidarsim import _lib
        scene = lidarsim.Scene()
        scene.add_box((6, 6, 3))
        sensor = lidarsim.Sensor.preset("vlp16")
        def refused(call):
            try:
                call()
            except ctypes.ArgumentError as e:
                print("ArgumentError: " + str(e))
            else:
                print("ACCEPTED")
        refused(lambda: lidarsim.Sensor.set_pose(scene, (0, 0, 1)))   # a scene's handle as a sensor's
        refused(lambda: lidarsim.Scene.commit(sensor))                 # a sensor's as a scene's
        refused(lambda: lidarsim.Scene.set_max_bounces(sensor, 3))
        refused(lambda: _lib.lib.lsim_scene_commit(12345))             # an int as a pointer
        refused(lambda: _lib.lib.lsim_sensor_beam_count(ctypes.c_void_p(scene._h.value)))
        print("beams", _lib.lib.lsim_sensor_beam_count(sensor._h))
    """)
    lines = out.splitlines()
    assert lines[0] == ("ArgumentError: argument 1: TypeError: expected an lsim_sensor handle (lidarsim.SensorHandle), "
                        "got SceneHandle")
    assert lines[1].endswith("expected an lsim_scene handle (lidarsim.SceneHandle), got SensorHandle")
    assert lines[2].endswith("expected an lsim_scene handle (lidarsim.SceneHandle), got SensorHandle")
    assert lines[3].endswith("expected an lsim_scene handle (lidarsim.SceneHandle), got int")
    assert lines[4].endswith("expected an lsim_sensor handle (lidarsim.SensorHandle), got c_void_p")
    assert lines[5] == "beams 28928" and len(lines) == 6


def test_every_handle_parameter_has_its_handle_type():
    """Each parameter the header declares as lsim_context/scene/sensor/points/fit/dataset * (or **)
    has that handle's ctypes type (or a pointer to it), read from the header's prototypes."""
    import ctypes
    import re
    from lidarsim import _lib
    header = open(os.path.join(ROOT, "include", "lidarsim.h")).read()
    header = re.sub(r"/\*.*?\*/", " ", header, flags=re.S)
    protos = re.findall(r"LSIM_API\s+[^;(]*?\b(lsim_[a-z0-9_]+)\s*\(([^;]*?)\)\s*;", header, re.S)
    kinds = {h.kind: h for h in (_lib.ContextHandle, _lib.SceneHandle, _lib.SensorHandle, _lib.PointsHandle,
                                 _lib.FitHandle, _lib.DatasetHandle)}
    bad, seen = [], 0
    for name, params in protos:
        if "(" in params:  # a callback parameter: not a handle
            params = re.sub(r"\([^()]*\)\s*\([^()]*\)", "fn", params)
        if name not in _lib._SIGNATURES:  # test_public_api checks that every function is declared
            continue
        argtypes = getattr(_lib.lib, name).argtypes
        for k, p in enumerate(x.strip() for x in params.split(",")):
            m = re.match(r"(?:const\s+)?lsim_(context|scene|sensor|points|fit|dataset)\s*(\*+)", p)
            if not m:
                continue
            want = kinds[m.group(1)] if m.group(2) == "*" else ctypes.POINTER(kinds[m.group(1)])
            seen += 1
            if argtypes[k] is not want:
                bad.append("%s argument %d (%s): ctypes %r" % (name, k + 1, p, argtypes[k]))
    assert not bad, "\n".join(bad)
    assert seen > 100
