#!/usr/bin/python3
"""Layering of src/ (DESIGN.md §1 and §6): a stage never includes or calls a stage above it.

Run by ctest as  test_layering.py LIDARSIM_BINARY WORK_DIR  (both unused: it reads the sources
next to this file).

The stages, lowest first. A file may include headers of its own stage and of lower ranks only;
stages that share a rank are siblings and include neither each other. The order is the include
graph of the code as it is, read against the data flow of DESIGN.md §1:

  0  core       math, RNG, contexts, errors, threads, text, clocks, motion
  1  sensor     beam patterns, presets, pose                     (core)
     points     the user-facing point columns                    (core)
     receiver   pulsed receiver: waveform, echoes, EPW           (core; optics fills its
                contributions, so it sits below optics even though it comes after it in the flow)
     output     outputs that appear whole or not at all: atomic files and groups, a run's
                output set                                       (core; every writer above
                goes through it, so it sits below formats and pictures)
  2  formats    point files written and read back: PCD, PLY, LAS, KITTI, CSV, MCAP; the
                column reader, format names, byte order helpers  (points, output)
     pictures   PNGs and plots: the canvas, colour maps, plots, point views, figures
                                                                 (points, output)
  3  scene      objects, materials, meshes, scene and sensor YAML (sensor, points)
     recording  real sensors' packet streams (Ouster, Velodyne pcaps) in and out: a unit's
                calibration (sensor), points, output's atomic writer and formats' byte order
                helpers and pcap magic (formats is rank 2, so recording sits above it, beside scene)
  4  geometry   engines: hits of rays in a scene                 (scene)
  5  optics     BRDFs, bounces, sub-rays, fog, blooming          (geometry, receiver)
  6  calib      real scans, board fit, calibration tables and files, KS test, views
                (optics: fitted BRDFs; output and pictures: its files and figures; scene: its YAML
                reader)
  7  noise      parametric and calibrated noise                  (calib: calibration tables)
  8  pipeline   the frame: runs every stage above                (all of the above)
  9  validate   tools that drive the simulator many times through the public API
     dataset    (include/lidarsim.h): lidarsim validate; dataset and inverse (fitting) when
     inverse    they come (DESIGN.md §6); view: the live viewer (lidarsim view), which
     view       re-scans through lsim_scene_scan_into as the sensor moves; bench: the
     bench      benchmarks of lidarsim bench (frames, pulses, blooming, fitting, datasets)
     compare    lidarsim compare: two frames' per-beam agreement, read through the public API
     twin       lidarsim twin: a scene rebuilt from a recording (its rays through geometry's engine)
 10  cli        the lidarsim command

Three rules have no exceptions: only src/geometry/ uses Embree (headers, rtc* calls, RTC_*
names) or EGL (EGL/ headers, egl* calls, EGL_* names: the rasterizer, raster_gl*.c); only
src/geometry/ and src/view/ (the viewer's window) use OpenGL (GL/, GLES*/, epoxy/ headers, gl*
calls, GL_* names); only src/view/ uses GLFW (GLFW/ headers, glfw* calls, GLFW_* names); also
in bench/, tests/, fuzz/, include/; nothing below src/pipeline/ includes a pipeline/ or tool header or
calls a function defined in src/pipeline/ or in a tool folder (the public lsim_scene_scan*
included), and only src/cli/ includes cli/ headers.

KNOWN lists the upward includes the code has today, each with its reason; the test fails on any
other. Remove an entry when its include goes (the test prints the entries it no longer finds).
"""
import os
import re
import sys

RANKS = {
    "core": 0,
    "sensor": 1, "points": 1, "receiver": 1, "output": 1,
    "formats": 2, "pictures": 2,
    "scene": 3, "recording": 3,
    "geometry": 4,
    "optics": 5,
    "calib": 6,
    "noise": 7,
    "pipeline": 8,
    "validate": 9, "compare": 9, "twin": 9, "dataset": 9, "inverse": 9, "view": 9, "bench": 9,
    "cli": 10,
}
TOOLS = {"validate", "compare", "twin", "dataset", "inverse", "view", "bench"}

