/* The real scan of a fit (fit_file.h): one row per beam, its range (and intensity), from the CSV,
 * PCD or PLY that `lidarsim scan --keep-misses` writes (or any file with those columns). */
#include "core/text.h"
#include "inverse/fit_file.h"

#include "core/context.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void lsim_fit_scan_free(lsim_fit_scan *scan)
{
    if (!scan)
        return;
    free(scan->range);
    free(scan->intensity);
    memset(scan, 0, sizeof *scan);
}

typedef struct reader {
    lsim_context *ctx;
    const char *path;
    FILE *fp;
    int want_intensity;
    size_t max_rows;
    lsim_fit_scan *out;
    size_t line;
} reader;

static lsim_status oom(reader *r) { return lsim_fail(r->ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", r->path); }

/* Keep row `count` (while below max_rows) and count it. */
static void keep(reader *r, double range, double intensity)
{
    lsim_fit_scan *s = r->out;
    if (s->count < r->max_rows) {
        s->range[s->count] = isfinite(range) ? (float)range : 0.0f;
        if (s->intensity)
            s->intensity[s->count] = isfinite(intensity) && intensity > 0.0 ? (float)intensity : 0.0f;
    }
    ++s->count;
}

/* A range read at text line `row`, or (binary) at point `point` (row 0). */
static lsim_status check_range_at(reader *r, double range, size_t row, size_t point)
{
    if (range < 0.0) {
        if (row)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: range %g is negative; a range is >= 0 (0, nan or inf: "
                             "no return)", r->path, row, range);
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s: point %zu: range %g is negative; a range is >= 0 (0, nan or "
                         "inf: no return)", r->path, point, range);
    }
    return LSIM_OK;
}

static lsim_status check_range(reader *r, double range, size_t row) { return check_range_at(r, range, row, 0); }


static void trim_eol(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
}

static int blank(const char *s)
{
    while (isspace((unsigned char)*s))
        ++s;
    return !*s;
}

/* ---------------------------------------------------------------- CSV */

/* Split `s` at `sep` (or any run of blanks when sep is ' '), in place; the number of fields (at
 * most max kept). */
static size_t split(char *s, char sep, char **field, size_t max)
{
    size_t n = 0;
    if (sep == ' ') {
        for (char *p = s;;) {
            while (*p && isspace((unsigned char)*p))
                ++p;
            if (!*p)
                break;
            if (n < max)
                field[n] = p;
            ++n;
            while (*p && !isspace((unsigned char)*p))
                ++p;
            if (*p)
                *p++ = '\0';
        }
        return n;
    }
    for (char *p = s;; ++n) {
        char *c = strchr(p, sep);
        if (n < max)
            field[n] = p;
        if (!c) {
            ++n;
            break;
        }
        *c = '\0';
        p = c + 1;
    }
    for (size_t i = 0; i < n && i < max; ++i) {
        while (isspace((unsigned char)*field[i]))
            ++field[i];
        size_t len = strlen(field[i]);
        while (len && isspace((unsigned char)field[i][len - 1]))
            field[i][--len] = '\0';
    }
    return n;
}

#define MAX_COLUMNS 256

static lsim_status column_missing(reader *r, const char *what, char **names, size_t n, size_t line)
{
    char list[512] = "";
    for (size_t i = 0; i < n && i < MAX_COLUMNS; ++i) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%.40s", i ? ", " : "", names[i]);
    }
    return lsim_fail(r->ctx, LSIM_ERR_PARSE,
                     "%s:%zu: no `%s` column (columns: %s); the scan needs one row per beam with its range%s, as "
                     "`lidarsim scan SCENE -o FILE --keep-misses` writes it", r->path, line, what, list[0] ? list : "none",
                     r->want_intensity ? " and intensity (intensity_weight is given)" : "");
}

/* Text rows: CSV after a header line, or PCD ascii rows (sep ' ', columns known). */
static lsim_status read_text_rows(reader *r, char **line, size_t *cap, char sep, size_t columns, size_t range_col,
                                  size_t intensity_col, size_t expected)
{
    char *field[MAX_COLUMNS];
    while (getline(line, cap, r->fp) >= 0) {
        ++r->line;
        trim_eol(*line);
        if (blank(*line))
            continue;
        if (expected != (size_t)-1 && r->out->count == expected)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: more rows than the header's %zu points", r->path,
                             r->line, expected);
        const size_t n = split(*line, sep, field, MAX_COLUMNS);
        if (n != columns)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %zu values, but the header names %zu columns", r->path,
                             r->line, n, columns);
        double range = 0.0, intensity = 0.0;
        if (lsim_parse_double(field[range_col], &range))
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: range '%.40s' is not a number", r->path, r->line,
                             field[range_col]);
        if (intensity_col != (size_t)-1 && lsim_parse_double(field[intensity_col], &intensity))
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: intensity '%.40s' is not a number", r->path, r->line,
                             field[intensity_col]);
        lsim_status st = check_range(r, range, r->line);
        if (st != LSIM_OK)
            return st;
        keep(r, range, intensity);
    }
    if (ferror(r->fp))
        return lsim_fail(r->ctx, LSIM_ERR_IO, "%s: read error: %s", r->path, strerror(errno));
    if (expected != (size_t)-1 && r->out->count != expected)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s: %zu rows, but the header announces %zu points", r->path,
                         r->out->count, expected);
    return LSIM_OK;
}

