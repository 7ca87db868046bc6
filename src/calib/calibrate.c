/* Calibrating one material: board fit, incidence-angle bins, BRDF fit (calibrate.h). */
#include "calib/calibrate.h"

#include "core/context.h"
#include "core/text.h"
#include "core/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void lsim_calib_options_init(lsim_calib_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->bin_width_deg = LSIM_CALIB_DEFAULT_BIN_WIDTH_DEG;
    lsim_board_fit_options_init(&opt->fit);
}

static size_t bin_count(double w) { return (size_t)ceil(90.0 / w - 1e-9); }

size_t lsim_calib_bin_index(double angle_deg, double bin_width_deg)
{
    double a = fabs(angle_deg);
    size_t nb = bin_count(bin_width_deg);
    if (!(a < 90.0))
        return nb - 1;
    size_t k = (size_t)floor(a / bin_width_deg);
    return k < nb ? k : nb - 1;
}

double lsim_calib_bin_center(size_t index, double bin_width_deg)
{
    double lo = (double)index * bin_width_deg, hi = lo + bin_width_deg;
    return 0.5 * (lo + (hi < 90.0 ? hi : 90.0));
}

void lsim_calib_board_of(const lsim_calib_material *m, lsim_board_fit *fit)
{
    memset(fit, 0, sizeof *fit);
    fit->distance_m = m->fitted_distance_m;
    fit->normal_rad = m->normal_angle_rad;
    fit->band_m = m->band_m;
    fit->extent_min_m = m->board_offset_m - 0.5 * m->board_width_m;
    fit->extent_max_m = m->board_offset_m + 0.5 * m->board_width_m;
    fit->run_min_m = fit->extent_min_m;
    fit->run_max_m = fit->extent_max_m;
    fit->center_m = m->board_offset_m;
    fit->near_normal_median_m = NAN;
}

/* ------------------------------------------------------------------------------------------- */
/* BRDF fit                                                                                     */

typedef struct fit_data {
    size_t n;
    double *theta, *y, *w; /* bin centre (rad), mean intensity, weight */
    lsim_brdf brdf;        /* shape under test */
} fit_data;

static double model_shape(const lsim_brdf *b, double theta)
{
    double c = cos(theta);
    return LSIM_PI * lsim_brdf_backscatter(b, c) * c;
}

/* Weighted least-squares cost with the optimal scale for the current shape. */
static double fit_cost(const fit_data *d, double *scale_out)
{
    double sgy = 0.0, sgg = 0.0;
    for (size_t i = 0; i < d->n; ++i) {
        double g = model_shape(&d->brdf, d->theta[i]);
        sgy += d->w[i] * g * d->y[i];
        sgg += d->w[i] * g * g;
    }
    double s = sgg > 0.0 ? sgy / sgg : 0.0;
    if (s < 0.0)
        s = 0.0;
    double cost = 0.0;
    for (size_t i = 0; i < d->n; ++i) {
        double e = d->y[i] - s * model_shape(&d->brdf, d->theta[i]);
        cost += d->w[i] * e * e;
    }
    if (scale_out)
        *scale_out = s;
    return isfinite(cost) ? cost : HUGE_VAL;
}

static void set_params(fit_data *d, const double *p)
{
    d->brdf.roughness = p[0];
    if (d->brdf.kind == LSIM_BRDF_COOK_TORRANCE)
        d->brdf.f0 = p[1];
}

static double cost_at(fit_data *d, const double *p)
{
    set_params(d, p);
    return fit_cost(d, NULL);
}

static double clampd(double v, double lo, double hi) { return v < lo ? lo : (v > hi ? hi : v); }

static double cost_at1(fit_data *d, double x)
{
    double p[2] = {x, 0.0};
    return cost_at(d, p);
}

