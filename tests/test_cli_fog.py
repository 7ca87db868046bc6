#!/usr/bin/python3
"""Fog on the demo street through the CLI (issue 10, fog).

usage: test_cli_fog.py LIDARSIM_BINARY WORK_DIR

examples/street/street.yaml (VLP-16: 6 ns pulse, 0.5-100 m, 10 % detected at 100 m; the default
overlap) with `atmosphere: {visibility_m: V}` and nothing else, scanned noise-free in its default
`strongest` mode, every beam kept:
- at 1,000 m visibility fewer than 1 % of the beams return fog (label 1, "outlier": no surface);
- the share of fog beams grows as the visibility falls (1000, 200, 50, 20 m; printed for
  docs/fog.md);
- at 20 m visibility the fog echoes lie where the published model puts the fog's peak (Hahner et
  al., ICCV 2021: pi beta xi(r) exp(-2 alpha r) / r^2 convolved with the pulse, alpha = ln(20) / V,
  beta = 0.046 / V, xi the linear overlap ramp of Rasshofer's eqs. 11-12 with Hahner's geometry),
  integrated here with numpy for the sensor's Gaussian pulse: the median within 0.02 m, 90 % within
  0.05 m (beams whose surface is nearer than the fog's tail see a truncated fog);
- every beam into the sky (no echo at 1,000 m) returns fog at 200 and 20 m visibility; the lowest
  ring, which meets the road a few metres ahead (far brighter than the fog), returns none;
- `extinction_per_m: ln(20)/50` alone is the fog of `visibility_m: 50`; `backscatter_per_m_sr: 0`
  keeps the extinction (fewer far echoes) and no fog echo.
"""
import math
import os
import re

import numpy as np
from cli_check import Lidarsim, binary_and_work, check, finish, read_pcd, source_dir, write

BINARY, WORK = binary_and_work()
SOURCE = source_dir()
lidarsim = Lidarsim(BINARY, seconds=300)


def scan_street(visibility, atmosphere=None):
    text = open(os.path.join(SOURCE, "examples", "street", "street.yaml")).read()
    atmosphere = atmosphere or "visibility_m: %g" % visibility
    foggy = text.replace("\nmaterials:\n", "\natmosphere: {%s}\nmaterials:\n" % atmosphere, 1)
    check(foggy != text, "test bug: no atmosphere inserted")
    # the fog model at the threshold this test was written for (10 % at 100 m; the vlp16 preset's own
    # since issue 24 is a 10 % target at 35 m, under which this fog stays below the threshold)
    text, foggy = foggy, foggy.replace("  preset: vlp16\n", "  preset: vlp16\n  detection_reflectance: 0.1\n", 1)
    check(foggy != text, "test bug: no detection_reflectance inserted")
    name = "street_" + re.sub(r"[^A-Za-z0-9.]+", "_", atmosphere)
    scene = write(os.path.join(WORK, name + ".yaml"), foggy)
    out = os.path.join(WORK, name + ".pcd")
    p = lidarsim("scan", scene, "-o", out, "--noise", "off", "--keep-misses", "--quiet",
                 "--fields", "range,label,elevation,num_returns")
    if not check(p.returncode == 0, "scan at %g m visibility: %s" % (visibility, p.stderr.strip())):
        return None
    return read_pcd(out)


def predicted_fog_peak(visibility, pulse_ns=6.0, end=100.0):
    """Range and height of the fog's peak: the model integrated with numpy (no lidarsim code)."""
    t1, t2 = math.tan(math.radians(1.0)), math.tan(math.radians(1.75))
    r1, r2 = (0.1 - 0.01 - 0.01) / (t1 + t2), (0.1 - 0.01 + 0.01) / (t2 - t1)  # Rasshofer eqs. 11-12
    alpha, beta = math.log(20.0) / visibility, 0.046 / visibility
    sigma = 299792458.0 * pulse_ns * 1e-9 / 2.0 / (2.0 * math.sqrt(2.0 * math.log(2.0)))
    r = np.linspace(r1, end, 50001)
    dr = r[1] - r[0]
    h = math.pi * beta * np.clip((r - r1) / (r2 - r1), 0.0, 1.0) * np.exp(-2.0 * alpha * r) / r ** 2 * dr

    def wave(x):
        return float(np.sum(h * np.exp(-0.5 * ((x - r) / sigma) ** 2)))

    best = max(np.arange(1.0, 8.0, 0.01), key=wave)  # a grid, then a finer one around its best
    best = max(np.arange(best - 0.01, best + 0.01, 0.0005), key=wave)
    return best, wave(best)


