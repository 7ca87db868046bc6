/* Finding the benchmark board in a 2-D scan (beyond thesis eq. 4.1, which trusts the hand-measured
 * distance and assumes the board square to the sensor).
 *
 * Sensor frame: beam at angle a hits (r cos a, r sin a). The board is the line
 *     x cos(phi) + y sin(phi) = d        (d > 0: perpendicular distance, phi: normal direction)
 * and a beam at angle a meets it at psi = wrap(a - phi), the beam's incidence angle (|psi| < 90
 * deg), at range d / cos(psi) and at s = d tan(psi) along the line (s grows counter-clockwise).
 *
 * Method: the returned beams within +-window of the expected direction; RANSAC (a deterministic
 * Philox stream) for the line with the most points within ransac_band; Tukey-biweight
 * reweighted total least squares (scale from the MAD) on those; the membership band
 * max(min_band, band_sigmas * sigma); the inliers sorted by angle and split where two neighbours
 * are more than max_gap_deg apart; the run with the most inliers is the board, refitted alone.
 * Board extent along the line: the run, united with the configured width centred where the
 * expected direction meets the line (so beams that the board dropped at steep incidence, beyond
 * the last return, are still counted); a run longer than 1.5 widths is clipped to that width. */
#ifndef LSIM_CALIB_BOARD_FIT_H
#define LSIM_CALIB_BOARD_FIT_H

#include "calib/scan_read.h"
#include "lidarsim.h"

#include <stddef.h>
#include <stdint.h>

typedef struct lsim_board_fit_options {
    double direction_rad;  /* expected direction of the board centre (default pi) */
    double window_rad;     /* half-width of the search window (default 80 deg) */
    double width_m;        /* configured board width (> 0) */
    double ransac_band_m;  /* RANSAC inlier band (default 0.02 m) */
    double min_band_m;     /* floor of the membership band (default 0.02 m) */
    double band_sigmas;    /* membership band in robust sigmas (default 6) */
    double max_gap_deg;    /* angular gap that splits inlier runs (default 5 deg) */
    int iterations;        /* RANSAC iterations (default 512) */
    uint64_t seed;         /* RANSAC stream (default 0) */
    size_t min_inliers;    /* fewer board returns than this: "board not found" (default 30) */
    const char *source;    /* name for messages (the scan file) */
} lsim_board_fit_options;

typedef struct lsim_board_fit {
    double distance_m;         /* d */
    double normal_rad;         /* phi, in (-pi, pi] */
    double sigma_m;            /* robust std of perpendicular residuals of the board returns */
    double band_m;             /* membership band: |perpendicular residual| <= band_m */
    double run_min_m, run_max_m;       /* the inlier run along the line (s) */
    double extent_min_m, extent_max_m; /* the board extent used for binning (s) */
    double center_m;           /* s where the expected direction meets the line */
    int clipped;               /* 1: the run was longer than 1.5 widths and was clipped */
    size_t window_returns;     /* returned beams in the window */
    size_t inliers;            /* board returns (in the run) */
    size_t near_normal_count;  /* board returns within +-2 deg of the normal */
    double near_normal_median_m; /* their median range (NaN if none) */
} lsim_board_fit;

typedef enum lsim_board_beam {
    LSIM_BOARD_OFF = 0,    /* not towards the board extent */
    LSIM_BOARD_RETURN = 1, /* an echo within the band: a board return */
    LSIM_BOARD_DROP = 2,   /* towards the board, no echo (or intensity 0) */
    LSIM_BOARD_OUTLIER = 3 /* towards the board, an echo off the band (occlusion, multipath) */
} lsim_board_beam;

void lsim_board_fit_options_init(lsim_board_fit_options *opt);
/* LSIM_ERR_NOT_FOUND "board not found" (with counts and what to check) when there are too few
 * returns in the window or too few board inliers. */
lsim_status lsim_board_fit_run(lsim_context *ctx, const lsim_scan_data *scan, const lsim_board_fit_options *opt,
                               lsim_board_fit *out);
/* Classify beam i; *psi_rad gets its signed incidence angle, *residual_m the measured range minus
 * the range to the line along the beam (returns and outliers; 0 otherwise). Either may be NULL. */
lsim_board_beam lsim_board_classify(const lsim_board_fit *fit, const lsim_scan_data *scan, size_t i,
                                    double *psi_rad, double *residual_m);
/* Wrap an angle to (-pi, pi]. */
double lsim_wrap_angle(double a);

#endif
