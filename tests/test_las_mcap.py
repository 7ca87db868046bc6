#!/usr/bin/python3
"""LAS 1.4 and MCAP (ROS 2) output of `lidarsim scan`, read back by readers written from the
specifications (tests/las_mcap_readers.py) and by independent npm packages.

usage: test_las_mcap.py LIDARSIM_BINARY WORK_DIR      (env LSIM_SOURCE_DIR: the source tree)

  a  LAS (street demo, noise on, scan time 2.5 s), read with numpy from ASPRS LAS 1.4 R15: header
     (signature, 1.4, 375 bytes, PDRF 6, record length, legacy counts 0, 64-bit count, points by
     return, scale, offset), the Extra Bytes VLR's descriptors, and every record against the same
     scan as CSV: coordinates within half the 0.1 mm scale, header bounds equal to the data's,
     intensity = round(65535 clamp(reflectivity)), return number / number of returns, GPS time =
     scan time + time, ASPRS classes from the label table, scan angle, the extra bytes exactly
  b  LAS in the world frame (offset = the sensor position rounded to metres) and with --fields
     (only the extra bytes asked for)
  c  @loaders.gl/las (npm; its LAZRsLoader: the LAS 1.4 reader of the package) reads the LAS: point
     count and positions (SKIP line when npm cannot install it)
  d  MCAP of 3 frames (--frames 3, scan time 1 s, 10 Hz), read from the MCAP spec: magic at both
     ends, every record's opcode and length, Header profile ros2, the two ros2msg schemas with their
     dependencies, channels /lidarsim/points and /tf (cdr), a Chunk per frame holding its 1 + 1
     messages with sequence and stamps 1.0, 1.1, 1.2 s and followed by a Message Index per channel
     (each entry the message's time and offset in the chunk), Data End, the summary (schemas,
     channels, Statistics with 3 chunks, a Chunk Index per chunk giving its offset, length and
     Message Index offsets) at the Footer's offsets, Summary Offset records (0x08 among them), the
     summary CRC; each PointCloud2 decoded from CDR equals a
     PCD scan of that frame (scan time and frame index), each TF equals the PCD's sensor pose
  e  @mcap/core (npm): McapStreamReader reads the same records and messages (and the data CRC);
     McapIndexedReader opens it from the Footer (summary CRC validated), schemas, topics, statistics,
     3 chunk indexes, and readMessages (as Foxglove seeks) yields the 6 messages in log-time order
     (0 before: the file was unchunked)
  g  Foxglove's own ROS 2 libraries (npm @foxglove/rosmsg parses each Schema's ros2msg text,
     @foxglove/rosmsg2-serialization deserialises each message, as Foxglove opens a ROS 2 MCAP):
     every PointCloud2 and TFMessage equals the spec reader's, field by field (SKIP line as in c)
  f  errors: --frames 0, --frames 2 with PCD or LAS, LAS to standard output or a FIFO, LAS with
     --keep-misses (NaN coordinates), MCAP before time 0, unwritable paths: each refused with a
     message that names the problem, and no file left; MCAP to standard output (the file's bytes)
Exits 1 with one line per failed check.
"""
import base64
import json
import os
import shutil
import subprocess
import sys

import numpy as np
from cli_check import (Lidarsim, binary_and_work, check, finish, pcd_header, read_bytes, read_csv as csv_columns, run,
                       source_dir, write)
from las_mcap_readers import check_las, decode_pointcloud2, decode_tf, parse_mcap
from timeouts import limit

BINARY, WORK = binary_and_work()
SOURCE = source_dir()
lidarsim = Lidarsim(BINARY, WORK, seconds=300, text=False)  # stdout as bytes: an MCAP on standard output
SCENE = os.path.join(SOURCE, "examples", "street", "street.yaml")

FIELD_TYPES = {"x": "f4", "y": "f4", "z": "f4", "range": "f4", "intensity": "f4", "reflectivity": "f4",
               "ring": "u2", "azimuth": "f4", "elevation": "f4", "time": "f4", "label": "u4", "instance": "u4",
               "incidence": "f4", "nx": "f4", "ny": "f4", "nz": "f4", "x_clean": "f4", "y_clean": "f4",
               "z_clean": "f4", "return_index": "u2", "num_returns": "u2", "epw": "f4", "power": "f4"}


