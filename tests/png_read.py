"""A PNG reader of its own (zlib + numpy), for the tests that look at lidarsim's pictures
(test_cli_render.py, test_cli_view.py, test_readme_view.py, check_formats.py): the pixels are
checked against what the picture should show, never against lidarsim's own decoder."""
import zlib

import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"


def read_png(path, colour_types=(2, 6)):
    """An 8-bit, non-interlaced PNG whose colour type is one of `colour_types` (2: RGB, 6: RGBA) as
    a height x width x 3 uint8 array (alpha dropped). ValueError for anything else: no PNG
    signature, a chunk whose CRC is wrong, another depth, colour type or interlacing."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != SIGNATURE:
        raise ValueError("%s: not a PNG" % path)
    pos, idat, width = 8, b"", None
    while pos < len(data):
        n = int.from_bytes(data[pos:pos + 4], "big")
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if zlib.crc32(kind + body) != int.from_bytes(data[pos + 8 + n:pos + 12 + n], "big"):
            raise ValueError("%s: bad CRC in chunk %r" % (path, kind))
        if kind == b"IHDR":
            width, height = int.from_bytes(body[0:4], "big"), int.from_bytes(body[4:8], "big")
            depth, ctype, interlace = body[8], body[9], body[12]
            if depth != 8 or ctype not in colour_types or interlace != 0:
                raise ValueError("%s: not an 8-bit non-interlaced PNG of colour type %s (depth %d, type %d%s)"
                                 % (path, " or ".join(map(str, colour_types)), depth, ctype,
                                    ", interlaced" if interlace else ""))
            ch = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        pos += 12 + n
    if width is None:
        raise ValueError("%s: no IHDR chunk" % path)
    stride = width * ch
    raw = np.frombuffer(zlib.decompress(idat), np.uint8).reshape(height, 1 + stride)
    out = np.zeros((height, stride), np.int32)
    prev = np.zeros(stride, np.int32)
    for y in range(height):
        f, line = raw[y, 0], raw[y, 1:].astype(np.int32)
        if f == 0:
            cur = line
        elif f == 1:
            cur = np.cumsum(line.reshape(width, ch), axis=0).reshape(-1) & 255
        elif f == 2:
            cur = (line + prev) & 255
        elif f in (3, 4):  # average or Paeth: sequential along the row, on Python ints (numpy scalars are slow)
            ln, up, row = line.tolist(), prev.tolist(), [0] * stride
            for x in range(stride):
                a = row[x - ch] if x >= ch else 0
                b, c = up[x], up[x - ch] if x >= ch else 0
                if f == 3:
                    p = (a + b) >> 1
                else:
                    pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                    p = a if pa <= pb and pa <= pc else b if pb <= pc else c
                row[x] = (ln[x] + p) & 255
            cur = np.array(row, np.int32)
        else:
            raise ValueError("%s: bad filter type %d in row %d" % (path, f, y))
        out[y], prev = cur, cur
    return out.reshape(height, width, ch)[:, :, :3].astype(np.uint8)


def plot_box(img):
    """The plot of one of lidarsim's figures (`scan --bev`, `--range-image`), inside its black
    1-pixel frame: (x0, y0, x1, y1), the plot being [x0, x1) x [y0, y1); None when no frame is
    found. The longest black run of a frame row, and of an empty row of cells between the frame's
    sides, is the frame's width, the commonest long run of the rows (a tick mark on a row lengthens
    that row's); its height likewise from the columns."""
    black = np.all(img == 0, axis=2)

    def frame(mask):
        runs = []  # (start, length) of the longest run of True in each row of mask
        for line in mask:
            edges = np.diff(np.concatenate(([0], line.astype(np.int8), [0])))
            starts, ends = np.nonzero(edges == 1)[0], np.nonzero(edges == -1)[0]
            k = int(np.argmax(ends - starts)) if len(starts) else -1
            runs.append((int(starts[k]), int(ends[k] - starts[k])) if k >= 0 else (0, 0))
        longest = max(n for _, n in runs)
        long_runs = [r for r in runs if r[1] >= 0.5 * longest]
        return max(set(long_runs), key=long_runs.count)

    (left, width), (top, height) = frame(black), frame(black.T)
    if width < 3 or height < 3:
        return None
    return left + 1, top + 1, left + width - 1, top + height - 1
