/* Range-separated beam divergence and blooming (pbr paper §II-C): Alg. 1 (beam iteration) and
 * Alg. 2 (range stacking), giving the same nearest echo per beam.
 *
 * Shared definitions (blooming.h): slice s = floor(range / range_bin) of a pixel with positive
 * finite intensity and 0 <= range < max_range; kernel weight h[m] v[n]; xi_s = sum of intensity x
 * weight over the beam's window restricted to slice s, accumulated in double; the echo is the
 * smallest s with xi_s >= threshold.
 *
 * Alg. 1: per beam (parallel over beams), the window's pixels are accumulated into a per-thread
 * dense array over slices; only the touched slices are searched and cleared, so a beam costs
 * O(window), independent of the number of slices. Along a kernel row, runs of pixels of the same
 * slice are summed in a register (sum of intensity x h) and added once, times v (most rows of a
 * window stay in one slice; this avoids a store-to-load chain per pixel).
 *
 * Alg. 2: the pixels are bucketed by slice once (stable counting sort, row-major inside a slice)
 * with each slice's brightest pixel and column range. A slice whose brightest pixel times the
 * kernel's total weight (sum h)(sum v) stays below the threshold cannot give any beam an echo
 * and is skipped (the bound carries a 1e-9 relative margin for rounding, so the skip never
 * changes a result). The other slices are processed in parallel (dynamic schedule, increasing s):
 * the separable convolution is evaluated only where the beams need it, a horizontal pass that
 * scatters each pixel of the slice into the beam columns within half_u of it (buffer per thread,
 * column-major [beam column][row], with the first and last row written per column) and a vertical
 * pass evaluated only at the beams whose vertical window meets those rows (four partial sums);
 * only the written rows are cleared. Each thread keeps the nearest slice per beam (a beam with an
 * echo in a nearer slice is not evaluated again by that thread); the per-thread results are
 * merged by the smallest slice, whose power is the xi computed for that slice. Since a slice's xi
 * for a beam is computed in a fixed order whichever thread computes it, the result does not
 * depend on the number of threads or the schedule. */
#include "optics/blooming.h"

#include "core/context.h"

#include <float.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define BLOOM_MAX_BINS ((size_t)1 << 22)
#define BLOOM_MAX_DIM (1 << 20)
#define BLOOM_MAX_PIXELS ((size_t)1 << 31)
#define BLOOM_MAX_HALF (1 << 14)
#define BLOOM_SKIP_MARGIN (1.0 + 1e-9)
#define NO_SLICE INT32_MAX

typedef struct bloom_setup {
    int U, V, M, N;     /* image size, kernel halves */
    int32_t smax;       /* largest slice index */
    size_t S;           /* smax + 1 */
    double bin, max_range, thr;
    int threads;
    const lsim_bloom_image *im;
    double *h, *v;      /* kernel in double */
    double sumh, sumv;
} bloom_setup;

