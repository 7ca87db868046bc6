#!/usr/bin/python3
"""`lidarsim scan -o X.pcap`: simulated frames as the sensor's own UDP packets, read back by an
independent decoder written here from the vendors' manuals (docs/formats.md "pcap out").

usage: test_pcap_write.py LIDARSIM_BINARY WORK_DIR      (env LSIM_DATA_DIR: the repository's data/)

Each sensor scans a closed box room (every beam returns) with noise off into a CSV and a pcap; the
pcap is decoded with the vendor's formulas and every return matched to its CSV row by (ring,
column):
  a  capture: pcap header (magic a1b2c3d4, 2.4, snaplen 65535, Ethernet), records of Ethernet II
     + IPv4 (checksum, lengths, 192.168.1.201 ->, don't fragment) + UDP (checksum, ports 2368 /
     7502), capture times rising and within the frame
  b  Velodyne VLP-16, HDL-32E presets, an HDL-64E S2 unit imported from its table: 1206-byte
     packets, block flags (HDL-64E upper 0xEEFF / lower 0xDDFF), block azimuths, timestamps (us
     past the hour), return mode 0x37, product id (0x22, 0x21; HDL-64E 0); decoded with the
     sensor's own table (data/
     sensor-calibrations/velodyne, laser_id order as in the packets) and velodyne_pointcloud's
     formulas: as many returns as the CSV has points, range within 1 mm (2 mm counts), elevation
     exact, azimuth within 0.015 deg (0.01-deg counts: the block azimuth rounded, and the step a
     driver interpolates firing times with), position within 1 mm + range x 0.015 deg,
     reflectivity byte
  c  Ouster os1-128 in RNG19_RFL8_SIG16_NIR16 (default), LEGACY, RNG15_RFL8_NIR8 and
     RNG19_RFL8_SIG16_NIR16_DUAL; an imported unit (data/ouster-recordings OS-1-32-G): packet
     sizes, packet/column headers (packet type, frame_id, init_id, measurement_id, status,
     LEGACY encoder count and block status), the metadata JSON beside it; decoded with the
     manual's formula (xyz = (r - n) d + n (cos te, sin te, 0), then lidar_to_sensor_transform)
     from that JSON: returns as in the CSV, range within 0.5 mm (4 mm in RNG15's 8 mm units), beam
     angles within 0.01 deg, position within the range step + 1 mm, reflectivity and signal as
     documented
  d  determinism: the same seed with noise gives identical bytes (pcap and JSON), another seed not
  e  --frames 3: frame_id 0, 1, 2, columns restarting at 0, timestamps 0.1 s apart; a VLP-16 in
     dual return mode: 0x39, blocks in pairs of equal azimuth, one echo filling both
  g  Python: Points.write_recording and Scene.scan_write(..., ouster_profile=) give the same bytes;
     lidarsim.read(pcap, metadata=json) gives the scan's points back (count, ranges within the
     step); a VLP-16 pcap reads back without a table (its product id)
  f  errors leave no file: a planar sensor (names the supported ones), a range the packets cannot
     hold, a profile for a Velodyne, --fields, standard output, the JSON's path a folder, every
     echo of a beam (returns: all), the HDL-64E's dual mode
Standard library and numpy only. Exits 1 with one line per failed check.
"""
import json
import math
import os
import struct
import sys

import numpy as np
from cli_check import (Lidarsim, binary_and_work, check, finish, python_module_env, read_bytes, read_csv, run,
                       run_parts, write)
from repo_data import CALIBRATIONS, DATA, need

BINARY, WORK = binary_and_work(fresh=True)
lidarsim = Lidarsim(BINARY, WORK, ok=True)


def scene(sensor_lines):
    """A closed box room around the sensor: every beam returns within about 20 m."""
    return """sensor:
%s
  position: [0, 0, 1.5]
materials:
  wall: {brdf: lambertian, reflectance: 0.6}
objects:
  - box: {size: [30, 24, 10]}
    position: [2, 1, 3]
    material: wall
""" % sensor_lines


# ------------------------------------------------------------------ pcap, Ethernet, IPv4, UDP