/* Oren-Nayar: sigma in [0, pi/2] by a 65-point grid and golden-section search around the best. */
static void fit_oren_nayar(fit_data *d)
{
    const int grid = 64;
    double hi_bound = LSIM_PI / 2.0, best = 0.0, best_cost = HUGE_VAL;
    for (int j = 0; j <= grid; ++j) {
        double p = hi_bound * j / grid, c = cost_at1(d, p);
        if (c < best_cost) {
            best_cost = c;
            best = p;
        }
    }
    double step = hi_bound / grid;
    double a = clampd(best - step, 0.0, hi_bound), b = clampd(best + step, 0.0, hi_bound);
    const double g = 0.6180339887498949;
    double x1 = b - g * (b - a), x2 = a + g * (b - a);
    double f1 = cost_at1(d, x1), f2 = cost_at1(d, x2);
    for (int it = 0; it < 80 && b - a > 1e-10; ++it) {
        if (f1 <= f2) {
            b = x2;
            x2 = x1;
            f2 = f1;
            x1 = b - g * (b - a);
            f1 = cost_at1(d, x1);
        } else {
            a = x1;
            x1 = x2;
            f1 = f2;
            x2 = a + g * (b - a);
            f2 = cost_at1(d, x2);
        }
    }
    double mid = 0.5 * (a + b), fm = cost_at1(d, mid);
    if (fm < best_cost)
        best = mid;
    double bp[2] = {best, 0.0};
    set_params(d, bp);
}

/* Cook-Torrance: (roughness, f0) in [0.02, 1] x [0, 1]: 25 x 21 grid, then bounded Nelder-Mead. */
static void fit_cook_torrance(fit_data *d)
{
    const double lo[2] = {0.02, 0.0}, hi[2] = {1.0, 1.0};
    double best[2] = {0.5, 0.04}, best_cost = HUGE_VAL;
    for (int i = 0; i <= 24; ++i)
        for (int j = 0; j <= 20; ++j) {
            double p[2] = {lo[0] + (hi[0] - lo[0]) * i / 24.0, j / 20.0};
            double c = cost_at(d, p);
            if (c < best_cost) {
                best_cost = c;
                best[0] = p[0];
                best[1] = p[1];
            }
        }
    double s[3][2], f[3];
    double step[2] = {(hi[0] - lo[0]) / 24.0, 1.0 / 20.0};
    for (int v = 0; v < 3; ++v) {
        for (int k = 0; k < 2; ++k)
            s[v][k] = clampd(best[k] + (v == k + 1 ? (best[k] + step[k] <= hi[k] ? step[k] : -step[k]) : 0.0),
                             lo[k], hi[k]);
        f[v] = cost_at(d, s[v]);
    }
    for (int it = 0; it < 400; ++it) {
        /* order: s[0] best, s[2] worst */
        for (int a = 0; a < 3; ++a)
            for (int b = a + 1; b < 3; ++b)
                if (f[b] < f[a]) {
                    double t = f[a];
                    f[a] = f[b];
                    f[b] = t;
                    for (int k = 0; k < 2; ++k) {
                        t = s[a][k];
                        s[a][k] = s[b][k];
                        s[b][k] = t;
                    }
                }
        double size = fabs(s[2][0] - s[0][0]) + fabs(s[2][1] - s[0][1]) + fabs(s[1][0] - s[0][0]) +
                      fabs(s[1][1] - s[0][1]);
        if (size < 1e-10)
            break;
        double c[2], r[2], e[2], k2[2];
        for (int k = 0; k < 2; ++k) {
            c[k] = 0.5 * (s[0][k] + s[1][k]);
            r[k] = clampd(c[k] + (c[k] - s[2][k]), lo[k], hi[k]);
        }
        double fr = cost_at(d, r);
        if (fr < f[0]) {
            for (int k = 0; k < 2; ++k)
                e[k] = clampd(c[k] + 2.0 * (c[k] - s[2][k]), lo[k], hi[k]);
            double fe = cost_at(d, e);
            const double *take = fe < fr ? e : r;
            s[2][0] = take[0];
            s[2][1] = take[1];
            f[2] = fe < fr ? fe : fr;
        } else if (fr < f[1]) {
            s[2][0] = r[0];
            s[2][1] = r[1];
            f[2] = fr;
        } else {
            for (int k = 0; k < 2; ++k)
                k2[k] = clampd(c[k] + 0.5 * (s[2][k] - c[k]), lo[k], hi[k]);
            double fk = cost_at(d, k2);
            if (fk < f[2]) {
                s[2][0] = k2[0];
                s[2][1] = k2[1];
                f[2] = fk;
            } else { /* shrink towards the best */
                for (int v = 1; v < 3; ++v) {
                    for (int k = 0; k < 2; ++k)
                        s[v][k] = s[0][k] + 0.5 * (s[v][k] - s[0][k]);
                    f[v] = cost_at(d, s[v]);
                }
            }
        }
    }
    int bi = 0;
    for (int v = 1; v < 3; ++v)
        if (f[v] < f[bi])
            bi = v;
    if (f[bi] < best_cost) {
        best[0] = s[bi][0];
        best[1] = s[bi][1];
    }
    set_params(d, best);
}

