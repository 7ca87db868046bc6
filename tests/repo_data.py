"""The real measured data the repository ships in data/ (data/README.md: sources and licences).

LSIM_DATA_DIR (tests/CMakeLists.txt) names it; by default the data/ folder beside tests/. The
data is part of the repository, so a test that needs it fails when it is absent (a clone missing
it is broken), never skips.
"""
import os
import sys

DATA = os.path.abspath(os.environ.get("LSIM_DATA_DIR")
                       or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data"))
RPLIDAR = os.path.join(DATA, "apollosim-rplidar")                # ApolloSim thesis scans, MIT
CALIBRATIONS = os.path.join(DATA, "sensor-calibrations")         # Ouster (BSD-3), Velodyne (MIT)


def need(path):
    """Return path, or exit 1 saying which file of the repository's data/ is missing."""
    if not os.path.exists(path):
        print("FAIL: %s is missing: it ships in the repository's data/ folder (restore it with git, "
              "or set LSIM_DATA_DIR to that folder)" % path, file=sys.stderr)
        sys.exit(1)
    return path
