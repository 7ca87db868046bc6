"""lidarsim.compare (lsim_compare_*): a frame against itself is exact, two noise seeds give the
constant noise model's statistics (sim - real of two N(0, sigma) draws: RMSE sqrt(2) sigma), matching
by beam and by direction agree, frames of different sensors raise, and the report is written."""
import json
import math
import os

import pytest

import lidarsim

SIGMA = 0.02


def make(channels=16, columns=900):
    scene = lidarsim.Scene()
    scene.add_lambertian("grey", 0.6)
    scene.add_plane((120.0, 120.0), position=(0, 0, -1.8), material="grey")
    scene.add_box((4.0, 30.0, 8.0), position=(15.0, 0, 2.0), material="grey")
    sensor = lidarsim.Sensor.rotating([-15.0 + 30.0 * i / (channels - 1) for i in range(channels)], columns)
    sensor.set_noise(SIGMA, 0.05, 0.1)
    sensor.set_noise_model("constant")
    return scene, sensor


def test_self_is_exact_and_seeds_give_the_noise(tmp_path):
    scene, sensor = make()
    a, b = scene.scan(sensor, seed=1), scene.scan(sensor, seed=2)
    r = lidarsim.compare(a, a, out=str(tmp_path / "rep"))
    s = r["all"]
    assert (r["match"], r["rings"], r["columns"]) == ("beam", 16, 900)
    assert s["f1"] == 1 and s["range"]["rmse"] == 0 and s["chamfer_m"] == 0 and s["both_hit"] > 4000
    assert s["both_hit"] + s["both_miss"] == 16 * 900
    with open(tmp_path / "rep" / "summary.json") as f:
        assert json.load(f)["all"]["both_hit"] == s["both_hit"]
    r = lidarsim.compare(a, b)
    s = r["all"]
    assert s["range"]["rmse"] == pytest.approx(math.sqrt(2) * SIGMA, rel=0.05)
    assert sum(g["stats"]["both_hit"] for g in r["by_band"]) == s["both_hit"]
    assert sum(g["both_hit"] for g in r["by_ring"]) == s["both_hit"]
    d = lidarsim.compare(a, b, match="direction")["all"]
    assert (d["both_hit"], d["real_only"], d["sim_only"]) == (s["both_hit"], s["real_only"], s["sim_only"])


def test_different_sensors_raise(tmp_path):
    scene, sensor = make()
    _, s32 = make(channels=32)
    with pytest.raises(lidarsim.InvalidArgumentError, match="different sensors"):
        lidarsim.compare(scene.scan(sensor), scene.scan(s32), out=str(tmp_path / "no"))
    assert not os.path.exists(tmp_path / "no")
    with pytest.raises(lidarsim.InvalidArgumentError, match="unknown match"):
        lidarsim.compare(scene.scan(sensor), scene.scan(sensor), match="nearest")
