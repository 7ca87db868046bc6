/* ASPRS LAS 1.0 to 1.4 back into a point buffer (formats/las_read.h), for lsim_points_read: what
 * lidarsim's own writer (formats/las.c) puts in a file, and the standard part of any other LAS file.
 *
 *   x, y, z          X * scale + offset (int32 records, the header's scale and offset)
 *   reflectivity     intensity / 65535 (lidarsim writes round(65535 x reflectivity))
 *   return_index     return number - 1; num_returns: number of returns (both 0 when the
 *                    record says 0, as an unnumbered return)
 *   time             GPS time (formats 1 and 3 to 10; lidarsim writes scan_time + time)
 *   label, instance, epw, ring, range
 *                    the extra bytes of those names (the Extra Bytes VLR, LASF_Spec record 4),
 *                    as lidarsim writes them; any numeric type, scale and offset applied
 * The ASPRS classification is not mapped back to a label (its classes are coarser). Formats 0 to
 * 10 are read; LAZ (a compressed format, bit 7 set) is refused with how to decompress it. Every
 * size, offset and count of the header and the VLRs is checked against the file before a point is
 * read: a file that disagrees with itself is a parse error naming the field, never a partial
 * read. */
#include "formats/las_read.h"

#include "core/context.h"
#include "core/file_open.h"
#include "formats/field_io.h"
#include "points/points.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define LAS_CHUNK (1u << 20)        /* bytes of records read at a time (at least one record) */
#define LAS_MAX_POINTS (1ull << 34) /* beyond any scan lidarsim reads into memory */
#define LAS_MAX_COORDINATE_M 1e12    /* |offset| + 2^31 |scale| per axis: a float holds it (inf made exit 0) */
#define LAS_MAX_TIME_S 1e10          /* |GPS time|: absolute GPS seconds are ~1.4e9 */

/* The bytes of each point data record format before any extra bytes, and where its GPS time is
 * (0: none). */
static const unsigned short pdrf_size[11] = {20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67};
static const unsigned char pdrf_time[11] = {0, 20, 0, 20, 20, 20, 22, 22, 22, 22, 22};

/* One extra byte the reader takes: where it is in the record and how to turn it into a number. */
typedef struct las_extra {
    lsim_field field;
    size_t offset;       /* from the record's start */
    unsigned char type;  /* LAS data type 1..10 */
    double scale, add;   /* value = raw * scale + add */
} las_extra;

