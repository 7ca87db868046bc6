/* Raw 2-D scans: beam lines `range_m,intensity,angle_rad` and ROS LaserScan text dumps
 * (see scan_read.h). Every malformed line is reported as "FILE:LINE: ..." with what is valid. */
#include "calib/scan_read.h"
#include "core/text.h"

#include "core/context.h"
#include "core/file_open.h"
#include "core/vec.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------------------------------- */
/* Growing arrays                                                                               */

static lsim_status scan_push(lsim_context *ctx, lsim_scan_data *s, size_t *cap, double range, double intensity,
                             double angle)
{
    if (s->count == *cap) {
        size_t n = *cap ? *cap * 2 : 4096;
        double *r = realloc(s->range_m, n * sizeof *r);
        if (r)
            s->range_m = r;
        double *v = r ? realloc(s->intensity, n * sizeof *v) : NULL;
        if (v)
            s->intensity = v;
        double *a = v ? realloc(s->angle_rad, n * sizeof *a) : NULL;
        if (a)
            s->angle_rad = a;
        if (!r || !v || !a)
            return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading a scan (%zu beams)", s->count);
        *cap = n;
    }
    s->range_m[s->count] = range;
    s->intensity[s->count] = intensity;
    s->angle_rad[s->count] = angle;
    ++s->count;
    return LSIM_OK;
}

void lsim_scan_free(lsim_scan_data *scan)
{
    if (!scan)
        return;
    free(scan->range_m);
    free(scan->intensity);
    free(scan->angle_rad);
    memset(scan, 0, sizeof *scan);
}

/* ------------------------------------------------------------------------------------------- */
/* Text helpers                                                                                 */



static lsim_status open_text(lsim_context *ctx, const char *path, FILE **out)
{
    if (!path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "no scan file given");
    return lsim_file_open(ctx, path, LSIM_INPUT_SCAN, out, NULL);
}

/* ------------------------------------------------------------------------------------------- */
/* Revolutions                                                                                  */

static int compare_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

/* Segments between angle wraps (a jump of more than pi between consecutive beams); the
 * revolution length is the most common segment length (ties: the longer) among the segments of
 * at least LSIM_SCAN_MIN_BEAMS_PER_REVOLUTION beams, so that a few stray beams at an end do not
 * define it; among all segments when none is that long. O(n + s log s) for s segments: the
 * lengths are sorted and counted run by run (it compared every pair before: an alternating-angle
 * scan of 80k lines took 8.5 s). */
static lsim_status count_revolutions(lsim_context *ctx, lsim_scan_data *s)
{
    s->revolutions = 0;
    s->beams_per_revolution = 0;
    if (!s->count)
        return LSIM_OK;
    size_t segments = 1;
    for (size_t i = 1; i < s->count; ++i)
        segments += fabs(s->angle_rad[i] - s->angle_rad[i - 1]) > LSIM_PI;
    size_t *len = calloc(segments, sizeof *len);
    if (!len)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory counting revolutions (%zu segments)", segments);
    size_t k = 0;
    len[0] = 1;
    for (size_t i = 1; i < s->count; ++i) {
        if (fabs(s->angle_rad[i] - s->angle_rad[i - 1]) > LSIM_PI)
            ++k;
        ++len[k];
    }
    qsort(len, segments, sizeof *len, compare_size);
    /* The sorted lengths from `first` on are those long enough (all of them when none is). */
    size_t first = 0;
    while (first < segments && len[first] < LSIM_SCAN_MIN_BEAMS_PER_REVOLUTION)
        ++first;
    if (first == segments)
        first = 0;
    size_t best = 0, best_votes = 0;
    for (size_t a = first; a < segments;) {
        size_t b = a;
        while (b < segments && len[b] == len[a])
            ++b;
        if (b - a >= best_votes) { /* ascending lengths: a tie goes to the longer */
            best = len[a];
            best_votes = b - a;
        }
        a = b;
    }
    free(len);
    s->revolutions = segments;
    s->beams_per_revolution = best;
    return LSIM_OK;
}

size_t lsim_scan_complete_revolutions(const lsim_scan_data *scan)
{
    return scan->beams_per_revolution ? scan->count / scan->beams_per_revolution : 0;
}

