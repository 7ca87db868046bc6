/* Generic row serialisation over the lsim_field table, shared by the point-cloud writers.
 * Write errors are not reported here: the FILE* comes from atomic_file, whose commit checks ferror. */
#ifndef LSIM_FORMATS_FIELD_IO_H
#define LSIM_FORMATS_FIELD_IO_H

#include "points/points.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static inline void lsim_io_put_u16le(unsigned char *d, uint16_t v)
{
    d[0] = (unsigned char)(v & 0xFF);
    d[1] = (unsigned char)(v >> 8);
}

static inline void lsim_io_put_u32le(unsigned char *d, uint32_t v)
{
    d[0] = (unsigned char)(v & 0xFF);
    d[1] = (unsigned char)((v >> 8) & 0xFF);
    d[2] = (unsigned char)((v >> 16) & 0xFF);
    d[3] = (unsigned char)(v >> 24);
}

static inline void lsim_io_put_f32le(unsigned char *d, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    lsim_io_put_u32le(d, bits);
}

static inline void lsim_io_put_u64le(unsigned char *d, uint64_t v)
{
    lsim_io_put_u32le(d, (uint32_t)v);
    lsim_io_put_u32le(d + 4, (uint32_t)(v >> 32));
}

static inline void lsim_io_put_f64le(unsigned char *d, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    lsim_io_put_u64le(d, bits);
}

/* The same read back, from little-endian bytes. */
static inline uint16_t lsim_io_get_u16le(const unsigned char *b) { return (uint16_t)(b[0] | b[1] << 8); }

static inline uint32_t lsim_io_get_u32le(const unsigned char *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline uint64_t lsim_io_get_u64le(const unsigned char *b)
{
    return (uint64_t)lsim_io_get_u32le(b) | (uint64_t)lsim_io_get_u32le(b + 4) << 32;
}

static inline float lsim_io_get_f32le(const unsigned char *b)
{
    const uint32_t bits = lsim_io_get_u32le(b);
    float v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static inline double lsim_io_get_f64le(const unsigned char *b)
{
    const uint64_t bits = lsim_io_get_u64le(b);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* Bytes of one row holding the fields of `columns` (LSIM_FIELD_BIT mask) in lsim_field order
 * (packed, no padding). */
size_t lsim_io_row_bytes(uint32_t columns);

/* Write every point as a little-endian packed row (the fields of `columns`, in enum order).
 * LSIM_ERR_OUT_OF_MEMORY (message names `path`) or LSIM_OK. */
lsim_status lsim_io_write_binary_rows(const lsim_points *points, uint32_t columns, FILE *fp, const char *path);

/* Print one value: floats "%.9g" (round-trips float32 exactly; NaN as "nan"), integers "%u". */
void lsim_io_print_value(FILE *fp, const lsim_points *points, lsim_field field, size_t index);

/* Print every point as one text line, the fields of `columns` in enum order separated by
 * `separator`. */
void lsim_io_write_text_rows(const lsim_points *points, uint32_t columns, FILE *fp, char separator);

#endif