/* Bytes of LAS extra-bytes data type t (1..10), or of an undocumented one (0: `options` bytes). */
static size_t extra_size(unsigned t, unsigned options)
{
    static const unsigned char size[11] = {0, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
    return t == 0 ? options : t <= 10 ? size[t] : 0;
}

static double extra_value(const unsigned char *b, unsigned type)
{
    switch (type) {
    case 1: return b[0];
    case 2: return (int8_t)b[0];
    case 3: return lsim_io_get_u16le(b);
    case 4: return (int16_t)lsim_io_get_u16le(b);
    case 5: return lsim_io_get_u32le(b);
    case 6: return (int32_t)lsim_io_get_u32le(b);
    case 7: return (double)lsim_io_get_u64le(b);
    case 8: return (double)(int64_t)lsim_io_get_u64le(b);
    case 9: return lsim_io_get_f32le(b);
    default: return lsim_io_get_f64le(b);
    }
}

typedef struct las_file {
    lsim_context *ctx;
    const char *path;
    FILE *fp;
    uint64_t size;
    unsigned format;
    size_t record, count, data_offset;
    double scale[3], offset[3];
    las_extra extra[5];
    int n_extra;
} las_file;

static lsim_status bad(const las_file *f, const char *what)
{
    return lsim_fail(f->ctx, LSIM_ERR_PARSE, "%s: %s; the file is not a valid LAS file (or is truncated)", f->path,
                     what);
}

static int read_at(las_file *f, uint64_t at, void *buf, size_t n)
{
    return at <= f->size && n <= f->size - at && fseeko(f->fp, (off_t)at, SEEK_SET) == 0 &&
           fread(buf, 1, n, f->fp) == n;
}

/* The Extra Bytes VLR (192-byte descriptors): the fields lidarsim reads back, by name. */
static lsim_status read_extra_bytes(las_file *f, const unsigned char *vlr, size_t length)
{
    static const struct {
        const char *name;
        lsim_field field;
    } wanted[] = {{"label", LSIM_FIELD_LABEL}, {"instance", LSIM_FIELD_INSTANCE}, {"epw", LSIM_FIELD_EPW},
                  {"ring", LSIM_FIELD_RING},   {"range", LSIM_FIELD_RANGE}};
    if (length % 192)
        return bad(f, "its Extra Bytes VLR is not a whole number of 192-byte descriptors");
    size_t at = pdrf_size[f->format];
    for (size_t d = 0; d < length / 192; ++d) {
        const unsigned char *e = vlr + 192 * d;
        const unsigned type = e[2], options = e[3];
        const size_t n = extra_size(type, options);
        if (type > 10 || n == 0)
            return lsim_fail(f->ctx, LSIM_ERR_PARSE, "%s: extra bytes descriptor %zu has data type %u, which is not "
                             "read (LAS 1.4 types 1..10, or 0 with a size)", f->path, d, type);
        if (n > f->record || at > f->record - n)
            return bad(f, "its extra bytes run past the point record length");
        char name[33];
        memcpy(name, e + 4, 32);
        name[32] = '\0';
        for (size_t k = 0; type && k < sizeof wanted / sizeof wanted[0] && f->n_extra < 5; ++k)
            if (strcmp(name, wanted[k].name) == 0) {
                las_extra *x = &f->extra[f->n_extra++];
                x->field = wanted[k].field;
                x->offset = at;
                x->type = (unsigned char)type;
                x->scale = options & 8 ? lsim_io_get_f64le(e + 112) : 1.0;
                x->add = options & 16 ? lsim_io_get_f64le(e + 136) : 0.0;
                if (!isfinite(x->scale) || !isfinite(x->add))
                    return bad(f, "an extra bytes descriptor's scale or offset is not finite");
            }
        at += n;
    }
    return LSIM_OK;
}

static lsim_status read_header(las_file *f)
{
    unsigned char h[375];
    memset(h, 0, sizeof h);
    if (!read_at(f, 0, h, 227) || memcmp(h, "LASF", 4) != 0)
        return bad(f, "it does not start with a LAS header (\"LASF\")");
    const unsigned major = h[24], minor = h[25], header_size = lsim_io_get_u16le(h + 94);
    if (major != 1 || minor > 4)
        return lsim_fail(f->ctx, LSIM_ERR_PARSE, "%s: LAS version %u.%u; versions 1.0 to 1.4 are read", f->path,
                         major, minor);
    if (header_size < (minor >= 4 ? 375u : minor == 3 ? 235u : 227u) || header_size > f->size)
        return bad(f, "its header size is too small for its version or past the end");
    if (header_size > 227 && !read_at(f, 227, h + 227, (header_size < 375 ? header_size : 375) - 227))
        return bad(f, "its header is truncated");
    f->data_offset = lsim_io_get_u32le(h + 96);
    const uint32_t vlrs = lsim_io_get_u32le(h + 100);
    const unsigned format = h[104];
    f->record = lsim_io_get_u16le(h + 105);
    if (format & 0xC0)
        return lsim_fail(f->ctx, LSIM_ERR_PARSE, "%s: point format %u is compressed (LAZ); decompress it first "
                         "(e.g. `laszip -i IN.laz -o OUT.las` or PDAL's `pdal translate IN.laz OUT.las`)",
                         f->path, format);
    if (format > 10)
        return lsim_fail(f->ctx, LSIM_ERR_PARSE, "%s: point format %u; formats 0 to 10 are read", f->path, format);
    f->format = format;
    if (f->record < pdrf_size[format])
        return bad(f, "its point record length is shorter than its point format's");
    uint64_t count = lsim_io_get_u32le(h + 107);
    if (minor >= 4 && (count == 0 || format >= 6))
        count = lsim_io_get_u64le(h + 247);
    if (f->data_offset < header_size || f->data_offset > f->size)
        return bad(f, "its offset to the point data is outside the file");
    if (count > LAS_MAX_POINTS || count > (f->size - f->data_offset) / f->record)
        return lsim_fail(f->ctx, LSIM_ERR_PARSE, "%s: the header counts %llu points of %zu bytes, more than the "
                         "%llu bytes after its offset %zu hold; the file is truncated or not a LAS file", f->path,
                         (unsigned long long)count, f->record,
                         (unsigned long long)(f->size - f->data_offset), f->data_offset);
    f->count = (size_t)count;
    for (int a = 0; a < 3; ++a) {
        f->scale[a] = lsim_io_get_f64le(h + 131 + 8 * a);
        f->offset[a] = lsim_io_get_f64le(h + 155 + 8 * a);
        const char axis = (char)('x' + a);
        if (!(isfinite(f->scale[a]) && f->scale[a] != 0.0 && isfinite(f->offset[a])))
            return lsim_fail(f->ctx, LSIM_ERR_PARSE, "%s: the header's %c scale factor (%g) or %c offset (%g) is not a "
                             "finite number (the scale not 0); the file is not a valid LAS file", f->path, axis,
                             f->scale[a], axis, f->offset[a]);
        /* any int32 record times the scale plus the offset must be a coordinate, not inf in a float */
        const double reach = fabs(f->offset[a]) + 2147483648.0 * fabs(f->scale[a]);
        if (!(reach <= LAS_MAX_COORDINATE_M))
            return lsim_fail(f->ctx, LSIM_ERR_PARSE, "%s: the header's %c scale factor (%g) and %c offset (%g) give "
                             "coordinates up to %g m, beyond the %g m lidarsim reads; the header is corrupt", f->path,
                             axis, f->scale[a], axis, f->offset[a], reach, LAS_MAX_COORDINATE_M);
    }
    /* the VLRs between the header and the points: the Extra Bytes one, if any */
    uint64_t at = header_size;
    for (uint32_t v = 0; v < vlrs; ++v) {
        unsigned char vh[54];
        if (at + 54 > f->data_offset || !read_at(f, at, vh, 54))
            return bad(f, "its variable length records run into the point data");
        const uint64_t length = lsim_io_get_u16le(vh + 20);
        if (at + 54 + length > f->data_offset)
            return bad(f, "a variable length record runs into the point data");
        if (memcmp(vh + 2, "LASF_Spec\0", 10) == 0 && lsim_io_get_u16le(vh + 18) == 4) {
            unsigned char *body = malloc(length ? length : 1);
            if (!body)
                return lsim_fail(f->ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", f->path);
            lsim_status st = read_at(f, at + 54, body, length) ? read_extra_bytes(f, body, length)
                                                                : bad(f, "its Extra Bytes VLR is truncated");
            free(body);
            if (st != LSIM_OK)
                return st;
        }
        at += 54 + length;
    }
    return LSIM_OK;
}

static lsim_status read_points(las_file *f, uint32_t fields, lsim_points **out)
{
    uint32_t held = LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) | LSIM_FIELD_BIT(LSIM_FIELD_Z) |
                    LSIM_FIELD_BIT(LSIM_FIELD_REFLECTIVITY) | LSIM_FIELD_BIT(LSIM_FIELD_RETURN_INDEX) |
                    LSIM_FIELD_BIT(LSIM_FIELD_NUM_RETURNS);
    if (pdrf_time[f->format])
        held |= LSIM_FIELD_BIT(LSIM_FIELD_TIME);
    for (int k = 0; k < f->n_extra; ++k)
        held |= LSIM_FIELD_BIT(f->extra[k].field);
    lsim_points *p = NULL;
    lsim_status st = lsim_points_alloc_fields(f->ctx, f->count, held & fields, &p);
    const size_t rows = LAS_CHUNK / f->record ? LAS_CHUNK / f->record : 1; /* records reach 65535 bytes */
    unsigned char *buf = st == LSIM_OK ? malloc(rows * f->record) : NULL;
    if (st == LSIM_OK && !buf)
        st = lsim_fail(f->ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", f->path);
    const int new_format = f->format >= 6;
    for (size_t i0 = 0; st == LSIM_OK && i0 < f->count; i0 += rows) {
        const size_t n = f->count - i0 < rows ? f->count - i0 : rows;
        if (!read_at(f, f->data_offset + (uint64_t)i0 * f->record, buf, n * f->record)) {
            st = lsim_fail(f->ctx, LSIM_ERR_IO, "%s: cannot read points %zu.. : %s", f->path, i0,
                           errno ? strerror(errno) : "short read");
            break;
        }
        for (size_t k = 0; k < n; ++k) {
            const unsigned char *r = buf + k * f->record;
            const size_t i = i0 + k;
            for (int a = 0; a < 3; ++a) {
                const int32_t coordinate = (int32_t)lsim_io_get_u32le(r + 4 * a);
                lsim_points_set_value(p, (lsim_field)(LSIM_FIELD_X + a), i, coordinate * f->scale[a] + f->offset[a]);
            }
            lsim_points_set_value(p, LSIM_FIELD_REFLECTIVITY, i, lsim_io_get_u16le(r + 12) / 65535.0);
            const unsigned number = new_format ? r[14] & 15u : r[14] & 7u;
            const unsigned returns = new_format ? r[14] >> 4 : (r[14] >> 3) & 7u;
            lsim_points_set_value(p, LSIM_FIELD_RETURN_INDEX, i, number ? number - 1.0 : 0.0);
            lsim_points_set_value(p, LSIM_FIELD_NUM_RETURNS, i, returns);
            if (pdrf_time[f->format]) {
                const double t = lsim_io_get_f64le(r + pdrf_time[f->format]);
                if (!(fabs(t) <= LAS_MAX_TIME_S)) {
                    st = lsim_fail(f->ctx, LSIM_ERR_PARSE, "%s: point %zu: its GPS time %g s is not finite or beyond "
                                   "+-%g s; the file is corrupt", f->path, i + 1, t, LAS_MAX_TIME_S);
                    break;
                }
                lsim_points_set_value(p, LSIM_FIELD_TIME, i, t);
            }
            for (int e = 0; e < f->n_extra; ++e) {
                const las_extra *x = &f->extra[e];
                const double v = extra_value(r + x->offset, x->type) * x->scale + x->add;
                if (!(fabs(v) <= FLT_MAX)) { /* the columns are float or uint32 */
                    st = lsim_fail(f->ctx, LSIM_ERR_PARSE, "%s: point %zu: its Extra Bytes `%s` is %g (scale and "
                                   "offset applied), not a finite number a point holds; the file is corrupt", f->path,
                                   i + 1, lsim_field_name(x->field), v);
                    break;
                }
                lsim_points_set_value(p, x->field, i, v);
            }
            if (st != LSIM_OK)
                break;
        }
    }
    free(buf);
    if (st != LSIM_OK) {
        lsim_points_destroy(p);
        return st;
    }
    p->count = f->count;
    *out = p;
    return LSIM_OK;
}

lsim_status lsim_las_read(lsim_context *ctx, const char *path, uint32_t fields, lsim_points **out)
{
    las_file f;
    memset(&f, 0, sizeof f);
    f.ctx = ctx;
    f.path = path;
    lsim_status st = lsim_file_open(ctx, path, LSIM_INPUT_POINTS, &f.fp, &f.size);
    if (st != LSIM_OK)
        return st;
    st = read_header(&f);
    if (st == LSIM_OK)
        st = read_points(&f, fields, out);
    fclose(f.fp);
    return st;
}
