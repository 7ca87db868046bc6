/* The pulsed receiver: echoes of one beam from its contributions (DESIGN.md §2, pbr paper §II-C
 * "echo pulse width").
 *
 * Waveform. The emitted pulse is a unit-peak Gaussian in range, sigma = FWHM / (2 sqrt(2 ln 2)),
 * FWHM = c tau / 2. A contribution j (range r_j, amplitude a_j, spread w_j) is that pulse
 * convolved with a normalised box of width w_j (a tilted surface spreads its return over w_j):
 *   g_j(r) = exp(-d^2 / 2 sigma^2)                                              (w_j = 0)
 *   g_j(r) = sigma sqrt(pi/2) / w_j [erf((d + w_j/2) / (sqrt2 sigma)) - erf((d - w_j/2) / (sqrt2 sigma))]
 * with d = r - r_j (written with erfc in the tails, so no cancellation). g_j -> the Gaussian as
 * w_j -> 0, so a_j is the peak of a point target; spreading lowers the peak (a_j g_j(0)) and
 * keeps the integral (a_j sigma sqrt(2 pi)). xi(r) = sum_j a_j g_j(r).
 *
 * Echoes. An echo is a maximal interval [r0, r1] where the waveform exceeds the threshold T:
 * range = the peak position inside it, power = the peak value, epw = r1 - r0, dominant = the
 * contribution with the largest a_j g_j at the peak. Contributions closer than about the pulse
 * width merge into one echo; separated ones give separate echoes.
 *
 * How. Each contribution counts inside its window, where a_j g_j >= 1e-6 T
 * (|d| <= w/2 + sigma sqrt(2 ln(A / 1e-6 T)), A a bound on its tail); contributions whose own
 * peak is below 1e-6 T are dropped. Windows that overlap form clusters, handled in range order.
 *  - Noise-free, a cluster of one contribution is solved in closed form: range r_j, power
 *    a_j g_j(0), half-width sigma sqrt(2 ln(a/T)) (w = 0) or the root of a_j g_j(d) = T by
 *    safeguarded Newton (w > 0).
 *  - Otherwise the cluster is sampled on a grid of step sigma/8 (point contributions by an exact
 *    product recurrence, spread ones by their closed form); both crossings of T are refined on the
 *    continuous closed form by Illinois regula falsi (bisection fallback) to 2e-6 m (sigma 1e-5 if
 *    smaller), the peak by Brent's method between the neighbours of the highest sample. An
 *    interval narrower than a grid step that no sample sees is missed (only when the peak is
 *    within a hair of T).
 *  - Grids are capped at 65536 samples per cluster: beyond it the step grows (up to 8 sigma) and,
 *    past that, the cluster is cut (only absurd spreads reach it).
 *
 * Contributions. At most LSIM_RECEIVER_MAX_CONTRIBUTIONS (64) per call, the strongest by their
 * own peak a_j g_j(0) (ties keep the lower index). Ignored: amplitude not finite or <= 0, range not
 * finite or |range| > 1e9 m, spread > 1e6 m (a NaN or negative spread counts as 0).
 *
 * Ambient light and noise (only with rng != NULL and shot_noise > 0; the background itself is a
 * DC level the receiver removes, it acts through its shot noise). The sampled waveform becomes
 *   s(r) = xi(r) + shot_noise sqrt(xi(r) + background) n(r),
 * n a unit-variance Gaussian process band-limited to the pulse: independent N(0,1) nodes z_k
 * (drawn from the stream in range order) at spacing sigma, smoothed by a Gaussian of std sigma,
 *   n(r) = pi^(-1/4) sum_k z_k exp(-(r/sigma - k)^2 / 2),
 * i.e. white noise through a front end matched to the pulse; correlation exp(-tau^2 / 4 sigma^2),
 * correlation length l = sqrt2 sigma. n is continuous, so the same detection (grid, regula falsi,
 * Brent) runs on s(r) and the result does not depend on the grid step; noise samples are
 * not independent per grid sample (white noise at sigma/8 would split echoes at every crossing and
 * make drop-outs vanishingly rare). Noise-only intervals inside the sampled windows come out of
 * that detection by themselves. Noisy clusters merge windows closer than 12 sigma (no node is
 * shared between clusters).
 * Outside the sampled windows, in [0, max_range], the waveform is pure background noise of std
 * s_n = shot_noise sqrt(background); its up-crossings of T are a Poisson process of rate (Rice)
 *   nu = exp(-u^2 / 2) / (2 pi l),   u = T / s_n,
 * so K ~ Poisson(nu L_out) false echoes (L_out = the length of [0, max_range] outside the windows)
 * are placed uniformly there; each has the high-level excursion shape of a Gaussian process:
 * excess over T = s_n^2 E / T, width 2 l sqrt(2E) / u (capped at 8 sigma), E ~ Exp(1); power =
 * T + excess, epw = width, dominant = -1. When K > 32 only the 16 nearest and the 16 farthest are
 * drawn (exact order statistics); the others could be neither first, last nor among the 16
 * nearest, only "strongest" among equally distributed noise spikes. Poisson draws: inversion
 * below a mean of 30, the normal approximation above (means capped at 1e9).
 * An echo found in the sampled window whose signal part xi(peak) is less than half its peak
 * value (mostly noise) is a false echo too (dominant -1).
 *
 * Selection (mode): first = nearest, last = farthest, strongest = highest power (ties: nearest),
 * dual = strongest and last, or strongest and second strongest if they are the same echo, all =
 * the nearest max_returns; output nearest first. Candidates stream through a fixed selection
 * state, so any number of them fits without allocation.
 *
 * Invalid receiver parameters (pulse width not in [1e-3, 1e6] ns, threshold not finite or <= 0,
 * unknown mode) give no echoes: the sensor configuration validates them. max_returns is clamped
 * to 1..LSIM_MAX_RETURNS. Noise-free output is a pure function of the inputs; noisy output is a
 * pure function of the inputs and the stream. No allocation, no global mutable state. */
