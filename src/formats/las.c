/* ASPRS LAS 1.4 (R15) output: a 375-byte header, one Extra Bytes VLR, point data record format 6.
 *
 *   coordinates   X = round((x - offset) / 0.0001) as int32: a 0.1 mm step (finer than float32
 *                 noise-free positions need within a few hundred metres, and than any ranging
 *                 noise), reaching +-214 km around the offset. The offset is the frame's sensor
 *                 position rounded to whole metres (0 in the sensor frame): a lidar's points lie
 *                 within its range of it. A point beyond int32 is refused, naming the value.
 *                 The header's bounds are those of the quantised (written) coordinates.
 *   intensity     round(65535 x reflectivity clamped to [0, 1]) (0 without reflectivity).
 *   returns       return number = return_index + 1, number of returns = num_returns, both capped
 *                 at 15 (1 / 1 without them); the number is raised to the return number if lower.
 *   GPS time      scan_time + time (seconds on the scene clock; global encoding bit 0 clear:
 *                 "GPS week time", as the clock has no epoch).
 *   classification  from the SemanticKITTI label id (las_class below; README "LAS").
 *   scan angle    the beam's elevation in 0.006 degree steps, clamped to +-30000.
 *   extra bytes   label (uint32), instance (uint32), epw (float), ring (uint16), range (float),
 *                 the ones the points hold, described by the Extra Bytes VLR (LASF_Spec, 4).
 * Legacy point counts are 0 (PDRF 6); the 64-bit counts and the bounds are patched into the header
 * at the end (the temporary file seeks). No creation date: the same scan gives the same bytes. */
#include "core/context.h"
#include "formats/field_io.h"
#include "formats/writers.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define LAS_HEADER_SIZE 375
#define LAS_VLR_HEADER 54
#define LAS_EB_DESCRIPTOR 192
#define LAS_PDRF6_SIZE 30
#define LAS_SCALE 0.0001
#define LAS_ROWS 4096

/* The extra bytes, in record order, with their LAS data type (3 ushort, 5 ulong, 9 float). */
static const struct {
    lsim_field field;
    unsigned char type;
    const char *description;
} las_extra[] = {
    {LSIM_FIELD_LABEL, 5, "semantic class (SemanticKITTI)"},
    {LSIM_FIELD_INSTANCE, 5, "object instance id (0: none)"},
    {LSIM_FIELD_EPW, 9, "echo pulse width, metres"},
    {LSIM_FIELD_RING, 3, "laser channel (ring)"},
    {LSIM_FIELD_RANGE, 9, "range from the sensor, metres"},
};
#define LAS_EXTRA_COUNT (sizeof las_extra / sizeof las_extra[0])

struct lsim_las_writer {
    double offset[3], scan_time;
    int32_t min[3], max[3];
    uint64_t count, by_return[15];
    size_t record_bytes;
    uint32_t data_offset, vlr_count;
    unsigned char buf[LAS_ROWS * (LAS_PDRF6_SIZE + 20)];
};

/* ASPRS class of a SemanticKITTI label id. */
static unsigned char las_class(uint32_t label)
{
    switch (label) {
    case 0: return 0;                          /* unlabeled: created, never classified */
    case 1: return 7;                          /* outlier: low point (noise) */
    case 40: case 60: return 11;               /* road, lane-marking: road surface */
    case 44: case 48: case 49: case 72: return 2; /* parking, sidewalk, other-ground, terrain: ground */
    case 50: return 6;                         /* building */
    case 70: case 71: return 5;                /* vegetation, trunk: high vegetation */
    default: return 1;                         /* everything else: unclassified */
    }
}

static size_t extra_bytes(uint32_t columns)
{
    size_t n = 0;
    for (size_t i = 0; i < LAS_EXTRA_COUNT; ++i)
        if (columns & LSIM_FIELD_BIT(las_extra[i].field))
            n += lsim_field_size(las_extra[i].field);
    return n;
}

static size_t extra_count(uint32_t columns)
{
    size_t n = 0;
    for (size_t i = 0; i < LAS_EXTRA_COUNT; ++i)
        n += (columns & LSIM_FIELD_BIT(las_extra[i].field)) != 0;
    return n;
}

