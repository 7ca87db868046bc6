"""Readers for tests/test_las_mcap.py, written from the specifications: ASPRS LAS 1.4 R15 (point
data record format 6 with extra bytes) and MCAP (https://mcap.dev/spec) with ROS 2 CDR (XCDR1
little-endian). A reader's failed checks are cli_check's (printed at once, counted by finish())."""
import struct
import zlib

import numpy as np
from cli_check import check, read_bytes

# docs/points.md "LAS": SemanticKITTI id -> ASPRS class; others 1.
ASPRS = {0: 0, 1: 7, 40: 11, 60: 11, 44: 2, 48: 2, 49: 2, 72: 2, 50: 6, 70: 5, 71: 5}


# ------------------------------------------------------------------ LAS, from the specification

def read_las(path):
    """ASPRS LAS 1.4 R15, point data record format 6 with extra bytes: (header dict, vlrs, records)."""
    data = read_bytes(path)
    h = {}
    h["signature"] = data[0:4]
    h["global_encoding"], = struct.unpack_from("<H", data, 6)
    h["version"] = (data[24], data[25])
    h["header_size"], h["data_offset"], h["vlr_count"] = struct.unpack_from("<HII", data, 94)
    h["pdrf"] = data[104]
    h["record_length"], h["legacy_count"] = struct.unpack_from("<HI", data, 105)
    h["legacy_by_return"] = struct.unpack_from("<5I", data, 111)
    h["scale"] = struct.unpack_from("<3d", data, 131)
    h["offset"] = struct.unpack_from("<3d", data, 155)
    mx, mnx, my, mny, mz, mnz = struct.unpack_from("<6d", data, 179)
    h["max"], h["min"] = (mx, my, mz), (mnx, mny, mnz)
    h["waveform"], h["evlr_start"], h["evlr_count"], h["count"] = struct.unpack_from("<QQIQ", data, 227)
    h["by_return"] = struct.unpack_from("<15Q", data, 255)
    vlrs, pos = [], h["header_size"]
    for _ in range(h["vlr_count"]):
        user = data[pos + 2:pos + 18].rstrip(b"\0").decode()
        rid, length = struct.unpack_from("<HH", data, pos + 18)
        vlrs.append((user, rid, data[pos + 54:pos + 54 + length]))
        pos += 54 + length
    h["vlr_end"] = pos
    extra = []  # (name, numpy type) from the Extra Bytes descriptors (192 bytes each)
    eb_types = {1: "u1", 2: "i1", 3: "<u2", 4: "<i2", 5: "<u4", 6: "<i4", 7: "<u8", 8: "<i8", 9: "<f4", 10: "<f8"}
    for user, rid, body in vlrs:
        if user == "LASF_Spec" and rid == 4:
            for k in range(len(body) // 192):
                d = body[192 * k:192 * (k + 1)]
                extra.append((d[4:36].rstrip(b"\0").decode(), eb_types[d[2]], d[3], d[160:192].rstrip(b"\0").decode()))
    dtype = np.dtype([("X", "<i4"), ("Y", "<i4"), ("Z", "<i4"), ("intensity", "<u2"), ("returns", "u1"),
                      ("flags", "u1"), ("classification", "u1"), ("user", "u1"), ("scan_angle", "<i2"),
                      ("source", "<u2"), ("gps_time", "<f8")] + [(n, t) for n, t, _, _ in extra])
    check(dtype.itemsize == h["record_length"], "LAS %s: record length %d, the format and extra bytes give %d"
          % (path, h["record_length"], dtype.itemsize))
    recs = np.frombuffer(data, dtype=dtype, count=h["count"], offset=h["data_offset"])
    check(h["data_offset"] + h["count"] * h["record_length"] == len(data), "LAS %s: %d bytes, header says %d"
          % (path, len(data), h["data_offset"] + h["count"] * h["record_length"]))
    return h, extra, recs


def check_las(path, want, scan_time, extra_names, where):
    h, extra, recs = read_las(path)
    n = len(want["x"])
    check(h["signature"] == b"LASF" and h["version"] == (1, 4) and h["header_size"] == 375,
          where + ": signature/version/header size %s %s %d" % (h["signature"], h["version"], h["header_size"]))
    check(h["pdrf"] == 6 and h["global_encoding"] & 0x10, where + ": PDRF %d, global encoding 0x%x (WKT bit)"
          % (h["pdrf"], h["global_encoding"]))
    check(h["legacy_count"] == 0 and not any(h["legacy_by_return"]), where + ": legacy counts must be 0 for PDRF 6")
    check(h["count"] == n and n > 1000, where + ": %d points, the CSV has %d" % (h["count"], n))
    check(h["scale"] == (0.0001,) * 3, where + ": scale %s" % (h["scale"],))
    check(h["evlr_count"] == 0 and h["data_offset"] == h["vlr_end"], where + ": EVLRs / data offset")
    check([e[0] for e in extra] == extra_names, where + ": extra bytes %s, want %s" % ([e[0] for e in extra], extra_names))
    check(all(e[2] == 0 and e[3] for e in extra), where + ": extra bytes options 0 and a description")
    xyz = []
    for k, axis in enumerate("xyz"):
        got = recs["XYZ"[k]].astype(np.float64) * h["scale"][k] + h["offset"][k]
        xyz.append(got)
        err = np.max(np.abs(got - want[axis].astype(np.float64)))
        check(err <= 0.5e-4 + 1e-9, where + ": %s differs from the CSV by %.3g m (> half the scale)" % (axis, err))
        check(h["min"][k] == got.min() and h["max"][k] == got.max(), where + ": header bounds of %s [%r, %r], data "
              "[%r, %r]" % (axis, h["min"][k], h["max"][k], got.min(), got.max()))
    if "reflectivity" in want:
        inten = np.round(np.clip(want["reflectivity"].astype(np.float64), 0, 1) * 65535).astype(np.uint16)
        check(np.array_equal(recs["intensity"], inten), where + ": intensity != round(65535 clamp(reflectivity))")
    rn, nr = recs["returns"] & 15, recs["returns"] >> 4
    if "return_index" in want:
        want_rn = np.minimum(want["return_index"].astype(int) + 1, 15)
        want_nr = np.maximum(np.minimum(want["num_returns"].astype(int), 15), want_rn)
        check(np.array_equal(rn, want_rn) and np.array_equal(nr, want_nr), where + ": return numbers")
        counts = [int(np.sum(rn == r + 1)) for r in range(15)]
        check(list(h["by_return"]) == counts, where + ": points by return %s, data %s" % (h["by_return"], counts))
    if "time" in want:
        gps = scan_time + want["time"].astype(np.float64)
        check(np.max(np.abs(recs["gps_time"] - gps)) < 1e-9, where + ": GPS time != scan time + time")
    if "label" in want:
        cls = np.array([ASPRS.get(int(v), 1) for v in want["label"]], dtype=np.uint8)
        check(np.array_equal(recs["classification"], cls), where + ": ASPRS classification")
        check({2, 5, 6, 11} <= set(np.unique(recs["classification"]).tolist()), where + ": street classes "
              "ground, high vegetation, building, road surface expected; got %s" % np.unique(recs["classification"]))
    if "elevation" in want:
        ang = np.clip(np.round(want["elevation"].astype(np.float64) / 0.006), -30000, 30000).astype(np.int16)
        check(np.array_equal(recs["scan_angle"], ang), where + ": scan angle != elevation / 0.006")
    for name in extra_names:
        check(np.array_equal(recs[name], want[name]), where + ": extra bytes '%s' differ from the CSV" % name)
    return h, xyz


# ------------------------------------------------------------------ MCAP and CDR, from the specifications

MAGIC = b"\x89MCAP0\r\n"


class Reader:
    def __init__(self, data, pos=0):
        self.d, self.p = data, pos

    def take(self, fmt):
        v = struct.unpack_from("<" + fmt, self.d, self.p)
        self.p += struct.calcsize("<" + fmt)
        return v if len(v) > 1 else v[0]

    def bytes_(self, n):
        v = self.d[self.p:self.p + n]
        self.p += n
        return v

    def string(self):
        return self.bytes_(self.take("I")).decode()


def read_mcap(path):
    data = read_bytes(path)
    check(data[:8] == MAGIC and data[-8:] == MAGIC, "MCAP %s: magic at both ends" % path)
    records, pos, end = [], 8, len(data) - 8
    while pos < end:
        op, length = struct.unpack_from("<BQ", data, pos)
        records.append((pos, op, data[pos + 9:pos + 9 + length]))
        pos += 9 + length
    check(pos == end, "MCAP %s: records run to %d, the closing magic is at %d" % (path, pos, end))
    return data, records


def parse_mcap(path):
    data, records = read_mcap(path)
    out = {"schemas": {}, "channels": {}, "messages": [], "stats": None, "offsets": [], "summary": [], "chunks": [],
           "chunk_indexes": []}
    index_records = {}  # position of each Message Index record: (channel, [(log time, offset)], record bytes)
    ops = [op for _, op, _ in records]
    check(ops[0] == 0x01 and ops[-1] == 0x02, "MCAP: first record Header, last Footer; got %s" % ops)
    data_end = ops.index(0x0F) if 0x0F in ops else -1
    check(data_end > 0, "MCAP: a Data End record")
    foot = Reader(records[-1][2])
    summary_start, summary_offset_start, summary_crc = foot.take("Q"), foot.take("Q"), foot.take("I")
    check(summary_start == records[data_end + 1][0], "MCAP: footer summary_start %d, first summary record at %d"
          % (summary_start, records[data_end + 1][0]))
    first_offset = [pos for pos, op, _ in records if op == 0x0E]
    check(first_offset and summary_offset_start == first_offset[0], "MCAP: footer summary_offset_start")
    footer_pos = records[-1][0]
    crc = zlib.crc32(data[summary_start:footer_pos + 9 + 16])
    check(summary_crc == crc, "MCAP: summary CRC 0x%08x, computed 0x%08x" % (summary_crc, crc))
    for i, (pos, op, body) in enumerate(records):
        r = Reader(body)
        in_summary = i > data_end
        if op == 0x01:
            out["profile"], out["library"] = r.string(), r.string()
        elif op == 0x03:
            sid, name, enc = r.take("H"), r.string(), r.string()
            text = r.bytes_(r.take("I")).decode()
            (out["summary"] if in_summary else [None]).append(("schema", sid))
            if not in_summary:
                out["schemas"][sid] = (name, enc, text)
            else:
                check(out["schemas"].get(sid) == (name, enc, text), "MCAP: summary schema %d differs" % sid)
        elif op == 0x04:
            cid, sid, topic, enc = r.take("H"), r.take("H"), r.string(), r.string()
            meta_len = r.take("I")
            r.bytes_(meta_len)
            if not in_summary:
                out["channels"][cid] = (sid, topic, enc)
            else:
                out["summary"].append(("channel", cid))
                check(out["channels"].get(cid) == (sid, topic, enc), "MCAP: summary channel %d differs" % cid)
        elif op == 0x05:
            check(False, "MCAP: a message outside the chunks (at %d)" % pos)
        elif op == 0x06:  # Chunk: its records are parsed as records of their own
            check(not in_summary, "MCAP: a chunk in the summary")
            start, end, usize, ucrc = r.take("Q"), r.take("Q"), r.take("Q"), r.take("I")
            compression = r.string()
            records_len = r.take("Q")
            inner = r.bytes_(records_len)
            check(compression == "" and usize == records_len == len(inner) and r.p == len(body),
                  "MCAP chunk at %d: compression %r, uncompressed_size %d, records %d bytes" % (pos, compression, usize,
                                                                                              len(inner)))
            check(ucrc == 0 or ucrc == zlib.crc32(inner), "MCAP chunk at %d: uncompressed_crc" % pos)
            chunk = {"pos": pos, "length": 9 + len(body), "start": start, "end": end, "size": len(inner),
                     "messages": {}}
            q = 0
            while q < len(inner):
                iop, ilen = struct.unpack_from("<BQ", inner, q)
                check(iop == 0x05, "MCAP chunk at %d: record 0x%02x inside, only messages expected" % (pos, iop))
                m = Reader(inner[q + 9:q + 9 + ilen])
                cid, seq, log, pub = m.take("H"), m.take("I"), m.take("Q"), m.take("Q")
                out["messages"].append((cid, seq, log, pub, inner[q + 9 + m.p:q + 9 + ilen]))
                check(start <= log <= end, "MCAP chunk at %d: message time %d outside [%d, %d]" % (pos, log, start, end))
                chunk["messages"].setdefault(cid, []).append((log, q))
                q += 9 + ilen
            check(q == len(inner), "MCAP chunk at %d: records run past its end" % pos)
            out["chunks"].append(chunk)
        elif op == 0x07:  # Message Index: after its chunk, one per channel
            cid, n = r.take("H"), r.take("I")
            entries = [struct.unpack_from("<QQ", body, r.p + 16 * k) for k in range(n // 16)]
            index_records[pos] = (cid, entries, 9 + len(body))
            check(out["chunks"] and sorted(out["chunks"][-1]["messages"].get(cid, [])) == sorted(entries),
                  "MCAP message index at %d: channel %d lists %s, its chunk holds %s" %
                  (pos, cid, entries, out["chunks"][-1]["messages"].get(cid) if out["chunks"] else None))
        elif op == 0x08:  # Chunk Index, in the summary
            ci = {"start": r.take("Q"), "end": r.take("Q"), "offset": r.take("Q"), "length": r.take("Q")}
            n = r.take("I")
            ci["indexes"] = dict(struct.unpack_from("<HQ", body, r.p + 10 * k) for k in range(n // 10))
            r.p += n
            ci["index_length"], ci["compression"] = r.take("Q"), r.string()
            ci["compressed"], ci["uncompressed"] = r.take("Q"), r.take("Q")
            out["chunk_indexes"].append(ci)
        elif op == 0x0B:
            st = {}
            st["message_count"], st["schema_count"], st["channel_count"] = r.take("Q"), r.take("H"), r.take("I")
            st["attachment_count"], st["metadata_count"], st["chunk_count"] = r.take("I"), r.take("I"), r.take("I")
            st["start"], st["end"] = r.take("Q"), r.take("Q")
            n = r.take("I")
            st["per_channel"] = dict(struct.unpack_from("<HQ", body, r.p + 10 * k) for k in range(n // 10))
            out["stats"] = st
        elif op == 0x0E:
            out["offsets"].append((r.take("B"), r.take("Q"), r.take("Q")))
        elif op == 0x0F:
            out["data_crc"] = r.take("I")  # from the leading magic to the Data End (as @mcap/core's writer)
            check(out["data_crc"] == zlib.crc32(data[:pos]), "MCAP: data section CRC 0x%08x, computed 0x%08x"
                  % (out["data_crc"], zlib.crc32(data[:pos])))
    check(len(out["chunk_indexes"]) == len(out["chunks"]), "MCAP: %d chunk indexes for %d chunks"
          % (len(out["chunk_indexes"]), len(out["chunks"])))
    for ci, chunk in zip(out["chunk_indexes"], out["chunks"]):
        check(ci["offset"] == chunk["pos"] and ci["length"] == chunk["length"] and ci["start"] == chunk["start"]
              and ci["end"] == chunk["end"] and ci["compression"] == "" and ci["compressed"] == ci["uncompressed"]
              == chunk["size"], "MCAP chunk index %s, the chunk is %s" % (ci, {k: chunk[k] for k in
                                                                               ("pos", "length", "start", "end", "size")}))
        listed = {cid: index_records.get(at, (None,))[0] for cid, at in ci["indexes"].items()}
        check(sorted(ci["indexes"]) == sorted(chunk["messages"]) and all(listed[c] == c for c in listed) and
              ci["index_length"] == sum(index_records[at][2] for at in ci["indexes"].values() if at in index_records)
              and min(ci["indexes"].values()) == chunk["pos"] + chunk["length"],
              "MCAP chunk index at %d: message indexes %s" % (ci["offset"], ci["indexes"]))
    for group_op, start, length in out["offsets"]:
        group = [op for pos, op, body in records if start <= pos < start + length]
        check(group and set(group) == {group_op} and sum(9 + len(b) for p, o, b in records if start <= p < start + length)
              == length, "MCAP: summary offset group 0x%02x [%d, +%d]" % (group_op, start, length))
    return out


class Cdr(Reader):
    """XCDR1 little-endian: alignment counted from after the 4-byte encapsulation header."""

    def __init__(self, data):
        check(data[:4] == b"\x00\x01\x00\x00", "CDR: encapsulation header %s, want 00 01 00 00 (CDR_LE)" % data[:4].hex())
        super().__init__(data, 4)

    def align(self, n):
        self.p += (-(self.p - 4)) % n

    def take(self, fmt):
        self.align(struct.calcsize("<" + fmt[0]))
        return super().take(fmt)

    def string(self):
        n = self.take("I")
        s = self.bytes_(n)
        check(s.endswith(b"\0"), "CDR: string without its NUL")
        return s[:-1].decode()


def decode_pointcloud2(data):
    c = Cdr(data)
    msg = {"sec": c.take("i"), "nanosec": c.take("I"), "frame_id": c.string(), "height": c.take("I"),
           "width": c.take("I"), "fields": []}
    for _ in range(c.take("I")):
        msg["fields"].append((c.string(), c.take("I"), c.take("B"), c.take("I")))
    msg["is_bigendian"], msg["point_step"], msg["row_step"] = c.take("B"), c.take("I"), c.take("I")
    n = c.take("I")
    msg["data"] = c.bytes_(n)
    msg["is_dense"] = c.take("B")
    check(c.p == len(data), "CDR PointCloud2: %d bytes left over" % (len(data) - c.p))
    types = {7: "<f4", 4: "<u2", 6: "<u4"}
    dtype = np.dtype({"names": [f[0] for f in msg["fields"]], "formats": [types[f[2]] for f in msg["fields"]],
                      "offsets": [f[1] for f in msg["fields"]], "itemsize": msg["point_step"]})
    msg["points"] = np.frombuffer(msg["data"], dtype=dtype, count=msg["width"])
    return msg


def decode_tf(data):
    c = Cdr(data)
    out = []
    for _ in range(c.take("I")):
        sec, nanosec, parent, child = c.take("i"), c.take("I"), c.string(), c.string()
        t = [c.take("d") for _ in range(3)]
        q = [c.take("d") for _ in range(4)]  # x y z w
        out.append((sec, nanosec, parent, child, t, q))
    check(c.p == len(data), "CDR TFMessage: bytes left over")
    return out
