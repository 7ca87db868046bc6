/* The receiver's moment-series solver for noise-free clusters of point contributions
 * (receiver/pulse_moments.h). */
#include "receiver/pulse_moments.h"

#include <math.h>
#include <stddef.h>

#define FAST_MAX_TERMS 40
#define FAST_REL_TOL 1e-11 /* crossing error about 1e-11 sigma / |(ln xi)'|: far below a float ulp */
#define FAST_SPAN_SIGMAS 1.0
#define FAST_U_TOL 1e-11 /* bracket width that ends the peak search */
#define FAST_STEP 1e-7 /* a Newton step this small leaves an error of about its square */
#define FAST_MAX_ITER 60

/* 1/k and 1/k! for k = 0..FAST_MAX_TERMS + 1 (1/0 unused) */
static const double FAST_INV[FAST_MAX_TERMS + 2] = {
    0.0, 1.0, 1.0 / 2, 1.0 / 3, 1.0 / 4, 1.0 / 5, 1.0 / 6, 1.0 / 7, 1.0 / 8, 1.0 / 9, 1.0 / 10, 1.0 / 11,
    1.0 / 12, 1.0 / 13, 1.0 / 14, 1.0 / 15, 1.0 / 16, 1.0 / 17, 1.0 / 18, 1.0 / 19, 1.0 / 20, 1.0 / 21,
    1.0 / 22, 1.0 / 23, 1.0 / 24, 1.0 / 25, 1.0 / 26, 1.0 / 27, 1.0 / 28, 1.0 / 29, 1.0 / 30, 1.0 / 31,
    1.0 / 32, 1.0 / 33, 1.0 / 34, 1.0 / 35, 1.0 / 36, 1.0 / 37, 1.0 / 38, 1.0 / 39, 1.0 / 40, 1.0 / 41};

typedef struct fast_series {
    double s[FAST_MAX_TERMS];
    int K;
} fast_series;

/* P0, P1 and (p2 != NULL) P2 at u. */
static inline void fast_eval(const fast_series *fs, double u, double *p0, double *p1, double *p2)
{
    const int K = fs->K;
    double hm = 1.0, h = u;            /* He_{k-1}, He_k for k = 1 */
    double a0 = fs->s[0], a1 = fs->s[0] * u, a2 = 0.0;
    for (int k = 1; k < K; ++k) {
        double hn = u * h - (double)k * hm; /* He_{k+1} */
        a0 += fs->s[k] * h;
        a1 += fs->s[k] * hn;
        a2 += fs->s[k - 1] * hn;
        hm = h;
        h = hn;
    }
    *p0 = a0;
    *p1 = a1;
    if (p2)
        *p2 = a2 + fs->s[K - 1] * (u * h - (double)K * hm);
}

/* P0 and P1 at two points at once (the two crossings: independent chains). */
static inline void fast_eval2(const fast_series *fs, double u, double v, double *u0, double *u1, double *v0,
                              double *v1)
{
    const int K = fs->K;
    double hmu = 1.0, hu = u, hmv = 1.0, hv = v;
    double a0 = fs->s[0], a1 = fs->s[0] * u, b0 = fs->s[0], b1 = fs->s[0] * v;
    for (int k = 1; k < K; ++k) {
        double hnu = u * hu - (double)k * hmu, hnv = v * hv - (double)k * hmv;
        a0 += fs->s[k] * hu;
        a1 += fs->s[k] * hnu;
        b0 += fs->s[k] * hv;
        b1 += fs->s[k] * hnv;
        hmu = hu;
        hu = hnu;
        hmv = hv;
        hv = hnv;
    }
    *u0 = a0;
    *u1 = a1;
    *v0 = b0;
    *v1 = b1;
}

/* ln p for p near 1 (the series' P0 at the peak and the crossings of a narrow cluster): the
 * alternating series to d^7 below |d| = 1e-3 (error below 1e-21), libm's log otherwise. */
