/* Named columns of a CSV, PCD or PLY file (scan_columns.h), row by row: lsim_column_rows_read,
 * the reader behind lsim_points_read and `lidarsim pattern` (through scan_columns.c, which keeps
 * the rows in arrays) and the fit's real scan (inverse/fit_scan.c, which takes them one at a time). */
#include "formats/scan_columns.h"

#include "core/text.h"

#include "core/context.h"
#include "core/file_open.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* One reading: the caller's wanted columns (how) over one open file. */
typedef struct reader {
    lsim_context *ctx;
    const char *path;
    FILE *fp;
    size_t line;
    size_t ncols;              /* wanted columns */
    const char *const *want;   /* their names */
    const lsim_column_rows *how;
    size_t rows;               /* rows handed to how->row so far */
    uint64_t size;             /* the file's size in bytes */
} reader;

static lsim_status oom(reader *r) { return lsim_fail(r->ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", r->path); }

/* Hand one row (v[k]: wanted column k; NaN when absent) to the caller and count it; `line` is its
 * text line, or 0 and `point` (from 1) in binary data. */
static lsim_status keep(reader *r, const double *v, size_t line, size_t point)
{
    lsim_status st = r->how->row(r->how->user, v, line, point);
    if (st == LSIM_OK)
        ++r->rows;
    return st;
}

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

/* The header's names are not repeated in a message (a scan named in a fit or config file may be
 * any file): only how many columns it has, and the name wanted. */
static lsim_status column_missing(reader *r, const char *what, size_t n, size_t line)
{
    return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: no `%s` column among the header's %zu; %s", r->path, line,
                     what, n, r->how->need);
}

/* Each wanted column's index among `names` (-1 if absent), or the error for the first required one
 * missing, or for a wanted name given to two columns (which is meant is not known: before, the
 * first was used without a word). */
static lsim_status find_columns(reader *r, char **names, size_t n, size_t line, size_t *idx)
{
    for (size_t k = 0; k < r->ncols; ++k) {
        idx[k] = (size_t)-1;
        for (size_t i = 0; i < n && i < MAX_COLUMNS; ++i)
            if (strcmp(names[i], r->want[k]) == 0) {
                if (idx[k] != (size_t)-1)
                    return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: columns %zu and %zu are both named `%s`; "
                                     "which one holds the values is not known: rename or remove one", r->path, line,
                                     idx[k] + 1, i + 1, r->want[k]);
                idx[k] = i;
            }
    }
    for (size_t k = 0; k < r->ncols; ++k)
        if (idx[k] == (size_t)-1 && r->how->required[k])
            return column_missing(r, r->want[k], n, line);
    if (r->how->absent)
        for (size_t k = 0; k < r->ncols; ++k)
            if (idx[k] == (size_t)-1)
                r->how->absent(r->how->user, k);
    return LSIM_OK;
}

/* Text rows: CSV after a header line, or PCD ascii rows (sep ' ', columns known). */
static lsim_status read_text_rows(reader *r, char **line, size_t *cap, char sep, size_t columns, const size_t *col,
                                  size_t expected)
{
    char *field[MAX_COLUMNS];
    while (getline(line, cap, r->fp) >= 0) {
        ++r->line;
        trim_eol(*line);
        if (blank(*line))
            continue;
        if (expected != (size_t)-1 && r->rows == expected)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: more rows than the header's %zu points", r->path,
                             r->line, expected);
        const size_t n = split(*line, sep, field, MAX_COLUMNS);
        if (n != columns)
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %zu values, but the header names %zu columns", r->path,
                             r->line, n, columns);
        double v[LSIM_SCAN_COLUMNS_MAX];
        for (size_t k = 0; k < r->ncols; ++k) {
            v[k] = NAN;
            if (col[k] != (size_t)-1 && lsim_parse_double(field[col[k]], &v[k]))
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: column %zu (%s) is not a number", r->path, r->line,
                                 col[k] + 1, r->want[k]);
        }
        lsim_status st = keep(r, v, r->line, 0);
        if (st != LSIM_OK)
            return st;
    }
    if (ferror(r->fp))
        return lsim_fail(r->ctx, LSIM_ERR_IO, "%s: read error: %s", r->path, strerror(errno));
    if (expected != (size_t)-1 && r->rows != expected)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s: %zu rows, but the header announces %zu points", r->path,
                         r->rows, expected);
    return LSIM_OK;
}

