/* The pulsed receiver's false echoes from ambient light outside the sampled windows (pulsed.c's
 * opening comment, "Ambient light and noise"): K ~ Poisson(nu L_out) up-crossings of T placed
 * uniformly there, each with a Gaussian process's high-level excursion shape. */
#include "receiver/pulse_wave.h"

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