lsim_status lsim_scan_check_revolutions(lsim_context *ctx, const char *path, const lsim_scan_data *scan)
{
    const size_t per = scan->beams_per_revolution;
    if (per < LSIM_SCAN_MIN_BEAMS_PER_REVOLUTION)
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: no usable revolution structure: %zu beams in %zu revolutions "
                         "(angle wraps), the most common revolution being %zu beam%s long; at least %d beams per "
                         "revolution are needed. Give one beam per line in firing order, the angle increasing (or "
                         "decreasing) through each revolution and wrapping once per revolution",
                         path, scan->count, scan->revolutions, per, per == 1 ? "" : "s",
                         LSIM_SCAN_MIN_BEAMS_PER_REVOLUTION);
    if (scan->count < per)
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %zu beams, less than one complete revolution of %zu beams; record "
                         "at least one full revolution", path, scan->count, per);
    return LSIM_OK;
}

/* ------------------------------------------------------------------------------------------- */
/* Beam lines                                                                                   */

static const char *const field_names[3] = {"range_m", "intensity", "angle_rad"};

lsim_status lsim_scan_read_beam_lines(lsim_context *ctx, const char *path, lsim_scan_data *out)
{
    memset(out, 0, sizeof *out);
    out->format = LSIM_SCAN_BEAM_LINES;
    FILE *f;
    lsim_status st = open_text(ctx, path, &f);
    if (st != LSIM_OK)
        return st;
    char *line = NULL;
    size_t line_cap = 0, cap = 0, number = 0;
    int header_seen = 0;
    ssize_t got;
    while (st == LSIM_OK && (got = getline(&line, &line_cap, f)) >= 0) {
        ++number;
        if ((size_t)got != strlen(line)) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: the line holds a NUL byte; a scan file is text with "
                           "lines `range_m,intensity,angle_rad`", path, number);
            break;
        }
        char *s = lsim_trim(line);
        if (!*s || *s == '#')
            continue;
        if (!out->count && !header_seen && strncasecmp(s, "range", 5) == 0) { /* a header line */
            header_seen = 1;
            continue;
        }
        /* messages name the line and field, never the text: a scan named in a config may be any file */
        char *fields[3] = {NULL, NULL, NULL};
        size_t nf = lsim_split_fields(s, ',', fields, 3);
        if (nf != 3) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: expected 3 comma-separated fields `range_m,intensity,"
                           "angle_rad` (e.g. `0.384,47.0,-3.124`), got %s%zu field%s", path, number,
                           nf > 3 ? "more than " : "", nf > 3 ? (size_t)3 : nf, nf == 1 ? "" : "s");
            break;
        }
        double v[3];
        for (int k = 0; k < 3 && st == LSIM_OK; ++k)
            if (lsim_parse_double(fields[k], &v[k]))
                st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: field %d (%s) is not a number; expected "
                               "`range_m,intensity,angle_rad` with range `inf` or `nan` for no echo", path, number,
                               k + 1, field_names[k]);
        if (st != LSIM_OK)
            break;
        if (v[0] < 0.0 && isfinite(v[0]))
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: range %g is negative; valid: a range >= 0 in metres, "
                           "or inf / nan / 0 for no echo", path, number, v[0]);
        else if (v[1] < 0.0 || isinf(v[1]))
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: intensity %g is invalid; valid: a finite number >= 0 "
                           "(or nan when the sensor reports none)", path, number, v[1]);
        else if (!isfinite(v[2]) || fabs(v[2]) > 4.0 * LSIM_PI)
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: angle %g is invalid; valid: a finite angle in radians "
                           "within +-4 pi", path, number, v[2]);
        else
            st = scan_push(ctx, out, &cap, v[0] < 0.0 ? INFINITY : v[0], v[1], v[2]);
    }
    if (st == LSIM_OK && ferror(f))
        st = lsim_fail(ctx, LSIM_ERR_IO, "%s: read error: %s", path, strerror(errno));
    free(line);
    fclose(f);
    if (st == LSIM_OK && !out->count)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: no beams: the file has no `range_m,intensity,angle_rad` lines",
                       path);
    if (st == LSIM_OK)
        st = count_revolutions(ctx, out);
    if (st != LSIM_OK)
        lsim_scan_free(out);
    return st;
}

/* ------------------------------------------------------------------------------------------- */
/* LaserScan dumps                                                                              */

typedef struct dump_block {
    size_t line;                    /* first line of the block */
    int has_start, has_increment;
    double start, increment;
    double *ranges, *intensities;   /* owned */
    size_t n_ranges, n_intensities;
    int has_ranges, has_intensities;
    size_t ranges_line, intensities_line;
} dump_block;

