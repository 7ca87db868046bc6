#!/usr/bin/python3
"""`lidarsim presets NAME` says what the preset really uses (issue 24).

usage: test_cli_presets.py LIDARSIM_BINARY WORK_DIR

- Every preset in the list prints its kind, beams, range limits, the receiver (pulsed with its
  pulse width and return mode, or continuous-wave with both frequencies), the beam mode, the
  detection threshold, the noise model, and three `source:` lines (geometry, range, optics), none
  of them "not recorded".
- The figures are the preset's: the beam count equals the rows of `presets NAME --beams`; the
  threshold is detection_reflectance / range_max^2 as printed; hdl64e names its real table
  (64e_utexas) and os1-128 its metadata file; urg-04lx is continuous-wave at 46.55 and 53.2 MHz
  and has no pulse width; the SNR noise model gives the preset's strong-echo sigma.
- A real unit's file prints that its geometry comes from that file.
Standard library only. Exits 1 with one line per failed check.
"""
import os

import repo_data
from cli_check import Lidarsim, binary_and_work, check, finish

BINARY, WORK = binary_and_work()
run = Lidarsim(BINARY, WORK)


def fields(text):
    """`key: value` lines into a dict; repeated keys (source) into a list."""
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition(": ")
        if not sep:
            continue
        if key == "source":
            out.setdefault("source", []).append(value)
        else:
            out[key] = value
    return out


def names():
    code, out, err = run("presets")
    check(code == 0, "presets: exit %d: %s" % (code, err.strip()))
    return [line.split()[0] for line in out.splitlines()[1:] if line.strip()]


def test_every_preset():
    listed = names()
    for want in ("hdl64e", "os0-32", "os1-32", "os1-64", "os1-128", "os2-128", "urg-04lx"):
        check(want in listed, "presets: %s is not listed" % want)
    for name in listed:
        code, out, err = run("presets", name)
        if not check(code == 0, "presets %s: exit %d: %s" % (name, code, err.strip())):
            continue
        f = fields(out)
        for key in ("kind", "beams", "range_m", "receiver", "beam_mode", "detection_threshold", "noise_model"):
            check(key in f, "presets %s: no '%s:' line" % (name, key))
        src = f.get("source", [])
        check([s.split(":")[0] for s in src] == ["geometry", "range", "optics"],
              "presets %s: source lines %r, expected geometry, range, optics" % (name, src))
        check(all("not recorded" not in s and len(s) > 20 for s in src), "presets %s: a source is missing" % name)
        if f.get("receiver", "").startswith("pulsed"):
            check("pulse_width_ns" in f and "returns" in f, "presets %s: pulsed without a pulse width" % name)
        rmin, _, rmax = f.get("range_m", "0 .. 0").partition(" .. ")
        refl = float(f.get("detection_reflectance", "nan"))
        threshold = float(f.get("detection_threshold", "nan").split()[0])
        check(abs(threshold - refl / float(rmax) ** 2) <= 1e-5 * threshold,
              "presets %s: threshold %g, expected %g / %s^2" % (name, threshold, refl, rmax))
        code, rows, _ = run("presets", name, "--beams")
        count = len([l for l in rows.splitlines()[1:] if l.strip()])
        check(str(count) == f.get("beams"), "presets %s: beams %s, but --beams has %d rows" %
              (name, f.get("beams"), count))
    print("presets: %d presets, each with receiver, beam mode, noise model and three source lines" % len(listed))


def test_figures():
    f = fields(run("presets", "hdl64e")[1])
    check("64e_utexas" in f.get("source", [""])[0], "hdl64e: geometry source %r" % f.get("source"))
    check(f.get("noise_model", "").startswith("snr (sigma 0.01 m for a strong echo"),
          "hdl64e: noise model %r" % f.get("noise_model"))
    f = fields(run("presets", "os1-128")[1])
    check("OS-1-128_v2.3.0_1024x10.json" in f.get("source", [""])[0], "os1-128: geometry source %r" % f.get("source"))
    check(f.get("channels") == "128" and f.get("columns") == "1024", "os1-128: %s x %s" %
          (f.get("channels"), f.get("columns")))
    check(f.get("range_m") == "0.3 .. 120", "os1-128: range %r" % f.get("range_m"))
    f = fields(run("presets", "os0-32")[1])
    check(f.get("range_m") == "0.24 .. 50", "os0-32: range %r" % f.get("range_m"))
    f = fields(run("presets", "urg-04lx")[1])
    check(f.get("receiver", "").startswith("continuous-wave (phase shift) at 46.55 and 53.2 MHz"),
          "urg-04lx: receiver %r" % f.get("receiver"))
    check("pulse_width_ns" not in f, "urg-04lx: a CW receiver has no pulse width")
    check(f.get("noise_model", "").startswith("continuous-wave samples"), "urg-04lx: noise %r" % f.get("noise_model"))
    check("46.55" in f.get("source", ["", "", ""])[2], "urg-04lx: optics source %r" % f.get("source"))
    unit = os.path.join(repo_data.CALIBRATIONS, "ouster", "OS-2-128-U1_v2.3.0_1024x10.json")
    code, out, err = run("presets", unit)
    f = fields(out)
    check(code == 0 and f.get("source", [""])[0].startswith("geometry: the unit's own calibration file"),
          "presets FILE: exit %d, sources %r %s" % (code, f.get("source"), err.strip()))
    check(f.get("range_m") == "0.8 .. 240", "OS-2 unit: range %r (the os2-128 preset's)" % f.get("range_m"))
    print("presets: hdl64e, os1-128, os0-32, urg-04lx and an OS-2 unit's file print their own figures and sources")


def main():
    repo_data.need(repo_data.CALIBRATIONS)
    test_every_preset()
    test_figures()
    finish("test_cli_presets")


if __name__ == "__main__":
    main()
