"""A scene built in code (every kind of object, materials, labels, engines), multi-frame scanning with
moving objects and a moving sensor, and a fit through the public lsim_fit_* API."""
import numpy as np
import pytest

import lidarsim

# Beams of a pattern sensor: forward, left, back, right (horizontal), then straight down.
AZ = [0.0, 90.0, 180.0, -90.0, 0.0]
EL = [0.0, 0.0, 0.0, 0.0, -90.0]


def build(engine=None):
    scene = lidarsim.Scene(engine=engine)
    scene.set_label_id("target", 200)  # before any object
    scene.add_lambertian("matte", 0.8)
    scene.add_material("shiny", "cook_torrance", reflectance=0.5, roughness=0.3)
    scene.add_material("retro", "retroreflector", peak=300.0)
    scene.add_sphere(1.0, position=(5, 0, 0), material="shiny", label="car")
    quad = np.array([[-1, 0, -1], [1, 0, -1], [1, 0, 1], [-1, 0, 1]], dtype=np.float32)
    scene.add_triangles(quad, [[0, 1, 2], [0, 2, 3]], position=(0, 3, 0), material="retro", label="target")
    scene.add_box((1, 1, 1), position=(-6, 0, 0), material="matte", label="building")
    scene.add_plane((40, 40), position=(0, 0, -2), material="matte", label="road")
    return scene


def add_obj_wall(scene, tmp_path):
    obj = tmp_path / "wall.obj"
    obj.write_text("v -1 0 -1\nv 1 0 -1\nv 1 0 1\nv -1 0 1\nf 1 2 3\nf 1 3 4\n")
    scene.add_mesh(obj, position=(0, -4, 0), label="vegetation", material="matte")


def test_scene_in_code(tmp_path):
    scene = build()
    add_obj_wall(scene, tmp_path)
    assert scene.object_count == 5
    assert scene.triangle_count >= 2 + 12 + 2 + 2
    sensor = lidarsim.Sensor.pattern(AZ, EL)
    assert len(sensor) == 5 and np.allclose(sensor.beams()["azimuth"], AZ)
    pts = scene.scan(sensor, noise=False)
    assert len(pts) == 5
    assert np.allclose(pts["range"], [4.0, 3.0, 5.5, 4.0, 2.0], atol=1e-4)
    assert list(pts["label"]) == [10, 200, 50, 70, 40]  # car, target (own id), building, vegetation, road
    assert len(set(pts["instance"])) == 5
    assert pts["intensity"][1] > 5 * pts["intensity"][2]  # the retroreflector outshines the matte box
    # every engine gives the same points
    brute = build("brute")
    add_obj_wall(brute, tmp_path)
    bp = brute.scan(sensor, noise=False)
    for name in ("range", "x", "y", "z", "intensity"):
        assert np.allclose(bp[name], pts[name], atol=1e-5), name
    assert np.array_equal(bp["label"], pts["label"])


def test_presets_and_sensor_settings():
    names = lidarsim.preset_names()
    assert "vlp16" in names and "urg-04lx" in names
    assert "VLP-16" in lidarsim.preset_description("vlp16")
    assert lidarsim.preset_description("nope") is None
    s = lidarsim.Sensor.preset("vlp16")
    assert s.name == "vlp16" and len(s) == 16 * 1808
    s.set_range(1.0, 50.0)
    assert s.get_range()[:2] == (1.0, 50.0)
    s.set_noise(0.01, 0.02, 0.1)
    assert np.allclose(s.get_noise(), (0.01, 0.02, 0.1))
    s.set_pose((1, 2, 3), (0, 0, 90))
    assert np.allclose(s.pose_at(0.0), [1, 2, 3, np.cos(np.pi / 4), 0, 0, np.sin(np.pi / 4)])
    s.set_motion(velocity=(2, 0, 0))
    assert np.allclose(s.pose_at(0.5)[:3], [2, 2, 3])
    r = lidarsim.Sensor.rotating([-10, 0, 10], 360, 10.0)
    assert len(r) == 3 * 360
    assert len(lidarsim.Sensor.planar(180, 181)) == 181
    assert len(lidarsim.Sensor.camera(8, 6, 60, 45)) == 48


