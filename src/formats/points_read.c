/* lsim_points_read (include/lidarsim.h): a point file lidarsim wrote back into a point buffer.
 * CSV, PCD and PLY through the column reader (formats/scan_columns.h), one pass over the file for
 * every field asked for; LAS through formats/las_read.c; a KITTI .bin (and its .label) read here. */
#include "core/context.h"
#include "core/text.h"
#include "core/file_open.h"
#include "formats/las_read.h"
#include "formats/points_extras.h"
#include "formats/scan_columns.h"
#include "formats/field_io.h"
#include "formats/format.h"
#include "points/points.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

_Static_assert(LSIM_FIELD_COUNT <= LSIM_SCAN_COLUMNS_MAX, "the column reader must take every field at once");

#define XYZ_BITS (LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) | LSIM_FIELD_BIT(LSIM_FIELD_Z))

static lsim_status read_columns(lsim_context *ctx, const char *path, uint32_t fields, lsim_points **out)
{
    const char *names[LSIM_FIELD_COUNT];
    int required[LSIM_FIELD_COUNT];
    lsim_field which[LSIM_FIELD_COUNT];
    size_t n = 0;
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f)
        if (fields & LSIM_FIELD_BIT(f)) {
            names[n] = lsim_field_name((lsim_field)f);
            required[n] = f <= LSIM_FIELD_Z;
            which[n++] = (lsim_field)f;
        }
    lsim_scan_columns cols;
    lsim_status st = lsim_scan_columns_read(ctx, path, n, names, required,
                                            "a point file needs x, y and z columns", &cols);
    if (st != LSIM_OK)
        return st;
    uint32_t held = 0;
    for (size_t k = 0; k < n; ++k)
        if (cols.value[k])
            held |= LSIM_FIELD_BIT(which[k]);
    lsim_points *p = NULL;
    st = lsim_points_alloc_fields(ctx, cols.count, held, &p);
    if (st == LSIM_OK) {
        for (size_t k = 0; k < n; ++k)
            if (cols.value[k])
                for (size_t i = 0; i < cols.count; ++i)
                    lsim_points_set_value(p, which[k], i, cols.value[k][i]);
        p->count = cols.count;
        *out = p;
    }
    lsim_scan_columns_free(&cols);
    return st;
}

static lsim_status read_kitti(lsim_context *ctx, const char *path, uint32_t fields, lsim_points **out)
{
    char *bin = NULL, *lab = NULL;
    size_t bin_size = 0, lab_size = 0;
    lsim_status st = lsim_file_read_all(ctx, path, LSIM_INPUT_POINTS, &bin, &bin_size);
    if (st != LSIM_OK)
        return st;
    const size_t count = bin_size / 16;
    if (bin_size % 16 != 0)
        st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %zu bytes, not a whole number of KITTI points (16 bytes each: x, "
                       "y, z, reflectivity as float32); the file is truncated or not a KITTI .bin", path, bin_size);
    /* the .label beside it: label | instance << 16 per point */
    char *label_path = NULL;
    const uint32_t label_bits = LSIM_FIELD_BIT(LSIM_FIELD_LABEL) | LSIM_FIELD_BIT(LSIM_FIELD_INSTANCE);
    if (st == LSIM_OK && (fields & label_bits)) {
        size_t stem = strlen(path) - 4;
        label_path = malloc(stem + sizeof ".label");
        if (!label_path) {
            st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
        } else {
            memcpy(label_path, path, stem);
            memcpy(label_path + stem, ".label", sizeof ".label");
            /* none there: no labels; anything else there is read (a FIFO or device is refused) */
            struct stat info;
            if (lstat(label_path, &info) == 0 &&
                (st = lsim_file_read_all(ctx, label_path, LSIM_INPUT_LABELS, &lab, &lab_size)) == LSIM_OK &&
                lab_size != 4 * count)
                st = lsim_fail(ctx, LSIM_ERR_PARSE, "%s: %zu bytes, but %s holds %zu points (4 bytes each expected: "
                               "%zu); the two files are not of one scan", label_path, lab_size, path, count, 4 * count);
        }
    }
    uint32_t held = XYZ_BITS | (fields & LSIM_FIELD_BIT(LSIM_FIELD_REFLECTIVITY)) | (lab ? fields & label_bits : 0u);
    lsim_points *p = NULL;
    if (st == LSIM_OK)
        st = lsim_points_alloc_fields(ctx, count, held, &p);
    if (st == LSIM_OK) {
        float *x = p->column[LSIM_FIELD_X], *y = p->column[LSIM_FIELD_Y], *z = p->column[LSIM_FIELD_Z];
        float *r = p->column[LSIM_FIELD_REFLECTIVITY];
        uint32_t *label = p->column[LSIM_FIELD_LABEL], *instance = p->column[LSIM_FIELD_INSTANCE];
        for (size_t i = 0; i < count; ++i) {
            const unsigned char *b = (const unsigned char *)bin + 16 * i;
            x[i] = lsim_io_get_f32le(b);
            y[i] = lsim_io_get_f32le(b + 4);
            z[i] = lsim_io_get_f32le(b + 8);
            if (r)
                r[i] = lsim_io_get_f32le(b + 12);
            if (lab) {
                uint32_t v = lsim_io_get_u32le((const unsigned char *)lab + 4 * i);
                if (label)
                    label[i] = v & 0xFFFFu;
                if (instance)
                    instance[i] = v >> 16;
            }
        }
        p->count = count;
        *out = p;
    }
    free(label_path);
    free(lab);
    free(bin);
    return st;
}

/* 1 if `path` is a capture file: its extension, or (when it opens) its magic number. */
static int is_recording(const char *path)
{
    if (lsim_has_extension(path, ".pcap") || lsim_has_extension(path, ".pcapng"))
        return 1;
    int fd = -1;
    unsigned char head[4];
    if (lsim_file_open_errno(path, LSIM_INPUT_POINTS, &fd, NULL) != 0)
        return 0;
    const ssize_t got = read(fd, head, sizeof head);
    close(fd);
    return got == 4 && lsim_pcap_magic(head, 4);
}

lsim_status lsim_points_read(lsim_context *ctx, const char *path, uint32_t fields, lsim_points **out)
{
    if (out)
        *out = NULL;
    if (!path || !*path || !out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_points_read: path and out must be given");
    if (lsim_has_extension(path, ".mcap"))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "%s: MCAP files are not read back; lsim_points_read reads CSV, PCD, PLY, LAS and KITTI "
                         ".bin (write one of those with the scan)", path);
    if (is_recording(path))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "%s: a pcap recording (a sensor's packets), not a point file: it is read with its unit's "
                         "calibration (an Ouster's metadata JSON, a Velodyne's laser table): lidarsim render REC.pcap "
                         "--metadata M.json, lidarsim.read(path, metadata=M), lsim_points_read_recording", path);
    fields = (fields ? fields & LSIM_FIELDS_ALL : LSIM_FIELDS_ALL) | XYZ_BITS;
    lsim_status st = lsim_has_extension(path, ".las") ? lsim_las_read(ctx, path, fields, out)
                     : lsim_has_extension(path, ".bin") ? read_kitti(ctx, path, fields, out)
                                                   : read_columns(ctx, path, fields, out);
    if (st == LSIM_OK && (st = lsim_points_read_extras(ctx, path, fields, *out)) != LSIM_OK) {
        lsim_points_destroy(*out); /* a PCD's VIEWPOINT, a dataset frame's labels (formats/points_extras.h) */
        *out = NULL;
    }
    return st;
}
