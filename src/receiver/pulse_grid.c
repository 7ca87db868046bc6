/* The pulsed receiver's sampled detection of one cluster (pulsed.c's opening comment, "How"):
 * the waveform on a grid of step sigma/8, crossings of T by Illinois regula falsi, the peak by
 * Brent's method, the dominant contribution at the peak. */
#include "receiver/pulse_wave.h"

#include <string.h>

#define MAX_SAMPLES 65536
#define MAX_STEP_SIGMAS 8.0

static const double PI_POW_M14 = 0.75112554446494251; /* pi^(-1/4) */

/* exp(-j^2 / 2), j = 0..5 */
static const double GAUSS_INT[6] = {1.0, 0.60653065971263342, 0.1353352832366127, 0.011108996538242306,
                                    0.00033546262790251185, 3.7266531720786709e-06};

/* Noise weights on the sigma/8 grid: NOISE_W[p][j + 4] = pi^(-1/4) exp(-(p/8 - j)^2 / 2),
 * j = -4..5, the weight of node K + j at x = K + p/8 (x = r / sigma). */
static const double NOISE_W[GRID_PER_SIGMA][10] = {
    {0.00025197454903091461, 0.0083442510732464129, 0.10165378830641793, 0.45558067201133257,
     0.75112554446494251, 0.45558067201133257, 0.10165378830641793, 0.0083442510732464129,
     0.00025197454903091461, 2.7991843929095969e-06},
    {0.00015164095470627406, 0.005690284845010528, 0.078551959282801134, 0.39891976542957192,
     0.74528023910360808, 0.5122231180306821, 0.12951028612472462, 0.01204633311141814,
     0.00041220285162824586, 5.188868129033276e-06},
    {8.9844292304818712e-05, 0.0038202765203308063, 0.059759179303342111, 0.34389033313491874,
     0.72801584095956129, 0.56697930702769361, 0.16244229118390072, 0.017121291526835707,
     0.00066386451600902881, 9.4695187402373669e-06},
    {5.2405711658432153e-05, 0.0025250485935685565, 0.044757557248302882, 0.29185593508400304,
     0.70012599207068005, 0.61785901942134225, 0.20058945513474927, 0.023956994029747086,
     0.0010525968565013655, 1.7013643593580235e-05},
    {3.0094068318430211e-05, 0.0016430804571573455, 0.033002153190001937, 0.24385476130642741,
     0.66286596644247964, 0.66286596644247964, 0.24385476130642741, 0.033002153190001937,
     0.0016430804571573455, 3.0094068318430211e-05},
    {1.7013643593580235e-05, 0.0010525968565013655, 0.023956994029747086, 0.20058945513474927,
     0.61785901942134225, 0.70012599207068005, 0.29185593508400304, 0.044757557248302882,
     0.0025250485935685565, 5.2405711658432153e-05},
    {9.4695187402373669e-06, 0.00066386451600902881, 0.017121291526835707, 0.16244229118390072,
     0.56697930702769361, 0.72801584095956129, 0.34389033313491874, 0.059759179303342111,
     0.0038202765203308063, 8.9844292304818712e-05},
    {5.188868129033276e-06, 0.00041220285162824586, 0.01204633311141814, 0.12951028612472462,
     0.5122231180306821, 0.74528023910360808, 0.39891976542957192, 0.078551959282801134,
     0.005690284845010528, 0.00015164095470627406},
};

/* Noise-free waveform of the current cluster at r. */
static double wave(const beam *b, double r)
{
    double s = 0.0;
    for (int j = b->c0; j < b->c1; ++j) {
        const wcontrib *c = &b->w[j];
        if (c->lo > r)
            break;
        if (c->hi < r)
            continue;
        s += contrib_value(b, c, r);
    }
    return s;
}

