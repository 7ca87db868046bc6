#!/usr/bin/env python3
"""lidarsim validate on the real RPLIDAR calibration scans (data/apollosim-rplidar, shipped in the repository):
per material, the calibrated simulation reproduces the real per-angle statistics and is closer
to the real sensor than the BRDF-only model; the outputs (CSV, plots, views, calibration) are
written and usable. Hold-out (calibrated on the even revolutions, compared with the odd ones)
passes for all five materials on two seeds, by the same tests the real sensor's own two halves
pass. The metals' BRDF is not at the fit's bounds. A board of metal2 at its real 0.12 m, scanned
with the rplidar-a1 preset (datasheet minimum 0.15 m), returns points near normal incidence.
Usage: test_validate_real.py LIDARSIM WORK_DIR"""
import csv
import os

import repo_data
from cli_check import Lidarsim, binary_and_work, check, finish, read_bytes, write

LIDARSIM, WORK = binary_and_work(fresh=True)
CONFIG = repo_data.need(os.path.join(repo_data.RPLIDAR, "data.config"))
lidarsim = Lidarsim(LIDARSIM, seconds=60)
out = os.path.join(WORK, "val")
r = lidarsim("validate", CONFIG, "-o", out, "--seed", "1", seconds=300)
print(r.stdout)
check(r.returncode == 0, f"validate failed or a verdict is FAIL (exit {r.returncode}): {r.stderr}")
check(all("PASS" in line for line in r.stdout.splitlines() if ":" in line), "a material's verdict is FAIL")
names = ["wall", "wood", "metal", "metal2", "acrylic"]
verdicts = {line.split(":")[0]: line for line in r.stdout.splitlines() if ":" in line}
check(sorted(verdicts) == sorted(names), f"verdict lines for {sorted(verdicts)}")

rows = list(csv.DictReader(open(os.path.join(out, "validation.csv")))) if r.returncode == 0 else []
for name in names:
    bins = [b for b in rows if b["material"] == name]
    check(len(bins) > 10, f"{name}: only {len(bins)} bins")
    if not bins:
        continue
    # drop rate inside the real bin's 95 % binomial interval for >= 90 % of bins
    inside = sum(float(b["drop_lo"]) - 1e-12 <= float(b["drop_calibrated"]) <= float(b["drop_hi"]) + 1e-12
                 for b in bins)
    check(inside >= 0.9 * len(bins), f"{name}: drop rate inside the interval in {inside}/{len(bins)} bins")
    # range std within 20 % of real (bins with >= 100 returns)
    compared = [b for b in bins if int(b["returns_real"]) >= 100 and float(b["std_range_real"]) > 0]
    within = sum(abs(float(b["std_range_calibrated"]) - float(b["std_range_real"])) <= 0.2 * float(b["std_range_real"])
                 for b in compared)
    check(within >= 0.9 * len(compared), f"{name}: range std within 20 % in {within}/{len(compared)} bins")
    # calibrated closer to real than BRDF-only on every material
    check("calibrated closer" in verdicts.get(name, ""), f"{name}: calibrated not closer: {verdicts.get(name)}")
    for suffix in ("_validation.png", "_view.png"):
        path = os.path.join(out, name + suffix)
        check(os.path.exists(path) and read_bytes(path)[:8] == b"\x89PNG\r\n\x1a\n", f"{path} is not a PNG")



