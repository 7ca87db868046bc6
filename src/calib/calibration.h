/* Calibrated noise (thesis §4.2-4.4, §5): per material, per incidence-angle bin statistics
 * measured with the real sensor, and a BRDF fitted to them for angles that were not measured.
 * A calibration file holds several materials (human-readable YAML, versioned: see
 * docs/calibration.md, written by calib/calibration_io.c). */
#ifndef LSIM_CALIB_CALIBRATION_H
#define LSIM_CALIB_CALIBRATION_H

#include "lidarsim.h"
#include "optics/brdf.h"

#include <stddef.h>

#define LSIM_CALIB_VERSION 1

/* Statistics of the beams whose incidence angle fell in one bin. */
typedef struct lsim_calib_bin {
    double angle_deg;      /* bin centre, incidence angle in degrees (0 = perpendicular) */
    size_t n;              /* beams in the bin: returns + drops */
    double mean_intensity; /* over the returned beams (the sensor's own intensity scale) */
    double std_intensity;  /* over the returned beams */
    double std_range_m;    /* std of (measured range - range to the fitted board line), returned beams */
    double drop_rate;      /* (no return or intensity 0) / n */
    double mean_range_m;   /* mean of (measured range - range to the fitted board line), returned beams:
                            * the sensor's range bias at this incidence (key optional in files: 0) */
    /* The range error before the sensor's quantisation (calib/range_quant.h): e ~ N(noise_mean_m,
     * noise_std_m) such that rounding (true range + e) to the material's range_resolution_m gives
     * mean_range_m and std_range_m over the bin's own beams. What a scan draws when the material's
     * noise_fitted is set (keys optional in files: then mean_range_m and std_range_m). */
    double noise_mean_m;
    double noise_std_m;
    /* The drop rate of each half of the bin, [centre - w/2, centre) and [centre, centre + w/2) (w the
     * bin width; the last bin's upper half ends at 90 deg): the drop rate needs only counts, and it
     * can change by tens of percent within a degree (the real acrylic: 6.7 % at 64-65 deg, 31 % at
     * 65-66 deg), which one value per bin cannot place. A half without beams holds drop_rate.
     * has_drop_halves 0 (files before the key): drop_rate over the whole bin. */
    double drop_halves[2];
    int has_drop_halves;
} lsim_calib_bin;

typedef struct lsim_calib_material {
    char name[64];
    double configured_distance_m; /* as given (hand-measured), 0 if none */
    double fitted_distance_m;     /* perpendicular distance of the fitted board line */
    double normal_angle_rad;      /* direction of the board's normal seen from the sensor (sensor frame,
                                   * atan2 of the foot of the perpendicular) */
    double board_width_m;
    size_t revolutions;           /* revolutions in the scan */
    size_t beams_per_revolution;
    double bin_width_deg;
    size_t bin_count;
    lsim_calib_bin *bins;         /* ascending angle_deg; empty bins are not stored */
    lsim_brdf brdf;               /* fitted BRDF (kind from the description, parameters fitted) */
    double brdf_scale;            /* mean intensity(theta) ~= brdf_scale * pi f_r(theta) cos(theta) */
    /* Added by calib/ (calibrate.c, calibration_io.c; all written to and read from the file): */
    double configured_width_m;    /* board width as given; board_width_m is the extent binned, which is
                                   * wider when the returns on the fitted line span more than that */
    double board_offset_m;        /* centre of the board extent along the line from the foot of the
                                   * perpendicular, counter-clockwise positive: the extent is
                                   * board_offset_m +- board_width_m / 2 (s = d tan(incidence)) */
    double band_m;                /* a return belongs to the board when |perpendicular residual| <= band_m */
    size_t outliers;              /* echoes towards the board but off the band (excluded from the bins) */
    lsim_brdf brdf_configured;    /* the BRDF as described before the fit (thesis §5.3's BRDF-only model) */
    double brdf_rms;              /* fit residual: sqrt(sum w (mean - model)^2 / sum w), w = returns per bin */
    char source[512];             /* the scan file calibrated from (informational) */
    /* The range grid of the scan (calib/range_quant.h; 0 = not on a grid) and whether the bins hold
     * the error before quantisation (noise_mean_m, noise_std_m). 0 for files without the key: a
     * scan then subtracts its sensor's resolution^2 / 12 from std_range_m^2 instead. */
    double range_resolution_m;
    int noise_fitted;
    /* The sensor's measured reach on this material: the nearest and farthest ranges of its board
     * returns (0 = not known). A scan reports echoes off this material down to reach_min_m even
     * where the sensor's range_min (its datasheet minimum) is larger; reach_max_m is recorded. */
    double reach_min_m, reach_max_m;
    /* 1: the BRDF's shape parameters were fitted; 0: the bins' intensities cannot determine them
     * (a binary-intensity sensor: every return reads the same value whatever the BRDF), so the
     * described shape is kept and only brdf_scale is fitted. */
    int brdf_shape_fitted;
} lsim_calib_material;

typedef struct lsim_calibration {
    int version;
    char sensor[64];              /* e.g. "rplidar-a1" */
    size_t count;
    lsim_calib_material *materials;
} lsim_calibration;

lsim_status lsim_calibration_write(lsim_context *ctx, const char *path, const lsim_calibration *cal);
/* Read and validate a calibration file; errors name file:line and the key. */
lsim_status lsim_calibration_read(lsim_context *ctx, const char *path, lsim_calibration *cal);
void lsim_calibration_free(lsim_calibration *cal);
const lsim_calib_material *lsim_calibration_find(const lsim_calibration *cal, const char *name);
/* Deep copy of one material (bins owned by the copy). */
lsim_status lsim_calib_material_copy(lsim_context *ctx, const lsim_calib_material *src, lsim_calib_material *dst);
void lsim_calib_material_free(lsim_calib_material *m);

/* The statistics at an incidence angle. Inside a bin's width (returns 1): the bin's values,
 * varied linearly with the angle by slope-limited (minmod) differences to its neighbours, so they
 * change smoothly between bins while each bin keeps its measured average; the drop rate the same
 * way on the grid of half-bins where the bins have drop_halves (each half keeps its average).
 * Outside the measured angles or in an empty bin (returns 0): the nearest bin's values (the drop
 * rate of its nearer half), with the mean intensity from the fitted BRDF (brdf_scale pi f_r cos). */
int lsim_calib_lookup(const lsim_calib_material *m, double angle_deg, lsim_calib_bin *out);

#endif
