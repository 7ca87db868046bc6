#!/usr/bin/python3
"""Independent reader for lidarsim's point-cloud files (numpy only), run by tests/test_writers.c.

usage: check_formats.py DIR N [--orient-png FILE]

Reads DIR/cloud.pcd (PCD binary), cloud_ascii.pcd (PCD ascii), cloud.ply, cloud.bin + cloud.label +
cloud.labels.yaml (KITTI) and cloud.csv, regenerates the N expected points with the same formulas
as tests/test_writers.c (gen_f32 / gen_uint) and requires every value to match bit for bit
(text formats: NaN must stay NaN, every other value must parse back to the identical float32).
With --orient-png, also decodes that PNG (zlib + numpy) and checks the bird's-eye figure's
orientation and its pixel-exact cells.
Exits 1 with one line per mismatch.
"""
import io
import os
import sys

import numpy as np
from cli_check import fail, failures
from png_read import plot_box, read_png

# The schema, in lsim_field order: (name, PCD TYPE, PCD SIZE, PLY type, numpy dtype).
FIELDS = [
    ("x", "F"), ("y", "F"), ("z", "F"), ("range", "F"), ("intensity", "F"), ("reflectivity", "F"),
    ("ring", "U2"), ("azimuth", "F"), ("elevation", "F"), ("time", "F"), ("label", "U4"),
    ("instance", "U4"), ("incidence", "F"), ("nx", "F"), ("ny", "F"), ("nz", "F"),
    ("x_clean", "F"), ("y_clean", "F"), ("z_clean", "F"),
    ("return_index", "U2"), ("num_returns", "U2"), ("epw", "F"), ("power", "F"),
]
NAMES = [name for name, _ in FIELDS]
NUMPY_TYPE = {"F": "<f4", "U2": "<u2", "U4": "<u4"}
PLY_TYPE = {"F": "float", "U2": "uint16", "U4": "int"}  # names Open3D's tensor reader keeps (src/formats/ply.c)
PLY_NUMPY = {"F": "<f4", "U2": "<u2", "U4": "<i4"}

LABEL_IDS = [0, 10, 40, 252]
EXPECTED_YAML = [
    "labels:",
    "  0: unlabeled",
    "  10: car",
    "  40: road",
    "  70: vegetation",
    "  252: moving-car",
    '  300: "odd: \\"name\\""',
    '  301: "yes"',
]

# ---------------------------------------------------------------- expected values

def gen_f32(name, i):
    d = float(i)
    nan, inf = float("nan"), float("inf")
    if name == "x":
        return nan if i % 97 == 0 else (d - 500.0) * 0.37
    if name == "y":
        return d * 1e-7 - 3e-5
    if name == "z":
        return nan if i % 97 == 0 else d * 1e30 / 7.0
    if name == "range":
        return inf if i == 3 else d / 3.0
    if name == "intensity":
        return float(i % 50) * 0.5 + d * 1e-7
    if name == "reflectivity":
        return nan if i % 89 == 1 else (d - 100.0) / 700.0
    if name == "azimuth":
        return -inf if i == 4 else d * 0.36 - 180.0
    if name == "elevation":
        return -d * 1e-3
    if name == "time":
        return d * 1e-4
    if name == "incidence":
        return d * 0.09
    if name == "nx":
        return (d - 500.0) / 500.0
    if name == "ny":
        return 1.0 / (d + 1.0)
    if name == "nz":
        return -1.0 / (d + 3.0)
    if name == "x_clean":
        return d * 1e-40
    if name == "y_clean":
        return d * -12345.678
    if name == "z_clean":
        return d * 3.0e35
    if name == "epw":
        return d * 0.001 + 0.25
    if name == "power":
        return d * 1e-9 / 3.0
    raise KeyError(name)


def gen_uint(name, i):
    if name == "ring":
        return 65535 if i in (0, 999) else (i * 2654435761) % 65536
    if name == "label":
        return 65535 if (i % 5 == 0 or i == 998) else LABEL_IDS[i % 4]
    if name == "instance":
        return 65535 if i == 998 else (i * 7919) % 65536
    if name == "return_index":
        return i % 3
    if name == "num_returns":
        return 65535 if i == 997 else i % 3 + 1
    raise KeyError(name)


def expected_columns(n):
    cols = {}
    for name, kind in FIELDS:
        if kind == "F":
            # np.float32(python float) rounds the double to nearest, as C's (float) cast does.
            cols[name] = np.array([np.float32(gen_f32(name, i)) for i in range(n)], dtype=np.float32)
        else:
            cols[name] = np.array([gen_uint(name, i) for i in range(n)], dtype=NUMPY_TYPE[kind][1:])
    return cols


# ---------------------------------------------------------------- comparison