static inline double log_near1(double p)
{
    const double d = p - 1.0;
    if (!(fabs(d) < 1e-3))
        return log(p);
    return d * (1.0 - d * (0.5 - d * (1.0 / 3 - d * (0.25 - d * (0.2 - d * (1.0 / 6 - d * (1.0 / 7)))))));
}

/* exp(z) for |z| < 1e-3 by its series to z^6 (error below 1e-21), libm's exp otherwise. */
static inline double exp_small(double z)
{
    if (!(fabs(z) < 1e-3))
        return exp(z);
    return 1.0 + z * (1.0 + z * (0.5 + z * (1.0 / 6 + z * (1.0 / 24 + z * (1.0 / 120 + z * (1.0 / 720))))));
}

/* Terms of the series for |u| <= U and |e_j| <= eps, or 0 when FAST_MAX_TERMS are not enough.
 * Term k of P0's bound is scale (x^k / k! + y^k / k!!), x = sqrt2 U eps, y = sqrt2 eps, times
 * sqrt2 (U + 1 + (k + 1) / 2) >= sqrt2 (U + 1 + sqrt k) for what He_{k+1} / He_k adds to P1.
 * Once k + 1 >= 2 x the x parts fall by at least 2/3 a term (with the factor's growth), and once
 * y^2 / (k + 2) <= 0.4 the y parts by 0.6 every two terms: the tail from K is below
 * 3 (x part of t_K) + 3 (y parts of t_K and t_{K+1}). */
static int fast_terms(double U, double eps)
{
    if (!(U >= 0.0 && U < 1e3 && eps >= 0.0 && eps <= 2.0))
        return 0;
    const double sqrt2 = 1.4142135623730951;
    const double z = U * eps + 0.5 * eps * eps; /* e^z <= 1 + z + z^2 for 0 <= z <= 1 */
    const double scale = 0.5 * (z <= 1.0 ? 1.0 + z + z * z : exp(z));
    const double x = sqrt2 * U * eps, y = sqrt2 * eps;
    double tx = 1.0, ty = 1.0, ty1 = y; /* x^k / k!, y^k / k!!, y^(k+1) / (k+1)!! */
    const double yy = y * y;
    for (int k = 0; k <= FAST_MAX_TERMS; ++k) {
        if (k > 0) {
            tx *= x * FAST_INV[k];
            double ty2 = ty * yy * FAST_INV[k + 1]; /* y^(k+1) / (k+1)!! */
            ty = ty1;
            ty1 = ty2;
        }
        double tail = 3.0 * scale * (tx + ty + ty1) * sqrt2 * (U + 1.0 + 0.5 * (double)(k + 1));
        if ((double)(k + 1) >= 2.0 * x && y * y <= 0.4 * (double)(k + 2) && tail <= FAST_REL_TOL)
            return k < 2 ? 2 : k;
    }
    return 0;
}

/* Window start of a point contribution, as prepare() computes it. */
static double point_window_lo(const lsim_pulse_shape *b, double a, double r)
{
    double ln_ratio = log(a) - log(b->T) - LN_WINDOW_EPS;
    return r - (0.0 + b->sigma * sqrt(2.0 * (ln_ratio > 0.0 ? ln_ratio : 0.0)));
}


void lsim_moment_set_init(lsim_moment_set *f)
{
    f->n = 0;
    f->lo = NULL;
    f->A = f->Ar = 0.0;
    f->rmin = INFINITY;
    f->rmax = -INFINITY;
}

void lsim_moment_set_add(lsim_moment_set *f, double a, double r, int index)
{
    f->a[f->n] = a;
    f->r[f->n] = r;
    f->index[f->n++] = index;
    f->A += a;
    f->Ar += a * r;
    f->rmin = r < f->rmin ? r : f->rmin;
    f->rmax = r > f->rmax ? r : f->rmax;
}

static double fast_lo(const lsim_pulse_shape *b, const lsim_moment_set *f, int q)
{
    return f->lo ? f->lo[q] : point_window_lo(b, f->a[q], f->r[q]);
}

