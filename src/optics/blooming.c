/* Range-separated beam divergence and blooming (pbr paper §II-C): the entry points, which check a
 * call and set it up for Alg. 1 (beam iteration, bloom_beam_iteration.c) or Alg. 2 (range
 * stacking, bloom_range_stacking.c), giving the same nearest echo per beam, and the workspace
 * they keep their buffers in. Definitions both share: bloom_setup.h. */
#include "optics/bloom_setup.h"

#include "core/context.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define BLOOM_MAX_BINS ((size_t)1 << 22)
#define BLOOM_MAX_DIM (1 << 20)
#define BLOOM_MAX_PIXELS ((size_t)1 << 31)
#define BLOOM_MAX_HALF (1 << 14)

/* bloom_setup.h */
void *lsim_bloom_ws_get(lsim_bloom_workspace *w, int slot, size_t bytes, int zero, int *ok)
{
    if (!*ok)
        return NULL;
    if (bytes == 0)
        bytes = 1;
    if (w->bytes[slot] < bytes) {
        free(w->buf[slot]);
        w->buf[slot] = malloc(bytes);
        w->bytes[slot] = w->buf[slot] ? bytes : 0;
        if (!w->buf[slot]) {
            *ok = 0;
            return NULL;
        }
    }
    if (zero)
        memset(w->buf[slot], 0, bytes);
    return w->buf[slot];
}

void lsim_bloom_workspace_free(lsim_bloom_workspace *w)
{
    if (!w)
        return;
    for (int i = 0; i < LSIM_BLOOM_WS_SLOTS; ++i)
        free(w->buf[i]);
    memset(w, 0, sizeof *w);
}

lsim_status lsim_bloom_nearest_stats(lsim_context *ctx, lsim_bloom_algorithm algorithm, const lsim_bloom_image *image,
                                     const lsim_kernel *kernel, const lsim_bloom_params *params, size_t beams,
                                     const float *u, const float *v, float *range, float *power,
                                     lsim_bloom_stats *stats)
{
    lsim_bloom_workspace w;
    memset(&w, 0, sizeof w);
    lsim_status st = lsim_bloom_nearest_ws(ctx, algorithm, image, kernel, params, beams, u, v, range, power, stats, &w);
    lsim_bloom_workspace_free(&w);
    return st;
}

