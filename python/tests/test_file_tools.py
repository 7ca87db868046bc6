"""lidarsim.tools.pattern_from_scan, fit_file and dataset: through the library (lsim_pattern_from_scan,
lsim_fit_file_run, lsim_dataset_load/run), not the binary."""
import json
import math
import os

import numpy as np
import pytest

import lidarsim

ROOM = """sensor:
  preset: urg-04lx
  position: [{x}, {y}, 1.0]
  rotation: [0, 0, {yaw}]
objects:
  - box: {{size: [6, 4, 3]}}
    position: [0.5, 0, 1]
  - box: {{size: [0.3, 0.3, 3]}}
    name: post
    position: [2, 1.2, 1]
"""


def test_pattern_from_scan_values(tmp_path):
    scan = tmp_path / "wall.csv"
    rows = ["x,y,z,time,ring"] + ["4,%g,%g,%g,%d" % (-1 + 0.5 * (i % 5), -1 + 0.5 * (i // 5), 0.01 * i - 0.1, i // 5)
                                  for i in range(25)]
    scan.write_text("\n".join(rows) + "\n")
    out = tmp_path / "pattern.csv"
    info = lidarsim.tools.pattern_from_scan(scan, out, wall_distance=4.0)
    assert (info.rows, info.beams, info.has_time, info.has_ring) == (25, 25, True, True)
    assert info.distance_m == pytest.approx(4.0, abs=1e-9)
    assert np.allclose(info.normal, (1, 0, 0), atol=1e-9)
    assert info.planar and info.distance_matches and info.rms_m < 1e-9
    assert info.time_shift_s == pytest.approx(-0.1)
    lines = [line for line in open(out) if not line.startswith("#")]
    assert lines[0].strip() == "azimuth_deg,elevation_deg,time_s,ring"
    data = np.loadtxt(lines[1:], delimiter=",", ndmin=2)
    assert data.shape == (25, 4)
    assert data[0, 0] == pytest.approx(math.degrees(math.atan2(-1, 4)), abs=1e-8)
    assert data[24, 1] == pytest.approx(math.degrees(math.atan2(1, math.hypot(4, 1))), abs=1e-8)
    assert data[0, 2] == pytest.approx(0.0, abs=1e-9) and data[24, 2] == pytest.approx(0.24, abs=1e-9)
    assert list(data[:, 3]) == [i // 5 for i in range(25)]
    # a wrong wall distance: written, flagged (warnings off: nothing on stderr)
    info = lidarsim.tools.pattern_from_scan(scan, tmp_path / "p2.csv", wall_distance=3.5, warnings=False)
    assert not info.distance_matches and info.planar


def test_pattern_from_scan_errors(tmp_path):
    scan = tmp_path / "line.csv"
    scan.write_text("x,y,z\n1,0,0\n2,0,0\n3,0,0\n")
    out = tmp_path / "out.csv"
    with pytest.raises(lidarsim.ParseError, match="on one line"):
        lidarsim.tools.pattern_from_scan(scan, out)
    assert not out.exists()
    with pytest.raises(lidarsim.InvalidArgumentError, match="is the scan itself"):
        lidarsim.tools.pattern_from_scan(scan, scan)
    with pytest.raises(lidarsim.FileError, match="nope.csv"):
        lidarsim.tools.pattern_from_scan(tmp_path / "nope.csv", out)
    with pytest.raises(ValueError):
        lidarsim.tools.pattern_from_scan(scan, out, wall_distance=-2)
    assert not out.exists()


def _fit_setup(tmp_path):
    (tmp_path / "truth.yaml").write_text(ROOM.format(x=0.4, y=-0.3, yaw=12))
    (tmp_path / "room.yaml").write_text(ROOM.format(x=0, y=0, yaw=0))
    scene, sensor = lidarsim.load(tmp_path / "truth.yaml")
    pts = scene.scan(sensor, noise=False, keep_misses=True)
    lidarsim.write(pts, tmp_path / "real.csv")
    fit = tmp_path / "fit.yaml"
    fit.write_text("scene: room.yaml\nscan: real.csv\nparameters:\n  sensor: {dof: se2, initial: {x: 0.1, yaw_deg: 3}}\n")
    return fit, len(pts)


def test_fit_file(tmp_path):
    fit, beams = _fit_setup(tmp_path)
    out = tmp_path / "fitted.yaml"
    r = lidarsim.tools.fit_file(fit, out)
    assert r.beams == beams and r.max_iterations == 100
    assert list(r.initial) == ["sensor.x", "sensor.y", "sensor.yaw"]
    assert r.initial["sensor.x"] == pytest.approx(0.1) and r.initial["sensor.yaw"] == pytest.approx(math.radians(3))
    p = r.result.parameters
    assert p["sensor.x"] == pytest.approx(0.4, abs=1e-3) and p["sensor.y"] == pytest.approx(-0.3, abs=1e-3)
    assert p["sensor.yaw"] == pytest.approx(math.radians(12), abs=math.radians(0.02))
    assert r.result.final_loss < r.result.initial_loss and r.result.rms_residual_m < 1e-3
    assert r.result.stop == "converged" or r.result.iterations > 0
    # the fitted scene loads with the fitted pose
    _, sensor = lidarsim.load(out)
    pose = sensor.pose_at(0.0)
    assert pose[0] == pytest.approx(0.4, abs=1e-3) and pose[1] == pytest.approx(-0.3, abs=1e-3)
    r2 = lidarsim.tools.fit_file(fit, tmp_path / "two.yaml", 2, "--quiet")
    assert r2.max_iterations == 2 and r2.result.iterations == 2 and r2.result.stop == "iterations"


def test_fit_file_errors(tmp_path):
    fit, _ = _fit_setup(tmp_path)
    with pytest.raises(lidarsim.InvalidArgumentError, match="is the scene file"):
        lidarsim.tools.fit_file(fit, tmp_path / "room.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("scene: room.yaml\nscan: real.csv\nparameters:\n  sensor: {dof: se2}\nscan_file: x.csv\n")
    with pytest.raises(lidarsim.ParseError, match=r"bad\.yaml:5:1.*unknown key 'scan_file'"):
        lidarsim.tools.fit_file(bad, tmp_path / "out.yaml")
    with pytest.raises(ValueError):
        lidarsim.tools.fit_file(fit, tmp_path / "out.yaml", 0)
    with pytest.raises(ValueError, match="--bogus"):
        lidarsim.tools.fit_file(fit, tmp_path / "out.yaml", None, "--bogus")
    assert not (tmp_path / "out.yaml").exists()


def test_dataset(tmp_path):
    config = tmp_path / "ds.yaml"
    config.write_text("seed: 3\nframes: 2\nframes_per_sequence: 2\nsensor: {preset: urg-04lx, position: [0, 0, 0.5]}\n"
                      "layout: {kind: scatter, extent: [6, 6]}\ntrajectory: {kind: straight, speed: 1}\n"
                      "library:\n  - box: [0.5, 0.5, 1]\n    label: car\n    count: [4, 4]\n    on: ground\n")
    out = tmp_path / "ds"
    s = lidarsim.tools.dataset(config, out, threads=1, stop_after=1)
    assert (s.frames, s.mine, s.done_before, s.written) == (2, 2, 0, 1) and s.points > 0
    assert os.path.getsize(out / "sequences" / "00" / "velodyne" / "000000.bin") == 16 * s.points
    s = lidarsim.tools.dataset(config, out, threads=1)
    assert (s.done_before, s.written) == (1, 1)
    info = json.loads((out / "dataset.json").read_text())
    assert info["frames"] == 2 and info["seed"] == 3
    # the same frames, written by two shards, are the same bytes
    for i in range(2):
        s = lidarsim.tools.dataset(config, tmp_path / "split", shard="%d/2" % i, threads=1)
        assert s.mine == 1 and s.written == 1
    for k in range(2):
        name = os.path.join("sequences", "00", "velodyne", "%06d.bin" % k)
        assert (out / name).read_bytes() == (tmp_path / "split" / name).read_bytes()
    with pytest.raises(lidarsim.InvalidArgumentError, match="seed"):
        lidarsim.tools.dataset(config, out, seed=4)
    with pytest.raises(lidarsim.InvalidArgumentError, match="shard 2 of 2"):
        lidarsim.tools.dataset(config, tmp_path / "bad", shard=(2, 2))
    with pytest.raises(lidarsim.FileError):
        lidarsim.tools.dataset(tmp_path / "missing.yaml", tmp_path / "bad")


def test_dataset_points_format(tmp_path):
    config = tmp_path / "ds.yaml"
    config.write_text("seed: 3\nframes: 2\nframes_per_sequence: 2\nsensor: {preset: urg-04lx, position: [0, 0, 0.5]}\n"
                      "layout: {kind: scatter, extent: [6, 6]}\ntrajectory: {kind: straight, speed: 1}\n"
                      "library:\n  - box: [0.5, 0.5, 1]\n    label: car\n    count: [4, 4]\n    on: ground\n")
    out = tmp_path / "ds"
    s = lidarsim.tools.dataset(config, out, threads=1, stop_after=1, points_format="ply")
    assert s.written == 1
    s = lidarsim.tools.dataset(config, out, threads=1, points_format="ply")
    assert (s.done_before, s.written) == (1, 1)
    for k in range(2):
        seq = out / "sequences" / "00"
        bin_rows = np.fromfile(seq / "velodyne" / ("%06d.bin" % k), dtype="<f4").reshape(-1, 4)
        cloud = lidarsim.read(seq / "points" / ("%06d.ply" % k))
        assert len(cloud) == len(bin_rows) > 0
        assert np.array_equal(np.stack([cloud["x"], cloud["y"], cloud["z"]], axis=1), bin_rows[:, :3])
        labels = np.fromfile(seq / "labels" / ("%06d.label" % k), dtype="<u4")
        assert np.array_equal(cloud["label"], labels & 0xFFFF)
    assert json.loads((out / "dataset.json").read_text())["points_format"] == "ply"
    with pytest.raises(lidarsim.InvalidArgumentError, match="points format ply.*asks for pcd"):
        lidarsim.tools.dataset(config, out, points_format="pcd")
    with pytest.raises(ValueError, match="points_format"):
        lidarsim.tools.dataset(config, tmp_path / "bad", points_format="kitti")
    assert not (tmp_path / "bad").exists()