static void block_clear(dump_block *b)
{
    free(b->ranges);
    free(b->intensities);
    memset(b, 0, sizeof *b);
}

/* Parse `array('f', [a, b, ...])`, `array('f')`, `[a, b]` or `(a, b)` into a new array. */
static lsim_status parse_array(lsim_context *ctx, const char *path, size_t number, const char *key, char *value,
                               double **out, size_t *count)
{
    char *s = lsim_trim(value);
    *out = NULL;
    *count = 0;
    if (strncmp(s, "array(", 6) == 0) {
        size_t n = strlen(s);
        if (n < 7 || s[n - 1] != ')')
            return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: %s: expected `array('f', [v, v, ...])` on one line",
                             path, number, key);
        s[n - 1] = '\0';
        s += 6;
        char *comma = strchr(s, ',');
        if (!comma) /* array('f'): empty */
            return LSIM_OK;
        s = lsim_trim(comma + 1);
    }
    size_t n = strlen(s);
    if (n < 2 || !((s[0] == '[' && s[n - 1] == ']') || (s[0] == '(' && s[n - 1] == ')')))
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: %s: expected a list `[v, v, ...]` or `array('f', [v, v, "
                         "...])` on one line", path, number, key);
    s[n - 1] = '\0';
    s = lsim_trim(s + 1);
    if (!*s)
        return LSIM_OK;
    size_t items = 1;
    for (const char *p = s; *p; ++p)
        items += *p == ',';
    double *v = malloc(items * sizeof *v);
    if (!v)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "%s:%zu: out of memory for %zu values", path, number, items);
    size_t k = 0;
    for (char *p = s;; ++k) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        if (lsim_parse_double(p, &v[k])) {
            free(v);
            return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: %s item %zu is not a number (valid: numbers, inf, "
                             "nan)", path, number, key, k + 1);
        }
        if (!comma)
            break;
        p = comma + 1;
    }
    *out = v;
    *count = k + 1;
    return LSIM_OK;
}

static lsim_status block_finish(lsim_context *ctx, const char *path, dump_block *b, lsim_scan_data *s, size_t *cap)
{
    const char *missing = !b->has_start ? "start_angle (or angle_min)"
                        : !b->has_increment ? "angle_increment" : !b->has_ranges ? "ranges" : NULL;
    if (missing)
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: the LaserScan block starting here has no `%s:`; each block "
                         "needs start_angle, angle_increment and ranges (intensities optional)", path, b->line,
                         missing);
    if (!isfinite(b->increment) || b->increment == 0.0 || fabs(b->increment) > LSIM_PI)
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: angle_increment %g is invalid; valid: a non-zero angle in "
                         "radians within +-pi", path, b->line, b->increment);
    if (!isfinite(b->start) || fabs(b->start) > 4.0 * LSIM_PI)
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: start_angle %g is invalid; valid: a finite angle in radians",
                         path, b->line, b->start);
    if (!b->n_ranges)
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: ranges is empty; a LaserScan block needs at least one beam",
                         path, b->ranges_line);
    if (b->has_intensities && b->n_intensities && b->n_intensities != b->n_ranges)
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: intensities has %zu values but ranges (line %zu) has %zu; "
                         "they must match (or intensities be empty)", path, b->intensities_line, b->n_intensities,
                         b->ranges_line, b->n_ranges);
    for (size_t i = 0; i < b->n_ranges; ++i) {
        double r = b->ranges[i];
        double v = b->n_intensities ? b->intensities[i] : NAN;
        if (r < 0.0 && isfinite(r))
            return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: ranges item %zu is negative (%g); valid: >= 0, inf or "
                             "nan", path, b->ranges_line, i + 1, r);
        if (v < 0.0 || isinf(v))
            return lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: intensities item %zu (%g) is invalid; valid: a finite "
                             "number >= 0", path, b->intensities_line, i + 1, v);
        lsim_status st = scan_push(ctx, s, cap, r < 0.0 ? INFINITY : r, v, b->start + (double)i * b->increment);
        if (st != LSIM_OK)
            return st;
    }
    ++s->revolutions;
    if (b->n_ranges > s->beams_per_revolution)
        s->beams_per_revolution = b->n_ranges;
    return LSIM_OK;
}

