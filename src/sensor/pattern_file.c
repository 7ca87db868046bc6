/* Beam table CSV reader.
 *
 *   # comment lines and blank lines are skipped anywhere
 *   elevation_deg,azimuth_deg,time_s,ring     <- header, any order; time_s and ring optional
 *   -15,0,0,0
 *   ...
 *
 * Every failure names file:line, the column (its number and name) and what is valid; never the
 * file's text (a pattern file named in a scene may be any file: its content is not repeated). */
#include "sensor/sensor.h"
#include "core/file_open.h"

#include "core/context.h"
#include "core/text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { COL_AZIMUTH, COL_ELEVATION, COL_TIME, COL_RING, COL_COUNT };
static const char *const column_names[COL_COUNT] = {"azimuth_deg", "elevation_deg", "time_s", "ring"};
#define VALID_COLUMNS "azimuth_deg, elevation_deg (required), time_s, ring (optional)"
#define MAX_ROWS ((size_t)LSIM_SENSOR_MAX_BEAMS)

typedef struct table {
    size_t count, capacity;
    double *col[3]; /* azimuth, elevation, time */
    uint16_t *ring;
} table;

static void table_free(table *t)
{
    for (int i = 0; i < 3; ++i)
        free(t->col[i]);
    free(t->ring);
    memset(t, 0, sizeof *t);
}

static int table_grow(table *t)
{
    size_t cap = t->capacity ? 2 * t->capacity : 1024;
    for (int i = 0; i < 3; ++i) {
        double *p = realloc(t->col[i], cap * sizeof(double));
        if (!p)
            return 0;
        t->col[i] = p;
    }
    uint16_t *r = realloc(t->ring, cap * sizeof(uint16_t));
    if (!r)
        return 0;
    t->ring = r;
    t->capacity = cap;
    return 1;
}

typedef struct reader {
    lsim_context *ctx;
    const char *path;
    size_t line_no;
    int where[COL_COUNT]; /* field index of each column, -1 if absent */
    int fields;           /* fields per row */
} reader;

static lsim_status parse_header(reader *r, char *line)
{
    char *f[COL_COUNT + 1];
    int n = (int)lsim_split_fields(line, ',', f, COL_COUNT + 1);
    for (int c = 0; c < COL_COUNT; ++c)
        r->where[c] = -1;
    if (n > COL_COUNT)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: header has more than %d columns, valid: " VALID_COLUMNS,
                         r->path, r->line_no, COL_COUNT);
    for (int i = 0; i < n; ++i) {
        int c = 0;
        while (c < COL_COUNT && strcmp(f[i], column_names[c]) != 0)
            ++c;
        if (c == COL_COUNT)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: column %d of the header is not a pattern column, "
                             "valid: " VALID_COLUMNS, r->path, r->line_no, i + 1);
        if (r->where[c] >= 0)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: column %d (%s) appears twice in the header (first as "
                             "column %d)", r->path, r->line_no, i + 1, column_names[c], r->where[c] + 1);
        r->where[c] = i;
    }
    for (int c = COL_AZIMUTH; c <= COL_ELEVATION; ++c)
        if (r->where[c] < 0)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: header lacks the column '%s', valid: " VALID_COLUMNS,
                             r->path, r->line_no, column_names[c]);
    r->fields = n;
    return LSIM_OK;
}

static lsim_status parse_number(reader *r, int column, const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v))
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: column %d (%s) is not a finite number", r->path,
                         r->line_no, r->where[column] + 1, column_names[column]);
    *out = v;
    return LSIM_OK;
}