int lsim_moment_solve(const lsim_pulse_shape *b, lsim_moment_set *f, double *range, double *power, double *epw,
                      int *dominant)
{
    const double T = b->T, sigma = b->sigma, A = f->A, rmin = f->rmin, rmax = f->rmax;
    const int n = f->n;
    if (n < 1 || !(rmax - rmin <= FAST_SPAN_SIGMAS * sigma) || !isfinite(A) || !isfinite(f->Ar))
        return -1;
    if (!(A > T))
        return 0; /* xi <= sum a_j <= T everywhere */
    const double m = f->Ar / A, inv_sigma = b->inv_sigma;
    const double eps = fmax(rmax - m, m - rmin) * inv_sigma;
    const double ln_at = log(A / T); /* > 0 */
    const double U = eps + sqrt(2.0 * ln_at);
    fast_series fs;
    fs.K = fast_terms(U, eps);
    if (!fs.K)
        return -1;
    const int K = fs.K;

    /* moments sum_j (a_j / A) e_j^k, four contributions at a time (independent chains) */
    double mom[FAST_MAX_TERMS];
    for (int k = 0; k < K; ++k)
        mom[k] = 0.0;
    const double inv_A = 1.0 / A;
    double e[LSIM_RECEIVER_MAX_CONTRIBUTIONS + 3], p[LSIM_RECEIVER_MAX_CONTRIBUTIONS + 3];
    for (int q = 0; q < n; ++q) {
        e[q] = (f->r[q] - m) * inv_sigma;
        p[q] = f->a[q] * inv_A;
    }
    for (int q = n; q < ((n + 3) & ~3); ++q)
        e[q] = p[q] = 0.0;
    for (int q = 0; q < n; q += 4) {
        double p0 = p[q], p1 = p[q + 1], p2 = p[q + 2], p3 = p[q + 3];
        const double e0 = e[q], e1 = e[q + 1], e2 = e[q + 2], e3 = e[q + 3];
        mom[0] += (p0 + p1) + (p2 + p3);
        for (int k = 1; k < K; ++k) {
            p0 *= e0;
            p1 *= e1;
            p2 *= e2;
            p3 *= e3;
            mom[k] += (p0 + p1) + (p2 + p3);
        }
    }
    double inv_fact = 1.0;
    for (int k = 0; k < K; ++k) {
        inv_fact *= k > 0 ? FAST_INV[k] : 1.0;
        fs.s[k] = mom[k] * inv_fact;
    }

    /* the peak: root of (ln xi)' in [min e_j, max e_j]; Newton converges quadratically, so a
     * step below FAST_STEP leaves an error of about its square */
    double lo = (rmin - m) * inv_sigma, hi = (rmax - m) * inv_sigma, u = fmin(fmax(0.0, lo), hi);
    double p0, p1, p2;
    int done = 0;
    for (int it = 0; it < FAST_MAX_ITER && !done; ++it) {
        fast_eval(&fs, u, &p0, &p1, &p2);
        if (!(p0 > 0.0))
            return -1;
        double g = -p1 / p0, gp = p2 / p0 - g * g;
        if (g > 0.0)
            lo = u;
        else if (g < 0.0)
            hi = u;
        else {
            done = 1;
            break;
        }
        double next = gp < 0.0 ? u - g / gp : 0.5 * (lo + hi);
        int newton = next >= lo && next <= hi;
        if (!newton)
            next = 0.5 * (lo + hi);
        done = (newton && fabs(next - u) <= FAST_STEP) || hi - lo <= FAST_U_TOL;
        u = next;
    }
    if (!done)
        return -1;
    fast_eval(&fs, u, &p0, &p1, &p2);
    const double peak = A * exp_small(-0.5 * u * u) * p0;
    if (!(p0 > 0.0) || !isfinite(peak))
        return -1;
    if (!(peak > T))
        return 0;

    /* the crossings: ln xi(x) = ln T on each side, both Newton iterations side by side */
    const double ln_t = -ln_at; /* ln(T / A) */
    double kappa = -p2 / p0;
    if (!(kappa > 0.0))
        kappa = 1.0;
    const double half0 = sqrt(2.0 * (ln_at - 0.5 * u * u + log_near1(p0)) / kappa); /* ln(peak / T) */
    double xl = fmax(u - half0, -U), xr = fmin(u + half0, U);
    int ok_l = 0, ok_r = 0;
    for (int it = 0; it < FAST_MAX_ITER && !(ok_l && ok_r); ++it) {
        double l0, l1, r0, r1;
        fast_eval2(&fs, xl, xr, &l0, &l1, &r0, &r1);
        if (!(l0 > 0.0) || !(r0 > 0.0))
            return -1;
        if (!ok_l) {
            double phi = -0.5 * xl * xl + log_near1(l0) - ln_t, dphi = -l1 / l0;
            if (!(dphi > 0.0))
                return -1;
            double next = xl - phi / dphi;
            ok_l = fabs(next - xl) <= FAST_STEP;
            xl = next;
        }
        if (!ok_r) {
            double phi = -0.5 * xr * xr + log_near1(r0) - ln_t, dphi = -r1 / r0;
            if (!(dphi < 0.0))
                return -1;
            double next = xr - phi / dphi;
            ok_r = fabs(next - xr) <= FAST_STEP;
            xr = next;
        }
        if (!(fabs(xl) <= U + 1.0 && fabs(xr) <= U + 1.0))
            return -1;
    }
    if (!(ok_l && ok_r))
        return -1;

    /* the dominant contribution at the peak, as dominant_at() picks it */
    const double r_peak = m + sigma * u;
    int best = -1;
    double best_v = -1.0, best_a = 0.0, best_d2 = 0.0;
    for (int q = 0; q < n; ++q) {
        const double a = f->a[q], d = r_peak - f->r[q], d2 = d * d;
        if (best >= 0) {
            if (a <= best_a && d2 >= best_d2 && (a < best_a || d2 > best_d2))
                continue; /* strictly smaller */
            if (a >= best_a && d2 <= best_d2 && (a > best_a || d2 < best_d2)) {
                best = q; /* strictly larger */
                best_a = a;
                best_d2 = d2;
                best_v = -1.0;
                continue;
            }
        }
        int take;
        if (best >= 0 && a == best_a && d2 == best_d2) {
            take = -1; /* equal */
        } else if (best >= 0 && fabs(best_d2 - d2) * b->inv_2s2 <= 0.5 &&
                   (a * (1.0 + 1e-14) * (1.0 + (best_d2 - d2) * b->inv_2s2 * (1.0 + (best_d2 - d2) * b->inv_2s2)) <
                        best_a ||
                    a * (1.0 - 1e-14) * (1.0 + (best_d2 - d2) * b->inv_2s2) > best_a)) {
            /* v / best_v = (a / best_a) e^D, D = (best_d2 - d2) / 2 sigma^2, and
             * 1 + D <= e^D <= 1 + D + D^2 (|D| <= 1/2) already decide, with a margin far above the
             * rounding of the exps dominant_at() compares */
            take = a * (1.0 - 1e-14) * (1.0 + (best_d2 - d2) * b->inv_2s2) > best_a;
            if (take)
                best_v = -1.0;
        } else {
            if (best >= 0 && best_v < 0.0)
                best_v = best_a * exp(-best_d2 * b->inv_2s2);
            const double v = a * exp(-d2 * b->inv_2s2);
            take = best < 0 || v > best_v ? 1 : v == best_v ? -1 : 0;
            if (take == 1)
                best_v = v;
        }
        if (take < 0) { /* a tie: the earlier window start, then the lower index */
            double lo_q = fast_lo(b, f, q), lo_b = fast_lo(b, f, best);
            take = lo_q < lo_b || (lo_q == lo_b && f->index[q] < f->index[best]);
        }
        if (take) {
            best = q;
            best_a = a;
            best_d2 = d2;
        }
    }
    *range = r_peak;
    *power = peak;
    *epw = sigma * (xr - xl);
    *dominant = f->index[best];
    return 1;
}
