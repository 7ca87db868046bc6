/* Sensor spec: defaults, deep copy, free, kind names, beam count. */
#include "sensor/sensor.h"

#include "core/context.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const double lsim_sensor_default_prism_hz[2] = {500.0, -309.0169943749474 /* -500 / golden ratio */};

const char *lsim_sensor_kind_name(lsim_sensor_kind kind)
{
    switch (kind) {
    case LSIM_SENSOR_ROTATING: return "rotating";
    case LSIM_SENSOR_PLANAR: return "planar";
    case LSIM_SENSOR_CAMERA: return "camera";
    case LSIM_SENSOR_PATTERN: return "pattern";
    case LSIM_SENSOR_ROSETTE: return "rosette";
    }
    return "unknown";
}

size_t lsim_sensor_spec_beam_count(const lsim_sensor_spec *spec)
{
    switch (spec->kind) {
    case LSIM_SENSOR_ROTATING:
        return spec->channels > 0 && spec->columns > 0 ? (size_t)spec->channels * (size_t)spec->columns : 0;
    case LSIM_SENSOR_PLANAR: return spec->steps > 0 ? (size_t)spec->steps : 0;
    case LSIM_SENSOR_CAMERA:
        return spec->width > 0 && spec->height > 0 ? (size_t)spec->width * (size_t)spec->height : 0;
    case LSIM_SENSOR_PATTERN: return spec->pattern_count;
    case LSIM_SENSOR_ROSETTE: return spec->rosette_points > 0 ? (size_t)spec->rosette_points : 0;
    }
    return 0;
}

int lsim_sensor_spec_columns_at_rate(const lsim_sensor_spec *spec)
{
    if (!(spec->firing_rate_hz > 0.0) || !(spec->rate_hz > 0.0))
        return spec->columns;
    const double c = floor(spec->firing_rate_hz / spec->rate_hz);
    return c < 1.0 ? 1 : c > LSIM_SENSOR_MAX_STEPS ? LSIM_SENSOR_MAX_STEPS + 1 : (int)c;
}

void lsim_sensor_spec_defaults(lsim_sensor_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    spec->kind = LSIM_SENSOR_ROTATING;
    spec->rate_hz = 10.0;
    spec->spin = 1;
    spec->range_min = 0.1;
    spec->range_max = 100.0;
    spec->range_sigma = 0.02;
    spec->snr_at_threshold = 5.0;
    spec->intensity_sigma = 0.05;
    spec->detection_reflectance = 0.1;
    spec->rosette_hz[0] = lsim_sensor_default_prism_hz[0];
    spec->rosette_hz[1] = lsim_sensor_default_prism_hz[1];
    spec->beam.mode = LSIM_BEAM_SINGLE;
    spec->beam.rings = 1;
    spec->beam.halo_level = 1e-4;
    spec->beam.halo_extent_deg = 3.0;
    spec->beam.algorithm = 2;
    spec->beam.range_bin = 0.2;
    spec->receiver.pulse_width_ns = 5.0;
    spec->receiver.cw_samples = 30; /* the cw paper's URG-04LX model: 30 samples over 15 periods */
    spec->receiver.cw_periods = 15;
    spec->receiver.mode = LSIM_RETURNS_STRONGEST;
    spec->receiver.max_returns = 1;
    spec->receiver.peak_power_w = 50.0;
    spec->receiver.aperture_m2 = 1e-3;
    spec->receiver.efficiency = 0.5;
    /* The overlap of a biaxial sensor (Rasshofer et al. 2011, eqs. 11-12) with the geometry in Hahner
     * et al.'s fog code (ParameterSet: lens axes D = 0.1 m apart, apertures of radius 0.01 m, a 2 deg
     * beam and a 3.5 deg receiver field): R1 = (D - rho_T - rho_R) / (tan(gamma_T/2) + tan(gamma_R/2))
     * = 1.666 m, R2 = (D - rho_R + rho_T) / (tan(gamma_R/2) - tan(gamma_T/2)) = 7.635 m. */
    spec->receiver.overlap_m[0] = LSIM_OVERLAP_START_DEFAULT;
    spec->receiver.overlap_m[1] = LSIM_OVERLAP_FULL_DEFAULT;
}