#include "receiver/pulsed.h"

#include "receiver/pulse_moments.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define C_LIGHT 299792458.0
#define FWHM_PER_SIGMA 2.3548200450309493 /* 2 sqrt(2 ln 2) */
#define GRID_PER_SIGMA 8
#define MAX_SAMPLES 65536
#define MAX_STEP_SIGMAS 8.0
#define NOISE_MERGE_SIGMAS 12.0
#define RING 64 /* noise nodes kept (power of two) */
#define MAX_CLUSTERS LSIM_RECEIVER_MAX_CONTRIBUTIONS
#define FALSE_HALF 16 /* false echoes drawn at each end when there are many */
#define MAX_ABS_RANGE 1e9
#define MAX_SPREAD 1e6

static const double SQRT_PI_OVER_2 = 1.2533141373155003;
static const double SQRT_2PI = 2.5066282746310002;
static const double INV_SQRT2 = 0.70710678118654752;
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

/* A contribution prepared for the waveform. */
typedef struct wcontrib {
    double r;      /* centre */
    double a;      /* point amplitude */
    double half_w; /* half the spread; 0 for a point pulse */
    double coef;   /* box: a sigma sqrt(pi/2) / w */
    double peak;   /* its own peak a g(0) */
    double lo, hi; /* window */
    int box;
    int index; /* in the caller's array */
} wcontrib;

/* One candidate echo. */
typedef struct cand {
    double range, power, epw;
    int dominant;
    int id;
} cand;

/* Streaming selection: the nearest LSIM_MAX_RETURNS, the farthest, the two strongest. */
typedef struct selection {
    cand near[LSIM_MAX_RETURNS];
    int n_near;
    cand last;
    cand top[2];
    int n_top;
    int next_id;
} selection;

typedef struct beam {
    double sigma, inv_sigma, inv_2s2, inv_sqrt2_sigma;
    double T, tol;
    int noisy;
    double k, B;
    lsim_rng_stream *rng;
    const wcontrib *w;
    int c0, c1; /* current cluster */
    /* noise nodes: node k lives in ring[k & (RING - 1)] */
    double ring[RING];
    long long k_next; /* next node to draw */
    double snap[RING];
} beam;

static double pulse_sigma(double pulse_width_ns)
{
    return C_LIGHT * pulse_width_ns * 1e-9 * 0.5 / FWHM_PER_SIGMA;
}

double lsim_pulse_range_fwhm(double pulse_width_ns)
{
    return C_LIGHT * pulse_width_ns * 1e-9 * 0.5;
}

