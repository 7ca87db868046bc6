/* KITTI / SemanticKITTI output: three files written and committed together.
 *
 *   <stem>.bin          per point float32 x, y, z, intensity (little-endian). The 4th value is the
 *                       *reflectivity* field clamped to [0, 1], not the raw `intensity` field:
 *                       KITTI consumers expect a reflectance in [0, 1], whereas our intensity is a
 *                       range-dependent return strength of arbitrary scale. NaN and values <= 0
 *                       become 0, values >= 1 (and +inf) become 1.
 *   <stem>.label        per point uint32 = (label & 0xFFFF) | (instance << 16) (SemanticKITTI:
 *                       semantic id in the low 16 bits, instance id in the high 16 bits).
 *   <stem>.labels.yaml  the id -> name map of points->labels, SemanticKITTI config style.
 */
#include "core/context.h"
#include "core/text.h"
#include "formats/field_io.h"
#include "formats/writers.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static float clamp_unit(float v)
{
    if (!(v > 0.0f)) /* also NaN */
        return 0.0f;
    return v < 1.0f ? v : 1.0f;
}

void lsim_kitti_write_rows(const lsim_points *points, FILE *bin_fp, FILE *label_fp, unsigned char *buf)
{
    const float *x = points->column[LSIM_FIELD_X], *y = points->column[LSIM_FIELD_Y];
    const float *z = points->column[LSIM_FIELD_Z], *r = points->column[LSIM_FIELD_REFLECTIVITY];
    for (size_t first = 0; first < points->count && !ferror(bin_fp); first += LSIM_KITTI_ROWS) {
        size_t n = points->count - first < LSIM_KITTI_ROWS ? points->count - first : LSIM_KITTI_ROWS;
        for (size_t k = 0; k < n; ++k) {
            size_t i = first + k;
            lsim_io_put_f32le(buf + 16 * k, x[i]);
            lsim_io_put_f32le(buf + 16 * k + 4, y[i]);
            lsim_io_put_f32le(buf + 16 * k + 8, z[i]);
            lsim_io_put_f32le(buf + 16 * k + 12, clamp_unit(r[i]));
        }
        fwrite(buf, 16, n, bin_fp);
    }
    const uint32_t *label = points->column[LSIM_FIELD_LABEL], *inst = points->column[LSIM_FIELD_INSTANCE];
    for (size_t first = 0; first < points->count && !ferror(label_fp); first += LSIM_KITTI_ROWS) {
        size_t n = points->count - first < LSIM_KITTI_ROWS ? points->count - first : LSIM_KITTI_ROWS;
        for (size_t k = 0; k < n; ++k)
            lsim_io_put_u32le(buf + 4 * k, (label[first + k] & 0xFFFFu) | (inst[first + k] << 16));
        fwrite(buf, 4, n, label_fp);
    }
}

/* Whether a class name can be written as a YAML plain scalar that reads back as the same string. */
static int yaml_plain_ok(const char *s, size_t n)
{
    static const char *const reserved[] = {"true", "false", "yes", "no", "on", "off", "null", "y", "n", "~"};
    if (n == 0 || !(isalpha((unsigned char)s[0]) || s[0] == '_') || s[n - 1] == ' ')
        return 0;
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)s[i];
        if (!(isalnum(c) || c == '_' || c == '-' || c == '.' || c == '/' || c == ' '))
            return 0;
    }
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; ++i)
        if (strlen(reserved[i]) == n && strncasecmp(s, reserved[i], n) == 0)
            return 0;
    return 1;
}

static void write_yaml_name(FILE *fp, const char *s, size_t n)
{
    if (yaml_plain_ok(s, n)) {
        fwrite(s, 1, n, fp);
        return;
    }
    fputc('"', fp);
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(fp, "\\%c", c);
        else if (c < 0x20 || c == 0x7F)
            fprintf(fp, "\\x%02X", c);
        else
            fputc(c, fp);
    }
    fputc('"', fp);
}

void lsim_kitti_write_label_map(FILE *fp, const lsim_label_entry *labels, size_t count)
{
    fputs("# SemanticKITTI-style label map written by lidarsim: id -> class name\n", fp);
    if (count == 0) {
        fputs("labels: {}\n", fp);
        return;
    }
    fputs("labels:\n", fp);
    for (size_t i = 0; i < count; ++i) {
        const lsim_label_entry *e = &labels[i];
        fprintf(fp, "  %lu: ", (unsigned long)e->id);
        write_yaml_name(fp, e->name, strnlen(e->name, sizeof e->name));
        fputc('\n', fp);
    }
}

static int has_bin_extension(const char *path)
{
    size_t n = strlen(path);
    const char *slash = strrchr(path, '/');
    size_t base = slash ? (size_t)(slash - path) + 1 : 0;
    return n >= base + 5 && strcasecmp(path + n - 4, ".bin") == 0;
}

char *lsim_kitti_sibling(const char *bin_path, const char *suffix)
{
    size_t stem = strlen(bin_path) - 4, extra = strlen(suffix) + 1;
    char *out = malloc(stem + extra);
    if (out) {
        memcpy(out, bin_path, stem);
        memcpy(out + stem, suffix, extra);
    }
    return out;
}

lsim_status lsim_kitti_check_path(lsim_context *ctx, const char *path)
{
    if (strcmp(path, "-") == 0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "cannot write KITTI output to standard output (-o -): it is three files (.bin, .label "
                         "and .labels.yaml); give a .bin path, or write pcd, pcd-ascii, ply or csv to standard output");
    if (!has_bin_extension(path))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "cannot write KITTI output '%s': the path must end in .bin (the .label and "
                         ".labels.yaml files are written beside it)", path);
    return LSIM_OK;
}

lsim_status lsim_kitti_check_instances(lsim_context *ctx, const lsim_points *points, const char *path)
{
    const uint32_t *instance = points->column[LSIM_FIELD_INSTANCE];
    for (size_t i = 0; i < points->count; ++i)
        if (instance[i] > 0xFFFFu)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "cannot write KITTI output '%s': instance id %u does not fit the 16 bits a "
                             "SemanticKITTI .label holds (at most 65535 objects); write PCD, PLY or CSV instead",
                             path, instance[i]);
    return LSIM_OK;
}