static lsim_status read_csv(reader *r, char *first, char **line, size_t *cap, size_t first_line)
{
    char *field[MAX_COLUMNS];
    const size_t n = split(first, ',', field, MAX_COLUMNS);
    if (n > MAX_COLUMNS)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %zu columns; at most %d", r->path, first_line, n,
                         MAX_COLUMNS);
    size_t range_col = (size_t)-1, intensity_col = (size_t)-1;
    for (size_t i = 0; i < n; ++i) {
        if (strcmp(field[i], "range") == 0 && range_col == (size_t)-1)
            range_col = i;
        if (strcmp(field[i], "intensity") == 0 && intensity_col == (size_t)-1)
            intensity_col = i;
    }
    if (range_col == (size_t)-1) {
        double v;
        if (lsim_parse_double(field[0], &v) == 0)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE,
                             "%s:%zu: the first line is data, not a header; a CSV scan starts with a header line "
                             "naming its columns (range, intensity, ...), as `lidarsim scan SCENE -o FILE.csv "
                             "--keep-misses` writes it", r->path, first_line);
        return column_missing(r, "range", field, n, first_line);
    }
    if (r->want_intensity && intensity_col == (size_t)-1)
        return column_missing(r, "intensity", field, n, first_line);
    return read_text_rows(r, line, cap, ',', n, range_col, r->want_intensity ? intensity_col : (size_t)-1,
                          (size_t)-1);
}

/* ---------------------------------------------------------------- binary fields */

/* A binary header's (PCD, PLY) field names: range found (range_i not -1) and intensity when
 * wanted (else *intensity_i becomes -1), or the error naming the fields there are. */
static lsim_status header_columns(reader *r, char (*names)[48], size_t n, size_t range_i, size_t *intensity_i)
{
    if (range_i == (size_t)-1 || (r->want_intensity && *intensity_i == (size_t)-1)) {
        char *list[MAX_COLUMNS];
        for (size_t i = 0; i < n; ++i)
            list[i] = names[i];
        return column_missing(r, range_i == (size_t)-1 ? "range" : "intensity", list, n, r->line);
    }
    if (!r->want_intensity)
        *intensity_i = (size_t)-1;
    return LSIM_OK;
}

typedef struct bin_field {
    char type; /* 'F', 'I', 'U' */
    size_t size, offset;
} bin_field;

static double get_value(const unsigned char *p, const bin_field *f)
{
    uint64_t u = 0;
    for (size_t b = 0; b < f->size; ++b)
        u |= (uint64_t)p[b] << (8 * b); /* little-endian */
    if (f->type == 'F') {
        if (f->size == 4) {
            uint32_t w = (uint32_t)u;
            float v;
            memcpy(&v, &w, 4);
            return v;
        }
        double v;
        memcpy(&v, &u, 8);
        return v;
    }
    if (f->type == 'I') {
        const unsigned shift = (unsigned)(64 - 8 * f->size);
        return (double)((int64_t)(u << shift) >> shift);
    }
    return (double)u;
}