double lsim_pulse_range_sigma(double pulse_width_ns)
{
    return lsim_pulse_range_fwhm(pulse_width_ns) / FWHM_PER_SIGMA;
}

static int receiver_valid(const lsim_receiver *rx)
{
    if (!rx)
        return 0;
    if (!(rx->pulse_width_ns >= 1e-3 && rx->pulse_width_ns <= 1e6))
        return 0;
    if (!(rx->threshold > 0.0 && rx->threshold <= DBL_MAX))
        return 0;
    if ((int)rx->mode < (int)LSIM_RETURN_FIRST || (int)rx->mode > (int)LSIM_RETURN_ALL)
        return 0;
    return 1;
}

/* The unit-amplitude shape of a box of half-width hw, at offset d, times coef (box only). */
static double box_value(double coef, double d, double hw, double inv_sqrt2_sigma)
{
    double x1 = (d + hw) * inv_sqrt2_sigma;
    double x2 = (d - hw) * inv_sqrt2_sigma;
    double diff;
    if (x2 >= 0.0)
        diff = erfc(x2) - erfc(x1);
    else if (x1 <= 0.0)
        diff = erfc(-x1) - erfc(-x2);
    else
        diff = erf(x1) - erf(x2);
    return coef * diff;
}

static double contrib_value(const beam *b, const wcontrib *c, double r)
{
    double d = r - c->r;
    if (!c->box)
        return c->a * exp(-d * d * b->inv_2s2);
    return box_value(c->coef, d, c->half_w, b->inv_sqrt2_sigma);
}

/* Prepares contribution src (index idx); returns 0 if it is ignored. */
static int prepare(const beam *b, const lsim_contribution *src, int idx, wcontrib *out)
{
    double a = src->amplitude, r = src->range, w = src->spread;
    if (!(a > 0.0) || !isfinite(a))
        return 0;
    if (!isfinite(r) || fabs(r) > MAX_ABS_RANGE)
        return 0;
    if (!(w > 0.0))
        w = 0.0;
    if (w > MAX_SPREAD)
        return 0;
    out->r = r;
    out->a = a;
    out->index = idx;
    double amp_bound; /* bounds a g(d) by amp_bound exp(-(|d| - w/2)^2 / 2 sigma^2) beyond w/2 */
    if (w <= 1e-4 * b->sigma) {
        out->box = 0;
        out->half_w = 0.0;
        out->coef = 0.0;
        out->peak = a;
        amp_bound = a;
    } else {
        out->box = 1;
        out->half_w = 0.5 * w;
        out->coef = a * b->sigma * SQRT_PI_OVER_2 / w;
        out->peak = 2.0 * out->coef * erf(out->half_w * b->inv_sqrt2_sigma);
        double f = b->sigma * SQRT_2PI / (2.0 * w);
        amp_bound = a * (f < 1.0 ? f : 1.0);
    }
    if (!(out->peak >= WINDOW_EPS * b->T))
        return 0;
    double ln_ratio = log(amp_bound) - log(b->T) - LN_WINDOW_EPS;
    double reach = out->half_w + b->sigma * sqrt(2.0 * (ln_ratio > 0.0 ? ln_ratio : 0.0));
    out->lo = r - reach;
    out->hi = r + reach;
    return 1;
}

/* Is x stronger than y (by own peak; ties: lower index)? */
static int stronger(const wcontrib *x, const wcontrib *y)
{
    return x->peak > y->peak || (x->peak == y->peak && x->index < y->index);
}

static void heap_sift_down(wcontrib *h, int n, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && stronger(&h[m], &h[l]))
            m = l;
        if (r < n && stronger(&h[m], &h[r]))
            m = r;
        if (m == i)
            return;
        wcontrib t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

static void heap_sift_up(wcontrib *h, int i)
{
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!stronger(&h[p], &h[i]))
            return;
        wcontrib t = h[i];
        h[i] = h[p];
        h[p] = t;
        i = p;
    }
}

