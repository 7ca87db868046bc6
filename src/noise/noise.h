/* Noise and drop-outs: Gaussian range noise along the ray, relative intensity noise, and
 * detection against the threshold of the range equation. Randomness is counter-based,
 * keyed by (seed, frame, beam, draw): identical for any thread count. */
#ifndef LSIM_NOISE_NOISE_H
#define LSIM_NOISE_NOISE_H

#include "optics/returns.h"

#include <stddef.h>
#include <stdint.h>

typedef struct lsim_noise_model {
    int enabled;               /* 0: exact geometry and intensity */
    double range_sigma;        /* metres */
    double intensity_sigma;    /* relative */
    double intensity_threshold;/* minimum detected intensity (range-equation units) */
    double range_min;          /* measured ranges below this are not reported */
    uint64_t seed;
    uint32_t frame;
} lsim_noise_model;

/* Measurements of one frame per beam (SoA). */
typedef struct lsim_measurements {
    float *range;      /* measured range (noisy when enabled) */
    float *intensity;  /* measured intensity */
    uint8_t *detected; /* 1 if the beam produced a point */
} lsim_measurements;

static inline lsim_measurements lsim_measurements_at(const lsim_measurements *m, size_t begin)
{
    lsim_measurements v = {m->range + begin, m->intensity + begin, m->detected + begin};
    return v;
}

/* Measure the `count` beams of a slice that starts at frame beam `first_beam` (the random key);
 * element k of every array is beam first_beam + k. Range 0 means no hit. Returns the number of
 * beams detected. */
size_t lsim_noise_apply(const lsim_noise_model *model, const lsim_returns *returns, size_t first_beam,
                        size_t count, lsim_measurements *out);

#endif