def compare(where, name, got, want, text=False):
    """Bit-exact comparison; for text formats NaN only needs to stay NaN."""
    got = np.asarray(got)
    if got.shape != want.shape:
        fail(f"{where}: field '{name}': {got.shape[0] if got.ndim else '?'} values, expected {want.shape[0]}")
        return
    if want.dtype == np.float32:
        got = got.astype(np.float32)
        g, w = got.view(np.uint32), want.view(np.uint32)
        if text:
            same = (g == w) | (np.isnan(got) & np.isnan(want))
        else:
            same = g == w
        bad = np.flatnonzero(~same)
        if bad.size:
            i = bad[0]
            fail(f"{where}: field '{name}' differs in {bad.size} rows; first row {i}: "
                 f"got {got[i]!r} (0x{g[i]:08x}), expected {want[i]!r} (0x{w[i]:08x})")
    else:
        if got.dtype.kind == "f":  # text parsed as float64: integers must be exact
            if not np.all(np.isfinite(got)) or not np.all(got == np.round(got)):
                fail(f"{where}: field '{name}' has non-integer values")
                return
            got = got.astype(np.uint64)
        bad = np.flatnonzero(got.astype(np.uint64) != want.astype(np.uint64))
        if bad.size:
            i = bad[0]
            fail(f"{where}: field '{name}' differs in {bad.size} rows; first row {i}: got {got[i]}, expected {want[i]}")