def scan(out, *extra):
    p = lidarsim("scan", SCENE, "-o", out, "--seed", 7, "--threads", 2, "--quiet", *extra)
    if not check(p.returncode == 0, "scan %s %s: exit %d: %s" % (out, extra, p.returncode, p.stderr[-400:])):
        sys.exit(1)
    return os.path.join(WORK, out)


def read_csv(path):
    return {n: column.astype(FIELD_TYPES[n]) for n, column in csv_columns(path).items()}


def read_pcd(path):
    """PCD binary: (pose comment or None, {field: column})."""
    data = read_bytes(path)
    head, pos, comments = pcd_header(data)
    poses = [[float(v) for v in c.split()[2:]] for c in comments if c.startswith("# sensor_pose_at_frame_start")]
    fields = head["FIELDS"]
    dtype = np.dtype([(n, "<" + FIELD_TYPES[n]) for n in fields])
    rows = np.frombuffer(data, dtype=dtype, count=int(head["POINTS"][0]), offset=pos)
    return (poses[0] if poses else None), {n: rows[n] for n in fields}


# ------------------------------------------------------------------ npm readers

def npm_install(packages):
    """Install `packages` into WORK/npm (kept between runs); the folder, or None with a SKIP reason."""
    if os.environ.get("LSIM_INTEROP") == "0":  # the core suite (tests/CMakeLists.txt): no node, no npm
        return None, "the npm readers run in the interop suite (ctest -L interop: test_las_mcap_npm)"
    folder = os.path.join(WORK, "npm")
    stamp = os.path.join(folder, "installed.json")
    try:
        if json.load(open(stamp)) == packages:
            return folder, None
    except (OSError, ValueError):
        pass
    os.makedirs(folder, exist_ok=True)
    write(os.path.join(folder, "package.json"),
          '{"name": "lidarsim-las-mcap-check", "version": "1.0.0", "private": true}\n')
    if not shutil.which("npm") and not os.path.exists("/usr/bin/npm"):
        return None, "npm is not installed (Debian package npm)"
    try:
        p = subprocess.run(["/usr/bin/npm" if os.path.exists("/usr/bin/npm") else "npm", "install", "--no-audit",
                            "--no-fund", "--loglevel=error"] + packages, cwd=folder, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=limit(240))
    except subprocess.TimeoutExpired:
        return None, "npm install timed out (no network?)"
    if p.returncode != 0:
        lines = [l.strip() for l in p.stdout.decode(errors="replace").splitlines() if "error" in l.lower()]
        return None, "npm install %s failed (no network?): %s" % (" ".join(packages), (lines or ["exit %d" % p.returncode])[0])
    json.dump(packages, open(stamp, "w"))
    return folder, None


def node(folder, script, *args):
    path = write(os.path.join(folder, script[0]), script[1])
    p = run(["/usr/bin/node" if os.path.exists("/usr/bin/node") else "node", path] + list(args), cwd=folder,
            seconds=300)
    if not check(p.returncode == 0, "node %s: %s" % (script[0], p.stderr[-600:])):
        return None
    return json.loads(p.stdout)


LAS_JS = ("read_las.mjs", r"""
import {parse} from '@loaders.gl/core';
import {LAZRsLoader} from '@loaders.gl/las';
import {readFileSync} from 'fs';
import {createRequire} from 'module';
import {pathToFileURL} from 'url';
import path from 'path';
// @loaders.gl/las's LASLoader (laz-perf) reads LAS up to 1.3; its LAZRsLoader (laz-rs) reads 1.4.
// laz-rs's wasm is fetched by URL, which node's fetch cannot do for file: URLs: initialise it from
// its bytes first (the loader's own init is then a no-op).
const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('@loaders.gl/las')), 'libs', 'laz-rs-wasm');
const init = (await import(pathToFileURL(path.join(dir, 'laz_rs_wasm.js')).href)).default;
await init({module_or_path: readFileSync(path.join(dir, 'laz_rs_wasm_bg.wasm'))});
const buf = readFileSync(process.argv[2]);
const data = await parse(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength), LAZRsLoader, {worker: false});
console.log(JSON.stringify({count: data.header.vertexCount, box: data.header.boundingBox,
                            position: Array.from(data.attributes.POSITION.value)}));
""")

