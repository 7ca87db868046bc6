/* Generic row serialisation over the lsim_field table, shared by the point-cloud writers.
 * Write errors are not reported here: the FILE* comes from atomic_file, whose commit checks ferror. */
#ifndef LSIM_IO_FIELD_IO_H
#define LSIM_IO_FIELD_IO_H

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
