#!/usr/bin/python3
"""Bad input to `lidarsim scan` (and the top-level CLI) fails cleanly.

usage: test_cli_errors.py LIDARSIM_BINARY WORK_DIR

Every case runs in a directory of its own under WORK_DIR and must
  - exit non-zero (2 for command-line usage errors, 1 for bad input files),
  - print a clear message on stderr: for scene-file errors "NAME.yaml:LINE:" with the line of the
    offending key or value (computed from the YAML text written here), the key or value itself, and
    what is valid,
  - leave nothing behind: no point cloud, no KITTI companions, no PNG and no *.tmp.* file (the
    directory holds exactly the inputs written for the case afterwards).
Standard library only. Exits 1 with one line per failed check.
"""
import os

from cli_check import (Lidarsim, binary_and_work, check, crashed, expect_failure, finish, line_of, new_dir, read_bytes,
                       write)

BINARY, WORK = binary_and_work(fresh=True)
lidarsim = Lidarsim(BINARY, WORK, seconds=60)
cases_run = 0


def refused(name, args, cwd, inputs, exit_code=None, contains=(), any_of=()):
    """lidarsim ARGS in `cwd` fails cleanly (expect_failure: exit_code, or any non-zero one when None;
    `contains` and `any_of` in stderr, case-insensitive; `cwd` holds only `inputs` afterwards) with a
    message on stderr of one line (usage errors, exit 2, may add the usage)."""
    global cases_run
    cases_run += 1
    r = lidarsim(*args, cwd=cwd)
    err = expect_failure(name, r, cwd, inputs, exit_code, contains, any_of)
    if not crashed(r.returncode, err):
        check(err.strip() != "", "%s: no message on stderr" % name)
        check("\n" not in err.strip() or exit_code == 2, "%s: expected a one-line message, got: %s"
              % (name, err.strip().replace("\n", " | ")))
    return err


# A small valid sensor and scene the cases are variations of.
SENSOR = """sensor:
  type: rotating
  channels: 2
  elevations: [-5, 5]
  columns: 8
  range: [0.1, 50]
"""
OBJECTS = """objects:
  - box: {size: [10, 10, 4]}
    position: [0, 0, 1]
"""
VALID = SENSOR + OBJECTS


def scene_case(name, text, marker=None, nth=1, contains=(), any_of=(), files=None, line=None, out="out.pcd"):
    """Write NAME.yaml (and `files`: name -> bytes/str) into a fresh directory, scan it, and require a
    failure whose message has "NAME.yaml:LINE:" (LINE: the line holding `marker`, or `line`)."""
    d = new_dir(WORK, name)
    scene = name + ".yaml"
    write(os.path.join(d, scene), text)
    inputs = [scene]
    for fname, content in (files or {}).items():
        write(os.path.join(d, fname), content)
        inputs.append(fname)
    if marker is not None:
        line = line_of(text, marker, nth)
    expected = list(contains) + [scene]
    if line is not None:
        expected.append("%s:%d:" % (scene, line))
    return refused(name, ["scan", scene, "-o", out], d, inputs, exit_code=1, contains=expected, any_of=any_of)


