/* Named columns of a point file: CSV with a header line, PCD (ascii or binary) or PLY (ascii or
 * binary little-endian), the formats `lidarsim scan` writes. One row per point, in the file's
 * order: into arrays of doubles (lsim_scan_columns_read, scan_columns.c: lsim_points_read,
 * `lidarsim pattern`), or handed to the caller row by row (lsim_column_rows_read, column_rows.c:
 * the fit's real scan, inverse/fit_scan.c). */
#ifndef LSIM_FORMATS_SCAN_COLUMNS_H
#define LSIM_FORMATS_SCAN_COLUMNS_H

#include "core/file_open.h"
#include "lidarsim.h"

#include <stddef.h>

#define LSIM_SCAN_COLUMNS_MAX 24 /* at least LSIM_FIELD_COUNT: lsim_points_read reads every field at once */

typedef struct lsim_scan_columns {
    size_t count;                          /* rows */
    double *value[LSIM_SCAN_COLUMNS_MAX];  /* value[k][row] of wanted column k; NULL when the file lacks it */
} lsim_scan_columns;

/* Read the n columns `names` (the first column of each name; extra columns are ignored); a
 * column whose `required` entry is non-zero must be there. `need` completes the message for a
 * missing column ("the scan needs ..."). LSIM_ERR_IO when the file cannot be read, LSIM_ERR_PARSE
 * "FILE:LINE: ..." for a malformed file, a missing required column or a non-number. On failure
 * nothing needs freeing; on success lsim_scan_columns_free. */
lsim_status lsim_scan_columns_read(lsim_context *ctx, const char *path, size_t n, const char *const *names,
                                   const int *required, const char *need, lsim_scan_columns *out);
void lsim_scan_columns_free(lsim_scan_columns *c);

/* A reading for a caller that takes each row itself: the columns wanted and the words of the
 * messages, which name what the file is for. */
typedef struct lsim_column_rows {
    lsim_input_kind input;    /* the opener's bound: LSIM_INPUT_POINTS, LSIM_INPUT_SCAN */
    size_t n;                 /* wanted columns, 1..LSIM_SCAN_COLUMNS_MAX */
    const char *const *names; /* their names */
    const int *required;      /* non-zero: the column must be there */
    const char *need;         /* ends "PATH:LINE: no `X` column among the header's N; ..." */
    const char *header_hint;  /* the columns a header names ("range, intensity"), for messages */
    const char *row_noun;     /* what a row is ("point", "beam"), for the empty file's message */
    const char *scan_option;  /* the `lidarsim scan` option that writes such a CSV (" --keep-misses"), or "" */
    /* One row: v[k] column k's value (NaN when the file lacks it); `line` its text line, or 0 and
     * `point` (from 1) in binary data. Anything but LSIM_OK (its message set) ends the reading. */
    lsim_status (*row)(void *user, const double *v, size_t line, size_t point);
    /* Column k is not in the file (after the header, before any row); may be NULL. */
    void (*absent)(void *user, size_t k);
    void *user;
} lsim_column_rows;

/* Read `path` with `how`: LSIM_ERR_IO, LSIM_ERR_PARSE and LSIM_ERR_OUT_OF_MEMORY as
 * lsim_scan_columns_read, or the status `how->row` returned. */
lsim_status lsim_column_rows_read(lsim_context *ctx, const char *path, const lsim_column_rows *how);

#endif