void lsim_sensor_spec_free(lsim_sensor_spec *spec)
{
    if (!spec)
        return;
    free(spec->elevations_deg);
    free(spec->channel_azimuth_deg);
    free(spec->channel_time_s);
    free(spec->channel_origin_m);
    spec->channel_azimuth_deg = spec->channel_time_s = spec->channel_origin_m = NULL;
    free(spec->pattern_azimuth_deg);
    free(spec->pattern_elevation_deg);
    free(spec->pattern_time_s);
    free(spec->pattern_ring);
    spec->elevations_deg = NULL;
    spec->pattern_azimuth_deg = spec->pattern_elevation_deg = spec->pattern_time_s = NULL;
    spec->pattern_ring = NULL;
    free(spec->drop.rate);
    spec->drop.rate = NULL;
    spec->drop.n_range = spec->drop.n_incidence = spec->drop.n_reflectance = 0;
}

int lsim_sensor_dup_array(const void *src, size_t n, size_t size, void **out)
{
    *out = NULL;
    if (!src)
        return 1;
    if (size && n > SIZE_MAX / size)
        return 0;
    *out = malloc(n && size ? n * size : 1);
    if (!*out)
        return 0;
    if (n)
        memcpy(*out, src, n * size);
    return 1;
}

lsim_status lsim_sensor_spec_copy(lsim_context *ctx, const lsim_sensor_spec *src, lsim_sensor_spec *dst)
{
    if (!src || !dst)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_sensor_spec_copy: src and dst must not be NULL");
    lsim_sensor_spec copy = *src;
    copy.name[sizeof copy.name - 1] = '\0';
    size_t channels = src->channels > 0 ? (size_t)src->channels : 0, n = src->pattern_count;
    const lsim_drop_table *d = &src->drop;
    size_t rates = d->n_range > 0 && d->n_incidence > 0 && d->n_reflectance > 0
                       ? (size_t)d->n_range * (size_t)d->n_incidence * (size_t)d->n_reflectance
                       : 0;
    void *elev, *paz, *pel, *pt, *pr, *caz, *ct, *co, *rate;
    int ok = lsim_sensor_dup_array(src->elevations_deg, channels, sizeof(double), &elev);
    ok &= lsim_sensor_dup_array(src->channel_azimuth_deg, channels, sizeof(double), &caz);
    ok &= lsim_sensor_dup_array(src->channel_time_s, channels, sizeof(double), &ct);
    ok &= lsim_sensor_dup_array(src->channel_origin_m, 3 * channels, sizeof(double), &co);
    ok &= lsim_sensor_dup_array(src->pattern_azimuth_deg, n, sizeof(double), &paz);
    ok &= lsim_sensor_dup_array(src->pattern_elevation_deg, n, sizeof(double), &pel);
    ok &= lsim_sensor_dup_array(src->pattern_time_s, n, sizeof(double), &pt);
    ok &= lsim_sensor_dup_array(src->pattern_ring, n, sizeof(uint16_t), &pr);
    ok &= lsim_sensor_dup_array(src->drop.rate, rates, sizeof(double), &rate);
    copy.elevations_deg = elev;
    copy.channel_azimuth_deg = caz;
    copy.channel_time_s = ct;
    copy.channel_origin_m = co;
    copy.pattern_azimuth_deg = paz;
    copy.pattern_elevation_deg = pel;
    copy.pattern_time_s = pt;
    copy.pattern_ring = pr;
    copy.drop.rate = rate;
    if (!ok) {
        lsim_sensor_spec_free(&copy);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory copying a sensor spec");
    }
    *dst = copy;
    return LSIM_OK;
}
