/* Range quantisation in calibration scans (see calib/range_quant.h). */
#include "calib/range_quant.h"

#include <math.h>
#include <string.h>

double lsim_scan_range_step(const lsim_scan_data *scan)
{
    static const double steps[] = {0.01, 0.005, 0.002, 0.001, 0.0005, 0.00025, 0.0002, 0.0001};
    size_t returned = 0;
    for (size_t i = 0; i < scan->count; ++i)
        returned += lsim_scan_returned(scan, i);
    if (returned < 20)
        return 0.0;
    for (size_t k = 0; k < sizeof steps / sizeof steps[0]; ++k) {
        int on_grid = 1;
        double first = NAN;
        int distinct = 0;
        for (size_t i = 0; i < scan->count && on_grid; ++i) {
            if (!lsim_scan_returned(scan, i))
                continue;
            double q = scan->range_m[i] / steps[k];
            on_grid = fabs(q - nearbyint(q)) <= 1e-3;
            if (isnan(first))
                first = nearbyint(q);
            else
                distinct |= nearbyint(q) != first;
        }
        if (on_grid)
            return distinct ? steps[k] : 0.0; /* one value only: no grid to speak of */
    }
    return 0.0;
}

size_t lsim_quant_cell(double t, double step)
{
    double f = t / step - floor(t / step);
    size_t c = (size_t)(f * LSIM_QUANT_CELLS);
    return c < LSIM_QUANT_CELLS ? c : LSIM_QUANT_CELLS - 1;
}

/* P(Z <= x) */
static double phi(double x) { return 0.5 * erfc(-x * 0.7071067811865476); }

void lsim_quant_moments(const double *weights, double step, double mu, double sigma, double *mean, double *var)
{
    double total = 0.0, m1 = 0.0, m2 = 0.0;
    const double s = sigma / step;
    for (size_t c = 0; c < LSIM_QUANT_CELLS; ++c) {
        const double w = weights[c];
        if (!(w > 0.0))
            continue;
        /* In steps: the true range at f within its step, the reading j = round(f + mu + s Z). */
        const double f = (c + 0.5) / LSIM_QUANT_CELLS, u = f + mu / step;
        double e1 = 0.0, e2 = 0.0;
        if (s < 1e-9) {
            double e = floor(u + 0.5) - f;
            e1 = e;
            e2 = e * e;
        } else {
            double jlo = floor(u - 8.0 * s) - 1.0, jhi = ceil(u + 8.0 * s) + 1.0;
            double below = phi((jlo - 0.5 - u) / s);
            for (double j = jlo; j <= jhi; j += 1.0) {
                double above = phi((j + 0.5 - u) / s), p = above - below, e = j - f;
                below = above;
                e1 += p * e;
                e2 += p * e * e;
            }
        }
        total += w;
        m1 += w * e1;
        m2 += w * e2;
    }
    if (!(total > 0.0)) {
        *mean = mu;
        *var = sigma * sigma;
        return;
    }
    m1 /= total;
    m2 /= total;
    *mean = m1 * step;
    *var = fmax(0.0, m2 - m1 * m1) * step * step;
}

/* Solve g(x) = target for g rising on [lo, hi] (Illinois regula falsi); g(lo) <= target <= g(hi)
 * expected, else the nearer end. */
typedef struct quant_problem {
    const double *weights;
    double step, mean, sigma; /* sigma: fixed while solving for mu */
} quant_problem;

static double g_mean(const quant_problem *q, double mu)
{
    double m, v;
    lsim_quant_moments(q->weights, q->step, mu, q->sigma, &m, &v);
    return m;
}

static double mu_for(const quant_problem *q, double sigma);

static double g_var(const quant_problem *q, double sigma)
{
    double m, v;
    lsim_quant_moments(q->weights, q->step, mu_for(q, sigma), sigma, &m, &v);
    return v;
}

static double solve_rising(double (*g)(const quant_problem *, double), const quant_problem *q, double lo, double hi,
                           double target, double tol)
{
    double flo = g(q, lo) - target, fhi = g(q, hi) - target;
    if (flo >= 0.0)
        return lo;
    if (fhi <= 0.0)
        return hi;
    int side = 0;
    for (int it = 0; it < 100 && hi - lo > tol; ++it) {
        double x = (lo * fhi - hi * flo) / (fhi - flo);
        if (!(x > lo && x < hi))
            x = 0.5 * (lo + hi);
        double f = g(q, x) - target;
        if (f == 0.0)
            return x;
        if (f < 0.0) {
            lo = x;
            flo = f;
            if (side == -1)
                fhi *= 0.5;
            side = -1;
        } else {
            hi = x;
            fhi = f;
            if (side == 1)
                flo *= 0.5;
            side = 1;
        }
    }
    return 0.5 * (lo + hi);
}

