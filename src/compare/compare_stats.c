/* Statistics of matched beams: confusion of hits, error quantiles, Chamfer distance. */
#include "compare/compare.h"
#include "compare/kdtree.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>

/* Range bands, metres (issue 25): 0-10, 10-20, 20-40, 40-80, 80+. */
const double LSIM_COMPARE_BAND_EDGES[LSIM_COMPARE_BANDS + 1] = {0.0, 10.0, 20.0, 40.0, 80.0, INFINITY};

int lsim_compare_band_of(double r)
{
    int b = 0;
    while (b + 1 < LSIM_COMPARE_BANDS && r >= LSIM_COMPARE_BAND_EDGES[b + 1])
        ++b;
    return b;
}

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted(const double *v, size_t n)
{
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Errors of the n values in v (overwritten: sorted, then made absolute and sorted). */
static void errors_of(double *v, size_t n, lsim_compare_errors *e)
{
    e->count = n;
    if (!n) {
        e->median = e->median_abs = e->mean_abs = e->rmse = e->p95_abs = NAN;
        return;
    }
    qsort(v, n, sizeof *v, cmp_double);
    e->median = median_sorted(v, n);
    double sa = 0.0, s2 = 0.0;
    for (size_t i = 0; i < n; ++i) {
        s2 += v[i] * v[i];
        v[i] = fabs(v[i]);
        sa += v[i];
    }
    qsort(v, n, sizeof *v, cmp_double);
    e->median_abs = median_sorted(v, n);
    e->mean_abs = sa / (double)n;
    e->rmse = sqrt(s2 / (double)n);
    size_t k = (size_t)ceil(0.95 * (double)n); /* nearest rank */
    e->p95_abs = v[k ? k - 1 : 0];
}

static int in_group(const lsim_compare_beams *b, size_t i, lsim_compare_group group, int index)
{
    return group == LSIM_COMPARE_ALL || (group == LSIM_COMPARE_RING && b->ring[i] == index) ||
           (group == LSIM_COMPARE_BAND && b->band[i] == index);
}

void lsim_compare_group_stats(const lsim_compare_beams *b, lsim_compare_group group, int index, double *scratch,
                              uint64_t extra_both_miss, lsim_compare_stats *out)
{
    lsim_compare_stats s = {0};
    s.both_miss = extra_both_miss;
    size_t n = 0;
    for (size_t i = 0; i < b->n; ++i) {
        if (!in_group(b, i, group, index))
            continue;
        const int rh = !isnan(b->real_r[i]), sh = !isnan(b->sim_r[i]);
        if (rh && sh) {
            ++s.both_hit;
            scratch[n++] = b->sim_r[i] - b->real_r[i];
        } else if (rh) {
            ++s.real_only;
        } else if (sh) {
            ++s.sim_only;
        } else {
            ++s.both_miss;
        }
    }
    errors_of(scratch, n, &s.range);
    s.precision = s.both_hit + s.sim_only ? (double)s.both_hit / (double)(s.both_hit + s.sim_only) : NAN;
    s.recall = s.both_hit + s.real_only ? (double)s.both_hit / (double)(s.both_hit + s.real_only) : NAN;
    s.f1 = s.precision + s.recall > 0 ? 2.0 * s.precision * s.recall / (s.precision + s.recall) : NAN;
    const double *col[2] = {b->d_intensity, b->d_reflectivity};
    lsim_compare_errors *dst[2] = {&s.intensity, &s.reflectivity};
    for (int c = 0; c < 2; ++c) {
        n = 0;
        for (size_t i = 0; i < b->n; ++i)
            if (in_group(b, i, group, index) && !isnan(col[c][i]))
                scratch[n++] = col[c][i];
        errors_of(scratch, n, dst[c]);
    }
    s.chamfer_m = NAN;
    *out = s;
}

static int mean_nn(const double *q, size_t nq, const double *ref, size_t nr, double *out)
{
    lsim_kdtree t;
    if (lsim_kdtree_build(&t, ref, nr))
        return -1;
    double sum = 0.0;
    for (size_t i = 0; i < nq; ++i) {
        double d2;
        lsim_kdtree_nearest(&t, q + 3 * i, SIZE_MAX, INFINITY, &d2);
        sum += sqrt(d2);
    }
    lsim_kdtree_free(&t);
    *out = sum / (double)nq;
    return 0;
}

int lsim_compare_chamfer(const double *a, size_t na, const double *b, size_t nb, double *out)
{
    *out = NAN;
    if (!na || !nb)
        return 0;
    double ab, ba;
    if (mean_nn(a, na, b, nb, &ab) || mean_nn(b, nb, a, na, &ba))
        return -1;
    *out = 0.5 * (ab + ba);
    return 0;
}