static lsim_status read_binary_rows(reader *r, size_t points, size_t row_bytes, const bin_field *range,
                                    const bin_field *intensity, long data_start)
{
    struct stat info;
    if (fstat(fileno(r->fp), &info) == 0 && S_ISREG(info.st_mode) && row_bytes &&
        ((unsigned long long)info.st_size - (unsigned long long)data_start) / row_bytes < points)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE,
                         "%s: the header announces %zu points of %zu bytes, but the file holds only %lld bytes of data "
                         "(truncated?)", r->path, points, row_bytes, (long long)info.st_size - (long long)data_start);
    const size_t chunk = row_bytes < (1u << 20) ? (1u << 20) / row_bytes : 1; /* rows per read: about 1 MiB */
    unsigned char *buf = malloc(row_bytes * chunk);
    if (!buf)
        return oom(r);
    lsim_status st = LSIM_OK;
    for (size_t done = 0; done < points && st == LSIM_OK;) {
        const size_t m = points - done < chunk ? points - done : chunk;
        if (fread(buf, row_bytes, m, r->fp) != m) {
            st = lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s: the data ends after %zu of %zu points (truncated?)", r->path,
                           done, points);
            break;
        }
        for (size_t i = 0; i < m && st == LSIM_OK; ++i) {
            const unsigned char *row = buf + i * row_bytes;
            const double v = get_value(row + range->offset, range);
            st = check_range_at(r, v, 0, done + i + 1);
            if (st == LSIM_OK)
                keep(r, v, intensity ? get_value(row + intensity->offset, intensity) : 0.0);
        }
        done += m;
    }
    free(buf);
    return st;
}

/* ---------------------------------------------------------------- PCD */

static lsim_status read_pcd(reader *r, char **line, size_t *cap)
{
    char *field[MAX_COLUMNS];
    char names[MAX_COLUMNS][48];
    bin_field fields[MAX_COLUMNS];
    size_t counts[MAX_COLUMNS];
    size_t n = 0, width = 0, height = 1, points = (size_t)-1;
    int have_size = 0, have_type = 0;
    for (size_t i = 0; i < MAX_COLUMNS; ++i) {
        fields[i].type = 'F';
        fields[i].size = 4;
        counts[i] = 1;
    }
    rewind(r->fp);
    r->line = 0;
    while (getline(line, cap, r->fp) >= 0) {
        ++r->line;
        trim_eol(*line);
        if (blank(*line) || (*line)[0] == '#')
            continue;
        size_t m = split(*line, ' ', field, MAX_COLUMNS);
        if (m > MAX_COLUMNS)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: more than %d fields", r->path, r->line, MAX_COLUMNS - 1);
        const char *key = field[0];
        if (strcmp(key, "FIELDS") == 0) {
            n = m - 1;
            for (size_t i = 0; i < n; ++i)
                snprintf(names[i], sizeof names[i], "%s", field[i + 1]);
        } else if (strcmp(key, "SIZE") == 0 || strcmp(key, "TYPE") == 0 || strcmp(key, "COUNT") == 0) {
            if (m - 1 != n)
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %s has %zu entries but FIELDS names %zu", r->path,
                                 r->line, key, m - 1, n);
            for (size_t i = 0; i < n; ++i) {
                const char *v = field[i + 1];
                if (key[0] == 'T') {
                    if (strlen(v) != 1 || !strchr("FIU", v[0]))
                        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: TYPE '%.20s'; valid: F, I, U", r->path,
                                         r->line, v);
                    fields[i].type = v[0];
                    have_type = 1;
                } else {
                    char *end;
                    long x = strtol(v, &end, 10);
                    const int ok = *end == '\0' && (key[0] == 'S' ? (x == 1 || x == 2 || x == 4 || x == 8)
                                                                  : (x >= 1 && x <= 1 << 20));
                    if (!ok)
                        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %s '%.20s' is invalid%s", r->path, r->line,
                                         key, v, key[0] == 'S' ? "; valid: 1, 2, 4, 8" : "");
                    if (key[0] == 'S') {
                        fields[i].size = (size_t)x;
                        have_size = 1;
                    } else {
                        counts[i] = (size_t)x;
                    }
                }
            }
        } else if (strcmp(key, "WIDTH") == 0 || strcmp(key, "HEIGHT") == 0 || strcmp(key, "POINTS") == 0) {
            char *end = NULL;
            errno = 0;
            unsigned long long x = m == 2 ? strtoull(field[1], &end, 10) : 0;
            if (m != 2 || *end || errno || x > (1ull << 40))
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %s needs one count", r->path, r->line, key);
            if (key[0] == 'W')
                width = (size_t)x;
            else if (key[0] == 'H')
                height = (size_t)x;
            else
                points = (size_t)x;
        } else if (strcmp(key, "DATA") == 0) {
            if (!n)
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: DATA before FIELDS", r->path, r->line);
            if (!have_size || !have_type)
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: the header needs SIZE and TYPE", r->path, r->line);
            if (points == (size_t)-1)
                points = width * height;
            size_t offset = 0, range_i = (size_t)-1, intensity_i = (size_t)-1, columns = 0, range_col = 0,
                   intensity_col = 0;
            for (size_t i = 0; i < n; ++i) {
                fields[i].offset = offset;
                if (strcmp(names[i], "range") == 0 && range_i == (size_t)-1) {
                    range_i = i;
                    range_col = columns;
                }
                if (strcmp(names[i], "intensity") == 0 && intensity_i == (size_t)-1) {
                    intensity_i = i;
                    intensity_col = columns;
                }
                offset += fields[i].size * counts[i];
                columns += counts[i];
            }
            if (columns > MAX_COLUMNS - 1)
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: the fields' COUNTs make %zu values a point; at most "
                                 "%d are read", r->path, r->line, columns, MAX_COLUMNS - 1);
            for (size_t i = 0; i < n; ++i)
                if (fields[i].type == 'F' && fields[i].size != 4 && fields[i].size != 8)
                    return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: field '%s' is TYPE F of SIZE %zu; floats are 4 "
                                     "or 8 bytes", r->path, r->line, names[i], fields[i].size);
            lsim_status found = header_columns(r, names, n, range_i, &intensity_i);
            if (found != LSIM_OK)
                return found;
            const bin_field *rf = &fields[range_i], *inf = intensity_i != (size_t)-1 ? &fields[intensity_i] : NULL;
            if (m == 2 && strcmp(field[1], "ascii") == 0)
                return read_text_rows(r, line, cap, ' ', columns, range_col, inf ? intensity_col : (size_t)-1,
                                      points);
            if (m == 2 && strcmp(field[1], "binary") == 0)
                return read_binary_rows(r, points, offset, rf, inf, ftell(r->fp));
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: DATA '%.30s'; valid: ascii, binary (binary_compressed "
                             "is not read: convert it, e.g. with pcl_convert_pcd_ascii_binary)", r->path, r->line,
                             m > 1 ? field[1] : "");
        } else if (strcmp(key, "VERSION") != 0 && strcmp(key, "VIEWPOINT") != 0) {
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: unknown PCD header line '%.30s'", r->path, r->line, key);
        }
    }
    return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s: the PCD header has no DATA line", r->path);
}

