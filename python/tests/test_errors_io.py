"""Errors carry the library's message; writing files through lsim_points_write; library loading."""
import os
import subprocess
import sys

import numpy as np
import pytest

import lidarsim
from conftest import ROOT, read_csv


def test_bad_yaml_names_file_and_line(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("sensor:\n  preset: vlp16\nobjects:\n  - box: {size: [1, 1]}\n")
    with pytest.raises(lidarsim.ParseError) as e:
        lidarsim.load(bad)
    msg = str(e.value)
    assert "%s:4:" % bad in msg and "expected exactly 3 numbers, got 2" in msg
    assert e.value.status == 3 and e.value.status_name and e.value.message == msg
    assert isinstance(e.value, lidarsim.Error)
    unclosed = tmp_path / "unclosed.yaml"
    unclosed.write_text("sensor:\n  preset: vlp16\nobjects:\n  - box: {size: [1, 1, 1]\n    position: [0, 0, 0]\n")
    with pytest.raises(lidarsim.ParseError, match=r"unclosed\.yaml:4:10: .*not closed"):
        lidarsim.load(unclosed)


def test_errors_per_status(tmp_path):
    with pytest.raises(lidarsim.NotFoundError, match="no-such-lidar") as e:
        lidarsim.Sensor.preset("no-such-lidar")
    assert isinstance(e.value, LookupError) and e.value.status == 6
    with pytest.raises(lidarsim.Error) as e:
        lidarsim.load(tmp_path / "missing.yaml")
    assert "missing.yaml" in str(e.value)
    sensor = lidarsim.Sensor.preset("vlp16")
    with pytest.raises(lidarsim.InvalidArgumentError) as e:
        sensor.set_range(5.0, 1.0)
    assert e.value.message  # the library's text, not only the status name
    scene = lidarsim.Scene()
    scene.add_box((1, 1, 1), label="car")
    with pytest.raises(lidarsim.StateError, match="before"):
        scene.set_label_id("mine", 7)  # label ids only before objects
    with pytest.raises(lidarsim.NotFoundError):
        scene.set_object_pose("nobody", (0, 0, 0))
    with pytest.raises(lidarsim.NotFoundError, match="bogus"):
        scene.scan(sensor, fields=["x", "bogus"])


def test_write_pcd_and_read_header(tmp_path, street):
    scene, sensor = street
    pts = scene.scan(sensor, seed=7)
    path = tmp_path / "street.pcd"
    assert lidarsim.write(pts, path) == path
    raw = path.read_bytes()
    header, _, data = raw.partition(b"DATA binary\n")
    lines = dict(l.split(" ", 1) for l in header.decode().splitlines() if l and not l.startswith("#"))
    assert lines["FIELDS"].split() == list(pts.dtype.names)
    assert lines["SIZE"].split() == [str(pts.dtype[n].itemsize) for n in pts.dtype.names]
    assert lines["TYPE"].split() == ["F" if pts.dtype[n].kind == "f" else "U" for n in pts.dtype.names]
    assert int(lines["POINTS"]) == len(pts) and int(lines["WIDTH"]) == len(pts)
    # binary PCD rows are the structured array's packed records
    assert np.array_equal(np.frombuffer(data, dtype=pts.dtype), pts.array)
    # a subset of columns, and CSV
    sub = pts.write(tmp_path / "sub.pcd", fields=["x", "y", "z", "intensity"])
    assert b"FIELDS x y z intensity\n" in open(sub, "rb").read(400)
    csv = lidarsim.write(pts, tmp_path / "street.csv")
    names, cols = read_csv(csv)
    assert names == list(pts.dtype.names) and np.array_equal(cols["x"].astype(np.float32), pts["x"])
    # the writer's errors: a slice has no handle; a missing folder names the path
    with pytest.raises(TypeError):
        lidarsim.write(pts[:10], tmp_path / "slice.pcd")
    with pytest.raises(lidarsim.Error, match="no-such-dir"):
        pts.write(tmp_path / "no-such-dir" / "x.pcd")
    assert not (tmp_path / "no-such-dir").exists()
    # a KITTI file needs its fields; a subset scan lacks them: the library says which
    small = scene.scan(sensor, fields="x,y,z")
    with pytest.raises(lidarsim.Error, match="reflectivity|label"):
        small.write(tmp_path / "k.bin")
    # scan_write: the same bytes as scan + write, without the frame-sized buffer
    stats = scene.scan_write(sensor, tmp_path / "streamed.pcd", seed=7)
    assert stats["hits"] == len(pts)
    assert (tmp_path / "streamed.pcd").read_bytes() == raw
    png = pts.write_birdseye(tmp_path / "bev.png", pixels=256, half_extent_m=30)
    assert open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n"


def test_library_not_found_is_a_clear_import_error(tmp_path):
    env = dict(os.environ, LIDARSIM_LIBRARY=str(tmp_path / "nothing.so"), PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.run([sys.executable, "-c", "import lidarsim"], capture_output=True, text=True, env=env)
    assert p.returncode != 0
    assert "ImportError" in p.stderr and "LIDARSIM_LIBRARY" in p.stderr and "nothing.so" in p.stderr


def _import_in(tmp_path, package_dir, library_dest):
    """Copy the package to package_dir and the library under test to library_dest, then import it
    there with LIDARSIM_LIBRARY unset: the path of the library it loaded."""
    import shutil
    src = os.path.join(ROOT, "python", "lidarsim")
    shutil.copytree(src, package_dir, ignore=shutil.ignore_patterns("__pycache__"))
    os.makedirs(os.path.dirname(library_dest), exist_ok=True)
    shutil.copy(lidarsim.library_path, library_dest)
    env = {k: v for k, v in os.environ.items() if k not in ("LIDARSIM_LIBRARY", "PYTHONPATH")}
    env["PYTHONPATH"] = os.path.dirname(package_dir)
    code = "import lidarsim; print(lidarsim.library_path); print(len(lidarsim.Sensor.preset('vlp16')))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    path, beams = p.stdout.split()
    assert beams == "28928"
    return path


def test_library_search_order(tmp_path):
    # installed layout: PREFIX/lib/python3/dist-packages/lidarsim and PREFIX/lib/liblidarsim.so
    prefix = tmp_path / "prefix"
    lib = prefix / "lib" / "liblidarsim.so"
    assert _import_in(tmp_path, str(prefix / "lib" / "python3" / "dist-packages" / "lidarsim"), str(lib)) == str(lib)
    # a source checkout: REPO/python/lidarsim and REPO/build/liblidarsim.so
    repo = tmp_path / "repo"
    lib = repo / "build" / "liblidarsim.so"
    assert _import_in(tmp_path, str(repo / "python" / "lidarsim"), str(lib)) == str(lib)


def test_scan_write_mcap_frames(tmp_path):
    """Three frames into one MCAP through lsim_scene_scan_write_frames: the file starts and ends
    with the MCAP magic and holds three point-cloud messages' worth of points."""
    import lidarsim
    scene = lidarsim.Scene()
    scene.add_box((10, 8, 4), position=(0, 0, 1.5))
    sensor = lidarsim.Sensor.preset("urg-04lx")
    out = tmp_path / "three.mcap"
    stats = scene.scan_write(sensor, str(out), format="mcap", noise=False, frames=3)
    data = out.read_bytes()
    assert data[:8] == b"\x89MCAP0\r\n" and data[-8:] == b"\x89MCAP0\r\n"
    assert stats["rays"] == 3 * 682 and 0 < stats["hits"] <= 3 * 682


def box_scene():
    scene = lidarsim.Scene()
    scene.add_box((1, 40, 40), position=(10.5, 0, 0), label="building")
    scene.commit()
    return scene, lidarsim.Sensor.planar(90, 31)


def test_paths_as_bytes_and_undecodable_names(tmp_path):
    """A path given as bytes (or a str holding a name that is not UTF-8, as os.fsdecode makes it) names
    that file, not the text "b'...'"."""
    scene, sensor = box_scene()
    pts = scene.scan(sensor, seed=1)
    raw = os.fsencode(tmp_path) + b"/caf\xe9.pcd"
    pts.write(raw)
    assert os.listdir(tmp_path) == [os.fsdecode(b"caf\xe9.pcd")]
    back = lidarsim.read(raw)
    assert len(back) == len(pts) and np.array_equal(back["x"], pts["x"])
    pts.write(os.fsdecode(raw))  # the same file, named by its str
    back = lidarsim.read(os.fsdecode(raw))
    assert len(back) == len(pts)
    lidarsim.render(pts, os.fsencode(tmp_path) + b"/bev.png", extent=15)
    assert sorted(os.listdir(tmp_path)) == sorted(["bev.png", os.fsdecode(b"caf\xe9.pcd")])
    lidarsim.check_writable(os.fsencode(tmp_path) + b"/x.pcd")
    lidarsim.remove_file(raw)
    assert os.listdir(tmp_path) == ["bev.png"]


def test_points_are_read_only(tmp_path):
    """A scanned frame cannot be changed in place (write() would leave the change out); a copy can."""
    scene, sensor = box_scene()
    pts = scene.scan(sensor, seed=1)
    with pytest.raises(ValueError, match="read-only"):
        pts["x"][0] = 100.0
    with pytest.raises(ValueError, match="read-only"):
        pts.array["x"] += 1
    mine = np.array(pts)
    mine["x"] += 100
    assert np.all(mine["x"] > 100) and np.all(pts["x"] < 20)
    pts.write(tmp_path / "p.csv")
    assert np.allclose(lidarsim.read(tmp_path / "p.csv")["x"], pts["x"])


@pytest.mark.parametrize("call", [
    lambda s, n: lidarsim.Sensor.planar(90, 2**32 + 11),
    lambda s, n: lidarsim.Sensor.rotating([0, 1], 2**31),
    lambda s, n: lidarsim.Sensor.camera(-1, 4, 60, 45),
    lambda s, n: n.set_receiver(6, "all", 2**32 + 2),
    lambda s, n: n.set_cw_receiver((1e7, 2e7), samples=2**32 + 16),
    lambda s, n: s.scan(n, threads=2**32 + 1),
    lambda s, n: s.scan(n, seed=2**64 + 5),
    lambda s, n: s.scan(n, seed=-1),
    lambda s, n: s.scan(n, frame_index=2.5),
    lambda s, n: s.set_label_id("mything", 2**32 + 10),
    lambda s, n: s.set_max_bounces(2**31),
    lambda s, n: s.scan_write(n, "never.pcd", frames=2**32 + 1),
    lambda s, n: lidarsim.render(s.scan(n), "never.png", size=(2**32 + 640, 480)),
])
def test_integers_a_c_argument_cannot_hold_are_refused(tmp_path, monkeypatch, call):
    """ctypes would wrap them (2^32 + 11 steps became 11 beams, seed 2^64 + 5 became 5); they are refused
    with InvalidArgumentError naming the argument, and nothing is written."""
    monkeypatch.chdir(tmp_path)
    scene, sensor = box_scene()
    with pytest.raises(lidarsim.InvalidArgumentError, match="out of range|not an integer"):
        call(scene, sensor)
    assert os.listdir(tmp_path) == []
