/* Measured ray drop (scene key sensor.noise.drop; the table: sensor/sensor.h, lsim_drop_table): an
 * echo that the receiver reports and that survived every other drop-out (threshold, SNR,
 * calibrated material), its range measured (noise, the sensor's range steps), is removed with the
 * probability of its bin: the bin of the reported range, of the incidence angle (degrees, as the
 * `incidence` point field reports it) and of the hit material's reflectance
 * (lsim_drop_table_reflectance). A bin is the one whose lower edge is the last at or below the
 * value (no interpolation); a value below 0, or NaN, takes bin 0. Echoes of no surface (fog,
 * false echoes of sunlight) are not in the table and are kept.
 *
 * Its draw comes from a stream of its own, (seed, frame, beam | LSIM_DROP_TABLE_STREAM, echo),
 * echo = the echo's index among the receiver's echoes of the beam: no other draw uses that key, so
 * a sensor without a table draws exactly what it did before, and a table's draws do not depend on
 * the thread count or on which other echoes were dropped. */
#ifndef LSIM_NOISE_DROP_TABLE_H
#define LSIM_NOISE_DROP_TABLE_H

#include "core/rng.h"
#include "optics/brdf.h"
#include "sensor/sensor.h"

#include <stdint.h>

/* Bit 62 of the beam key of a beam's drop-table stream (bit 63 is the ambient stream's,
 * receiver/pulsed.h; beams number at most LSIM_SENSOR_MAX_BEAMS, far below 2^62). */
#define LSIM_DROP_TABLE_STREAM ((uint64_t)1 << 62)

/* The bin of `v` on n lower edges rising from edges[0] = 0. */
static inline int lsim_drop_table_bin(const double *edges, int n, double v)
{
    if (!(v >= edges[0])) /* below 0, or NaN */
        return 0;
    int lo = 0, hi = n; /* edges[lo] <= v < edges[hi] (edges[n] = infinity) */
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (edges[mid] <= v)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The drop rate of the bin of (range m, incidence deg, reflectance). */
static inline double lsim_drop_table_rate(const lsim_drop_table *t, double range, double incidence_deg,
                                          double reflectance)
{
    const int i = lsim_drop_table_bin(t->range_m, t->n_range, range);
    const int j = lsim_drop_table_bin(t->incidence_deg, t->n_incidence, incidence_deg);
    const int k = lsim_drop_table_bin(t->reflectance, t->n_reflectance, reflectance);
    return t->rate[((size_t)i * (size_t)t->n_incidence + (size_t)j) * (size_t)t->n_reflectance + (size_t)k];
}

/* The reflectance a material is binned by: its `reflectance` parameter where it has one (Lambertian,
 * Oren-Nayar, Cook-Torrance: the diffuse albedo; mirror: its reflectance); glass: its Fresnel
 * reflectance at normal incidence, ((ior - 1) / (ior + 1))^2 (0.04 for ior 1.5); retroreflector:
 * pi x peak, the reflectance a Lambertian surface would need to return as much head-on (942 for
 * the default peak of 300: the last, open-ended bin of any table whose edges stay below it). */
static inline double lsim_drop_table_reflectance(const lsim_brdf *b)
{
    switch (b->kind) {
    case LSIM_BRDF_GLASS: {
        const double r = (b->ior - 1.0) / (b->ior + 1.0);
        return r * r;
    }
    case LSIM_BRDF_RETROREFLECTOR: return 3.14159265358979323846 * b->peak;
    default: return b->reflectance;
    }
}

/* 1 if echo `echo` of `beam` is kept. Draws one Philox block only when its bin's rate is strictly
 * between 0 and 1. */
static inline int lsim_drop_table_keep(const lsim_drop_table *t, uint64_t seed, uint32_t frame, uint64_t beam,
                                       uint32_t echo, double range, double incidence_deg, double reflectance)
{
    const double p = lsim_drop_table_rate(t, range, incidence_deg, reflectance);
    if (!(p > 0.0))
        return 1;
    if (p >= 1.0)
        return 0;
    const lsim_u32x4 w = lsim_rng_words(seed, frame, beam | LSIM_DROP_TABLE_STREAM, echo);
    return !(lsim_u32_to_open01(w.v[0], w.v[1]) < p);
}

#endif
