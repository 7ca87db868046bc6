"""Point files and pictures: lidarsim.read (lsim_points_read) gives back what
lidarsim wrote, lidarsim.render (lsim_points_render) draws it, and the output checks the scan makes
before it runs (lsim_format_resolve, lsim_points_check_output, lsim_path_check_writable,
lsim_points_file_remove, lsim_scene_scan_write_progress)."""
import os
import struct

import numpy as np
import pytest

import lidarsim


@pytest.fixture(scope="module")
def frame():
    scene = lidarsim.Scene()
    scene.add_lambertian("wall", 0.6)
    scene.add_box((12.0, 10.0, 5.0), position=(0, 0, 2.0), material="wall", label="building")
    scene.add_box((2.0, 1.0, 1.0), position=(3.0, 1.0, 0.5), label="car")
    sensor = lidarsim.Sensor.preset("vlp16").set_pose((0, 0, 1.0))
    return scene, sensor, scene.scan(sensor, seed=3)


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


@pytest.mark.parametrize("ext", ["pcd", "ply", "csv"])
def test_read_gives_back_every_field(frame, tmp_path, ext):
    _, _, pts = frame
    path = str(tmp_path / ("p." + ext))
    pts.write(path)
    back = lidarsim.read(path)
    assert back.fields == pts.fields and len(back) == len(pts) > 1000
    for name in pts.fields:
        if ext == "csv":  # text: the writer's digits
            np.testing.assert_allclose(back[name], pts[name], rtol=1e-6, atol=1e-6, err_msg=name)
        else:
            np.testing.assert_array_equal(back[name], pts[name], err_msg=name)


def test_read_subset_and_rewrite(frame, tmp_path):
    _, _, pts = frame
    path = str(tmp_path / "p.pcd")
    pts.write(path, format="pcd-ascii")
    back = lidarsim.read(path, fields=["intensity", "label"])
    assert back.fields == ("x", "y", "z", "intensity", "label")  # x, y, z always
    np.testing.assert_array_equal(back["label"], pts["label"])
    # only some fields in the file: others asked for are absent, not an error
    slim = str(tmp_path / "slim.ply")
    pts.write(slim, fields="x,y,z,ring")
    back = lidarsim.read(slim, fields=["ring", "epw"])
    assert back.fields == ("x", "y", "z", "ring")
    np.testing.assert_array_equal(back["ring"], pts["ring"])
    # what was read can be written again: the same bytes as the original's
    again = str(tmp_path / "again.ply")
    back.write(again, fields=back.fields)  # the fields it holds (lsim_points_write_fields)
    assert open(again, "rb").read() == open(slim, "rb").read()


def test_read_kitti(frame, tmp_path):
    _, _, pts = frame
    path = str(tmp_path / "k.bin")
    pts.write(path)
    back = lidarsim.read(path)
    assert back.fields == ("x", "y", "z", "reflectivity", "label", "instance")
    for name in back.fields:
        np.testing.assert_array_equal(back[name], np.clip(pts[name], 0, 1) if name == "reflectivity" else pts[name])
    os.remove(str(tmp_path / "k.label"))
    assert lidarsim.read(path).fields == ("x", "y", "z", "reflectivity")  # without its .label
    with open(path, "ab") as f:
        f.write(b"\0" * 5)
    with pytest.raises(lidarsim.ParseError, match=r"k\.bin.*not a whole number of KITTI points"):
        lidarsim.read(path)


def test_read_errors(tmp_path):
    with pytest.raises(lidarsim.FileError) as e:
        lidarsim.read(tmp_path / "absent.pcd")
    assert "absent.pcd" in str(e.value)
    bad = tmp_path / "noz.csv"
    bad.write_text("x,y,intensity\n1,2,3\n")
    with pytest.raises(lidarsim.ParseError, match=r"noz\.csv:1: no `z` column"):
        lidarsim.read(bad)
    word = tmp_path / "word.csv"
    word.write_text("x,y,z\n1,2,3\n1,two,3\n")
    with pytest.raises(lidarsim.ParseError, match=r"word\.csv:3"):
        lidarsim.read(word)
    with pytest.raises(lidarsim.InvalidArgumentError, match="MCAP files are not read"):
        lidarsim.read(tmp_path / "x.mcap")
    with pytest.raises(lidarsim.ParseError, match=r"x\.las: it does not start with a LAS header"):
        (tmp_path / "x.las").write_text("x,y,z\n1,2,3\n")
        lidarsim.read(tmp_path / "x.las")


