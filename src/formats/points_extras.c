/* lsim_points_read_extras (formats/points_extras.h): a PCD's VIEWPOINT and a dataset frame's
 * labels, read through the one opener (core/file_open.h). */
#include "formats/points_extras.h"

#include "core/context.h"
#include "core/text.h"
#include "core/file_open.h"
#include "formats/field_io.h"
#include "points/points.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define HEADER_MAX_BYTES (1u << 20) /* a PCD header is a few hundred bytes; DATA ends it */
#define LABEL_CHUNK 16384           /* labels read at a time */

/* The 7 numbers of a VIEWPOINT line's value (after the keyword): 1 when there are exactly 7,
 * finite, with a non-zero quaternion (normalised into v). */
static int parse_viewpoint(const char *s, double v[7])
{
    for (int k = 0; k < 7; ++k) {
        char *end;
        v[k] = strtod(s, &end);
        if (end == s || !isfinite(v[k]))
            return 0;
        s = end;
    }
    s += strspn(s, " \t\r\n");
    const double q = sqrt(v[3] * v[3] + v[4] * v[4] + v[5] * v[5] + v[6] * v[6]);
    if (*s || !(q > 0.0) || !isfinite(q))
        return 0;
    for (int k = 3; k < 7; ++k)
        v[k] /= q;
    return 1;
}

/* The VIEWPOINT of a PCD header into points->viewpoint (left as it is without one). */
static lsim_status read_viewpoint(lsim_context *ctx, const char *path, lsim_points *points)
{
    FILE *fp;
    lsim_status st = lsim_file_open(ctx, path, LSIM_INPUT_POINTS, &fp, NULL);
    if (st != LSIM_OK)
        return st;
    char line[512];
    size_t bytes = 0;
    int number = 0, whole = 1; /* whole: this chunk starts a line */
    while (bytes < HEADER_MAX_BYTES && fgets(line, sizeof line, fp)) {
        const size_t len = strlen(line);
        bytes += len;
        const int starts = whole;
        whole = len > 0 && line[len - 1] == '\n';
        if (!starts)
            continue; /* the rest of a long line (a FIELDS line of many fields) */
        ++number;
        const char *s = line + strspn(line, " \t");
        if (strncasecmp(s, "DATA", 4) == 0)
            break;
        if (strncasecmp(s, "VIEWPOINT", 9) != 0 || (s[9] != ' ' && s[9] != '\t'))
            continue;
        double v[7];
        if (!whole && len == sizeof line - 1) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%d: the VIEWPOINT line is longer than %zu characters; give "
                           "7 numbers: VIEWPOINT tx ty tz qw qx qy qz (e.g. VIEWPOINT 0 0 0 1 0 0 0)", path, number,
                           sizeof line - 2);
        } else if (!parse_viewpoint(s + 9, v)) {
            st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s:%d: VIEWPOINT needs 7 finite numbers, tx ty tz qw qx qy qz "
                           "(the sensor's position and a non-zero rotation quaternion), e.g. VIEWPOINT 0 0 0 1 0 0 "
                           "0; correct the line or remove it (the sensor is then at the origin)", path, number);
        } else {
            memcpy(points->viewpoint, v, sizeof v);
        }
        break;
    }
    fclose(fp);
    return st;
}

/* ".../velodyne/NAME.EXT" or ".../points/NAME.EXT" -> ".../labels/NAME.label" (malloc'd), or NULL
 * (*oom set when the allocation failed) for a path not in such a folder. */