# (including file, included header): why it is there today.
KNOWN = {
    ("src/scene/scene.h", "optics/brdf.h"):
        "a scene material holds its BRDF, whose type lives in optics",
    ("src/scene/scene.c", "calib/calibration.h"):
        "a scene material can hold a calibration table (measured material), whose type lives in calib",
    ("src/scene/scene_materials.c", "calib/calibration.h"):
        "the same tie, split from scene.c: adding a measured material copies its calibration table",
    ("src/scene/scene_file.c", "calib/calibration.h"):
        "the scene file's `calibration: FILE#material` reads calibration files",
}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
# A function definition at file scope: a return type, the name, "(" on a line that starts at
# column 0 and is not static; the declaration goes on to a "{", not a ";".
DEFINITION = re.compile(r'^(?!static\b|typedef\b|extern\b|return\b)[A-Za-z_][\w \t\*]*?\b(lsim_\w+)\s*\(([^;{]*)\{',
                        re.M)


def strip_comments_and_strings(text):
    """The C text with comments, string and character literals blanked (lines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * max(0, j - i - 1) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def stage_of_include(root, src_file, header):
    """The src/ stage a quoted or angle include names, or None (public, system, same folder)."""
    if header.startswith("."):
        path = os.path.normpath(os.path.join(os.path.dirname(src_file), header))
        rel = os.path.relpath(path, os.path.join(root, "src"))
        if rel.startswith(".."):
            return None, header
        return rel.split(os.sep)[0], rel.replace(os.sep, "/")
    if "/" not in header:
        return None, header
    first = header.split("/")[0]
    if os.path.isdir(os.path.join(root, "src", first)):
        return first, header
    return None, header


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    src = os.path.join(root, "src")
    files = {}  # relative path -> (stage, text)
    problems = []
    for stage in sorted(os.listdir(src)):
        folder = os.path.join(src, stage)
        if not os.path.isdir(folder):
            continue
        if stage not in RANKS:
            problems.append(f"src/{stage}/: a stage the layering does not know; give it its rank in "
                            f"tests/test_layering.py (RANKS and the table above it)")
            continue
        for dirpath, _, names in os.walk(folder):
            for name in sorted(names):
                if name.endswith((".c", ".h")):
                    path = os.path.join(dirpath, name)
                    with open(path, encoding="utf-8", errors="replace") as f:
                        files[os.path.relpath(path, root).replace(os.sep, "/")] = (stage, f.read())
    if not files:
        problems.append(f"no sources found under {src}")

    # Rule 1: includes go down (or stay in the stage).
    seen_known = set()
    includes = 0
    for rel, (stage, text) in sorted(files.items()):
        code = strip_comments_and_strings(text).split("\n")
        for m in INCLUDE.finditer(text):
            line_no = text.count("\n", 0, m.start()) + 1
            if not code[line_no - 1].strip().startswith("#"):
                continue  # inside a comment
            target, header = stage_of_include(root, os.path.join(root, rel), m.group(2))
            if target is None or target == stage:
                continue
            includes += 1
            where = f"{rel}:{line_no}: #include {m.group(1)}{m.group(2)}{'>' if m.group(1) == '<' else chr(34)}"
            if target not in RANKS:
                problems.append(f"{where}: includes the unknown stage {target}/")
                continue
            if target == "cli":
                problems.append(f"{where}: only src/cli/ includes cli/ headers")
                continue
            if (target == "pipeline" or target in TOOLS) and RANKS[stage] < RANKS["pipeline"]:
                problems.append(f"{where}: {stage} (rank {RANKS[stage]}) is below the pipeline and must not "
                                f"include {target}/ (DESIGN.md §6: a stage never calls a stage above it)")
                continue
            if RANKS[target] >= RANKS[stage]:
                key = (rel, header)
                if key in KNOWN:
                    seen_known.add(key)
                    continue
                what = "a sibling" if RANKS[target] == RANKS[stage] else "a higher"
                problems.append(f"{where}: {stage} (rank {RANKS[stage]}) includes {what} stage {target} "
                                f"(rank {RANKS[target]}); order: tests/test_layering.py")

    # Rule 2: nothing below the pipeline calls a function defined in the pipeline or a tool.
    defined = {}  # function name -> defining file
    for rel, (stage, text) in files.items():
        if rel.endswith(".c") and (stage == "pipeline" or stage in TOOLS):
            for m in DEFINITION.finditer(strip_comments_and_strings(text)):
                defined.setdefault(m.group(1), rel)
    if not any(f.startswith("src/pipeline/") for f in defined.values()):
        problems.append("found no function defined in src/pipeline/ (the definition pattern is out of date)")
    call = re.compile(r"\b(" + "|".join(sorted(map(re.escape, defined))) + r")\s*\(") if defined else None
    for rel, (stage, text) in sorted(files.items()):
        if call is None or RANKS.get(stage, 99) >= RANKS["pipeline"]:
            continue
        code = strip_comments_and_strings(text)
        for m in call.finditer(code):
            line_no = code.count("\n", 0, m.start()) + 1
            problems.append(f"{rel}:{line_no}: {stage} calls {m.group(1)}, defined in {defined[m.group(1)]} "
                            f"above it (DESIGN.md §6: a stage never calls a stage above it)")

    # Rule 3: the geometry engines are the only code that knows Embree or EGL (the engine seam);
    # OpenGL is known to them and to the viewer (src/view/, its window's context), GLFW to the
    # viewer alone: no such header, call, type or constant anywhere else in src/, bench/, tests/,
    # fuzz/ or include/. (lib, use, header, where it may be used, the seam to go through)
    libraries = (
        ("Embree", re.compile(r"(\bembree3/|\brtc[A-Z]\w*|\bRTC_\w+)"), re.compile(r"^embree"),
         ("src/geometry/",), "geometry/engine.h"),
        ("EGL", re.compile(r"(\begl[A-Z]\w*|\bEGL_[A-Z]\w*)"), re.compile(r"^(EGL|KHR)/"),
         ("src/geometry/",), "geometry/raster_gl.h"),
        ("OpenGL", re.compile(r"(\bgl[A-Z][a-z]\w*(?=\s*\()|\bGL_[A-Z]\w*)"),
         re.compile(r"^(GL|GLES\d*|epoxy)/"), ("src/geometry/", "src/view/"),
         "geometry/raster_gl.h or view/view_gl.h"),
        ("GLFW", re.compile(r"(\bglfw[A-Z]\w*|\bGLFW_[A-Z]\w*)"), re.compile(r"^GLFW/"), ("src/view/",),
         "view/view.h"),
    )
    checked = 0
    for top in ("src", "bench", "tests", "fuzz", "include"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root).replace(os.sep, "/")
                if not rel.startswith(("src/geometry/", "src/view/")):
                    checked += 1
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                code = strip_comments_and_strings(text)
                for lib, use, header, allowed, seam in libraries:
                    if rel.startswith(allowed):
                        continue
                    why = f"only {' and '.join(allowed)} may use {lib} (go through {seam})"
                    for m in INCLUDE.finditer(text):
                        if header.match(m.group(2)):
                            problems.append(f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: includes "
                                            f"{m.group(2)}; {why}")
                    for m in use.finditer(code):
                        if m.group(1).startswith("embree3/"):
                            continue  # reported as an include above
                        problems.append(f"{rel}:{code.count(chr(10), 0, m.start()) + 1}: uses {m.group(1)}; {why}")
    if checked == 0:
        problems.append("found no sources outside src/geometry/ and src/view/ to check for Embree, EGL, OpenGL, GLFW")

    for key in sorted(set(KNOWN) - seen_known):
        print(f"note: KNOWN entry no longer found, remove it: {key[0]} includes {key[1]}")
    if problems:
        print(f"layering: {len(problems)} problem(s) (stages lowest first: "
              + " < ".join(sorted(RANKS, key=lambda s: (RANKS[s], s))) + ")")
        for p in problems:
            print("  " + p)
        return 1
    print(f"embree, EGL: used only in src/geometry/; OpenGL only there and in src/view/; GLFW only in src/view/ "
          f"({checked} other files checked)")
    print(f"layering: {len(files)} files, {includes} includes across stages, {len(defined)} functions of the "
          f"pipeline and tools, all in order ({len(seen_known)} known upward includes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
