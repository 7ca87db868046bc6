/* Per-bin statistics of the real and simulated beams of a setup, and how far each model is from
 * the real sensor (see validate/compare_bins.h). */
#include "validate/compare_bins.h"

#include "calib/ks_test.h"
#include "core/context.h"
#include "core/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One classified beam that fell in a calibration bin. */
typedef struct beam_sample {
    size_t bin;           /* index into the material's bins */
    int returned;
    double residual, intensity;
} beam_sample;

typedef struct sample_set {
    beam_sample *s;
    size_t count;
} sample_set;

static int compare_bin(const void *a, const void *b)
{
    size_t x = ((const beam_sample *)a)->bin, y = ((const beam_sample *)b)->bin;
    return (x > y) - (x < y);
}

/* Position of the calibration bin whose range holds |psi|, or SIZE_MAX. */
static size_t bin_of(const lsim_calib_material *m, double psi_rad)
{
    size_t k = lsim_calib_bin_index(fabs(psi_rad) * 180.0 / LSIM_PI, m->bin_width_deg);
    double centre = lsim_calib_bin_center(k, m->bin_width_deg);
    for (size_t i = 0; i < m->bin_count; ++i)
        if (fabs(m->bins[i].angle_deg - centre) < 1e-9)
            return i;
    return SIZE_MAX;
}

/* Classify every beam of a scan against the board and keep those in a calibration bin. */
static lsim_status collect(lsim_context *ctx, const lsim_calib_material *m, const lsim_board_fit *fit,
                           const lsim_scan_data *scan, sample_set *out)
{
    out->s = malloc((scan->count ? scan->count : 1) * sizeof *out->s);
    out->count = 0;
    if (!out->s)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for %zu beams", scan->count);
    for (size_t i = 0; i < scan->count; ++i) {
        double psi, residual = 0.0;
        lsim_board_beam c = lsim_board_classify(fit, scan, i, &psi, &residual);
        if (c != LSIM_BOARD_RETURN && c != LSIM_BOARD_DROP)
            continue;
        size_t b = bin_of(m, psi);
        if (b == SIZE_MAX)
            continue;
        out->s[out->count++] = (beam_sample){b, c == LSIM_BOARD_RETURN, residual, scan->intensity[i]};
    }
    qsort(out->s, out->count, sizeof *out->s, compare_bin);
    return LSIM_OK;
}

/* Statistics of the samples of bin b (the set is sorted by bin; *first is advanced). The returns'
 * range residuals and intensities go to range_out and intensity_out when they are not NULL. */
static lsim_valid_stats stats_of(const sample_set *set, size_t b, size_t *first, double *range_out,
                                 double *intensity_out)
{
    lsim_valid_stats st = {0, 0, NAN, NAN, NAN, NAN};
    size_t i = *first;
    while (i < set->count && set->s[i].bin < b)
        ++i;
    double si = 0, si2 = 0, sr = 0, sr2 = 0;
    size_t k = 0;
    for (; i < set->count && set->s[i].bin == b; ++i) {
        ++st.n;
        if (!set->s[i].returned)
            continue;
        double v = set->s[i].intensity, r = set->s[i].residual;
        si += v;
        si2 += v * v;
        sr += r;
        sr2 += r * r;
        if (range_out)
            range_out[k] = r;
        if (intensity_out)
            intensity_out[k] = v;
        ++k;
    }
    *first = i;
    st.returns = k;
    if (st.n)
        st.drop_rate = 1.0 - (double)k / (double)st.n;
    if (k >= 1)
        st.mean_intensity = si / k;
    if (k >= 2) {
        st.std_intensity = sqrt(fmax(0.0, (si2 - si * si / k) / (k - 1)));
        st.std_range_m = sqrt(fmax(0.0, (sr2 - sr * sr / k) / (k - 1)));
    }
    return st;
}

/* Normalised discrepancy of a model's bin to the real one (lower = closer). */
static double discrepancy(const lsim_valid_stats *model, const lsim_valid_stats *real)
{
    double e = 0.0;
    if (real->n) {
        double p = real->drop_rate, sigma = sqrt(fmax(p * (1.0 - p), 0.0) / real->n);
        e += fabs(model->drop_rate - p) / fmax(sigma, 0.01);
    }
    if (real->returns >= LSIM_VALID_MIN_RETURNS && real->std_range_m > 0.0)
        e += fabs((isnan(model->std_range_m) ? 0.0 : model->std_range_m) - real->std_range_m) / real->std_range_m;
    if (real->returns >= 2) {
        double scale = fmax(real->std_intensity, 0.01 * fmax(fabs(real->mean_intensity), 1.0));
        double mi = isnan(model->mean_intensity) ? 0.0 : model->mean_intensity;
        double si = isnan(model->std_intensity) ? 0.0 : model->std_intensity;
        e += (fabs(mi - real->mean_intensity) + fabs(si - real->std_intensity)) / scale;
    }
    return e;
}