/* The valid contributions, at most LSIM_RECEIVER_MAX_CONTRIBUTIONS strongest, sorted by window start. */
static int gather(const beam *b, const lsim_contribution *c, int count, wcontrib *w)
{
    int n = 0;
    for (int i = 0; i < count; ++i) {
        wcontrib x;
        if (!prepare(b, &c[i], i, &x))
            continue;
        if (n < LSIM_RECEIVER_MAX_CONTRIBUTIONS) {
            w[n] = x; /* min-heap on strength: the weakest at the root */
            heap_sift_up(w, n);
            ++n;
        } else if (stronger(&x, &w[0])) {
            w[0] = x;
            heap_sift_down(w, n, 0);
        }
    }
    for (int i = 1; i < n; ++i) { /* insertion sort by (lo, index) */
        wcontrib x = w[i];
        int j = i - 1;
        while (j >= 0 && (w[j].lo > x.lo || (w[j].lo == x.lo && w[j].index > x.index))) {
            w[j + 1] = w[j];
            --j;
        }
        w[j + 1] = x;
    }
    return n;
}

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

static int cand_before(const cand *x, const cand *y) /* nearer */
{
    return x->range < y->range || (x->range == y->range && x->id < y->id);
}

static int cand_stronger(const cand *x, const cand *y)
{
    return x->power > y->power || (x->power == y->power && cand_before(x, y));
}