static lsim_status read_csv(reader *r, char *first, char **line, size_t *cap, size_t first_line)
{
    char *field[MAX_COLUMNS];
    const size_t n = split(first, ',', field, MAX_COLUMNS);
    if (n > MAX_COLUMNS)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %zu columns; at most %d", r->path, first_line, n,
                         MAX_COLUMNS);
    size_t col[LSIM_SCAN_COLUMNS_MAX];
    double v;
    if (lsim_parse_double(field[0], &v) == 0)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE,
                         "%s:%zu: the first line is data, not a header; a CSV scan starts with a header line "
                         "naming its columns (%s, ...), as `lidarsim scan SCENE -o FILE.csv%s` writes it", r->path,
                         first_line, r->how->header_hint, r->how->scan_option);
    lsim_status st = find_columns(r, field, n, first_line, col);
    if (st != LSIM_OK)
        return st;
    return read_text_rows(r, line, cap, ',', n, col, (size_t)-1);
}

/* ---------------------------------------------------------------- binary fields */

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

static lsim_status read_binary_rows(reader *r, size_t points, size_t row_bytes, const bin_field *const *f,
                                    long data_start)
{
    if (data_start < 0 || (uint64_t)data_start > r->size)
        return lsim_fail(r->ctx, LSIM_ERR_IO, "%s: read error: %s", r->path, strerror(errno));
    if (row_bytes && (r->size - (uint64_t)data_start) / row_bytes < points)
        return lsim_fail(r->ctx, LSIM_ERR_PARSE,
                         "%s: the header announces %zu points of %zu bytes, but the file holds only %llu bytes of data "
                         "(truncated?)", r->path, points, row_bytes,
                         (unsigned long long)(r->size - (uint64_t)data_start));
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
            double v[LSIM_SCAN_COLUMNS_MAX];
            for (size_t k = 0; k < r->ncols; ++k)
                v[k] = f[k] ? get_value(row + f[k]->offset, f[k]) : NAN;
            st = keep(r, v, 0, done + i + 1);
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
                        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: TYPE entry %zu is invalid; valid: F, I, U",
                                         r->path, r->line, i + 1);
                    fields[i].type = v[0];
                    have_type = 1;
                } else {
                    char *end;
                    long x = strtol(v, &end, 10);
                    const int ok = *end == '\0' && (key[0] == 'S' ? (x == 1 || x == 2 || x == 4 || x == 8)
                                                                  : (x >= 1 && x <= 1 << 20));
                    if (!ok)
                        return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: %s entry %zu is invalid%s", r->path, r->line,
                                         key, i + 1, key[0] == 'S' ? "; valid: 1, 2, 4, 8" : "; valid: 1 to 1048576");
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
            if (points == (size_t)-1) {
                if (height && width > (1ull << 40) / height)
                    return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: WIDTH %zu x HEIGHT %zu points is more than "
                                     "2^40; give the header's real size (or POINTS)", r->path, r->line, width,
                                     height);
                points = width * height;
            }
            size_t offset = 0, columns = 0, first_col[MAX_COLUMNS];
            for (size_t i = 0; i < n; ++i) {
                fields[i].offset = offset;
                first_col[i] = columns;
                offset += fields[i].size * counts[i];
                columns += counts[i];
            }
            if (columns > MAX_COLUMNS - 1)
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: the fields' COUNTs make %zu values a point; at most "
                                 "%d are read", r->path, r->line, columns, MAX_COLUMNS - 1);
            for (size_t i = 0; i < n; ++i)
                if (fields[i].type == 'F' && fields[i].size != 4 && fields[i].size != 8)
                    return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: field %zu is TYPE F of SIZE %zu; floats are 4 "
                                     "or 8 bytes", r->path, r->line, i + 1, fields[i].size);
            char *list[MAX_COLUMNS];
            for (size_t i = 0; i < n; ++i)
                list[i] = names[i];
            size_t idx[LSIM_SCAN_COLUMNS_MAX], col[LSIM_SCAN_COLUMNS_MAX];
            const bin_field *bf[LSIM_SCAN_COLUMNS_MAX];
            lsim_status found = find_columns(r, list, n, r->line, idx);
            if (found != LSIM_OK)
                return found;
            for (size_t k = 0; k < r->ncols; ++k) {
                col[k] = idx[k] == (size_t)-1 ? (size_t)-1 : first_col[idx[k]];
                bf[k] = idx[k] == (size_t)-1 ? NULL : &fields[idx[k]];
            }
            if (m == 2 && strcmp(field[1], "ascii") == 0)
                return read_text_rows(r, line, cap, ' ', columns, col, points);
            if (m == 2 && strcmp(field[1], "binary") == 0)
                return read_binary_rows(r, points, offset, bf, ftell(r->fp));
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: DATA is not one of ascii, binary (binary_compressed "
                             "is not read: convert it, e.g. with pcl_convert_pcd_ascii_binary)", r->path, r->line);
        } else if (strcmp(key, "VERSION") != 0 && strcmp(key, "VIEWPOINT") != 0) {
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: not a PCD header line (valid: VERSION, FIELDS, SIZE, "
                             "TYPE, COUNT, WIDTH, HEIGHT, VIEWPOINT, POINTS, DATA)", r->path, r->line);
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
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: the PLY format is not read; valid: "
                                 "binary_little_endian, ascii", r->path, r->line);
        } else if (strcmp(field[0], "element") == 0 && m == 3) {
            if (have_vertex)
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: a second element; a scan holds one "
                                 "vertex element", r->path, r->line);
            if (strcmp(field[1], "vertex") != 0)
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: an element other than `vertex` before the "
                                 "vertices; a scan holds one vertex element", r->path, r->line);
            char *end;
            errno = 0;
            unsigned long long x = strtoull(field[2], &end, 10);
            if (*end || errno || x > (1ull << 40))
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: the vertex count is not a whole number up to 2^40",
                                 r->path, r->line);
            points = (size_t)x;
            in_vertex = have_vertex = 1;
        } else if (strcmp(field[0], "property") == 0 && in_vertex && m == 3) {
            if (n == MAX_COLUMNS)
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: more than %d properties", r->path, r->line,
                                 MAX_COLUMNS);
            if (ply_type(field[1], &fields[n]))
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: the type of property %zu is not read (valid: "
                                 "char, uchar, short, ushort, int, uint, float, double and their int8..float64 names; "
                                 "list properties neither)", r->path, r->line, n + 1);
            fields[n].offset = offset;
            offset += fields[n].size;
            snprintf(names[n++], sizeof names[0], "%s", field[2]);
        } else if (strcmp(field[0], "property") == 0 && in_vertex) {
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: a list property; a scan's vertices have scalar "
                             "properties (%s, ...)", r->path, r->line, r->how->header_hint);
        } else if (strcmp(field[0], "end_header") == 0) {
            if (format < 0 || !have_vertex)
                return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: the PLY header needs `format` and `element "
                                 "vertex N`", r->path, r->line);
            char *list[MAX_COLUMNS];
            for (size_t i = 0; i < n; ++i)
                list[i] = names[i];
            size_t idx[LSIM_SCAN_COLUMNS_MAX];
            const bin_field *bf[LSIM_SCAN_COLUMNS_MAX];
            lsim_status found = find_columns(r, list, n, r->line, idx);
            if (found != LSIM_OK)
                return found;
            for (size_t k = 0; k < r->ncols; ++k)
                bf[k] = idx[k] == (size_t)-1 ? NULL : &fields[idx[k]];
            if (format == 0)
                return read_text_rows(r, line, cap, ' ', n, idx, points);
            return read_binary_rows(r, points, offset, bf, ftell(r->fp));
        } else {
            return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s:%zu: not a PLY header line that a scan has (valid: "
                             "format, element, property, comment, obj_info, end_header)", r->path, r->line);
        }
    }
    return lsim_fail(r->ctx, LSIM_ERR_PARSE, "%s: the PLY header has no end_header line", r->path);
}

