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
    size_t beam;          /* the beam within its revolution: the same beam angle every revolution */
    int returned;
    double residual, intensity;
} beam_sample;

typedef struct sample_set {
    beam_sample *s;
    size_t count;
} sample_set;

/* By bin, then by beam (so each bin's samples come grouped by beam), then by position. */
static int compare_bin(const void *a, const void *b)
{
    const beam_sample *p = a, *q = b;
    if (p->bin != q->bin)
        return (p->bin > q->bin) - (p->bin < q->bin);
    return (p->beam > q->beam) - (p->beam < q->beam);
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
    const size_t per_rev = scan->beams_per_revolution ? scan->beams_per_revolution : 1;
    for (size_t i = 0; i < scan->count; ++i) {
        double psi, residual = 0.0;
        lsim_board_beam c = lsim_board_classify(fit, scan, i, &psi, &residual);
        if (c != LSIM_BOARD_RETURN && c != LSIM_BOARD_DROP)
            continue;
        size_t b = bin_of(m, psi);
        if (b == SIZE_MAX)
            continue;
        out->s[out->count++] = (beam_sample){b, i % per_rev, c == LSIM_BOARD_RETURN, residual, scan->intensity[i]};
    }
    qsort(out->s, out->count, sizeof *out->s, compare_bin); /* qsort is not stable: the residuals' order within a
                                                                * beam may vary, which no statistic here sees */
    return LSIM_OK;
}

/* The effective number of independent range residuals of a bin whose returns come in groups by
 * beam (Kish's design effect): n / (1 + (sum n_g^2 / n - 1) ICC), with the intraclass correlation
 * ICC = s_b^2 / (s_b^2 + s_w^2) from the one-way analysis of variance between and within beams.
 * The RPLIDAR reads each beam angle again every revolution, and many beams read the same step
 * every time: ICC 1 leaves one independent value per beam; ICC 0 (independent draws) all n. */
typedef struct group_sums {
    double n, groups, sum_n2, ssw, sum, sum2; /* returns, beams, sum n_g^2, within-beam sum of squares */
    double gn, gs, gs2;                       /* the current beam's count, sum, sum of squares */
} group_sums;

static void group_close(group_sums *g)
{
    if (g->gn > 0.0) {
        g->groups += 1.0;
        g->sum_n2 += g->gn * g->gn;
        g->ssw += fmax(0.0, g->gs2 - g->gs * g->gs / g->gn);
    }
    g->gn = g->gs = g->gs2 = 0.0;
}

static double effective_n(const group_sums *g)
{
    if (g->n < 2.0 || g->groups < 2.0)
        return g->n;
    double sst = fmax(0.0, g->sum2 - g->sum * g->sum / g->n);
    double msw = g->n > g->groups ? g->ssw / (g->n - g->groups) : 0.0;
    double msb = fmax(0.0, sst - g->ssw) / (g->groups - 1.0);
    double n0 = (g->n - g->sum_n2 / g->n) / (g->groups - 1.0);
    double sb2 = n0 > 0.0 ? fmax(0.0, (msb - msw) / n0) : 0.0;
    double icc = sb2 + msw > 0.0 ? sb2 / (sb2 + msw) : 0.0;
    return g->n / (1.0 + (g->sum_n2 / g->n - 1.0) * icc);
}

/* Statistics of the samples of bin b (the set is sorted by bin, then beam; *first is advanced).
 * The returns' range residuals and intensities go to range_out and intensity_out when they are
 * not NULL. */
