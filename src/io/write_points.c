/* lsim_points_write: validate, pick the format, dispatch to the writer. */
#include "core/context.h"
#include "io/format.h"
#include "io/writers.h"

#include <stdio.h>

uint32_t lsim_format_fields(lsim_format format)
{
    if (format == LSIM_FORMAT_KITTI) /* .bin x, y, z, reflectivity; .label label, instance */
        return LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) | LSIM_FIELD_BIT(LSIM_FIELD_Z) |
               LSIM_FIELD_BIT(LSIM_FIELD_REFLECTIVITY) | LSIM_FIELD_BIT(LSIM_FIELD_LABEL) |
               LSIM_FIELD_BIT(LSIM_FIELD_INSTANCE);
    return LSIM_FIELDS_ALL; /* PCD, PLY, CSV: every field */
}

lsim_status lsim_points_write(const lsim_points *points, const char *path, lsim_format format)
{
    if (!points)
        return LSIM_ERR_INVALID_ARGUMENT; /* no context to report into */
    lsim_context *ctx = points->ctx;
    if (!path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_points_write: the output path is empty: give a file name");
    if (points->count > points->capacity)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "cannot write '%s': corrupt point buffer (count %zu > capacity %zu)", path,
                         points->count, points->capacity);
    if (points->label_count && !points->labels)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': corrupt label map", path);

    lsim_format resolved;
    lsim_status st = lsim_format_resolve(ctx, path, format, &resolved);
    if (st != LSIM_OK)
        return st;
    if (points->count) { /* the columns this format writes (a scan may have filled fewer) */
        char what[600];
        snprintf(what, sizeof what, "cannot write '%.500s' as %s", path, lsim_format_name(resolved));
        st = lsim_points_require(points, lsim_format_fields(resolved), what);
        if (st != LSIM_OK)
            return st;
    }
    switch (resolved) {
    case LSIM_FORMAT_PCD: return lsim_write_pcd(points, path, 1);
    case LSIM_FORMAT_PCD_ASCII: return lsim_write_pcd(points, path, 0);
    case LSIM_FORMAT_PLY: return lsim_write_ply(points, path);
    case LSIM_FORMAT_KITTI: return lsim_write_kitti(points, path);
    case LSIM_FORMAT_CSV: return lsim_write_csv(points, path);
    case LSIM_FORMAT_AUTO: break;
    }
    return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': no writer for format '%s'", path,
                     lsim_format_name(resolved));
}