/* The band-limited unit noise at x = r / sigma from the nodes in buf (node k at buf[k & mask]). */
static double noise_at(const double *buf, unsigned mask, double x)
{
    double kf = floor(x);
    long long K = (long long)kf;
    double f = x - kf;
    double e1 = exp(-0.5 * f * f), e2 = exp(f), inv = 1.0 / e2;
    double s = buf[(unsigned long long)K & mask];
    double p = 1.0;
    for (int j = 1; j <= 5; ++j) {
        p *= e2;
        s += buf[(unsigned long long)(K + j) & mask] * p * GAUSS_INT[j];
    }
    p = 1.0;
    for (int j = 1; j <= 4; ++j) {
        p *= inv;
        s += buf[(unsigned long long)(K - j) & mask] * p * GAUSS_INT[j];
    }
    return PI_POW_M14 * e1 * s;
}

static void draw_nodes(beam *b, long long upto)
{
    while (b->k_next <= upto) {
        b->ring[(unsigned long long)b->k_next & (RING - 1)] = (double)lsim_rng_stream_normalf(b->rng);
        ++b->k_next;
    }
}

static double noisy(const beam *b, double xi, double n)
{
    return xi + b->k * sqrt(xi + b->B) * n;
}

/* The (noisy) waveform at any r, noise from buf. */
static double eval_f(const beam *b, double r, const double *buf, unsigned mask)
{
    double xi = wave(b, r);
    if (!b->noisy)
        return xi;
    return noisy(b, xi, noise_at(buf, mask, r * b->inv_sigma));
}

/* The crossing of T between ra and rb, where fa = s(ra) - T and fb = s(rb) - T have opposite
 * signs (> 0 above): Illinois (modified regula falsi), falling back to bisection, to b->tol. */
static double crossing(const beam *b, double ra, double fa, double rb, double fb, const double *buf, unsigned mask)
{
    int side = 0;
    double prev = ra;
    for (int it = 0; it < 100 && rb - ra > b->tol; ++it) {
        double r = (ra * fb - rb * fa) / (fb - fa);
        if (!(r > ra && r < rb))
            r = 0.5 * (ra + rb);
        double fr = eval_f(b, r, buf, mask) - b->T;
        if (fr == 0.0)
            return r;
        if ((fr > 0.0) == (fb > 0.0)) {
            rb = r;
            fb = fr;
            if (side == -1)
                fa *= 0.5;
            side = -1;
        } else {
            ra = r;
            fa = fr;
            if (side == 1)
                fb *= 0.5;
            side = 1;
        }
        if (it > 0 && fabs(r - prev) < 0.25 * b->tol)
            return r; /* converged (superlinearly) from one side */
        prev = r;
    }
    return 0.5 * (ra + rb);
}

/* Dominant contribution at r (or -1 when the echo is mostly noise). */
static int dominant_at(const beam *b, double r, double peak_value)
{
    double best = -1.0, xi = 0.0;
    int idx = -1;
    for (int j = b->c0; j < b->c1; ++j) {
        const wcontrib *c = &b->w[j];
        if (c->lo > r)
            break;
        if (c->hi < r)
            continue;
        double v = contrib_value(b, c, r);
        xi += v;
        if (v > best) {
            best = v;
            idx = c->index;
        }
    }
    if (b->noisy && !(xi >= 0.5 * peak_value))
        return -1;
    return idx;
}

/* Maximum of the waveform on [a, c] from x (inside): Brent's method (parabolic steps with
 * golden-section fallback) to b->tol; returns the position, *value the waveform there. */
static double brent_max(const beam *b, double a, double c, double x, const double *buf, unsigned mask,
                        double *value)
{
    const double cgold = 0.3819660112501051;
    const double tol1 = 0.5 * b->tol, tol2 = b->tol;
    double fx = -eval_f(b, x, buf, mask); /* minimise -s */
    double w = x, v = x, fw = fx, fv = fx, d = 0.0, e = 0.0;
    for (int it = 0; it < 100; ++it) {
        double xm = 0.5 * (a + c);
        if (fabs(x - xm) <= tol2 - 0.5 * (c - a))
            break;
        int golden = 1;
        if (fabs(e) > tol1) {
            double r = (x - w) * (fx - fv), q = (x - v) * (fx - fw), p = (x - v) * q - (x - w) * r;
            q = 2.0 * (q - r);
            if (q > 0.0)
                p = -p;
            else
                q = -q;
            double etemp = e;
            e = d;
            if (!(fabs(p) >= fabs(0.5 * q * etemp) || p <= q * (a - x) || p >= q * (c - x))) {
                d = p / q;
                double u = x + d;
                if (u - a < tol2 || c - u < tol2)
                    d = xm >= x ? tol1 : -tol1;
                golden = 0;
            }
        }
        if (golden) {
            e = x >= xm ? a - x : c - x;
            d = cgold * e;
        }
        double u = fabs(d) >= tol1 ? x + d : x + (d >= 0.0 ? tol1 : -tol1);
        double fu = -eval_f(b, u, buf, mask);
        if (fu <= fx) {
            if (u >= x)
                a = x;
            else
                c = x;
            v = w;
            fv = fw;
            w = x;
            fw = fx;
            x = u;
            fx = fu;
        } else {
            if (u < x)
                a = u;
            else
                c = u;
            if (fu <= fw || w == x) {
                v = w;
                fv = fw;
                w = u;
                fw = fu;
            } else if (fu <= fv || v == x || v == w) {
                v = u;
                fv = fu;
            }
        }
    }
    *value = -fx;
    return x;
}

