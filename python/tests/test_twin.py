"""lidarsim.twin (lsim_twin_build): the real OS-1-128 drive's twin of frames 0 and 2 loads as a scene,
its sensor scans frame 1 on the recorded path, and that frame agrees with the real frame 1 beam by
beam (F1 >= 0.9, median |dr| under 3 cm); misuse raises, nothing is left behind."""
import json
import math
import os

import pytest

import lidarsim

DATA = os.environ.get("LSIM_DATA_DIR") or os.path.join(os.path.dirname(__file__), "..", "..", "data")
REC = os.path.join(DATA, "ouster-recordings")
PCAP = os.path.join(REC, "OS-1-128_v2.3.0_1024x10_lb_n3.pcap")
META = os.path.join(REC, "OS-1-128_v2.3.0_1024x10.json")
POSES = os.path.join(REC, "OS-1-128_v2.3.0_1024x10_lb_n3_poses_kitti.txt")


def test_real_twin_scans_the_held_out_frame(tmp_path):
    out = tmp_path / "twin"
    s = lidarsim.twin(PCAP, str(out), poses=POSES, metadata=META, frames=[0, 2])
    assert s["frames"] == 2 and s["points"] > 200000 and s["triangles"] > 300000
    assert 0 < s["transient"] < s["points"] // 20 and s["fused"] > s["points"] // 2
    assert s["materials"] > 10 and s["drop_beams"] > 100000 and 0 < s["drop_rate"] < 0.1
    with open(out / "twin.json") as f:
        j = json.load(f)
    assert [fr["frame"] for fr in j["frames"]] == [0, 2] and j["points"] == s["points"]
    scene, sensor = lidarsim.load(str(out / "scene.yaml"))
    sim = scene.scan(sensor, scan_time=0.1, frame_index=1, seed=3)
    r = lidarsim.compare(PCAP, sim, real_metadata=META, real_frame=1)
    a = r["all"]
    assert r["match"] == "beam" and (r["rings"], r["columns"]) == (128, 1024)
    assert a["f1"] >= 0.9 and a["range"]["median_abs"] < 0.03, a


def test_misuse_raises(tmp_path):
    bad = str(tmp_path / "bad")
    with pytest.raises(TypeError, match="recording"):
        lidarsim.twin(None, bad, poses=POSES, metadata=META)
    with pytest.raises(TypeError, match="frames"):
        lidarsim.twin(PCAP, bad, poses=POSES, metadata=META, frames=3)
    with pytest.raises(lidarsim.InvalidArgumentError, match="frames"):
        lidarsim.twin(PCAP, bad, poses=POSES, metadata=META, frames=["x"])
    with pytest.raises(lidarsim.InvalidArgumentError, match="levels"):
        lidarsim.twin(PCAP, bad, poses=POSES, metadata=META, levels=0)
    with pytest.raises(lidarsim.InvalidArgumentError, match="pose_time"):
        lidarsim.twin(PCAP, bad, poses=POSES, metadata=META, pose_time=math.nan)
    with pytest.raises(lidarsim.InvalidArgumentError, match="no pose"):
        lidarsim.twin(PCAP, bad, poses=POSES, metadata=META, frames=[0, 9])
    with pytest.raises(lidarsim.InvalidArgumentError, match="no sensor"):
        lidarsim.twin(PCAP, bad, poses=POSES)
    p = tmp_path / "poses.txt"
    p.write_text("1 0 0 0 0 1 0 0 0 0 1\n")
    with pytest.raises(lidarsim.ParseError, match="poses.txt:1"):
        lidarsim.twin(PCAP, bad, poses=str(p), metadata=META)
    with pytest.raises(ValueError, match="NUL"):
        lidarsim.twin(PCAP, bad + "\0x", poses=POSES, metadata=META)
    assert not os.path.exists(bad)