/* Slice of one pixel, -1 when it holds no target. */
static inline int32_t pixel_slice(const bloom_setup *st, float intensity, float range)
{
    if (!(intensity > 0.0f) || !(intensity <= FLT_MAX) || !(range >= 0.0f) || !((double)range < st->max_range))
        return -1;
    double q = floor((double)range / st->bin);
    return q < (double)st->smax ? (int32_t)q : st->smax;
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

/* ---------------------------------------------------------------- Alg. 1: beam iteration */

typedef struct bloom_px {
    float w;   /* intensity */
    int32_t s; /* slice, -1 for none */
} bloom_px;

static lsim_status beam_iteration(lsim_context *ctx, const bloom_setup *st, size_t beams, const float *bu_in,
                                  const float *bv_in, float *range, float *power, lsim_bloom_stats *stats)
{
    const int U = st->U, V = st->V, M = st->M, N = st->N, T = st->threads;
    const size_t UV = (size_t)U * (size_t)V, S = st->S;
    const size_t window = (size_t)(2 * M + 1) * (size_t)(2 * N + 1);
    const size_t cap = window < S ? window : S;
    bloom_px *px = malloc(UV * sizeof *px);
    double *acc = calloc((size_t)T * S, sizeof *acc);
    int32_t *touched = malloc((size_t)T * cap * sizeof *touched);
    unsigned char *occupied = stats ? calloc(S, 1) : NULL;
    if (!px || !acc || !touched || (stats && !occupied)) {
        free(px);
        free(acc);
        free(touched);
        free(occupied);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "blooming: out of memory for %zu pixels and %zu slices", UV, S);
    }
    const float *I = st->im->intensity, *R = st->im->range;
#pragma omp parallel for num_threads(T) schedule(static)
    for (size_t p = 0; p < UV; ++p) {
        px[p].w = I[p];
        px[p].s = pixel_slice(st, I[p], R[p]);
    }
    if (stats) {
        for (size_t p = 0; p < UV; ++p)
            if (px[p].s >= 0)
                occupied[px[p].s] = 1;
        for (size_t s = 0; s < S; ++s)
            stats->slices_occupied += occupied[s];
        free(occupied);
    }
    const double *hd = st->h, *vd = st->v;
    const double thr = st->thr, bin = st->bin;
    size_t echoes = 0;
#pragma omp parallel num_threads(T) reduction(+ : echoes)
    {
        const int t = omp_get_thread_num();
        double *a = acc + (size_t)t * S;
        int32_t *tl = touched + (size_t)t * cap;
#pragma omp for schedule(dynamic, 16)
        for (size_t b = 0; b < beams; ++b) {
            int32_t bu, bv;
            range[b] = power[b] = 0.0f;
            if (!beam_pixel(bu_in[b], -M, U - 1 + M, &bu) || !beam_pixel(bv_in[b], -N, V - 1 + N, &bv))
                continue;
            const int u0 = bu - M < 0 ? 0 : bu - M, u1 = bu + M > U - 1 ? U - 1 : bu + M;
            const int r0 = bv - N < 0 ? 0 : bv - N, r1 = bv + N > V - 1 ? V - 1 : bv + N;
            const int hoff = M - bu; /* h index of image column uu: uu + hoff */
            size_t nt = 0;
            for (int r = r0; r <= r1; ++r) {
                const double wv = vd[r - bv + N];
                if (!(wv > 0.0))
                    continue;
                const bloom_px *row = px + (size_t)r * (size_t)U;
                /* runs of equal slice along the row are summed in a register, then added once */
                int32_t cur = -1;
                double run = 0.0;
                for (int uu = u0; uu <= u1 + 1; ++uu) {
                    const int32_t s = uu <= u1 ? row[uu].s : -2;
                    if (s != cur) {
                        const double w = run * wv;
                        if (cur >= 0 && w > 0.0) {
                            if (a[cur] == 0.0)
                                tl[nt++] = cur; /* first positive contribution: nt <= min(window, S) */
                            a[cur] += w;
                        }
                        cur = s;
                        run = 0.0;
                    }
                    if (s >= 0)
                        run += (double)row[uu].w * hd[uu + hoff];
                }
            }
            int32_t best = NO_SLICE;
            double best_xi = 0.0;
            for (size_t k = 0; k < nt; ++k) {
                const int32_t s = tl[k];
                if (s < best && a[s] >= thr) {
                    best = s;
                    best_xi = a[s];
                }
                a[s] = 0.0;
            }
            if (best != NO_SLICE) {
                range[b] = (float)((best + 0.5) * bin);
                power[b] = (float)best_xi;
                ++echoes;
            }
        }
    }
    if (stats)
        stats->echoes = echoes;
    free(px);
    free(acc);
    free(touched);
    return LSIM_OK;
}

/* ---------------------------------------------------------------- Alg. 2: range stacking */

typedef struct slice_box {
    int32_t u0, u1; /* columns of the slice's pixels */
} slice_box;