def test_multiframe_moving_object():
    scene = lidarsim.Scene()
    scene.add_box((2, 2, 2), position=(10, 0, 0), label="car", name="car")
    scene.add_box((2, 2, 2), position=(0, 10, 0), label="truck", velocity=(0, -2, 0))  # coming closer
    sensor = lidarsim.Sensor.pattern([0.0, 90.0], [0.0, 0.0])  # forward at the car, left at the truck
    buf = lidarsim.PointBuffer()
    frames = []
    for k in range(4):  # a named object moved frame by frame (lsim_scene_set_object_pose), one buffer
        scene.set_object_pose("car", (10.0 - k, 0, 0))
        pts = scene.scan(sensor, noise=False, into=buf, frame_index=k)
        frames.append(pts)
        assert pts["range"][0] == pytest.approx(9.0 - k, abs=1e-4)
    assert np.allclose(scene.get_object_pose("car")[0], [7, 0, 0])
    assert frames[0]["range"][0] == pytest.approx(9.0, abs=1e-4)  # earlier frames keep their values...
    with pytest.raises(lidarsim.StateError, match="scanned into again"):
        lidarsim.write(frames[0], "/nonexistent/never-written.pcd")  # ...but not the handle
    again = scene.scan(sensor, noise=False, into=frames[-1])  # the Points of a frame work as a buffer too
    assert again["range"][0] == pytest.approx(6.0, abs=1e-4)  # the car at x = 7, its face at 6
    # an object with constant velocity, placed by the frame's start time (both beams fire at t = 0)
    for t in (0.0, 0.5, 1.0, 2.0):
        pts = scene.scan(sensor, noise=False, scan_time=t)
        assert pts["range"][1] == pytest.approx(9.0 - 2.0 * t, abs=1e-4)
        assert pts["label"][1] == 18  # truck
    # a moving sensor: pose per frame, then constant motion on the scene clock
    sensor.set_pose((2, 0, 0))
    assert scene.scan(sensor, noise=False)["range"][0] == pytest.approx(4.0, abs=1e-4)  # the car's face at x = 6
    sensor.set_pose((0, 0, 0)).set_motion(velocity=(1, 0, 0))
    for t in (0.0, 1.5, 3.0):
        assert scene.scan(sensor, noise=False, scan_time=t)["range"][0] == pytest.approx(6.0 - t, abs=1e-4)


def test_fit_localises_planar_scanner():
    """The cw paper's experiment 1 (tests/test_fit.c): a URG-04LX in a box room, true pose
    (0.40, -0.30) m, yaw 12 deg, found from (0, 0, 0) by an SE(2) fit of one noisy scan."""
    scene = lidarsim.Scene()
    scene.add_box((6, 4, 3), position=(0.5, 0, 1))
    scene.add_box((0.3, 0.3, 3), position=(2.0, 1.2, 1))
    truth = lidarsim.Sensor.preset("urg-04lx").set_pose((0.40, -0.30, 1.0), (0, 0, 12))
    real = scene.scan(truth, seed=42, keep_misses=True)
    assert len(real) == len(truth)
    sensor = lidarsim.Sensor.preset("urg-04lx").set_pose((0, 0, 1.0), (0, 0, 0))
    fit = lidarsim.Fit(scene, sensor, "se2").set_scan(real["range"])
    assert fit.parameter_names == ["sensor.x", "sensor.y", "sensor.yaw"]
    loss0, grad = fit.evaluate()
    assert loss0 > 0 and np.all(np.isfinite(grad)) and np.any(grad != 0)
    seen = []
    result = fit.run(100, progress=lambda it, loss: seen.append((it, loss)))
    x, y, yaw = fit.parameters
    assert abs(x - 0.40) < 0.01 and abs(y + 0.30) < 0.01 and abs(np.degrees(yaw) - 12) < 0.2
    assert result.final_loss < result.initial_loss and result.iterations <= 34 and len(seen) >= 1
    assert result.parameters["sensor.x"] == pytest.approx(x)
    assert np.allclose(sensor.pose_at(0)[:2], [x, y])  # the sensor ends at the fit
    status, residual = fit.residuals()
    assert (status == "used").sum() == result.beams_used > 500
    assert np.sqrt(np.mean(residual[status == "used"] ** 2)) < 0.05
    with pytest.raises(lidarsim.Error, match="682|range"):
        fit.set_scan(real["range"][:100])  # one range per beam


def test_receiver_overlap_and_ambient_rise():
    """The overlap of every echo (issue 24): a wall at 15 m gives (15 / 30)^2 of its echo with a
    30 m full-overlap range, the measured curve's interpolation with a curve; bad curves are refused."""
    scene = lidarsim.Scene()
    scene.add_lambertian("wall", 0.5)
    scene.add_plane((20, 20), position=(15, 0, 0), rotation=(0, -90, 0), material="wall")
    sensor = lidarsim.Sensor.pattern([0.0], [0.0])
    whole = scene.scan(sensor, noise=False)["intensity"][0]
    assert whole == pytest.approx(0.5 / 15 ** 2, rel=1e-5)
    sensor.set_receiver_overlap(30.0)
    assert scene.scan(sensor, noise=False)["intensity"][0] == pytest.approx(0.25 * whole, rel=1e-5)
    sensor.set_receiver_overlap(curve=[[10, 0.2], [20, 1.0]])
    assert scene.scan(sensor, noise=False)["intensity"][0] == pytest.approx(0.6 * whole, rel=1e-5)
    sensor.set_receiver_overlap()
    assert scene.scan(sensor, noise=False)["intensity"][0] == pytest.approx(whole, rel=1e-6)
    with pytest.raises(lidarsim.Error):
        sensor.set_receiver_overlap(curve=[[10, 0.5], [20, 0.4]])
    sensor.set_ambient_rise(4.6)
    with pytest.raises(lidarsim.Error):
        sensor.set_ambient_rise(-1.0)
