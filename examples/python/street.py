"""Scan the street example from Python, count the points per label and write a PCD.

    PYTHONPATH=python LIDARSIM_LIBRARY=build/liblidarsim.so /usr/bin/python3 examples/python/street.py [OUT.pcd]
"""
import os
import sys

import numpy as np

import lidarsim

here = os.path.dirname(os.path.abspath(__file__))
out = sys.argv[1] if len(sys.argv) > 1 else "street.pcd"

scene, sensor = lidarsim.load(os.path.join(here, "..", "street", "street.yaml"))
pts = scene.scan(sensor, seed=7)                   # a numpy structured array: pts["x"], pts["label"], ...
print("%s: %d points, fields %s" % (sensor.name, len(pts), ", ".join(pts.dtype.names[:6]) + ", ..."))
labels, counts = np.unique(pts["label"], return_counts=True)
for label, count in zip(labels, counts):
    print("label %3d: %6d points" % (label, count))
lidarsim.write(pts, out)                           # through lsim_points_write: .pcd .ply .bin .csv
print("wrote", out)