def read_file(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        fail(f"cannot read {path}: {e}")
        return None


def split_header(data, last_line_prefix, path):
    """Split at the end of the line starting with last_line_prefix; returns (header lines, body bytes)."""
    pos = 0
    lines = []
    while True:
        end = data.find(b"\n", pos)
        if end < 0:
            fail(f"{path}: header has no '{last_line_prefix}' line")
            return None, None
        line = data[pos:end].decode("ascii", "replace")
        lines.append(line)
        pos = end + 1
        if line.startswith(last_line_prefix):
            return lines, data[pos:]


def parse_text_table(body, delimiter, n, where):
    text = body.decode("ascii")
    if n == 0:
        if text.strip():
            fail(f"{where}: expected no data rows, found some")
        return np.zeros((0, len(FIELDS)))
    table = np.loadtxt(io.StringIO(text), dtype=np.float64, delimiter=delimiter, ndmin=2)
    if table.shape != (n, len(FIELDS)):
        fail(f"{where}: table is {table.shape}, expected ({n}, {len(FIELDS)})")
        return None
    return table


# ---------------------------------------------------------------- formats

def check_pcd(path, n, want, binary):
    data = read_file(path)
    if data is None:
        return
    lines, body = split_header(data, "DATA", path)
    if lines is None:
        return
    header = {}
    for line in lines:
        if line.startswith("#") or not line.strip():
            continue
        key, _, value = line.partition(" ")
        header[key] = value.split()
    expect = {
        "VERSION": ["0.7"],
        "FIELDS": NAMES,
        "SIZE": ["2" if k == "U2" else "4" for _, k in FIELDS],
        "TYPE": ["F" if k == "F" else "U" for _, k in FIELDS],
        "COUNT": ["1"] * len(FIELDS),
        "WIDTH": [str(n)],
        "HEIGHT": ["1"],
        "VIEWPOINT": "0 0 0 1 0 0 0".split(),
        "POINTS": [str(n)],
        "DATA": ["binary" if binary else "ascii"],
    }
    header_ok = True
    for key, value in expect.items():
        if header.get(key) != value:
            fail(f"{path}: header {key} is {header.get(key)}, expected {value}")
            header_ok = False
    if not header_ok:
        return
    if binary:
        # The structured dtype comes from the file's own FIELDS / TYPE / SIZE lines.
        dtype = np.dtype([(name, "<" + {"F": "f", "U": "u", "I": "i"}[t] + s)
                          for name, t, s in zip(header["FIELDS"], header["TYPE"], header["SIZE"])])
        if len(body) != n * dtype.itemsize:
            fail(f"{path}: {len(body)} data bytes, expected {n} x {dtype.itemsize}")
            return
        rows = np.frombuffer(body, dtype=dtype)
        for name in NAMES:
            compare(path, name, rows[name], want[name])
    else:
        table = parse_text_table(body, None, n, path)
        if table is not None:
            for k, name in enumerate(NAMES):
                compare(path, name, table[:, k], want[name], text=True)


def check_ply(path, n, want):
    data = read_file(path)
    if data is None:
        return
    lines, body = split_header(data, "end_header", path)
    if lines is None:
        return
    expect = ["ply", "format binary_little_endian 1.0", "comment generated by lidarsim", f"element vertex {n}"]
    expect += [f"property {PLY_TYPE[kind]} {name}" for name, kind in FIELDS]
    expect += ["end_header"]
    if lines != expect:
        fail(f"{path}: header {lines} differs from expected {expect}")
        return
    dtype = np.dtype([(name, PLY_NUMPY[kind]) for name, kind in FIELDS])
    if len(body) != n * dtype.itemsize:
        fail(f"{path}: {len(body)} data bytes, expected {n} x {dtype.itemsize}")
        return
    rows = np.frombuffer(body, dtype=dtype)
    for name in NAMES:
        compare(path, name, rows[name], want[name])


def check_kitti(stem, n, want):
    bin_path, label_path, yaml_path = stem + ".bin", stem + ".label", stem + ".labels.yaml"
    for p in (bin_path, label_path, yaml_path):
        if not os.path.isfile(p):
            fail(f"{p} is missing")
            return
    if os.path.getsize(bin_path) != 16 * n:
        fail(f"{bin_path}: {os.path.getsize(bin_path)} bytes, expected {16 * n}")
        return
    xyzr = np.fromfile(bin_path, dtype="<f4").reshape(-1, 4)
    for k, name in enumerate(("x", "y", "z")):
        compare(bin_path, name, xyzr[:, k], want[name])
    refl = want["reflectivity"]
    clamped = np.where(np.isnan(refl) | (refl <= 0), np.float32(0), np.minimum(refl, np.float32(1)))
    compare(bin_path, "reflectivity clamped to [0,1]", xyzr[:, 3], clamped.astype(np.float32))

    labels = np.fromfile(label_path, dtype="<u4")
    packed = (want["label"].astype(np.uint64) & 0xFFFF) | (want["instance"].astype(np.uint64) << 16)
    compare(label_path, "label | instance << 16", labels, (packed & 0xFFFFFFFF).astype(np.uint32))
    if n and labels.max() != 0xFFFFFFFF:
        fail(f"{label_path}: the row with label 65535 and instance 65535 should pack to 0xffffffff")

    with open(yaml_path, encoding="utf-8") as f:
        lines = [line.rstrip("\n") for line in f if not line.startswith("#")]
    if lines != EXPECTED_YAML:
        fail(f"{yaml_path}: content {lines} differs from expected {EXPECTED_YAML}")


def check_csv(path, n, want):
    data = read_file(path)
    if data is None:
        return
    first, _, body = data.partition(b"\n")
    if first.decode("ascii", "replace") != ",".join(NAMES):
        fail(f"{path}: header '{first.decode('ascii', 'replace')}', expected '{','.join(NAMES)}'")
        return
    table = parse_text_table(body, ",", n, path)
    if table is not None:
        for k, name in enumerate(NAMES):
            compare(path, name, table[:, k], want[name], text=True)


# ---------------------------------------------------------------- PNG (bird's-eye orientation)

def decode_png_rgb8(path):
    """The figure, an 8-bit RGB PNG (png_read.py); None, a failure, when it is anything else."""
    try:
        return read_png(path, colour_types=(2,))
    except (OSError, ValueError) as e:
        fail(str(e))
        return None


def check_orientation_png(path):
    """64 x 64 cells over +-32 m, drawn as the plot of a figure (axes, colour bar, title), each cell
    a square of k x k pixels (k = 7: the plot scaled up to at least 400 pixels)."""
    img = decode_png_rgb8(path)
    if img is None:
        return
    box = plot_box(img)
    if box is None:
        fail(f"{path}: no plot inside a black frame")
        return
    x0, y0, x1, y1 = box
    if (x1 - x0, y1 - y0) != (448, 448):
        fail(f"{path}: plot [{x0}, {x1}) x [{y0}, {y1}), expected 448 x 448 pixels (64 cells of 7)")
        return
    k = 7
    checks = [
        ((22, 32), (68, 1, 84), "dim point 10 m ahead should be 10 cells above the centre, darkest viridis"),
        ((32, 12), (253, 231, 37), "bright point 20 m left should be 20 cells left of the centre, brightest viridis"),
        ((32, 32), (255, 255, 255), "sensor cross at the centre"),
        ((32, 35), (255, 255, 255), "sensor cross arm"),
        ((0, 0), (0, 0, 0), "background"),
    ]
    for (row, col), rgb, what in checks:
        block = img[y0 + row * k:y0 + (row + 1) * k, x0 + col * k:x0 + (col + 1) * k].reshape(-1, 3)
        if any(tuple(int(v) for v in p) != rgb for p in block):
            fail(f"{path}: cell (row {row}, col {col}) is not all {rgb}: {what}")
    plot = img[y0:y1, x0:x1]
    coloured = np.sum(np.any(plot != 0, axis=2) & np.any(plot != 255, axis=2))
    if coloured != 2 * k * k:
        fail(f"{path}: {coloured} coloured pixels in the plot, expected exactly 2 cells of {k * k} (one per point)")


# ---------------------------------------------------------------- main

def main(argv):
    if len(argv) not in (3, 5) or (len(argv) == 5 and argv[3] != "--orient-png"):
        print(__doc__, file=sys.stderr)
        return 2
    directory, n = argv[1], int(argv[2])
    want = expected_columns(n)
    check_pcd(os.path.join(directory, "cloud.pcd"), n, want, binary=True)
    check_pcd(os.path.join(directory, "cloud_ascii.pcd"), n, want, binary=False)
    check_ply(os.path.join(directory, "cloud.ply"), n, want)
    check_kitti(os.path.join(directory, "cloud"), n, want)
    check_csv(os.path.join(directory, "cloud.csv"), n, want)
    if len(argv) == 5:
        check_orientation_png(argv[4])
    if failures:
        print(f"check_formats: {len(failures)} mismatches in {directory}", file=sys.stderr)
        return 1
    print(f"check_formats: {directory}: all formats match ({n} points)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
