/* lsim_scan_columns_read (scan_columns.h): the wanted columns of a CSV, PCD or PLY file into
 * arrays of doubles, through the row reader (column_rows.c); for lsim_points_read (x, y, z and
 * every field) and `lidarsim pattern` (x, y, z, time, ring). */
#include "formats/scan_columns.h"

#include "core/context.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* lsim_scan_columns_read's rows: each wanted column into a growing array of doubles. */
typedef struct columns_sink {
    lsim_context *ctx;
    const char *path;
    lsim_scan_columns *out;
    size_t n, cap; /* wanted columns; rows allocated */
} columns_sink;

static void columns_absent(void *user, size_t k)
{
    columns_sink *c = user;
    free(c->out->value[k]);
    c->out->value[k] = NULL; /* absent */
}

static lsim_status columns_row(void *user, const double *v, size_t line, size_t point)
{
    (void)line;
    (void)point;
    columns_sink *s = user;
    lsim_scan_columns *c = s->out;
    if (c->count == s->cap) {
        const size_t cap = s->cap ? 2 * s->cap : 4096;
        for (size_t k = 0; k < s->n; ++k) {
            if (!c->value[k])
                continue;
            double *p = realloc(c->value[k], cap * sizeof(double));
            if (!p)
                return lsim_fail(s->ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", s->path);
            c->value[k] = p;
        }
        s->cap = cap;
    }
    for (size_t k = 0; k < s->n; ++k)
        if (c->value[k])
            c->value[k][c->count] = v[k];
    ++c->count;
    return LSIM_OK;
}

void lsim_scan_columns_free(lsim_scan_columns *c)
{
    if (!c)
        return;
    for (size_t k = 0; k < LSIM_SCAN_COLUMNS_MAX; ++k)
        free(c->value[k]);
    memset(c, 0, sizeof *c);
}

lsim_status lsim_scan_columns_read(lsim_context *ctx, const char *path, size_t n, const char *const *names,
                                   const int *required, const char *need, lsim_scan_columns *out)
{
    if (!path || !out || !names || !required || n == 0 || n > LSIM_SCAN_COLUMNS_MAX)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_scan_columns_read: path, out, names and required "
                         "must not be NULL, and 1..%d columns", LSIM_SCAN_COLUMNS_MAX);
    memset(out, 0, sizeof *out);
    char hint[256] = "";
    for (size_t k = 0; k < n; ++k) {
        size_t len = strlen(hint);
        snprintf(hint + len, sizeof hint - len, "%s%s", k ? ", " : "", names[k]);
    }
    columns_sink sink = {ctx, path, out, n, 0};
    const lsim_column_rows how = {LSIM_INPUT_POINTS, n, names, required, need ? need : "", hint, "point", "",
                                  columns_row, columns_absent, &sink};
    /* every column gets an array (freed again by columns_absent when the file lacks it) */
    lsim_status st = LSIM_OK;
    for (size_t k = 0; k < n && st == LSIM_OK; ++k)
        if (!(out->value[k] = malloc(sizeof(double))))
            st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    if (st == LSIM_OK)
        st = lsim_column_rows_read(ctx, path, &how);
    if (st != LSIM_OK) {
        lsim_scan_columns_free(out);
        return st;
    }
    return LSIM_OK;
}
