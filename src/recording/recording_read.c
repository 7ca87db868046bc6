/* lsim_points_read_recording (include/lidarsim.h): a real recording and its unit's calibration into
 * points. The calibration file is told by its structure (sensor/unit_calibration.c): Ouster
 * metadata makes an Ouster recording, a Velodyne table (JSON, ROS YAML, VeloView XML) a Velodyne
 * one; without one, the recording must be Velodyne's, read with the built-in table of the model
 * its packets name. */
#include "recording/recording.h"
#include "recording/pcap_read.h"

#include "core/context.h"
#include "points/points.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

lsim_status lsim_recording_points_alloc(lsim_context *ctx, size_t capacity, uint32_t fields, lsim_points **out)
{
    return lsim_points_alloc_fields(ctx, capacity ? capacity : 1, fields, out);
}

double lsim_recording_reflectivity_value(unsigned byte)
{
    return byte <= 100 ? byte / 100.0 : pow(10.0, 3.0 * ((byte > 255 ? 255 : byte) - 100.0) / 155.0);
}

void lsim_recording_points_set(lsim_points *p, size_t i, const lsim_recording_point *pt)
{
    lsim_points_set_value(p, LSIM_FIELD_X, i, pt->x);
    lsim_points_set_value(p, LSIM_FIELD_Y, i, pt->y);
    lsim_points_set_value(p, LSIM_FIELD_Z, i, pt->z);
    lsim_points_set_value(p, LSIM_FIELD_RANGE, i, pt->range);
    lsim_points_set_value(p, LSIM_FIELD_INTENSITY, i, pt->intensity);
    lsim_points_set_value(p, LSIM_FIELD_REFLECTIVITY, i, pt->reflectivity);
    lsim_points_set_value(p, LSIM_FIELD_RING, i, pt->ring);
    lsim_points_set_value(p, LSIM_FIELD_AZIMUTH, i, pt->azimuth_deg);
    lsim_points_set_value(p, LSIM_FIELD_ELEVATION, i, pt->elevation_deg);
    lsim_points_set_value(p, LSIM_FIELD_TIME, i, pt->time_s);
    lsim_points_set_value(p, LSIM_FIELD_RETURN_INDEX, i, pt->return_index);
    lsim_points_set_value(p, LSIM_FIELD_NUM_RETURNS, i, pt->num_returns);
}

void lsim_recording_options_init(lsim_recording_options *options)
{
    if (!options)
        return;
    memset(options, 0, sizeof *options);
}

static lsim_status run(lsim_context *ctx, const char *path, const char *calibration,
                       const lsim_recording_options *options, lsim_points **out, uint64_t *frames)
{
    if (!ctx || !path || !*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_points_read_recording: a context and a recording path "
                         "must be given");
    lsim_recording_options defaults;
    lsim_recording_options_init(&defaults);
    const lsim_recording_options *o = options ? options : &defaults;
    if (o->frame < 0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "%s: frame %lld; frames count from 0", path,
                         (long long)o->frame);
    lsim_recording_job job = {path, calibration && *calibration ? calibration : NULL, out ? o->frame : -1,
                              o->partial != 0, 0};
    const uint32_t xyz = LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) | LSIM_FIELD_BIT(LSIM_FIELD_Z);
    job.fields = ((o->fields ? o->fields : LSIM_FIELDS_ALL) & LSIM_RECORDING_FIELDS) | xyz;
    if (!job.calibration)
        return lsim_velodyne_recording_read(ctx, &job, NULL, out, frames);
    lsim_velodyne_table *velodyne = malloc(sizeof *velodyne);
    lsim_ouster_table *ouster = malloc(sizeof *ouster);
    lsim_unit_kind kind = LSIM_UNIT_VELODYNE;
    lsim_status st = !velodyne || !ouster ? lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory reading %s", path)
                                          : lsim_unit_tables_read(ctx, job.calibration, velodyne, ouster, &kind);
    if (st == LSIM_OK)
        st = kind == LSIM_UNIT_OUSTER ? lsim_ouster_recording_read(ctx, &job, ouster, out, frames)
                                      : lsim_velodyne_recording_read(ctx, &job, velodyne, out, frames);
    free(velodyne);
    free(ouster);
    return st;
}

lsim_status lsim_points_read_recording(lsim_context *ctx, const char *path, const char *calibration,
                                       const lsim_recording_options *options, lsim_points **out)
{
    if (out)
        *out = NULL;
    if (!out)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_points_read_recording: out must not be NULL");
    return run(ctx, path, calibration, options, out, NULL);
}

lsim_status lsim_recording_count_frames(lsim_context *ctx, const char *path, const char *calibration,
                                        const lsim_recording_options *options, uint64_t *frames)
{
    if (!frames)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_recording_count_frames: frames must not be NULL");
    *frames = 0;
    return run(ctx, path, calibration, options, NULL, frames);
}
