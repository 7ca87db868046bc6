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
    /* The packet layout (data_format of firmware 2.x, lidar_data_format/config_params of newer
     * metadata; recording readers need it): "" for a file without it (LEGACY); 0 / -1 not given. */
    char udp_profile_lidar[48];
    int pixels_per_column, columns_per_packet, columns_per_frame;
    int column_window[2];
    int udp_port_lidar;
} lsim_ouster_table;

/* The spec of a Velodyne unit from its laser table: the model (and so its firing timing, rates
 * and optics) is told by the laser count and elevations; `source` names the file in messages. */
lsim_status lsim_velodyne_spec(lsim_context *ctx, const char *source, const lsim_velodyne_table *table,
                               lsim_sensor_spec *spec);

/* The spec of an Ouster unit from its metadata: it starts from the preset of its product line
 * (OS-0 -> os0-*, OS-1 -> os1-*, OS-2 -> os2-*; the nearest channel count), whose ranges, optics,
 * receiver and noise it keeps, and takes the unit's beams, origins, lidar mode and head. */
lsim_status lsim_ouster_spec(lsim_context *ctx, const char *source, const lsim_ouster_table *table,
                             lsim_sensor_spec *spec);

/* Bounded work on any file of up to 16 MiB (unit_calibration.c's limit), whatever it holds:
 * - JSON: at most this many values (numbers, strings, arrays, objects), counted over the text
 *   before json-c builds anything; a real metadata file has a few thousand;
 * - ROS YAML: the bounded YAML loader (core/yaml_load.h: depth 64) with at most this many values
 *   and no list or mapping longer than LSIM_VELODYNE_MAX_LASERS;
 * - XML: no DOCTYPE but a bare `<!DOCTYPE name>` (no internal subset, no external DTD, so no
 *   entity is ever declared or expanded), no entity reference, at most this many nodes (elements,
 *   attributes, text, comments) and this nesting. */
#define LSIM_UNIT_JSON_MAX_VALUES 100000
#define LSIM_VELODYNE_YAML_MAX_VALUES 100000
#define LSIM_VELODYNE_XML_MAX_NODES 100000
#define LSIM_VELODYNE_XML_MAX_DEPTH 64

/* Readers: text of the whole file in, table out; messages name `path` and the line or key. */
typedef enum lsim_unit_kind { LSIM_UNIT_VELODYNE = 1, LSIM_UNIT_OUSTER = 2 } lsim_unit_kind;
/* A JSON calibration, told by its keys (not by its text): a top-level "lasers" is a Velodyne table
 * (into *velodyne), beam_altitude_angles (top-level or in beam_intrinsics) Ouster metadata (into
 * *ouster); *kind says which. Neither, or both, is a parse error naming the file. */
lsim_status lsim_unit_read_json(lsim_context *ctx, const char *path, const char *text, size_t size,
                                lsim_velodyne_table *velodyne, lsim_ouster_table *ouster, lsim_unit_kind *kind);
/* Any calibration file lsim_sensor_calibration_read takes, as its table (*kind says which), told
 * by its structure as that function does; no spec is made (recording readers use the tables). */
lsim_status lsim_unit_tables_read(lsim_context *ctx, const char *path, lsim_velodyne_table *velodyne,
                                  lsim_ouster_table *ouster, lsim_unit_kind *kind);
/* ROS YAML. *recognised is 0 (with a parse error) when the text is YAML without a top-level
 * `lasers`: a file of some other kind. */
lsim_status lsim_velodyne_read_yaml(lsim_context *ctx, const char *path, const char *text, size_t size,
                                    lsim_velodyne_table *table, int *recognised);
lsim_status lsim_velodyne_read_xml(lsim_context *ctx, const char *path, const char *text, size_t size,
                                   lsim_velodyne_table *table);

/* The model of a Velodyne table (as lsim_velodyne_spec finds it, checking the table the same way):
 * its name ("vlp16", "hdl32e", "vlp32c", "hdl64e", "vls128"), one firing sequence's length and
 * each laser_id's firing time within the sequence (time_s[laser_id], seconds). */
lsim_status lsim_velodyne_timing(lsim_context *ctx, const char *source, const lsim_velodyne_table *table,
                                 const char **model, double *sequence_s, double time_s[LSIM_VELODYNE_MAX_LASERS]);

/* The built-in tables the Velodyne presets are made of (velodyne_tables.c; NULL for a preset
 * that has none), and the preset's beams and timing from its table. */
const lsim_velodyne_table *lsim_velodyne_builtin(const char *preset);
lsim_status lsim_velodyne_apply_builtin(lsim_context *ctx, const char *preset, lsim_sensor_spec *spec);
/* The same for the Ouster presets: the real units' metadata in ouster_tables.c. */
const lsim_ouster_table *lsim_ouster_builtin(const char *preset);
lsim_status lsim_ouster_apply_builtin(lsim_context *ctx, const char *preset, lsim_sensor_spec *spec);

#endif
