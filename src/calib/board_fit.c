/* Robust board line fit (board_fit.h): RANSAC, Tukey-biweight total least squares, inlier runs. */
#include "calib/board_fit.h"

#include "core/context.h"
#include "core/rng.h"
#include "core/vec.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define TUKEY_C 4.685
#define MAD_TO_SIGMA 1.4826
#define SIGMA_FLOOR_M 1e-4 /* 0.1 mm: quantised ranges can give a MAD of 0 */
#define NEAR_NORMAL_DEG 2.0
#define MAX_PSI_DEG 89.0   /* beams closer than 1 deg to the line's direction are not used */
#define CLIP_FACTOR 1.5

double lsim_wrap_angle(double a)
{
    a = fmod(a, 2.0 * LSIM_PI);
    if (a <= -LSIM_PI)
        a += 2.0 * LSIM_PI;
    else if (a > LSIM_PI)
        a -= 2.0 * LSIM_PI;
    return a;
}

void lsim_board_fit_options_init(lsim_board_fit_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->direction_rad = LSIM_PI;
    opt->window_rad = 80.0 * LSIM_DEG;
    opt->width_m = 1.0;
    opt->ransac_band_m = 0.02;
    opt->min_band_m = 0.02;
    opt->band_sigmas = 6.0;
    opt->max_gap_deg = 5.0;
    opt->iterations = 512;
    opt->seed = 0;
    opt->min_inliers = 30;
    opt->source = "scan";
}

/* ------------------------------------------------------------------------------------------- */

typedef struct pts {
    size_t n;
    double *x, *y, *a, *r;
    double *tmp; /* scratch of n */
} pts;

/* k-th smallest of v[0..n) (Wirth's selection; reorders v so that v[0..k) <= v[k] <= v[k+1..n)). */
static double select_kth(double *v, size_t n, size_t k)
{
    ptrdiff_t l = 0, m = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (l < m) {
        double x = v[kk];
        ptrdiff_t i = l, j = m;
        do {
            while (v[i] < x)
                ++i;
            while (x < v[j])
                --j;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                ++i;
                --j;
            }
        } while (i <= j);
        if (j < kk)
            l = i;
        if (kk < i)
            m = j;
    }
    return v[kk];
}

static double median(double *v, size_t n)
{
    if (!n)
        return NAN;
    double hi = select_kth(v, n, n / 2);
    if (n % 2)
        return hi;
    double lo = v[0];
    for (size_t i = 1; i < n / 2; ++i) /* after selection v[0 .. n/2) <= hi */
        if (v[i] > lo)
            lo = v[i];
    return 0.5 * (lo + hi);
}

/* Line n.p = c with |n| = 1, c >= 0. */
typedef struct line2 { double nx, ny, c; } line2;

static line2 line_normalise(double nx, double ny, double c)
{
    double len = hypot(nx, ny);
    line2 l = {nx / len, ny / len, c / len};
    if (l.c < 0.0) {
        l.nx = -l.nx;
        l.ny = -l.ny;
        l.c = -l.c;
    }
    return l;
}

/* Weighted total least squares over the points with w > 0 (w in p->tmp). */
static int tls(const pts *p, const double *w, line2 *out)
{
    double sw = 0.0, mx = 0.0, my = 0.0;
    for (size_t i = 0; i < p->n; ++i) {
        if (w[i] <= 0.0)
            continue;
        sw += w[i];
        mx += w[i] * p->x[i];
        my += w[i] * p->y[i];
    }
    if (!(sw > 0.0))
        return -1;
    mx /= sw;
    my /= sw;
    double sxx = 0.0, sxy = 0.0, syy = 0.0;
    for (size_t i = 0; i < p->n; ++i) {
        if (w[i] <= 0.0)
            continue;
        double dx = p->x[i] - mx, dy = p->y[i] - my;
        sxx += w[i] * dx * dx;
        sxy += w[i] * dx * dy;
        syy += w[i] * dy * dy;
    }
    double theta = 0.5 * atan2(2.0 * sxy, sxx - syy); /* direction of the largest spread */
    double nx = -sin(theta), ny = cos(theta);
    *out = line_normalise(nx, ny, nx * mx + ny * my);
    return 0;
}