static char *frame_label_path(const char *path, int *oom)
{
    *oom = 0;
    const char *slash = strrchr(path, '/');
    if (!slash)
        return NULL;
    const char *dir = slash;
    while (dir > path && dir[-1] != '/')
        --dir;
    const size_t dir_len = (size_t)(slash - dir);
    if (!((dir_len == 8 && !strncmp(dir, "velodyne", 8)) || (dir_len == 6 && !strncmp(dir, "points", 6))))
        return NULL;
    const char *name = slash + 1, *dot = strrchr(name, '.');
    const size_t stem = dot && dot > name ? (size_t)(dot - name) : strlen(name);
    const size_t prefix = (size_t)(dir - path);
    char *out = malloc(prefix + sizeof "labels/" - 1 + stem + sizeof ".label");
    if (!out) {
        *oom = 1;
        return NULL;
    }
    memcpy(out, path, prefix);
    memcpy(out + prefix, "labels/", 7);
    memcpy(out + prefix + 7, name, stem);
    memcpy(out + prefix + 7 + stem, ".label", sizeof ".label");
    return out;
}

/* The labels of `label_path` into the label and instance columns `want` asks for. */
static lsim_status read_frame_labels(lsim_context *ctx, const char *path, const char *label_path, uint32_t want,
                                     lsim_points *p)
{
    FILE *fp;
    uint64_t size = 0;
    lsim_status st = lsim_file_open(ctx, label_path, LSIM_INPUT_LABELS, &fp, &size);
    if (st != LSIM_OK)
        return st;
    if (size != 4 * (uint64_t)p->count) {
        fclose(fp);
        return lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %llu bytes, but %s holds %zu points (4 bytes each expected: "
                         "%llu); the two files are not of one frame: give the frame whose labels these are",
                         label_path, (unsigned long long)size, path, p->count, 4 * (unsigned long long)p->count);
    }
    const size_t n = p->capacity > p->count ? p->capacity : p->count ? p->count : 1;
    unsigned char *chunk = malloc(4 * LABEL_CHUNK);
    static const lsim_field columns[2] = {LSIM_FIELD_LABEL, LSIM_FIELD_INSTANCE};
    for (int k = 0; k < 2; ++k) {
        const lsim_field f = columns[k];
        if ((want & LSIM_FIELD_BIT(f)) && !p->column[f] && (p->column[f] = malloc(n * sizeof(uint32_t))))
            p->fields |= LSIM_FIELD_BIT(f);
    }
    uint32_t *label = p->column[LSIM_FIELD_LABEL], *instance = p->column[LSIM_FIELD_INSTANCE];
    if (!chunk || ((want & LSIM_FIELD_BIT(LSIM_FIELD_LABEL)) && !label) ||
        ((want & LSIM_FIELD_BIT(LSIM_FIELD_INSTANCE)) && !instance))
        st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu labels", label_path, p->count);
    for (size_t i = 0; st == LSIM_OK && i < p->count;) {
        const size_t m = p->count - i < LABEL_CHUNK ? p->count - i : LABEL_CHUNK;
        if (fread(chunk, 4, m, fp) != m) {
            st = lsim_fail(ctx, LSIM_ERR_IO, "%s: the file ended or failed after %zu of %zu labels (it changed "
                           "while read?); read it again", label_path, i, p->count);
            break;
        }
        for (size_t k = 0; k < m; ++k, ++i) {
            const uint32_t v = lsim_io_get_u32le(chunk + 4 * k);
            if (label)
                label[i] = v & 0xFFFFu;
            if (instance)
                instance[i] = v >> 16;
        }
    }
    free(chunk);
    fclose(fp);
    return st;
}

lsim_status lsim_points_read_extras(lsim_context *ctx, const char *path, uint32_t fields, lsim_points *points)
{
    lsim_status st = LSIM_OK;
    if (lsim_has_extension(path, ".pcd"))
        st = read_viewpoint(ctx, path, points);
    const uint32_t label_bits = LSIM_FIELD_BIT(LSIM_FIELD_LABEL) | LSIM_FIELD_BIT(LSIM_FIELD_INSTANCE);
    if (st != LSIM_OK || !(fields & label_bits) || (points->fields & label_bits))
        return st;
    int oom;
    char *label_path = frame_label_path(path, &oom);
    if (oom)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    struct stat info; /* none there: no labels; anything else there is read (a FIFO or device is refused) */
    if (label_path && lstat(label_path, &info) == 0)
        st = read_frame_labels(ctx, path, label_path, fields & label_bits, points);
    free(label_path);
    return st;
}
