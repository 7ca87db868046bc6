/* Fog as a distributed return (see fog.h for the model and its sources). */
#include "optics/fog.h"

#include "geometry/engine.h"

#include <math.h>
#include <string.h>

/* Segment widths: at most FOG_GEOMETRIC x their start (h_soft falls like 1/R^2 beyond the overlap,
 * so equal ratios keep its change inside a segment small) and, where the density is high, at most
 * FOG_PULSE_SIGMAS pulse sigmas scaled by sqrt(peak / density): a box much wider than the pulse
 * would show its edges in the waveform where they matter. */
#define FOG_GEOMETRIC 0.2
#define FOG_PULSE_SIGMAS 2.0
#define FOG_PEAK_SAMPLES 1024

double lsim_fog_overlap(double start, double full, double r)
{
    if (!(r > start))
        return 0.0;
    if (r >= full)
        return 1.0;
    return (r - start) / (full - start);
}

double lsim_fog_density(const lsim_fog *fog, double r)
{
    if (!(r > 0.0))
        return 0.0;
    const double xi = fog->near.kind != LSIM_OVERLAP_NONE ? (double)lsim_overlap_at(&fog->near, (float)r)
                                                           : lsim_fog_overlap(fog->overlap_start, fog->overlap_full, r);
    return xi > 0.0 ? 3.14159265358979323846 * fog->backscatter * xi * exp(-2.0 * fog->extinction * r) / (r * r) : 0.0;
}

/* Integral of h_soft and of r h_soft over [lo, hi] by `panels` panels of 4-point Gauss-Legendre,
 * split at the overlap's knee R2 (the only kink inside the volume). */
static void integrate_panels(const lsim_fog *fog, double lo, double hi, int panels, double *mass, double *moment)
{
    static const double node[4] = {-0.8611363115940526, -0.3399810435848563, 0.3399810435848563, 0.8611363115940526};
    static const double weight[4] = {0.3478548451374538, 0.6521451548625461, 0.6521451548625461, 0.3478548451374538};
    const double step = (hi - lo) / panels;
    for (int p = 0; p < panels; ++p) {
        const double a = lo + p * step, half = 0.5 * step, mid = a + half;
        for (int k = 0; k < 4; ++k) {
            const double r = mid + half * node[k], h = lsim_fog_density(fog, r) * weight[k] * half;
            *mass += h;
            *moment += h * r;
        }
    }
}

static void integrate(const lsim_fog *fog, double lo, double hi, int panels, double *mass, double *centroid)
{
    double m = 0.0, mr = 0.0;
    const double knee = fog->overlap_full;
    if (lo < knee && knee < hi) {
        integrate_panels(fog, lo, knee, panels, &m, &mr);
        integrate_panels(fog, knee, hi, panels, &m, &mr);
    } else {
        integrate_panels(fog, lo, hi, panels, &m, &mr);
    }
    *mass = m;
    *centroid = m > 0.0 ? mr / m : 0.5 * (lo + hi);
}

void lsim_fog_setup(lsim_fog *fog, const lsim_fog_params *p)
{
    fog->extinction = p->extinction;
    fog->backscatter = p->backscatter;
    fog->overlap_start = p->overlap_start;
    fog->overlap_full = p->overlap_full > p->overlap_start ? p->overlap_full : p->overlap_start;
    memset(&fog->near, 0, sizeof fog->near);
    if (p->overlap && p->overlap->kind != LSIM_OVERLAP_NONE) { /* the sensor's overlap of every echo */
        fog->near = *p->overlap;
        fog->overlap_full = lsim_overlap_full_range(p->overlap);
        fog->overlap_start = LSIM_FOG_NEAR_START * fog->overlap_full;
    }
    fog->count = 0;
    const double start = fog->overlap_start, range_max = p->range_max;
    if (!(fog->backscatter > 0.0) || !(start > 0.0) || !(range_max > start))
        return;
    const double sigma = lsim_pulse_range_sigma(p->pulse_width_ns);
    const double area = sigma * 2.5066282746310002; /* the waveform of a uniform fog: density x this */
    const double floor_density = LSIM_FOG_NEGLIGIBLE * p->threshold / area;

    /* The density's peak: h_soft rises along the ramp and falls beyond it (one maximum). */
    double peak = 0.0, r_peak = start;
    const double ratio = pow(range_max / start, 1.0 / (FOG_PEAK_SAMPLES - 1));
    for (int i = 0; i < FOG_PEAK_SAMPLES + 1; ++i) {
        double r = i < FOG_PEAK_SAMPLES ? start * pow(ratio, i) : fmin(fog->overlap_full, range_max);
        double h = lsim_fog_density(fog, r);
        if (h > peak) {
            peak = h;
            r_peak = r;
        }
    }
    if (!(peak > floor_density))
        return; /* too thin to ever reach 1 % of the threshold */

    /* The fog's end: where the falling density reaches the floor (bisection), or the maximum range. */
    double end = range_max;
    if (lsim_fog_density(fog, range_max) < floor_density) {
        double a = r_peak, b = range_max;
        for (int i = 0; i < 60; ++i) {
            double m = 0.5 * (a + b);
            if (lsim_fog_density(fog, m) >= floor_density)
                a = m;
            else
                b = m;
        }
        end = b;
    }

    double lo = start;
    while (lo < end && fog->count < LSIM_FOG_MAX_SEGMENTS) {
        double w = FOG_GEOMETRIC * lo;
        double h = fmax(lsim_fog_density(fog, lo), lsim_fog_density(fog, fmin(lo + w, end)));
        if (h > 0.0)
            w = fmin(w, FOG_PULSE_SIGMAS * sigma * sqrt(peak / h));
        double hi = lo + w;
        if (lo < fog->overlap_full && hi > fog->overlap_full)
            hi = fog->overlap_full;
        if (hi > end || fog->count == LSIM_FOG_MAX_SEGMENTS - 1)
            hi = end;
        double mass, centroid;
        integrate(fog, lo, hi, 8, &mass, &centroid);
        lsim_fog_segment *s = &fog->segment[fog->count++];
        s->lo = (float)lo;
        s->hi = (float)hi;
        s->range = (float)centroid;
        s->amplitude = (float)mass;
        lo = hi;
    }
}

int lsim_fog_contributions(const lsim_fog *fog, float end, lsim_contribution *out)
{
    int n = 0;
    for (int k = 0; k < fog->count; ++k) {
        const lsim_fog_segment *s = &fog->segment[k];
        if (!(s->lo < end))
            break;
        float range = s->range, amplitude = s->amplitude, spread = s->hi - s->lo;
        if (s->hi > end) { /* the first surface cuts this segment: the volume ends there */
            double mass, centroid;
            integrate(fog, s->lo, end, 1, &mass, &centroid);
            range = (float)centroid;
            amplitude = (float)mass;
            spread = end - s->lo;
        }
        if (!(amplitude > 0.0f))
            continue;
        lsim_contribution *c = &out[n++];
        c->range = range;
        c->amplitude = amplitude;
        c->spread = spread;
        c->object = LSIM_NO_HIT;
        c->cos_incidence = 1.0f;
        c->nx = c->ny = c->nz = 0.0f;
    }
    return n;
}
