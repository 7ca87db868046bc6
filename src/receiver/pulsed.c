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
 * A scan does not sample this noisy waveform: it adds the background's noise to the noise-free
 * echoes in closed form (lsim_receiver_ambient, pulse_ambient.c), the same false echoes outside
 * them, and keeps the SNR model for the signal's own noise, so that its frames are continuous in
 * the irradiance; the sampled model is the reference for tests.
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
#include "receiver/pulse_wave.h"

#include <float.h>
#include <math.h>
#include <string.h>

#define C_LIGHT 299792458.0
#define FWHM_PER_SIGMA 2.3548200450309493 /* 2 sqrt(2 ln 2) */
#define NOISE_MERGE_SIGMAS 12.0
#define MAX_CLUSTERS LSIM_RECEIVER_MAX_CONTRIBUTIONS
#define MAX_ABS_RANGE 1e9
#define MAX_SPREAD 1e6

static const double SQRT_PI_OVER_2 = 1.2533141373155003;
static const double SQRT_2PI = 2.5066282746310002;
static const double INV_SQRT2 = 0.70710678118654752;

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

int lsim_pulse_receiver_valid(const lsim_receiver *rx)
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

static int write_echo(const cand *c, lsim_echo *out)
{
    out->range = (float)c->range;
    out->power = (float)c->power;
    out->epw = (float)c->epw;
    out->dominant = c->dominant;
    return 1;
}

void lsim_pulse_beam_init(beam *b, const lsim_receiver *rx)
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

/* The echoes the mode selects from s, nearest first. */
int lsim_pulse_select(const selection *s, lsim_return_mode mode, int max_returns, lsim_echo *out)
{
    if (s->next_id == 0)
        return 0;
    int m = 0;
    switch (mode) {
    case LSIM_RETURN_FIRST:
        m += write_echo(&s->near[0], &out[m]);
        break;
    case LSIM_RETURN_LAST:
        m += write_echo(&s->last, &out[m]);
        break;
    case LSIM_RETURN_STRONGEST:
        m += write_echo(&s->top[0], &out[m]);
        break;
    case LSIM_RETURN_DUAL: {
        const cand *x = &s->top[0], *y = NULL;
        if (s->last.id != s->top[0].id)
            y = &s->last;
        else if (s->n_top == 2)
            y = &s->top[1];
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
        for (int i = 0; i < s->n_near && i < max_returns; ++i)
            m += write_echo(&s->near[i], &out[m]);
        break;
    }
    return m;
}

static int receiver_echoes(const lsim_receiver *rx, const lsim_contribution *c, int count, lsim_rng_stream *rng,
                           lsim_echo *out, int fast)
{
    if (!out || !lsim_pulse_receiver_valid(rx))
        return 0;
    if (!c || count < 0)
        count = 0;
    int max_returns = rx->max_returns;
    if (max_returns < 1)
        max_returns = 1;
    if (max_returns > LSIM_MAX_RETURNS)
        max_returns = LSIM_MAX_RETURNS;

    beam b;
    lsim_pulse_beam_init(&b, rx);
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
            lsim_pulse_scan_cluster(&b, wlo[k], whi[k], &s);
    }
    if (b.noisy) {
        double rmax = rx->max_range;
        if (!(rmax > 0.0) || !isfinite(rmax))
            rmax = 0.0;
        if (rmax > MAX_ABS_RANGE)
            rmax = MAX_ABS_RANGE;
        lsim_pulse_ambient_echoes(&b, wlo, whi, nw, rmax, &s);
    }

    return lsim_pulse_select(&s, rx->mode, max_returns, out);
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
    if (!lsim_pulse_receiver_valid(rx) || !c || count <= 0)
        return 0.0;
    beam b;
    lsim_pulse_beam_init(&b, rx);
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