def main():
    threshold = 0.1 / 100.0 ** 2
    shares = {}
    clouds = {}
    for v in (1000, 200, 50, 20):
        p = scan_street(v)
        if p is None:
            return
        clouds[v] = p
        fog = p["label"] == 1
        shares[v] = 100.0 * np.count_nonzero(fog) / len(p)
        peak_r, peak = predicted_fog_peak(v)
        med = "%.3f m" % float(np.median(p["range"][fog])) if fog.any() else "-"
        print("street at %4d m visibility: %5d beams, %5d fog echoes (%.2f %%), median fog range %s; "
              "model: fog peak %.3f m, %.2f x the threshold" % (v, len(p), np.count_nonzero(fog), shares[v], med,
                                                               peak_r, peak / threshold))
    check(shares[1000] < 1.0, "1000 m visibility: %.2f %% of the beams return fog (must be < 1 %%)" % shares[1000])
    check(shares[1000] <= shares[200] <= shares[50] <= shares[20],
          "fog share does not grow as the visibility falls: %s" % shares)
    p = clouds[20]
    fog = p["label"] == 1
    want, _ = predicted_fog_peak(20)
    err = np.abs(p["range"][fog] - want)
    check(fog.any() and abs(float(np.median(p["range"][fog])) - want) <= 0.02,
          "20 m visibility: median fog range %.3f m, model %.3f m" % (float(np.median(p["range"][fog])), want))
    check(fog.any() and np.mean(err <= 0.05) >= 0.9,
          "20 m visibility: only %.1f %% of the fog echoes within 0.05 m of the model's %.3f m"
          % (100.0 * np.mean(err <= 0.05), want))
    # Beams that meet nothing (no echo at all at 1,000 m visibility) return fog at 200 and 20 m.
    sky = clouds[1000]["range"] == 0
    for v in (200, 20):
        check(sky.any() and np.all(clouds[v]["label"][sky] == 1),
              "%d m visibility: %d of %d beams into the sky return no fog" % (
                  v, np.count_nonzero(clouds[v]["label"][sky] != 1), np.count_nonzero(sky)))
    # The lowest ring meets the road a few metres ahead: brighter than the fog, it wins.
    low = p["elevation"] < -14.0
    check(low.any() and np.all(p["label"][low] != 1), "20 m visibility: the lowest ring returns fog")
    # The other keys: extinction_per_m alone is the same fog (beta from V = ln(20) / alpha);
    # backscatter_per_m_sr: 0 keeps the extinction and drops the fog's echo.
    same = scan_street(50, "extinction_per_m: %.17g" % (math.log(20.0) / 50.0))
    none = scan_street(20, "visibility_m: 20, backscatter_per_m_sr: 0")
    if same is not None and none is not None:
        a, b = np.count_nonzero(same["label"] == 1), np.count_nonzero(clouds[50]["label"] == 1)
        check(a == b, "extinction_per_m = ln(20)/50: %d fog beams, visibility_m 50: %d" % (a, b))
        check(np.count_nonzero(none["label"] == 1) == 0, "backscatter_per_m_sr 0: fog echoes remain")
        check(np.count_nonzero(none["range"] > 0) < np.count_nonzero(clouds[1000]["range"] > 0),
              "20 m visibility without backscatter: the extinction removes no far echoes")
        print("extinction_per_m = ln(20)/50: %d fog beams (visibility_m 50: %d); visibility 20 m without backscatter: "
              "0 fog, %d echoes (1000 m: %d)" % (a, b, np.count_nonzero(none["range"] > 0),
                                                 np.count_nonzero(clouds[1000]["range"] > 0)))
    print("20 m visibility: %.1f %% of the fog echoes within 0.05 m of the model's peak %.3f m; all %d sky beams "
          "fog; lowest ring %.1f %% road" % (100.0 * np.mean(err <= 0.05), want, np.count_nonzero(sky),
                                            100.0 * np.mean(p["label"][low] != 1)))


main()
finish("test_cli_fog")
