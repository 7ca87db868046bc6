"""lidarsim.tools.calibrate and validate through the library (lsim_calibrate_run, lsim_validate_run):
the same summary, calibration file and verdicts as the `lidarsim` binary on a synthetic board scan;
errors raise lidarsim.Error naming the file or value and leave nothing behind."""
import ctypes
import json
import math
import os
import random
import subprocess

import pytest

import lidarsim
from lidarsim import _lib

# Time limits only catch hangs: LSIM_TIMEOUT_SCALE (tests/CMakeLists.txt, tests/timeouts.py) widens them.
HANG = max(float(os.environ.get("LSIM_TIMEOUT_SCALE") or 1), 1.0)


def wrap(a):
    a = math.fmod(a, 2 * math.pi)
    return a + 2 * math.pi if a <= -math.pi else a - 2 * math.pi if a > math.pi else a


def synthetic_scan(d=0.6, phi_deg=182.0, width=1.0, revolutions=8, seed=7, board=True):
    """RPLIDAR-like beam lines (as tests/test_calib_cli.py): 720 beams per revolution."""
    rng = random.Random(seed)
    phi = math.radians(phi_deg)
    centre = d * math.tan(wrap(math.pi - phi))
    lines = []
    for _ in range(revolutions):
        for i in range(720):
            a = -3.1241393089294434 + i * 0.008714509196579456
            psi = wrap(a - phi)
            if board and abs(psi) < math.radians(85) and abs(d * math.tan(psi) - centre) <= width / 2:
                deg = math.degrees(abs(psi))
                if rng.random() < 0.02 + 0.5 * max(0.0, (deg - 30) / 30) ** 2:
                    lines.append("inf,0.0,%r" % a)
                else:
                    lines.append("%r,47.0,%r" % (d / math.cos(psi) + rng.gauss(0, 0.002 + 0.004 * (deg / 60) ** 2), a))
            else:
                lines.append("%r,47.0,%r" % (0.5 + 4.5 * rng.random(), a))
    return "\n".join(lines) + "\n"


@pytest.fixture()
def board(tmp_path):
    (tmp_path / "board.txt").write_text(synthetic_scan())
    (tmp_path / "data.config").write_text("board,board.txt,0.6,1.0,ON,0.5,0.0\n")
    return tmp_path