lsim_status lsim_calib_fit_brdf(lsim_context *ctx, lsim_calib_material *m)
{
    lsim_brdf_kind kind = m->brdf.kind;
    if (kind != LSIM_BRDF_LAMBERTIAN && kind != LSIM_BRDF_OREN_NAYAR && kind != LSIM_BRDF_COOK_TORRANCE)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "materials.%s.brdf: %s cannot be fitted; valid: "
                         "lambertian, oren-nayar, cook-torrance", m->name, lsim_brdf_kind_name(kind));
    fit_data d;
    memset(&d, 0, sizeof d);
    d.brdf = m->brdf;
    d.brdf.metallic = 0.0;
    double *buf = malloc((m->bin_count ? m->bin_count : 1) * 3 * sizeof *buf);
    if (!buf)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory fitting the BRDF of %s", m->name);
    d.theta = buf;
    d.y = buf + m->bin_count;
    d.w = buf + 2 * m->bin_count;
    double total = 0.0;
    for (size_t i = 0; i < m->bin_count; ++i) {
        const lsim_calib_bin *b = &m->bins[i];
        double returns = (double)b->n * (1.0 - b->drop_rate);
        if (!(returns > 0.5) || !isfinite(b->mean_intensity))
            continue;
        d.theta[d.n] = b->angle_deg * LSIM_DEG;
        d.y[d.n] = b->mean_intensity;
        d.w[d.n] = floor(returns + 0.5);
        total += d.w[d.n];
        ++d.n;
    }
    if (d.n && total > 0.0) {
        if (kind == LSIM_BRDF_OREN_NAYAR)
            fit_oren_nayar(&d);
        else if (kind == LSIM_BRDF_COOK_TORRANCE)
            fit_cook_torrance(&d);
        double scale;
        double cost = fit_cost(&d, &scale);
        m->brdf = d.brdf;
        m->brdf_scale = scale;
        m->brdf_rms = sqrt(cost / total);
    } else { /* no returns at all: nothing to fit */
        m->brdf = d.brdf;
        m->brdf_scale = 0.0;
        m->brdf_rms = 0.0;
    }
    free(buf);
    return LSIM_OK;
}

double lsim_calib_brdf_intensity(const lsim_calib_material *m, double angle_deg)
{
    double a = fabs(angle_deg);
    if (!(a <= 90.0))
        a = 90.0;
    return m->brdf_scale * model_shape(&m->brdf, a * LSIM_DEG);
}

/* ------------------------------------------------------------------------------------------- */
/* Binning                                                                                      */

typedef struct acc {
    size_t n, returns, n_int;
    double sum_i, sum_r, m2_i, m2_r;
} acc;

