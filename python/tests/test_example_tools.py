"""The Python example runs as written (and is docs/python.md's code block); the CLI-only tools run
through lidarsim.tools."""
import os
import subprocess
import sys

import numpy as np
import pytest

import lidarsim
from conftest import ROOT, STREET

EXAMPLE = os.path.join(ROOT, "examples", "python", "street.py")


def test_example_runs_as_written(tmp_path, street):
    out = tmp_path / "street.pcd"
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.run([sys.executable, EXAMPLE, str(out)], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    scene, sensor = street
    pts = scene.scan(sensor, seed=7)
    labels, counts = np.unique(pts["label"], return_counts=True)
    for label, count in zip(labels, counts):  # the label counts it prints are the scan's
        assert "label %3d: %6d points" % (label, count) in p.stdout
    assert "vlp16: %d points" % len(pts) in p.stdout and "wrote %s" % out in p.stdout
    assert out.read_bytes() == open(lidarsim.write(pts, tmp_path / "same.pcd"), "rb").read()


def test_readme_python_section_is_the_example():
    readme = open(os.path.join(ROOT, "docs", "python.md")).read()  # the README's "Python" until issue 26
    code = open(EXAMPLE).read()
    assert "# Python" in readme
    assert "```python\n" + code + "```\n" in readme


def test_cli_tools(tmp_path):
    binary = lidarsim.tools.find_binary()
    assert os.access(binary, os.X_OK)
    assert "vlp16" in lidarsim.tools.run("presets").stdout
    with pytest.raises(lidarsim.tools.CLIError) as e:
        lidarsim.tools.run("scan", tmp_path / "missing.yaml", "-o", tmp_path / "x.pcd")
    assert e.value.returncode != 0 and "missing.yaml" in str(e.value)
    # a wall scan in the sensor frame turned into a pattern file (CLI only: `lidarsim pattern`)
    scene = lidarsim.Scene()
    scene.add_box((0.2, 20, 20), position=(5, 0, 0))
    sensor = lidarsim.Sensor.rotating([-5, 0, 5], 36, 10.0)
    wall = scene.scan(sensor, noise=False)
    scan_csv = lidarsim.write(wall, tmp_path / "wall.csv")
    pattern = tmp_path / "pattern.csv"
    lidarsim.tools.pattern_from_scan(scan_csv, pattern, wall_distance=4.9)
    lines = [line for line in open(pattern) if not line.startswith("#")]
    assert lines[0].strip() == "azimuth_deg,elevation_deg,time_s,ring"
    rows = np.loadtxt(lines[1:], delimiter=",", ndmin=2)
    assert len(rows) == len(wall)
    assert np.allclose(rows[:, 1], wall["elevation"], atol=1e-3)
