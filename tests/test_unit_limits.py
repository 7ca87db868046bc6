#!/usr/bin/python3
"""Real units' calibration files (`lidarsim presets FILE`, `sensor: {calibration: FILE}`) are read
with bounded memory and time whatever they hold, and their format is told by structure.

usage: test_unit_limits.py LIDARSIM_BINARY WORK_DIR

Each hostile file is generated here (none is committed: some are 16 MiB), given to
`lidarsim presets FILE`, and must be refused (exit 1) with a message naming the file, the line and
the limit, by a child whose peak memory (ru_maxrss) stays under the bound docs/robustness.md
section documents for the calibration readers. Time limits only catch hangs (300 s each); no
speed is asserted. Before the fix:
- VeloView XML with an internal entity referenced 20,000 times: expanded (~2 GB, 56 s);
- 16 MiB of `<a/>`: 4 M elements built as a tree; an external DTD was accepted;
- ROS YAML: 50,000 nested `[` (22 s, no depth limit), a list of 8 M zeros (1.3 GB before
  'must be 1..128'), lasers aliasing one mapping of 200,000 keys (no limit per mapping);
- JSON: `{"lasers": [0, 0, ...]}` of 16 MiB built 8 M json-c values (~700 MB);
- an Ouster JSON holding the text "lasers" was read as a Velodyne table.
The bound is checked on the Release build; under AddressSanitizer (shadow memory, quarantine) the
refusals are checked with a looser bound. Standard library only. Exits 1 with one line per failure.
"""
import json
import os
import subprocess
import time

from cli_check import binary_and_work, built_with_asan, check, finish
from timeouts import limit

BINARY, WORK = binary_and_work(fresh=True)
SIXTEEN_MIB = 16 << 20
# docs/robustness.md: a calibration file of up to 16 MiB takes at most 160 MB (peak RSS of
# `lidarsim presets FILE`, the program's own ~10 MB included).
BOUND_MB = 160
LIMIT_MB = BOUND_MB * 2 if built_with_asan(BINARY) else BOUND_MB  # ASan: 139 MB at most measured


def presets(path):
    """Exit code, stdout+stderr, peak RSS (MB) and seconds of `lidarsim presets PATH`."""
    t0 = time.monotonic()
    with open(os.path.join(WORK, "out.txt"), "w+b") as log:
        p = subprocess.Popen([BINARY, "presets", path], cwd=WORK, stdout=log, stderr=subprocess.STDOUT)
        while True:  # wait4 gives this child's own peak memory
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - t0 > limit(300):  # a hang, not a speed check (tests/timeouts.py)
                p.kill()
            time.sleep(0.02)
        p.returncode = os.waitstatus_to_exitcode(status)
        log.seek(0)
        out = log.read().decode("utf-8", "replace")
    return p.returncode, out, usage.ru_maxrss / 1024.0, time.monotonic() - t0


def write(name, head, unit="", count=0, tail=""):
    """head, `unit` `count` times, tail; written in pieces so that this process stays small (a child
    starts with its parent's resident memory in its ru_maxrss)."""
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(head)
        block = 1 << 16
        for done in range(0, count, block):
            f.write(unit * min(block, count - done))
        f.write(tail)
    return path


def refused(name, wants, *parts):
    path = write(name, *parts)
    code, out, rss, secs = presets(path)
    print("%-24s %6.1f MiB: exit %d, %.1f MB peak, %.1f s: %s" % (
        name, os.path.getsize(path) / 2**20, code, rss, secs, out.strip().splitlines()[0][:150] if out else ""))
    check(code == 1, "%s: exit %d, expected 1 (refused): %s" % (name, code, out[-300:]))
    for w in [name] + wants:
        check(w in out, "%s: message lacks %r: %s" % (name, w, out.strip()[:400]))
    check(rss < LIMIT_MB, "%s: %.0f MB peak memory, the documented bound is %d MB" % (name, rss, LIMIT_MB))
    os.remove(path)