lsim_status lsim_scan_read_laserscan(lsim_context *ctx, const char *path, lsim_scan_data *out)
{
    memset(out, 0, sizeof *out);
    out->format = LSIM_SCAN_LASERSCAN_DUMP;
    FILE *f;
    lsim_status st = open_text(ctx, path, &f);
    if (st != LSIM_OK)
        return st;
    dump_block b;
    memset(&b, 0, sizeof b);
    int open_block = 0;
    char *line = NULL;
    size_t line_cap = 0, cap = 0, number = 0;
    ssize_t got;
    while (st == LSIM_OK && (got = getline(&line, &line_cap, f)) >= 0) {
        ++number;
        if ((size_t)got != strlen(line)) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: the line holds a NUL byte; a LaserScan dump is text",
                           path, number);
            break;
        }
        char *s = lsim_trim(line);
        if (!*s || *s == '#')
            continue;
        if (strcmp(s, "---") == 0) { /* ros2 topic echo separator */
            if (open_block)
                st = block_finish(ctx, path, &b, out, &cap);
            block_clear(&b);
            open_block = 0;
            continue;
        }
        char *colon = strchr(s, ':');
        if (!colon || colon == s) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: expected `key: value` (a LaserScan dump line such as "
                           "`angle_increment: 0.0087`)", path, number);
            break;
        }
        *colon = '\0';
        char *key = lsim_trim(s), *value = colon + 1;
        int is_start = strcmp(key, "start_angle") == 0 || strcmp(key, "angle_min") == 0;
        int is_inc = strcmp(key, "angle_increment") == 0;
        int is_ranges = strcmp(key, "ranges") == 0, is_int = strcmp(key, "intensities") == 0;
        int is_stamp = strcmp(key, "Timestamp") == 0;
        /* A key seen twice (or a new Timestamp) starts the next block. */
        int repeat = (is_start && b.has_start) || (is_inc && b.has_increment) || (is_ranges && b.has_ranges) ||
                     (is_int && b.has_intensities) || (is_stamp && open_block);
        if (repeat) {
            st = block_finish(ctx, path, &b, out, &cap);
            block_clear(&b);
            open_block = 0;
            if (st != LSIM_OK)
                break;
        }
        if (!open_block) {
            open_block = 1;
            b.line = number;
        }
        if (is_start || is_inc) {
            double v;
            if (lsim_parse_double(value, &v)) {
                st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%zu: %s is not a number (radians)", path, number, key);
                break;
            }
            if (is_start) {
                b.start = v;
                b.has_start = 1;
            } else {
                b.increment = v;
                b.has_increment = 1;
            }
        } else if (is_ranges) {
            st = parse_array(ctx, path, number, key, value, &b.ranges, &b.n_ranges);
            b.has_ranges = 1;
            b.ranges_line = number;
        } else if (is_int) {
            st = parse_array(ctx, path, number, key, value, &b.intensities, &b.n_intensities);
            b.has_intensities = 1;
            b.intensities_line = number;
        }
        /* Other keys (Timestamp, end_angle, range_min, range_max, header fields, ...) are ignored. */
    }
    if (st == LSIM_OK && ferror(f))
        st = lsim_fail(ctx, LSIM_ERR_IO, "%s: read error: %s", path, strerror(errno));
    if (st == LSIM_OK && open_block)
        st = block_finish(ctx, path, &b, out, &cap);
    block_clear(&b);
    free(line);
    fclose(f);
    if (st == LSIM_OK && !out->count)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: no LaserScan blocks (`ranges: [...]` lines) in the file", path);
    if (st != LSIM_OK)
        lsim_scan_free(out);
    return st;
}

/* ------------------------------------------------------------------------------------------- */

lsim_status lsim_scan_read(lsim_context *ctx, const char *path, lsim_scan_data *out)
{
    memset(out, 0, sizeof *out);
    FILE *f;
    lsim_status st = open_text(ctx, path, &f);
    if (st != LSIM_OK)
        return st;
    /* The first significant line decides: `key:` -> LaserScan dump, anything else -> beam lines. */
    int dump = 0;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, f) >= 0) {
        char *s = lsim_trim(line);
        if (!*s || *s == '#')
            continue;
        char *colon = strchr(s, ':');
        dump = colon && colon > s && (strcmp(s, "---") != 0);
        if (strcmp(s, "---") == 0)
            dump = 1;
        for (char *p = s; dump && p < colon; ++p)
            if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == ' '))
                dump = 0;
        break;
    }
    free(line);
    fclose(f);
    return dump ? lsim_scan_read_laserscan(ctx, path, out) : lsim_scan_read_beam_lines(ctx, path, out);
}
