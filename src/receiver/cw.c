/* The continuous-wave receiver (see cw.h). */
#include "receiver/cw.h"

#include <math.h>

#define CW_C 299792458.0
#define CW_TWO_PI 6.283185307179586

double lsim_cw_unambiguous_range(const lsim_cw_receiver *rx)
{
    return CW_C / (2.0 * fabs(rx->freq_hz[0] - rx->freq_hz[1]));
}

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int lsim_cw_step(const lsim_cw_receiver *rx)
{
    const int n = rx->samples;
    for (int d = 0; d <= n; ++d) { /* the nearest integer to `periods` coprime with N, above first */
        if (rx->periods + d >= 1 && gcd(rx->periods + d, n) == 1)
            return rx->periods + d;
        if (rx->periods - d >= 1 && gcd(rx->periods - d, n) == 1)
            return rx->periods - d;
    }
    return 1;
}

/* The phase the discrete Fourier series estimates from N samples of a wave whose fundamental is
 * A sin(theta) - B cos(theta) (theta the sample's phase), each with noise N(0, sigma): sample n
 * is taken at n k / N periods, reordered into slot (n k) mod N, i.e. at theta = 2 pi slot / N.
 * Returns atan2(sum s cos theta, sum s sin theta) and the fundamental's amplitude. */
static double dft_phase(int n, int k, double a, double b, double sigma, lsim_rng_stream *rng, double *amplitude)
{
    double s_cos = 0.0, s_sin = 0.0;
    for (int i = 0; i < n; ++i) {
        const int slot = (int)(((long long)i * k) % n);
        const double theta = CW_TWO_PI * slot / n;
        const double st = sin(theta), ct = cos(theta);
        double sample = a * st - b * ct;
        if (rng && sigma > 0.0)
            sample += sigma * (double)lsim_rng_stream_normalf(rng);
        s_cos += sample * ct;
        s_sin += sample * st;
    }
    *amplitude = 2.0 * sqrt(s_cos * s_cos + s_sin * s_sin) / n;
    return atan2(s_cos, s_sin);
}

void lsim_cw_prepare(lsim_cw_receiver *rx)
{
    double amplitude;
    rx->step = lsim_cw_step(rx);
    rx->tx_phase = dft_phase(rx->samples, rx->step, 1.0, 0.0, 0.0, NULL, &amplitude); /* 0: a pure sine */
}

/* Phase shift (transmitted minus received, in [0, 2 pi)) and amplitude at frequency f. */
static double phase_shift(const lsim_cw_receiver *rx, const lsim_contribution *c, int count, double f,
                          lsim_rng_stream *rng, double *amplitude)
{
    /* the received wave: sum_j a_j sin(theta - phi_j) = A sin(theta) - B cos(theta) */
    double a = 0.0, b = 0.0;
    const double gain = rx->bias_gain > 0.0 ? rx->bias_gain : 1.0;
    for (int j = 0; j < count; ++j) {
        const double l = c[j].amplitude, rad = l * gain; /* its radiance, for the bias */
        if (!(l > 0.0) || !(c[j].range >= 0.0f))
            continue;
        const double phi = 2.0 * CW_TWO_PI * f * c[j].range / CW_C + rx->bias[0] + rx->bias[1] * rad + rx->bias[2] * rad * rad;
        a += l * cos(phi);
        b += l * sin(phi);
    }
    const double rxp = dft_phase(rx->samples, rx->step, a, b, rx->sample_noise, rng, amplitude);
    double d = fmod(rx->tx_phase - rxp, CW_TWO_PI);
    return d < 0.0 ? d + CW_TWO_PI : d;
}

int lsim_cw_measure(const lsim_cw_receiver *rx, const lsim_contribution *c, int count, lsim_rng_stream *rng,
                    lsim_echo *out)
{
    int strongest = -1;
    for (int j = 0; j < count; ++j)
        if (c[j].amplitude > 0.0f && (strongest < 0 || c[j].amplitude > c[strongest].amplitude))
            strongest = j;
    if (strongest < 0)
        return 0;
    double amp[2], shift[2];
    for (int k = 0; k < 2; ++k)
        shift[k] = phase_shift(rx, c, count, rx->freq_hz[k], rng, &amp[k]);
    const double amplitude = 0.5 * (amp[0] + amp[1]);
    if (!(amplitude >= rx->threshold) || !(amplitude > 0.0))
        return 0;
    /* the beat: (shift1 - shift2) = 4 pi (f1 - f2) R / c, unambiguous over c / (2 |f1 - f2|) */
    const double df = rx->freq_hz[0] - rx->freq_hz[1];
    double beat = fmod(df > 0.0 ? shift[0] - shift[1] : shift[1] - shift[0], CW_TWO_PI);
    if (beat < 0.0)
        beat += CW_TWO_PI;
    const double coarse = CW_C * beat / (2.0 * CW_TWO_PI * fabs(df));
    double range = 0.0;
    for (int k = 0; k < 2; ++k) { /* each frequency's fine range, unwrapped to the coarse one */
        const double half_wave = CW_C / (2.0 * rx->freq_hz[k]);
        const double fine = CW_C * shift[k] / (2.0 * CW_TWO_PI * rx->freq_hz[k]);
        range += 0.5 * (fine + half_wave * round((coarse - fine) / half_wave));
    }
    out->range = (float)range;
    out->power = (float)amplitude;
    out->epw = 0.0f;
    out->dominant = strongest;
    return 1;
}
