/* The receiver's closed form for a beam with one return and no noise (the common case): the
 * echo of a single (box-spread) Gaussian pulse. Peak at the return's range; EPW from the
 * threshold crossing, solved by safeguarded Newton iterations on the closed-form waveform. */
#include "receiver/pulsed.h"

#include <math.h>

int lsim_receiver_single(const lsim_receiver *rx, const lsim_contribution *c, lsim_echo *out)
{
    const double a = c->amplitude, threshold = rx->threshold;
    if (!(a > threshold) || !isfinite(a))
        return 0;
    const double sigma = lsim_pulse_range_sigma(rx->pulse_width_ns);
    const double w = c->spread > 0.0f ? c->spread : 0.0;
    double x;
    out->range = c->range;
    out->dominant = 0;
    if (w < 1e-6 * sigma) { /* a point target: the Gaussian itself */
        out->power = (float)a;
        x = sigma * sqrt(2.0 * log(a / threshold));
        out->epw = (float)(2.0 * x);
        return 1;
    }
    const double k = sigma * sqrt(3.14159265358979323846 / 2.0) / w, s2 = sqrt(2.0) * sigma;
    const double peak = a * k * 2.0 * erf(0.5 * w / s2);
    if (!(peak > threshold))
        return 0;
    out->power = (float)peak;
    /* a g(x) = T for x > 0, g decreasing: bracket [0, hi], Newton with bisection fallback. The
     * start: w/2 past the Gaussian's crossing; for w < sigma, where the erf difference below is
     * accurate (a / T x sigma / w <= 1e6: rounding below 1e-10 of T), a Gaussian of the
     * box-convolved pulse's variance sigma^2 + w^2 / 12 instead (exact to O(w^4): two Newton
     * steps instead of four or five, the same root). */
    double lo = 0.0, hi = 0.5 * w + sigma * sqrt(2.0 * log(a / threshold)) + 6.0 * sigma;
    const double ln_ratio = 2.0 * log(fmax(peak / threshold, 1.0 + 1e-9));
    x = w < sigma && a * sigma <= 1e6 * threshold * w ? sqrt((sigma * sigma + w * w / 12.0) * ln_ratio)
                                                       : 0.5 * w + sigma * sqrt(ln_ratio);
    if (x > hi)
        x = 0.5 * (lo + hi);
    for (int it = 0; it < 60; ++it) {
        double f = a * k * (erf((x + 0.5 * w) / s2) - erf((x - 0.5 * w) / s2)) - threshold;
        if (f > 0.0)
            lo = x;
        else
            hi = x;
        double d = a / w * (exp(-(x + 0.5 * w) * (x + 0.5 * w) / (2.0 * sigma * sigma)) -
                            exp(-(x - 0.5 * w) * (x - 0.5 * w) / (2.0 * sigma * sigma)));
        double next = d < 0.0 ? x - f / d : 0.5 * (lo + hi);
        if (!(next > lo && next < hi))
            next = 0.5 * (lo + hi);
        if (fabs(next - x) < 1e-7 || hi - lo < 1e-7) {
            x = next;
            break;
        }
        x = next;
    }
    out->epw = (float)(2.0 * x);
    return 1;
}