def ones_sum(b):
    if len(b) % 2:
        b += b"\0"
    s = int(np.frombuffer(b, dtype=">u2").astype(np.uint64).sum())
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def read_pcap(path, port, dst):
    """The UDP payloads of a pcap with their capture times; checks every header on the way."""
    with open(path, "rb") as f:
        data = f.read()
    magic, major, minor, _, _, snaplen, link = struct.unpack_from("<IHHiIII", data, 0)
    check((magic, major, minor, snaplen, link) == (0xA1B2C3D4, 2, 4, 65535, 1),
          "%s: pcap header %x %d.%d snaplen %d link %d" % (path, magic, major, minor, snaplen, link))
    off, out, bad = 24, [], []
    while off < len(data):
        sec, usec, incl, orig = struct.unpack_from("<IIII", data, off)
        frame = data[off + 16:off + 16 + incl]
        off += 16 + incl
        ip, udp = frame[14:34], frame[34:42]
        total = struct.unpack(">H", ip[2:4])[0]
        ulen = struct.unpack(">H", udp[4:6])[0]
        pseudo = ip[12:20] + struct.pack(">HH", 17, ulen)
        if not (incl == orig == len(frame) == 14 + total and usec < 1000000 and frame[12:14] == b"\x08\x00" and
                ip[0] == 0x45 and ip[9] == 17 and ip[6:8] == b"\x40\x00" and ones_sum(ip) == 0xFFFF and
                list(ip[12:16]) == [192, 168, 1, 201] and list(ip[16:20]) == dst and ulen == total - 20 and
                struct.unpack(">HH", udp[0:4]) == (port, port) and ones_sum(pseudo + frame[34:]) == 0xFFFF):
            bad.append(len(out))
        out.append((sec + usec * 1e-6, frame[42:]))
    check(off == len(data), "%s: trailing bytes after the last record" % path)
    check(not bad, "%s: %d of %d records have bad Ethernet/IPv4/UDP headers or checksums (first: %s)"
          % (path, len(bad), len(out), bad[:3]))
    times = [t for t, _ in out]
    check(all(b >= a for a, b in zip(times, times[1:])), "%s: capture times go back" % path)
    return out


def refl_byte(rho):
    """docs/formats.md: 0-100 diffuse (percent), 101-255 retro-reflectors on a log scale."""
    rho = np.asarray(rho, dtype=np.float64)
    low = np.rint(100.0 * np.clip(rho, 0, 1))
    high = np.clip(100.0 + np.floor(155.0 * np.log10(np.maximum(rho, 1.0)) / 3.0 + 0.5), 101, 255)
    return np.where(rho <= 1.0, low, high).astype(np.int64)


def wrap_deg(a):
    return (np.asarray(a) + 180.0) % 360.0 - 180.0


# ------------------------------------------------------------------ Velodyne

# Manuals: VLP-16 (63-9243 Rev D) 16 lasers, 2.304 us apart, 55.296 us a sequence, two sequences a
# block, product 0x22; HDL-32E (63-9113 Rev J) 32 lasers 1.152 us apart, 46.08 us, product 0x21;
# HDL-64E S2 (63-HDL64ES2) upper (0xEEFF, lasers 0-31) and lower (0xDDFF, 32-63) blocks fired
# together, 1.5 us a slot, 48 us a sequence, no product byte.
VELODYNE = {
    "vlp16": dict(table="VLP16db.json", slot=2.304e-6, seq=55.296e-6, product=0x22),
    "hdl32e": dict(table="32db.json", slot=1.152e-6, seq=46.08e-6, product=0x21),
    "hdl64e": dict(table="64e_s2.1-sztaki.json", slot=1.5e-6, seq=48e-6, product=0, unit=True),
}


