/* Calibrated noise (thesis eq. 4.2-4.3): on a material measured with the real sensor, an echo
 * at incidence theta is dropped with the bin's drop rate, its range gets the bin's error
 * N(noise_mean_m, noise_std_m): the sensor's bias at that incidence (e.g. on specular surfaces)
 * and spread before its quantisation, which the scan repeats (calib/range_quant.h), and its
 * intensity is drawn from N(mu, sigma) of the bin, in the sensor's own intensity scale
 * (so a binary-intensity sensor like the RPLIDAR, 0 or 47, stays binary: sigma 0 gives mu).
 * Between bins the statistics are interpolated (the drop rate on the grid of half-bins, as it can
 * step within a bin); outside the measured angles the mean intensity comes from the fitted BRDF
 * (calib/calibration.h, lsim_calib_lookup). */
#ifndef LSIM_NOISE_CALIBRATED_H
#define LSIM_NOISE_CALIBRATED_H

#include "calib/calibration.h"
#include "core/rng.h"

#include <math.h>

/* The nearest range reported for an echo off the material: the sensor's range_min, or lower where
 * the real sensor returned nearer from this material (its calibration's reach_min_m, a reported,
 * rounded range: half a resolution step is allowed before the rounding). */
static inline float lsim_calib_range_min(const lsim_calib_material *m, float range_min, float resolution)
{
    float reach = (float)m->reach_min_m - 0.5f * resolution;
    return m->reach_min_m > 0.0 && reach < range_min ? reach : range_min;
}

/* Measure one echo in place; 1 if it is kept. With noise off: the bin's mean intensity, the
 * exact range, no drop-out. Draws one uniform and two deviates when enabled. */
static inline int lsim_noise_calibrated(const lsim_calib_material *m, float incidence_deg, int enabled,
                                        float range_min, float resolution, lsim_rng_stream *rng, float *range,
                                        float *intensity)
{
    lsim_calib_bin bin;
    lsim_calib_lookup(m, incidence_deg, &bin);
    float r = *range, in = (float)bin.mean_intensity;
    if (enabled) {
        float u = lsim_u32_to_open01f(lsim_rng_stream_u32(rng));
        float g0 = lsim_rng_stream_normalf(rng), g1 = lsim_rng_stream_normalf(rng);
        if (u < (float)bin.drop_rate)
            return 0;
        if (m->noise_fitted) { /* the error before the sensor's rounding, which the scan repeats */
            r += (float)bin.noise_mean_m + (float)bin.noise_std_m * g0;
        } else { /* an older file: the measured spread holds the quantisation (resolution^2 / 12) */
            double var = bin.std_range_m * bin.std_range_m - (double)resolution * resolution / 12.0;
            r += (float)bin.mean_range_m + (float)sqrt(var > 0.0 ? var : 0.0) * g0; /* the sensor's bias too */
        }
        /* N(mu, sigma) truncated at 0: a draw below 0 is drawn again (drop-outs come from the
         * bin's rate alone, not from the intensity's tail); after 4 tries the mean. */
        float draw = in + (float)bin.std_intensity * g1;
        for (uint32_t k = 0; k < 3 && draw < 0.0f; ++k)
            draw = in + (float)bin.std_intensity * lsim_rng_stream_normalf(rng);
        in = draw >= 0.0f ? draw : in;
    }
    *range = r;
    *intensity = in > 0.0f ? in : 0.0f; /* a sensor without intensities: 0 */
    return r > 0.0f && r >= lsim_calib_range_min(m, range_min, resolution);
}

#endif
