/* Calibrated materials in memory: find, copy, free, and the per-angle lookup (calib/calibration.h). */
#include "calib/calibration.h"

#include "calib/calibrate.h"
#include "core/context.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------- */
/* Memory                                                                                       */

void lsim_calib_material_free(lsim_calib_material *m)
{
    if (!m)
        return;
    free(m->bins);
    m->bins = NULL;
    m->bin_count = 0;
}

void lsim_calibration_free(lsim_calibration *cal)
{
    if (!cal)
        return;
    for (size_t i = 0; i < cal->count; ++i)
        lsim_calib_material_free(&cal->materials[i]);
    free(cal->materials);
    memset(cal, 0, sizeof *cal);
}

const lsim_calib_material *lsim_calibration_find(const lsim_calibration *cal, const char *name)
{
    if (!cal || !name)
        return NULL;
    for (size_t i = 0; i < cal->count; ++i)
        if (strcmp(cal->materials[i].name, name) == 0)
            return &cal->materials[i];
    return NULL;
}

lsim_status lsim_calib_material_copy(lsim_context *ctx, const lsim_calib_material *src, lsim_calib_material *dst)
{
    if (!src || !dst)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_calib_material_copy: NULL material");
    lsim_calib_bin *bins = NULL;
    if (src->bin_count) {
        bins = malloc(src->bin_count * sizeof *bins);
        if (!bins)
            return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory copying calibration %s", src->name);
        memcpy(bins, src->bins, src->bin_count * sizeof *bins);
    }
    *dst = *src;
    dst->bins = bins;
    return LSIM_OK;
}

/* ------------------------------------------------------------------------------------------- */
/* Lookup                                                                                       */

/* Slope of one statistic inside bin k: the smaller in magnitude of the differences to its two
 * neighbours (0 at a missing neighbour, a gap or an extremum: minmod). So each bin's average over
 * its width stays the bin's own value, and no value overshoots its neighbours. */
static double minmod_slope(const lsim_calib_material *m, size_t k, size_t offset)
{
    const double w = m->bin_width_deg;
    const lsim_calib_bin *b = &m->bins[k];
    double v = *(const double *)((const char *)b + offset);
    if (k == 0 || k + 1 >= m->bin_count)
        return 0.0;
    const lsim_calib_bin *p = &m->bins[k - 1], *q = &m->bins[k + 1];
    if (fabs(b->angle_deg - p->angle_deg - w) > 1e-9 || fabs(q->angle_deg - b->angle_deg - w) > 1e-9)
        return 0.0; /* an empty bin between: no neighbour */
    if (offset != offsetof(lsim_calib_bin, drop_rate) && (p->drop_rate >= 1.0 || q->drop_rate >= 1.0))
        return 0.0; /* a neighbour without returns has no statistics of returns (its zeros are placeholders) */
    double dl = (v - *(const double *)((const char *)p + offset)) / w;
    double dr = (*(const double *)((const char *)q + offset) - v) / w;
    if (dl * dr <= 0.0)
        return 0.0;
    return fabs(dl) < fabs(dr) ? dl : dr;
}

/* The drop rate of half `h` (0: below the centre, 1: from it) of bin k; a bin without halves (a
 * file before the key) has its one rate in both. */
static double half_rate(const lsim_calib_bin *b, int h)
{
    return b->has_drop_halves ? b->drop_halves[h] : b->drop_rate;
}

/* The drop rate at angle a inside bin k, on the grid of half-bins: the half's own rate varied
 * linearly by the minmod of the differences to the neighbouring halves (the bin's other half, the
 * adjacent bin's nearer half when that bin is stored next to it), so each half keeps its measured
 * average and no value overshoots its neighbours. The halves split the bin at its stored centre. */