static lsim_valid_stats stats_of(const sample_set *set, size_t b, size_t *first, double *range_out,
                                 double *intensity_out)
{
    lsim_valid_stats st = {0, 0, NAN, NAN, NAN, NAN, 0.0};
    size_t i = *first;
    while (i < set->count && set->s[i].bin < b)
        ++i;
    double si = 0, si2 = 0, sr = 0, sr2 = 0;
    size_t k = 0, beam = SIZE_MAX;
    group_sums g = {0};
    for (; i < set->count && set->s[i].bin == b; ++i) {
        ++st.n;
        if (!set->s[i].returned)
            continue;
        double v = set->s[i].intensity, r = set->s[i].residual;
        si += v;
        si2 += v * v;
        sr += r;
        sr2 += r * r;
        if (set->s[i].beam != beam) {
            group_close(&g);
            beam = set->s[i].beam;
        }
        g.gn += 1.0;
        g.gs += r;
        g.gs2 += r * r;
        if (range_out)
            range_out[k] = r;
        if (intensity_out)
            intensity_out[k] = v;
        ++k;
    }
    group_close(&g);
    g.n = (double)k;
    g.sum = sr;
    g.sum2 = sr2;
    st.n_eff_range = effective_n(&g);
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

/* The interval the model's drop rate must fall in. The model calibrated on the same scan: the
 * real bin's 95 % Wilson interval. Otherwise the model's rate and the real one are two estimates,
 * each with its sampling error: the interval of their difference adds the Wilson half-widths in
 * quadrature (Newcombe's square-and-add), those of the real half, of the compared sample (the
 * simulation, or the other real half) and, in hold-out, of the calibration half whose rate the
 * model carries; it is given as the interval of the model's rate around the real one. */
static void drop_interval(const lsim_valid_bin *v, const lsim_calib_bin *trained, lsim_valid_mode mode, double *lo,
                          double *hi)
{
    double rl, rh;
    lsim_wilson_interval(v->real.n - v->real.returns, v->real.n, LSIM_Z95, &rl, &rh);
    if (mode == LSIM_VALID_SAME_SCAN || !v->calibrated.n) {
        *lo = rl;
        *hi = rh;
        return;
    }
    const double pr = v->real.drop_rate, ps = v->calibrated.drop_rate;
    double sl, sh, tl = 0.0, th = 0.0, pt = 0.0;
    lsim_wilson_interval(v->calibrated.n - v->calibrated.returns, v->calibrated.n, LSIM_Z95, &sl, &sh);
    if (mode == LSIM_VALID_HOLDOUT && trained && trained->n) {
        pt = trained->drop_rate;
        lsim_wilson_interval((size_t)floor(pt * (double)trained->n + 0.5), trained->n, LSIM_Z95, &tl, &th);
    } else {
        tl = th = pt;
    }
    const double above = sqrt((ps - sl) * (ps - sl) + (pt - tl) * (pt - tl) + (rh - pr) * (rh - pr));
    const double below = sqrt((sh - ps) * (sh - ps) + (th - pt) * (th - pt) + (pr - rl) * (pr - rl));
    *lo = fmax(0.0, pr - below);
    *hi = fmin(1.0, pr + above);
}

/* KS of two samples' range residuals: D from all values, p from their effective numbers. */
static void ks_range(lsim_context *ctx, const double *a, const lsim_valid_stats *sa, const double *b,
                     const lsim_valid_stats *sb, double *d, double *p, double *n_eff, double *p_iid)
{
    lsim_ks_result ks;
    lsim_ks_two_sample(ctx, a, sa->returns, b, sb->returns, &ks);
    const double ea = sa->n_eff_range, eb = sb->n_eff_range;
    *d = ks.d;
    *n_eff = ea > 0.0 && eb > 0.0 ? ea * eb / (ea + eb) : 0.0;
    *p = lsim_ks_pvalue(ks.d, *n_eff);
    if (p_iid)
        *p_iid = ks.p;
}

/* Fill the bins from the three sorted sample sets; buf holds 5 x most doubles. */
static void compare(lsim_context *ctx, const sample_set *sr, const sample_set *sc, const sample_set *sb, double *buf,
                    size_t most, lsim_valid_mode mode, lsim_valid_material *out)
{
    const lsim_calib_material *m = &out->calibration;
    out->bin_count = m->bin_count;
    size_t fr = 0, fc = 0, fb = 0;
    double total_c = 0.0, total_b = 0.0;
    size_t scored = 0;
    for (size_t b = 0; b < m->bin_count; ++b) {
        lsim_valid_bin *v = &out->bins[b];
        double *rr = buf, *ri = buf + most, *cr = buf + 2 * most, *ci = buf + 3 * most, *br = buf + 4 * most;
        v->angle_deg = m->bins[b].angle_deg;
        v->real = stats_of(sr, b, &fr, rr, ri);
        v->calibrated = stats_of(sc, b, &fc, cr, ci);
        v->brdf_only = stats_of(sb, b, &fb, br, NULL);
        const size_t nr = v->real.returns, nc = v->calibrated.returns;
        drop_interval(v, &m->bins[b], mode, &v->drop_lo, &v->drop_hi);
        /* KS of the range residuals: D from all returns; the p-value from the effective numbers of
         * independent returns (the real sensor repeats each beam's reading across revolutions). */
        ks_range(ctx, rr, &v->real, cr, &v->calibrated, &v->ks_range_d, &v->ks_range_p, &v->ks_range_n_eff,
                 &v->ks_range_p_iid);
        double bd, bp, bn;
        ks_range(ctx, rr, &v->real, br, &v->brdf_only, &bd, &bp, &bn, NULL);
        out->ks_rejected_brdf += !isnan(bp) && bp < 0.05;
        lsim_ks_result ks;
        lsim_ks_two_sample(ctx, ri, nr, ci, nc, &ks);
        v->ks_intensity_d = ks.d;
        v->ks_intensity_p = ks.p;
        out->ks_tested += !isnan(v->ks_range_p);
        out->ks_rejected += !isnan(v->ks_range_p) && v->ks_range_p < 0.05;
        out->ks_rejected_iid += !isnan(v->ks_range_p_iid) && v->ks_range_p_iid < 0.05;
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
                                    const lsim_scan_data *brdf_only, lsim_valid_mode mode, lsim_valid_material *out)
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
    most = most > sb.count ? most : sb.count;
    if (st == LSIM_OK) {
        out->bins = calloc(m->bin_count ? m->bin_count : 1, sizeof *out->bins);
        buf = malloc(5 * (most ? most : 1) * sizeof *buf);
        if (!out->bins || !buf)
            st = lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for the validation of '%s'", m->name);
    }
    if (st == LSIM_OK)
        compare(ctx, &sr, &sc, &sb, buf, most, mode, out);
    free(buf);
    free(sr.s);
    free(sc.s);
    free(sb.s);
    return st;
}