lsim_status lsim_bloom_nearest_ws(lsim_context *ctx, lsim_bloom_algorithm algorithm, const lsim_bloom_image *image,
                                  const lsim_kernel *kernel, const lsim_bloom_params *params, size_t beams,
                                  const float *u, const float *v, float *range, float *power, lsim_bloom_stats *stats,
                                  lsim_bloom_workspace *w)
{
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (algorithm != LSIM_BLOOM_BEAM_ITERATION && algorithm != LSIM_BLOOM_RANGE_STACKING)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "blooming: unknown algorithm %d (1 = beam iteration, 2 = range stacking)", (int)algorithm);
    if (!image || !kernel || !params)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "blooming: image, kernel and params must not be NULL");
    if (image->width < 1 || image->height < 1 || image->width > BLOOM_MAX_DIM || image->height > BLOOM_MAX_DIM ||
        (size_t)image->width * (size_t)image->height >= BLOOM_MAX_PIXELS)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "blooming: image size %d x %d out of range (1 .. %d per side, fewer than 2^31 pixels)",
                         image->width, image->height, BLOOM_MAX_DIM);
    if (!image->intensity || !image->range)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "blooming: image intensity and range must not be NULL");
    if (!kernel->h || !kernel->v || kernel->half_u < 0 || kernel->half_v < 0 || kernel->half_u > BLOOM_MAX_HALF ||
        kernel->half_v > BLOOM_MAX_HALF)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "blooming: kernel without weights or with half sizes %d, %d outside 0 .. %d", kernel->half_u,
                         kernel->half_v, BLOOM_MAX_HALF);
    if (!(image->step_deg > 0.0) || !isfinite(image->step_deg) ||
        !(fabs(image->step_deg - kernel->step_deg) <= 1e-6 * image->step_deg))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "blooming: image pixel pitch %g deg must be positive and equal the kernel's step %g deg",
                         image->step_deg, kernel->step_deg);
    if (!(params->range_bin > 0.0) || !isfinite(params->range_bin) || !(params->max_range > 0.0) ||
        !isfinite(params->max_range))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "blooming: range_bin %g and max_range %g must be positive and finite", params->range_bin,
                         params->max_range);
    const double smax = floor(params->max_range / params->range_bin);
    if (!(smax < (double)BLOOM_MAX_BINS))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "blooming: max_range / range_bin = %g range slices exceeds %zu; use a coarser range_bin",
                         smax + 1.0, BLOOM_MAX_BINS);
    if (!(params->threshold > 0.0) || !isfinite(params->threshold))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "blooming: threshold %g must be positive and finite",
                         params->threshold);
    if (params->threads < 0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "blooming: threads %d must be >= 0 (0: all cores)",
                         params->threads);
    if (beams && (!u || !v || !range || !power))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "blooming: beam arrays must not be NULL");
    if (beams > (size_t)INT32_MAX)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "blooming: %zu beams exceed %d", beams, INT32_MAX);
    const int stored = image->row ? image->stored_rows : image->height;
    if (image->row) {
        int ok = image->row[0] == 0 && image->stored_rows == image->row[image->height - 1] + 1;
        for (int r = 1; ok && r < image->height; ++r)
            ok = image->row[r] - image->row[r - 1] == 0 || image->row[r] - image->row[r - 1] == 1;
        if (!ok)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "blooming: the image's stored rows must start at 0 and go up by 0 or 1 per row, ending "
                             "at stored_rows - 1 (%d)",
                             image->stored_rows - 1);
    }

    bloom_setup st;
    memset(&st, 0, sizeof st);
    st.U = image->width;
    st.V = image->height;
    st.R = stored;
    st.M = kernel->half_u;
    st.N = kernel->half_v;
    st.smax = (int32_t)smax;
    st.S = (size_t)st.smax + 1;
    st.bin = params->range_bin;
    st.max_range = params->max_range;
    st.thr = params->threshold;
    st.im = image;
    if (params->threads > 0) {
        st.threads = params->threads;
    } else {
        int n = omp_get_num_procs();
        st.threads = n > 0 ? n : 1;
    }
    if (stats)
        stats->slices_total = st.S;
    const size_t nh = 2 * (size_t)st.M + 1, nv = 2 * (size_t)st.N + 1;
    double *kd = malloc((nh + nv) * sizeof *kd);
    int32_t *rows = malloc(((size_t)st.V + (size_t)st.R + 1) * sizeof *rows);
    if (!kd || !rows) {
        free(kd);
        free(rows);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "blooming: out of memory");
    }
    st.h = kd;
    st.v = kd + nh;
    int32_t *run = rows + st.V;
    for (int r = 0; r < st.V; ++r) {
        rows[r] = image->row ? image->row[r] : r;
        if (r == 0 || rows[r] != rows[r - 1])
            run[rows[r]] = r;
    }
    run[st.R] = st.V;
    st.row = rows;
    st.run = run;
    for (size_t i = 0; i < nh; ++i) {
        const float w = kernel->h[i];
        if (!(w >= 0.0f) || !(w <= FLT_MAX)) {
            free(kd);
            free(rows);
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "blooming: kernel h[%zu] = %g is not a finite weight >= 0",
                             i, (double)w);
        }
        st.sumh += st.h[i] = w;
    }
    for (size_t i = 0; i < nv; ++i) {
        const float w = kernel->v[i];
        if (!(w >= 0.0f) || !(w <= FLT_MAX)) {
            free(kd);
            free(rows);
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "blooming: kernel v[%zu] = %g is not a finite weight >= 0",
                             i, (double)w);
        }
        st.sumv += st.v[i] = w;
    }
    lsim_status status = LSIM_OK;
    if (beams) {
        if (algorithm == LSIM_BLOOM_BEAM_ITERATION)
            status = lsim_bloom_beam_iteration(ctx, &st, beams, u, v, range, power, stats, w);
        else
            status = lsim_bloom_range_stacking(ctx, &st, params->keep_dim_slices, beams, u, v, range, power, stats, w);
    }
    free(kd);
    free(rows);
    return status;
}

lsim_status lsim_bloom_nearest(lsim_context *ctx, lsim_bloom_algorithm algorithm, const lsim_bloom_image *image,
                               const lsim_kernel *kernel, const lsim_bloom_params *params, size_t beams,
                               const float *u, const float *v, float *range, float *power)
{
    return lsim_bloom_nearest_stats(ctx, algorithm, image, kernel, params, beams, u, v, range, power, NULL);
}
