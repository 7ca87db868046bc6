#include "formats/field_io.h"

#include "core/context.h"

#include <math.h>
#include <stdlib.h>

/* Rows packed per fwrite: large enough to amortise the call, small enough to stay in cache. */
#define ROWS_PER_CHUNK 4096

size_t lsim_io_row_bytes(uint32_t columns)
{
    size_t bytes = 0;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f)
        if (columns & LSIM_FIELD_BIT(f))
            bytes += lsim_field_size((lsim_field)f);
    return bytes;
}

/* Pack rows [first, first + n) into dst, one field (column) at a time. */
static void pack_rows(const lsim_points *points, uint32_t columns, size_t first, size_t n, unsigned char *dst,
                      size_t row_bytes)
{
    size_t offset = 0;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f) {
        if (!(columns & LSIM_FIELD_BIT(f)))
            continue;
        unsigned char *d = dst + offset;
        switch (lsim_field_get_type((lsim_field)f)) {
        case LSIM_TYPE_F32: {
            const float *src = (const float *)points->column[f] + first;
            for (size_t i = 0; i < n; ++i, d += row_bytes)
                lsim_io_put_f32le(d, src[i]);
            break;
        }
        case LSIM_TYPE_U16: {
            const uint16_t *src = (const uint16_t *)points->column[f] + first;
            for (size_t i = 0; i < n; ++i, d += row_bytes)
                lsim_io_put_u16le(d, src[i]);
            break;
        }
        case LSIM_TYPE_U32: {
            const uint32_t *src = (const uint32_t *)points->column[f] + first;
            for (size_t i = 0; i < n; ++i, d += row_bytes)
                lsim_io_put_u32le(d, src[i]);
            break;
        }
        }
        offset += lsim_field_size((lsim_field)f);
    }
}

lsim_status lsim_io_write_binary_rows(const lsim_points *points, uint32_t columns, FILE *fp, const char *path)
{
    size_t count = points->count;
    if (count == 0)
        return LSIM_OK;
    size_t row_bytes = lsim_io_row_bytes(columns);
    size_t chunk = count < ROWS_PER_CHUNK ? count : ROWS_PER_CHUNK;
    unsigned char *buf = malloc(chunk * row_bytes);
    if (!buf)
        return lsim_fail(points->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", path);
    for (size_t first = 0; first < count && !ferror(fp); first += chunk) {
        size_t n = count - first < chunk ? count - first : chunk;
        pack_rows(points, columns, first, n, buf, row_bytes);
        fwrite(buf, row_bytes, n, fp);
    }
    free(buf);
    return LSIM_OK;
}

void lsim_io_print_value(FILE *fp, const lsim_points *points, lsim_field field, size_t index)
{
    switch (lsim_field_get_type(field)) {
    case LSIM_TYPE_F32: {
        float v = ((const float *)points->column[field])[index];
        if (isnan(v))
            fputs("nan", fp); /* glibc would print "-nan" for negative NaNs */
        else
            fprintf(fp, "%.9g", (double)v);
        break;
    }
    case LSIM_TYPE_U16:
        fprintf(fp, "%u", (unsigned)((const uint16_t *)points->column[field])[index]);
        break;
    case LSIM_TYPE_U32:
        fprintf(fp, "%lu", (unsigned long)((const uint32_t *)points->column[field])[index]);
        break;
    }
}

void lsim_io_write_text_rows(const lsim_points *points, uint32_t columns, FILE *fp, char separator)
{
    for (size_t i = 0; i < points->count && !ferror(fp); ++i) {
        int first = 1;
        for (int f = 0; f < LSIM_FIELD_COUNT; ++f) {
            if (!(columns & LSIM_FIELD_BIT(f)))
                continue;
            if (!first)
                fputc(separator, fp);
            first = 0;
            lsim_io_print_value(fp, points, (lsim_field)f, i);
        }
        fputc('\n', fp);
    }
}
