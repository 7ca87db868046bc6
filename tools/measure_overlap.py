#!/usr/bin/python3
"""Measure a real Ouster unit's receiver overlap (near-field loss) from a LEGACY-profile pcap.

usage: tools/measure_overlap.py REC.pcap [--channels N] [--profile LEGACY|RNG19_RFL8_SIG16_NIR16_DUAL]
                                         [--bins N] [--far M]

Each LEGACY pixel carries the range, the unit's calibrated reflectivity and the raw signal
(photons). The unit computes reflectivity from signal and range with its own range response, so
for every pixel  q = signal * R^2 / reflectivity  is that response up to a constant: flat where
the echo falls as 1 / R^2, lower where the receiver sees only part of it. The script bins q over
log-spaced ranges (median per bin), divides by the median of the bins beyond --far metres (the
far field), prints the curve xi(R), and fits the quadratic form xi = min(1, (R / R_full)^2)
(least squares on log xi over the bins below --far): the R_full that receiver/overlap.h uses.

Packet layout (Ouster sensor manual, "Lidar data format", LEGACY): 16 columns per UDP packet (port
7502); a column is a 16-byte header (timestamp u64, measurement id u16, frame id u16, encoder u32),
then per channel 12 bytes (range u32 whose low 20 bits are millimetres, reflectivity u16, signal
u16, near-infrared u16, unused u16), then a 4-byte status word (0xffffffff when the column is
valid). The pcap is the classic format: a 24-byte file header, a 16-byte header per record, then
Ethernet (14 bytes, or 18 with a VLAN tag), IPv4 (IHL x 4 bytes) and UDP (8 bytes).
"""
import argparse
import struct
import sys

import numpy as np


def udp_payloads(path, port=7502):
    data = open(path, "rb").read()
    if len(data) < 24:
        raise SystemExit("%s: %d bytes, shorter than a pcap file header (24)" % (path, len(data)))
    magic = data[:4]
    if magic == b"\xd4\xc3\xb2\xa1":
        endian = "<"
    elif magic == b"\xa1\xb2\xc3\xd4":
        endian = ">"
    else:
        raise SystemExit("%s: not a classic pcap file (magic %s)" % (path, magic.hex()))
    off = 24
    while off + 16 <= len(data):
        _, _, incl, _ = struct.unpack_from(endian + "IIII", data, off)
        off += 16
        frame = data[off:off + incl]
        off += incl
        if len(frame) < 14:
            continue
        eth = 14
        ethertype = struct.unpack_from(">H", frame, 12)[0]
        if ethertype == 0x8100 and len(frame) >= 18:
            ethertype = struct.unpack_from(">H", frame, 16)[0]
            eth = 18
        if ethertype != 0x0800 or len(frame) < eth + 20:
            continue
        ihl = (frame[eth] & 0x0F) * 4
        if frame[eth + 9] != 17 or len(frame) < eth + ihl + 8:
            continue
        dport = struct.unpack_from(">H", frame, eth + ihl + 2)[0]
        if dport == port:
            yield frame[eth + ihl + 8:]


def legacy_pixels(path, channels):
    col_bytes = 16 + 12 * channels + 4
    rng, refl, sig = [], [], []
    for p in udp_payloads(path):
        if len(p) != 16 * col_bytes:
            continue
        for c in range(16):
            base = c * col_bytes
            status = struct.unpack_from("<I", p, base + 16 + 12 * channels)[0]
            if status != 0xFFFFFFFF:
                continue
            px = np.frombuffer(p, dtype="<u2", count=6 * channels, offset=base + 16).reshape(channels, 6)
            rng.append((px[:, 0].astype(np.uint32) | (px[:, 1].astype(np.uint32) << 16)) & 0xFFFFF)
            refl.append(px[:, 2])
            sig.append(px[:, 3])
    if not rng:
        raise SystemExit("%s: no LEGACY column of %d channels on UDP port 7502" % (path, channels))
    return np.concatenate(rng) * 1e-3, np.concatenate(refl).astype(float), np.concatenate(sig).astype(float)


