/* The recording's range noise: on flat patches of the beam grid (5 x 5 returns whose smallest
 * spread across their best plane is under a fifth of the next), the centre return's distance from
 * the plane of all 25, along its beam (/ cos incidence), scaled by sqrt(25/24) for the plane's own
 * fit; sigma = 1.4826 x the median absolute residual of the patches within 20 m (strong echoes:
 * the noise model's range_sigma). Measured on the frames as read, before they are averaged. */
#include "twin/twin.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HALF 2            /* patch of (2 HALF + 1)^2 returns */
#define NEAR_M 20.0       /* strong echoes */
#define MIN_PATCHES 200   /* fewer: no measurement */

static int cmp_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

/* Eigenvector of the smallest eigenvalue of symmetric 3x3 m (cyclic Jacobi); lambda sorted. */
static void smallest_axis(double m[3][3], double axis[3], double lambda[3])
{
    double v[3][3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int sweep = 0; sweep < 12; ++sweep) {
        const double off = m[0][1] * m[0][1] + m[0][2] * m[0][2] + m[1][2] * m[1][2];
        if (off < 1e-30)
            break;
        for (int p = 0; p < 2; ++p)
            for (int q = p + 1; q < 3; ++q) {
                if (fabs(m[p][q]) < 1e-300)
                    continue;
                const double th = 0.5 * atan2(2.0 * m[p][q], m[q][q] - m[p][p]);
                const double c = cos(th), s = sin(th);
                for (int k = 0; k < 3; ++k) { /* columns */
                    const double a = m[k][p], b = m[k][q];
                    m[k][p] = c * a - s * b;
                    m[k][q] = s * a + c * b;
                }
                for (int k = 0; k < 3; ++k) { /* rows */
                    const double a = m[p][k], b = m[q][k];
                    m[p][k] = c * a - s * b;
                    m[q][k] = s * a + c * b;
                }
                for (int k = 0; k < 3; ++k) {
                    const double a = v[k][p], b = v[k][q];
                    v[k][p] = c * a - s * b;
                    v[k][q] = s * a + c * b;
                }
            }
    }
    int lo = 0;
    for (int i = 1; i < 3; ++i)
        lo = m[i][i] < m[lo][lo] ? i : lo;
    for (int i = 0; i < 3; ++i)
        axis[i] = v[i][lo];
    double l[3] = {m[0][0], m[1][1], m[2][2]};
    for (int i = 0; i < 3; ++i)
        for (int j = i + 1; j < 3; ++j)
            if (l[j] < l[i]) {
                const double t = l[i];
                l[i] = l[j];
                l[j] = t;
            }
    memcpy(lambda, l, sizeof l);
}

double lsim_twin_measure_noise(const lsim_twin_run *run, uint64_t *patches)
{
    size_t cap = 0;
    for (size_t i = 0; i < run->frames; ++i)
        cap += run->frame[i].cells;
    float *res = malloc((cap ? cap : 1) * sizeof *res);
    *patches = 0;
    if (!res)
        return NAN;
    size_t n = 0;
    for (size_t fi = 0; fi < run->frames; ++fi) {
        const lsim_twin_frame *f = &run->frame[fi];
        const int R = f->rings, C = f->columns;
        for (int r = HALF; r + HALF < R; ++r)
            for (int c = 0; c < C; ++c) {
                const size_t k0 = (size_t)r * C + c;
                if (f->state[k0] != LSIM_TWIN_CELL_HIT || !(f->range[k0] < NEAR_M))
                    continue;
                double mean[3] = {0, 0, 0}, cov[3][3] = {{0}};
                int ok = 1;
                for (int dr = -HALF; dr <= HALF && ok; ++dr)
                    for (int dc = -HALF; dc <= HALF; ++dc) {
                        const size_t k = (size_t)(r + dr) * C + (size_t)((c + dc + C) % C);
                        if (f->state[k] != LSIM_TWIN_CELL_HIT) {
                            ok = 0;
                            break;
                        }
                        for (int i = 0; i < 3; ++i)
                            mean[i] += f->p[3 * k + i];
                    }
                if (!ok)
                    continue;
                const double m = (2 * HALF + 1) * (2 * HALF + 1);
                for (int i = 0; i < 3; ++i)
                    mean[i] /= m;
                for (int dr = -HALF; dr <= HALF; ++dr)
                    for (int dc = -HALF; dc <= HALF; ++dc) {
                        const size_t k = (size_t)(r + dr) * C + (size_t)((c + dc + C) % C);
                        const double d[3] = {f->p[3 * k] - mean[0], f->p[3 * k + 1] - mean[1], f->p[3 * k + 2] - mean[2]};
                        for (int i = 0; i < 3; ++i)
                            for (int j = 0; j < 3; ++j)
                                cov[i][j] += d[i] * d[j];
                    }
                double axis[3], lambda[3];
                smallest_axis(cov, axis, lambda);
                if (!(lambda[0] < 0.04 * lambda[1]))
                    continue; /* not flat */
                const float *p = f->p + 3 * k0, *o = f->o + 3 * k0;
                const double rr = f->range[k0];
                const double b[3] = {(p[0] - o[0]) / rr, (p[1] - o[1]) / rr, (p[2] - o[2]) / rr};
                const double cs = fabs(b[0] * axis[0] + b[1] * axis[1] + b[2] * axis[2]);
                if (cs < 0.5)
                    continue; /* along the beam, a grazing patch's residual is mostly its slope */
                const double d = (p[0] - mean[0]) * axis[0] + (p[1] - mean[1]) * axis[1] + (p[2] - mean[2]) * axis[2];
                res[n++] = (float)fabs(d / cs * sqrt(m / (m - 1.0)));
            }
    }
    double sigma = NAN;
    if (n >= MIN_PATCHES) {
        qsort(res, n, sizeof *res, cmp_float);
        sigma = 1.4826 * (n % 2 ? res[n / 2] : 0.5 * (res[n / 2 - 1] + res[n / 2]));
    }
    *patches = n;
    free(res);
    return sigma;
}