static void write_header(FILE *fp, const lsim_las_writer *w)
{
    unsigned char h[LAS_HEADER_SIZE];
    memset(h, 0, sizeof h);
    memcpy(h, "LASF", 4);
    lsim_io_put_u16le(h + 6, 0x10);    /* global encoding: bit 4 (WKT, required for PDRF 6); GPS week time */
    h[24] = 1;                         /* version 1.4 */
    h[25] = 4;
    memcpy(h + 26, "lidarsim simulation", 19);
    memcpy(h + 58, "lidarsim", 8);
    lsim_io_put_u16le(h + 94, LAS_HEADER_SIZE);
    lsim_io_put_u32le(h + 96, w->data_offset);
    lsim_io_put_u32le(h + 100, w->vlr_count);
    h[104] = 6;                        /* point data record format */
    lsim_io_put_u16le(h + 105, (uint16_t)w->record_bytes);
    /* 107..130: legacy counts, 0 for PDRF 6 */
    for (int k = 0; k < 3; ++k) {
        lsim_io_put_f64le(h + 131 + 8 * k, LAS_SCALE);
        lsim_io_put_f64le(h + 155 + 8 * k, w->offset[k]);
        double lo = w->count ? w->offset[k] + w->min[k] * LAS_SCALE : 0.0;
        double hi = w->count ? w->offset[k] + w->max[k] * LAS_SCALE : 0.0;
        lsim_io_put_f64le(h + 179 + 16 * k, hi); /* max X, min X, max Y, ... */
        lsim_io_put_f64le(h + 187 + 16 * k, lo);
    }
    /* 227: waveform start, 235: first EVLR, 243: EVLR count: all 0 */
    lsim_io_put_u64le(h + 247, w->count);
    for (int r = 0; r < 15; ++r)
        lsim_io_put_u64le(h + 255 + 8 * r, w->by_return[r]);
    fwrite(h, 1, sizeof h, fp);
}

static void write_extra_bytes_vlr(FILE *fp, uint32_t columns)
{
    const size_t n = extra_count(columns);
    unsigned char v[LAS_VLR_HEADER];
    memset(v, 0, sizeof v);
    memcpy(v + 2, "LASF_Spec", 9);
    lsim_io_put_u16le(v + 18, 4);
    lsim_io_put_u16le(v + 20, (uint16_t)(n * LAS_EB_DESCRIPTOR));
    memcpy(v + 22, "lidarsim per-point fields", 25);
    fwrite(v, 1, sizeof v, fp);
    for (size_t i = 0; i < LAS_EXTRA_COUNT; ++i) {
        if (!(columns & LSIM_FIELD_BIT(las_extra[i].field)))
            continue;
        unsigned char d[LAS_EB_DESCRIPTOR];
        memset(d, 0, sizeof d);
        d[2] = las_extra[i].type;
        d[3] = 0; /* options: no no_data, min, max, scale or offset */
        const char *name = lsim_field_name(las_extra[i].field);
        memcpy(d + 4, name, strlen(name) < 32 ? strlen(name) : 31);
        const char *text = las_extra[i].description;
        memcpy(d + 160, text, strlen(text) < 32 ? strlen(text) : 31);
        fwrite(d, 1, sizeof d, fp);
    }
}

