/* The real scan of a fit (fit_file.h): one row per beam, its range (and intensity), from the CSV,
 * PCD or PLY that `lidarsim scan --keep-misses` writes (or any file with those columns), read by
 * the point files' column reader (formats/scan_columns.h) row by row: each range checked >= 0,
 * into floats, at most max_rows kept. */
#include "inverse/fit_file.h"

#include "core/context.h"
#include "formats/scan_columns.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void lsim_fit_scan_free(lsim_fit_scan *scan)
{
    if (!scan)
        return;
    free(scan->range);
    free(scan->intensity);
    memset(scan, 0, sizeof *scan);
}

typedef struct scan_sink {
    lsim_context *ctx;
    const char *path;
    size_t max_rows;
    lsim_fit_scan *out;
} scan_sink;

/* A range read at text line `line`, or (binary) at point `point` (line 0), checked; then kept. */
static lsim_status keep_beam(void *user, const double *v, size_t line, size_t point)
{
    scan_sink *k = user;
    const double range = v[0];
    if (range < 0.0) {
        if (line)
            return lsim_fail(k->ctx, LSIM_ERR_PARSE, "%s:%zu: range %g is negative; a range is >= 0 (0, nan or inf: "
                             "no return)", k->path, line, range);
        return lsim_fail(k->ctx, LSIM_ERR_PARSE, "%s: point %zu: range %g is negative; a range is >= 0 (0, nan or "
                         "inf: no return)", k->path, point, range);
    }
    lsim_fit_scan *s = k->out;
    if (s->count < k->max_rows) {
        s->range[s->count] = isfinite(range) ? (float)range : 0.0f;
        if (s->intensity) {
            const double intensity = v[1];
            s->intensity[s->count] = isfinite(intensity) && intensity > 0.0 ? (float)intensity : 0.0f;
        }
    }
    ++s->count;
    return LSIM_OK;
}

lsim_status lsim_fit_scan_read(lsim_context *ctx, const char *path, int want_intensity, size_t max_rows,
                               lsim_fit_scan *out)
{
    if (!path || !out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_fit_scan_read: path and out must not be NULL");
    memset(out, 0, sizeof *out);
    static const char *const want[2] = {"range", "intensity"};
    static const int required[2] = {1, 1};
    scan_sink sink = {ctx, path, max_rows, out};
    /* `intensity` is looked for only when the fit wants it */
    const lsim_column_rows how = {
        LSIM_INPUT_SCAN, want_intensity ? 2 : 1, want, required,
        want_intensity ? "the scan needs one row per beam with its range and intensity (intensity_weight is given), "
                         "as `lidarsim scan SCENE -o FILE --keep-misses` writes it"
                       : "the scan needs one row per beam with its range, as `lidarsim scan SCENE -o FILE "
                         "--keep-misses` writes it",
        "range, intensity", "beam", " --keep-misses", keep_beam, NULL, &sink};
    const size_t n = max_rows ? max_rows : 1;
    out->range = malloc(n * sizeof *out->range);
    out->intensity = want_intensity ? malloc(n * sizeof *out->intensity) : NULL;
    lsim_status st = !out->range || (want_intensity && !out->intensity)
                         ? lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path)
                         : lsim_column_rows_read(ctx, path, &how);
    if (st != LSIM_OK)
        lsim_fit_scan_free(out);
    return st;
}