/* Open the file and read it in the format its content names. */
static lsim_status read_any(reader *r)
{
    lsim_context *ctx = r->ctx;
    const char *path = r->path;
    FILE *fp;
    lsim_status st = lsim_file_open(ctx, path, r->how->input, &fp, &r->size);
    if (st != LSIM_OK)
        return st;
    r->fp = fp;
    char *line = NULL;
    size_t cap = 0;
    /* the format from the first significant line */
    while (st == LSIM_OK) {
        if (getline(&line, &cap, fp) < 0) {
            st = ferror(fp) ? lsim_fail(ctx, LSIM_ERR_IO, "%s: read error: %s", path, strerror(errno))
                            : lsim_fail(ctx, LSIM_ERR_PARSE, "%s: the scan file is empty; it needs a header line "
                                        "naming its columns (%s, ...) and one row per %s", path,
                                        r->how->header_hint, r->how->row_noun);
            break;
        }
        ++r->line;
        trim_eol(line);
        if (r->line == 1 && strcmp(line, "ply") == 0) {
            st = read_ply(r, &line, &cap);
            break;
        }
        if (blank(line))
            continue;
        if (line[0] == '#' || strncmp(line, "VERSION", 7) == 0 || strncmp(line, "FIELDS", 6) == 0) {
            if (line[0] == '#' && !strstr(line, "PCD"))
                continue; /* a comment line before a CSV header */
            st = read_pcd(r, &line, &cap);
            break;
        }
        st = read_csv(r, line, &line, &cap, r->line);
        break;
    }
    free(line);
    fclose(fp);
    return st;
}

lsim_status lsim_column_rows_read(lsim_context *ctx, const char *path, const lsim_column_rows *how)
{
    if (!path || !how || !how->names || !how->required || !how->row || how->n == 0 ||
        how->n > LSIM_SCAN_COLUMNS_MAX)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_column_rows_read: path, names, required and row "
                         "must not be NULL, and 1..%d columns", LSIM_SCAN_COLUMNS_MAX);
    reader r = {ctx, path, NULL, 0, how->n, how->names, how, 0, 0};
    return read_any(&r);
}