static lsim_status range_stacking(lsim_context *ctx, const bloom_setup *st, int keep_dim, size_t beams,
                                  const float *bu_in, const float *bv_in, float *range, float *power,
                                  lsim_bloom_stats *stats)
{
    const int U = st->U, V = st->V, M = st->M, N = st->N, T = st->threads;
    const size_t UV = (size_t)U * (size_t)V, S = st->S;
    const size_t ucols = (size_t)U + 2 * (size_t)M, vrows = (size_t)V + 2 * (size_t)N;
    const size_t cmax = beams < ucols ? beams : ucols;
    lsim_status status = LSIM_OK;

    int32_t *pbin = malloc(UV * sizeof *pbin);
    uint32_t *order = malloc(UV * sizeof *order);
    float *sw = malloc(UV * sizeof *sw);
    uint32_t *start = calloc(S + 1, sizeof *start), *cursor = malloc(S * sizeof *cursor);
    float *smaxi = calloc(S, sizeof *smaxi);
    slice_box *box = malloc(S * sizeof *box);
    int32_t *list = malloc(S * sizeof *list);
    int32_t *bu = malloc(beams * sizeof *bu), *bv = malloc(beams * sizeof *bv);
    size_t *sorted = malloc(beams * sizeof *sorted), *tmp = malloc(beams * sizeof *tmp);
    size_t *cnt_v = calloc(vrows + 1, sizeof *cnt_v), *cnt_u = calloc(ucols + 1, sizeof *cnt_u);
    int32_t *col_u = malloc(cmax * sizeof *col_u);
    size_t *col_start = malloc((cmax + 1) * sizeof *col_start);
    int32_t *lo = malloc((size_t)U * sizeof *lo), *hi = malloc((size_t)U * sizeof *hi);
    int32_t *best_s = malloc((size_t)T * beams * sizeof *best_s);
    double *best_p = malloc((size_t)T * beams * sizeof *best_p);
    double *hbuf = NULL;
    int32_t *rows_used = NULL; /* per thread, per beam column: first and last row written in the slice */
    if (!pbin || !order || !sw || !start || !cursor || !smaxi || !box || !list || !bu || !bv || !sorted || !tmp ||
        !cnt_v || !cnt_u || !col_u || !col_start || !lo || !hi || !best_s || !best_p) {
        status = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "blooming: out of memory for %zu pixels, %zu slices, %zu beams",
                           UV, S, beams);
        goto done;
    }

    /* beams: rounded pixels, sorted by column then row (two stable counting sorts) */
    size_t nb = 0;
    for (size_t b = 0; b < beams; ++b) {
        range[b] = power[b] = 0.0f;
        if (!beam_pixel(bu_in[b], -M, U - 1 + M, &bu[b]) || !beam_pixel(bv_in[b], -N, V - 1 + N, &bv[b])) {
            bu[b] = INT32_MIN;
            continue;
        }
        ++cnt_v[(size_t)(bv[b] + N) + 1];
        ++nb;
    }
    for (size_t i = 1; i <= vrows; ++i)
        cnt_v[i] += cnt_v[i - 1];
    for (size_t b = 0; b < beams; ++b)
        if (bu[b] != INT32_MIN)
            tmp[cnt_v[bv[b] + N]++] = b;
    for (size_t k = 0; k < nb; ++k)
        ++cnt_u[(size_t)(bu[tmp[k]] + M) + 1];
    for (size_t i = 1; i <= ucols; ++i)
        cnt_u[i] += cnt_u[i - 1];
    for (size_t k = 0; k < nb; ++k)
        sorted[cnt_u[bu[tmp[k]] + M]++] = tmp[k];
    size_t C = 0;
    for (size_t k = 0; k < nb; ++k)
        if (k == 0 || bu[sorted[k]] != bu[sorted[k - 1]]) {
            col_u[C] = bu[sorted[k]];
            col_start[C++] = k;
        }
    col_start[C] = nb;
    /* beam columns within +-M of image column u: [lo[u], hi[u]) */
    {
        size_t a = 0, z = 0;
        for (int u = 0; u < U; ++u) {
            while (a < C && col_u[a] < u - M)
                ++a;
            while (z < C && col_u[z] <= u + M)
                ++z;
            lo[u] = (int32_t)a;
            hi[u] = (int32_t)z;
        }
    }
    hbuf = calloc((size_t)T * (C ? C : 1) * (size_t)V, sizeof *hbuf);
    rows_used = malloc((size_t)T * 2 * (C ? C : 1) * sizeof *rows_used);
    if (!hbuf || !rows_used) {
        status = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY,
                           "blooming: out of memory for the range-stacking buffers (%d threads x %zu beam columns x %d "
                           "rows)",
                           T, C, V);
        goto done;
    }

    /* pixels: slice per pixel, then per slice count, brightest pixel and bounding box */
    const float *I = st->im->intensity, *R = st->im->range;
