#!/usr/bin/python3
"""Real recordings in (issue 24): lidarsim's pcap reader against an independent decoder.

  test_pcap_read.py LIDARSIM_BINARY WORK_DIR

1. The three Ouster recordings of data/ouster-recordings/ (OS-1-128 RNG15_RFL8_NIR8, 3 frames;
   OS-1-32-G LEGACY; OS-0-32-U1 RNG19_RFL8_SIG16_NIR16_DUAL) are decoded here with struct and
   numpy from the pcap bytes and Ouster's formula (software manual "Coordinate Frames": column m of
   W at theta_e = 2 pi (1 - m/W), theta = theta_e - beam_azimuth, phi = beam_altitude, r - n along
   the beam from n along theta_e, then lidar_to_sensor_transform), and compared point by point with
   lidarsim.read(pcap, metadata=json, frame=k): counts, order, beam azimuth and elevation within
   0.01 deg, ranges exact (integer mm, 8 mm steps), ring, time, reflectivity, intensity. The same
   recording with its 8,448-byte datagrams cut into 1,500-byte IPv4 fragments reads the same.
2. Velodyne: packet streams built here from real tables (VLP-16 by its product id with no table,
   HDL-64E S2 with a table of rot/vert/offset corrections, upper and lower blocks; HDL-32E; VLS-128
   with its four banks and its table's distance unit) read back to the points rawdata.cc's formula
   gives, with the firing-time azimuth interpolation; frame counts with and without partial ones.
3. Bad, truncated and hostile inputs through `lidarsim render`: exit 1 with a message naming the
   file and what is wrong, no crash, no picture.
The library is loaded by a child python3 (LD_PRELOAD of the ASan runtime in a sanitizer build).
"""
import os
import shutil
import struct
import sys

import numpy as np
from cli_check import Lidarsim, binary_and_work, check, fail, finish, python_module_env, read_bytes, run, write
from repo_data import DATA, CALIBRATIONS, need

CLI, WORK = binary_and_work(fresh=True)
REC = os.path.join(DATA, "ouster-recordings")
lidarsim = Lidarsim(CLI, seconds=60)


# ------------------------------------------------------------------ pcap bytes

def pcap_records(path):
    b = read_bytes(path)
    magic, = struct.unpack("<I", b[:4])
    assert magic == 0xA1B2C3D4, path
    off, out = 24, []
    while off < len(b):
        ts, tu, incl, orig = struct.unpack("<IIII", b[off:off + 16])
        out.append(b[off + 16:off + 16 + incl])
        off += 16 + incl
    return out


def udp_payloads(path, port):
    for d in pcap_records(path):
        ihl = (d[14] & 15) * 4
        u = d[14 + ihl:]
        if struct.unpack(">H", u[2:4])[0] == port:
            yield u[8:struct.unpack(">H", u[4:6])[0]]


