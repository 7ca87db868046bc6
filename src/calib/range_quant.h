/* Range quantisation in calibration scans. A sensor that reports whole steps (the RPLIDAR: 1 mm)
 * reads round((t + e) / step) * step for a beam whose true range is t and whose range error is e.
 * Below one step the rounding is not noise that adds step^2 / 12 to the variance (Sheppard's
 * correction): it depends on where t falls between two steps. Near normal incidence every beam of
 * a 2-degree bin sees almost the same t (the wall: 384.49..384.70 mm, all inside one step), so the
 * rounding is the same for all of them, and sigma^2 - step^2 / 12 is wrong by up to a factor of 2.
 *
 * Calibration therefore estimates the error *before* the rounding, per bin: the bias mu and the
 * spread sigma of a Gaussian e such that rounding t + e, for the bin's own true ranges t, gives
 * the bin's measured mean and variance of (reading - t). A scan draws e ~ N(mu, sigma) and rounds
 * to its sensor's resolution, as the real sensor did. */
#ifndef LSIM_CALIB_RANGE_QUANT_H
#define LSIM_CALIB_RANGE_QUANT_H

#include "calib/scan_read.h"

#include <stddef.h>

/* Fractional positions of the true ranges within one step are histogrammed into this many cells. */
#define LSIM_QUANT_CELLS 64

/* The step of the grid all returned ranges of the scan lie on (within 1e-3 of a step): the
 * coarsest of 10, 5, 2, 1, 0.5, 0.25, 0.2 and 0.1 mm; 0 when the ranges are on none of them or
 * fewer than 20 beams returned (then no quantisation is modelled). */
double lsim_scan_range_step(const lsim_scan_data *scan);

/* The cell of a true range t for a step (its fractional position t / step - floor(t / step)). */
size_t lsim_quant_cell(double t, double step);

/* Expected mean and variance of (reading - t) over the cells' weights when a reading is
 * round((t + e) / step) * step with e ~ N(mu, sigma) (sigma 0: e = mu); t at each cell's centre. */
void lsim_quant_moments(const double *weights, double step, double mu, double sigma, double *mean, double *var);

/* A spread below this many steps is taken as none: it would only flip the readings of beams
 * within a hair of a rounding edge, which neither the bin's histogram of true ranges nor another
 * scene's geometry resolves. */
#define LSIM_QUANT_MIN_SPREAD 0.05

/* The (mu, sigma >= 0) whose rounded moments are the measured `mean` and `var` for the cells'
 * weights. sigma = 0 (every beam reads one step each time; mu in the middle of the range of mu
 * whose readings give the mean nearest `mean`) when that already gives var or more, or when it
 * is nearer to (mean, sqrt(var)) than the best sigma >= LSIM_QUANT_MIN_SPREAD steps. sigma >= 1.5
 * steps: Sheppard's sigma^2 = var - step^2 / 12, mu = mean (exact there). step <= 0: mu = mean,
 * sigma = sqrt(var). */
void lsim_quant_latent(const double *weights, double step, double mean, double var, double *mu, double *sigma);

#endif
