/* Pattern extraction (raster paper §3.3): a scan of a flat wall, taken in the sensor's frame, turned
 * into a beam table (pattern file, sensor/pattern_file.c) whose beams point where the scan's
 * points are, so a `sensor: {file: PATTERN.csv}` reproduces the capture's directions.
 *
 * Each point with a return (finite x, y, z, not all 0; range > 0 when the scan has a range column)
 * becomes one row, in the scan's order: azimuth_deg = atan2(y, x), elevation_deg =
 * atan2(z, hypot(x, y)), plus time_s and ring when the scan has `time` / `ring` columns. The wall
 * plane is fitted by least squares (total: the smallest principal axis of the points). */
#ifndef LSIM_INVERSE_PATTERN_FROM_SCAN_H
#define LSIM_INVERSE_PATTERN_FROM_SCAN_H

#include "lidarsim.h"

#include <stddef.h>

/* rms distance of the points from the fitted plane above which the capture was not of a flat wall */
#define LSIM_PATTERN_PLANAR_RMS_M 0.02

typedef struct lsim_pattern_scan_info {
    size_t rows;          /* rows in the scan */
    size_t beams;         /* points with a return: the pattern's rows */
    int has_time, has_ring;
    double time_shift_s;  /* subtracted from every time so that the earliest is >= 0 (0: none) */
    double distance_m;    /* the fitted wall plane: distance from the sensor's origin */
    double normal[3];     /* its unit normal, pointing from the sensor towards the wall */
    double rms_m;         /* rms distance of the points from the plane */
    double max_m;         /* the largest distance of a point from the plane */
} lsim_pattern_scan_info;

/* Read `scan_path` (CSV, PCD or PLY with x, y, z columns in the sensor frame), write the pattern
 * file `out_path` atomically (columns azimuth_deg,elevation_deg[,time_s,ring]) and fill *info.
 * LSIM_ERR_IO / LSIM_ERR_PARSE for an unreadable or malformed scan or a missing x/y/z column;
 * LSIM_ERR_INVALID_ARGUMENT when fewer than 3 points have a return, or they lie on one line
 * (no plane), or a ring is not an integer 0..65535. No output file on failure. */
lsim_status lsim_pattern_from_scan(lsim_context *ctx, const char *scan_path, const char *out_path,
                                   lsim_pattern_scan_info *info);

#endif
