/* Private to the blooming (optics/blooming.h): what both algorithms share. blooming.c checks
 * the call and sets it up (bloom_setup) and holds the workspace; bloom_beam_iteration.c is Alg. 1,
 * bloom_range_stacking.c Alg. 2.
 *
 * Shared definitions (blooming.h): slice s = floor(range / range_bin) of a pixel with positive
 * finite intensity and 0 <= range < max_range; kernel weight h[m] v[n]; xi_s = sum of intensity x
 * weight over the beam's window restricted to slice s, accumulated in double; the echo is the
 * smallest s with xi_s >= threshold. */
#ifndef LSIM_OPTICS_BLOOM_SETUP_H
#define LSIM_OPTICS_BLOOM_SETUP_H

#include "optics/blooming.h"

#include <float.h>
#include <math.h>
#include <stdint.h>

#define BLOOM_SKIP_MARGIN (1.0 + 1e-9)
#define NO_SLICE INT32_MAX

typedef struct bloom_setup {
    int U, V, M, N;     /* image size, kernel halves */
    int R;              /* stored rows (V when every row is stored) */
    const int32_t *row; /* V: the stored row of each image row */
    const int32_t *run; /* R + 1: stored row k holds the image rows [run[k], run[k + 1]) */
    int32_t smax;       /* largest slice index */
    size_t S;           /* smax + 1 */
    double bin, max_range, thr;
    int threads;
    const lsim_bloom_image *im;
    double *h, *v;      /* kernel in double */
    double sumh, sumv;
} bloom_setup;

/* A buffer of the workspace: slot `slot` grown to `bytes` (contents not kept), zeroed if asked;
 * NULL (and *ok = 0) when out of memory. Slots 0-3 are Alg. 1's, 4-25 Alg. 2's. */
void *lsim_bloom_ws_get(lsim_bloom_workspace *w, int slot, size_t bytes, int zero, int *ok);

/* Slice of one pixel, -1 when it holds no target. */
static inline int32_t pixel_slice(const bloom_setup *st, float intensity, float range)
{
    if (!(intensity > 0.0f) || !(intensity <= FLT_MAX) || !(range >= 0.0f) || !((double)range < st->max_range))
        return -1;
    double q = floor((double)range / st->bin);
    return q < (double)st->smax ? (int32_t)q : st->smax;
}

/* Kernel weight of stored row k for a beam at image row y: v summed over the image rows of k in
 * the beam's window, in increasing row order (one term when every row is stored). Both
 * algorithms use it, so they weight the rows alike. */
static inline double row_weight(const bloom_setup *st, int32_t k, int32_t y)
{
    int32_t a = st->run[k], b = st->run[k + 1] - 1;
    if (a < y - st->N)
        a = y - st->N;
    if (b > y + st->N)
        b = y + st->N;
    double w = 0.0;
    for (int32_t r = a; r <= b; ++r)
        w += st->v[r - y + st->N];
    return w;
}

/* The stored rows [*k0, *k1] that the window of a beam at image row y (in [-N, V - 1 + N]) meets. */
static inline void window_rows(const bloom_setup *st, int32_t y, int32_t *k0, int32_t *k1)
{
    const int32_t a = y - st->N < 0 ? 0 : y - st->N, b = y + st->N > st->V - 1 ? st->V - 1 : y + st->N;
    *k0 = st->row[a];
    *k1 = st->row[b];
}

/* Rounded beam pixel in [lo, hi]; 0 when non-finite or outside (its window misses the image). */
static inline int beam_pixel(float x, int lo, int hi, int32_t *out)
{
    if (!isfinite(x))
        return 0;
    double r = floor((double)x + 0.5);
    if (r < (double)lo || r > (double)hi)
        return 0;
    *out = (int32_t)r;
    return 1;
}

/* The nearest echo of each beam (blooming.h, lsim_bloom_nearest_ws) by Alg. 1 and by Alg. 2, after
 * the checks and the setup of blooming.c; `beams` > 0. */
lsim_status lsim_bloom_beam_iteration(lsim_context *ctx, const bloom_setup *st, size_t beams, const float *bu_in,
                                      const float *bv_in, float *range, float *power, lsim_bloom_stats *stats,
                                      lsim_bloom_workspace *w);
lsim_status lsim_bloom_range_stacking(lsim_context *ctx, const bloom_setup *st, int keep_dim, size_t beams,
                                      const float *bu_in, const float *bv_in, float *range, float *power,
                                      lsim_bloom_stats *stats, lsim_bloom_workspace *w);

#endif
