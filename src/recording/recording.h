/* Reading real recordings into points (recording_read.c is the entry, lsim_points_read_recording;
 * ouster_read.c and velodyne_read.c decode each vendor's packets). Shared here: the fields a
 * recording gives, the frame selection and a growable column set the decoders fill. */
#ifndef LSIM_RECORDING_RECORDING_H
#define LSIM_RECORDING_RECORDING_H

#include "lidarsim.h"
#include "sensor/unit_calibration.h"

#include <stddef.h>
#include <stdint.h>

/* Every field a recording fills. */
#define LSIM_RECORDING_FIELDS                                                                                      \
    (LSIM_FIELD_BIT(LSIM_FIELD_X) | LSIM_FIELD_BIT(LSIM_FIELD_Y) | LSIM_FIELD_BIT(LSIM_FIELD_Z) |                   \
     LSIM_FIELD_BIT(LSIM_FIELD_RANGE) | LSIM_FIELD_BIT(LSIM_FIELD_INTENSITY) |                                     \
     LSIM_FIELD_BIT(LSIM_FIELD_REFLECTIVITY) | LSIM_FIELD_BIT(LSIM_FIELD_RING) | LSIM_FIELD_BIT(LSIM_FIELD_AZIMUTH) | \
     LSIM_FIELD_BIT(LSIM_FIELD_ELEVATION) | LSIM_FIELD_BIT(LSIM_FIELD_TIME) |                                      \
     LSIM_FIELD_BIT(LSIM_FIELD_RETURN_INDEX) | LSIM_FIELD_BIT(LSIM_FIELD_NUM_RETURNS))

/* Bounds: columns of an Ouster frame (lidar modes have 512..2048), points of one frame. */
#define LSIM_RECORDING_MAX_COLUMNS 4096
#define LSIM_RECORDING_MAX_POINTS (64u * 1024u * 1024u)

/* What to read: frame `want` (counting complete frames, or every frame with `partial`), or with
 * want < 0 only count the frames (*frames). */
typedef struct lsim_recording_job {
    const char *path, *calibration;
    int64_t want;
    int partial;
    uint32_t fields;
} lsim_recording_job;

/* One decoded point, as the decoders hand them over. */
typedef struct lsim_recording_point {
    double x, y, z, range, intensity, reflectivity, azimuth_deg, elevation_deg, time_s;
    int ring, return_index, num_returns;
} lsim_recording_point;

/* Reflectivity (lidarsim's: a Lambertian target's albedo, above 1 for retroreflectors) of a
 * calibrated reflectivity byte (Ouster and Velodyne manuals: 0-100 diffuse reflectance in percent,
 * 101-255 retroreflectors): byte / 100 up to 100, then 10^(3 (byte - 100) / 155) (255: 1000), the
 * inverse of the writer's lsim_recording_reflectivity_byte (pcap_write.h). */
double lsim_recording_reflectivity_value(unsigned byte);

/* Points for `capacity` returns (at least one) of `fields`. */
lsim_status lsim_recording_points_alloc(lsim_context *ctx, size_t capacity, uint32_t fields, lsim_points **out);
/* Store point i (the caller keeps i below the capacity). */
void lsim_recording_points_set(lsim_points *p, size_t i, const lsim_recording_point *pt);

/* The decoders. `frames` receives the frames counted (complete, or all with partial). */
lsim_status lsim_ouster_recording_read(lsim_context *ctx, const lsim_recording_job *job, const lsim_ouster_table *t,
                                       lsim_points **out, uint64_t *frames);
/* `table` NULL: the built-in table of the model the packets' product id names. */
lsim_status lsim_velodyne_recording_read(lsim_context *ctx, const lsim_recording_job *job,
                                         const lsim_velodyne_table *table, lsim_points **out, uint64_t *frames);

#endif
