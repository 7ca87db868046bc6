/* Real units' calibration files as sensors (internal to src/sensor). The readers turn each
 * vendor's file into one of two plain tables, and one function per vendor turns a table into a
 * rotating sensor spec with that unit's beams (elevation, azimuth offset, origin, firing time). */
#ifndef LSIM_SENSOR_UNIT_CALIBRATION_H
#define LSIM_SENSOR_UNIT_CALIBRATION_H

#include "sensor/sensor.h"

#include <stddef.h>

/* One Velodyne laser, in the units of the velodyne_pointcloud YAML and the JSON tables
 * (radians, metres); VeloView's XML (degrees, centimetres) is converted on reading. */
typedef struct lsim_velodyne_laser {
    int id;                 /* laser_id: the firing slot */
    double vert_rad;        /* vert_correction: elevation */
    double rot_rad;         /* rot_correction: azimuth offset (positive: counter-clockwise) */
    double vert_offset_m;   /* vert_offset_correction */
    double horiz_offset_m;  /* horiz_offset_correction */
} lsim_velodyne_laser;

#define LSIM_VELODYNE_MAX_LASERS 128

typedef struct lsim_velodyne_table {
    int count;
    lsim_velodyne_laser laser[LSIM_VELODYNE_MAX_LASERS];
    double distance_resolution_m; /* 0 if the file does not say */
} lsim_velodyne_table;

/* An Ouster unit's intrinsics (sensor metadata JSON). */
#define LSIM_OUSTER_MAX_BEAMS 128
typedef struct lsim_ouster_table {
    int count;
    double altitude_deg[LSIM_OUSTER_MAX_BEAMS];
    double azimuth_deg[LSIM_OUSTER_MAX_BEAMS];
    double origin_mm;       /* lidar_origin_to_beam_origin_mm */
    double beam_z_mm;       /* beam_to_lidar_transform's z (newer metadata), else 0 */
    double lidar_to_sensor[16]; /* row-major, translation in mm */
    int columns;            /* lidar_mode, e.g. 1024 of 1024x10 */
    double rate_hz;
    char product[64];       /* prod_line, e.g. OS-1-128 */
} lsim_ouster_table;

/* The spec of a Velodyne unit from its laser table: the model (and so its firing timing, rates
 * and optics) is told by the laser count and elevations; `source` names the file in messages. */
lsim_status lsim_velodyne_spec(lsim_context *ctx, const char *source, const lsim_velodyne_table *table,
                               lsim_sensor_spec *spec);
/* The spec of an Ouster unit from its metadata. */
lsim_status lsim_ouster_spec(lsim_context *ctx, const char *source, const lsim_ouster_table *table,
                             lsim_sensor_spec *spec);

/* An Ouster preset's head: clockwise from behind the sensor, lidar modes, and every beam from
 * a real OS-1-128's lidar_origin_to_beam_origin_mm and lidar_to_sensor_transform offsets. */
lsim_status lsim_ouster_nominal_geometry(lsim_context *ctx, lsim_sensor_spec *spec);

/* Readers: text of the whole file in, table out; messages name `path` and the line or key. */
lsim_status lsim_velodyne_read_json(lsim_context *ctx, const char *path, const char *text, size_t size,
                                    lsim_velodyne_table *table);
lsim_status lsim_velodyne_read_yaml(lsim_context *ctx, const char *path, const char *text, size_t size,
                                    lsim_velodyne_table *table);
lsim_status lsim_velodyne_read_xml(lsim_context *ctx, const char *path, const char *text, size_t size,
                                   lsim_velodyne_table *table);
lsim_status lsim_ouster_read_json(lsim_context *ctx, const char *path, const char *text, size_t size,
                                  lsim_ouster_table *table);

/* The built-in tables the Velodyne presets are made of (velodyne_tables.c; NULL for a preset
 * that has none), and the preset's beams and timing from its table. */
const lsim_velodyne_table *lsim_velodyne_builtin(const char *preset);
lsim_status lsim_velodyne_apply_builtin(lsim_context *ctx, const char *preset, lsim_sensor_spec *spec);

#endif