/* Tukey-biweight IRLS from `l` over the eligible points (elig[i] != 0) whose residual is within
 * `cand_band`; the scale is the MAD of those residuals. Returns the robust sigma (or -1). */
static double irls(const pts *p, const unsigned char *elig, double cand_band, line2 *l, double *w)
{
    double sigma = -1.0;
    for (int it = 0; it < 60; ++it) {
        size_t m = 0;
        for (size_t i = 0; i < p->n; ++i) {
            double e = l->nx * p->x[i] + l->ny * p->y[i] - l->c;
            if (elig[i] && fabs(e) <= cand_band)
                p->tmp[m++] = fabs(e);
        }
        if (m < 2)
            return -1.0;
        sigma = MAD_TO_SIGMA * median(p->tmp, m);
        if (sigma < SIGMA_FLOOR_M)
            sigma = SIGMA_FLOOR_M;
        double k = TUKEY_C * sigma;
        for (size_t i = 0; i < p->n; ++i) {
            double e = l->nx * p->x[i] + l->ny * p->y[i] - l->c;
            double u = e / k;
            w[i] = elig[i] && fabs(e) <= cand_band && fabs(u) < 1.0 ? (1.0 - u * u) * (1.0 - u * u) : 0.0;
        }
        line2 next;
        if (tls(p, w, &next))
            return -1.0;
        double change = fabs(next.c - l->c) + l->c * hypot(next.nx - l->nx, next.ny - l->ny);
        *l = next;
        if (change < 1e-9)
            break;
    }
    return sigma;
}

/* ------------------------------------------------------------------------------------------- */

typedef struct member { double psi, s, r; } member;

static int cmp_member(const void *a, const void *b)
{
    double x = ((const member *)a)->psi, y = ((const member *)b)->psi;
    return (x > y) - (x < y);
}

/* The members (|residual| <= band, |psi| <= MAX_PSI) sorted by psi, and the run with the most. */
static size_t find_run(const pts *p, const unsigned char *elig, line2 l, double band, double max_gap_rad,
                       member *mem, size_t *run_start, size_t *run_len)
{
    double phi = atan2(l.ny, l.nx);
    size_t m = 0;
    for (size_t i = 0; i < p->n; ++i) {
        if (!elig[i])
            continue;
        double e = l.nx * p->x[i] + l.ny * p->y[i] - l.c;
        double psi = lsim_wrap_angle(p->a[i] - phi);
        if (fabs(e) <= band && fabs(psi) <= MAX_PSI_DEG * LSIM_DEG) {
            mem[m].psi = psi;
            mem[m].s = l.c * tan(psi);
            mem[m].r = p->r[i];
            ++m;
        }
    }
    qsort(mem, m, sizeof *mem, cmp_member);
    *run_start = 0;
    *run_len = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i + 1;
        while (j < m && mem[j].psi - mem[j - 1].psi <= max_gap_rad)
            ++j;
        if (j - i > *run_len) {
            *run_start = i;
            *run_len = j - i;
        }
        i = j;
    }
    return m;
}

