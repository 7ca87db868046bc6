"""Scans through the Python module: the box room's analytic ranges, bit-for-bit equality with the
CLI's CSV (same noise), the structured array's dtype and the scan options."""
import numpy as np
import pytest

import lidarsim
from conftest import STREET, read_csv, run_cli


def rotation(rpy_deg):
    """R = Rz(yaw) Ry(pitch) Rx(roll), as the library composes it."""
    r, p, y = np.radians(rpy_deg)
    rx = np.array([[1, 0, 0], [0, np.cos(r), -np.sin(r)], [0, np.sin(r), np.cos(r)]])
    ry = np.array([[np.cos(p), 0, np.sin(p)], [0, 1, 0], [-np.sin(p), 0, np.cos(p)]])
    rz = np.array([[np.cos(y), -np.sin(y), 0], [np.sin(y), np.cos(y), 0], [0, 0, 1]])
    return rz @ ry @ rx


def box_exit(o, d, lo, hi):
    """Distance along unit directions d (N, 3) from points o (N, 3) inside [lo, hi] to the box's wall."""
    with np.errstate(divide="ignore"):
        t = np.where(d > 0, (hi - o) / d, np.where(d < 0, (lo - o) / d, np.inf))
    return t.min(axis=1)


@pytest.mark.parametrize("preset,pos,rpy", [
    ("vlp16", (0.5, 0.3, 1.5), (0, 0, 0)),
    ("os1-64", (-1.0, 1.0, 2.2), (5, -10, 30)),      # per-laser origins and a tilted pose
    ("urg-04lx", (2.0, -1.0, 1.0), (0, 0, 75)),
])
def test_box_room_analytic_ranges(preset, pos, rpy):
    size, center = np.array([14.0, 9.0, 5.0]), np.array([1.0, -0.5, 2.0])
    scene = lidarsim.Scene()
    scene.add_lambertian("wall", 0.7)
    scene.add_box(size, position=center, material="wall", label="building")
    sensor = lidarsim.Sensor.preset(preset).set_pose(pos, rpy).set_range(0.01, 200.0)
    if preset == "urg-04lx":  # one ray: the preset's three rays mix their ranges (cm at grazing walls)
        sensor.set_beam(13.0, "single", 1)
    pts = scene.scan(sensor, noise=False, frame="world")
    assert len(pts) == sensor.beam_count  # every beam hits, in beam order
    R = rotation(rpy)
    az, el = np.radians(pts["azimuth"].astype(np.float64)), np.radians(pts["elevation"].astype(np.float64))
    d = np.stack([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)], axis=1) @ R.T
    o = np.asarray(pos) + sensor.beam_origins() @ R.T
    t = box_exit(o, d, center - size / 2, center + size / 2)
    assert np.max(np.abs(pts["range"] - t)) <= 1e-3
    xyz = np.stack([pts["x"], pts["y"], pts["z"]], axis=1)
    assert np.max(np.abs(xyz - (o + t[:, None] * d))) <= 1e-3
    assert np.all(pts["label"] == 50) and np.all(pts["instance"] == 1)  # "building": SemanticKITTI 50


def assert_same_as_csv(pts, path):
    header, cols = read_csv(path)
    assert list(pts.dtype.names) == header
    assert len(pts) == len(cols[header[0]])
    for name in header:
        want = cols[name].astype(pts.dtype[name])  # %.9g round-trips float32 exactly
        got = pts[name]
        if pts.dtype[name] == np.float32:
            assert np.array_equal(got.view(np.uint32), want.view(np.uint32)), name  # bit for bit
        else:
            assert np.array_equal(got, want), name


def test_scan_equals_cli_csv(tmp_path, cli, street):
    csv = tmp_path / "street.csv"
    run_cli(cli, "scan", STREET, "--seed", 7, "-o", csv, "--quiet")
    scene, sensor = street
    pts = scene.scan(sensor, seed=7)
    assert len(pts) > 20000
    assert_same_as_csv(pts, csv)
    # another seed is other noise: not the same ranges
    assert not np.array_equal(scene.scan(sensor, seed=8)["range"][:1000], pts["range"][:1000])


def test_scan_options_equal_cli(tmp_path, cli, street):
    csv = tmp_path / "opts.csv"
    run_cli(cli, "scan", STREET, "--seed", 3, "--frame", "world", "--fields", "x,y,z,intensity,label,time",
            "--scan-time", 0.25, "--frame-index", 4, "--threads", 1, "-o", csv, "--quiet")
    scene, sensor = street
    pts = scene.scan(sensor, seed=3, frame="world", fields=["x", "y", "z", "intensity", "label", "time"],
                     scan_time=0.25, frame_index=4, threads=1)
    assert pts.dtype.names == ("x", "y", "z", "intensity", "time", "label")  # library order, as the CSV
    assert_same_as_csv(pts, csv)
    csv_off = tmp_path / "off.csv"
    run_cli(cli, "scan", STREET, "--noise", "off", "--keep-misses", "-o", csv_off, "--quiet")
    exact = scene.scan(sensor, noise=False, keep_misses=True)
    assert len(exact) == sensor.beam_count
    header, cols = read_csv(csv_off)
    for name in header:  # misses are NaN in both
        a, b = exact[name], cols[name].astype(exact.dtype[name])
        assert np.array_equal(a, b, equal_nan=exact.dtype[name] == np.float32), name


def test_structured_dtype(street, tmp_path):
    scene, sensor = street
    pts = scene.scan(sensor, seed=1, fields="x,y,z,ring,label")
    assert isinstance(pts, np.ndarray) and isinstance(pts, lidarsim.Points)
    assert pts.dtype == np.dtype([("x", "<f4"), ("y", "<f4"), ("z", "<f4"), ("ring", "<u2"), ("label", "<u4")])
    full = lidarsim.field_dtype()
    assert full.names == lidarsim.FIELD_NAMES
    assert full.names[:6] == ("x", "y", "z", "range", "intensity", "reflectivity")
    types = {n: full[n].str for n in full.names}
    assert types["ring"] == "<u2" and types["label"] == "<u4" and types["instance"] == "<u4"
    assert types["return_index"] == "<u2" and types["num_returns"] == "<u2" and types["power"] == "<f4"
    # slices and columns are plain arrays; the frame's Points keep the handle
    assert type(pts["x"]) is np.ndarray and type(pts[:5]) is np.ndarray and type(pts.array) is np.ndarray
    assert np.shares_memory(pts.array, pts)
    assert pts.fields == pts.dtype.names
    # the ranges agree with x, y, z in the sensor frame (no beam origins on a VLP-16 nominal table)
    full_pts = scene.scan(sensor, seed=1)
    r = np.sqrt(full_pts["x"].astype(float) ** 2 + full_pts["y"] ** 2 + full_pts["z"] ** 2)
    assert np.max(np.abs(r - full_pts["range"])) < 1e-3
    stats = full_pts.stats
    assert stats["rays"] == sensor.beam_count and stats["hits"] == len(full_pts)
    assert np.allclose(full_pts.sensor_pose, [0, 0, 1.8, 1, 0, 0, 0])
