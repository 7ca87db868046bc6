/* Noise and gating of an echo (parametric model): Gaussian range noise along the beam,
 * relative intensity noise, then the receiver's gate on what it measured (a range below the
 * minimum, or at or below zero, or a peak under the threshold is no point). Randomness comes
 * from the beam's counter-based stream: identical for any thread count. */
#ifndef LSIM_NOISE_NOISE_H
#define LSIM_NOISE_NOISE_H

#include "core/rng.h"

typedef struct lsim_noise_model {
    int enabled;                /* 0: exact geometry and intensity */
    float range_sigma;          /* metres */
    float intensity_sigma;      /* relative */
    float intensity_threshold;  /* minimum detected intensity (range-equation units) */
    float range_min;            /* measured ranges below this are not reported */
} lsim_noise_model;

/* Measure one echo in place; 1 if it is kept as a point. Draws two deviates when enabled. */
static inline int lsim_noise_measure(const lsim_noise_model *m, lsim_rng_stream *rng, float *range, float *intensity)
{
    float r = *range, in = *intensity;
    if (m->enabled) {
        r += m->range_sigma * lsim_rng_stream_normalf(rng);
        float gain = 1.0f + m->intensity_sigma * lsim_rng_stream_normalf(rng);
        in *= gain > 0.0f ? gain : 0.0f;
    }
    *range = r;
    *intensity = in;
    return r > 0.0f && r >= m->range_min && in >= m->intensity_threshold && in > 0.0f;
}

#endif