static void consider(selection *s, double range, double power, double epw, int dominant)
{
    cand c = {range, power, epw, dominant, s->next_id++};
    /* nearest LSIM_MAX_RETURNS, sorted */
    if (s->n_near < LSIM_MAX_RETURNS || cand_before(&c, &s->near[s->n_near - 1])) {
        int i = s->n_near < LSIM_MAX_RETURNS ? s->n_near++ : LSIM_MAX_RETURNS - 1;
        while (i > 0 && cand_before(&c, &s->near[i - 1])) {
            s->near[i] = s->near[i - 1];
            --i;
        }
        s->near[i] = c;
    }
    if (c.id == 0 || cand_before(&s->last, &c))
        s->last = c;
    if (s->n_top == 0 || cand_stronger(&c, &s->top[0])) {
        s->top[1] = s->top[0];
        s->top[0] = c;
        s->n_top = s->n_top ? 2 : 1;
    } else if (s->n_top == 1 || cand_stronger(&c, &s->top[1])) {
        s->top[1] = c;
        s->n_top = 2;
    }
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

/* Noise-free echo of a lone contribution, in closed form. */
static void lone_echo(const beam *b, const wcontrib *c, selection *s)
{
    double T = b->T;
    if (!(c->peak > T))
        return;
    double half;
    if (!c->box) {
        half = b->sigma * sqrt(2.0 * log(c->a / T));
    } else {
        /* a g(d) = T for d in (0, hi]: g decreasing in |d|; a g(hi) <= T by the tail bound */
        double lo = 0.0, hi = c->half_w + b->sigma * sqrt(2.0 * fmax(log(c->a / T), 0.0)) + b->tol;
        double d = 0.5 * (lo + hi);
        for (int it = 0; it < 100; ++it) {
            double f = box_value(c->coef, d, c->half_w, b->inv_sqrt2_sigma) - T;
            if (f > 0.0)
                lo = d;
            else
                hi = d;
            double e1 = exp(-(d + c->half_w) * (d + c->half_w) * b->inv_2s2);
            double e2 = exp(-(d - c->half_w) * (d - c->half_w) * b->inv_2s2);
            double slope = c->a / (2.0 * c->half_w) * (e1 - e2);
            double next = slope < 0.0 ? d - f / slope : 0.5 * (lo + hi);
            if (!(next > lo && next < hi))
                next = 0.5 * (lo + hi);
            if (fabs(next - d) < 1e-9 * (1.0 + d) || hi - lo < 1e-12 * (1.0 + d)) {
                d = next;
                break;
            }
            d = next;
        }
        half = d;
    }
    consider(s, c->r, c->peak, 2.0 * half, c->index);
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

/* Sampled detection over one cluster [lo, hi]. */
static void scan_cluster(beam *b, double lo, double hi, selection *s)
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

static double u01(lsim_rng_stream *s)
{
    uint32_t a = lsim_rng_stream_u32(s);
    uint32_t c = lsim_rng_stream_u32(s);
    return lsim_u32_to_open01(a, c);
}

static long long poisson(lsim_rng_stream *s, double mean)
{
    if (!(mean > 0.0))
        return 0;
    if (mean < 30.0) {
        double limit = exp(-mean), p = 1.0;
        long long k = 0;
        for (;;) {
            p *= u01(s);
            if (p <= limit)
                return k;
            ++k;
        }
    }
    if (mean > 1e9)
        mean = 1e9;
    double v = floor(mean + sqrt(mean) * (double)lsim_rng_stream_normalf(s) + 0.5);
    return v < 0.0 ? 0 : (long long)v;
}

/* Windows (sorted, disjoint) -> the outside of [0, rmax]: its length, and the map from
 * t in [0, length) to a range. */
static double outside_length(const double *wlo, const double *whi, int nw, double rmax)
{
    double cur = 0.0, len = 0.0;
    for (int i = 0; i < nw; ++i) {
        double g_end = fmin(fmax(wlo[i], cur), rmax);
        len += g_end - cur;
        cur = fmax(cur, fmin(fmax(whi[i], cur), rmax));
    }
    return len + (rmax - cur);
}

static double outside_map(const double *wlo, const double *whi, int nw, double rmax, double t)
{
    double cur = 0.0;
    for (int i = 0; i < nw; ++i) {
        double g_end = fmin(fmax(wlo[i], cur), rmax);
        if (t < g_end - cur)
            return cur + t;
        t -= g_end - cur;
        cur = fmax(cur, fmin(fmax(whi[i], cur), rmax));
    }
    return fmin(cur + t, rmax);
}

/* A false echo at range: u = T / s_n, E ~ Exp(1) sets its excess over T and its width. */
static void false_echo(beam *b, selection *s, double range, double u)
{
    double E = -log(u01(b->rng));
    double sn2 = b->k * b->k * b->B;
    double width = 2.0 * sqrt(2.0) * b->sigma * sqrt(2.0 * E) / u;
    if (!(width <= 8.0 * b->sigma))
        width = 8.0 * b->sigma;
    consider(s, range, b->T + sn2 * E / b->T, width, -1);
}

/* False echoes from the background outside the sampled windows (Rice's up-crossing rate). */
static void ambient_false_echoes(beam *b, const double *wlo, const double *whi, int nw, double rmax,
                                 selection *s)
{
    double sn = b->k * sqrt(b->B);
    if (!(sn > 0.0) || !(rmax > 0.0))
        return;
    double L = outside_length(wlo, whi, nw, rmax);
    if (!(L > 0.0))
        return;
    double u = b->T / sn;
    double ell = sqrt(2.0) * b->sigma;
    double mean = L * exp(-0.5 * u * u) / (6.283185307179586 * ell);
    long long K = poisson(b->rng, mean);
    if (K <= 2 * FALSE_HALF) {
        for (long long i = 0; i < K; ++i)
            false_echo(b, s, outside_map(wlo, whi, nw, rmax, u01(b->rng) * L), u);
        return;
    }
    /* the FALSE_HALF smallest of K uniforms, in order, then the FALSE_HALF largest of the rest */
    double U = 0.0;
    for (int i = 0; i < FALSE_HALF; ++i) {
        U = 1.0 - (1.0 - U) * pow(u01(b->rng), 1.0 / (double)(K - i));
        false_echo(b, s, outside_map(wlo, whi, nw, rmax, U * L), u);
    }
    double base = U, M = 1.0;
    for (int i = 0; i < FALSE_HALF; ++i) {
        M *= pow(u01(b->rng), 1.0 / (double)(K - FALSE_HALF - i));
        double t = base + (1.0 - base) * M;
        false_echo(b, s, outside_map(wlo, whi, nw, rmax, t * L), u);
    }
}

static int write_echo(const cand *c, lsim_echo *out)
{
    out->range = (float)c->range;
    out->power = (float)c->power;
    out->epw = (float)c->epw;
    out->dominant = c->dominant;
    return 1;
}

static void beam_init(beam *b, const lsim_receiver *rx)
{
    /* the noise rings are written before they are read: not cleared */
    b->noisy = 0;
    b->k = b->B = 0.0;
    b->rng = NULL;
    b->w = NULL;
    b->c0 = b->c1 = 0;
    b->k_next = 0;
    b->sigma = pulse_sigma(rx->pulse_width_ns);
    b->inv_sigma = 1.0 / b->sigma;
    b->inv_2s2 = 0.5 / (b->sigma * b->sigma);
    b->inv_sqrt2_sigma = INV_SQRT2 / b->sigma;
    b->T = rx->threshold;
    b->tol = fmin(2e-6, 1e-5 * b->sigma);
}

/* The whole noise-free beam when its valid contributions are points within FAST_SPAN_SIGMAS
 * sigma (before gather(): no heap, no sort, no window): the echoes written (0 or 1), or -1 when
 * the general path must run. */
static int fast_beam(const beam *b, const lsim_contribution *c, int count, lsim_echo *out)
{
    if (count < 2 || count > LSIM_RECEIVER_MAX_CONTRIBUTIONS)
        return -1;
    const double T = b->T, sigma = b->sigma;
    const lsim_pulse_shape shape = {b->sigma, b->inv_sigma, b->inv_2s2, b->T, b->tol};
    lsim_moment_set f;
    lsim_moment_set_init(&f);
    for (int i = 0; i < count; ++i) { /* what prepare() keeps */
        double a = c[i].amplitude, r = c[i].range, w = c[i].spread;
        if (!(a > 0.0) || !isfinite(a) || !isfinite(r) || fabs(r) > MAX_ABS_RANGE)
            continue;
        if (!(w > 0.0))
            w = 0.0;
        if (w > MAX_SPREAD)
            continue;
        if (!(w <= 1e-4 * sigma))
            return -1; /* a spread (box) contribution */
        if (!(a >= WINDOW_EPS * T))
            continue;
        lsim_moment_set_add(&f, a, r, i);
    }
    if (f.n < 2)
        return -1; /* none or one: the general path is already cheap */
    double range, power, epw;
    int dominant;
    int m = lsim_moment_solve(&shape, &f, &range, &power, &epw, &dominant);
    if (m == 1) {
        out->range = (float)range;
        out->power = (float)power;
        out->epw = (float)epw;
        out->dominant = dominant;
    }
    return m;
}

/* A noise-free cluster of several point contributions within FAST_SPAN_SIGMAS sigma (w[c0..c1),
 * sorted by window start): its echo into the selection; 0 when the sampled path must run. */
static int fast_cluster(const beam *b, int c0, int c1, selection *s)
{
    const lsim_pulse_shape shape = {b->sigma, b->inv_sigma, b->inv_2s2, b->T, b->tol};
    lsim_moment_set f;
    lsim_moment_set_init(&f);
    double lo[LSIM_RECEIVER_MAX_CONTRIBUTIONS];
    for (int j = c0; j < c1; ++j) {
        const wcontrib *w = &b->w[j];
        if (w->box)
            return 0;
        lo[f.n] = w->lo;
        lsim_moment_set_add(&f, w->a, w->r, w->index);
    }
    f.lo = lo;
    double range, power, epw;
    int dominant;
    int m = lsim_moment_solve(&shape, &f, &range, &power, &epw, &dominant);
    if (m < 0)
        return 0;
    if (m == 1)
        consider(s, range, power, epw, dominant);
    return 1;
}

static int receiver_echoes(const lsim_receiver *rx, const lsim_contribution *c, int count, lsim_rng_stream *rng,
                           lsim_echo *out, int fast)
{
    if (!out || !receiver_valid(rx))
        return 0;
    if (!c || count < 0)
        count = 0;
    int max_returns = rx->max_returns;
    if (max_returns < 1)
        max_returns = 1;
    if (max_returns > LSIM_MAX_RETURNS)
        max_returns = LSIM_MAX_RETURNS;

    beam b;
    beam_init(&b, rx);
    b.noisy = rng && rx->shot_noise > 0.0 && rx->shot_noise <= DBL_MAX;
    if (b.noisy) {
        b.k = rx->shot_noise;
        b.B = rx->background > 0.0 && rx->background <= DBL_MAX ? rx->background : 0.0;
        b.rng = rng;
    }
    if (fast && !b.noisy) {
        int m = fast_beam(&b, c, count, out);
        if (m >= 0)
            return m;
    }

    wcontrib w[LSIM_RECEIVER_MAX_CONTRIBUTIONS];
    int n = gather(&b, c, count, w);
    b.w = w;

    /* clusters of overlapping windows (noisy: closer than NOISE_MERGE_SIGMAS) */
    double merge = b.noisy ? NOISE_MERGE_SIGMAS * b.sigma : 0.0;
    double wlo[MAX_CLUSTERS], whi[MAX_CLUSTERS];
    int wc0[MAX_CLUSTERS], wc1[MAX_CLUSTERS];
    int nw = 0;
    for (int j = 0; j < n; ++j) {
        if (nw > 0 && w[j].lo <= whi[nw - 1] + merge) {
            if (w[j].hi > whi[nw - 1])
                whi[nw - 1] = w[j].hi;
            wc1[nw - 1] = j + 1;
        } else {
            wlo[nw] = w[j].lo;
            whi[nw] = w[j].hi;
            wc0[nw] = j;
            wc1[nw] = j + 1;
            ++nw;
        }
    }

    selection s;
    memset(&s, 0, sizeof s);
    for (int k = 0; k < nw; ++k) {
        b.c0 = wc0[k];
        b.c1 = wc1[k];
        if (!b.noisy && wc1[k] - wc0[k] == 1)
            lone_echo(&b, &w[wc0[k]], &s);
        else if (!(fast && !b.noisy && fast_cluster(&b, wc0[k], wc1[k], &s)))
            scan_cluster(&b, wlo[k], whi[k], &s);
    }
    if (b.noisy) {
        double rmax = rx->max_range;
        if (!(rmax > 0.0) || !isfinite(rmax))
            rmax = 0.0;
        if (rmax > MAX_ABS_RANGE)
            rmax = MAX_ABS_RANGE;
        ambient_false_echoes(&b, wlo, whi, nw, rmax, &s);
    }

    if (s.next_id == 0)
        return 0;
    int m = 0;
    switch (rx->mode) {
    case LSIM_RETURN_FIRST:
        m += write_echo(&s.near[0], &out[m]);
        break;
    case LSIM_RETURN_LAST:
        m += write_echo(&s.last, &out[m]);
        break;
    case LSIM_RETURN_STRONGEST:
        m += write_echo(&s.top[0], &out[m]);
        break;
    case LSIM_RETURN_DUAL: {
        const cand *x = &s.top[0], *y = NULL;
        if (s.last.id != s.top[0].id)
            y = &s.last;
        else if (s.n_top == 2)
            y = &s.top[1];
        if (y && max_returns >= 2) {
            if (cand_before(y, x)) {
                const cand *t = x;
                x = y;
                y = t;
            }
            m += write_echo(x, &out[m]);
            m += write_echo(y, &out[m]);
        } else {
            m += write_echo(x, &out[m]);
        }
        break;
    }
    case LSIM_RETURN_ALL:
        for (int i = 0; i < s.n_near && i < max_returns; ++i)
            m += write_echo(&s.near[i], &out[m]);
        break;
    }
    return m;
}

int lsim_receiver_echoes(const lsim_receiver *rx, const lsim_contribution *c, int count, lsim_rng_stream *rng,
                         lsim_echo *out)
{
    return receiver_echoes(rx, c, count, rng, out, 1);
}

int lsim_receiver_echoes_sampled(const lsim_receiver *rx, const lsim_contribution *c, int count,
                                 lsim_rng_stream *rng, lsim_echo *out)
{
    return receiver_echoes(rx, c, count, rng, out, 0);
}

double lsim_receiver_waveform(const lsim_receiver *rx, const lsim_contribution *c, int count, double r)
{
    if (!receiver_valid(rx) || !c || count <= 0)
        return 0.0;
    beam b;
    beam_init(&b, rx);
    double s = 0.0;
    for (int i = 0; i < count; ++i) {
        wcontrib x;
        double a = c[i].amplitude, w = c[i].spread;
        if (!(a > 0.0) || !isfinite(a) || !isfinite(c[i].range) || fabs(c[i].range) > MAX_ABS_RANGE)
            continue;
        if (!(w > 0.0))
            w = 0.0;
        if (w > MAX_SPREAD)
            continue;
        x.r = c[i].range;
        x.a = a;
        x.box = w > 1e-4 * b.sigma;
        x.half_w = x.box ? 0.5 * w : 0.0;
        x.coef = x.box ? a * b.sigma * SQRT_PI_OVER_2 / w : 0.0;
        s += contrib_value(&b, &x, r);
    }
    return s;
}
