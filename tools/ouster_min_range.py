#!/usr/bin/python3
"""Prints the smallest non-zero ranges an Ouster recording holds (the unit's real minimum range).

usage: tools/ouster_min_range.py PCAP [PROFILE]   (PROFILE: DUAL for RNG19_RFL8_SIG16_NIR16_DUAL,
                                                  the OS-0-32-U1 recording's; LEGACY)

Reads the classic libpcap file (Ethernet, IPv4, UDP), takes the lidar packets (port 7502) and,
per Ouster's sensor manual ("Lidar data format"): DUAL packets are a 32-byte header, 16 columns of
a 12-byte column header and 16 bytes per pixel (range 19 bits, then the second return's 19-bit
range in the next 32-bit word), a 32-byte footer; LEGACY packets are 16 columns of a 16-byte
header, 12 bytes per pixel (range: the low 20 bits of the first word) and a 4-byte status.
Ranges are millimetres from the lidar origin (lidar_origin_to_beam_origin_mm included).
"""
import struct
import sys


def udp_payloads(path):
    with open(path, "rb") as f:
        b = f.read()
    if struct.unpack("<I", b[:4])[0] != 0xA1B2C3D4:
        sys.exit("%s: not a little-endian microsecond libpcap file" % path)
    off = 24
    while off + 16 <= len(b):
        incl = struct.unpack("<I", b[off + 8:off + 12])[0]
        d = b[off + 16:off + 16 + incl]
        off += 16 + incl
        ihl = (d[14] & 15) * 4
        udp = d[14 + ihl:]
        yield struct.unpack(">H", udp[2:4])[0], udp[8:]


def ranges(path, profile, pixels):
    for port, p in udp_payloads(path):
        if port != 7502:
            continue
        for c in range(16):
            if profile == "DUAL":
                base = 32 + c * (12 + pixels * 16) + 12
                for i in range(pixels):
                    w0, w1 = struct.unpack("<II", p[base + 16 * i:base + 16 * i + 8])
                    yield w0 & 0x7FFFF
                    yield w1 & 0x7FFFF
            else:
                base = c * (16 + pixels * 12 + 4) + 16
                for i in range(pixels):
                    yield struct.unpack("<I", p[base + 12 * i:base + 12 * i + 4])[0] & 0xFFFFF


def main():
    path = sys.argv[1]
    profile = sys.argv[2] if len(sys.argv) > 2 else "DUAL"
    pixels = int(sys.argv[3]) if len(sys.argv) > 3 else 32
    r = sorted(v for v in ranges(path, profile, pixels) if v > 0)
    print("%s: %d non-zero ranges; smallest %s mm; 0.1 %% quantile %d mm" %
          (path, len(r), r[:10], r[len(r) // 1000]))


if __name__ == "__main__":
    main()