/* ---------------------------------------------------------------- PLY */

static int ply_type(const char *t, bin_field *f)
{
    static const struct { const char *name; char type; size_t size; } types[] = {
        {"char", 'I', 1}, {"int8", 'I', 1}, {"uchar", 'U', 1}, {"uint8", 'U', 1}, {"short", 'I', 2},
        {"int16", 'I', 2}, {"ushort", 'U', 2}, {"uint16", 'U', 2}, {"int", 'I', 4}, {"int32", 'I', 4},
        {"uint", 'U', 4}, {"uint32", 'U', 4}, {"float", 'F', 4}, {"float32", 'F', 4}, {"double", 'F', 8},
        {"float64", 'F', 8},
    };
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i)
        if (strcmp(t, types[i].name) == 0) {
            f->type = types[i].type;
            f->size = types[i].size;
            return 0;
        }
    return -1;
}

static lsim_status read_ply(reader *r, char **line, size_t *cap)
{
    char *field[8];
    char names[MAX_COLUMNS][48];
    bin_field fields[MAX_COLUMNS];
    size_t n = 0, points = 0, offset = 0;
    int format = -1, in_vertex = 0, have_vertex = 0; /* format 0 ascii, 1 binary little-endian */
    rewind(r->fp);
    r->line = 0;
    while (getline(line, cap, r->fp) >= 0) {
        ++r->line;
        trim_eol(*line);
        if (r->line == 1)
            continue; /* "ply" */
        size_t m = split(*line, ' ', field, 8);
        if (m == 0 || strcmp(field[0], "comment") == 0 || strcmp(field[0], "obj_info") == 0)
            continue;
        if (strcmp(field[0], "format") == 0 && m >= 2) {
            if (strcmp(field[1], "ascii") == 0)
                format = 0;
            else if (strcmp(field[1], "binary_little_endian") == 0)
                format = 1;
            else
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: PLY format '%.30s'; valid: binary_little_endian, "
                                 "ascii", r->path, r->line, field[1]);
        } else if (strcmp(field[0], "element") == 0 && m == 3) {
            if (have_vertex)
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: a second element ('%.30s'); a scan holds one "
                                 "vertex element", r->path, r->line, field[1]);
            if (strcmp(field[1], "vertex") != 0)
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: element '%.30s' before the vertices; a scan holds "
                                 "one vertex element", r->path, r->line, field[1]);
            char *end;
            errno = 0;
            unsigned long long x = strtoull(field[2], &end, 10);
            if (*end || errno || x > (1ull << 40))
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: vertex count '%.30s' is invalid", r->path, r->line,
                                 field[2]);
            points = (size_t)x;
            in_vertex = have_vertex = 1;
        } else if (strcmp(field[0], "property") == 0 && in_vertex && m == 3) {
            if (n == MAX_COLUMNS)
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: more than %d properties", r->path, r->line,
                                 MAX_COLUMNS);
            if (ply_type(field[1], &fields[n]))
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: property type '%.30s' is not read (list "
                                 "properties neither)", r->path, r->line, field[1]);
            fields[n].offset = offset;
            offset += fields[n].size;
            snprintf(names[n++], sizeof names[0], "%s", field[2]);
        } else if (strcmp(field[0], "property") == 0 && in_vertex) {
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: a list property; a scan's vertices have scalar "
                             "properties (range, intensity, ...)", r->path, r->line);
        } else if (strcmp(field[0], "end_header") == 0) {
            if (format < 0 || !have_vertex)
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: the PLY header needs `format` and `element "
                                 "vertex N`", r->path, r->line);
            size_t range_i = (size_t)-1, intensity_i = (size_t)-1;
            for (size_t i = 0; i < n; ++i) {
                if (strcmp(names[i], "range") == 0 && range_i == (size_t)-1)
                    range_i = i;
                if (strcmp(names[i], "intensity") == 0 && intensity_i == (size_t)-1)
                    intensity_i = i;
            }
            lsim_status found = header_columns(r, names, n, range_i, &intensity_i);
            if (found != LSIM_OK)
                return found;
            if (format == 0)
                return read_text_rows(r, line, cap, ' ', n, range_i, intensity_i, points);
            return read_binary_rows(r, points, offset, &fields[range_i],
                                    intensity_i != (size_t)-1 ? &fields[intensity_i] : NULL, ftell(r->fp));
        } else {
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: unexpected PLY header line '%.40s'", r->path, r->line,
                             field[0]);
        }
    }
    return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s: the PLY header has no end_header line", r->path);
}