/* Fill the bins from the three sorted sample sets; buf holds 4 x most doubles. */
static void compare(lsim_context *ctx, const sample_set *sr, const sample_set *sc, const sample_set *sb, double *buf,
                    size_t most, lsim_valid_material *out)
{
    const lsim_calib_material *m = &out->calibration;
    out->bin_count = m->bin_count;
    size_t fr = 0, fc = 0, fb = 0;
    double total_c = 0.0, total_b = 0.0;
    size_t scored = 0;
    for (size_t b = 0; b < m->bin_count; ++b) {
        lsim_valid_bin *v = &out->bins[b];
        double *rr = buf, *ri = buf + most, *cr = buf + 2 * most, *ci = buf + 3 * most;
        v->angle_deg = m->bins[b].angle_deg;
        v->real = stats_of(sr, b, &fr, rr, ri);
        v->calibrated = stats_of(sc, b, &fc, cr, ci);
        v->brdf_only = stats_of(sb, b, &fb, NULL, NULL);
        const size_t nr = v->real.returns, nc = v->calibrated.returns;
        lsim_wilson_interval(v->real.n - v->real.returns, v->real.n, LSIM_Z95, &v->drop_lo, &v->drop_hi);
        lsim_ks_result ks;
        lsim_ks_two_sample(ctx, rr, nr, cr, nc, &ks);
        v->ks_range_d = ks.d;
        v->ks_range_p = ks.p;
        lsim_ks_two_sample(ctx, ri, nr, ci, nc, &ks);
        v->ks_intensity_d = ks.d;
        v->ks_intensity_p = ks.p;
        out->ks_tested += !isnan(v->ks_range_p);
        out->ks_rejected += !isnan(v->ks_range_p) && v->ks_range_p < 0.05;
        if (v->real.n) {
            ++out->drop_bins;
            out->drop_inside += v->calibrated.drop_rate >= v->drop_lo - 1e-12 &&
                                v->calibrated.drop_rate <= v->drop_hi + 1e-12;
            total_c += discrepancy(&v->calibrated, &v->real);
            total_b += discrepancy(&v->brdf_only, &v->real);
            ++scored;
        }
        if (v->real.returns >= LSIM_VALID_MIN_RETURNS && v->real.std_range_m > 0.0) {
            ++out->range_bins;
            out->range_within += fabs(v->calibrated.std_range_m - v->real.std_range_m) <= 0.2 * v->real.std_range_m;
        }
    }
    out->score_calibrated = scored ? total_c / scored : NAN;
    out->score_brdf_only = scored ? total_b / scored : NAN;
}

lsim_status lsim_valid_compare_bins(lsim_context *ctx, const lsim_scan_data *real, const lsim_scan_data *calibrated,
                                    const lsim_scan_data *brdf_only, lsim_valid_material *out)
{
    const lsim_calib_material *m = &out->calibration;
    sample_set sr = {0}, sc = {0}, sb = {0};
    double *buf = NULL;
    lsim_board_fit board;
    lsim_calib_board_of(m, &board);
    lsim_status st = collect(ctx, m, &board, real, &sr);
    if (st == LSIM_OK)
        st = collect(ctx, m, &board, calibrated, &sc);
    if (st == LSIM_OK)
        st = collect(ctx, m, &board, brdf_only, &sb);
    size_t most = sr.count > sc.count ? sr.count : sc.count;
    if (st == LSIM_OK) {
        out->bins = calloc(m->bin_count ? m->bin_count : 1, sizeof *out->bins);
        buf = malloc(4 * (most ? most : 1) * sizeof *buf);
        if (!out->bins || !buf)
            st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the validation of '%s'", m->name);
    }
    if (st == LSIM_OK)
        compare(ctx, &sr, &sc, &sb, buf, most, out);
    free(buf);
    free(sr.s);
    free(sc.s);
    free(sb.s);
    return st;
}
