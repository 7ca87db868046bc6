/* Named columns of a point file: CSV with a header line, PCD (ascii or binary) or PLY (ascii or
 * binary little-endian), the formats `lidarsim scan` writes; the same reader as the fit's scan
 * (fit_scan.c). One row per point, in the file's order. */
#ifndef LSIM_INVERSE_SCAN_COLUMNS_H
#define LSIM_INVERSE_SCAN_COLUMNS_H

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

#endif