def test_render(frame, tmp_path):
    _, _, pts = frame
    png = str(tmp_path / "bev.png")
    lay = lidarsim.render(pts, png, color="range", size=(640, 480), extent=15)
    assert png_size(png) == (640, 480)
    assert 0 < lay["drawn"] <= len(pts) and lay["value_lo"] < lay["value_hi"]
    assert lay["plot_x0"] < lay["plot_x1"] <= lay["key_x0"] < lay["key_x1"] <= 640
    # from a file, coloured by label: two classes in the legend
    path = str(tmp_path / "p.pcd")
    pts.write(path)
    png = str(tmp_path / "label.png")
    lay = lidarsim.render(path, png, view="perspective", color="label", title="labels")
    assert png_size(png) == (1024, 768) and lay["classes"] == 2
    # a LAS file has no intensity: by default its reflectivity colours it, as the PCD's would
    las = str(tmp_path / "p.las")
    pts.write(las)
    lay_las = lidarsim.render(las, str(tmp_path / "las.png"), extent=15)
    lay_ref = lidarsim.render(pts, str(tmp_path / "refl.png"), color="reflectivity", extent=15)
    assert lay_las["drawn"] == lay_ref["drawn"] > 0
    assert abs(lay_las["value_lo"] - lay_ref["value_lo"]) < 1e-4 and abs(lay_las["value_hi"] - lay_ref["value_hi"]) < 1e-4
    lay_i = lidarsim.render(pts, str(tmp_path / "i.png"), extent=15)  # a scan has intensity: the default
    assert lay_i["value_hi"] < 0.5 * lay_ref["value_hi"]
    with pytest.raises(lidarsim.NotFoundError, match="'intensity'"):
        lidarsim.render(las, str(tmp_path / "no.png"), color="intensity")
    # a field the points lack, a bad size: nothing written
    slim = lidarsim.read(path, fields="x,y,z")
    bad = str(tmp_path / "bad.png")
    with pytest.raises(lidarsim.NotFoundError, match="'epw'"):
        lidarsim.render(slim, bad, color="epw")
    with pytest.raises(lidarsim.InvalidArgumentError, match="100 x 100"):
        lidarsim.render(pts, bad, size=(100, 100))
    with pytest.raises(lidarsim.InvalidArgumentError):
        lidarsim.render(pts, bad, view="top")
    assert not os.path.exists(bad)


def test_format_and_output_checks(tmp_path):
    assert lidarsim.format_name("kitti") == "kitti" and lidarsim.format_name(None) == "auto"
    assert lidarsim.format_resolve("a/b.PLY") == "ply"
    assert lidarsim.format_resolve("-", "csv") == "csv"
    with pytest.raises(lidarsim.InvalidArgumentError, match="unknown extension '.xyz'"):
        lidarsim.format_resolve("cloud.xyz")
    assert lidarsim.check_output(str(tmp_path / "c.mcap")) == "mcap"
    with pytest.raises(lidarsim.InvalidArgumentError, match="must end in .bin"):
        lidarsim.check_output(str(tmp_path / "c.kitti"), "kitti")
    with pytest.raises(lidarsim.InvalidArgumentError, match="LAS output cannot go to standard output"):
        lidarsim.check_output("-", "las")
    with pytest.raises(lidarsim.FileError, match="does not exist"):
        lidarsim.check_output(str(tmp_path / "nodir" / "c.pcd"))
    with pytest.raises(lidarsim.FileError, match="is a directory"):
        lidarsim.check_writable(str(tmp_path))
    assert lidarsim.check_writable(str(tmp_path / "new.pcd"))
    assert os.listdir(str(tmp_path)) == []  # the probes left nothing


def test_remove_and_progress(frame, tmp_path):
    scene, sensor, pts = frame
    path = str(tmp_path / "k.bin")
    pts.write(path)
    assert sorted(os.listdir(str(tmp_path))) == ["k.bin", "k.label", "k.labels.yaml"]
    lidarsim.remove_file(path)
    assert os.listdir(str(tmp_path)) == []
    lidarsim.remove_file(path)  # gone already: no error
    # the frames writer with a progress report writes the same bytes as without
    a, b = str(tmp_path / "a.mcap"), str(tmp_path / "b.mcap")
    sa = scene.scan_write(sensor, a, frames=2, seed=1)
    sb = scene.scan_write(sensor, b, frames=2, seed=1, progress="lines")
    assert open(a, "rb").read() == open(b, "rb").read() and sa["hits"] == sb["hits"] > 0
    with pytest.raises(lidarsim.InvalidArgumentError):
        scene.scan_write(sensor, b, progress="loud")
