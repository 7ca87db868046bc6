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
 * row-major [row][beam column], with the first and last row written per column; runs of
 * neighbouring pixels in a row update those once) and a vertical
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

/* A buffer of the workspace: slot `slot` grown to `bytes` (contents not kept), zeroed if asked;
 * NULL (and *ok = 0) when out of memory. */
static void *ws_get(lsim_bloom_workspace *w, int slot, size_t bytes, int zero, int *ok)
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
                                  const float *bv_in, float *range, float *power, lsim_bloom_stats *stats,
                                  lsim_bloom_workspace *w)
{
    const int U = st->U, V = st->V, M = st->M, N = st->N, T = st->threads;
    const size_t UV = (size_t)U * (size_t)V, S = st->S;
    const size_t window = (size_t)(2 * M + 1) * (size_t)(2 * N + 1);
    const size_t cap = window < S ? window : S;
    int ok = 1;
    bloom_px *px = ws_get(w, 0, UV * sizeof *px, 0, &ok);
    double *acc = ws_get(w, 1, (size_t)T * S * sizeof *acc, 1, &ok);
    int32_t *touched = ws_get(w, 2, (size_t)T * cap * sizeof *touched, 0, &ok);
    unsigned char *occupied = stats ? ws_get(w, 3, S, 1, &ok) : NULL;
    if (!ok)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "blooming: out of memory for %zu pixels and %zu slices", UV, S);
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
    return LSIM_OK;
}

/* ---------------------------------------------------------------- Alg. 2: range stacking */

typedef struct slice_box {
    int32_t u0, u1; /* columns of the slice's pixels */
} slice_box;

