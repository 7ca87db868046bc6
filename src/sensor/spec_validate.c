/* Sensor spec validation. Messages name the key as a scene file spells it (src/scene/sensor_yaml.c:
 * "sensor.fov_deg", "sensor.noise.range_sigma", ...), the value at fault and what is valid. Keys
 * with no scene-file spelling: sensor.prism_hz (rosette prism rates), sensor.pattern[i].<column>. */
#include "sensor/sensor.h"

#include "core/context.h"

#include <math.h>

#define LSIM_MAX_CHANNELS 1024
#define LSIM_MAX_STEPS 10000000
#define LSIM_MAX_PIXELS_SIDE 16384
#define LSIM_MAX_BEAMS 100000000ULL

static lsim_status check_int(lsim_context *ctx, const char *key, int value, int lo, int hi)
{
    if (value < lo || value > hi)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.%s: %d is out of range, must be %d..%d",
                         key, value, lo, hi);
    return LSIM_OK;
}

/* 0 < value <= hi, or 0 < value < hi when open_hi. */
static lsim_status check_angle(lsim_context *ctx, const char *key, double value, double hi, int open_hi)
{
    if (!isfinite(value) || value <= 0.0 || value > hi || (open_hi && value >= hi))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.%s: %g degrees is out of range, must be > 0 and %s %g", key, value,
                         open_hi ? "<" : "<=", hi);
    return LSIM_OK;
}

static lsim_status check_elevation(lsim_context *ctx, const char *key, size_t i, double value)
{
    if (!isfinite(value) || value < -90.0 || value > 90.0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.%s[%zu]: %g is not an elevation, must be finite degrees in [-90, 90]", key,
                         i, value);
    return LSIM_OK;
}

static lsim_status validate_rotating(lsim_context *ctx, const lsim_sensor_spec *s)
{
    lsim_status st = check_int(ctx, "channels", s->channels, 1, LSIM_MAX_CHANNELS);
    if (st != LSIM_OK)
        return st;
    if (!s->elevations_deg)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.elevations: missing, a rotating sensor needs %d elevations (degrees)",
                         s->channels);
    for (int i = 0; i < s->channels; ++i)
        if ((st = check_elevation(ctx, "elevations", (size_t)i, s->elevations_deg[i])) != LSIM_OK)
            return st;
    return check_int(ctx, "columns", s->columns, 1, LSIM_MAX_STEPS);
}

static lsim_status validate_planar(lsim_context *ctx, const lsim_sensor_spec *s)
{
    lsim_status st = check_angle(ctx, "fov_deg", s->fov_deg, 360.0, 0);
    if (st != LSIM_OK)
        return st;
    return check_int(ctx, "steps", s->steps, 1, LSIM_MAX_STEPS);
}

static lsim_status validate_camera(lsim_context *ctx, const lsim_sensor_spec *s)
{
    lsim_status st;
    if ((st = check_int(ctx, "width", s->width, 1, LSIM_MAX_PIXELS_SIDE)) != LSIM_OK ||
        (st = check_int(ctx, "height", s->height, 1, LSIM_MAX_PIXELS_SIDE)) != LSIM_OK ||
        (st = check_angle(ctx, "hfov_deg", s->hfov_deg, 179.0, 0)) != LSIM_OK ||
        (st = check_angle(ctx, "vfov_deg", s->vfov_deg, 179.0, 0)) != LSIM_OK)
        return st;
    return LSIM_OK;
}

static lsim_status validate_rosette(lsim_context *ctx, const lsim_sensor_spec *s)
{
    lsim_status st;
    if ((st = check_int(ctx, "points", s->rosette_points, 1, (int)LSIM_MAX_BEAMS)) != LSIM_OK ||
        (st = check_angle(ctx, "fov_deg", s->rosette_fov_deg, 180.0, 1)) != LSIM_OK)
        return st;
    for (int i = 0; i < 2; ++i)
        if (!isfinite(s->rosette_hz[i]))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.prism_hz[%d]: %g is not a finite prism rotation rate (Hz)", i,
                             s->rosette_hz[i]);
    return LSIM_OK;
}