def dual_pixels(path, channels, columns=16):
    """RNG19_RFL8_SIG16_NIR16_DUAL (FW 2.2+): a 32-byte packet header and footer, 12-byte column
    headers (timestamp u64, measurement id u16, status u16: bit 0 valid), 16 bytes a pixel: range
    (low 19 bits of a u32, mm) with reflectivity in its top byte, the second return's the same,
    signal u16, second signal u16, near-infrared u16, 2 bytes unused. The first return is used, and
    only reflectivities 1..100 (the 8-bit scale is linear in Lambertian reflectance up to 100)."""
    col_bytes = 12 + 16 * channels
    rng, refl, sig = [], [], []
    for p in udp_payloads(path):
        if len(p) != 64 + columns * col_bytes:
            continue
        for c in range(columns):
            base = 32 + c * col_bytes
            if not (struct.unpack_from("<H", p, base + 10)[0] & 1):
                continue
            px = np.frombuffer(p, dtype="<u4", count=4 * channels, offset=base + 12).reshape(channels, 4)
            rng.append(px[:, 0] & 0x7FFFF)
            refl.append(px[:, 0] >> 24)
            sig.append(px[:, 2] & 0xFFFF)
    if not rng:
        raise SystemExit("%s: no RNG19_RFL8_SIG16_NIR16_DUAL column of %d channels on UDP port 7502" % (path, channels))
    r, f, s = np.concatenate(rng) * 1e-3, np.concatenate(refl).astype(float), np.concatenate(sig).astype(float)
    f[f > 100] = 0  # retroreflectors: a log scale above 100
    return r, f, s


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pcap")
    ap.add_argument("--channels", type=int, default=32)
    ap.add_argument("--bins", type=int, default=24)
    ap.add_argument("--far", type=float, default=25.0, help="far field from here on, metres")
    ap.add_argument("--min-count", type=int, default=30)
    ap.add_argument("--profile", choices=["LEGACY", "RNG19_RFL8_SIG16_NIR16_DUAL"], default="LEGACY")
    a = ap.parse_args()
    read = legacy_pixels if a.profile == "LEGACY" else dual_pixels
    R, refl, sig = read(a.pcap, a.channels)
    ok = (R > 0.2) & (refl > 0) & (sig > 0)
    R, q = R[ok], sig[ok] * R[ok] ** 2 / refl[ok]
    print("%s: %d pixels with range, reflectivity and signal (of %d)" % (a.pcap, ok.sum(), ok.size))
    edges = np.geomspace(max(R.min(), 0.3), R.max(), a.bins + 1)
    mids, med, counts = [], [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        m = (R >= lo) & (R < hi)
        if m.sum() >= a.min_count:
            mids.append(np.sqrt(lo * hi))
            med.append(np.median(q[m]))
            counts.append(int(m.sum()))
    mids, med = np.array(mids), np.array(med)
    far = mids >= a.far
    if not far.any():
        raise SystemExit("no bin beyond %g m with %d pixels; lower --far" % (a.far, a.min_count))
    xi = med / np.median(med[far])
    print("range_m  xi (signal R^2 / reflectivity, far field 1)  pixels")
    for r, x, n in zip(mids, xi, counts):
        print("%7.2f  %6.3f  %d" % (r, x, n))
    near = (~far) & (xi > 0)
    best = None
    for rf in np.linspace(1.0, 80.0, 791):
        model = np.minimum(1.0, (mids[near] / rf) ** 2)
        err = np.sum((np.log(xi[near]) - np.log(model)) ** 2)
        if best is None or err < best[1]:
            best = (rf, err)
    rms = np.sqrt(best[1] / max(1, near.sum()))
    print("quadratic fit: R_full = %.1f m (rms of log xi %.2f over %d bins below %g m)" % (best[0], rms, near.sum(),
                                                                                           a.far))
    return 0


if __name__ == "__main__":
    sys.exit(main())
