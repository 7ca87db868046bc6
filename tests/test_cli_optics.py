#!/usr/bin/env python3
"""The optics through the CLI: bad optics parameters are clear errors (file:line, key, what is
valid; nothing written), and the example scenes show what they are for: ghosts behind the
mirror, two echoes through the glass facade, blooming around the retroreflective sign and none
around a Lambertian one. Usage: test_cli_optics.py LIDARSIM WORK_DIR"""
import os
import re
import shutil

import numpy as np
from cli_check import Lidarsim, binary_and_work, check, finish, read_pcd, source_dir, write

LIDARSIM, WORK = binary_and_work(fresh=True)
SOURCE = source_dir()
lidarsim = Lidarsim(LIDARSIM, seconds=300)


def run(args, cwd):
    return lidarsim("scan", *args, cwd=cwd)


BASE = """sensor:
  type: pattern
  file: beams.csv
{sensor}materials:
  wall: {{brdf: lambertian, reflectance: 0.5}}
{materials}{top}objects:
  - plane: {{size: [10, 10]}}
    position: [10, 0, 0]
    rotation: [0, 90, 0]
    material: wall
"""

# (name, sensor lines, material lines, top-level lines, key expected in the message, valid text)
BAD = [
    ("negative_reflectance", "", "  m: {brdf: lambertian, reflectance: -0.2}\n", "", "materials.m.reflectance", "0"),
    ("ior_below_1", "", "  g: {brdf: glass, ior: 0.9}\n", "", "materials.g.ior", ">= 1"),
    ("ct_roughness_zero", "", "  c: {brdf: cook-torrance, reflectance: 0.5, roughness: 0}\n", "",
     "materials.c.roughness", "must be"),
    ("retro_peak_negative", "", "  r: {brdf: retroreflector, peak: -5}\n", "", "materials.r.peak", "must be"),
    ("glass_transmittance", "", "  g: {brdf: glass, ior: 1.5, transmittance: 1.5}\n", "",
     "materials.g.transmittance", "must be"),
    ("unknown_brdf", "", "  m: {brdf: phong, reflectance: 0.5}\n", "", "materials.m.brdf", "oren-nayar"),
    ("key_of_other_brdf", "", "  m: {brdf: lambertian, reflectance: 0.5, ior: 1.5}\n", "", "materials.m",
     "valid keys"),
    ("beam_mode", "  beam: {mode: cone}\n", "", "", "sensor.beam.mode", "single, rays, kernel"),
    ("rays_without_divergence", "  beam: {mode: rays, divergence_mrad: 0}\n", "", "", "sensor.beam.divergence_mrad",
     "divergence > 0"),
    ("halo_level", "  beam: {divergence_mrad: 3, mode: kernel, kernel: {halo_level: 2}}\n", "", "",
     "sensor.beam.kernel.halo_level", "0..1"),
    ("kernel_file_missing", "  beam: {divergence_mrad: 3, mode: kernel, kernel: {file: nope.txt}}\n", "", "",
     "nope.txt", ""),
    ("kernel_file_malformed", "  beam: {divergence_mrad: 3, mode: kernel, kernel: {file: bad_kernel.txt}}\n", "", "",
     "bad_kernel.txt:", ""),
    ("returns_mode", "  receiver: {returns: second}\n", "", "", "sensor.receiver.returns", "first, strongest"),
    ("max_returns", "  receiver: {max_returns: 0}\n", "", "", "sensor.receiver.max_returns", "1"),
    ("pulse_width", "  receiver: {pulse_width_ns: -1}\n", "", "", "sensor.receiver.pulse_width_ns", "ns"),
    ("visibility", "", "", "atmosphere: {visibility_m: 0}\n", "atmosphere.visibility_m", "> 0"),
    ("atmosphere_both", "", "", "atmosphere: {visibility_m: 50, extinction_per_m: 0.1}\n", "atmosphere",
     "either"),
    ("visibility_tiny", "", "", "atmosphere: {visibility_m: 0.1}\n", "atmosphere.visibility_m", "at least 0.3 m"),
    ("visibility_text", "", "", "atmosphere: {visibility_m: thick}\n", "atmosphere.visibility_m", ""),
    ("extinction_big", "", "", "atmosphere: {extinction_per_m: 12}\n", "atmosphere.extinction_per_m", "0..10"),
    ("backscatter_big", "", "", "atmosphere: {visibility_m: 50, backscatter_per_m_sr: 0.5}\n",
     "atmosphere.backscatter_per_m_sr", "0..the extinction"),
    ("atmosphere_no_fog", "", "", "atmosphere: {backscatter_per_m_sr: 0.001}\n", "atmosphere", "visibility_m"),
    ("atmosphere_key", "", "", "atmosphere: {visibility: 50}\n", "atmosphere", "visibility_m"),
    ("overlap_order", "  receiver: {overlap_m: [3, 1]}\n", "", "", "sensor.receiver.overlap_m", "start <= full"),
    ("overlap_zero", "  receiver: {overlap_m: [0, 1]}\n", "", "", "sensor.receiver.overlap_m", "0 < start"),
    ("overlap_far", "  receiver: {overlap_m: [1, 5000]}\n", "", "", "sensor.receiver.overlap_m", "1000 m"),
    ("overlap_scalar", "  receiver: {overlap_m: 2}\n", "", "", "sensor.receiver.overlap_m", ""),
    ("irradiance", "", "", "ambient: {sun_direction: [0, 0, 1], irradiance_w_m2: -3}\n", "ambient", "0..2000"),
    ("sun_zero", "", "", "ambient: {sun_direction: [0, 0, 0], irradiance_w_m2: 10}\n", "ambient", "non-zero"),
    ("max_bounces", "", "", "max_bounces: 40\n", "max_bounces", "16"),
    ("baseline", "  baseline: [0, 50, 0]\n", "", "", "sensor.baseline", "10 m"),
    ("receiver_type", "  receiver: {type: fmcw}\n", "", "", "sensor.receiver.type", "pulsed, cw"),
    ("cw_one_frequency", "  receiver: {type: cw, frequencies_hz: [46.55e6, 46.55e6]}\n", "", "",
     "sensor.receiver.frequencies_hz", "distinct"),
    ("cw_samples", "  receiver: {type: cw, frequencies_hz: [46.55e6, 53.2e6], samples: 2}\n", "", "",
     "sensor.receiver.samples", "4"),
    ("cw_bias", "  receiver: {type: cw, frequencies_hz: [46.55e6, 53.2e6], bias: [0, .nan, 0]}\n", "", "",
     "sensor.receiver.bias", "finite"),
]


