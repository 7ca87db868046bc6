/* Calibrating one material from its scan (thesis §4.2.3, §5.4, done from the data):
 *   1. find the board (calib/board_fit.h): fitted distance, normal, extent;
 *   2. every beam towards the board extent is a board return (echo within the band), a drop (no
 *      echo or intensity 0) or an outlier (echo off the band: occlusion or multipath; counted,
 *      not binned); returns and drops are binned by |incidence angle| (bin k covers
 *      [k w, (k+1) w), the last one ends at 90 deg; its centre is the middle of its range);
 *   3. per bin: n = returns + drops, mean and sample std (n-1) of the returns' intensity, sample
 *      std of their range residual (measured range - range to the fitted line), drop rate, and the
 *      drop rate of each half of the bin (below and from its centre: drop_halves); empty bins are
 *      not stored;
 *   4. the BRDF fit: the chosen BRDF's shape parameters (oren-nayar: roughness sigma in
 *      [0, pi/2]; cook-torrance: roughness in [0.02, 1] and f0 in [0, 1]; lambertian: none) and
 *      brdf_scale minimise sum_k w_k (mean_k - brdf_scale pi f_r(theta_k) cos(theta_k))^2 with w_k
 *      the returns in bin k (a bin without returns has no mean intensity); the scale is solved in
 *      closed form for every shape, the shape by a grid search refined by golden-section search
 *      (1 parameter) or Nelder-Mead (2). The reflectance is not fitted (the scale absorbs it).
 *      A binary-intensity sensor's means cannot determine a shape: only the scale is fitted then
 *      (lsim_calib_material.brdf_shape_fitted = 0; calib/brdf_fit.c);
 *   5. ranges on a grid (calib/range_quant.h): per bin, the range error before the rounding
 *      (noise_mean_m, noise_std_m); the nearest and farthest board returns (reach_min_m,
 *      reach_max_m). */
#ifndef LSIM_CALIB_CALIBRATE_H
#define LSIM_CALIB_CALIBRATE_H

#include "calib/board_fit.h"
#include "calib/calib_config.h"
#include "calib/calibration.h"
#include "calib/scan_read.h"

#define LSIM_CALIB_DEFAULT_BIN_WIDTH_DEG 2.0

typedef struct lsim_calib_options {
    double bin_width_deg;       /* 0.05 .. 45, default 2 */
    lsim_board_fit_options fit; /* direction, window and width come from each input */
} lsim_calib_options;

void lsim_calib_options_init(lsim_calib_options *opt);

/* Calibrate `in` from an already read scan. fit_out (may be NULL) receives the board fit. */
lsim_status lsim_calibrate_scan(lsim_context *ctx, const lsim_calib_input *in, const lsim_scan_data *scan,
                                const lsim_calib_options *opt, lsim_calib_material *out, lsim_board_fit *fit_out);
/* Read in->scan_path, then lsim_calibrate_scan. */
lsim_status lsim_calibrate_input(lsim_context *ctx, const lsim_calib_input *in, const lsim_calib_options *opt,
                                 lsim_calib_material *out, lsim_board_fit *fit_out);

/* Fit m->brdf's parameters and m->brdf_scale to m->bins (see above); sets m->brdf_rms. */
lsim_status lsim_calib_fit_brdf(lsim_context *ctx, lsim_calib_material *m);
/* 1 when every bin with returns has the same mean intensity and no spread (a binary-intensity
 * sensor such as the RPLIDAR, 47 for every return); *value (may be NULL) gets that intensity. */
int lsim_calib_intensity_constant(const lsim_calib_material *m, double *value);
/* The fitted model's mean intensity at an incidence angle: brdf_scale pi f_r(theta) cos(theta). */
double lsim_calib_brdf_intensity(const lsim_calib_material *m, double angle_deg);
/* The board geometry of a calibrated material, to classify beams of its scan again
 * (lsim_board_classify) — e.g. for per-bin two-sample tests against a simulation. */
void lsim_calib_board_of(const lsim_calib_material *m, lsim_board_fit *fit);
/* Bin index of an |incidence angle| in degrees for bin width w, and that bin's centre. */
size_t lsim_calib_bin_index(double angle_deg, double bin_width_deg);
double lsim_calib_bin_center(size_t index, double bin_width_deg);

#endif