def part_b():
    d = os.path.join(WORK, "b")
    for name, m in VELODYNE.items():
        # the HDL-64E as a unit imported from its table (the preset's own table may change)
        sensor = ("  calibration: %s" % need(os.path.join(CALIBRATIONS, "velodyne", m["table"])) if m.get("unit")
                  else "  preset: %s" % name)
        sc = write(os.path.join(d, name + ".yaml"), scene(sensor))
        pcap, csv = os.path.join(d, name + ".pcap"), os.path.join(d, name + ".csv")
        lidarsim("scan", sc, "-o", pcap, "--noise", "off", "--quiet", "--scan-time", "7200.25")
        lidarsim("scan", sc, "-o", csv, "--noise", "off", "--quiet", "--scan-time", "7200.25")
        pts = read_csv(csv)
        with open(need(os.path.join(CALIBRATIONS, "velodyne", m["table"]))) as f:
            lasers = sorted(json.load(f)["lasers"], key=lambda l: l["laser_id"])
        n = len(lasers)
        vert = np.array([l["vert_correction"] for l in lasers])
        rot = np.degrees([l["rot_correction"] for l in lasers])
        voff = np.array([l["vert_offset_correction"] for l in lasers])
        hoff = np.array([l["horiz_offset_correction"] for l in lasers])
        ring_of = np.empty(n, int)  # lidarsim's rings: lasers by ascending elevation
        ring_of[np.argsort(vert, kind="stable")] = np.arange(n)
        packets = read_pcap(pcap, 2368, [255, 255, 255, 255])
        check(not os.path.exists(os.path.join(d, name + ".json")), "%s: a Velodyne pcap got a JSON" % name)
        check(all(len(p) == 1206 for _, p in packets), "%s: packets not all 1206 bytes" % name)
        seqs_per_block = 2 if n == 16 else 1
        banks = 2 if n == 64 else 1
        per_packet = 12 * seqs_per_block // banks
        columns = int(1.0 / m["seq"] / 10.0)  # floor(sequences a second / 10 Hz)
        check(len(packets) == -(-columns // per_packet), "%s: %d packets for %d columns (%d a packet)"
              % (name, len(packets), columns, per_packet))
        # every block: flag, azimuth; every return: (column, laser, counts, reflectivity)
        rows, flags_ok, az_ok, ts_ok, tail_ok = [], True, True, True, True
        block_az = []
        for k, (t, p) in enumerate(packets):
            first = k * per_packet
            ts, mode, product = struct.unpack_from("<IBB", p, 1200)
            t_first = 7200.25 + first * m["seq"]
            ts_ok &= abs(ts - round((t_first % 3600) * 1e6)) <= 1
            tail_ok &= (mode, product) == ((0x37, m["product"]) if m["product"] else (0, 0))
            groups = [struct.unpack_from("<H", p, 100 * b + 2)[0] for b in range(0, 12, banks)]
            steps = [(groups[g + 1] - groups[g]) % 36000 for g in range(len(groups) - 1)]
            steps.append(steps[-1])  # the last group takes the previous step
            for b in range(12):
                flag, az = struct.unpack_from("<HH", p, 100 * b)
                step = steps[b // banks]
                bank = b % banks
                flags_ok &= flag == (0xEEFF if bank == 0 else 0xDDFF)
                c0 = first + (b // banks) * seqs_per_block
                if bank == 0:
                    block_az.append((c0, az))
                for s in range(32):
                    dist, refl = struct.unpack_from("<HB", p, 100 * b + 4 + 3 * s)
                    c = c0 + s // (32 // seqs_per_block)
                    laser = bank * 32 + s % (32 // seqs_per_block)
                    if dist:
                        rows.append((c, laser, dist, refl, az, step))
        check(flags_ok, "%s: block flags" % name)
        check(ts_ok, "%s: timestamps are not the first sequence's microseconds past the hour" % name)
        check(tail_ok, "%s: return mode / product id bytes" % name)
        # block azimuths: the head's, clockwise, 0.01 deg: 360 x 10 Hz x t
        exp = [round((360.0 * 10.0 * c * m["seq"]) * 100) % 36000 for c, _ in block_az]
        check(all(abs(a - e) <= 1 for (_, a), e in zip(block_az, exp)), "%s: block azimuths" % name)
        r = np.array(rows, dtype=np.float64)
        c, laser, dist, refl, az = r[:, 0].astype(int), r[:, 1].astype(int), r[:, 2], r[:, 3], r[:, 4] / 100.0
        step = r[:, 5] / 100.0
        check(len(r) == len(pts["x"]), "%s: %d returns in the pcap, %d points in the CSV"
              % (name, len(r), len(pts["x"])))
        # match: the CSV's (ring, column), its column from its time and the laser's firing slot
        ring = pts["ring"].astype(int)
        laser_of_ring = np.argsort(ring_of)
        slot = laser_of_ring[ring] % 32 if n == 64 else laser_of_ring[ring]
        col = np.rint((pts["time"] - slot * m["slot"]) / m["seq"]).astype(int)
        key_csv = col * n + ring
        key_pcap = c * n + ring_of[laser]
        order_csv, order_pcap = np.argsort(key_csv), np.argsort(key_pcap)
        if not check(len(r) == len(pts["x"]) and np.array_equal(key_csv[order_csv], key_pcap[order_pcap]),
                     "%s: the pcap's (column, ring) set differs from the CSV's" % name):
            continue
        P = {k: v[order_csv] for k, v in pts.items()}
        c, laser, dist, refl, az = c[order_pcap], laser[order_pcap], dist[order_pcap], refl[order_pcap], az[order_pcap]
        step = step[order_pcap]
        rng = dist * 0.002
        check(np.max(np.abs(rng - P["range"])) <= 0.001 + 1e-6, "%s: range off by %.4f m (2 mm counts)"
              % (name, np.max(np.abs(rng - P["range"]))))
        check(np.max(np.abs(np.degrees(vert[laser]) - P["elevation"])) < 1e-4, "%s: elevations" % name)
        # as velodyne_pointcloud and VeloView: the head advances over the laser's firing time within
        # the block's group, by the azimuth step to the next group (counts of 0.01 deg, so the
        # bound is 0.005 deg of the block azimuth's rounding + 0.01 deg of the step's)
        fire = (laser % 32 if n == 64 else laser) * m["slot"] + (c % seqs_per_block) * m["seq"]
        head = az + step * fire / (m["seq"] * seqs_per_block)
        phi = rot[laser] - head  # counter-clockwise, degrees
        daz = np.max(np.abs(wrap_deg(phi - P["azimuth"])))
        check(daz <= 0.015, "%s: beam azimuth off by %.4f deg (bound 0.015)" % (name, daz))
        p, v = np.radians(phi), vert[laser]
        ho, vo = hoff[laser], voff[laser]
        xy = rng * np.cos(v)
        x = xy * np.cos(p) - ho * np.sin(p) - vo * np.sin(v) * np.cos(p)
        y = xy * np.sin(p) + ho * np.cos(p) - vo * np.sin(v) * np.sin(p)
        z = rng * np.sin(v) + vo * np.cos(v)
        err = np.sqrt((x - P["x"]) ** 2 + (y - P["y"]) ** 2 + (z - P["z"]) ** 2)
        bound = 0.001 + P["range"] * math.radians(0.015) + 1e-5
        check(np.all(err <= bound), "%s: positions off by up to %.4f m (bound 1 mm + range x 0.015 deg)"
              % (name, np.max(err)))
        check(np.array_equal(refl.astype(int), refl_byte(P["reflectivity"])), "%s: reflectivity bytes" % name)


# ------------------------------------------------------------------ Ouster

# Sensor manual, "Lidar Data Packet Format": (packet header, column header, pixel, column footer,
# packet footer) bytes; range field (offset, bytes, mask, unit mm), reflectivity, signal.
OUSTER = {
    "LEGACY": dict(head=0, col=16, px=12, colfoot=4, foot=0, rng=(0, 4, 0xFFFFF, 1), rfl=(4, 2), sig=(6, 2)),
    "RNG19_RFL8_SIG16_NIR16": dict(head=32, col=12, px=12, colfoot=0, foot=32, rng=(0, 4, 0x7FFFF, 1), rfl=(4, 1),
                                   sig=(6, 2)),
    "RNG19_RFL8_SIG16_NIR16_DUAL": dict(head=32, col=12, px=16, colfoot=0, foot=32, rng=(0, 4, 0x7FFFF, 1),
                                        rfl=(3, 1), sig=(8, 2)),
    "RNG15_RFL8_NIR8": dict(head=32, col=12, px=4, colfoot=0, foot=32, rng=(0, 2, 0x7FFF, 8), rfl=(2, 1), sig=None),
}


def field(buf, off, nbytes):
    """The little-endian integer of `nbytes` at `off` of the last axis of a uint8 array."""
    dt = {1: np.uint8, 2: "<u2", 4: "<u4", 8: "<u8"}[nbytes]
    return np.frombuffer(np.ascontiguousarray(buf[..., off:off + nbytes]).tobytes(), dtype=dt).reshape(buf.shape[:-1])


def decode_ouster(name, pcap, meta, profile, scan_time, frames=1):
    """Decode every packet; returns per pixel (column, beam, r_mm, reflectivity, signal) and header checks."""
    f = OUSTER[profile]
    H = meta["data_format"]["pixels_per_column"]
    W = meta["data_format"]["columns_per_frame"]
    cpp = meta["data_format"]["columns_per_packet"]
    check(meta["data_format"]["udp_profile_lidar"] == profile, "%s: metadata profile %s"
          % (name, meta["data_format"]["udp_profile_lidar"]))
    check(meta["lidar_mode"] == "%dx10" % W, "%s: lidar_mode %s" % (name, meta["lidar_mode"]))
    colsize = f["col"] + H * f["px"] + f["colfoot"]
    size = f["head"] + cpp * colsize + f["foot"]
    packets = read_pcap(pcap, 7502, [192, 168, 1, 100])
    check(len(packets) == frames * W // cpp, "%s: %d packets, expected %d" % (name, len(packets), frames * W // cpp))
    check(all(len(p) == size for _, p in packets), "%s: packet size is not %d" % (name, size))
    raw = np.frombuffer(b"".join(p for _, p in packets), dtype=np.uint8).reshape(len(packets), size)
    cols = raw[:, f["head"]:f["head"] + cpp * colsize].reshape(len(packets), cpp, colsize)
    ts = field(cols, 0, 8)
    mid = field(cols, 8, 2).astype(int)
    k = np.arange(len(packets) * cpp).reshape(len(packets), cpp)
    check(np.array_equal(mid, k % W), "%s: measurement ids are not 0..W-1 in order" % name)
    frame_of = k // W
    exp_ts = np.rint((scan_time + frame_of * 0.1 + (k % W) / (W * 10.0)) * 1e9)
    check(np.max(np.abs(ts.astype(np.float64) - exp_ts)) <= 1e3, "%s: column timestamps" % name)
    init = meta["initialization_id"]
    if profile == "LEGACY":
        check(np.array_equal(field(cols, 10, 2).astype(int), frame_of % 65536), "%s: LEGACY frame ids" % name)
        check(np.array_equal(field(cols, 12, 4).astype(int), (k % W) * 90112 // W), "%s: encoder counts" % name)
        check(np.all(field(cols[..., colsize - 4:], 0, 4) == 0xFFFFFFFF), "%s: LEGACY block status" % name)
    else:
        head = raw[:, :32]
        check(np.all(field(head, 0, 2) == 1), "%s: packet_type" % name)
        check(np.array_equal(field(head, 2, 2).astype(int), frame_of[:, 0] % 65536), "%s: frame_id" % name)
        ids = field(head, 4, 4).astype(int) & 0xFFFFFF
        check(np.all(ids == init), "%s: init_id %s, metadata %d" % (name, np.unique(ids)[:3], init))
        check(np.all(field(cols, 10, 2) & 1 == 1), "%s: column status not valid" % name)
    px = cols[..., f["col"]:f["col"] + H * f["px"]].reshape(len(packets), cpp, H, f["px"])
    o, nb, mask, unit = f["rng"]
    r_mm = (field(px, o, nb).astype(np.int64) & mask) * unit
    rfl = field(px, *f["rfl"]).astype(int)
    sig = field(px, *f["sig"]).astype(int) if f["sig"] else None
    r2 = None
    if profile.endswith("_DUAL"):
        r2 = (field(px, 4, 4).astype(np.int64) & mask) * unit
    return dict(W=W, H=H, k=k, r_mm=r_mm, rfl=rfl, sig=sig, r2=r2, unit=unit, times=[t for t, _ in packets])


def ouster_points(meta, dec):
    """The manual's pixel -> point (lidar frame, mm), then lidar_to_sensor_transform; metres."""
    W, H = dec["W"], dec["H"]
    n = meta["lidar_origin_to_beam_origin_mm"]
    m = (dec["k"] % W)[..., None].astype(np.float64)
    te = 2 * np.pi * (1 - m / W)
    ta = -np.radians(np.array(meta["beam_azimuth_angles"]))[None, None, :]
    ph = np.radians(np.array(meta["beam_altitude_angles"]))[None, None, :]
    r = dec["r_mm"].astype(np.float64)
    x = (r - n) * np.cos(te + ta) * np.cos(ph) + n * np.cos(te)
    y = (r - n) * np.sin(te + ta) * np.cos(ph) + n * np.sin(te)
    z = (r - n) * np.sin(ph)
    T = np.array(meta["lidar_to_sensor_transform"], dtype=np.float64).reshape(4, 4)
    xs = (T[0, 0] * x + T[0, 1] * y + T[0, 2] * z + T[0, 3]) * 1e-3
    ys = (T[1, 0] * x + T[1, 1] * y + T[1, 2] * z + T[1, 3]) * 1e-3
    zs = (T[2, 0] * x + T[2, 1] * y + T[2, 2] * z + T[2, 3]) * 1e-3
    turn = math.degrees(math.atan2(T[1, 0], T[0, 0]))
    az = np.degrees(te + ta) + turn + 0 * ph
    el = np.degrees(ph) + 0 * te
    return xs, ys, zs, (r - n) * 1e-3, az, el


def compare_ouster(name, meta, dec, pts, sensor_threshold=None):
    W, H = dec["W"], dec["H"]
    xs, ys, zs, rng, az, el = ouster_points(meta, dec)
    valid = dec["r_mm"] > 0
    check(int(valid.sum()) == len(pts["x"]), "%s: %d returns in the pcap, %d points in the CSV"
          % (name, int(valid.sum()), len(pts["x"])))
    # the CSV's pixel: column from time (all beams of a column fire at once), beam from ring
    col = np.rint(pts["time"] * W * 10.0).astype(int)
    beam = H - 1 - pts["ring"].astype(int)
    key_csv = col * H + beam
    kk = (dec["k"] % W)[..., None] * H + np.arange(H)[None, None, :]
    key_pcap = kk[valid]
    oc, op = np.argsort(key_csv), np.argsort(key_pcap)
    if not check(len(key_csv) == len(key_pcap) and np.array_equal(key_csv[oc], key_pcap[op]),
                 "%s: the pcap's (column, beam) set differs from the CSV's" % name):
        return
    P = {k: v[oc] for k, v in pts.items()}
    sel = lambda a: a[valid][op]
    step = dec["unit"] * 1e-3
    dr = np.max(np.abs(sel(rng) - P["range"]))
    check(dr <= step / 2 + 2e-6, "%s: range off by %.5f m (step %g m)" % (name, dr, step))
    daz = np.max(np.abs(wrap_deg(sel(az) - P["azimuth"])))
    dal = np.max(np.abs(sel(el) - P["elevation"]))
    check(daz <= 0.01 and dal <= 0.01, "%s: beam angles off by %.5f deg azimuth, %.5f deg elevation (bound 0.01)"
          % (name, daz, dal))
    err = np.sqrt((sel(xs) - P["x"]) ** 2 + (sel(ys) - P["y"]) ** 2 + (sel(zs) - P["z"]) ** 2)
    check(np.max(err) <= step / 2 + 0.001, "%s: positions off by up to %.5f m (bound %g m)"
          % (name, np.max(err), step / 2 + 0.001))
    check(np.array_equal(sel(dec["rfl"]), refl_byte(P["reflectivity"])), "%s: reflectivity bytes" % name)
    if dec["sig"] is not None and sensor_threshold:
        expect = np.clip(np.floor(P["intensity"] * 5.0 / sensor_threshold + 0.5), 0, 65535)
        check(np.max(np.abs(sel(dec["sig"]) - expect)) <= 1, "%s: signal is not intensity x 5 / threshold" % name)


def part_c():
    d = os.path.join(WORK, "c")
    # the preset's mode and threshold made explicit: 2048 columns, T = 0.1 / 120^2
    sc = write(os.path.join(d, "os1.yaml"), scene("  preset: os1-128\n  columns: 2048\n  range: [0.3, 120]\n"
                                                  "  detection_reflectance: 0.1"))
    csv = os.path.join(d, "os1.csv")
    lidarsim("scan", sc, "-o", csv, "--noise", "off", "--quiet", "--scan-time", "1.5")
    pts = read_csv(csv)
    threshold = 0.1 / 120.0 ** 2
    for profile in OUSTER:
        pcap = os.path.join(d, "os1_%s.pcap" % profile)
        args = ["--ouster-profile", profile] if profile != "RNG19_RFL8_SIG16_NIR16" else []
        lidarsim("scan", sc, "-o", pcap, "--noise", "off", "--quiet", "--scan-time", "1.5", *args)
        with open(pcap[:-5] + ".json") as f:
            meta = json.load(f)
        check(len(meta["beam_altitude_angles"]) == 128 and meta["prod_line"] == "OS-1-128",
              "os1-128 %s: metadata beams / prod_line" % profile)
        dec = decode_ouster("os1-128 " + profile, pcap, meta, profile, 1.5)
        compare_ouster("os1-128 " + profile, meta, dec, pts, threshold)
        if dec["r2"] is not None:
            check(not np.any(dec["r2"]), "os1-128 DUAL: a second return where the scan has one")
    # an imported unit: the real OS-1-32-G's metadata in, the same beams out
    unit = need(os.path.join(DATA, "ouster-recordings", "OS-1-32-G_v2.1.1_1024x10.json"))
    sc = write(os.path.join(d, "unit.yaml"), scene("  calibration: %s" % unit))
    pcap, csv = os.path.join(d, "unit.pcap"), os.path.join(d, "unit.csv")
    lidarsim("scan", sc, "-o", pcap, "--noise", "off", "--quiet", "--ouster-profile", "LEGACY")
    lidarsim("scan", sc, "-o", csv, "--noise", "off", "--quiet")
    with open(pcap[:-5] + ".json") as f:
        meta = json.load(f)
    with open(unit) as f:
        real = json.load(f)
    for key in ("beam_altitude_angles", "beam_azimuth_angles", "lidar_to_sensor_transform"):
        check(np.allclose(meta[key], real[key], atol=1e-9), "imported OS-1-32-G: metadata %s differs from the unit's"
              % key)
    check(abs(meta["lidar_origin_to_beam_origin_mm"] - real["lidar_origin_to_beam_origin_mm"]) < 1e-9,
          "imported OS-1-32-G: lidar_origin_to_beam_origin_mm")
    dec = decode_ouster("OS-1-32-G LEGACY", pcap, meta, "LEGACY", 0.0)
    compare_ouster("OS-1-32-G LEGACY", meta, dec, read_csv(csv))


def part_d():
    d = os.path.join(WORK, "d")
    for name, lines in (("vlp16", "  preset: vlp16"), ("os1", "  preset: os1-64")):
        sc = write(os.path.join(d, name + ".yaml"), scene(lines))
        outs = []
        for i, seed in enumerate((7, 7, 8)):
            p = os.path.join(d, "%s_%d.pcap" % (name, i))
            lidarsim("scan", sc, "-o", p, "--seed", seed, "--quiet", "--threads", 1 + i % 2)
            blobs = [read_bytes(p)]
            if name == "os1":
                blobs.append(read_bytes(p[:-5] + ".json"))
            outs.append(blobs)
        check(outs[0] == outs[1], "%s: the same seed gave different bytes" % name)
        check(outs[0][0] != outs[2][0], "%s: another seed gave the same pcap" % name)


def part_e():
    d = os.path.join(WORK, "e")
    sc = write(os.path.join(d, "os1.yaml"), scene("  preset: os1-64"))
    pcap = os.path.join(d, "three.pcap")
    lidarsim("scan", sc, "-o", pcap, "--frames", 3, "--quiet", "--frame-index", 0)
    with open(pcap[:-5] + ".json") as f:
        meta = json.load(f)
    dec = decode_ouster("os1-64 --frames 3", pcap, meta, "RNG19_RFL8_SIG16_NIR16", 0.0, frames=3)
    t = dec["times"]
    check(len(t) == 3 * 64 and abs((t[64] - t[0]) - 0.1) < 2e-6 and abs((t[128] - t[64]) - 0.1) < 2e-6,
          "--frames 3: packets are not 0.1 s a frame apart")
    sc = write(os.path.join(d, "vlp16.yaml"), scene("  preset: vlp16"))
    pcap = os.path.join(d, "vlp16x2.pcap")
    lidarsim("scan", sc, "-o", pcap, "--frames", 2, "--quiet")
    packets = read_pcap(pcap, 2368, [255, 255, 255, 255])
    check(len(packets) == 2 * 76, "vlp16 --frames 2: %d packets, expected 152" % len(packets))
    # dual return mode (VLP-16 manual): 0x39, blocks in pairs of one firing (the same azimuth), so
    # 12 sequences a packet: 151 packets for 1808 sequences
    sc = write(os.path.join(d, "dual.yaml"), scene("  preset: vlp16\n  receiver: {returns: dual}"))
    pcap = os.path.join(d, "dual.pcap")
    lidarsim("scan", sc, "-o", pcap, "--quiet", "--noise", "off")
    packets = read_pcap(pcap, 2368, [255, 255, 255, 255])
    az = [[struct.unpack_from("<H", p, 100 * b + 2)[0] for b in range(12)] for _, p in packets]
    check(len(packets) == 151 and all(p[1204] == 0x39 for _, p in packets) and
          all(a[2 * i] == a[2 * i + 1] for a in az for i in range(6)),
          "vlp16 dual: %d packets (151), return mode bytes, or block pairs of unequal azimuth" % len(packets))
    # one echo a beam: both blocks of a pair carry it
    same = all(p[100 * b + 4:100 * b + 100] == p[100 * b + 104:100 * b + 200] for _, p in packets[:-1] for b in (0, 2))
    check(same, "vlp16 dual with one echo a beam: the pair's blocks differ")


def part_f():
    d = os.path.join(WORK, "f")
    os.makedirs(d, exist_ok=True)

    def refused(what, sc_text, out, *args, expect=()):
        sc = write(os.path.join(d, "s.yaml"), sc_text)
        path = os.path.join(d, out)
        rc, _, err = lidarsim("scan", sc, "-o", path, "--quiet", *args, ok=False)
        left = [n for n in os.listdir(d) if n != "s.yaml" and not os.path.isdir(os.path.join(d, n))]
        check(rc != 0 and not left, "%s: exit %d, files left %s" % (what, rc, left))
        for e in expect:
            check(e in err, "%s: message lacks '%s': %s" % (what, e, err.strip()))

    refused("planar sensor", scene("  preset: rplidar-a1"), "p.pcap",
            expect=("no packet format", "vlp16", "os1-128"))
    refused("range beyond the counts", scene("  preset: vlp16\n  range: [0.5, 200]"), "r.pcap", expect=("131.07",))
    refused("profile for a Velodyne", scene("  preset: hdl32e"), "v.pcap", "--ouster-profile", "LEGACY",
            expect=("Velodyne",))
    refused("--fields", scene("  preset: vlp16"), "f.pcap", "--fields", "x,y,z", expect=("--fields",))
    refused("unknown profile", scene("  preset: os1-64"), "u.pcap", "--ouster-profile", "RNG99",
            expect=("--ouster-profile",))
    refused("every echo", scene("  preset: vlp16\n  receiver: {returns: all, max_returns: 3}"), "e.pcap",
            expect=("all its echoes",))
    refused("HDL-64E dual", scene("  preset: hdl64e\n  receiver: {returns: dual}"), "h.pcap",
            expect=("dual return mode",))
    os.makedirs(os.path.join(d, "m.json"))
    refused("metadata path a folder", scene("  preset: os1-64"), "m.pcap")
    os.rmdir(os.path.join(d, "m.json"))
    sc = write(os.path.join(d, "s.yaml"), scene("  preset: vlp16"))
    rc, _, err = lidarsim("scan", sc, "-o", "-", "--format", "pcap", "--quiet", ok=False)
    check(rc != 0 and "file name" in err, "pcap to standard output: exit %d, %s" % (rc, err.strip()))


PY_ROUNDTRIP = r"""
import sys, numpy as np, lidarsim
d, scene_os, scene_vlp = sys.argv[1:4]
out = []
for scene_file, profile, meta, step in ((scene_os, "RNG15_RFL8_NIR8", True, 0.008), (scene_vlp, None, False, 0.002)):
    scene, sensor = lidarsim.load(scene_file)
    pts = scene.scan(sensor, noise=False)
    a, b = d + "/py_a.pcap", d + "/py_b.pcap"
    pts.write_recording(sensor, a, ouster_profile=profile)
    scene.scan_write(sensor, b, noise=False, ouster_profile=profile)
    same = open(a, "rb").read() == open(b, "rb").read()
    back = lidarsim.read(a, metadata=(a[:-5] + ".json") if meta else None, partial=True)
    r0, r1 = np.sort(np.asarray(pts["range"])), np.sort(np.asarray(back["range"]))
    dr = float(np.max(np.abs(r0 - r1))) if len(r0) == len(r1) else -1.0
    out.append("%d %d %d %.6f %g" % (same, len(pts), len(back), dr, step))
print("\n".join(out))
"""


def part_g():
    d = os.path.join(WORK, "g")
    sc_os = write(os.path.join(d, "os.yaml"), scene("  preset: os1-64"))
    sc_vlp = write(os.path.join(d, "vlp.yaml"), scene("  preset: vlp16"))
    r = run([sys.executable, "-c", PY_ROUNDTRIP, d, sc_os, sc_vlp], env=python_module_env(BINARY))
    if not check(r.returncode == 0, "Python round trip failed: %s" % r.stderr[-2000:]):
        return
    lines = r.stdout.split()
    check(len(lines) == 10, "Python round trip printed %r" % r.stdout)
    for name, line in zip(("os1-64 RNG15_RFL8_NIR8", "vlp16"), r.stdout.strip().split("\n")):
        print("Python %s: same bytes, points scanned, read back, max range error, step: %s" % (name, line))
        same, n, back, dr, step = line.split()
        check(same == "1", "Python %s: Points.write_recording and Scene.scan_write differ" % name)
        check(n == back and 0 <= float(dr) <= float(step) / 2 + 2e-5,
              "Python %s: %s points scanned, %s read back, ranges off by %s m" % (name, n, back, dr))


if __name__ == "__main__":
    run_parts((part_b, part_c, part_d, part_e, part_f, part_g))
    finish("test_pcap_write")