#pragma omp parallel for num_threads(T) schedule(static)
    for (size_t p = 0; p < UV; ++p)
        pbin[p] = pixel_slice(st, I[p], R[p]);
    for (size_t s = 0; s < S; ++s)
        box[s] = (slice_box){INT32_MAX, -1};
    for (int r = 0; r < V; ++r) {
        const int32_t *row = pbin + (size_t)r * (size_t)U;
        const float *irow = I + (size_t)r * (size_t)U;
        for (int u = 0; u < U; ++u) {
            const int32_t s = row[u];
            if (s < 0)
                continue;
            ++start[s + 1];
            if (irow[u] > smaxi[s])
                smaxi[s] = irow[u];
            slice_box *bx = &box[s];
            if (u < bx->u0)
                bx->u0 = u;
            if (u > bx->u1)
                bx->u1 = u;
        }
    }
    size_t occupied = 0, nlist = 0;
    const double bound = st->sumh * st->sumv * BLOOM_SKIP_MARGIN;
    for (size_t s = 0; s < S; ++s) {
        if (start[s + 1]) {
            ++occupied;
            if (keep_dim || (double)smaxi[s] * bound >= st->thr)
                list[nlist++] = (int32_t)s;
        }
        start[s + 1] += start[s];
        cursor[s] = start[s];
    }
    for (size_t p = 0; p < UV; ++p) {
        const int32_t s = pbin[p];
        if (s < 0)
            continue;
        const uint32_t k = cursor[s]++;
        order[k] = (uint32_t)p;
        sw[k] = I[p];
    }

    const double *hd = st->h, *vd = st->v;
    const double thr = st->thr;
#pragma omp parallel num_threads(T)
    {
        const int t = omp_get_thread_num();
        double *H = hbuf + (size_t)t * C * (size_t)V;
        int32_t *rfirst = rows_used + (size_t)t * 2 * C, *rlast = rfirst + C;
        for (size_t c = 0; c < C; ++c) {
            rfirst[c] = INT32_MAX;
            rlast[c] = -1;
        }
        int32_t *bs = best_s + (size_t)t * beams;
        double *bp = best_p + (size_t)t * beams;
        for (size_t b = 0; b < beams; ++b)
            bs[b] = NO_SLICE;
#pragma omp for schedule(dynamic, 1)
        for (size_t i = 0; i < nlist; ++i) {
            const int32_t s = list[i];
            const slice_box bx = box[s];
            /* horizontal pass: scatter the slice's pixels into the beam columns (rows increase) */
            for (uint32_t k = start[s]; k < start[s + 1]; ++k) {
                const uint32_t p = order[k];
                const int r = (int)(p / (uint32_t)U), u = (int)(p - (uint32_t)r * (uint32_t)U);
                const double w = sw[k];
                for (int32_t c = lo[u]; c < hi[u]; ++c) {
                    H[(size_t)c * (size_t)V + (size_t)r] += w * hd[u - col_u[c] + M];
                    if (rfirst[c] == INT32_MAX)
                        rfirst[c] = r;
                    rlast[c] = r;
                }
            }
            /* vertical pass at the beams whose window meets the rows written in their column */
            const int32_t c0 = lo[bx.u0], c1 = hi[bx.u1];
            for (int32_t c = c0; c < c1; ++c) {
                const int32_t f = rfirst[c], l = rlast[c];
                if (l < 0)
                    continue;
                double *Hc = H + (size_t)c * (size_t)V;
                const size_t kend = col_start[c + 1];
                /* first beam with bv + N >= f (rows sorted within the column) */
                size_t a = col_start[c], z = kend;
                while (a < z) {
                    size_t mid = a + (z - a) / 2;
                    if (bv[sorted[mid]] + N < f)
                        a = mid + 1;
                    else
                        z = mid;
                }
                for (size_t k = a; k < kend; ++k) {
                    const size_t b = sorted[k];
                    const int32_t y = bv[b];
                    if (y - N > l)
                        break;
                    if (bs[b] <= s)
                        continue;
                    const int ra = y - N > f ? y - N : f, rb = y + N < l ? y + N : l;
                    const int voff = N - y; /* v index of row r: r + voff */
                    /* four partial sums (fixed order: the result does not depend on threads) */
                    double x0 = 0.0, x1 = 0.0, x2 = 0.0, x3 = 0.0;
                    int r = ra;
                    for (; r + 3 <= rb; r += 4) {
                        x0 += vd[r + voff] * Hc[r];
                        x1 += vd[r + 1 + voff] * Hc[r + 1];
                        x2 += vd[r + 2 + voff] * Hc[r + 2];
                        x3 += vd[r + 3 + voff] * Hc[r + 3];
                    }
                    for (; r <= rb; ++r)
                        x0 += vd[r + voff] * Hc[r];
                    const double xi = (x0 + x1) + (x2 + x3);
                    if (xi >= thr) {
                        bs[b] = s;
                        bp[b] = xi;
                    }
                }
                memset(Hc + f, 0, (size_t)(l - f + 1) * sizeof *Hc);
                rfirst[c] = INT32_MAX;
                rlast[c] = -1;
            }
        }
    }
    /* merge: the nearest slice over the threads */
    size_t echoes = 0;
    for (size_t b = 0; b < beams; ++b) {
        if (bu[b] == INT32_MIN)
            continue;
        int32_t best = NO_SLICE;
        double xi = 0.0;
        for (int t = 0; t < T; ++t) {
            const int32_t s = best_s[(size_t)t * beams + b];
            if (s < best) {
                best = s;
                xi = best_p[(size_t)t * beams + b];
            }
        }
        if (best != NO_SLICE) {
            range[b] = (float)((best + 0.5) * st->bin);
            power[b] = (float)xi;
            ++echoes;
        }
    }
    if (stats) {
        stats->slices_occupied = occupied;
        stats->slices_processed = nlist;
        stats->echoes = echoes;
    }