lsim_status lsim_calibrate_scan(lsim_context *ctx, const lsim_calib_input *in, const lsim_scan_data *scan,
                                const lsim_calib_options *opt, lsim_calib_material *out, lsim_board_fit *fit_out)
{
    memset(out, 0, sizeof *out);
    const char *src = in->scan_path ? in->scan_path : in->name;
    if (!(opt->bin_width_deg >= 0.05 && opt->bin_width_deg <= 45.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "bin width %g deg is invalid; valid: 0.05 to 45 degrees",
                         opt->bin_width_deg);
    lsim_board_fit_options fo = opt->fit;
    fo.direction_rad = in->direction_deg * LSIM_DEG;
    fo.window_rad = in->window_deg * LSIM_DEG;
    fo.width_m = in->width_m;
    fo.source = src;
    lsim_board_fit fit;
    lsim_status st = lsim_board_fit_run(ctx, scan, &fo, &fit);
    if (st != LSIM_OK)
        return st;
    if (fit_out)
        *fit_out = fit;

    double w = opt->bin_width_deg;
    size_t nb = bin_count(w);
    acc *bins = calloc(nb, sizeof *bins);
    if (!bins)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory binning %s", src);
    size_t outliers = 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t i = 0; i < scan->count; ++i) {
            double psi, res;
            lsim_board_beam c = lsim_board_classify(&fit, scan, i, &psi, &res);
            if (c == LSIM_BOARD_OFF)
                continue;
            if (c == LSIM_BOARD_OUTLIER) {
                outliers += pass == 0;
                continue;
            }
            acc *b = &bins[lsim_calib_bin_index(psi / LSIM_DEG, w)];
            double v = scan->intensity[i];
            if (pass == 0) {
                ++b->n;
                if (c == LSIM_BOARD_RETURN) {
                    ++b->returns;
                    b->sum_r += res;
                    if (isfinite(v)) {
                        ++b->n_int;
                        b->sum_i += v;
                    }
                }
            } else if (c == LSIM_BOARD_RETURN) {
                double dr = res - b->sum_r / (double)b->returns;
                b->m2_r += dr * dr;
                if (isfinite(v)) {
                    double di = v - b->sum_i / (double)b->n_int;
                    b->m2_i += di * di;
                }
            }
        }
    }
    size_t stored = 0;
    for (size_t k = 0; k < nb; ++k)
        stored += bins[k].n > 0;
    if (!stored) {
        free(bins);
        return lsim_fail(ctx, LSIM_ERR_NOT_FOUND, "%s: material %s: no beams towards the board fell in any "
                         "incidence-angle bin (empty bins); check the board width and direction", src, in->name);
    }
    out->bins = calloc(stored, sizeof *out->bins);
    if (!out->bins) {
        free(bins);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory binning %s", src);
    }
    for (size_t k = 0; k < nb; ++k) {
        const acc *b = &bins[k];
        if (!b->n)
            continue;
        lsim_calib_bin *o = &out->bins[out->bin_count++];
        o->angle_deg = lsim_calib_bin_center(k, w);
        o->n = b->n;
        o->mean_intensity = b->n_int ? b->sum_i / (double)b->n_int : 0.0;
        o->std_intensity = b->n_int > 1 ? sqrt(b->m2_i / (double)(b->n_int - 1)) : 0.0;
        o->std_range_m = b->returns > 1 ? sqrt(b->m2_r / (double)(b->returns - 1)) : 0.0;
        o->mean_range_m = b->returns ? b->sum_r / (double)b->returns : 0.0;
        o->drop_rate = (double)(b->n - b->returns) / (double)b->n;
    }
    free(bins);

    lsim_strlcpy(out->name, in->name, sizeof out->name);
    lsim_strlcpy(out->source, in->scan_path ? in->scan_path : "", sizeof out->source);
    out->configured_distance_m = in->distance_m;
    out->fitted_distance_m = fit.distance_m;
    out->normal_angle_rad = fit.normal_rad;
    out->configured_width_m = in->width_m;
    out->board_width_m = fit.extent_max_m - fit.extent_min_m;
    out->board_offset_m = 0.5 * (fit.extent_min_m + fit.extent_max_m);
    out->band_m = fit.band_m;
    out->outliers = outliers;
    out->revolutions = scan->revolutions;
    out->beams_per_revolution = scan->beams_per_revolution;
    out->bin_width_deg = w;
    out->brdf = in->brdf;
    out->brdf_configured = in->brdf;
    st = lsim_calib_fit_brdf(ctx, out);
    if (st != LSIM_OK)
        lsim_calib_material_free(out);
    return st;
}

lsim_status lsim_calibrate_input(lsim_context *ctx, const lsim_calib_input *in, const lsim_calib_options *opt,
                                 lsim_calib_material *out, lsim_board_fit *fit_out)
{
    memset(out, 0, sizeof *out);
    lsim_scan_data scan;
    lsim_status st = lsim_scan_read(ctx, in->scan_path, &scan);
    if (st != LSIM_OK)
        return st;
    st = lsim_calibrate_scan(ctx, in, &scan, opt, out, fit_out);
    lsim_scan_free(&scan);
    return st;
}