static double drop_in_halves(const lsim_calib_material *m, size_t k, double a)
{
    const double w = m->bin_width_deg;
    const lsim_calib_bin *b = &m->bins[k];
    const double c = b->angle_deg, lo = (double)lsim_calib_bin_index(c, w) * w;
    const double q = 0.5 * (c - lo); /* a quarter of the bin (the last one ends at 90 deg) */
    const int h = a >= c;
    const double v = half_rate(b, h), centre = h ? c + q : c - q;
    double dl = NAN, dr = NAN; /* differences per degree to the neighbouring halves */
    if (h) {
        dl = (v - half_rate(b, 0)) / (2.0 * q);
        if (k + 1 < m->bin_count && fabs(m->bins[k + 1].angle_deg - c - w) <= 1e-9)
            dr = (half_rate(&m->bins[k + 1], 0) - v) / (q + 0.25 * w);
    } else {
        dr = (half_rate(b, 1) - v) / (2.0 * q);
        if (k > 0 && fabs(c - m->bins[k - 1].angle_deg - w) <= 1e-9)
            dl = (v - half_rate(&m->bins[k - 1], 1)) / (q + 0.25 * w);
    }
    double slope = isnan(dl) || isnan(dr) || dl * dr <= 0.0 ? 0.0 : fabs(dl) < fabs(dr) ? dl : dr;
    return fmin(1.0, fmax(0.0, v + (a - centre) * slope));
}

int lsim_calib_lookup(const lsim_calib_material *m, double angle_deg, lsim_calib_bin *out)
{
    memset(out, 0, sizeof *out);
    double a = fabs(angle_deg);
    if (isnan(a))
        a = 0.0;
    if (a > 90.0)
        a = 90.0;
    if (!m || !m->bin_count || !m->bins) {
        out->angle_deg = a;
        out->drop_rate = 1.0;
        return 0;
    }
    const double half = 0.5 * m->bin_width_deg;
    /* The bin whose width holds the angle (bins are stored ascending, empty ones left out). */
    size_t lo = 0, hi = m->bin_count;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->bins[mid].angle_deg - half <= a)
            lo = mid;
        else
            hi = mid;
    }
    const lsim_calib_bin *b = &m->bins[lo];
    int inside = a >= b->angle_deg - half - 1e-9 && a <= b->angle_deg + half + 1e-9;
    if (!inside) { /* outside the measured angles (or in an empty bin): the nearest bin, BRDF intensity */
        size_t k = lo;
        if (lo + 1 < m->bin_count && fabs(m->bins[lo + 1].angle_deg - a) < fabs(b->angle_deg - a))
            k = lo + 1;
        *out = m->bins[k];
        out->angle_deg = a;
        out->drop_rate = half_rate(&m->bins[k], a >= m->bins[k].angle_deg);
        /* A sensor whose intensity never varied (the RPLIDAR's 47) keeps its one value; otherwise
         * the fitted BRDF gives the angle's mean. */
        double constant;
        out->mean_intensity = lsim_calib_intensity_constant(m, &constant) ? constant : lsim_calib_brdf_intensity(m, a);
        return 0;
    }
    /* Piecewise-linear inside the bin, slope-limited (a finite-volume reconstruction): the
     * statistics vary with the angle between bins while every bin keeps its measured average. */
    const double t = a - b->angle_deg;
    *out = *b;
    out->angle_deg = a;
    if (b->has_drop_halves)
        out->drop_rate = drop_in_halves(m, lo, a);
    else /* a file before drop_halves: the bin's one rate, slope-limited like the other statistics */
        out->drop_rate =
            fmin(1.0, fmax(0.0, b->drop_rate + t * minmod_slope(m, lo, offsetof(lsim_calib_bin, drop_rate))));
    if (b->drop_rate < 1.0) { /* a bin without returns has no statistics of returns to vary */
        out->mean_intensity = b->mean_intensity + t * minmod_slope(m, lo, offsetof(lsim_calib_bin, mean_intensity));
        out->std_intensity =
            fmax(0.0, b->std_intensity + t * minmod_slope(m, lo, offsetof(lsim_calib_bin, std_intensity)));
        out->std_range_m = fmax(0.0, b->std_range_m + t * minmod_slope(m, lo, offsetof(lsim_calib_bin, std_range_m)));
        out->mean_range_m = b->mean_range_m + t * minmod_slope(m, lo, offsetof(lsim_calib_bin, mean_range_m));
        out->noise_mean_m = b->noise_mean_m + t * minmod_slope(m, lo, offsetof(lsim_calib_bin, noise_mean_m));
        out->noise_std_m = fmax(0.0, b->noise_std_m + t * minmod_slope(m, lo, offsetof(lsim_calib_bin, noise_std_m)));
    }
    return 1;
}