def vlp16_lasers():
    return [{"laser_id": i, "vert_correction": round((-15 + 2 * ((i // 2) if i % 2 == 0 else 8 + i // 2)) * 0.0174533, 6)}
            for i in range(16)]


XML_TAIL = "</points_></DB></boost_serialization>\n"


def xml_head(doctype=""):
    return '<?xml version="1.0"?>\n%s<boost_serialization><DB><distLSB_>0.2</distLSB_><points_>\n' % doctype


def xml_file(body_px, doctype=""):
    return xml_head(doctype) + body_px + XML_TAIL


def px(i, vert):
    return ("<item><px><id_>%d</id_><rotCorrection_>0</rotCorrection_><vertCorrection_>%s</vertCorrection_>"
            "</px></item>\n" % (i, vert))


LASERS = vlp16_lasers()
GOOD_PX = "".join(px(l["laser_id"], "%.4f" % (l["vert_correction"] / 0.0174533)) for l in LASERS)

# ---- what must still be read ---------------------------------------------------------------------
code, out, rss, _ = presets(write("bare_doctype.xml", xml_file(GOOD_PX, "<!DOCTYPE boost_serialization>\n")))
print("a VeloView XML of 16 lasers: %.1f MB peak" % rss)
check(code == 0 and "vlp16:bare_doctype.xml" in out,
      "VeloView XML with a bare <!DOCTYPE boost_serialization> (as VeloView writes it): exit %d: %s" % (code, out[:300]))
OUSTER = {"beam_altitude_angles": [1.0, 0.0], "beam_azimuth_angles": [0.0, 0.0], "lidar_mode": "1024x10",
          "prod_line": "OS-1-64", "notes": "lasers", "user_data": {"lasers": 64}}
code, out, rss, _ = presets(write("ouster_lasers.json", json.dumps(OUSTER)))
check(code == 0 and "ouster:ouster_lasers.json" in out,
      "Ouster metadata with the text 'lasers' in a value: read as %s (exit %d)" % (out.strip()[:300], code))
OUSTER["lasers"] = "none"
code, out, rss, _ = presets(write("ouster_both.json", json.dumps(OUSTER)))
check(code == 1 and "both" in out and "ouster_both.json" in out,
      "a JSON with both a top-level 'lasers' and beam_altitude_angles: exit %d: %s" % (code, out.strip()[:300]))
code, out, rss, _ = presets(write("ros_comment.yaml", "# lasers: []\nhello: world\n"))
check(code == 1 and "not a sensor calibration" in out,
      "YAML with 'lasers' only in a comment: exit %d: %s" % (code, out.strip()[:300]))
print("bare DOCTYPE read; formats told by keys, not by text")

# ---- VeloView XML: DTDs, entities, node count, depth ---------------------------------------------
entity = "<!DOCTYPE boost_serialization [\n<!ENTITY e \"%s\">\n]>\n" % ("1" * 3000)
refused("entity.xml", ["entity.xml:2:", "DTD", "entities"], xml_file(px(0, "&e;" * 20000) + GOOD_PX, entity))
laughs = "<!DOCTYPE boost_serialization [\n<!ENTITY a0 \"0000000000\">\n%s]>\n" % "".join(
    "<!ENTITY a%d \"%s\">\n" % (k, ("&a%d;" % (k - 1)) * 10) for k in range(1, 10))
refused("laughs.xml", ["laughs.xml:2:", "DTD"], xml_file(px(0, "&a9;") + GOOD_PX, laughs))
refused("external.xml", ["external.xml:2:", "DTD"],
        xml_file(GOOD_PX, '<!DOCTYPE boost_serialization SYSTEM "file:///etc/passwd">\n'))
refused("reference.xml", ["not valid XML"], xml_file(px(0, "&e;") + GOOD_PX))
refused("elements.xml", ["elements.xml:19:", "more than 100000 XML nodes"],
        xml_head() + GOOD_PX, "<a/>", (SIXTEEN_MIB - 2000) // 4, XML_TAIL)
refused("comments.xml", ["comments.xml:19:", "more than 100000 XML nodes"],
        xml_head() + GOOD_PX, "<!---->", (SIXTEEN_MIB - 2000) // 7, XML_TAIL)
refused("deep.xml", ["deep.xml:3:", "deeper than 64 levels"], xml_head(), "<a>", 100000, "</a>" * 100000 + XML_TAIL)
refused("text.xml", ["text.xml:3:", "vertCorrection_", "not a finite number"],
        xml_head() + "<item><px><id_>0</id_><vertCorrection_>", "1", SIXTEEN_MIB - 2000,
        "</vertCorrection_></px></item>" + XML_TAIL)

# ---- ROS velodyne_pointcloud YAML: the bounded YAML loader (depth, values, entries) --------------
refused("deep.yaml", ["deep.yaml:1:", "nesting deeper than 64 levels"], "lasers: ", "[", 50000, "\n")
refused("zeros.yaml", ["zeros.yaml:1:", "lasers: the list that starts at 1:9 has more than 128 items"],
        "lasers: [", "0,", (SIXTEEN_MIB - 20) // 2, "0]\n")
keys = "".join("k%d: 0, " % i for i in range(200000))
refused("aliases.yaml", ["aliases.yaml:1:", "the mapping that starts at 1:4 has more than 128 keys"],
        "m: &m {%slaser_id: 0, vert_correction: 0}\nlasers: [%s]\n" % (keys, ", ".join(["*m"] * 16)))
del keys
row = "[%s]" % ",".join(["0"] * 128)
refused("values.yaml", ["values.yaml:", "more than 100000 YAML values"],
        "lasers:\n", "- [%s]\n" % ",".join([row] * 8), 128)
refused("scalar.yaml", ["scalar.yaml:2:", "vert_correction", "expected a finite number"],
        "lasers:\n- {laser_id: 0, vert_correction: ", "1", SIXTEEN_MIB - 100, "}\n")

# ---- JSON: values counted before json-c builds them ----------------------------------------------
refused("zeros.json", ["zeros.json:1:", "more than 100000 JSON values"],
        '{"lasers": [', "0,", (SIXTEEN_MIB - 20) // 2, "0]}")
refused("nested.json", ["nested.json:1:", "not valid JSON"], '{"lasers": ', "[", 50000, "]" * 50000 + "}")
refused("string.json", ["string.json", "vert_correction", "not a number"],
        '{"lasers": [{"laser_id": 0, "vert_correction": "', "x", SIXTEEN_MIB - 100, '"}]}')

finish("test_unit_limits")
