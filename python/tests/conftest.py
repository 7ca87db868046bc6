"""Shared fixtures: the source tree, the CLI binary (for equality tests) and a scan helper."""
import os
import subprocess

import numpy as np
import pytest

import lidarsim

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
STREET = os.path.join(ROOT, "examples", "street", "street.yaml")


@pytest.fixture(scope="session")
def cli():
    """The lidarsim binary beside the library under test (or LIDARSIM_BINARY)."""
    return lidarsim.tools.find_binary()


@pytest.fixture(scope="session")
def street():
    """The street example's scene and sensor (loaded once)."""
    return lidarsim.load(STREET)


def read_csv(path):
    """A CSV the CLI wrote: (header names, dict name -> float64 column)."""
    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.float64, ndmin=2)
    return header, {n: data[:, i] for i, n in enumerate(header)}


def run_cli(cli, *args):
    p = subprocess.run([cli] + [str(a) for a in args], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p
