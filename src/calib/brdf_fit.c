/* The BRDF fit of a calibrated material (calib/calibrate.h, docs/calibration.md "BRDF"). */
#include "calib/calibrate.h"

#include "core/context.h"
#include "core/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    /* A binary-intensity sensor (the RPLIDAR: every return reads 47) reports the same value
     * whatever f_r is, so the bins' means say nothing about the shape: least squares would only
     * find the flattest shape the model allows (Cook-Torrance: roughness 1, where GGX's D is
     * constant, and f0 1, where Schlick's F is: the bounds; Oren-Nayar: the sigma where
     * cos(theta) (A + B sin(theta) tan(theta)) is flattest). The described shape is kept then
     * and only the scale is fitted. */
    m->brdf_shape_fitted = !lsim_calib_intensity_constant(m, NULL);
    fit_data d;
    memset(&d, 0, sizeof d);
    d.brdf = m->brdf;
    if (m->brdf_shape_fitted)
        d.brdf.metallic = 0.0; /* f0 is fitted as a dielectric's */
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
        if (kind == LSIM_BRDF_OREN_NAYAR && m->brdf_shape_fitted)
            fit_oren_nayar(&d);
        else if (kind == LSIM_BRDF_COOK_TORRANCE && m->brdf_shape_fitted)
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


int lsim_calib_intensity_constant(const lsim_calib_material *m, double *value)
{
    double constant = NAN;
    for (size_t i = 0; i < m->bin_count; ++i) {
        const lsim_calib_bin *c = &m->bins[i];
        if (c->drop_rate >= 1.0)
            continue;
        if (c->std_intensity > 0.0 || (!isnan(constant) && c->mean_intensity != constant))
            return 0;
        constant = c->mean_intensity;
    }
    if (isnan(constant))
        return 0;
    if (value)
        *value = constant;
    return 1;
}
