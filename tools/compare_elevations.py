#!/usr/bin/python3
"""Ring-by-ring elevation and azimuth-offset differences between two sensors (docs/fidelity.md).

usage: tools/compare_elevations.py LIDARSIM A B
  A, B: preset names or real units' calibration files (Ouster metadata JSON, Velodyne JSON, ROS
  YAML or VeloView XML, e.g. KITTI's velodynecalib_S2_factory_flatness_intensity.xml from
  cvlibs.net/datasets/kitti/raw_data.php), as `lidarsim presets A --beams` reads them.

Both must have the same channel count; ring k of A is compared with ring k of B (rings ascend
by elevation). Prints each one's span and the max / mean |difference| over the rings.
"""
import subprocess
import sys


def rings(binary, what):
    out = subprocess.run([binary, "presets", what, "--beams"], check=True, stdout=subprocess.PIPE).stdout.decode()
    first = {}
    for line in out.splitlines()[1:]:
        v = line.split(",")
        ring = int(v[0])
        if ring in first:
            break
        first[ring] = (float(v[1]), float(v[2]))  # column 0: azimuth, elevation
    return [first[k] for k in sorted(first)]


def main():
    binary, a, b = sys.argv[1:4]
    ra, rb = rings(binary, a), rings(binary, b)
    if len(ra) != len(rb):
        sys.exit("%s has %d rings, %s %d" % (a, len(ra), b, len(rb)))
    for name, r in ((a, ra), (b, rb)):
        el = [e for _, e in r]
        print("%s: %d rings, %+.3f..%+.3f deg (%.3f)" % (name, len(r), min(el), max(el), max(el) - min(el)))
    de = [abs(x[1] - y[1]) for x, y in zip(ra, rb)]
    da = [abs((x[0] - y[0] + 180.0) % 360.0 - 180.0) for x, y in zip(ra, rb)]
    print("elevation |A - B|: max %.3f mean %.3f deg; azimuth of column 0 |A - B|: max %.3f mean %.3f deg" %
          (max(de), sum(de) / len(de), max(da), sum(da) / len(da)))


if __name__ == "__main__":
    main()