/* Contributions on the grid, without an exp or erf a sample (the grid only locates the
 * intervals; crossings and peaks are refined on the closed form).
 * A point: exp(-d^2 / 2 sigma^2) at d, d + h, d + 2h, ... is g_{i+1} = g_i q_i, q_{i+1} = q_i Q,
 * Q = exp(-h^2 / sigma^2) (exact up to rounding, about 1e-14 over a window).
 * A spread w below sigma/2: the Gaussian times the series of the box average
 *   1 + v^2 He2(x)/24 + v^4 He4(x)/1920 + v^6 He6(x)/322560 + v^8 He8(x)/92897280
 * (x = d/sigma, v = w/sigma; next term v^10 He10 / 40874803200, about 2e-11 at the centre).
 * A wider spread (step h = sigma/8 only, else the closed form): its erf difference
 * D = erf(u1) - erf(u2) (u = edge offsets / sqrt2 sigma) starts from the closed form and follows
 * each edge by Euler-Maclaurin summation of exp(-t^2) over the steps du = h / (sqrt2 sigma):
 *   int_{ua}^{ui} f = du (sum_{a<=m<=i} f_m - (f_a + f_i)/2) + phi(u_i) f_i - phi(u_a) f_a,
 *   phi(u) = (du^2/6 + du^4/60 + du^6/252) u - (du^4/90 + du^6/189) u^3 + du^6/945 u^5
 * (the endpoint-derivative corrections up to f^(5) telescope; the first omitted one,
 * du^8/1209600 f^(7), leaves about 1e-13 on D), the edge Gaussians f_m by the recurrence above,
 * each edge only while |u| <= EDGE_U (outside, erf is flat to 1e-29).
 * Measured against the closed form: below 1e-11 of the amplitude. Recurrences start where they
 * are representable (exp(-x), x < 600). */
#define EDGE_U 8.0
#define SMALL_SPREAD_SIGMAS 0.5 /* spreads below sigma/2: Hermite series on the grid */
#define START_EXPONENT 600.0

typedef struct grid_edge {
    double f, q, S, J0; /* Gaussian, its ratio, running sum, offset of the integral */
    int mode;           /* 0: below -EDGE_U, 1: summing, 2: above EDGE_U (integral J0) */
} grid_edge;

typedef struct grid_state {
    double g[LSIM_RECEIVER_MAX_CONTRIBUTIONS], q[LSIM_RECEIVER_MAX_CONTRIBUTIONS]; /* points */
    grid_edge e1[LSIM_RECEIVER_MAX_CONTRIBUTIONS], e2[LSIM_RECEIVER_MAX_CONTRIBUTIONS];
    double D0[LSIM_RECEIVER_MAX_CONTRIBUTIONS];
    unsigned char started[LSIM_RECEIVER_MAX_CONTRIBUTIONS];
    double h, Q, du, alpha, beta, gamma; /* phi(u) = u (alpha - u^2 (beta - gamma u^2)) */
    int box_recurrence;
} grid_state;

/* Advances an edge to u (one grid step after the last call, or its first call); returns the
 * integral of exp(-t^2) from where it started summing to u. */
