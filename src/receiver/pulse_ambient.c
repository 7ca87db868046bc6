/* Ambient light on the pulsed receiver (pulsed.c's opening comment, "Ambient light and noise").
 *  - lsim_pulse_ambient_echoes: the false echoes outside the sampled windows, K ~ Poisson(nu L_out)
 *    up-crossings of T placed uniformly there, each with a Gaussian process's high-level
 *    excursion shape (the sampled noisy waveform's part beyond its windows).
 *  - lsim_receiver_ambient: the scan's model (pulsed.h), on a noise-free beam's echoes: the
 *    background's shot noise on each echo and the same false echoes outside them. */
#include "receiver/pulse_wave.h"

#include <float.h>
#include <string.h>

#define FALSE_HALF 16 /* false echoes drawn at each end when there are many */

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

void lsim_pulse_ambient_echoes(beam *b, const double *wlo, const double *whi, int nw, double rmax, selection *s)
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

/* Windows of the echoes (range -+ epw / 2), sorted by start. */
static int echo_windows(const lsim_echo *e, int m, double *wlo, double *whi)
{
    int n = 0;
    for (int i = 0; i < m; ++i) {
        double lo = e[i].range - 0.5 * e[i].epw, hi = e[i].range + 0.5 * e[i].epw;
        int j = n++;
        while (j > 0 && wlo[j - 1] > lo) {
            wlo[j] = wlo[j - 1];
            whi[j] = whi[j - 1];
            --j;
        }
        wlo[j] = lo;
        whi[j] = hi;
    }
    return n;
}

int lsim_receiver_ambient(const lsim_receiver *rx, const lsim_echo *in, int m, lsim_rng_stream *rng, lsim_echo *out)
{
    if (!out || !lsim_pulse_receiver_valid(rx) || m < 0 || (m > 0 && !in))
        return 0;
    if (m > LSIM_MAX_RETURNS)
        m = LSIM_MAX_RETURNS;
    const double k = rx->shot_noise, B = rx->background;
    const double sn = k > 0.0 && B > 0.0 && k <= DBL_MAX && B <= DBL_MAX ? k * sqrt(B) : 0.0;
    if (!(sn > 0.0) || !rng || !isfinite(sn)) {
        if (out != in)
            for (int i = 0; i < m; ++i)
                out[i] = in[i];
        return m;
    }
    beam b;
    lsim_pulse_beam_init(&b, rx);
    b.noisy = 1;
    b.k = k;
    b.B = B;
    b.rng = rng;
    /* each echo: two deviates, drawn whatever happens to it, so the stream stays aligned */
    const double jitter = 1.4142135623730951 * b.sigma;
    selection s;
    memset(&s, 0, sizeof s);
    double wlo[LSIM_MAX_RETURNS], whi[LSIM_MAX_RETURNS];
    int nw = echo_windows(in, m, wlo, whi);
    for (int i = 0; i < m; ++i) {
        const double z_range = (double)lsim_rng_stream_normalf(rng), z_peak = (double)lsim_rng_stream_normalf(rng);
        const double peak = in[i].power;
        double range = in[i].range;
        if (peak > 0.0)
            range += jitter * sn / peak * z_range;
        const double noisy_peak = peak + sn * z_peak;
        if (noisy_peak > b.T)
            consider(&s, range, noisy_peak, in[i].epw, in[i].dominant);
    }
    double rmax = rx->max_range;
    if (!(rmax > 0.0) || !isfinite(rmax))
        rmax = 0.0;
    if (rmax > 1e9)
        rmax = 1e9;
    lsim_pulse_ambient_echoes(&b, wlo, whi, nw, rmax, &s);
    int max_returns = rx->max_returns < 1 ? 1 : rx->max_returns > LSIM_MAX_RETURNS ? LSIM_MAX_RETURNS : rx->max_returns;
    lsim_echo sel[LSIM_MAX_RETURNS];
    int n = lsim_pulse_select(&s, rx->mode, max_returns, sel);
    for (int i = 0; i < n; ++i)
        out[i] = sel[i];
    return n;
}