def check_holdout(seed):
    """--holdout: exit 0, every verdict PASS, with the real halves' reference; the CSV agrees."""
    out_h = os.path.join(WORK, "holdout%d" % seed)
    r = lidarsim("validate", CONFIG, "-o", out_h, "--seed", seed, "--holdout", seconds=300)
    print(r.stdout)
    check(r.returncode == 0, f"validate --holdout --seed {seed}: exit {r.returncode}: {r.stderr}")
    lines = {line.split(":")[0]: line for line in r.stdout.splitlines() if ":" in line}
    check(sorted(lines) == sorted(names), f"holdout verdicts for {sorted(lines)}")
    for name in names:
        line = lines.get(name, "")
        check(line.startswith(name + ": PASS;"), f"holdout seed {seed}: {line}")
        check("held out" in line and "odd vs even halves" in line, f"holdout seed {seed}: no reference: {line}")
    rows_h = list(csv.DictReader(open(os.path.join(out_h, "validation.csv")))) if r.returncode == 0 else []
    for name in names:
        bins = [b for b in rows_h if b["material"] == name]
        check(len(bins) > 10, f"holdout {name}: {len(bins)} bins")
        if not bins:
            continue
        # every real revolution simulated 8 times (the simulated board's ends may put an edge beam in
        # the neighbouring bin)
        n_real, n_sim = sum(int(b["n_real"]) for b in bins), sum(int(b["n_sim"]) for b in bins)
        check(abs(n_sim - 8 * n_real) <= 0.02 * 8 * n_real, f"holdout {name}: {n_sim} simulated beams, {n_real} real")
        inside = sum(float(b["drop_lo"]) - 1e-12 <= float(b["drop_calibrated"]) <= float(b["drop_hi"]) + 1e-12
                     for b in bins)
        check(inside >= 0.9 * len(bins), f"holdout {name}: drop rate inside in {inside}/{len(bins)} bins")
        compared = [b for b in bins if int(b["returns_real"]) >= 100 and float(b["std_range_real"]) > 0]
        within = [abs(float(b["std_range_calibrated"]) / float(b["std_range_real"]) - 1) <= 0.2 for b in compared]
        check(len(compared) >= 15 and all(within), f"holdout {name}: range std within 20 % in "
              f"{sum(within)}/{len(compared)} bins")
        tested = [b for b in bins if b["ks_range_p"] not in ("nan", "")]
        rejected = sum(float(b["ks_range_p"]) < 0.05 for b in tested)
        check(5 * rejected <= len(tested), f"holdout {name}: KS rejects in {rejected}/{len(tested)} bins")
        # The real sensor's readings repeat per beam: fewer independent values than returns.
        clustered = [b for b in compared if float(b["ks_range_n_eff"]) < 0.5 * int(b["returns_real"])]
        check(len(clustered) >= len(compared) // 2, f"holdout {name}: effective n not below the returns")


check_holdout(1)
check_holdout(7)

# The metals' BRDF: binary intensities cannot determine a shape; the described one is kept (not
# Cook-Torrance's bounds, roughness 1 and f0 1), the file says so.
text = open(os.path.join(out, "calibration.yaml")).read() if r.returncode == 0 else ""
for name in ("metal", "metal2"):
    block = text.split("  - name: %s\n" % name)[1].split("  - name: ")[0] if ("  - name: %s\n" % name) in text else ""
    brdf = block.split("    brdf:\n")[1].split("    brdf_configured:")[0] if "    brdf:\n" in block else ""
    check("type: cook-torrance" in brdf and "fit: scale-only" in brdf, f"{name}: brdf block {brdf!r}")
    check("roughness: 0.5\n" in brdf and "f0: -1\n" in brdf, f"{name}: not the described shape: {brdf!r}")
    check("reach_min_m: " in block and "range_resolution_m: 0.001" in block, f"{name}: no reach or resolution")

# The calibration it wrote drives a scan: `calibration: FILE#wall`.
cal = os.path.join(out, "calibration.yaml")
scene = os.path.join(WORK, "board.yaml")
write(scene, f"""sensor:
  preset: rplidar-a1
materials:
  wall: {{calibration: "{cal}#wall"}}
objects:
  - plane: {{size: [1, 1.25]}}
    position: [-0.3845, 0, 0]
    rotation: [0, 90, 0]
    material: wall
""")
r = lidarsim("scan", scene, "-o", os.path.join(WORK, "board.csv"), "--stats")
check(r.returncode == 0, f"scan with the calibration failed: {r.stderr}")
if r.returncode == 0:
    pts = list(csv.DictReader(open(os.path.join(WORK, "board.csv"))))
    check(len(pts) > 50, f"only {len(pts)} points on the calibrated board")
    check(all(p["intensity"] == "47" for p in pts), "calibrated RPLIDAR intensities are not all 47")
# A bad reference is a clear error.
with open(scene) as f:
    text = f.read()
write(scene, text.replace("#wall", "#nope"))
r = lidarsim("scan", scene, "-o", os.path.join(WORK, "bad.csv"))
check(r.returncode != 0 and "nope" in r.stderr and "board.yaml:4" in r.stderr, f"bad reference: {r.stderr}")
check(not os.path.exists(os.path.join(WORK, "bad.csv")), "bad reference left an output")

# The measured reach: metal2 was measured at 0.12 m, inside the rplidar-a1 preset's 0.15 m minimum.
# A board of it there, with `calibration: FILE#metal2`, returns points near normal incidence; the
# same board of a material without a calibration, or with a calibration that has no reach (a file
# from before), returns none nearer than 0.15 m.
def scan_metal2(cal_path, material):
    path = write(os.path.join(WORK, "metal2.yaml"), f"""sensor:
  preset: rplidar-a1
materials:
  m2: {material.replace("CAL", cal_path)}
objects:
  - plane: {{size: [1, 0.8]}}
    position: [-0.1211, 0, 0]
    rotation: [0, 90, 0]
    material: m2
""")
    pcsv = os.path.join(WORK, "metal2.csv")
    res = lidarsim("scan", path, "-o", pcsv, "--quiet")
    check(res.returncode == 0, f"metal2 scan failed: {res.stderr}")
    return list(csv.DictReader(open(pcsv))) if res.returncode == 0 else []


pts = scan_metal2(cal, '{calibration: "CAL#metal2"}')
near = [p for p in pts if float(p["incidence"]) < 5.0]
print(f"metal2 board at 0.1211 m, calibrated: {len(pts)} points, {len(near)} within 5 deg of normal, "
      f"nearest {min((float(p['range']) for p in pts), default=float('nan')):.4f} m")
check(len(near) >= 10 and all(float(p["range"]) < 0.15 for p in near), f"metal2: {len(near)} points near normal")
check(all(float(p["range"]) >= 0.1145 for p in pts), "metal2: a point nearer than the measured reach")
old = os.path.join(WORK, "no_reach.yaml")
with open(cal) as f:
    write(old, "".join(line for line in f if not line.lstrip().startswith("reach_")))
pts = scan_metal2(old, '{calibration: "CAL#metal2"}')
check(pts and all(float(p["range"]) >= 0.15 for p in pts), "metal2 without reach: points nearer than 0.15 m")
pts = scan_metal2(old, "{brdf: cook-torrance, reflectance: 0.9}")
check(all(float(p["range"]) >= 0.15 for p in pts), "a plain material: points nearer than 0.15 m")

finish("test_validate_real")
