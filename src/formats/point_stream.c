/* A point cloud written slice by slice (formats/writers.h): header with the total count, rows appended
 * in order, every file committed at the end or none. */
#include "core/context.h"
#include "formats/field_io.h"
#include "formats/format.h"
#include "formats/writers.h"

#include <stdlib.h>
#include <string.h>

/* The stream's state (files: NULL for its own group) and the header. */
static lsim_status begin(lsim_point_stream *s, lsim_context *ctx, lsim_atomic_group *files, const char *path,
                         lsim_format format, uint32_t columns, size_t count, const lsim_points *frame)
{
    const double *viewpoint = frame->viewpoint, *sensor_pose = frame->timed ? frame->sensor_pose : NULL;
    memset(s, 0, sizeof *s);
    lsim_atomic_begin(&s->group, ctx);
    s->files = files ? files : &s->group;
    s->ctx = ctx;
    s->path = path;
    s->format = format;
    s->expected = count;
    s->columns = columns;
    if (format == LSIM_FORMAT_KITTI) {
        lsim_status st = lsim_kitti_check_path(ctx, path);
        if (st != LSIM_OK)
            return st;
        char *label_path = lsim_kitti_sibling(path, ".label");
        char *yaml_path = lsim_kitti_sibling(path, ".labels.yaml");
        s->buf = malloc(16 * LSIM_KITTI_ROWS);
        FILE *yaml_fp = NULL;
        if (!label_path || !yaml_path || !s->buf)
            st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory writing '%s'", path);
        if (st == LSIM_OK)
            st = lsim_atomic_open(s->files, path, &s->fp);
        if (st == LSIM_OK)
            st = lsim_atomic_open(s->files, label_path, &s->label_fp);
        if (st == LSIM_OK)
            st = lsim_atomic_open(s->files, yaml_path, &yaml_fp);
        if (st == LSIM_OK)
            lsim_kitti_write_label_map(yaml_fp, frame->labels, frame->label_count);
        free(label_path);
        free(yaml_path);
        return st;
    }
    if (format == LSIM_FORMAT_LAS && lsim_atomic_is_direct(path))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "cannot write LAS output to '%s': standard output, devices and FIFOs cannot seek, and a "
                         "LAS header's point counts and bounds are written at the end; give a regular file name",
                         path);
    lsim_status st = lsim_atomic_open(s->files, path, &s->fp);
    if (st != LSIM_OK)
        return st;
    switch (format) {
    case LSIM_FORMAT_LAS: return lsim_las_begin(s, frame);
    case LSIM_FORMAT_MCAP: return lsim_mcap_begin(s, frame);
    case LSIM_FORMAT_PCD: lsim_pcd_header(s->fp, columns, count, viewpoint, sensor_pose, 1); break;
    case LSIM_FORMAT_PCD_ASCII: lsim_pcd_header(s->fp, columns, count, viewpoint, sensor_pose, 0); break;
    case LSIM_FORMAT_PLY: lsim_ply_header(s->fp, columns, count, sensor_pose); break;
    case LSIM_FORMAT_CSV: lsim_csv_header(s->fp, columns); break;
    default:
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "cannot write '%s': no writer for format '%s'", path,
                         lsim_format_name(format));
    }
    return LSIM_OK;
}

lsim_status lsim_point_stream_begin(lsim_point_stream *s, lsim_context *ctx, const char *path, lsim_format format,
                                    uint32_t columns, size_t count, const lsim_points *frame)
{
    return begin(s, ctx, NULL, path, format, columns, count, frame);
}

lsim_status lsim_point_stream_begin_in(lsim_point_stream *s, lsim_atomic_group *group, const char *path,
                                       lsim_format format, uint32_t columns, size_t count, const lsim_points *frame)
{
    return begin(s, group->ctx, group, path, format, columns, count, frame);
}

lsim_status lsim_point_stream_append(lsim_point_stream *s, const lsim_points *points)
{
    if (points->count > s->expected - s->written)
        return lsim_fail(s->ctx, LSIM_ERR_STATE, "cannot write '%s': more points than the %zu announced", s->path,
                         s->expected);
    if (points->count == 0)
        return LSIM_OK;
    lsim_status st = LSIM_OK;
    switch (s->format) {
    case LSIM_FORMAT_PCD:
    case LSIM_FORMAT_PLY:
        st = lsim_io_write_binary_rows(points, s->columns, s->fp, s->path);
        break;
    case LSIM_FORMAT_PCD_ASCII: lsim_io_write_text_rows(points, s->columns, s->fp, ' '); break;
    case LSIM_FORMAT_LAS: st = lsim_las_append(s, points); break;
    case LSIM_FORMAT_MCAP: st = lsim_mcap_append(s, points); break;
    case LSIM_FORMAT_CSV: lsim_io_write_text_rows(points, s->columns, s->fp, ','); break;
    case LSIM_FORMAT_KITTI:
        st = lsim_kitti_check_instances(s->ctx, points, s->path);
        if (st == LSIM_OK)
            lsim_kitti_write_rows(points, s->fp, s->label_fp, s->buf);
        break;
    default:
        st = lsim_fail(s->ctx, LSIM_ERR_STATE, "cannot write '%s': the stream is not open", s->path);
        break;
    }
    if (st == LSIM_OK)
        s->written += points->count;
    return st;
}

lsim_status lsim_point_stream_next_frame(lsim_point_stream *s, size_t count, const lsim_points *frame)
{
    if (s->format != LSIM_FORMAT_MCAP || !s->mcap)
        return lsim_fail(s->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "cannot write several frames to '%s': a %s file holds one frame; write MCAP (.mcap) for "
                         "several, or one file per frame", s->path, lsim_format_name(s->format));
    if (s->written != s->expected)
        return lsim_fail(s->ctx, LSIM_ERR_STATE, "cannot write '%s': %zu points written, %zu announced", s->path,
                         s->written, s->expected);
    s->expected = count;
    s->written = 0;
    return lsim_mcap_frame(s, frame);
}

lsim_status lsim_point_stream_finish(lsim_point_stream *s, lsim_status status)
{
    if (status == LSIM_OK && s->written != s->expected)
        status = lsim_fail(s->ctx, LSIM_ERR_STATE, "cannot write '%s': %zu points written, %zu announced", s->path,
                           s->written, s->expected);
    if (s->las)
        status = lsim_las_end(s, status);
    if (s->mcap)
        status = lsim_mcap_end(s, status);
    free(s->buf);
    s->buf = NULL;
    s->fp = s->label_fp = NULL;
    if (s->files != &s->group)
        return status; /* the caller's group: committed or discarded by the caller */
    return lsim_atomic_finish(&s->group, status);
}