done:
    free(pbin);
    free(order);
    free(sw);
    free(start);
    free(cursor);
    free(smaxi);
    free(box);
    free(list);
    free(bu);
    free(bv);
    free(sorted);
    free(tmp);
    free(cnt_v);
    free(cnt_u);
    free(col_u);
    free(col_start);
    free(lo);
    free(hi);
    free(best_s);
    free(best_p);
    free(hbuf);
    free(rows_used);
    return status;
}

/* ---------------------------------------------------------------- entry points */

lsim_status lsim_bloom_nearest_stats(lsim_context *ctx, lsim_bloom_algorithm algorithm, const lsim_bloom_image *image,
                                     const lsim_kernel *kernel, const lsim_bloom_params *params, size_t beams,
                                     const float *u, const float *v, float *range, float *power,
                                     lsim_bloom_stats *stats)
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

    bloom_setup st;
    memset(&st, 0, sizeof st);
    st.U = image->width;
    st.V = image->height;
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
    if (!kd)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "blooming: out of memory");
    st.h = kd;
    st.v = kd + nh;
    for (size_t i = 0; i < nh; ++i) {
        const float w = kernel->h[i];
        if (!(w >= 0.0f) || !(w <= FLT_MAX)) {
            free(kd);
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "blooming: kernel h[%zu] = %g is not a finite weight >= 0",
                             i, (double)w);
        }
        st.sumh += st.h[i] = w;
    }
    for (size_t i = 0; i < nv; ++i) {
        const float w = kernel->v[i];
        if (!(w >= 0.0f) || !(w <= FLT_MAX)) {
            free(kd);
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "blooming: kernel v[%zu] = %g is not a finite weight >= 0",
                             i, (double)w);
        }
        st.sumv += st.v[i] = w;
    }
    lsim_status status = LSIM_OK;
    if (beams) {
        if (algorithm == LSIM_BLOOM_BEAM_ITERATION)
            status = beam_iteration(ctx, &st, beams, u, v, range, power, stats);
        else
            status = range_stacking(ctx, &st, params->keep_dim_slices, beams, u, v, range, power, stats);
    }
    free(kd);
    return status;
}

lsim_status lsim_bloom_nearest(lsim_context *ctx, lsim_bloom_algorithm algorithm, const lsim_bloom_image *image,
                               const lsim_kernel *kernel, const lsim_bloom_params *params, size_t beams,
                               const float *u, const float *v, float *range, float *power)
{
    return lsim_bloom_nearest_stats(ctx, algorithm, image, kernel, params, beams, u, v, range, power, NULL);
}