static inline double edge_step(const grid_state *gs, grid_edge *e, double u)
{
    double uu = u * u;
    double phi_minus_half = (gs->alpha - uu * (gs->beta - gs->gamma * uu)) * u - 0.5 * gs->du;
    if (e->mode == 1) {
        e->f *= e->q;
        e->q *= gs->Q;
        e->S += e->f;
        double J = e->J0 + gs->du * e->S + phi_minus_half * e->f;
        if (u > EDGE_U) {
            e->J0 = J;
            e->mode = 2;
        }
        return J;
    }
    if (e->mode == 2)
        return e->J0;
    if (u < -EDGE_U)
        return 0.0;
    e->f = exp(-u * u);
    e->q = exp(-(2.0 * u + gs->du) * gs->du);
    e->S = e->f;
    e->J0 = -(phi_minus_half + gs->du) * e->f; /* J = 0 here */
    e->mode = 1;
    return 0.0;
}

/* The noise-free waveform at the next grid sample r (samples visited in order, none skipped). */
static double wave_grid(const beam *b, double r, grid_state *gs)
{
    const double two_over_sqrt_pi = 1.1283791670955126;
    double s = 0.0;
    for (int j = b->c0; j < b->c1; ++j) {
        const wcontrib *c = &b->w[j];
        if (c->lo > r)
            break;
        if (c->hi < r)
            continue;
        int k = j - b->c0;
        double d = r - c->r;
        if (c->box && c->half_w >= SMALL_SPREAD_SIGMAS * 0.5 * b->sigma) {
            if (!gs->box_recurrence) {
                s += contrib_value(b, c, r);
                continue;
            }
            double u1 = (d + c->half_w) * b->inv_sqrt2_sigma, u2 = (d - c->half_w) * b->inv_sqrt2_sigma;
            if (!gs->started[k]) {
                gs->D0[k] = box_value(1.0, d, c->half_w, b->inv_sqrt2_sigma);
                gs->e1[k].mode = gs->e2[k].mode = 0;
                gs->started[k] = 1;
            }
            double J1 = edge_step(gs, &gs->e1[k], u1), J2 = edge_step(gs, &gs->e2[k], u2);
            s += c->coef * (gs->D0[k] + two_over_sqrt_pi * (J1 - J2));
            continue;
        }
        if (!gs->started[k]) {
            double x = d * d * b->inv_2s2;
            if (x > START_EXPONENT)
                continue; /* below 1e-260 of the amplitude */
            gs->g[k] = exp(-x);
            gs->q[k] = exp(-(2.0 * d + gs->h) * gs->h * b->inv_2s2);
            gs->started[k] = 1;
        }
        if (!c->box) {
            s += c->a * gs->g[k];
        } else { /* a narrow box: the Gaussian times its Hermite series in the spread */
            double x = d * b->inv_sigma, x2 = x * x, v = 2.0 * c->half_w * b->inv_sigma, v2 = v * v;
            double he2 = x2 - 1.0, he4 = (x2 - 6.0) * x2 + 3.0, he6 = ((x2 - 15.0) * x2 + 45.0) * x2 - 15.0;
            double he8 = (((x2 - 28.0) * x2 + 210.0) * x2 - 420.0) * x2 + 105.0;
            double series =
                1.0 + v2 * (he2 / 24.0 + v2 * (he4 / 1920.0 + v2 * (he6 / 322560.0 + v2 * he8 / 92897280.0)));
            s += c->a * gs->g[k] * series;
        }
        gs->g[k] *= gs->q[k];
        gs->q[k] *= gs->Q;
    }
    return s;
}