MCAP_JS = ("read_mcap.mjs", r"""
import {McapStreamReader, McapIndexedReader} from '@mcap/core';
import {readFileSync} from 'fs';
const reader = new McapStreamReader({validateCrcs: true});
reader.append(new Uint8Array(readFileSync(process.argv[2])));
const out = {header: null, schemas: [], channels: [], messages: [], statistics: null, footer: false, dataEnd: null};
for (let rec; (rec = reader.nextRecord()) !== undefined;) {
  if (rec.type === 'Header') out.header = {profile: rec.profile, library: rec.library};
  else if (rec.type === 'Schema') out.schemas.push({id: rec.id, name: rec.name, encoding: rec.encoding,
                                                    data: Buffer.from(rec.data).toString('utf8')});
  else if (rec.type === 'Channel') out.channels.push({id: rec.id, schemaId: rec.schemaId, topic: rec.topic,
                                                      messageEncoding: rec.messageEncoding});
  else if (rec.type === 'Message') out.messages.push({channelId: rec.channelId, sequence: rec.sequence,
                                                      logTime: rec.logTime.toString(), publishTime: rec.publishTime.toString(),
                                                      data: Buffer.from(rec.data).toString('base64')});
  else if (rec.type === 'Statistics') out.statistics = {messageCount: rec.messageCount.toString(),
                                                        channelCount: rec.channelCount, schemaCount: rec.schemaCount};
  else if (rec.type === 'DataEnd') out.dataEnd = rec.dataSectionCrc;
  else if (rec.type === 'Footer') out.footer = true;
}
out.done = reader.done();
// The indexed reader starts from the Footer: summary CRC, Summary Offsets, Statistics.
const bytes = new Uint8Array(readFileSync(process.argv[2]));
const indexed = await McapIndexedReader.Initialize({readable: {
  size: async () => BigInt(bytes.length),
  read: async (offset, length) => bytes.subarray(Number(offset), Number(offset + length))}});
out.indexed = {schemas: [...indexed.schemasById.values()].map((s) => s.name).sort(),
               topics: [...indexed.channelsById.values()].map((c) => c.topic).sort(),
               messageCount: indexed.statistics ? indexed.statistics.messageCount.toString() : null,
               offsets: [...indexed.summaryOffsetsByOpcode.keys()].sort((a, b) => a - b),
               chunks: indexed.chunkIndexes.length};
// and the messages it finds through the Chunk Indexes, as Foxglove seeks (by log time)
out.indexedMessages = [];
for await (const rec of indexed.readMessages())
  out.indexedMessages.push({channelId: rec.channelId, sequence: rec.sequence, logTime: rec.logTime.toString(),
                            data: Buffer.from(rec.data).toString('base64')});
console.log(JSON.stringify(out));
""")


FOXGLOVE_JS = ("read_ros2.mjs", r"""
import {McapStreamReader} from '@mcap/core';
import {parse} from '@foxglove/rosmsg';
import {MessageReader} from '@foxglove/rosmsg2-serialization';
import {readFileSync} from 'fs';
// As Foxglove opens a ROS 2 MCAP: each Schema's ros2msg text parsed into message definitions,
// each cdr Message deserialised with them.
const reader = new McapStreamReader({validateCrcs: true});
reader.append(new Uint8Array(readFileSync(process.argv[2])));
const readers = new Map(), schemaOf = new Map(), out = [];
for (let rec; (rec = reader.nextRecord()) !== undefined;) {
  if (rec.type === 'Schema')
    readers.set(rec.id, new MessageReader(parse(Buffer.from(rec.data).toString('utf8'), {ros2: true})));
  else if (rec.type === 'Channel') schemaOf.set(rec.id, rec.schemaId);
  else if (rec.type === 'Message') {
    const m = readers.get(schemaOf.get(rec.channelId)).readMessage(rec.data);
    if (m.data !== undefined)
      out.push({kind: 'cloud', stamp: [m.header.stamp.sec, m.header.stamp.nanosec], frame_id: m.header.frame_id,
                height: m.height, width: m.width, fields: m.fields.map((f) => [f.name, f.offset, f.datatype, f.count]),
                is_bigendian: m.is_bigendian, point_step: m.point_step, row_step: m.row_step, is_dense: m.is_dense,
                data: Buffer.from(m.data).toString('base64')});
    else
      out.push({kind: 'tf', transforms: m.transforms.map((t) => [t.header.stamp.sec, t.header.stamp.nanosec,
        t.header.frame_id, t.child_frame_id,
        [t.transform.translation.x, t.transform.translation.y, t.transform.translation.z],
        [t.transform.rotation.x, t.transform.rotation.y, t.transform.rotation.z, t.transform.rotation.w]])});
  }
}
console.log(JSON.stringify(out));
""")