def main():
    # The base scene must be fine, or every case below proves nothing.
    d = new_dir(WORK, "valid")
    write(os.path.join(d, "valid.yaml"), VALID)
    code, out, err = lidarsim("scan", "valid.yaml", "-o", "out.pcd", "--quiet", cwd=d)
    check(code == 0 and os.path.exists(os.path.join(d, "out.pcd")), "the valid base scene fails: " + err)
    check(sorted(os.listdir(d)) == ["out.pcd", "valid.yaml"], "valid scan left extra files: %s" % os.listdir(d))

    presets_code, presets_out, _ = lidarsim("presets", cwd=WORK)
    preset_names = [l.split()[0] for l in presets_out.splitlines()[1:] if l.strip()]
    check(presets_code == 0 and "vlp16" in preset_names, "lidarsim presets does not list vlp16")

    # ------------------------------------------------------------------ YAML and structure
    text = SENSOR + "objects:\n  - box: {size: [1, 1, 1]}\n    position: [0, 0, 0]: oops\n"
    scene_case("yaml_syntax", text, "oops", contains=["syntax"])

    text = VALID + "lights:\n  - sun: {}\n"
    scene_case("unknown_top_key", text, "lights:", contains=["'lights'", "sensor", "materials", "labels", "objects"])

    text = SENSOR + "materials:\n  a: {brdf: lambertian, reflectance: 0.5}\nmaterials:\n  b: {reflectance: 0.2}\n" + OBJECTS
    scene_case("duplicate_top_key", text, "materials:", nth=2, contains=["'materials'", "twice"])

    text = SENSOR.replace("columns: 8", "columns: 8\n  columns: 16") + OBJECTS
    scene_case("duplicate_sensor_key", text, "columns: 16", contains=["'columns'", "twice"])

    text = (SENSOR + "materials:\n  paint: {brdf: lambertian, reflectance: 0.5}\n"
            "  paint: {brdf: lambertian, reflectance: 0.2}\n" + OBJECTS)
    scene_case("duplicate_material", text, "reflectance: 0.2", contains=["'paint'", "twice"])

    text = VALID + "labels:\n  thing: 200\n  thing: 201\n"
    scene_case("duplicate_label", text, "thing: 201", contains=["'thing'", "twice"])

    scene_case("empty_file", "", line=1, contains=["empty", "sensor", "objects"])
    scene_case("comments_only", "# nothing here\n\n", line=1, contains=["empty"])

    scene_case("missing_objects", SENSOR, line=1, contains=["objects"])
    scene_case("missing_sensor", OBJECTS, line=1, contains=["sensor", "preset"])

    text = SENSOR + "objects: {box: {size: [1, 1, 1]}}\n"
    scene_case("objects_not_a_list", text, "objects:", contains=["objects", "list"])

    text = VALID + "---\nsensor: {preset: vlp16}\n"
    scene_case("two_documents", text, "---", contains=["second YAML document"])

    text = "sensor: vlp16\n" + OBJECTS
    scene_case("sensor_not_a_mapping", text, "sensor:", contains=["sensor", "mapping", "got a scalar"])

    text = "- just\n- a list\n"
    scene_case("root_not_a_mapping", text, line=1, contains=["mapping"])

    # ------------------------------------------------------------------ sensor
    text = SENSOR.replace("channels: 2", "chanels: 2") + OBJECTS
    scene_case("sensor_key_typo", text, "chanels", contains=["'chanels'", "channels", "valid"])

    text = "sensor:\n  preset: vlp17\n  position: [0, 0, 1]\n" + OBJECTS
    err = scene_case("unknown_preset", text, "vlp17", contains=["'vlp17'"] + preset_names)

    text = "sensor:\n  type: spinning\n" + OBJECTS
    scene_case("unknown_sensor_type", text, "spinning",
               contains=["'spinning'", "rotating", "planar", "camera", "pattern", "rosette"])

    text = "sensor:\n  preset: vlp16\n  type: rotating\n" + OBJECTS
    scene_case("preset_and_type", text, "type:", contains=["preset", "type"])

    text = "sensor:\n  position: [0, 0, 1]\n" + OBJECTS
    scene_case("sensor_without_kind", text, "position", contains=["preset", "type"])

    text = SENSOR + "  width: 64\n" + OBJECTS
    scene_case("key_not_for_kind", text, "width", contains=["'width'", "rotating", "camera"])

    text = "sensor:\n  preset: rplidar-a1\n  channels: 16\n" + OBJECTS
    scene_case("key_not_for_preset_kind", text, "channels", contains=["'channels'", "planar", "rotating"])

    text = SENSOR + "  position: [0, 0]\n" + OBJECTS
    scene_case("sensor_position_2", text, "position: [0, 0]", contains=["sensor.position", "3", "2"])

    text = SENSOR + "  rotation: [0, zero, 0]\n" + OBJECTS
    scene_case("sensor_rotation_word", text, "rotation:", contains=["sensor.rotation[1]", "'zero'"])

    text = SENSOR.replace("range: [0.1, 50]", "range: [10, 1]") + OBJECTS
    scene_case("range_min_above_max", text, "range:", contains=["range", "10", "below"])

    text = SENSOR.replace("range: [0.1, 50]", "range: [-1, 50]") + OBJECTS
    scene_case("range_negative", text, "range:", contains=["range", "-1", ">= 0"])

    text = SENSOR + "  noise: {range_sigma: -0.02, intensity_sigma: 0.05}\n" + OBJECTS
    scene_case("negative_range_sigma", text, "range_sigma", contains=["range_sigma", "-0.02", ">= 0"])

    text = SENSOR + "  noise: {range_sigma: 0.02, sigma: 0.05}\n" + OBJECTS
    scene_case("unknown_noise_key", text, "sigma: 0.05", contains=["'sigma'", "range_sigma", "intensity_sigma"])

    text = SENSOR + "  detection_reflectance: 0\n" + OBJECTS
    scene_case("detection_reflectance_zero", text, "detection_reflectance",
               contains=["detection_reflectance", "(0, 1000]"])

    text = SENSOR.replace("columns: 8", "columns: 0") + OBJECTS
    scene_case("columns_zero", text, "columns", contains=["sensor.columns", "0", "1"])

    text = SENSOR.replace("columns: 8", "columns: 8.5") + OBJECTS
    scene_case("columns_fraction", text, "columns", contains=["sensor.columns", "'8.5'", "integer"])

    text = SENSOR.replace("channels: 2", "channels: 3") + OBJECTS
    scene_case("channels_vs_elevations", text, "channels", contains=["3", "2", "elevations"])

    text = SENSOR.replace("elevations: [-5, 5]", "elevations: [-5, 95]") + OBJECTS
    scene_case("elevation_out_of_range", text, "elevations", contains=["elevations", "95", "[-90, 90]"])

    text = SENSOR + "  rate_hz: -10\n" + OBJECTS
    scene_case("rate_negative", text, "rate_hz", contains=["rate_hz", "-10", "> 0"])

    text = "sensor:\n  type: planar\n  fov_deg: 400\n  steps: 10\n" + OBJECTS
    scene_case("planar_fov_400", text, "fov_deg", contains=["fov_deg", "400", "360"])

    text = "sensor:\n  type: pattern\n" + OBJECTS
    scene_case("pattern_without_file", text, "type: pattern", contains=["file"])

    text = "sensor:\n  type: pattern\n  file: nope.csv\n" + OBJECTS
    scene_case("pattern_file_missing", text, "file:", contains=["nope.csv", "cannot open"])

    beams = "# a comment\nazimuth_deg,elevation_deg\n0,0\nabc,5\n"
    text = "sensor:\n  type: pattern\n  file: beams.csv\n" + OBJECTS
    scene_case("pattern_file_malformed", text, "file:", files={"beams.csv": beams},
               contains=["beams.csv:4:", "column 1 (azimuth_deg) is not a finite number"])

    beams = "azimuth_deg,elev\n0,0\n"
    scene_case("pattern_file_bad_header", text, "file:", files={"beams.csv": beams},
               contains=["beams.csv:1:", "column 2 of the header is not a pattern column", "elevation_deg"])

    beams = "azimuth_deg,elevation_deg\n0,0\n10,91\n"
    scene_case("pattern_file_elevation_91", text, "file:", files={"beams.csv": beams},
               contains=["beams.csv:3:", "91", "-90..90"])

    # ------------------------------------------------------------------ materials and labels
    def with_material(body):
        return SENSOR + "materials:\n  paint: " + body + "\n" + OBJECTS.replace(
            "position: [0, 0, 1]", "position: [0, 0, 1]\n    material: paint")

    scene_case("reflectance_1_5", with_material("{brdf: lambertian, reflectance: 1.5}"), "reflectance",
               contains=["reflectance", "1.5", "[0, 1]"])
    scene_case("reflectance_negative", with_material("{brdf: lambertian, reflectance: -0.1}"), "reflectance",
               contains=["reflectance", "-0.1", "[0, 1]"])
    scene_case("reflectance_missing", with_material("{brdf: lambertian}"), "paint:", contains=["reflectance"])
    scene_case("unknown_brdf", with_material("{brdf: phong, reflectance: 0.5}"), "phong",
               contains=["'phong'", "lambertian"])
    scene_case("unknown_material_key", with_material("{brdf: lambertian, reflectance: 0.5, shine: 1}"), "shine",
               contains=["'shine'", "brdf", "reflectance"])

    text = VALID.replace("position: [0, 0, 1]", "position: [0, 0, 1]\n    material: glass")
    scene_case("undefined_material", text, "glass", contains=["'glass'", "materials"])

    text = VALID + "labels:\n  mything: 70000\n"
    scene_case("label_id_70000", text, "70000", contains=["labels.mything", "70000", "65535"])

    text = VALID + "labels:\n  mything: -1\n"
    scene_case("label_id_negative", text, "mything", contains=["labels.mything", "-1", "65535"])

    text = VALID + "labels: car\n"  # a mapping of name: id, or a list of names
    scene_case("labels_not_a_mapping", text, "labels:", contains=["labels", "mapping", "list of names"])

    text = SENSOR + "objects:\n  - box: {size: [1, 1, 1]}\n    label: buiding\n"
    scene_case("label_misspelt", text, "buiding", contains=["objects[0].label", "did you mean 'building'?"])

    # ------------------------------------------------------------------ objects
    text = SENSOR + "objects:\n  - box: {size: [1, 1, 1]}\n  - position: [0, 0, 0]\n    label: car\n"
    scene_case("object_without_shape", text, "- position", contains=["objects[1]", "box", "sphere", "plane", "mesh"])

    text = SENSOR + "objects:\n  - box: {size: [1, 1, 1]}\n    sphere: {radius: 1}\n"
    scene_case("object_two_shapes", text, "sphere:", contains=["objects[0]", "box", "sphere", "one shape"])

    text = SENSOR + "objects:\n  - box: {size: [1, 1, 1]}\n    colour: red\n"
    scene_case("unknown_object_key", text, "colour", contains=["'colour'", "position", "material"])

    text = SENSOR + "objects:\n  - box: {size: \"abc\"}\n"
    scene_case("box_size_string", text, "abc", contains=["objects[0].box.size", "got a scalar", "3 numbers"])

    text = SENSOR + "objects:\n  - box: {size: [1, 2]}\n"
    scene_case("box_size_2", text, "size", contains=["objects[0].box.size", "3", "2"])

    text = SENSOR + "objects:\n  - box: {size: [1, 0, 2]}\n"
    scene_case("box_size_zero", text, "size", contains=["objects[0].box.size", "(0, 1e7]"])

    text = SENSOR + "objects:\n  - box: {}\n"
    scene_case("box_without_size", text, "box", contains=["objects[0].box", "size"])

    text = SENSOR + "objects:\n  - box: {size: [1, 1, 1], radius: 2}\n"
    scene_case("box_with_radius", text, "radius", contains=["'radius'", "size"])

    text = SENSOR + "objects:\n  - plane: {size: [1, 2, 3]}\n"
    scene_case("plane_size_3", text, "plane", contains=["objects[0].plane.size", "2", "3"])

    text = SENSOR + "objects:\n  - box: {size: [1, 1, 1]}\n  - sphere:\n      radius: -1\n"
    scene_case("sphere_radius_negative", text, "radius", contains=["objects[1].sphere.radius", "-1", "(0, 1e7]"])

    text = SENSOR + "objects:\n  - sphere: {radius: big}\n"
    scene_case("sphere_radius_word", text, "radius", contains=["objects[0].sphere.radius", "'big'", "number"])

    text = SENSOR + "objects:\n  - box: {size: [1, 1, 1]}\n    position: [1, 2]\n"
    scene_case("object_position_2", text, "position", contains=["objects[0].position", "3", "2"])

    text = SENSOR + "objects:\n  - box: {size: [1, 1, 1]}\n    scale: 0\n"
    scene_case("scale_zero", text, "scale", contains=["objects[0].scale", "0", "> 0"])

    text = SENSOR + "objects:\n  - box: {size: [1, 1, 1]}\n    scale: [1, 2]\n"
    scene_case("scale_list", text, "scale", contains=["objects[0].scale", "number"])

    text = SENSOR + "objects:\n  - box: {size: [1, 1, 1]}\n    label: " + "x" * 80 + "\n"
    scene_case("label_name_too_long", text, "label:", contains=["objects[0].label", "80", "63"])

    text = SENSOR + "objects:\n  - box: {size: [1, 1, 1]}\n    label: [car]\n"
    scene_case("label_list", text, "label", contains=["objects[0].label", "string"])

    text = SENSOR + "objects:\n  - box: {size: [1, 1, 1]}\n  - mesh: models/nothere.obj\n    scale: 2\n"
    scene_case("mesh_missing", text, "nothere", contains=["objects[1].mesh", "nothere.obj"])

    garbage = bytes((i * 73 + 41) % 256 for i in range(4096))
    text = SENSOR + "objects:\n  - box: {size: [1, 1, 1]}\n  - mesh: garbage.obj\n"
    scene_case("mesh_garbage_obj", text, "garbage", files={"garbage.obj": garbage},
               contains=["objects[1].mesh", "garbage.obj"])
    text = SENSOR + "objects:\n  - mesh: garbage.stl\n"
    scene_case("mesh_garbage_stl", text, "garbage", files={"garbage.stl": garbage},
               contains=["objects[0].mesh", "garbage.stl"])
    text = SENSOR + "objects:\n  - mesh: notes.txt\n"
    scene_case("mesh_text_file", text, "notes", files={"notes.txt": "just some words\nand more\n"},
               contains=["objects[0].mesh", "notes.txt"])

    # ------------------------------------------------------------------ files
    d = new_dir(WORK, "no_scene_file")
    refused("no_scene_file", ["scan", "nothere.yaml", "-o", "out.pcd"], d, [], exit_code=1,
            contains=["nothere.yaml"], any_of=[("no such file", "cannot open")])

    d = new_dir(WORK, "scene_is_directory")
    os.makedirs(os.path.join(d, "dir.yaml"))
    refused("scene_is_directory", ["scan", "dir.yaml", "-o", "out.pcd"], d, ["dir.yaml"], contains=["dir.yaml"])

    # ------------------------------------------------------------------ command line
    def cli_case(name, args, exit_code, contains=(), any_of=(), extra_inputs=()):
        d = new_dir(WORK, name)
        write(os.path.join(d, "scene.yaml"), VALID)
        return refused(name, args, d, ["scene.yaml"] + list(extra_inputs), exit_code=exit_code,
                       contains=contains, any_of=any_of)

    cli_case("no_command", [], 2, contains=["usage"])
    cli_case("unknown_command", ["scna", "scene.yaml"], 2, contains=["'scna'", "scan", "presets"])
    cli_case("missing_output", ["scan", "scene.yaml"], 2, contains=["-o"])
    cli_case("missing_scene", ["scan", "-o", "out.pcd"], 2, contains=["scene"])
    cli_case("two_scenes", ["scan", "scene.yaml", "scene.yaml", "-o", "out.pcd"], 2, contains=["scene.yaml"])
    cli_case("output_without_value", ["scan", "scene.yaml", "-o"], 2, contains=["-o", "value"])
    cli_case("unknown_option", ["scan", "scene.yaml", "-o", "out.pcd", "--frobnicate"], 2,
             contains=["'--frobnicate'", "--help"])
    cli_case("format_bogus", ["scan", "scene.yaml", "-o", "out.pcd", "--format", "bogus"], 2,
             contains=["'bogus'", "pcd", "ply", "kitti", "csv"])
    cli_case("noise_maybe", ["scan", "scene.yaml", "-o", "out.pcd", "--noise", "maybe"], 2,
             contains=["'maybe'", "on", "off"])
    cli_case("threads_negative", ["scan", "scene.yaml", "-o", "out.pcd", "--threads", "-1"], 2,
             contains=["--threads", "'-1'"])
    cli_case("threads_word", ["scan", "scene.yaml", "-o", "out.pcd", "--threads", "abc"], 2,
             contains=["--threads", "'abc'"])
    cli_case("seed_negative", ["scan", "scene.yaml", "-o", "out.pcd", "--seed", "-5"], 2, contains=["--seed", "'-5'"])
    cli_case("seed_too_big", ["scan", "scene.yaml", "-o", "out.pcd", "--seed", "18446744073709551616"], 2,
             contains=["--seed"])
    cli_case("frame_bogus", ["scan", "scene.yaml", "-o", "out.pcd", "--frame", "body"], 2,
             contains=["'body'", "sensor", "world"])
    cli_case("bev_size_small", ["scan", "scene.yaml", "-o", "out.pcd", "--bev", "b.png", "--bev-size", "3"], 2,
             contains=["--bev-size", "'3'"])
    cli_case("bev_extent_zero", ["scan", "scene.yaml", "-o", "out.pcd", "--bev", "b.png", "--bev-extent", "0"], 2,
             contains=["--bev-extent", "'0'"])
    cli_case("extension_xyz", ["scan", "scene.yaml", "-o", "out.xyz"], 2,
             contains=["out.xyz", "'.xyz'", ".pcd", ".ply", ".bin", ".csv", "--format"])
    cli_case("no_extension", ["scan", "scene.yaml", "-o", "cloud"], 2, contains=["'cloud'", "extension"])
    cli_case("kitti_not_bin", ["scan", "scene.yaml", "-o", "out.pcd", "--format", "kitti"], 2,
             contains=["out.pcd", ".bin"])
    cli_case("bev_is_output", ["scan", "scene.yaml", "-o", "out.pcd", "--bev", "out.pcd"], 2, contains=["out.pcd"])
    # A bad output is reported before the scene is even read (no time lost scanning).
    cli_case("bad_output_before_scene", ["scan", "nothere.yaml", "-o", "out.xyz"], 2, contains=["'.xyz'"])
    cli_case("output_dir_missing", ["scan", "scene.yaml", "-o", "nodir/out.pcd"], 1,
             contains=["nodir/out.pcd", "does not exist"])
    cli_case("output_dir_missing_kitti", ["scan", "scene.yaml", "-o", "nodir/out.bin"], 1,
             contains=["nodir/out.bin", "does not exist"])
    for out in ("out.pcd", "out.bin", "out.csv"):
        name = "bev_dir_missing_" + out.split(".")[1]
        cli_case(name, ["scan", "scene.yaml", "-o", out, "--bev", "nodir/bev.png"], 1,
                 contains=["nodir/bev.png", "does not exist"])

    # The output is a directory: nothing is written and the directory survives.
    d = new_dir(WORK, "output_is_dir")
    write(os.path.join(d, "scene.yaml"), VALID)
    os.makedirs(os.path.join(d, "adir.pcd"))
    refused("output_is_dir", ["scan", "scene.yaml", "-o", "adir.pcd"], d, ["scene.yaml", "adir.pcd"],
            exit_code=1, contains=["adir.pcd", "directory"])
    check(os.path.isdir(os.path.join(d, "adir.pcd")) and not os.listdir(os.path.join(d, "adir.pcd")),
          "output_is_dir: the directory was changed")

    # An existing output is left as it was when the scan fails (atomic write).
    d = new_dir(WORK, "keeps_old_output")
    write(os.path.join(d, "scene.yaml"), VALID)
    write(os.path.join(d, "out.pcd"), "old\n")
    refused("keeps_old_output", ["scan", "scene.yaml", "-o", "out.pcd", "--bev", "nodir/bev.png"], d,
            ["scene.yaml", "out.pcd"], exit_code=1, contains=["nodir/bev.png"])
    check(read_bytes(os.path.join(d, "out.pcd")) == b"old\n",
          "keeps_old_output: the old output was replaced or removed by a failed scan")

    # --help and --version on every command (getopt_long, src/cli/opts.c); usage errors name the
    # option, say what is valid or where to look, and exit 2.
    version = lidarsim("--version").stdout.strip()
    check(version.startswith("lidarsim ") and version.count(".") == 2, "lidarsim --version says %r" % version)
    for cmd in (["scan"], ["presets"], ["bench"], ["bench", "blooming"], ["bench", "pulses"], ["bench", "fit"],
                ["bench", "dataset"], ["calibrate"], ["validate"], ["fit"], ["pattern", "from-scan"], ["dataset"],
                ["render"], ["view"], ["compare"]):
        name = " ".join(cmd)
        p = lidarsim(*cmd, "--version")
        check(p.returncode == 0 and p.stdout.strip() == version and p.stderr == "",
              "%s --version: exit %d, %r" % (name, p.returncode, p.stdout + p.stderr))
        p = lidarsim(*cmd, "--help")
        check(p.returncode == 0 and "usage:" in p.stdout and "--version" in p.stdout and p.stderr == "",
              "%s --help: exit %d, stdout starts %r" % (name, p.returncode, p.stdout[:80]))
        p = lidarsim(*cmd, "--no-such-option")
        check(p.returncode == 2 and "unknown option '--no-such-option'" in p.stderr and "--help" in p.stderr,
              "%s --no-such-option: exit %d, %r" % (name, p.returncode, p.stderr.strip()))
    p = lidarsim("help", "render")
    check(p.returncode == 0 and p.stdout.startswith("usage: lidarsim render"), "lidarsim help render: %r"
          % p.stdout[:80])
    for args, needle in ((["scan", "s.yaml", "--seed"], "lidarsim scan: option --seed needs a value (see lidarsim "
                                                         "scan --help)"),
                         (["scan", "s.yaml", "-o"], "lidarsim scan: option -o needs a value"),
                         (["scan", "s.yaml", "-o", "x.pcd", "--format=xyz"], "--format 'xyz' is invalid; expected pcd"),
                         (["render", "a.ply", "b.ply", "-o", "x.png"], "unexpected argument 'b.ply'"),
                         (["fit", "f.yaml", "-o", "x.yaml", "--max-iterations=0"], "--max-iterations '0' is invalid")):
        p = lidarsim(*args)
        check(p.returncode == 2 and needle in p.stderr, "%s: exit %d, %r lacks %r" % (" ".join(args), p.returncode,
                                                                                      p.stderr.strip(), needle))

    finish("test_cli_errors", "%d cases OK" % cases_run)


if __name__ == "__main__":
    main()