void lsim_pulse_scan_cluster(beam *b, double lo, double hi, selection *s)
{
    const double sigma = b->sigma;
    double h = sigma / GRID_PER_SIGMA;
    int aligned = 1;
    long long i0 = 0, n;
    if (hi - lo > (double)MAX_SAMPLES * h) {
        aligned = 0;
        h = (hi - lo) / MAX_SAMPLES;
        if (h > MAX_STEP_SIGMAS * sigma) {
            h = MAX_STEP_SIGMAS * sigma;
            hi = lo + (double)MAX_SAMPLES * h;
        }
        n = MAX_SAMPLES;
    } else {
        i0 = (long long)floor(lo / h);
        n = (long long)ceil(hi / h) - i0;
        if (n < 2)
            n = 2;
    }
#define R_AT(i) (aligned ? (double)(i0 + (i)) * h : lo + (double)(i) * h)
    const unsigned rmask = RING - 1;
    if (b->noisy)
        b->k_next = (long long)floor(R_AT(-1) * b->inv_sigma) - 5;
    grid_state gs;
    memset(gs.started, 0, sizeof gs.started);
    gs.h = h;
    gs.Q = exp(-2.0 * h * h * b->inv_2s2);
    gs.du = h * b->inv_sqrt2_sigma;
    double du2 = gs.du * gs.du, du4 = du2 * du2, du6 = du4 * du2;
    gs.alpha = du2 / 6.0 + du4 / 60.0 + du6 / 252.0;
    gs.beta = du4 / 90.0 + du6 / 189.0;
    gs.gamma = du6 / 945.0;
    gs.box_recurrence = aligned;

    double T = b->T;
    double r_prev = 0.0, f_prev = 0.0, r0 = 0.0, best_f = 0.0;
    long long best_i = 0;
    int inside = 0;
    for (long long i = 0; i <= n; ++i) {
        double r = R_AT(i), f = wave_grid(b, r, &gs);
        if (b->noisy) {
            draw_nodes(b, (long long)floor(R_AT(i + 1) * b->inv_sigma) + 5);
            double nz;
            if (aligned) {
                long long g = i0 + i;
                long long K = g >= 0 ? g / GRID_PER_SIGMA : -((-g + GRID_PER_SIGMA - 1) / GRID_PER_SIGMA);
                const double *wt = NOISE_W[g - K * GRID_PER_SIGMA];
                const double *z = b->ring;
                unsigned long long u = (unsigned long long)K;
                /* three partial sums: no single chain of dependent additions */
                double s0 = z[(u - 4) & rmask] * wt[0] + z[(u - 1) & rmask] * wt[3] + z[(u + 2) & rmask] * wt[6];
                double s1 = z[(u - 3) & rmask] * wt[1] + z[u & rmask] * wt[4] + z[(u + 3) & rmask] * wt[7];
                double s2 = z[(u - 2) & rmask] * wt[2] + z[(u + 1) & rmask] * wt[5] + z[(u + 4) & rmask] * wt[8] +
                            z[(u + 5) & rmask] * wt[9];
                nz = s0 + s1 + s2;
            } else {
                nz = noise_at(b->ring, rmask, r * b->inv_sigma);
            }
            f = noisy(b, f, nz);
        }
        int above = f > T;
        int new_best = 0;
        if (!inside) {
            if (above) {
                r0 = i == 0 ? r : crossing(b, r_prev, f_prev - T, r, f - T, b->ring, rmask);
                inside = 1;
                new_best = 1;
            }
        } else if (above) {
            new_best = f > best_f;
        }
        if (new_best) {
            best_f = f;
            best_i = i;
            if (b->noisy) { /* keep the nodes the peak search around sample i will need */
                long long ka = (long long)floor(R_AT(i - 1) * b->inv_sigma) - 4;
                long long kb = (long long)floor(R_AT(i + 1) * b->inv_sigma) + 5;
                for (long long k = ka; k <= kb; ++k)
                    b->snap[(unsigned long long)k & rmask] = b->ring[(unsigned long long)k & rmask];
            }
        }
        if (inside && (!above || i == n)) {
            double r1 = above ? r : crossing(b, r_prev, f_prev - T, r, f - T, b->ring, rmask);
            double a = R_AT(best_i - 1), c = R_AT(best_i + 1), x = R_AT(best_i);
            if (a < r0)
                a = r0;
            if (c > r1)
                c = r1;
            if (x < a || x > c)
                x = 0.5 * (a + c);
            double peak_f;
            double peak_r = brent_max(b, a, c, x, b->snap, rmask, &peak_f);
            consider(s, peak_r, peak_f, r1 - r0, dominant_at(b, peak_r, peak_f));
            inside = 0;
        }
        r_prev = r;
        f_prev = f;
    }
#undef R_AT
}
