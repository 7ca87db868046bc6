#include "noise/noise.h"

#include "core/rng.h"

size_t lsim_noise_apply(const lsim_noise_model *model, const lsim_returns *ret, size_t first_beam, size_t count,
                        lsim_measurements *out)
{
    size_t detected = 0;
    const float threshold = (float)model->intensity_threshold;
    const float range_min = (float)model->range_min;
    const float rs = (float)model->range_sigma, is = (float)model->intensity_sigma;
    for (size_t i = 0; i < count; ++i) {
        float r = ret->range[i];
        float intensity = ret->intensity[i];
        if (r <= 0.0f) { /* no hit */
            out->range[i] = 0.0f;
            out->intensity[i] = 0.0f;
            out->detected[i] = 0;
            continue;
        }
        if (model->enabled) {
            lsim_rng_stream rng = lsim_rng_stream_make(model->seed, model->frame, (uint64_t)(first_beam + i));
            r += rs * lsim_rng_stream_normalf(&rng);
            float gain = 1.0f + is * lsim_rng_stream_normalf(&rng);
            intensity *= gain > 0.0f ? gain : 0.0f;
        }
        /* The receiver gates on what it measures: a range below the minimum (noise may take it
         * there, even below zero) or an echo under the threshold is no point. */
        uint8_t ok = r > 0.0f && r >= range_min && intensity >= threshold && intensity > 0.0f;
        out->range[i] = ok ? r : 0.0f;
        out->intensity[i] = ok ? intensity : 0.0f;
        out->detected[i] = ok;
        detected += ok;
    }
    return detected;
}
