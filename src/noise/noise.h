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
    double range_min;          /* returns closer than this are not reported */
    uint64_t seed;
    uint32_t frame;
} lsim_noise_model;

/* Measurements of one frame per beam (SoA). */
typedef struct lsim_measurements {
    float *range;      /* measured range (noisy when enabled) */
    float *intensity;  /* measured intensity */
    uint8_t *detected; /* 1 if the beam produced a point */
} lsim_measurements;

/* Measure beams [begin, end) from their returns (range 0 means no hit). */
void lsim_noise_apply(const lsim_noise_model *model, const lsim_returns *returns, lsim_measurements *out,
                      size_t begin, size_t end);

#endif