def test_calibrate_matches_the_cli(board, cli):
    doc = lidarsim.tools.calibrate(board / "data.config", board / "cal.yaml", "--bin-width", "3", seed=2)
    m, = doc["materials"]
    assert m["name"] == "board" and doc["sensor"] == "rplidar-a1" and doc["output"] == str(board / "cal.yaml")
    assert abs(m["fitted_distance_m"] - 0.6) < 0.002 and abs(m["normal_angle_deg"] + 178.0) < 0.3
    assert m["bin_width_deg"] == 3 and m["revolutions"] == 8 and m["beams_per_revolution"] == 720
    p = subprocess.run([cli, "calibrate", str(board / "data.config"), "-o", "cli.yaml", "--json", "--bin-width",
                        "3", "--seed", "2"], cwd=board, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    expected = json.loads(p.stdout)
    expected["output"] = doc["output"]
    assert doc == expected
    assert (board / "cal.yaml").read_text() == (board / "cli.yaml").read_text()


def test_calibrate_one_material_with_view(board):
    doc = lidarsim.tools.calibrate(None, board / "one.yaml", scan=board / "board.txt", name="b1", width=1.0,
                                   distance=0.61, brdf="cook-torrance", view=board / "views", sensor="s-1")
    m, = doc["materials"]
    assert m["name"] == "b1" and m["configured_distance_m"] == 0.61 and m["brdf"]["type"] == "cook-torrance"
    assert doc["sensor"] == "s-1" and "name: b1" in (board / "one.yaml").read_text()
    png = (board / "views" / "b1_view.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(png[16:20], "big") == 900
    assert sorted(os.listdir(board / "views")) == ["b1_view.png"]


def test_calibrate_errors_leave_nothing(board):
    before = sorted(os.listdir(board))
    with pytest.raises(lidarsim.FileError, match="nothere.config"):
        lidarsim.tools.calibrate(board / "nothere.config", board / "x.yaml")
    with pytest.raises(lidarsim.InvalidArgumentError, match="'b#1'"):
        lidarsim.tools.calibrate(None, board / "x.yaml", scan=board / "board.txt", name="b#1", width=1)
    with pytest.raises(lidarsim.InvalidArgumentError, match="bin_width_deg 100"):
        lidarsim.tools.calibrate(board / "data.config", board / "x.yaml", bin_width=100)
    with pytest.raises(TypeError, match="frobnicate"):
        lidarsim.tools.calibrate(board / "data.config", board / "x.yaml", frobnicate=1)
    (board / "empty.txt").write_text(synthetic_scan(revolutions=2, board=False))
    (board / "empty.config").write_text("wall,empty.txt,0.6,1.0,ON,0.5,0.0\n")
    before = sorted(os.listdir(board))
    with pytest.raises(lidarsim.NotFoundError, match=r"material wall \(.*empty.config:1\): .*board not found"):
        lidarsim.tools.calibrate(board / "empty.config", board / "x.yaml", view=board / "v")
    assert sorted(os.listdir(board)) == before


def test_validate_matches_the_cli(board, cli):
    result = lidarsim.tools.validate(board / "data.config", board / "out", check=False, seed=3)
    assert result["materials"] == 1 and result["failed"] in (0, 1) and len(result["verdicts"]) == 1
    assert result["verdicts"][0].startswith("board: PASS;" if result["failed"] == 0 else "board: FAIL;")
    assert sorted(os.listdir(board / "out")) == ["board_validation.png", "board_view.png", "calibration.yaml",
                                                 "validation.csv"]
    p = subprocess.run([cli, "validate", "data.config", "-o", "cli_out", "--seed", "3", "--quiet"], cwd=board,
                       capture_output=True, text=True)
    assert p.returncode == (3 if result["failed"] else 0), p.stderr
    assert p.stdout.splitlines() == result["verdicts"]
    assert (board / "out" / "validation.csv").read_text() == (board / "cli_out" / "validation.csv").read_text()
    with pytest.raises(lidarsim.FileError, match="it is a file, not a folder"):
        lidarsim.tools.validate(board / "data.config", board / "board.txt")


def test_validate_failed_verdict_raises(board, monkeypatch):
    def fake_run(ctx, config, outdir, opts, res):  # a run whose verdict is FAIL, without the simulation
        with open(opts._obj.report_path, "w") as f:
            f.write("board: FAIL; ...\n")
        res._obj.materials, res._obj.failed = 1, 1
        return 0

    monkeypatch.setattr(_lib.lib, "lsim_validate_run", fake_run)
    with pytest.raises(lidarsim.tools.ValidationFailed) as e:
        lidarsim.tools.validate(board / "data.config", board / "out")
    assert e.value.result == {"materials": 1, "failed": 1, "verdicts": ["board: FAIL; ..."]}
    assert lidarsim.tools.validate(board / "data.config", board / "out", check=False)["failed"] == 1


def test_bound_helpers():
    assert _lib.lib.lsim_calibration_name_valid(b"rplidar-a1") == 1
    assert _lib.lib.lsim_calibration_name_valid(b"no spaces") == 0
    kind = ctypes.c_int(-1)
    assert _lib.lib.lsim_calibration_brdf_parse(b"cook-torrance", ctypes.byref(kind)) == 1 and kind.value == 2
    assert _lib.lib.lsim_calibration_brdf_parse(b"phong", ctypes.byref(kind)) == 0 and kind.value == 2
    assert _lib.lib.lsim_context_remove_partial_outputs(None) == 1  # LSIM_ERR_INVALID_ARGUMENT
    o = _lib.CalibrateOptions()
    _lib.lib.lsim_calibrate_options_init(o)
    assert math.isnan(o.bin_width_deg) and o.brdf == 1 and o.report == 1 and o.seed == 0
    v = _lib.ValidateOptions()
    _lib.lib.lsim_validate_options_init(v)
    assert math.isnan(v.bin_width_deg) and v.seed == 1 and v.threads == 0 and v.report == 1


def test_sigterm_during_validate_leaves_every_output(tmp_path):
    """SIGTERM in the middle of lidarsim.tools.validate takes effect after the run: the process still
    ends by SIGTERM, but with every output in place and no staging folder (the CLI instead removes
    them in its handler; Python cannot run a handler during the C call, so it holds the signal)."""
    import signal
    import sys
    import time
    (tmp_path / "board.txt").write_text(synthetic_scan(revolutions=60))
    (tmp_path / "data.config").write_text("".join("b%d,board.txt,0.6,1.0,ON,0.5,0.0\n" % i for i in range(4)))
    (tmp_path / "tmp").mkdir()  # the child's TMPDIR: its temporary verdicts folder must be gone too
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(lidarsim.__file__))),
               TMPDIR=str(tmp_path / "tmp"))
    code = "import lidarsim; lidarsim.tools.validate('data.config', 'out', check=False)"
    p = subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, env=env, stderr=subprocess.PIPE, text=True)
    out, staged = tmp_path / "out", False
    deadline = time.monotonic() + HANG * 120
    while p.poll() is None and time.monotonic() < deadline:
        if out.is_dir() and any(n.startswith(".lidarsim-validate.") for n in os.listdir(out)):
            staged = True
            p.send_signal(signal.SIGTERM)
            break
        time.sleep(0.002)
    err = p.communicate(timeout=HANG * 300)[1]
    if not staged:
        pytest.skip("validate finished before its staging folder was seen (rc %s: %s)" % (p.returncode, err[-300:]))
    assert p.returncode == -signal.SIGTERM, err
    assert os.listdir(tmp_path / "tmp") == [], os.listdir(tmp_path / "tmp")
    names = sorted(os.listdir(out))
    assert names == sorted(["validation.csv", "calibration.yaml"] + ["b%d_%s.png" % (i, k) for i in range(4)
                                                                      for k in ("validation", "view")]), names