static lsim_status range_stacking(lsim_context *ctx, const bloom_setup *st, int keep_dim, size_t beams,
                                  const float *bu_in, const float *bv_in, float *range, float *power,
                                  lsim_bloom_stats *stats, lsim_bloom_workspace *w)
{
    const int U = st->U, V = st->V, M = st->M, N = st->N, T = st->threads;
    const size_t UV = (size_t)U * (size_t)V, S = st->S;
    const size_t ucols = (size_t)U + 2 * (size_t)M, vrows = (size_t)V + 2 * (size_t)N;
    const size_t cmax = beams < ucols ? beams : ucols;
    int ok = 1;
    int32_t *pbin = ws_get(w, 4, UV * sizeof *pbin, 0, &ok);
    uint32_t *order = ws_get(w, 5, UV * sizeof *order, 0, &ok);
    float *sw = ws_get(w, 6, UV * sizeof *sw, 0, &ok);
    uint32_t *start = ws_get(w, 7, (S + 1) * sizeof *start, 1, &ok), *cursor = ws_get(w, 8, S * sizeof *cursor, 0, &ok);
    float *smaxi = ws_get(w, 9, S * sizeof *smaxi, 1, &ok);
    slice_box *box = ws_get(w, 10, S * sizeof *box, 0, &ok);
    int32_t *list = ws_get(w, 11, S * sizeof *list, 0, &ok);
    int32_t *bu = ws_get(w, 12, beams * sizeof *bu, 0, &ok), *bv = ws_get(w, 13, beams * sizeof *bv, 0, &ok);
    size_t *sorted = ws_get(w, 14, beams * sizeof *sorted, 0, &ok), *tmp = ws_get(w, 15, beams * sizeof *tmp, 0, &ok);
    size_t *cnt_v = ws_get(w, 16, (vrows + 1) * sizeof *cnt_v, 1, &ok),
           *cnt_u = ws_get(w, 17, (ucols + 1) * sizeof *cnt_u, 1, &ok);
    int32_t *col_u = ws_get(w, 18, cmax * sizeof *col_u, 0, &ok);
    size_t *col_start = ws_get(w, 19, (cmax + 1) * sizeof *col_start, 0, &ok);
    int32_t *lo = ws_get(w, 20, (size_t)U * sizeof *lo, 0, &ok), *hi = ws_get(w, 21, (size_t)U * sizeof *hi, 0, &ok);
    int32_t *best_s = ws_get(w, 22, (size_t)T * beams * sizeof *best_s, 0, &ok);
    double *best_p = ws_get(w, 23, (size_t)T * beams * sizeof *best_p, 0, &ok);
    if (!ok)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "blooming: out of memory for %zu pixels, %zu slices, %zu beams",
                         UV, S, beams);

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
    /* per thread: the horizontal pass's sums, row-major [row][beam column] (the columns a pixel
     * reaches are neighbours), and per beam column the first and last row written in the slice */
    double *hbuf = ws_get(w, 24, (size_t)T * (C ? C : 1) * (size_t)V * sizeof *hbuf, 1, &ok);
    int32_t *rows_used = ws_get(w, 25, (size_t)T * 2 * (C ? C : 1) * sizeof *rows_used, 0, &ok);
    if (!ok)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY,
                         "blooming: out of memory for the range-stacking buffers (%d threads x %zu beam columns x %d "
                         "rows)",
                         T, C, V);

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
            /* horizontal pass: scatter the slice's pixels into the beam columns (rows increase), a
             * run of neighbouring pixels of one row at a time; each sum still adds its pixels one
             * by one in increasing column order */
            for (uint32_t k = start[s], kend = start[s + 1]; k < kend;) {
                const uint32_t p = order[k];
                const int r = (int)(p / (uint32_t)U), u0 = (int)(p - (uint32_t)r * (uint32_t)U);
                uint32_t e = k + 1;
                while (e < kend && order[e] == order[e - 1] + 1 && u0 + (int)(e - k) < U)
                    ++e;
                double *Hr = H + (size_t)r * C;
                uint32_t q = k;
                /* four pixels at a time: the columns all four reach take their four terms in a row */
                for (; q + 4 <= e; q += 4) {
                    const int u = u0 + (int)(q - k);
                    const double w0 = sw[q], w1 = sw[q + 1], w2 = sw[q + 2], w3 = sw[q + 3];
                    const int32_t ca = lo[u], cb = hi[u + 3], ia = lo[u + 3], ib = hi[u];
                    const int32_t mid0 = ia < ib ? ia : cb, mid1 = ia < ib ? ib : cb;
                    for (int32_t c = ca; c < cb; ++c) {
                        if (c == mid0 && mid0 < mid1) {
                            for (; c < mid1; ++c) {
                                const double *h = hd + u + M - col_u[c];
                                double x = Hr[c];
                                x += w0 * h[0];
                                x += w1 * h[1];
                                x += w2 * h[2];
                                x += w3 * h[3];
                                Hr[c] = x;
                            }
                            if (c >= cb)
                                break;
                        }
                        const double *h = hd + u + M - col_u[c];
                        double x = Hr[c];
                        if (c >= lo[u] && c < hi[u])
                            x += w0 * h[0];
                        if (c >= lo[u + 1] && c < hi[u + 1])
                            x += w1 * h[1];
                        if (c >= lo[u + 2] && c < hi[u + 2])
                            x += w2 * h[2];
                        if (c >= lo[u + 3] && c < hi[u + 3])
                            x += w3 * h[3];
                        Hr[c] = x;
                    }
                }
                for (; q < e; ++q) {
                    const int u = u0 + (int)(q - k);
                    const double wq = sw[q];
                    const double *hu = hd + u + M; /* hd[u - col_u[c] + M] */
                    for (int32_t c = lo[u]; c < hi[u]; ++c)
                        Hr[c] += wq * hu[-col_u[c]];
                }
                /* every beam column of [lo[u0], hi[u1]) got at least one pixel of the run */
                for (int32_t c = lo[u0], c1 = hi[u0 + (int)(e - k) - 1]; c < c1; ++c) {
                    if (rfirst[c] == INT32_MAX)
                        rfirst[c] = r;
                    rlast[c] = r;
                }
                k = e;
            }
            /* vertical pass at the beams whose window meets the rows written in their column */
            const int32_t c0 = lo[bx.u0], c1 = hi[bx.u1];
            for (int32_t c = c0; c < c1; ++c) {
                const int32_t f = rfirst[c], l = rlast[c];
                if (l < 0)
                    continue;
                double *Hc = H + c; /* row r at Hc[r * C] */
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
                        x0 += vd[r + voff] * Hc[(size_t)r * C];
                        x1 += vd[r + 1 + voff] * Hc[(size_t)(r + 1) * C];
                        x2 += vd[r + 2 + voff] * Hc[(size_t)(r + 2) * C];
                        x3 += vd[r + 3 + voff] * Hc[(size_t)(r + 3) * C];
                    }
                    for (; r <= rb; ++r)
                        x0 += vd[r + voff] * Hc[(size_t)r * C];
                    const double xi = (x0 + x1) + (x2 + x3);
                    if (xi >= thr) {
                        bs[b] = s;
                        bp[b] = xi;
                    }
                }
                for (int32_t r = f; r <= l; ++r)
                    Hc[(size_t)r * C] = 0.0;
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

    return LSIM_OK;
}

/* ---------------------------------------------------------------- entry points */

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
            status = beam_iteration(ctx, &st, beams, u, v, range, power, stats, w);
        else
            status = range_stacking(ctx, &st, params->keep_dim_slices, beams, u, v, range, power, stats, w);
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