ROS2_TYPES = {1: "i1", 2: "u1", 3: "<i2", 4: "<u2", 5: "<i4", 6: "<u4", 7: "<f4", 8: "<f8"}


def check_foxglove(got, m):
    """Foxglove's decoding of every message equals the spec reader's (tests/las_mcap_readers.py)."""
    check(len(got) == len(m["messages"]), "Foxglove: %d messages decoded, the file has %d" % (len(got),
                                                                                          len(m["messages"])))
    clouds = 0
    for g, (cid, seq, log, pub, data) in zip(got, m["messages"]):
        if g["kind"] == "tf":
            mine = decode_tf(data)
            check([tuple(t[:4]) for t in g["transforms"]] == [t[:4] for t in mine] and
                  all(np.array_equal(t[4] + t[5], w[4] + w[5]) for t, w in zip(g["transforms"], mine)),
                  "Foxglove tf %d: %s, spec reader %s" % (seq, g["transforms"], mine))
            continue
        clouds += 1
        mine = decode_pointcloud2(data)
        layout = ("height", "width", "point_step", "row_step", "is_bigendian", "is_dense")
        check(tuple(g["stamp"]) == (mine["sec"], mine["nanosec"]) and g["frame_id"] == mine["frame_id"] and
              [tuple(f) for f in g["fields"]] == [tuple(f) for f in mine["fields"]] and
              all(int(g[q]) == int(mine[q]) for q in layout),
              "Foxglove cloud %d: header or layout %s differ from the spec reader's" % (seq, {q: g[q] for q in layout}))
        raw = base64.b64decode(g["data"])
        dtype = np.dtype({"names": [f[0] for f in g["fields"]], "formats": [ROS2_TYPES[f[2]] for f in g["fields"]],
                          "offsets": [f[1] for f in g["fields"]], "itemsize": g["point_step"]})
        rows = np.frombuffer(raw, dtype=dtype, count=g["width"] * g["height"])
        for f in g["fields"]:
            check(np.array_equal(rows[f[0]], mine["points"][f[0]]), "Foxglove cloud %d: %s differs" % (seq, f[0]))
    return clouds