@pytest.mark.parametrize("tool", ["calibrate", "validate"])
def test_sigterm_during_the_call_leaves_no_temporary_folder(board, tool):
    """A SIGTERM that arrives while lsim_calibrate_run / lsim_validate_run runs (sent from inside the call
    here, so no race) ends the process once the call is over, by SIGTERM, with the outputs written and
    the tool's temporary report folder removed from TMPDIR."""
    import signal
    import sys
    (board / "tmp").mkdir()
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(lidarsim.__file__))),
               TMPDIR=str(board / "tmp"))
    run = "lsim_%s_run" % tool
    out = "cal.yaml" if tool == "calibrate" else "out"
    code = ("import os, signal, lidarsim\n"
            "from lidarsim import _lib\n"
            "real = _lib.lib.%s\n"
            "def run(*args):\n"
            "    os.kill(os.getpid(), signal.SIGTERM)\n"
            "    return real(*args)\n"
            "_lib.lib.%s = run\n"
            "lidarsim.tools.%s('data.config', %r%s)\n"
            "print('not ended')\n" % (run, run, tool, out, ", check=False" if tool == "validate" else ""))
    p = subprocess.run([sys.executable, "-c", code], cwd=board, env=env, capture_output=True, text=True, timeout=HANG * 300)
    assert p.returncode == -signal.SIGTERM and "not ended" not in p.stdout, (p.returncode, p.stdout, p.stderr)
    assert os.listdir(board / "tmp") == [], os.listdir(board / "tmp")
    if tool == "calibrate":
        assert "name: board" in (board / out).read_text()
    else:
        assert "validation.csv" in os.listdir(board / out)