def write_pcap(path, frames):
    """frames: Ethernet frames (bytes)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for k, fr in enumerate(frames):
            f.write(struct.pack("<IIII", 1000 + k // 1000, k % 1000, len(fr), len(fr)) + fr)


def ipv4(payload, ident=1, frag=0, proto=17):
    h = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), ident, frag, 64, proto, 0,
                    bytes([192, 168, 1, 201]), bytes([192, 168, 1, 100]))
    return b"\xff" * 6 + b"\x02" * 6 + b"\x08\x00" + h + payload


def udp(payload, dport, sport=7502):
    return struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload


# ------------------------------------------------------------------ the library, in a child python3

def read_points(pcap, metadata, frame=0, partial=False, expect_error=None):
    out = os.path.join(WORK, "points.npy")
    if os.path.exists(out):
        os.remove(out)
    code = ("import sys, numpy as np, lidarsim\n"
            "try:\n"
            "    cal, partial = sys.argv[2] or None, sys.argv[4] == '1'\n"
            "    p = lidarsim.read(sys.argv[1], metadata=cal, frame=int(sys.argv[3]), partial=partial)\n"
            "except lidarsim.Error as e:\n"
            "    print('ERROR', type(e).__name__, e); sys.exit(3)\n"
            "np.save(sys.argv[5], np.asarray(p))\n"
            "print('FRAMES', lidarsim.recording_frames(sys.argv[1], metadata=cal, partial=partial))\n")
    r = run([sys.executable, "-c", code, pcap, metadata or "", frame, "1" if partial else "0", out],
            env=python_module_env(CLI), seconds=60)
    if expect_error:
        check(r.returncode == 3 and expect_error in r.stdout, "%s: expected an error with %r, got rc %d: %s %s"
              % (pcap, expect_error, r.returncode, r.stdout, r.stderr[-2000:]))
        return None
    if r.returncode != 0:
        fail("%s frame %d: %s %s" % (pcap, frame, r.stdout, r.stderr[-2000:]))
        return None
    frames = [int(w.split()[1]) for w in r.stdout.splitlines() if w.startswith("FRAMES ")]
    return np.load(out), frames[0]


# ------------------------------------------------------------------ Ouster: an independent decoder

PROFILES = {  # pixel bytes; (offset, struct, mask, scale) of range, reflectivity, signal / returns
    "LEGACY": (12, [((0, "<I", 0xFFFFF, 1), (4, "<H", 0xFFFF, 1), (6, "<H", 0xFFFF, 1))], (8, "<H", 0xFFFF, 1)),
    "RNG15_RFL8_NIR8": (4, [((0, "<H", 0x7FFF, 8), (2, "<B", 0xFF, 1), None)], (3, "<B", 0xFF, 16)),
    "RNG19_RFL8_SIG16_NIR16_DUAL": (16, [((0, "<I", 0x7FFFF, 1), (3, "<B", 0xFF, 1), (8, "<H", 0xFFFF, 1)),
                                         ((4, "<I", 0x7FFFF, 1), (7, "<B", 0xFF, 1), (10, "<H", 0xFFFF, 1))],
                                    (12, "<H", 0xFFFF, 1)),
}


def field(px, f):
    off, fmt, mask, scale = f
    return (struct.unpack_from(fmt, px, off)[0] & mask) * scale


def ouster_frames(pcap, meta):
    """{frame_id: {m: (timestamp, valid, [pixel bytes])}} of the lidar packets."""
    fmt = meta["data_format"]
    profile = fmt.get("udp_profile_lidar", "LEGACY")
    H, C = fmt["pixels_per_column"], fmt["columns_per_packet"]
    pix = PROFILES[profile][0]
    legacy = profile == "LEGACY"
    col = (16 if legacy else 12) + H * pix + (4 if legacy else 0)
    frames = {}
    for p in udp_payloads(pcap, meta.get("udp_port_lidar", 7502)):
        base = 0 if legacy else 32
        fid_packet = None if legacy else struct.unpack_from("<H", p, 2)[0]
        for c in range(C):
            cb = p[base + c * col:base + (c + 1) * col]
            ts, m = struct.unpack_from("<QH", cb, 0)
            if legacy:
                fid = struct.unpack_from("<H", cb, 10)[0]
                valid = struct.unpack_from("<I", cb, col - 4)[0] == 0xFFFFFFFF
                hdr = 16
            else:
                fid, valid, hdr = fid_packet, struct.unpack_from("<H", cb, 10)[0] & 1, 12
            frames.setdefault(fid, {})[m] = (ts, valid, [cb[hdr + i * pix:hdr + (i + 1) * pix] for i in range(H)])
    return frames, profile


def ouster_expected(frame, meta, profile):
    W = int(meta["lidar_mode"].split("x")[0])
    alt, az = meta["beam_altitude_angles"], meta["beam_azimuth_angles"]
    n = meta["lidar_origin_to_beam_origin_mm"]
    M = np.array(meta["lidar_to_sensor_transform"], dtype=float).reshape(4, 4)
    _, returns, nir_f = PROFILES[profile]
    t0 = min(v[0] for v in frame.values())
    rows = []
    for m in sorted(frame):
        ts, valid, pixels = frame[m]
        if not valid:
            continue
        te = 2 * np.pi * (1 - m / W)
        for i, px in enumerate(pixels):
            rs = [field(px, f[0]) for f in returns]
            got = sum(1 for r in rs if r)
            for k, f in enumerate(returns):
                r = rs[k]
                if not r:
                    continue
                th, ph = te - np.radians(az[i]), np.radians(alt[i])
                d = np.array([np.cos(th) * np.cos(ph), np.sin(th) * np.cos(ph), np.sin(ph)])
                q = (r - n) * d + n * np.array([np.cos(te), np.sin(te), 0.0])
                ps = (M[:3, :3] @ q + M[:3, 3]) * 1e-3
                ds = M[:3, :3] @ d
                inten = field(px, f[2]) if f[2] else field(px, nir_f)
                ri = 1 if got == 2 and r > rs[1 - k] else 0
                rows.append((ps[0], ps[1], ps[2], r, n, inten, reflectivity(field(px, f[1])), len(pixels) - 1 - i,
                             np.degrees(np.arctan2(ds[1], ds[0])), np.degrees(np.arcsin(ds[2])), (ts - t0) * 1e-9,
                             ri, got))
    return np.array(rows, dtype=float)


def reflectivity(byte):
    """The reflectivity of a calibrated byte: percent to 100, then logarithmic to 1000 at 255."""
    return byte / 100.0 if byte <= 100 else 10.0 ** (3.0 * (min(byte, 255) - 100) / 155.0)


def angle_diff(a, b):
    return np.abs((a - b + 180.0) % 360.0 - 180.0)


def compare(name, got, exp):
    check(got is not None and len(got) == len(exp), "%s: %s points, the vendor formula gives %d"
          % (name, None if got is None else len(got), len(exp)))
    if got is None or len(got) != len(exp):
        return
    xyz = np.stack([got["x"], got["y"], got["z"]], 1).astype(float)
    err = np.abs(xyz - exp[:, 0:3]).max()
    check(err < 1e-4, "%s: x, y, z differ by up to %.3g m" % (name, err))
    raw = got["range"].astype(float) * 1000.0 + exp[:, 4]
    check(np.array_equal(np.rint(raw), exp[:, 3]) and np.abs(raw - exp[:, 3]).max() < 0.05,
          "%s: ranges not exact: worst %.4f mm off" % (name, np.abs(raw - exp[:, 3]).max()))
    check(np.array_equal(got["intensity"].astype(float), exp[:, 5]), "%s: intensity differs" % name)
    check(np.allclose(got["reflectivity"], exp[:, 6], rtol=1e-6, atol=1e-6), "%s: reflectivity differs" % name)
    check(np.array_equal(got["ring"].astype(float), exp[:, 7]), "%s: ring differs" % name)
    da, de = angle_diff(got["azimuth"], exp[:, 8]).max(), np.abs(got["elevation"] - exp[:, 9]).max()
    check(da < 0.01 and de < 0.01, "%s: beam azimuth off by %.4g deg, elevation %.4g deg" % (name, da, de))
    check(np.abs(got["time"] - exp[:, 10]).max() < 1e-6, "%s: time differs" % name)
    check(np.array_equal(got["return_index"].astype(float), exp[:, 11]) and
          np.array_equal(got["num_returns"].astype(float), exp[:, 12]), "%s: returns differ" % name)
    print("%s: %d points equal the vendor formula (xyz within %.2g m, azimuth %.2g deg)" % (name, len(got), err, da))


def ouster():
    import json
    cases = [("OS-1-128_v2.3.0_1024x10_lb_n3.pcap", "OS-1-128_v2.3.0_1024x10.json", 3),
             ("OS-1-32-G_v2.1.1_1024x10.pcap", "OS-1-32-G_v2.1.1_1024x10.json", 1),
             ("OS-0-32-U1_v2.2.0_1024x10.pcap", "OS-0-32-U1_v2.2.0_1024x10.json", 1)]
    for pcap, js, nframes in cases:
        pcap, js = need(os.path.join(REC, pcap)), need(os.path.join(REC, js))
        meta = json.load(open(js))
        frames, profile = ouster_frames(pcap, meta)
        check(len(frames) == nframes and all(len(f) == 1024 for f in frames.values()),
              "%s: %d frames of %s columns" % (pcap, len(frames), [len(f) for f in frames.values()]))
        for k, fid in enumerate(sorted(frames)):
            got = read_points(pcap, js, k)
            check(got is not None and got[1] == nframes, "%s: lidarsim counts %s frames, there are %d"
                  % (pcap, got and got[1], nframes))
            compare("%s frame %d (%s)" % (os.path.basename(pcap), k, profile), got and got[0],
                    ouster_expected(frames[fid], meta, profile))
        read_points(pcap, js, nframes, expect_error="holds %d complete frames" % nframes)
    # the LEGACY recording with every datagram cut into 1,500-byte IPv4 fragments (last first)
    pcap = os.path.join(REC, "OS-1-32-G_v2.1.1_1024x10.pcap")
    js = os.path.join(REC, "OS-1-32-G_v2.1.1_1024x10.json")
    out = []
    for k, p in enumerate(udp_payloads(pcap, 7502)):
        dg = udp(p, 7502)
        parts = [(o, dg[o:o + 1480]) for o in range(0, len(dg), 1480)]
        for o, part in reversed(parts):
            more = 0x2000 if o + 1480 < len(dg) else 0
            out.append(ipv4(part, ident=k, frag=more | (o // 8)))
    frag = os.path.join(WORK, "fragments.pcap")
    write_pcap(frag, out)
    meta = json.load(open(js))
    frames, profile = ouster_frames(pcap, meta)
    got = read_points(frag, js, 0)
    compare("LEGACY recording in IPv4 fragments", got and got[0],
            ouster_expected(frames[sorted(frames)[0]], meta, profile))
    return frames


# ------------------------------------------------------------------ Velodyne: synthetic streams

def velodyne(name, table_file, product, lasers, banks, firings, slot_s, per_slot, blocks_rule, seq_s, give_table):
    import json
    doc = json.load(open(need(os.path.join(CALIBRATIONS, "velodyne", table_file))))
    t = doc["lasers"]
    # the table's distance unit, else the model's (manuals: 2 mm; VLS-128 4 mm)
    unit = doc.get("distance_resolution") or (0.004 if lasers == 128 else 0.002)
    L = {l["laser_id"]: l for l in t}
    rng = np.random.default_rng(7)
    group_s = seq_s * firings
    groups_per_packet = 12 // banks
    packets, exp = [], []
    az_step = 0.4 * firings if banks == 1 else 0.17
    n_groups = int(np.ceil(360.0 / az_step)) + 3 * groups_per_packet  # one turn, then the next frame begins
    ts_us = 1000
    start = None
    for g0 in range(0, n_groups, groups_per_packet):
        body = b""
        for g in range(g0, g0 + groups_per_packet):
            az = (g * az_step) % 360.0
            a100 = int(round(az * 100)) % 36000
            nxt = int(round(((g + 1) * az_step % 360.0) * 100)) % 36000
            if g == g0 + groups_per_packet - 1:
                prv = int(round(((g - 1) * az_step % 360.0) * 100)) % 36000
                step = ((a100 - prv) % 36000) / 100.0
            else:
                step = ((nxt - a100) % 36000) / 100.0
            t_g = (ts_us + (g - g0) * group_s * 1e6) * 1e-6
            for b in range(banks):
                blk = struct.pack("<HH", [0xEEFF, 0xDDFF, 0xCCFF, 0xBBFF][b], a100)
                for j in range(32):
                    lid = j % 16 if firings == 2 else b * 32 + j
                    fi = j // 16 if firings == 2 else 0
                    raw = int(rng.integers(0, 40000)) if rng.random() > 0.1 else 0
                    refl = int(rng.integers(0, 256))
                    blk += struct.pack("<HB", raw, refl)
                    if g * az_step >= 360.0 or not raw or lid >= lasers:
                        continue
                    slot = lid % (lasers // per_slot) if blocks_rule == 2 else lid // per_slot
                    tf = fi * seq_s + slot * slot_s
                    rot = a100 / 100.0 + step * tf / group_s
                    l = L[lid]
                    phi = l["rot_correction"] - np.radians(rot)
                    v, d = l["vert_correction"], raw * unit
                    xy = d * np.cos(v) - l["vert_offset_correction"] * np.sin(v)
                    h = l["horiz_offset_correction"]
                    if start is None:
                        start = t_g
                    exp.append((xy * np.cos(phi) - h * np.sin(phi), xy * np.sin(phi) + h * np.cos(phi),
                                d * np.sin(v) + l["vert_offset_correction"] * np.cos(v), d, refl, lid,
                                (np.degrees(phi) + 180.0) % 360.0 - 180.0, np.degrees(v), t_g + tf - start))
                body += blk
        body += struct.pack("<IBB", ts_us, 0x37, product)
        packets.append(ipv4(udp(body, 2368, 2368)))
        ts_us += int(round(groups_per_packet * group_s * 1e6))
    path = os.path.join(WORK, name + ".pcap")
    write_pcap(path, packets)
    table = os.path.join(CALIBRATIONS, "velodyne", table_file) if give_table else None
    got = read_points(path, table, 0)
    # one whole turn, then the start of the next (incomplete: not counted; with partial, 2 frames)
    check(got is not None and got[1] == 1, "%s: %s frames counted, 1 expected" % (name, got and got[1]))
    got = got and got[0]
    tail = read_points(path, table, 1, partial=True)
    check(tail is not None and tail[1] == 2 and 0 < len(tail[0]) < len(exp) / 10,
          "%s: with partial frames, %s frames and %s points in the second" % (name, tail and tail[1],
                                                                              tail and len(tail[0])))
    exp = np.array(exp)
    check(got is not None and len(got) == len(exp),
          "%s: %s points, expected %d" % (name, None if got is None else len(got), len(exp)))
    if got is None or len(got) != len(exp):
        return
    # the reader orders points by firing (bank, channel); so does exp
    xyz = np.stack([got["x"], got["y"], got["z"]], 1).astype(float)
    err = np.abs(xyz - exp[:, 0:3]).max()
    check(err < 1e-4, "%s: x, y, z off by %.3g m" % (name, err))
    check(np.all(np.abs(got["range"] - exp[:, 3]) <= 1.2e-7 * exp[:, 3] + 1e-6), "%s: range differs beyond float32's "
          "precision" % name)
    check(np.array_equal(got["intensity"].astype(float), exp[:, 4]), "%s: intensity differs" % name)
    order = sorted(range(lasers), key=lambda i: (L[i]["vert_correction"], i))
    ring_of = {lid: k for k, lid in enumerate(order)}
    check(np.array_equal(got["ring"], [ring_of[int(i)] for i in exp[:, 5]]), "%s: ring differs" % name)
    da = angle_diff(got["azimuth"], exp[:, 6]).max()
    check(da < 0.01 and np.abs(got["elevation"] - exp[:, 7]).max() < 0.01, "%s: angles off by %.3g deg" % (name, da))
    dt = np.abs(got["time"] - exp[:, 8]).max()
    check(dt < 1e-6, "%s: time differs by %.3g s" % (name, dt))
    print("%s: %d points equal rawdata.cc's formula (xyz within %.2g m)" % (name, len(got), err))
    return path


# ------------------------------------------------------------------ bad, truncated, hostile

def render_fails(path, metadata, words, name):
    png = os.path.join(WORK, "bad.png")
    if os.path.exists(png):
        os.remove(png)
    r = lidarsim("render", path, "-o", png, *(["--metadata", metadata] if metadata else []))
    ok = r.returncode == 1 and all(w in r.stderr for w in words) and not os.path.exists(png)
    check(ok, "%s: rc %d, expected 1 and %s in: %s" % (name, r.returncode, words, r.stderr.strip()[-1500:]))
    if ok:
        print("%s: %s" % (name, r.stderr.strip()[:220]))


def hostile(vlp16):
    js = os.path.join(REC, "OS-1-32-G_v2.1.1_1024x10.json")
    good = os.path.join(REC, "OS-1-32-G_v2.1.1_1024x10.pcap")
    data = read_bytes(good)

    def put(name, b):
        return write(os.path.join(WORK, name), b)

    render_fails(put("magic.pcap", b"\x00" * 100), js, ["magic.pcap", "not a capture file"], "wrong magic")
    render_fails(put("short.pcap", data[:10]), js, ["short.pcap", "not a capture file"], "truncated global header")
    render_fails(put("cut.pcap", data[:24 + 16 + 3000]), js, ["cut.pcap", "cut short"], "truncated record")
    big = bytearray(data)
    struct.pack_into("<I", big, 24 + 8, 0xFFFFFFF0)
    render_fails(put("huge.pcap", bytes(big)), js, ["huge.pcap", "record"], "huge caplen")
    snap = bytearray(data)
    struct.pack_into("<I", snap, 16, 100)  # snaplen 100, yet 6,506-byte records
    render_fails(put("snaplen.pcap", bytes(snap)), js, ["snaplen.pcap"], "caplen > snaplen")
    arp = [b"\xff" * 6 + b"\x02" * 6 + b"\x08\x06" + b"\x00" * 28 for _ in range(5)]
    p = os.path.join(WORK, "arp.pcap")
    write_pcap(p, arp)
    render_fails(p, js, ["arp.pcap", "no Ouster lidar packets", "5 records, 0 UDP"], "non-UDP")
    overlap = [ipv4(udp(b"\x00" * 2000, 7502)[:1480], ident=9, frag=0x2000),
               ipv4(udp(b"\x00" * 2000, 7502)[8:1488], ident=9, frag=0x2000 | 1)]
    p = os.path.join(WORK, "overlap.pcap")
    write_pcap(p, overlap)
    render_fails(p, js, ["overlap.pcap", "record 2", "overlaps"], "overlapping IPv4 fragments")
    render_fails(good, os.path.join(REC, "OS-1-128_v2.3.0_1024x10.json"),
                 ["record 1", "6464-byte packet", "RNG15_RFL8_NIR8", "8448 bytes", "not of the unit"],
                 "metadata of another unit (channels, profile)")
    import json
    meta = json.load(open(js))
    meta["lidar_mode"] = "512x20"
    meta["data_format"]["columns_per_frame"] = 512
    meta["data_format"]["column_window"] = [0, 511]
    m512 = os.path.join(WORK, "m512.json")
    json.dump(meta, open(m512, "w"))
    render_fails(good, m512, ["measurement_id 512", "512 columns"], "metadata of another unit (columns)")
    bad_mid = bytearray(data)
    struct.pack_into("<H", bad_mid, 24 + 16 + 42 + 8, 60000)  # first column's measurement_id
    render_fails(put("mid.pcap", bytes(bad_mid)), js, ["mid.pcap", "record 1", "measurement_id 60000"],
                 "out-of-range measurement id")
    render_fails(good, None, ["no Velodyne data packets", "--metadata"], "an Ouster recording without metadata")
    if vlp16:
        v = bytearray(read_bytes(vlp16))
        struct.pack_into("<H", v, 24 + 16 + 42 + 2, 36001)
        render_fails(put("vaz.pcap", bytes(v)), None, ["vaz.pcap", "azimuth 36001"], "out-of-range Velodyne azimuth")
        v = bytearray(read_bytes(vlp16))
        v[24 + 16 + 42 + 1205] = 0x77
        render_fails(put("vprod.pcap", bytes(v)), None, ["vprod.pcap", "product id 0x77", "--metadata"],
                     "unknown Velodyne product")
    copy = os.path.join(WORK, "recording.csv")
    shutil.copy(good, copy)
    render_fails(copy, None, ["recording.csv", "pcap recording", "--metadata"], "lsim_points_read on a pcap")
    fifo = os.path.join(WORK, "fifo.pcap")
    if os.path.exists(fifo):
        os.remove(fifo)
    os.mkfifo(fifo)
    render_fails(fifo, js, ["fifo.pcap"], "a FIFO")
    render_fails("/dev/zero", js, ["/dev/zero"], "/dev/zero")


def main():
    ouster()
    # VLP-16 (63-9243): 2.304 us a laser, 55.296 us a sequence, two sequences a block; by product id
    vlp16 = velodyne("vlp16", "VLP16db.json", 0x22, 16, 1, 2, 2.304e-6, 1, 1, 55.296e-6, False)
    # HDL-64E S2 (63-HDL64ES2): upper and lower blocks fire together, 1.5 us a slot, 48 us a sequence
    velodyne("hdl64e", "64e_s2.1-sztaki.json", 0, 64, 2, 1, 1.5e-6, 2, 2, 48e-6, True)
    # HDL-32E (63-9113): 1.152 us a laser, 46.08 us a sequence; VLS-128 (63-9480): groups of 8
    # lasers every 2.665 us, 53.3 us a sequence, four banks (0xEEFF, 0xDDFF, 0xCCFF, 0xBBFF) a firing
    velodyne("hdl32e", "32db.json", 0x21, 32, 1, 1, 1.152e-6, 1, 1, 46.08e-6, True)
    velodyne("vls128", "VLS128.json", 0xA1, 128, 4, 1, 2.665e-6, 8, 1, 53.3e-6, True)
    hostile(vlp16)
    finish("test_pcap_read", "OK")


if __name__ == "__main__":
    main()