def bad_inputs():
    for name, sensor, materials, top, key, valid in BAD:
        d = os.path.join(WORK, "bad", name)
        os.makedirs(d)
        write(os.path.join(d, "beams.csv"), "azimuth_deg,elevation_deg\n0,0\n1,0\n")
        write(os.path.join(d, "bad_kernel.txt"), "step_deg: 0.05\nh: 1 2 abc\nv: 1 2 1\n")
        text = BASE.format(sensor=sensor, materials=materials, top=top)
        write(os.path.join(d, name + ".yaml"), text)
        before = set(os.listdir(d))
        r = run([name + ".yaml", "-o", "out.pcd"], d)
        msg = r.stderr.strip()
        check(r.returncode != 0, f"{name}: exit code 0")
        check(key in msg, f"{name}: message lacks '{key}': {msg}")
        check(valid in msg, f"{name}: message lacks '{valid}': {msg}")
        check(re.search(r"\.(yaml|txt):\d+", msg) is not None or "cannot open" in msg or "No such" in msg,
              f"{name}: message has no file:line: {msg}")
        check(set(os.listdir(d)) == before, f"{name}: left files {set(os.listdir(d)) - before}")
        if os.environ.get("LSIM_TEST_VERBOSE"):
            print(f"{name}: {msg}")


def examples():
    ex = os.path.join(SOURCE, "examples")
    out = os.path.join(WORK, "examples")
    os.makedirs(out)
    # Mirror corridor: ghosts along the emitted rays beyond the mirror (x > 15 in the world).
    r = run([os.path.join(ex, "mirror_corridor", "mirror_corridor.yaml"), "-o", "mc.pcd", "--frame", "world",
             "--noise", "off"], out)
    check(r.returncode == 0, f"mirror corridor failed: {r.stderr}")
    if r.returncode == 0:
        p = read_pcd(os.path.join(out, "mc.pcd"))
        ghosts = p[(p["x"] > 16.0) & (np.abs(p["y"]) < 2.0)]
        person = ghosts[ghosts["label"] == 30]
        print(f"mirror corridor: {len(p)} points, {len(ghosts)} ghosts behind the mirror, {len(person)} of the person")
        check(len(ghosts) > 20, "mirror corridor: no ghost points behind the mirror")
        check(len(person) > 0, "mirror corridor: the person in the side room is not seen through the mirror")
    # Glass facade, dual returns: beams with two echoes, the glass near 12 m and the wall near 13.5 m.
    r = run([os.path.join(ex, "glass_facade", "glass_facade.yaml"), "-o", "gf.pcd", "--noise", "off"], out)
    check(r.returncode == 0, f"glass facade failed: {r.stderr}")
    if r.returncode == 0:
        p = read_pcd(os.path.join(out, "gf.pcd"))
        two = p[p["num_returns"] == 2]
        print(f"glass facade: {len(p)} points, {len(two)} from beams with two echoes")
        check(len(two) > 0, "glass facade: no beam has two echoes")
        check(np.all(p["return_index"] < np.maximum(p["num_returns"], 1)), "glass facade: return_index >= num_returns")
    # Retroreflective sign: blooming points at the sign's range outside its angular contour, and
    # none with a Lambertian sign of the same shape.
    counts = {}
    for material in ("retroreflector", "lambertian"):
        d = os.path.join(out, "sign_" + material)
        shutil.copytree(os.path.join(ex, "retro_sign"), d)
        path = os.path.join(d, "retro_sign.yaml")
        text = open(path).read()
        if material == "lambertian":
            text = text.replace("{brdf: retroreflector, peak: 800, falloff_deg: 25}",
                                "{brdf: lambertian, reflectance: 0.9}")
        write(path, text)
        r = run(["retro_sign.yaml", "-o", "sign.pcd", "--frame", "world", "--noise", "off"], d)
        check(r.returncode == 0, f"retro sign ({material}) failed: {r.stderr}")
        if r.returncode != 0:
            continue
        p = read_pcd(os.path.join(d, "sign.pcd"))
        at_sign = np.abs(p["x"] - 25.0) < 0.3
        outside = at_sign & ((np.abs(p["y"] + 2.0) > 0.45 + 0.15) | (np.abs(p["z"] - 2.3) > 0.45 + 0.15)) & (
            p["label"] == 81)
        counts[material] = int(outside.sum())
    print(f"retro sign: {counts} points at the sign's range outside its contour")
    check(counts.get("retroreflector", 0) > 0, "retro sign: no blooming")
    check(counts.get("lambertian", 1) == 0, "retro sign: a Lambertian sign blooms")


bad_inputs()
examples()
finish("test_cli_optics")
