"""The benchmarks and the viewer's options through the library (lsim_bench_run, lsim_view_run):
lidarsim.tools.bench and lidarsim.tools.view. No window is opened here (tests/test_cli_view.py
renders screenshots under xvfb-run); timings are never asserted."""
import json
import os

import pytest

import lidarsim
from lidarsim import _lib, tools


def test_bench_kind_names():
    names = [_lib.lib.lsim_bench_kind_name(k).decode() for k in range(5)]
    assert names == ["frame", "blooming", "pulses", "fit", "dataset"]
    assert _lib.lib.lsim_bench_kind_name(5) is None
    assert _lib.lib.lsim_bench_kind_name(-1) is None


def test_bench_options_defaults():
    o = tools.bench_options("frame")
    assert o.kind == 0 and o.repeat == 5 and o.threads == 0 and o.json == 0 and o.progress == 0
    assert list(o.beams[:o.beam_count]) == [1000, 10000, 100000, 1000000, 10000000]
    assert o.triangles == 1000000 and o.engine == 0 and o.noise == 1 and o.fields == 0 and o.moving == 0
    assert o.rings == 2 and o.frames == 500 and o.program is None and o.report_path is None
    assert o.scenes_dir == b"examples/cw" and o.config == b"examples/dataset/dataset.yaml"
    assert [tools.bench_options(k).repeat for k in ("blooming", "pulses", "fit", "dataset")] == [3, 5, 3, 1]


def test_bench_frame_json():
    """A tiny frame benchmark: every beam inside the closed sphere returns (noise off)."""
    text = tools.bench("frame", beams=[1000, 2000], triangles=2000, repeat=1, threads=1, json=True, noise=False)
    rows = [json.loads(line) for line in text.splitlines()]
    assert [r["beams"] for r in rows] == [1024, 2048]  # whole columns of the 128-channel pattern
    for r in rows:
        assert r["engine"] == "raycast" and r["moving"] is False and r["threads"] == 1
        assert r["points"] == r["beams"] and r["triangles"] >= 2000 - 200
        assert r["frame_ms"] > 0 and r["raw_embree_ms"] > 0


def test_bench_frame_table_to_report(tmp_path):
    path = tmp_path / "bench.txt"
    text = tools.bench("frame", report_path=str(path), beams=128, triangles=64, repeat=1, threads=1,
                       fields="x,y,z", noise=False)
    assert path.read_text() == text
    lines = text.splitlines()
    assert lines[0].split()[:4] == ["engine", "beams", "triangles", "threads"]
    assert len(lines) == 2 and lines[1].split()[:2] == ["raycast", "128"]


@pytest.mark.parametrize("opts, needle", [
    (dict(repeat=0), "repeat 0 is outside 1..1000"),
    (dict(threads=2000), "threads 2000 is outside 0..1024"),
    (dict(beams=[10]), "beams[0] = 10 is outside 128..100000000"),
    (dict(triangles=10), "triangles 10 is outside 64..100000000"),
    (dict(engine=1), "engine 1 is neither"),
    (dict(fields=1 << 31), "bits that name no field (0x80000000)"),  # refused before the call
])
def test_bench_bad_options(tmp_path, opts, needle):
    path = tmp_path / "never.txt"
    with pytest.raises(lidarsim.InvalidArgumentError) as e:
        tools.bench("frame", report_path=str(path), **opts)
    assert needle in str(e.value)
    assert not path.exists()


def test_bench_dataset_needs_program_and_frames():
    with pytest.raises(lidarsim.InvalidArgumentError) as e:
        tools.bench("dataset", program="", frames=4)
    assert "options.program" in str(e.value)
    with pytest.raises(lidarsim.InvalidArgumentError) as e:
        tools.bench("dataset", frames=1)
    assert "frames 1 is outside 2..1000000" in str(e.value)
    with pytest.raises(lidarsim.InvalidArgumentError) as e:
        tools.bench("pulses", rings=9)
    assert "rings 9 is outside 1..8" in str(e.value)


def test_bench_fit_missing_scenes(tmp_path):
    with pytest.raises(lidarsim.Error) as e:
        tools.bench("fit", scenes_dir=str(tmp_path / "nowhere"), repeat=1)
    assert "room.yaml" in str(e.value)


def test_view_options_defaults():
    o = tools.view_options()
    assert o.scene is None and o.screenshot is None
    assert (o.width, o.height) == (1280, 800) and o.max_beams == 5000
    assert o.has_camera == 0 and o.has_sensor_position == 0 and o.has_sensor_yaw == 0
    assert o.colour_by_label == 0 and o.colour_by_material == 0 and o.hide_beams == 0
    assert o.threads == 0 and o.quiet == 0


def test_view_errors_before_any_window(tmp_path, monkeypatch):
    """Checked before a display is needed: the size, a missing scene file, no display at all."""
    shot = tmp_path / "shot.png"
    with pytest.raises(lidarsim.InvalidArgumentError) as e:
        tools.view("scene.yaml", screenshot=str(shot), size=(10, 10))
    assert "16..8192" in str(e.value)
    with pytest.raises(lidarsim.InvalidArgumentError) as e:
        tools.view("scene.yaml", screenshot=str(shot), beams=-1)
    assert "max_beams -1" in str(e.value)
    with pytest.raises(lidarsim.Error) as e:
        tools.view(str(tmp_path / "missing.yaml"), screenshot=str(shot))
    assert "missing.yaml" in str(e.value)
    scene = tmp_path / "scene.yaml"
    scene.write_text("sensor:\n  preset: vlp16\nobjects:\n  - plane: {size: [10, 10]}\n")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with pytest.raises(lidarsim.FileError) as e:
        tools.view(str(scene), screenshot=str(shot), quiet=True)
    assert "no display" in str(e.value) and "xvfb-run" in str(e.value)
    assert not os.path.exists(shot)


@pytest.mark.parametrize("call", [
    lambda: tools.bench("frame", threads=2 ** 32),
    lambda: tools.bench("frame", repeat=2 ** 40),
    lambda: tools.dataset("unused.yaml", "unused", frames=-1),
    lambda: tools.dataset("unused.yaml", "unused", stop_after=-1),
    lambda: tools.dataset("unused.yaml", "unused", seed=-1),
    lambda: tools.validate("unused.config", "unused", seed=2 ** 64),
    lambda: tools.view("unused.yaml", size=(2 ** 31, 10)),
    lambda: tools.dataset("unused.yaml", "unused", frames=float("inf")),
])
def test_integers_out_of_range_are_refused(call):
    """An integer a C option cannot hold is refused before any work, not wrapped by ctypes (-1 as
    2^64 - 1 frames, 2^32 threads as 0 = all cores)."""
    with pytest.raises(lidarsim.InvalidArgumentError, match="out of range"):
        call()