static lsim_status validate_pattern(lsim_context *ctx, const lsim_sensor_spec *s)
{
    if (s->pattern_count < 1)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.pattern: no beams, a pattern needs at least 1");
    if (s->pattern_count > LSIM_MAX_BEAMS)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.pattern: %zu beams, at most %llu allowed",
                         s->pattern_count, LSIM_MAX_BEAMS);
    if (!s->pattern_azimuth_deg || !s->pattern_elevation_deg)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.pattern: azimuth_deg and elevation_deg columns are required");
    for (size_t i = 0; i < s->pattern_count; ++i) {
        double az = s->pattern_azimuth_deg[i], el = s->pattern_elevation_deg[i];
        if (!isfinite(az))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.pattern[%zu].azimuth_deg: %g is not a finite angle (degrees)", i, az);
        if (!isfinite(el) || el < -90.0 || el > 90.0)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.pattern[%zu].elevation_deg: %g is out of range, must be finite degrees "
                             "in [-90, 90]", i, el);
        if (s->pattern_time_s && (!isfinite(s->pattern_time_s[i]) || s->pattern_time_s[i] < 0.0))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.pattern[%zu].time_s: %g is out of range, must be finite and >= 0", i,
                             s->pattern_time_s[i]);
    }
    return LSIM_OK;
}

static lsim_status validate_common(lsim_context *ctx, const lsim_sensor_spec *s)
{
    if (!isfinite(s->rate_hz) || s->rate_hz <= 0.0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.rate_hz: %g Hz is out of range, must be finite and > 0",
                         s->rate_hz);
    if (!isfinite(s->range_min) || s->range_min < 0.0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.range: min %g must be finite and >= 0",
                         s->range_min);
    if (!isfinite(s->range_max))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.range: max %g must be finite", s->range_max);
    if (s->range_min >= s->range_max)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.range: min %g must be below max %g",
                         s->range_min, s->range_max);
    if (!isfinite(s->range_sigma) || s->range_sigma < 0.0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.noise.range_sigma: %g m is out of range, must be finite and >= 0", s->range_sigma);
    if (!isfinite(s->intensity_sigma) || s->intensity_sigma < 0.0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.noise.intensity_sigma: %g is out of range, must be finite and >= 0", s->intensity_sigma);
    if (!(s->detection_reflectance > 0.0 && s->detection_reflectance <= 1.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.detection_reflectance: %g is out of range, must be in (0, 1]",
                         s->detection_reflectance);
    return LSIM_OK;
}

lsim_status lsim_sensor_spec_validate(lsim_context *ctx, const lsim_sensor_spec *spec)
{
    if (!spec)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_sensor_spec_validate: spec must not be NULL");
    lsim_status st;
    switch (spec->kind) {
    case LSIM_SENSOR_ROTATING: st = validate_rotating(ctx, spec); break;
    case LSIM_SENSOR_PLANAR: st = validate_planar(ctx, spec); break;
    case LSIM_SENSOR_CAMERA: st = validate_camera(ctx, spec); break;
    case LSIM_SENSOR_ROSETTE: st = validate_rosette(ctx, spec); break;
    case LSIM_SENSOR_PATTERN: st = validate_pattern(ctx, spec); break;
    default:
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.type: kind %d is unknown, valid: rotating, planar, camera, rosette, pattern",
                         (int)spec->kind);
    }
    if (st != LSIM_OK)
        return st;
    unsigned long long total = lsim_sensor_spec_beam_count(spec);
    if (total > LSIM_MAX_BEAMS)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.%s: %llu beams per frame, at most %llu allowed",
                         spec->kind == LSIM_SENSOR_CAMERA ? "width x sensor.height" : "channels x sensor.columns",
                         total, LSIM_MAX_BEAMS);
    return validate_common(ctx, spec);
}