lsim_status lsim_las_begin(lsim_point_stream *s, const lsim_points *frame)
{
    lsim_las_writer *w = calloc(1, sizeof *w);
    if (!w)
        return lsim_fail(s->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", s->path);
    s->las = w;
    for (int k = 0; k < 3; ++k) {
        w->offset[k] = frame->frame == LSIM_FRAME_WORLD ? round(frame->viewpoint[k]) : 0.0;
        w->min[k] = INT32_MAX;
        w->max[k] = INT32_MIN;
    }
    w->scan_time = frame->scan_time;
    w->record_bytes = LAS_PDRF6_SIZE + extra_bytes(s->columns);
    w->vlr_count = extra_count(s->columns) ? 1 : 0;
    w->data_offset = LAS_HEADER_SIZE +
                     (w->vlr_count ? LAS_VLR_HEADER + (uint32_t)(extra_count(s->columns) * LAS_EB_DESCRIPTOR) : 0);
    write_header(s->fp, w);
    if (w->vlr_count)
        write_extra_bytes_vlr(s->fp, s->columns);
    return LSIM_OK;
}

static const float *col_f32(const lsim_points *p, lsim_field f, uint32_t columns)
{
    return columns & LSIM_FIELD_BIT(f) ? (const float *)p->column[f] : NULL;
}

static const uint16_t *col_u16(const lsim_points *p, lsim_field f, uint32_t columns)
{
    return columns & LSIM_FIELD_BIT(f) ? (const uint16_t *)p->column[f] : NULL;
}

/* Quantise coordinate k of point i; LSIM_OK or an error naming the value. */
static lsim_status quantise(lsim_point_stream *s, lsim_las_writer *w, int k, float v, size_t i, int32_t *out)
{
    static const char axis[] = "xyz";
    if (!isfinite(v))
        return lsim_fail(s->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "cannot write LAS '%s': point %llu has a non-finite %c (a beam without a return, kept by "
                         "--keep-misses?); LAS has no missing coordinates: scan without --keep-misses or write "
                         "PCD, PLY or CSV", s->path, (unsigned long long)(w->count + i), axis[k]);
    double q = round(((double)v - w->offset[k]) / LAS_SCALE);
    if (!(q >= (double)INT32_MIN && q <= (double)INT32_MAX))
        return lsim_fail(s->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "cannot write LAS '%s': point %llu has %c = %.3f m, %.3f m from the file's offset %.0f m: "
                         "beyond the +-214748 m that int32 coordinates at the 0.1 mm scale reach; scan in the "
                         "sensor frame or write PCD, PLY or CSV", s->path,
                         (unsigned long long)(w->count + i), axis[k], (double)v, (double)v - w->offset[k],
                         w->offset[k]);
    *out = (int32_t)q;
    return LSIM_OK;
}

static void pack_extra(const lsim_points *p, uint32_t columns, size_t i, unsigned char *d)
{
    for (size_t e = 0; e < LAS_EXTRA_COUNT; ++e) {
        lsim_field f = las_extra[e].field;
        if (!(columns & LSIM_FIELD_BIT(f)))
            continue;
        switch (lsim_field_get_type(f)) {
        case LSIM_TYPE_F32: lsim_io_put_f32le(d, ((const float *)p->column[f])[i]); break;
        case LSIM_TYPE_U16: lsim_io_put_u16le(d, ((const uint16_t *)p->column[f])[i]); break;
        case LSIM_TYPE_U32: lsim_io_put_u32le(d, ((const uint32_t *)p->column[f])[i]); break;
        }
        d += lsim_field_size(f);
    }
}

lsim_status lsim_las_append(lsim_point_stream *s, const lsim_points *points)
{
    lsim_las_writer *w = s->las;
    const uint32_t c = s->columns;
    const float *xyz[3] = {points->column[LSIM_FIELD_X], points->column[LSIM_FIELD_Y], points->column[LSIM_FIELD_Z]};
    const float *refl = col_f32(points, LSIM_FIELD_REFLECTIVITY, c), *elev = col_f32(points, LSIM_FIELD_ELEVATION, c);
    const float *time = col_f32(points, LSIM_FIELD_TIME, c);
    const uint16_t *ri = col_u16(points, LSIM_FIELD_RETURN_INDEX, c), *nr = col_u16(points, LSIM_FIELD_NUM_RETURNS, c);
    const uint32_t *label = c & LSIM_FIELD_BIT(LSIM_FIELD_LABEL) ? points->column[LSIM_FIELD_LABEL] : NULL;
    const size_t rb = w->record_bytes;
    for (size_t first = 0; first < points->count; first += LAS_ROWS) {
        size_t n = points->count - first < LAS_ROWS ? points->count - first : LAS_ROWS;
        memset(w->buf, 0, n * rb);
        for (size_t k = 0; k < n; ++k) {
            size_t i = first + k;
            unsigned char *d = w->buf + k * rb;
            for (int a = 0; a < 3; ++a) {
                int32_t q = 0;
                lsim_status st = quantise(s, w, a, xyz[a][i], k, &q);
                if (st != LSIM_OK)
                    return st;
                lsim_io_put_u32le(d + 4 * a, (uint32_t)q);
                if (q < w->min[a])
                    w->min[a] = q;
                if (q > w->max[a])
                    w->max[a] = q;
            }
            if (refl) {
                float r = refl[i];
                double u = r > 0.0f ? (r < 1.0f ? (double)r : 1.0) : 0.0; /* NaN -> 0 */
                lsim_io_put_u16le(d + 12, (uint16_t)lround(u * 65535.0));
            }
            unsigned ret = ri ? (unsigned)ri[i] + 1u : 1u, num = nr ? nr[i] : 1u;
            ret = ret > 15u ? 15u : ret;
            num = num > 15u ? 15u : num;
            num = num < ret ? ret : num;
            d[14] = (unsigned char)(ret | (num << 4));
            d[16] = label ? las_class(label[i]) : 0;
            if (elev) {
                double a = isfinite(elev[i]) ? round((double)elev[i] / 0.006) : 0.0;
                a = a > 30000.0 ? 30000.0 : (a < -30000.0 ? -30000.0 : a);
                lsim_io_put_u16le(d + 18, (uint16_t)(int16_t)a);
            }
            lsim_io_put_f64le(d + 22, w->scan_time + (time ? (double)time[i] : 0.0));
            pack_extra(points, c, i, d + LAS_PDRF6_SIZE);
            w->by_return[ret - 1]++;
        }
        w->count += n;
        fwrite(w->buf, rb, n, s->fp);
    }
    return LSIM_OK;
}

lsim_status lsim_las_end(lsim_point_stream *s, lsim_status status)
{
    lsim_las_writer *w = s->las;
    s->las = NULL;
    if (status == LSIM_OK) {
        if (fseek(s->fp, 0, SEEK_SET) != 0)
            status = lsim_fail(s->ctx, LSIM_ERR_IO, "cannot write LAS '%s': cannot seek back to its header", s->path);
        else
            write_header(s->fp, w);
    }
    free(w);
    return status;
}
