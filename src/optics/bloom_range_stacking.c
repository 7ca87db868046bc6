/* Alg. 2 of the blooming (pbr paper §II-C), range stacking: the pixels are bucketed by slice once
 * (stable counting sort, row-major inside a slice) with each slice's brightest pixel and column
 * range. A slice whose brightest pixel times the kernel's total weight (sum h)(sum v) stays below
 * the threshold cannot give any beam an echo and is skipped (the bound carries a 1e-9 relative
 * margin for rounding, so the skip never changes a result). The other slices are processed in
 * parallel (dynamic schedule, increasing s): the separable convolution is evaluated only where
 * the beams need it, a horizontal pass that scatters each pixel of the slice into the beam
 * columns within half_u of it (buffer per thread, row-major [row][beam column], with the first
 * and last row written per column; runs of neighbouring pixels in a row update those once) and a
 * vertical pass evaluated only at the beams whose vertical window meets those rows (four partial
 * sums); only the written rows are cleared. Rows that share their pixels (blooming.h) are stored
 * once: the horizontal pass runs over the stored rows, the vertical pass weights each stored row
 * by its summed v (row_weight). Each thread keeps the nearest slice per beam (a beam
 * with an echo in a nearer slice is not evaluated again by that thread); the per-thread results
 * are merged by the smallest slice, whose power is the xi computed for that slice. Since a slice's
 * xi for a beam is computed in a fixed order whichever thread computes it, the result does not
 * depend on the number of threads or the schedule. Definitions: bloom_setup.h. */
#include "optics/bloom_setup.h"

#include "core/context.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

typedef struct slice_box {
    int32_t u0, u1; /* columns of the slice's pixels */
} slice_box;

lsim_status lsim_bloom_range_stacking(lsim_context *ctx, const bloom_setup *st, int keep_dim, size_t beams,
                                      const float *bu_in, const float *bv_in, float *range, float *power,
                                      lsim_bloom_stats *stats, lsim_bloom_workspace *w)
{
    const int U = st->U, V = st->V, M = st->M, N = st->N, T = st->threads;
    const size_t UV = (size_t)U * (size_t)st->R, S = st->S; /* stored pixels */
    const int VR = st->R;                                    /* stored rows */
    const size_t ucols = (size_t)U + 2 * (size_t)M, vrows = (size_t)V + 2 * (size_t)N;
    const size_t cmax = beams < ucols ? beams : ucols;
    int ok = 1;
    int32_t *pbin = lsim_bloom_ws_get(w, 4, UV * sizeof *pbin, 0, &ok);
    uint32_t *order = lsim_bloom_ws_get(w, 5, UV * sizeof *order, 0, &ok);
    float *sw = lsim_bloom_ws_get(w, 6, UV * sizeof *sw, 0, &ok);
    uint32_t *start = lsim_bloom_ws_get(w, 7, (S + 1) * sizeof *start, 1, &ok),
             *cursor = lsim_bloom_ws_get(w, 8, S * sizeof *cursor, 0, &ok);
    float *smaxi = lsim_bloom_ws_get(w, 9, S * sizeof *smaxi, 1, &ok);
    slice_box *box = lsim_bloom_ws_get(w, 10, S * sizeof *box, 0, &ok);
    int32_t *list = lsim_bloom_ws_get(w, 11, S * sizeof *list, 0, &ok);
    int32_t *bu = lsim_bloom_ws_get(w, 12, beams * sizeof *bu, 0, &ok),
            *bv = lsim_bloom_ws_get(w, 13, beams * sizeof *bv, 0, &ok);
    size_t *sorted = lsim_bloom_ws_get(w, 14, beams * sizeof *sorted, 0, &ok),
           *tmp = lsim_bloom_ws_get(w, 15, beams * sizeof *tmp, 0, &ok);
    size_t *cnt_v = lsim_bloom_ws_get(w, 16, (vrows + 1) * sizeof *cnt_v, 1, &ok),
           *cnt_u = lsim_bloom_ws_get(w, 17, (ucols + 1) * sizeof *cnt_u, 1, &ok);
    int32_t *col_u = lsim_bloom_ws_get(w, 18, cmax * sizeof *col_u, 0, &ok);
    size_t *col_start = lsim_bloom_ws_get(w, 19, (cmax + 1) * sizeof *col_start, 0, &ok);
    int32_t *lo = lsim_bloom_ws_get(w, 20, (size_t)U * sizeof *lo, 0, &ok),
            *hi = lsim_bloom_ws_get(w, 21, (size_t)U * sizeof *hi, 0, &ok);
    int32_t *best_s = lsim_bloom_ws_get(w, 22, (size_t)T * beams * sizeof *best_s, 0, &ok);
    double *best_p = lsim_bloom_ws_get(w, 23, (size_t)T * beams * sizeof *best_p, 0, &ok);
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
    double *hbuf = lsim_bloom_ws_get(w, 24, (size_t)T * (C ? C : 1) * (size_t)VR * sizeof *hbuf, 1, &ok);
    int32_t *rows_used = lsim_bloom_ws_get(w, 25, (size_t)T * 2 * (C ? C : 1) * sizeof *rows_used, 0, &ok);
    if (!ok)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY,
                         "blooming: out of memory for the range-stacking buffers (%d threads x %zu beam columns x %d "
                         "rows)",
                         T, C, VR);

    /* pixels: slice per pixel, then per slice count, brightest pixel and bounding box */
    const float *I = st->im->intensity, *R = st->im->range;
#pragma omp parallel for num_threads(T) schedule(static)
    for (size_t p = 0; p < UV; ++p)
        pbin[p] = pixel_slice(st, I[p], R[p]);
    for (size_t s = 0; s < S; ++s)
        box[s] = (slice_box){INT32_MAX, -1};
    for (int r = 0; r < VR; ++r) {
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

    const double *hd = st->h;
    const double thr = st->thr;
#pragma omp parallel num_threads(T)
    {
        const int t = omp_get_thread_num();
        double *H = hbuf + (size_t)t * C * (size_t)VR;
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
                /* first beam whose window reaches stored row f (rows sorted within the column) */
                size_t a = col_start[c], z = kend;
                while (a < z) {
                    size_t mid = a + (z - a) / 2;
                    int32_t k0, k1;
                    window_rows(st, bv[sorted[mid]], &k0, &k1);
                    if (k1 < f)
                        a = mid + 1;
                    else
                        z = mid;
                }
                for (size_t k = a; k < kend; ++k) {
                    const size_t b = sorted[k];
                    const int32_t y = bv[b];
                    int32_t ka, kb;
                    window_rows(st, y, &ka, &kb);
                    if (ka > l)
                        break;
                    if (bs[b] <= s)
                        continue;
                    ka = ka > f ? ka : f;
                    kb = kb < l ? kb : l;
                    /* four partial sums (fixed order: the result does not depend on threads) */
                    double x0 = 0.0, x1 = 0.0, x2 = 0.0, x3 = 0.0;
                    int32_t r = ka;
                    for (; r + 3 <= kb; r += 4) {
                        x0 += row_weight(st, r, y) * Hc[(size_t)r * C];
                        x1 += row_weight(st, r + 1, y) * Hc[(size_t)(r + 1) * C];
                        x2 += row_weight(st, r + 2, y) * Hc[(size_t)(r + 2) * C];
                        x3 += row_weight(st, r + 3, y) * Hc[(size_t)(r + 3) * C];
                    }
                    for (; r <= kb; ++r)
                        x0 += row_weight(st, r, y) * Hc[(size_t)r * C];
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