/* The mu whose rounded mean is q->mean at sigma > 0 (the rounded mean rises with mu and lies
 * within half a step of it). */
static double mu_for(const quant_problem *q, double sigma)
{
    quant_problem p = *q;
    p.sigma = sigma;
    return solve_rising(g_mean, &p, q->mean - q->step, q->mean + q->step, q->mean, 1e-9 * q->step);
}

/* sigma = 0: each reading is round(t + mu), so the rounded mean is a staircase in mu with a step
 * wherever a cell's t + mu crosses half a step. The mu at the middle of the stair whose mean is
 * nearest `mean` (never on a stair's edge, where the readings would flip at random). */
static double mu_at_zero(const quant_problem *q)
{
    double edges[LSIM_QUANT_CELLS * 3 + 2];
    size_t n = 0;
    const double lo = q->mean - q->step, hi = q->mean + q->step;
    edges[n++] = lo;
    for (size_t c = 0; c < LSIM_QUANT_CELLS; ++c) {
        if (!(q->weights[c] > 0.0))
            continue;
        double f = (c + 0.5) / LSIM_QUANT_CELLS; /* t + mu crosses k + 1/2 steps at mu = (k + 1/2 - f) step */
        for (double k = floor(lo / q->step - 1.0); k <= ceil(hi / q->step + 1.0); k += 1.0) {
            double e = (k + 0.5 - f) * q->step;
            if (e > lo && e < hi && n < sizeof edges / sizeof edges[0] - 1)
                edges[n++] = e;
        }
    }
    edges[n++] = hi;
    for (size_t i = 1; i < n; ++i) /* insertion sort: at most a few hundred */
        for (size_t j = i; j > 0 && edges[j] < edges[j - 1]; --j) {
            double t = edges[j];
            edges[j] = edges[j - 1];
            edges[j - 1] = t;
        }
    quant_problem p = *q;
    p.sigma = 0.0;
    double best = q->mean, best_err = HUGE_VAL;
    for (size_t i = 1; i < n; ++i) {
        if (!(edges[i] > edges[i - 1]))
            continue;
        double mid = 0.5 * (edges[i - 1] + edges[i]), err = fabs(g_mean(&p, mid) - q->mean);
        if (err < best_err) {
            best_err = err;
            best = mid;
        }
    }
    return best;
}

void lsim_quant_latent(const double *weights, double step, double mean, double var, double *mu, double *sigma)
{
    double total = 0.0;
    for (size_t c = 0; c < LSIM_QUANT_CELLS; ++c)
        total += weights[c] > 0.0 ? weights[c] : 0.0;
    if (!(step > 0.0) || !(total > 0.0) || !(var >= 0.0)) {
        *mu = mean;
        *sigma = sqrt(var > 0.0 ? var : 0.0);
        return;
    }
    /* Well above one step the rounding is uniform and independent of the error to within
     * exp(-2 pi^2 (sigma / step)^2) (< 1e-19 at 1.5 steps): Sheppard's correction is exact there. */
    double sheppard = var - step * step / 12.0;
    if (sheppard >= 2.25 * step * step) {
        *mu = mean;
        *sigma = sqrt(sheppard);
        return;
    }
    const quant_problem q = {weights, step, mean, 0.0};
    /* Candidate 1: no spread (every beam reads the same step each time). */
    double m0, v0, mu0 = mu_at_zero(&q);
    lsim_quant_moments(weights, step, mu0, 0.0, &m0, &v0);
    *mu = mu0;
    *sigma = 0.0;
    if (var <= v0)
        return; /* the readings agree better than the rounding alone would spread them */
    /* Candidate 2: the spread whose rounded variance is var, the mean matched at each spread. The
     * rounded variance rises with the spread, except that at a spread near 0 a mean between two
     * stairs puts beams on an edge, where a reading flips with the least change of the range; so
     * the spread is at least LSIM_QUANT_MIN_SPREAD steps, and the candidate whose moments are
     * nearer is kept. */
    const double floor_s = LSIM_QUANT_MIN_SPREAD * step;
    if (g_var(&q, floor_s) >= var)
        return;
    double s = solve_rising(g_var, &q, floor_s, 1.5 * step + sqrt(var), var, 1e-7 * step);
    double m1, v1, mu1 = mu_for(&q, s);
    lsim_quant_moments(weights, step, mu1, s, &m1, &v1);
    double sd = sqrt(var);
    double e0 = (m0 - mean) * (m0 - mean) + (sqrt(v0) - sd) * (sqrt(v0) - sd);
    double e1 = (m1 - mean) * (m1 - mean) + (sqrt(v1) - sd) * (sqrt(v1) - sd);
    if (e1 < e0) {
        *mu = mu1;
        *sigma = s;
    }
}