lsim_status lsim_board_fit_run(lsim_context *ctx, const lsim_scan_data *scan, const lsim_board_fit_options *opt,
                               lsim_board_fit *out)
{
    memset(out, 0, sizeof *out);
    const char *src = opt->source ? opt->source : "scan";
    if (!(opt->width_m > 0.0) || !(opt->window_rad > 0.0) || !(opt->ransac_band_m > 0.0) ||
        !(opt->min_band_m > 0.0) || !(opt->band_sigmas > 0.0) || !(opt->max_gap_deg > 0.0) || opt->iterations < 1)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "%s: board fit options out of range (width %g m, window "
                         "%g deg)", src, opt->width_m, opt->window_rad / LSIM_DEG);
    size_t min_inliers = opt->min_inliers < 3 ? 3 : opt->min_inliers;

    pts p = {0};
    size_t n = 0;
    for (size_t i = 0; i < scan->count; ++i)
        n += lsim_scan_returned(scan, i) &&
             fabs(lsim_wrap_angle(scan->angle_rad[i] - opt->direction_rad)) <= opt->window_rad;
    out->window_returns = n;
    if (n < min_inliers)
        return lsim_fail(ctx, LSIM_ERR_NOT_FOUND, "%s: board not found: only %zu returned beams within +-%g deg of "
                         "%g deg (need at least %zu); check the board direction and window (direction_deg, "
                         "window_deg; --direction, --window) and that the scan shows the board", src, n,
                         opt->window_rad / LSIM_DEG, opt->direction_rad / LSIM_DEG, min_inliers);
    double *buf = malloc(n * 6 * sizeof *buf);
    unsigned char *elig = malloc(n);
    member *mem = malloc(n * sizeof *mem);
    if (!buf || !elig || !mem) {
        free(buf);
        free(elig);
        free(mem);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "%s: out of memory fitting the board", src);
    }
    p.n = n;
    p.x = buf;
    p.y = buf + n;
    p.a = buf + 2 * n;
    p.r = buf + 3 * n;
    p.tmp = buf + 4 * n;
    double *w = buf + 5 * n;
    size_t k = 0;
    for (size_t i = 0; i < scan->count; ++i) {
        double a = scan->angle_rad[i];
        if (!lsim_scan_returned(scan, i) || fabs(lsim_wrap_angle(a - opt->direction_rad)) > opt->window_rad)
            continue;
        p.a[k] = a;
        p.r[k] = scan->range_m[i];
        p.x[k] = p.r[k] * cos(a);
        p.y[k] = p.r[k] * sin(a);
        elig[k] = 1;
        ++k;
    }

    /* RANSAC: the line through two points with the most points within the band. */
    line2 best = {0, 0, 0};
    size_t best_count = 0;
    double band0 = opt->ransac_band_m;
    for (int it = 0; it < opt->iterations; ++it) {
        lsim_u32x4 r = lsim_rng_words(opt->seed, 0x6b6f6172u, (uint64_t)it, 0);
        size_t i = r.v[0] % n, j = r.v[1] % n;
        double dx = p.x[j] - p.x[i], dy = p.y[j] - p.y[i];
        if (i == j || hypot(dx, dy) < 2.0 * band0)
            continue;
        line2 l = line_normalise(-dy, dx, -dy * p.x[i] + dx * p.y[i]);
        if (l.c < 1e-3)
            continue; /* through the sensor: not a surface it can see */
        size_t count = 0;
        for (size_t q = 0; q < n; ++q)
            count += fabs(l.nx * p.x[q] + l.ny * p.y[q] - l.c) <= band0;
        if (count > best_count) {
            best_count = count;
            best = l;
        }
    }
    lsim_status st = LSIM_OK;
    if (best_count < min_inliers) {
        st = lsim_fail(ctx, LSIM_ERR_NOT_FOUND, "%s: board not found: no line within +-%g deg of %g deg holds %zu "
                       "returns within %g m (best: %zu of %zu); check the board direction and window "
                       "(--direction, --window)", src, opt->window_rad / LSIM_DEG, opt->direction_rad / LSIM_DEG,
                       min_inliers, band0, best_count, n);
    }

    /* Refine, find the run, refit on the run alone, and find the run again. */
    line2 l = best;
    double sigma = -1.0, band = 0.0;
    size_t run_start = 0, run_len = 0;
    double max_gap = opt->max_gap_deg * LSIM_DEG;
    for (int pass = 0; pass < 2 && st == LSIM_OK; ++pass) {
        sigma = irls(&p, elig, band0, &l, w);
        if (sigma < 0.0) {
            st = lsim_fail(ctx, LSIM_ERR_NOT_FOUND, "%s: board not found: the line fit did not converge (too few "
                           "returns near the line)", src);
            break;
        }
        band = fmax(opt->min_band_m, opt->band_sigmas * sigma);
        find_run(&p, elig, l, band, max_gap, mem, &run_start, &run_len);
        if (run_len < min_inliers) {
            st = lsim_fail(ctx, LSIM_ERR_NOT_FOUND, "%s: board not found: the best line (d = %.4f m, normal %.2f "
                           "deg) has only %zu contiguous returns within %.4f m (need at least %zu); check the board "
                           "direction and window (--direction, --window)", src, l.c,
                           atan2(l.ny, l.nx) / LSIM_DEG, run_len, band, min_inliers);
            break;
        }
        /* Only the run's angular range is eligible for the next pass. */
        double phi = atan2(l.ny, l.nx);
        double lo = mem[run_start].psi, hi = mem[run_start + run_len - 1].psi;
        for (size_t i = 0; i < n; ++i) {
            double psi = lsim_wrap_angle(p.a[i] - phi);
            elig[i] = psi >= lo - 1e-12 && psi <= hi + 1e-12;
        }
    }
    if (st == LSIM_OK && l.c < 0.01)
        st = lsim_fail(ctx, LSIM_ERR_NOT_FOUND, "%s: board not found: the fitted line passes %.4f m from the sensor; "
                       "a board must be at least 0.01 m away", src, l.c);
    if (st == LSIM_OK) {
        out->distance_m = l.c;
        out->normal_rad = atan2(l.ny, l.nx);
        out->sigma_m = sigma;
        out->band_m = band;
        out->inliers = run_len;
        out->run_min_m = mem[run_start].s;
        out->run_max_m = mem[run_start + run_len - 1].s;
        double psi_dir = lsim_wrap_angle(opt->direction_rad - out->normal_rad);
        out->center_m = fabs(psi_dir) < MAX_PSI_DEG * LSIM_DEG ? l.c * tan(psi_dir)
                                                              : 0.5 * (out->run_min_m + out->run_max_m);
        double half = 0.5 * opt->width_m, run = out->run_max_m - out->run_min_m;
        if (run > CLIP_FACTOR * opt->width_m) {
            out->clipped = 1;
            out->extent_min_m = fmax(out->run_min_m, out->center_m - half);
            out->extent_max_m = fmin(out->run_max_m, out->center_m + half);
            if (!(out->extent_max_m > out->extent_min_m)) { /* the expected direction is off the run */
                out->extent_min_m = out->run_min_m;
                out->extent_max_m = out->run_max_m;
            }
        } else {
            out->extent_min_m = fmin(out->run_min_m, out->center_m - half);
            out->extent_max_m = fmax(out->run_max_m, out->center_m + half);
        }
        double smax = l.c * tan(MAX_PSI_DEG * LSIM_DEG);
        out->extent_min_m = fmax(out->extent_min_m, -smax);
        out->extent_max_m = fmin(out->extent_max_m, smax);
        size_t near = 0;
        for (size_t i = 0; i < run_len; ++i)
            if (fabs(mem[run_start + i].psi) <= NEAR_NORMAL_DEG * LSIM_DEG)
                p.tmp[near++] = mem[run_start + i].r;
        out->near_normal_count = near;
        out->near_normal_median_m = near ? median(p.tmp, near) : NAN;
    }
    free(buf);
    free(elig);
    free(mem);
    return st;
}

lsim_board_beam lsim_board_classify(const lsim_board_fit *fit, const lsim_scan_data *scan, size_t i,
                                    double *psi_rad, double *residual_m)
{
    double psi = lsim_wrap_angle(scan->angle_rad[i] - fit->normal_rad);
    if (psi_rad)
        *psi_rad = psi;
    if (residual_m)
        *residual_m = 0.0;
    if (!(fabs(psi) < MAX_PSI_DEG * LSIM_DEG))
        return LSIM_BOARD_OFF;
    double s = fit->distance_m * tan(psi);
    if (s < fit->extent_min_m || s > fit->extent_max_m)
        return LSIM_BOARD_OFF;
    if (!lsim_scan_returned(scan, i))
        return LSIM_BOARD_DROP;
    double c = cos(psi), r = scan->range_m[i];
    double res = r - fit->distance_m / c;
    if (residual_m)
        *residual_m = res;
    return fabs(res * c) <= fit->band_m ? LSIM_BOARD_RETURN : LSIM_BOARD_OUTLIER;
}
