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

/* The rendered image: U columns (azimuth, increasing) x V rows (elevation, increasing).
 * Rows may share their pixels (the kernel mode renders the rows that only the halo reaches
 * coarser than the beams' cores, pipeline/kernel_frame.c): row[r] is the stored row holding image
 * row r's pixels, row[0] = 0 and each next row the same stored row or the next one, and
 * intensity and range hold stored_rows x U pixels. A stored row shared by the image rows [a, b]
 * stands for each of them: its kernel weight for a beam is the sum of v over those of [a, b] in
 * the beam's window (the halo's profile resampled to the coarse rows exactly, whatever the beam's
 * row). row NULL: every row stored (stored_rows ignored). */
typedef struct lsim_bloom_image {
    int width, height;        /* U, V */
    double az0_deg, el0_deg;  /* centre of pixel (0, 0) */
    double step_deg;          /* pixel pitch, equal to the kernel's */
    const float *intensity;   /* rho_hat per pixel (0 for no hit), row-major [stored row * U + u] */
    const float *range;       /* metres (ignored where intensity is 0) */
    const int32_t *row;       /* V stored-row indices, or NULL (row r stored at r) */
    int stored_rows;          /* rows in intensity and range when row is not NULL */
} lsim_bloom_image;

typedef enum lsim_bloom_algorithm { LSIM_BLOOM_BEAM_ITERATION = 1, LSIM_BLOOM_RANGE_STACKING = 2 } lsim_bloom_algorithm;

typedef struct lsim_bloom_params {
    double range_bin;   /* delta r, metres. Each slice must reach the threshold alone: a footprint
                         * spread over several slices (a surface at grazing incidence) is lost
                         * sooner than a pulse spanning it would lose it (README, kernel limits) */
    double max_range;   /* s_max = floor(max_range / range_bin) */
    double threshold;   /* rho_min, intensity units (> 0) */
    int threads;        /* 0: all cores */
    int keep_dim_slices; /* Alg. 2 only: nonzero convolves every occupied slice, also those too dim to
                          * reach the threshold (testing / benchmarking the skip; same result) */
} lsim_bloom_params;

/* What a call did (for tests and the benchmark). */
typedef struct lsim_bloom_stats {
    size_t slices_total;     /* s_max + 1 */
    size_t slices_occupied;  /* slices holding at least one pixel (intensity > 0, range < max_range) */
    size_t slices_processed; /* Alg. 2: slices convolved (occupied and not skipped as too dim); Alg. 1: 0 */
    size_t echoes;           /* beams with an echo */
} lsim_bloom_stats;

/* Nearest echo above threshold for each beam at pixel coordinates (u[b], v[b]) (rounded to the
 * nearest pixel): range = centre of the slice (s + 0.5) delta r, power = xi_slice, or range 0
 * and power 0 where no slice reaches the threshold. Both algorithms give the same result. */
lsim_status lsim_bloom_nearest(lsim_context *ctx, lsim_bloom_algorithm algorithm, const lsim_bloom_image *image,
                               const lsim_kernel *kernel, const lsim_bloom_params *params, size_t beams,
                               const float *u, const float *v, float *range, float *power);
/* The same, filling `stats` (may be NULL).
 * Definitions (both algorithms): a pixel with 0 < intensity (finite) and 0 <= range < max_range
 * lies in slice s = floor(range / range_bin); the kernel weight of pixel offset (m, n) from the
 * beam's pixel is h[m + half_u] v[n + half_v]; pixels outside the image contribute nothing;
 * xi_s = sum of intensity x weight over the window's pixels of slice s (accumulated in double;
 * a stored row shared by several image rows counts once, with the sum of their v weights);
 * the echo is the smallest s with xi_s >= threshold. A beam with a non-finite coordinate or whose
 * window misses the image has no echo. Limits: s_max < 2^22, width, height <= 2^20 with
 * width x height < 2^31, kernel halves <= 2^14, image->step_deg equal to the kernel's (1e-6
 * relative). Memory: Alg. 1 8 bytes per stored pixel + 12 (s_max + 1) bytes per thread; Alg. 2 12
 * bytes per stored pixel + 24 (s_max + 1) + 8 V' C bytes per thread, V' the stored rows and C the
 * number of distinct beam columns. */
lsim_status lsim_bloom_nearest_stats(lsim_context *ctx, lsim_bloom_algorithm algorithm, const lsim_bloom_image *image,
                                     const lsim_kernel *kernel, const lsim_bloom_params *params, size_t beams,
                                     const float *u, const float *v, float *range, float *power,
                                     lsim_bloom_stats *stats);

/* The algorithms' buffers, kept between calls (they only grow): zero-initialise, then pass the same
 * workspace to every call (one call at a time); lsim_bloom_workspace_free releases it. */
#define LSIM_BLOOM_WS_SLOTS 26
typedef struct lsim_bloom_workspace {
    void *buf[LSIM_BLOOM_WS_SLOTS];
    size_t bytes[LSIM_BLOOM_WS_SLOTS];
} lsim_bloom_workspace;
void lsim_bloom_workspace_free(lsim_bloom_workspace *w);
/* lsim_bloom_nearest_stats with the buffers of `w` (no allocation once they are large enough). */
lsim_status lsim_bloom_nearest_ws(lsim_context *ctx, lsim_bloom_algorithm algorithm, const lsim_bloom_image *image,
                                  const lsim_kernel *kernel, const lsim_bloom_params *params, size_t beams,
                                  const float *u, const float *v, float *range, float *power, lsim_bloom_stats *stats,
                                  lsim_bloom_workspace *w);

#endif