def main():
    if os.path.isdir(WORK):
        for name in os.listdir(WORK):  # keep the npm cache between runs
            if name != "npm":
                path = os.path.join(WORK, name)
                shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    os.makedirs(WORK, exist_ok=True)

    # a: LAS against CSV, sensor frame
    las = scan("street.las", "--scan-time", 2.5)
    csv = read_csv(scan("street.csv", "--scan-time", 2.5))
    h, las_xyz = check_las(las, csv, 2.5, ["label", "instance", "epw", "ring", "range"], "LAS sensor frame")
    check(h["offset"] == (0.0, 0.0, 0.0), "LAS sensor frame: offset %s, want 0" % (h["offset"],))
    print("a: LAS %d points, record %d bytes, bounds x [%.4f, %.4f]" % (h["count"], h["record_length"], h["min"][0],
                                                                       h["max"][0]))

    # b: world frame (offset at the sensor, z 1.8 -> 2) and --fields
    wlas = scan("world.las", "--frame", "world", "--scan-time", 2.5)
    wcsv = read_csv(scan("world.csv", "--frame", "world", "--scan-time", 2.5))
    h, _ = check_las(wlas, wcsv, 2.5, ["label", "instance", "epw", "ring", "range"], "LAS world frame")
    check(h["offset"] == (0.0, 0.0, 2.0), "LAS world frame: offset %s, want (0, 0, 2)" % (h["offset"],))
    flas = scan("fields.las", "--fields", "x,y,z,label,ring")
    fcsv = read_csv(scan("fields.csv", "--fields", "x,y,z,label,ring"))
    h, _ = check_las(flas, fcsv, 0.0, ["label", "ring"], "LAS --fields")
    check(h["record_length"] == 36, "LAS --fields: record length %d, want 30 + 4 + 2" % h["record_length"])
    print("b: world frame offset and --fields checked")

    # c: @loaders.gl/las
    folder, why = npm_install(["@loaders.gl/core@4", "@loaders.gl/las@4", "@mcap/core@2", "@foxglove/rosmsg@5",
                               "@foxglove/rosmsg2-serialization@3"])
    if why:
        print("SKIP c (@loaders.gl/las): " + why)
    else:
        got = node(folder, LAS_JS, las)
        if got:
            pos = np.array(got["position"], dtype=np.float64).reshape(-1, 3)
            want = np.stack([csv["x"], csv["y"], csv["z"]], axis=1).astype(np.float64)
            check(got["count"] == len(csv["x"]) and pos.shape == want.shape, "@loaders.gl/las: %d points, CSV %d"
                  % (got["count"], len(csv["x"])))
            if pos.shape == want.shape:
                err = np.max(np.abs(pos - want))  # float32 positions: 0.05 mm steps + float32 rounding
                check(err < 1e-4, "@loaders.gl/las: positions differ from the CSV by %.3g m" % err)
                print("c: @loaders.gl/las read %d points, max position error %.2g m" % (got["count"], err))

    # d: MCAP of three frames against PCD scans of each frame
    mcap = scan("street.mcap", "--frames", 3, "--scan-time", 1)
    m = parse_mcap(mcap)
    check(m.get("profile") == "ros2" and m.get("library") == "lidarsim", "MCAP: header profile/library")
    names = {sid: (n, e) for sid, (n, e, t) in m["schemas"].items()}
    check(sorted(names.values()) == [("sensor_msgs/msg/PointCloud2", "ros2msg"), ("tf2_msgs/msg/TFMessage", "ros2msg")],
          "MCAP: schemas %s" % names)
    texts = {n: t for n, e, t in m["schemas"].values()}
    sep = "=" * 80 + "\n"
    pc2 = texts.get("sensor_msgs/msg/PointCloud2", "")
    check(pc2.startswith("std_msgs/Header header\n") and "uint8[] data\n" in pc2 and
          all((sep + "MSG: " + t + "\n") in pc2 for t in ("std_msgs/Header", "builtin_interfaces/Time",
                                                          "sensor_msgs/PointField")), "MCAP: PointCloud2 definition")
    tf = texts.get("tf2_msgs/msg/TFMessage", "")
    check(tf.startswith("geometry_msgs/TransformStamped[] transforms\n") and
          all((sep + "MSG: " + t + "\n") in tf for t in ("geometry_msgs/TransformStamped", "std_msgs/Header",
                                                         "builtin_interfaces/Time", "geometry_msgs/Transform",
                                                         "geometry_msgs/Vector3", "geometry_msgs/Quaternion")),
          "MCAP: TFMessage definition")
    topics = {cid: (topic, enc, m["schemas"][sid][0]) for cid, (sid, topic, enc) in m["channels"].items()}
    check(sorted(topics.values()) == [("/lidarsim/points", "cdr", "sensor_msgs/msg/PointCloud2"),
                                      ("/tf", "cdr", "tf2_msgs/msg/TFMessage")], "MCAP: channels %s" % topics)
    by_topic = {"/lidarsim/points": [], "/tf": []}
    for cid, seq, log, pub, data in m["messages"]:
        by_topic[topics[cid][0]].append((seq, log, pub, data))
    check(len(by_topic["/lidarsim/points"]) == 3 and len(by_topic["/tf"]) == 3, "MCAP: 3 clouds and 3 TFs; got %d, %d"
          % (len(by_topic["/lidarsim/points"]), len(by_topic["/tf"])))
    st = m["stats"] or {}
    check(st.get("message_count") == 6 and st.get("schema_count") == 2 and st.get("channel_count") == 2 and
          st.get("chunk_count") == 3 and st.get("start") == 1000000000 and st.get("end") == 1200000000 and
          sorted(st.get("per_channel", {}).values()) == [3, 3], "MCAP: statistics %s" % st)
    check(m["summary"] == [("schema", 1), ("schema", 2), ("channel", 1), ("channel", 2)] and
          sorted(o[0] for o in m["offsets"]) == [0x03, 0x04, 0x08, 0x0B], "MCAP: summary %s, offsets %s"
          % (m["summary"], m["offsets"]))
    check(len(m["chunks"]) == 3 and all(len(c["messages"]) == 2 for c in m["chunks"]),
          "MCAP: a chunk a frame, each with its TF and cloud, indexed (%d chunks)" % len(m["chunks"]))
    total = 0
    for k in range(3):
        t = 1 + k / 10
        pose, pcd = read_pcd(scan("frame%d.pcd" % k, "--scan-time", "%.17g" % t, "--frame-index", k))
        seq, log, pub, data = by_topic["/lidarsim/points"][k]
        want_ns = round(t * 1e9)
        check(seq == k and log == pub == want_ns, "MCAP cloud %d: sequence %d, times %d %d, want %d" % (k, seq, log, pub,
                                                                                                       want_ns))
        msg = decode_pointcloud2(data)
        check((msg["sec"], msg["nanosec"]) == (want_ns // 10**9, want_ns % 10**9) and msg["frame_id"] == "lidar",
              "MCAP cloud %d: stamp %d.%09d frame %s" % (k, msg["sec"], msg["nanosec"], msg["frame_id"]))
        check([f[0] for f in msg["fields"]] == ["x", "y", "z", "intensity", "time", "label", "instance", "ring"] and
              [f[1] for f in msg["fields"]] == [0, 4, 8, 12, 16, 20, 24, 28] and
              [f[2] for f in msg["fields"]] == [7, 7, 7, 7, 7, 6, 6, 4] and all(f[3] == 1 for f in msg["fields"]),
              "MCAP cloud %d: fields %s" % (k, msg["fields"]))
        n = len(pcd["x"])
        total += n
        check(msg["height"] == 1 and msg["width"] == n and msg["point_step"] == 32 and msg["row_step"] == 32 * n and
              msg["is_bigendian"] == 0 and msg["is_dense"] == 1, "MCAP cloud %d: layout %s" %
              (k, {q: msg[q] for q in ("height", "width", "point_step", "row_step", "is_dense")}))
        for name in ("x", "y", "z", "intensity", "time", "label", "instance", "ring"):
            check(np.array_equal(msg["points"][name], pcd[name]), "MCAP cloud %d: %s differs from the PCD" % (k, name))
        tfs = decode_tf(by_topic["/tf"][k][3])
        check(by_topic["/tf"][k][1] == want_ns and len(tfs) == 1 and tfs[0][:4] == (want_ns // 10**9, want_ns % 10**9,
                                                                                       "world", "lidar"),
              "MCAP tf %d: %s" % (k, tfs[0][:4] if tfs else None))
        if pose and tfs:
            want_pose = pose[:3] + [pose[4], pose[5], pose[6], pose[3]]
            check(np.allclose(tfs[0][4] + tfs[0][5], want_pose, atol=1e-12), "MCAP tf %d: %s, PCD pose %s"
                  % (k, tfs[0][4:], pose))
        if k == 1:
            check(not np.array_equal(msg["points"]["x"][:100], by_cloud0_x), "MCAP: frames 0 and 1 identical (noise "
                  "key should differ)")
        if k == 0:
            by_cloud0_x = msg["points"]["x"][:100].copy()
    print("d: MCAP 3 frames, %d points, %d messages checked" % (total, len(m["messages"])))

    # e: @mcap/core
    if why:
        print("SKIP e (@mcap/core): " + why)
    else:
        got = node(folder, MCAP_JS, mcap)
        if got:
            check(got["done"] and got["footer"] and got["header"] == {"profile": "ros2", "library": "lidarsim"},
                  "@mcap/core: header/footer/done: %s" % {q: got[q] for q in ("header", "footer", "done")})
            # each Schema and Channel twice: in the data section and in the summary
            check(sorted((s["name"], s["encoding"]) for s in got["schemas"]) ==
                  [("sensor_msgs/msg/PointCloud2", "ros2msg")] * 2 + [("tf2_msgs/msg/TFMessage", "ros2msg")] * 2 and
                  all(texts.get(s["name"]) == s["data"] for s in got["schemas"]), "@mcap/core: schemas %s"
                  % [(s["id"], s["name"]) for s in got["schemas"]])
            check(sorted((c["topic"], c["messageEncoding"]) for c in got["channels"]) ==
                  [("/lidarsim/points", "cdr")] * 2 + [("/tf", "cdr")] * 2, "@mcap/core: channels")
            check(got["dataEnd"] == m["data_crc"] != 0, "@mcap/core: data section CRC %s" % got["dataEnd"])
            mine = [(cid, seq, str(log), base64.b64encode(data).decode()) for cid, seq, log, pub, data in m["messages"]]
            theirs = [(g["channelId"], g["sequence"], g["logTime"], g["data"]) for g in got["messages"]]
            check(len(theirs) == 6 and theirs == mine, "@mcap/core: %d messages, not those of the spec reader"
                  % len(theirs))
            check(got["statistics"] and got["statistics"]["messageCount"] == "6", "@mcap/core: statistics %s"
                  % got["statistics"])
            check(got["indexed"] == {"schemas": ["sensor_msgs/msg/PointCloud2", "tf2_msgs/msg/TFMessage"],
                                     "topics": ["/lidarsim/points", "/tf"], "messageCount": "6",
                                     "offsets": [0x03, 0x04, 0x08, 0x0B], "chunks": 3},
                  "@mcap/core McapIndexedReader: %s" % got["indexed"])
            seek = [(g["channelId"], g["sequence"], g["logTime"], g["data"]) for g in got["indexedMessages"]]
            check(len(seek) == 6 and sorted(seek) == sorted(mine) and [g[2] for g in seek] == sorted(g[2] for g in seek),
                  "@mcap/core McapIndexedReader.readMessages: %d messages (the summary says 6), not those of the spec "
                  "reader in log-time order" % len(seek))
            print("e: @mcap/core McapStreamReader read %d messages; McapIndexedReader the summary (its CRC checked) "
                  "and %d messages through the chunk indexes" % (len(theirs), len(seek)))

    # g: Foxglove's ROS 2 message libraries
    if why:
        print("SKIP g (@foxglove/rosmsg2-serialization): " + why)
    else:
        got = node(folder, FOXGLOVE_JS, mcap)
        if got is not None:
            clouds = check_foxglove(got, m)
            print("g: @foxglove/rosmsg + rosmsg2-serialization decoded %d messages (%d PointCloud2, every field equal)"
                  % (len(got), clouds))

    # f: errors, and no file left
    def refused(out, args, code, words, what):
        p = lidarsim("scan", SCENE, "-o", out, "--threads", 2, *args)
        err = p.stderr
        check(p.returncode == code and all(w in err for w in words), "%s: exit %d, want %d; message %r lacks %s"
              % (what, p.returncode, code, err.strip(), words))
        left = [n for n in os.listdir(os.path.dirname(os.path.join(WORK, out)) or WORK)
                if n.startswith(os.path.basename(out))] if out != "-" and os.path.isdir(
                    os.path.dirname(os.path.join(WORK, out))) else []
        check(not left, "%s: left %s" % (what, left))

    refused("bad0.mcap", ["--frames", 0], 2, ["--frames", "1..100000"], "--frames 0")
    refused("bad2.pcd", ["--frames", 2], 2, ["pcd file holds one frame", "MCAP"], "--frames 2 with PCD")
    refused("bad2.las", ["--frames", 2], 2, ["las file holds one frame", "MCAP"], "--frames 2 with LAS")
    refused("-", ["--format", "las"], 2, ["LAS output cannot go to standard output"], "LAS to standard output")
    refused("miss.las", ["--keep-misses"], 1, ["non-finite", "--keep-misses", "miss.las"], "LAS with --keep-misses")
    refused("neg.mcap", ["--scan-time", -1], 1, ["before 0", "neg.mcap"], "MCAP before time 0")
    refused("nodir/x.las", [], 1, ["nodir"], "LAS in a missing directory")
    refused("nodir/x.mcap", ["--frames", 2], 1, ["nodir"], "MCAP in a missing directory")
    check(not os.path.exists(os.path.join(WORK, "nodir")), "a missing directory was created")
    fifo = os.path.join(WORK, "pipe.las")
    os.mkfifo(fifo)
    p = lidarsim("scan", SCENE, "-o", fifo, "--threads", 2)  # refused before it is opened: no reader needed
    check(p.returncode == 2 and "cannot seek" in p.stderr, "LAS to a FIFO: exit %d %r" % (p.returncode, p.stderr))
    os.remove(fifo)
    # MCAP needs no seek: standard output gets the file's bytes.
    p = lidarsim("scan", SCENE, "-o", "-", "--format", "mcap", "--frames", 3, "--scan-time", 1, "--seed", 7,
                 "--threads", 2, "--quiet")
    check(p.returncode == 0 and p.stdout == read_bytes(mcap), "MCAP to standard output: exit %d, %d bytes, "
          "the file has %d" % (p.returncode, len(p.stdout), os.path.getsize(mcap)))
    print("f: 9 refusals checked; MCAP to standard output")
    finish("test_las_mcap", "all LAS and MCAP checks passed")


if __name__ == "__main__":
    main()