static lsim_status parse_row(reader *r, char *line, table *t)
{
    char *f[COL_COUNT + 1];
    int n = (int)lsim_split_fields(line, ',', f, COL_COUNT + 1);
    if (n != r->fields)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %s%d fields, the header names %d columns", r->path,
                         r->line_no, n > COL_COUNT ? "more than " : "", n > COL_COUNT ? COL_COUNT : n, r->fields);
    if (t->count >= MAX_ROWS)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE,
                         "%s:%zu: more than %d (1e8) beams, the most one frame may have; split the table into "
                         "several pattern files (one per frame)", r->path, r->line_no, LSIM_SENSOR_MAX_BEAMS);
    if (t->count == t->capacity && !table_grow(t))
        return lsim_fail(r->ctx, LSIM_ERR_OUT_OF_MEMORY, "%s:%zu: out of memory reading beams", r->path, r->line_no);
    double v[COL_COUNT] = {0.0, 0.0, 0.0, 0.0};
    for (int c = 0; c < COL_COUNT; ++c) {
        if (r->where[c] < 0)
            continue;
        lsim_status st = parse_number(r, c, f[r->where[c]], &v[c]);
        if (st != LSIM_OK)
            return st;
    }
    if (v[COL_ELEVATION] < -90.0 || v[COL_ELEVATION] > 90.0)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: column %d (elevation_deg): %g is out of range, must be "
                         "-90..90", r->path, r->line_no, r->where[COL_ELEVATION] + 1, v[COL_ELEVATION]);
    if (!(v[COL_TIME] >= 0.0 && v[COL_TIME] <= LSIM_SENSOR_MAX_BEAM_TIME_S))
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: column %d (time_s): %g s is out of range, must be 0..%g s "
                         "(a beam's time within its frame)", r->path, r->line_no, r->where[COL_TIME] + 1, v[COL_TIME],
                         LSIM_SENSOR_MAX_BEAM_TIME_S);
    if (r->where[COL_RING] >= 0 && (v[COL_RING] < 0.0 || v[COL_RING] > 65535.0 || v[COL_RING] != floor(v[COL_RING])))
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: column %d (ring): %g is not an integer 0..65535", r->path,
                         r->line_no, r->where[COL_RING] + 1, v[COL_RING]);
    size_t i = t->count++;
    t->col[0][i] = v[COL_AZIMUTH];
    t->col[1][i] = v[COL_ELEVATION];
    t->col[2][i] = v[COL_TIME];
    t->ring[i] = (uint16_t)v[COL_RING];
    return LSIM_OK;
}

/* Read every line; the first non-comment line is the header. */
static lsim_status read_lines(reader *r, FILE *fp, table *t)
{
    char *line = NULL;
    size_t cap = 0;
    int have_header = 0;
    lsim_status st = LSIM_OK;
    while (getline(&line, &cap, fp) >= 0) {
        ++r->line_no;
        char *s = line;
        if (r->line_no == 1 && strncmp(s, "\xEF\xBB\xBF", 3) == 0)
            s += 3; /* UTF-8 byte order mark */
        s = lsim_trim(s);
        if (*s == '\0' || *s == '#')
            continue;
        st = have_header ? parse_row(r, s, t) : parse_header(r, s);
        if (st != LSIM_OK)
            break;
        have_header = 1;
    }
    if (st == LSIM_OK && ferror(fp))
        st = lsim_fail(r->ctx, LSIM_ERR_IO, "%s:%zu: read error: %s", r->path, r->line_no + 1, strerror(errno));
    free(line);
    if (st != LSIM_OK)
        return st;
    if (!have_header)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: no header line, expected column names: " VALID_COLUMNS,
                         r->path, r->line_no + 1);
    if (t->count == 0)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: no beam rows after the header, need at least one", r->path,
                         r->line_no + 1);
    return LSIM_OK;
}

lsim_status lsim_pattern_file_read(lsim_context *ctx, const char *path, lsim_sensor_spec *spec)
{
    if (!path || !spec)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_pattern_file_read: path and spec must not be NULL");
    FILE *fp = NULL;
    lsim_status open_st = lsim_file_open(ctx, path, LSIM_INPUT_PATTERN, &fp, NULL);
    if (open_st != LSIM_OK)
        return open_st;
    reader r = {ctx, path, 0, {-1, -1, -1, -1}, 0};
    table t = {0, 0, {NULL, NULL, NULL}, NULL};
    lsim_status st = read_lines(&r, fp, &t);
    fclose(fp);
    if (st != LSIM_OK) {
        table_free(&t);
        return st;
    }
    free(spec->pattern_azimuth_deg);
    free(spec->pattern_elevation_deg);
    free(spec->pattern_time_s);
    free(spec->pattern_ring);
    spec->kind = LSIM_SENSOR_PATTERN;
    spec->pattern_count = t.count;
    spec->pattern_azimuth_deg = t.col[0];
    spec->pattern_elevation_deg = t.col[1];
    spec->pattern_time_s = r.where[COL_TIME] >= 0 ? t.col[2] : NULL;
    spec->pattern_ring = r.where[COL_RING] >= 0 ? t.ring : NULL;
    if (r.where[COL_TIME] < 0)
        free(t.col[2]);
    if (r.where[COL_RING] < 0)
        free(t.ring);
    return LSIM_OK;
}
