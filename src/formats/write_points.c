/* lsim_points_write: validate, pick the format, dispatch to the writer. */
#include "core/context.h"
#include "formats/format.h"
#include "formats/writers.h"

#include <stdio.h>

uint32_t lsim_format_fields(lsim_format format)
{
    if (format == LSIM_FORMAT_KITTI) /* .bin x, y, z, reflectivity; .label label, instance */
        return LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) | LSIM_FIELD_BIT(LSIM_FIELD_Z) |
               LSIM_FIELD_BIT(LSIM_FIELD_REFLECTIVITY) | LSIM_FIELD_BIT(LSIM_FIELD_LABEL) |
               LSIM_FIELD_BIT(LSIM_FIELD_INSTANCE);
    if (format == LSIM_FORMAT_LAS)
        return LSIM_LAS_FIELDS;
    if (format == LSIM_FORMAT_MCAP)
        return LSIM_MCAP_FIELDS;
    if (format == LSIM_FORMAT_PCAP)
        return LSIM_PCAP_FIELDS;
    return LSIM_FIELDS_ALL; /* PCD, PLY, CSV: every field */
}

lsim_status lsim_points_write(const lsim_points *points, const char *path, lsim_format format)
{
    return lsim_points_write_fields(points, path, format, 0);
}

uint32_t lsim_format_columns(lsim_format format, uint32_t fields)
{
    const uint32_t all = lsim_format_fields(format);
    if (format == LSIM_FORMAT_KITTI || format == LSIM_FORMAT_PCAP || !fields)
        return all; /* KITTI's layout is fixed; a pcap holds what the sensor's packets hold */
    if (format == LSIM_FORMAT_LAS || format == LSIM_FORMAT_MCAP) /* a point always has its coordinates */
        return (fields & all) | LSIM_XYZ_FIELDS;
    return fields & all;
}

lsim_status lsim_points_write_fields(const lsim_points *points, const char *path, lsim_format format, uint32_t fields)
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

    if (fields & ~LSIM_FIELDS_ALL)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "cannot write '%s': fields 0x%x has bits of no field; use LSIM_FIELD_BIT(LSIM_FIELD_...) bits "
                         "(0: every field the format holds)", path, (unsigned)fields);
    lsim_format resolved;
    lsim_status st = lsim_format_resolve(ctx, path, format, &resolved);
    if (st != LSIM_OK)
        return st;
    if (resolved == LSIM_FORMAT_PCAP)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "cannot write '%s': a pcap holds the sensor's own UDP packets, which points alone do not "
                         "describe; write it with lsim_points_write_recording (the points and their sensor) or "
                         "lsim_scene_scan_write", path);
    const uint32_t columns = lsim_format_columns(resolved, fields);
    if (points->count) { /* the columns this format writes (a scan may have filled fewer) */
        char what[600];
        snprintf(what, sizeof what, "cannot write '%.500s' as %s", path, lsim_format_name(resolved));
        st = lsim_points_require(points, columns, what);
        if (st != LSIM_OK)
            return st;
    }
    if (resolved == LSIM_FORMAT_KITTI) { /* before anything is opened */
        st = lsim_kitti_check_path(ctx, path);
        if (st == LSIM_OK)
            st = lsim_kitti_check_instances(ctx, points, path);
        if (st != LSIM_OK)
            return st;
    }
    /* The whole buffer as one slice of a stream (the same code as lsim_scene_scan_write). */
    lsim_point_stream stream;
    st = lsim_point_stream_begin(&stream, ctx, path, resolved, columns, points->count, points);
    if (st == LSIM_OK)
        st = lsim_point_stream_append(&stream, points);
    return lsim_point_stream_finish(&stream, st);
}
