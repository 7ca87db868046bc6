/* Alg. 1 of the blooming (pbr paper §II-C), beam iteration: per beam (parallel over beams), the
 * window's pixels are accumulated into a per-thread dense array over slices; only the touched
 * slices are searched and cleared, so a beam costs O(window), independent of the number of
 * slices. Rows that share their pixels (blooming.h) are read once, with their summed v weight
 * (row_weight). Along a kernel row, runs of pixels of the same slice are summed in a register (sum of
 * intensity x h) and added once, times v (most rows of a window stay in one slice; this avoids a
 * store-to-load chain per pixel). Definitions: bloom_setup.h. */
#include "optics/bloom_setup.h"

#include "core/context.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

typedef struct bloom_px {
    float w;   /* intensity */
    int32_t s; /* slice, -1 for none */
} bloom_px;

lsim_status lsim_bloom_beam_iteration(lsim_context *ctx, const bloom_setup *st, size_t beams, const float *bu_in,
                                      const float *bv_in, float *range, float *power, lsim_bloom_stats *stats,
                                      lsim_bloom_workspace *w)
{
    const int U = st->U, V = st->V, M = st->M, N = st->N, T = st->threads;
    const size_t UV = (size_t)U * (size_t)st->R, S = st->S; /* stored pixels */
    const size_t window = (size_t)(2 * M + 1) * (size_t)(2 * N + 1);
    const size_t cap = window < S ? window : S;
    int ok = 1;
    bloom_px *px = lsim_bloom_ws_get(w, 0, UV * sizeof *px, 0, &ok);
    double *acc = lsim_bloom_ws_get(w, 1, (size_t)T * S * sizeof *acc, 1, &ok);
    int32_t *touched = lsim_bloom_ws_get(w, 2, (size_t)T * cap * sizeof *touched, 0, &ok);
    unsigned char *occupied = stats ? lsim_bloom_ws_get(w, 3, S, 1, &ok) : NULL;
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
    const double *hd = st->h;
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
            int32_t k0, k1;
            window_rows(st, bv, &k0, &k1);
            const int hoff = M - bu; /* h index of image column uu: uu + hoff */
            size_t nt = 0;
            for (int32_t k = k0; k <= k1; ++k) {
                const double wv = row_weight(st, k, bv);
                if (!(wv > 0.0))
                    continue;
                const bloom_px *row = px + (size_t)k * (size_t)U;
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
