/* lsim_points_write: validate, pick the format, dispatch to the writer. */
#include "core/context.h"
#include "io/format.h"
#include "io/writers.h"

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
    for (int f = 0; f < LSIM_FIELD_COUNT; ++f)
        if (points->count && !points->column[f])
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': point buffer has no '%s' column",
                             path, lsim_field_name((lsim_field)f));
    if (points->label_count && !points->labels)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': corrupt label map", path);

    lsim_format resolved;
    lsim_status st = lsim_format_resolve(ctx, path, format, &resolved);
    if (st != LSIM_OK)
        return st;
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
