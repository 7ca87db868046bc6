/* Beam divergence with a measured or parametric kernel, and blooming (pbr paper §II):
 *   xi_b(r) = sum over pixels Phi of (kappa eta)(Phi - Psi_b) rho_hat(Phi) delta(r - r(Phi))
 * over a rendered angular image (rho_hat: single-bounce reflected intensity, r: range), with
 * ranges kept separate. Two algorithms that give the same echoes:
 *   Alg. 1 (beam iteration): per beam, accumulate kernel-weighted pixels into range bins;
 *   Alg. 2 (range stacking): per range slice (far to near), convolve the slice with the
 *           separable kernel H (x) V and keep, per beam, the nearest slice above threshold;
 *           slices whose brightest pixel times the kernel's total weight stays below the
 *           threshold are skipped (exactly: they cannot produce an echo).
 * The image is a regular grid in (azimuth, elevation) of the sensor frame. */
#ifndef LSIM_OPTICS_BLOOMING_H
#define LSIM_OPTICS_BLOOMING_H

#include "lidarsim.h"

#include <stddef.h>
#include <stdint.h>

/* Separable combined emitter x collector kernel, odd sizes, centred; weights relative
 * (the centre pixel of a perfectly aligned beam is not normalised to 1; the integral is what
 * the range equation's beam intensity distributes). */
typedef struct lsim_kernel {
    int half_u, half_v;   /* the kernel spans [-half, +half] pixels */
    double step_deg;      /* angular size of one pixel (both axes) */
    float *h;             /* 2 half_u + 1 horizontal weights */
    float *v;             /* 2 half_v + 1 vertical weights */
} lsim_kernel;

/* Parametric kernel: Gaussian core of FWHM `core_fwhm_deg` plus a halo of relative level
 * `halo_level` (e.g. 1e-6 .. 1e-3 of the peak) decaying over `halo_extent_deg` (~3 deg);
 * sampled every step_deg out to the halo extent; each 1-D profile sums to 1. */
lsim_status lsim_kernel_parametric(lsim_context *ctx, double core_fwhm_deg, double halo_level,
                                   double halo_extent_deg, double step_deg, lsim_kernel *out);
/* Kernel from a text file: either
 *   "separable" with lines "h: w0 w1 ..." and "v: w0 w1 ..." and "step_deg: x", or
 *   a 2-D array (rows of numbers) with "step_deg: x": reduced to its separable rank-1 part
 *   (row and column sums, scaled so the outer product keeps the total weight).
 * Odd sizes, non-negative finite weights, at least one positive; errors name file:line. */
lsim_status lsim_kernel_read(lsim_context *ctx, const char *path, lsim_kernel *out);
void lsim_kernel_free(lsim_kernel *kernel);

/* The rendered image: U columns (azimuth, increasing) x V rows (elevation, increasing). */
typedef struct lsim_bloom_image {
    int width, height;        /* U, V */
    double az0_deg, el0_deg;  /* centre of pixel (0, 0) */
    double step_deg;          /* pixel pitch, equal to the kernel's */
    const float *intensity;   /* rho_hat per pixel (0 for no hit), row-major [v * U + u] */
    const float *range;       /* metres (ignored where intensity is 0) */
} lsim_bloom_image;

typedef enum lsim_bloom_algorithm { LSIM_BLOOM_BEAM_ITERATION = 1, LSIM_BLOOM_RANGE_STACKING = 2 } lsim_bloom_algorithm;

typedef struct lsim_bloom_params {
    double range_bin;   /* delta r, metres */
    double max_range;   /* s_max = floor(max_range / range_bin) */
    double threshold;   /* rho_min, intensity units */
    int threads;
} lsim_bloom_params;

/* Nearest echo above threshold for each beam at pixel coordinates (u[b], v[b]) (rounded to the
 * nearest pixel): range = centre of the slice (s + 0.5) delta r, power = xi_slice, or range 0
 * and power 0 where no slice reaches the threshold. Both algorithms give the same result. */
lsim_status lsim_bloom_nearest(lsim_context *ctx, lsim_bloom_algorithm algorithm, const lsim_bloom_image *image,
                               const lsim_kernel *kernel, const lsim_bloom_params *params, size_t beams,
                               const float *u, const float *v, float *range, float *power);

#endif