lsim_status lsim_fit_scan_read(lsim_context *ctx, const char *path, int want_intensity, size_t max_rows,
                               lsim_fit_scan *out)
{
    if (!path || !out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_fit_scan_read: path and out must not be NULL");
    memset(out, 0, sizeof *out);
    struct stat info;
    if (stat(path, &info) == 0 && S_ISDIR(info.st_mode))
        return lsim_fail(ctx, LSIM_ERR_IO, "%s: is a directory, not a scan file", path);
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return lsim_fail(ctx, LSIM_ERR_IO, "%s: cannot open the scan file: %s", path, strerror(errno));
    reader r = {ctx, path, fp, want_intensity, max_rows, out, 0};
    const size_t n = max_rows ? max_rows : 1;
    out->range = malloc(n * sizeof *out->range);
    out->intensity = want_intensity ? malloc(n * sizeof *out->intensity) : NULL;
    lsim_status st = !out->range || (want_intensity && !out->intensity) ? oom(&r) : LSIM_OK;
    char *line = NULL;
    size_t cap = 0;
    /* the format from the first significant line */
    while (st == LSIM_OK) {
        if (getline(&line, &cap, fp) < 0) {
            st = ferror(fp) ? lsim_fail(ctx, LSIM_ERR_IO, "%s: read error: %s", path, strerror(errno))
                            : lsim_fail(ctx, LSIM_ERR_PARSE, "%s: the scan file is empty; it needs a header line "
                                        "naming its columns (range, intensity, ...) and one row per beam", path);
            break;
        }
        ++r.line;
        trim_eol(line);
        if (r.line == 1 && strcmp(line, "ply") == 0) {
            st = read_ply(&r, &line, &cap);
            break;
        }
        if (blank(line))
            continue;
        if (line[0] == '#' || strncmp(line, "VERSION", 7) == 0 || strncmp(line, "FIELDS", 6) == 0) {
            if (line[0] == '#' && !strstr(line, "PCD"))
                continue; /* a comment line before a CSV header */
            st = read_pcd(&r, &line, &cap);
            break;
        }
        st = read_csv(&r, line, &line, &cap, r.line);
        break;
    }
    free(line);
    fclose(fp);
    if (st != LSIM_OK)
        lsim_fit_scan_free(out);
    return st;
}
