/* Noise and gating of an echo (parametric model): Gaussian range noise along the beam,
 * relative intensity noise, then the receiver's gate on what it measured (a range below the
 * minimum, or at or below zero, or a peak under the threshold is no point). Randomness comes
 * from the beam's counter-based stream: identical for any thread count. */
#ifndef LSIM_NOISE_NOISE_H
#define LSIM_NOISE_NOISE_H

#include "core/rng.h"

#include <math.h>

typedef struct lsim_noise_model {
    int enabled;                /* 0: exact geometry and intensity */
    float range_sigma;          /* metres (the SNR model: of a strong echo) */
    float intensity_sigma;      /* relative */
    float intensity_threshold;  /* minimum detected intensity (range-equation units) */
    float range_min;            /* measured ranges below this are not reported */
    /* SNR model (noise_floor > 0): an echo of peak P has SNR = P / noise_floor; its range noise is
     * sqrt(range_sigma^2 + (jitter / SNR)^2), with jitter = sqrt(2) x the pulse's sigma in range
     * (the time-of-arrival precision of a Gaussian pulse in white noise), and the floor's noise on
     * the peak, N(0, noise_floor), can take it under the threshold: an echo at the threshold is
     * kept half the time, one 1 noise_floor above it 84 % of the time. */
    float noise_floor;          /* threshold / SNR at threshold; 0: the constant model */
    float jitter;               /* metres */
} lsim_noise_model;

/* Measure one echo in place; 1 if it is kept as a point. Draws two deviates when enabled (three
 * with the SNR model). */
static inline int lsim_noise_measure(const lsim_noise_model *m, lsim_rng_stream *rng, float *range, float *intensity)
{
    float r = *range, in = *intensity;
    if (m->enabled && m->noise_floor > 0.0f) {
        const float inv_snr = m->noise_floor / in; /* in > 0: the receiver reports peaks above the threshold */
        const float j = m->jitter * inv_snr;
        r += sqrtf(m->range_sigma * m->range_sigma + j * j) * lsim_rng_stream_normalf(rng);
        float gain = 1.0f + m->intensity_sigma * lsim_rng_stream_normalf(rng);
        in = in * (gain > 0.0f ? gain : 0.0f) + m->noise_floor * lsim_rng_stream_normalf(rng);
    } else if (m->enabled) {
        r += m->range_sigma * lsim_rng_stream_normalf(rng);
        float gain = 1.0f + m->intensity_sigma * lsim_rng_stream_normalf(rng);
        in *= gain > 0.0f ? gain : 0.0f;
    }
    *range = r;
    *intensity = in;
    return r > 0.0f && r >= m->range_min && in >= m->intensity_threshold && in > 0.0f;
}

#endif
