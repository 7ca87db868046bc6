/* Raw 2-D scans for calibration (thesis §4.2, App. A.2): one beam per entry, structure of arrays.
 *
 * Two text forms are read (lsim_scan_read picks by content):
 *   - beam lines `range_m,intensity,angle_rad` (the thesis's calibration files): range `inf`,
 *     `nan` or 0 when there was no echo; blank lines, lines starting with '#' and a first line
 *     starting with `range` (a header) are skipped;
 *   - a ROS LaserScan text dump: blocks of `key: value` lines (`start_angle:` or `angle_min:`,
 *     `angle_increment:`, `ranges: array('f', [...])` or `ranges: [...]`, `intensities: ...`),
 *     one block per revolution; beam i of a block is at start_angle + i * angle_increment.
 * A malformed line is an LSIM_ERR_PARSE naming "FILE:LINE:" and what was expected. */
#ifndef LSIM_CALIB_SCAN_READ_H
#define LSIM_CALIB_SCAN_READ_H

#include "lidarsim.h"

#include <math.h>
#include <stddef.h>

typedef enum lsim_scan_format { LSIM_SCAN_BEAM_LINES = 0, LSIM_SCAN_LASERSCAN_DUMP = 1 } lsim_scan_format;

typedef struct lsim_scan_data {
    size_t count;                /* beams */
    double *range_m;             /* INFINITY (or NaN, 0) when the beam had no echo */
    double *intensity;           /* the sensor's scale; NaN when the file gives none */
    double *angle_rad;           /* beam direction in the sensor's xy plane */
    size_t revolutions;          /* beam-line files: segments between angle wraps; dumps: blocks */
    size_t beams_per_revolution; /* the most common revolution length (ties: the longer; segments of
                                  * >= LSIM_SCAN_MIN_BEAMS_PER_REVOLUTION beams preferred); dumps: the
                                  * longest block */
    lsim_scan_format format;
} lsim_scan_data;

/* Read either form (detected from the first significant line: `key:` -> dump, else beam lines). */
lsim_status lsim_scan_read(lsim_context *ctx, const char *path, lsim_scan_data *out);
lsim_status lsim_scan_read_beam_lines(lsim_context *ctx, const char *path, lsim_scan_data *out);
lsim_status lsim_scan_read_laserscan(lsim_context *ctx, const char *path, lsim_scan_data *out);
void lsim_scan_free(lsim_scan_data *scan);

/* Revolution lengths below this are not a 2-D scanner's revolution (stray beams, angles jumping
 * back and forth): revolution detection prefers longer segments, and the consumers that rely on
 * the revolution structure (validate) refuse such a scan. */
#define LSIM_SCAN_MIN_BEAMS_PER_REVOLUTION 16

/* Complete revolutions: count / beams_per_revolution (revolution r is the beams_per_revolution
 * consecutive beams from r * beams_per_revolution; a trailing partial one is not counted). */
size_t lsim_scan_complete_revolutions(const lsim_scan_data *scan);
/* LSIM_ERR_PARSE, naming `path` and the counts, when the scan has fewer than
 * LSIM_SCAN_MIN_BEAMS_PER_REVOLUTION beams per revolution or not one complete revolution. */
lsim_status lsim_scan_check_revolutions(lsim_context *ctx, const char *path, const lsim_scan_data *scan);

/* A beam returned an echo: finite range > 0 and intensity not 0 (a NaN intensity, i.e. none
 * given, does not count as a drop). */
static inline int lsim_scan_returned(const lsim_scan_data *scan, size_t i)
{
    double r = scan->range_m[i], v = scan->intensity[i];
    return isfinite(r) && r > 0.0 && !(v == 0.0);
}

#endif
