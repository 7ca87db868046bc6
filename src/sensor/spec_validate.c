/* Sensor spec validation. Messages name the key as a scene file spells it (src/scene/sensor_yaml.c:
 * "sensor.fov_deg", "sensor.noise.range_sigma", "sensor.prism_hz[1]", ...), the value at fault and
 * what is valid. Keys with no scene-file spelling: sensor.pattern[i].<column> (the pattern CSV). */
#include "sensor/sensor.h"

#include "core/context.h"

#include <math.h>

/* A limit's literal spelling for messages ("1e7", not "1e+07"). */
#define LSIM_STR_(x) #x
#define LSIM_STR(x) LSIM_STR_(x)

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

/* The head's spin, firing rate, lidar modes and per-channel tables of a rotating sensor. */
static lsim_status validate_rotating_timing(lsim_context *ctx, const lsim_sensor_spec *s)
{
    if (s->spin != 1 && s->spin != -1)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.spin: %d is not a direction, must be ccw (+1) or cw (-1)",
                         s->spin);
    if (!isfinite(s->azimuth_start_deg) || fabs(s->azimuth_start_deg) > 360.0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.azimuth_start_deg: %g is out of range, must be finite degrees in [-360, 360]",
                         s->azimuth_start_deg);
    if (s->firing_rate_hz != 0.0) {
        if (!isfinite(s->firing_rate_hz) || s->firing_rate_hz < s->rate_hz || s->firing_rate_hz > 1e7)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.firing_rate_hz: %g is out of range, must be at least rate_hz (%g) and at most 1e7 "
                             "columns per second", s->firing_rate_hz, s->rate_hz);
        const int want = lsim_sensor_spec_columns_at_rate(s);
        if (s->columns != want)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.columns: %d, but this sensor fires %g columns per second, which at rate_hz %g is "
                             "%d columns a revolution; change rate_hz (the columns follow from it)",
                             s->columns, s->firing_rate_hz, s->rate_hz, want);
    }
    if (s->ouster_modes) {
        const int c = s->columns;
        const int ok = (c == 512 || c == 1024 || c == 2048) && (s->rate_hz == 10.0 || s->rate_hz == 20.0) &&
                       !(c == 2048 && s->rate_hz == 20.0);
        if (!ok)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.rate_hz: %g Hz with %d columns is not a lidar mode of this Ouster unit; valid: "
                             "512x10, 512x20, 1024x10, 1024x20, 2048x10 (columns x Hz)", s->rate_hz, c);
    }
    const double period = 1.0 / s->rate_hz;
    for (int k = 0; k < s->channels; ++k) {
        if (s->channel_azimuth_deg && !(fabs(s->channel_azimuth_deg[k]) <= 180.0))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.channel_azimuth_deg[%d]: %g is out of range, must be finite degrees in [-180, 180]",
                             k, s->channel_azimuth_deg[k]);
        if (s->channel_time_s && !(s->channel_time_s[k] >= 0.0 && s->channel_time_s[k] < period))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.channel_time_s[%d]: %g s is out of range, must be >= 0 and below one revolution "
                             "(%g s)", k, s->channel_time_s[k], period);
        for (int a = 0; s->channel_origin_m && a < 3; ++a)
            if (!(fabs(s->channel_origin_m[3 * k + a]) <= 10.0))
                return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                                 "sensor.channel_origin_m[%d][%d]: %g m is out of range, must be finite within +-10 m",
                                 k, a, s->channel_origin_m[3 * k + a]);
    }
    return LSIM_OK;
}

static lsim_status validate_rotating(lsim_context *ctx, const lsim_sensor_spec *s)
{
    lsim_status st = check_int(ctx, "channels", s->channels, 1, LSIM_SENSOR_MAX_CHANNELS);
    if (st != LSIM_OK)
        return st;
    if (!s->elevations_deg)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.elevations: missing, a rotating sensor needs %d elevations (degrees)",
                         s->channels);
    for (int i = 0; i < s->channels; ++i)
        if ((st = check_elevation(ctx, "elevations", (size_t)i, s->elevations_deg[i])) != LSIM_OK)
            return st;
    if ((st = check_int(ctx, "columns", s->columns, 1, LSIM_SENSOR_MAX_STEPS)) != LSIM_OK)
        return st;
    return validate_rotating_timing(ctx, s);
}

static lsim_status validate_planar(lsim_context *ctx, const lsim_sensor_spec *s)
{
    lsim_status st = check_angle(ctx, "fov_deg", s->fov_deg, 360.0, 0);
    if (st != LSIM_OK)
        return st;
    return check_int(ctx, "steps", s->steps, 1, LSIM_SENSOR_MAX_STEPS);
}

static lsim_status validate_camera(lsim_context *ctx, const lsim_sensor_spec *s)
{
    lsim_status st;
    if ((st = check_int(ctx, "width", s->width, 1, LSIM_SENSOR_MAX_PIXELS_SIDE)) != LSIM_OK ||
        (st = check_int(ctx, "height", s->height, 1, LSIM_SENSOR_MAX_PIXELS_SIDE)) != LSIM_OK ||
        (st = check_angle(ctx, "hfov_deg", s->hfov_deg, 179.0, 0)) != LSIM_OK ||
        (st = check_angle(ctx, "vfov_deg", s->vfov_deg, 179.0, 0)) != LSIM_OK)
        return st;
    return LSIM_OK;
}

static lsim_status validate_rosette(lsim_context *ctx, const lsim_sensor_spec *s)
{
    lsim_status st;
    if ((st = check_int(ctx, "points", s->rosette_points, 1, LSIM_SENSOR_MAX_BEAMS)) != LSIM_OK ||
        (st = check_angle(ctx, "fov_deg", s->rosette_fov_deg, 180.0, 1)) != LSIM_OK)
        return st;
    for (int i = 0; i < 2; ++i)
        if (!isfinite(s->rosette_hz[i]) || s->rosette_hz[i] == 0.0)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.prism_hz[%d]: %g Hz is not a prism rotation rate, must be finite and "
                             "non-zero (default [%g, %g])", i, s->rosette_hz[i], lsim_sensor_default_prism_hz[0],
                             lsim_sensor_default_prism_hz[1]);
    if (s->rosette_hz[0] == s->rosette_hz[1])
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.prism_hz: both prisms turn at %g Hz, the rates must differ (equal rates trace "
                         "only the edge circle; default [%g, %g], opposite signs)", s->rosette_hz[0],
                         lsim_sensor_default_prism_hz[0], lsim_sensor_default_prism_hz[1]);
    return LSIM_OK;
}

static lsim_status validate_pattern(lsim_context *ctx, const lsim_sensor_spec *s)
{
    if (s->pattern_count < 1)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.pattern: no beams, a pattern needs at least 1");
    if (s->pattern_count > (size_t)LSIM_SENSOR_MAX_BEAMS)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.pattern: %zu beams, at most %d allowed",
                         s->pattern_count, LSIM_SENSOR_MAX_BEAMS);
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
        if (s->pattern_time_s &&
            !(s->pattern_time_s[i] >= 0.0 && s->pattern_time_s[i] <= LSIM_SENSOR_MAX_BEAM_TIME_S))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.pattern[%zu].time_s: %g is out of range, must be 0..%g s (a beam's time within "
                             "its frame)", i, s->pattern_time_s[i], LSIM_SENSOR_MAX_BEAM_TIME_S);
    }
    return LSIM_OK;
}

lsim_status lsim_sensor_check_range(lsim_context *ctx, double min_m, double max_m)
{
    if (!isfinite(min_m) || min_m < 0.0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.range: min %g m must be finite and >= 0", min_m);
    if (!isfinite(max_m) || max_m > LSIM_SENSOR_MAX_RANGE_M)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.range: max %g m must be finite and <= "
                         LSIM_STR(LSIM_SENSOR_MAX_RANGE_M) " m", max_m);
    if (min_m >= max_m)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.range: min %g must be below max %g", min_m, max_m);
    return LSIM_OK;
}

lsim_status lsim_sensor_check_noise(lsim_context *ctx, double range_sigma_m, double intensity_sigma,
                                    double detection_reflectance)
{
    if (!isfinite(range_sigma_m) || range_sigma_m < 0.0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.noise.range_sigma: %g m is out of range, must be finite and >= 0", range_sigma_m);
    if (!isfinite(intensity_sigma) || intensity_sigma < 0.0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.noise.intensity_sigma: %g is out of range, must be finite and >= 0", intensity_sigma);
    /* Above 1: range_max lies beyond a white target's reach (the presets whose datasheet range is a
     * retroreflector's; preset_radiometry.c). */
    if (!(detection_reflectance > 0.0 && detection_reflectance <= 1000.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.detection_reflectance: %g is out of range, must be in (0, 1000] (the Lambertian "
                         "reflectance detected just at the maximum range)", detection_reflectance);
    return LSIM_OK;
}

lsim_status lsim_sensor_check_pose(lsim_context *ctx, const double position[3], const double rpy_deg[3])
{
    static const char *const axis[3] = {"x", "y", "z"};
    static const char *const angle[3] = {"roll", "pitch", "yaw"};
    for (int i = 0; i < 3; ++i) {
        double p = position ? position[i] : 0.0, r = rpy_deg ? rpy_deg[i] : 0.0;
        if (!isfinite(p) || fabs(p) > LSIM_SENSOR_MAX_POSITION_M)
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.position: %s = %g m is out of range, must be finite and within "
                             "\u00b1" LSIM_STR(LSIM_SENSOR_MAX_POSITION_M) " m", axis[i], p);
        if (!isfinite(r))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.rotation: %s = %g is not a finite angle (degrees)", angle[i], r);
    }
    return LSIM_OK;
}

static lsim_status validate_rate(lsim_context *ctx, const lsim_sensor_spec *s)
{
    if (!isfinite(s->rate_hz) || s->rate_hz < LSIM_SENSOR_MIN_RATE_HZ || s->rate_hz > LSIM_SENSOR_MAX_RATE_HZ)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.rate_hz: %g Hz is out of range, must be finite, > 0 and in ["
                         LSIM_STR(LSIM_SENSOR_MIN_RATE_HZ) ", " LSIM_STR(LSIM_SENSOR_MAX_RATE_HZ) "] Hz",
                         s->rate_hz);
    if (s->kind == LSIM_SENSOR_ROTATING && s->firing_rate_hz > 0.0 && s->firing_rate_hz <= 1e7 &&
        s->rate_hz > s->firing_rate_hz)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.rate_hz: %g Hz is out of range for this sensor: it fires %g columns per second, so it "
                         "cannot turn faster than that", s->rate_hz, s->firing_rate_hz);
    return LSIM_OK;
}

static lsim_status validate_common(lsim_context *ctx, const lsim_sensor_spec *s)
{
    lsim_status st = lsim_sensor_check_range(ctx, s->range_min, s->range_max);
    if (st != LSIM_OK)
        return st;
    return lsim_sensor_check_noise(ctx, s->range_sigma, s->intensity_sigma, s->detection_reflectance);
}

static int in_range(double v, double lo, double hi) { return v >= lo && v <= hi; }

/* The overlap of every echo, the threshold's rise with ambient light and the SNR model's sigma of a
 * weak echo (receiver/overlap.h, docs/scene.md "Beam and receiver"). */
static lsim_status validate_near_field(lsim_context *ctx, const lsim_sensor_spec *spec)
{
    const lsim_receiver_spec *r = &spec->receiver;
    if (!in_range(r->overlap_full_m, 0.0, LSIM_OVERLAP_MAX_M))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.receiver.overlap_full_m: %g is invalid; must be 0..%g m (the range from which the "
                         "receiver sees the whole echo; 0: no near-field loss)", r->overlap_full_m, LSIM_OVERLAP_MAX_M);
    if (r->overlap_points < 0 || r->overlap_points > LSIM_OVERLAP_MAX_POINTS)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.receiver.overlap: %d points; at most %d",
                         r->overlap_points, LSIM_OVERLAP_MAX_POINTS);
    if (r->overlap_points > 0 && r->overlap_full_m > 0.0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.receiver: overlap (a measured curve) and overlap_full_m (the quadratic form) exclude "
                         "each other; give one");
    for (int i = 0; i < r->overlap_points; ++i) {
        const double x = r->overlap_curve[i][0], f = r->overlap_curve[i][1];
        const double px = i ? r->overlap_curve[i - 1][0] : 0.0, pf = i ? r->overlap_curve[i - 1][1] : 0.0;
        if (!(x > px && x <= LSIM_OVERLAP_MAX_M) || !(f >= pf && f <= 1.0))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.receiver.overlap[%d]: [%g, %g] is invalid; ranges must rise from > 0 to at most "
                             "%g m and factors must not fall, within [0, 1]", i, x, f, LSIM_OVERLAP_MAX_M);
    }
    if (r->overlap_points > 0 && r->overlap_curve[r->overlap_points - 1][1] != 1.0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.receiver.overlap[%d]: the last point's factor is %g; it must be 1 (the receiver sees "
                         "the whole echo from there on)", r->overlap_points - 1, r->overlap_curve[r->overlap_points - 1][1]);
    if (!in_range(r->ambient_ref_w_m2, 0.0, 1e6))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.receiver.ambient_ref_w_m2: %g is invalid; must be 0..1e6 W/m^2 (0: the threshold does "
                         "not rise with ambient light)", r->ambient_ref_w_m2);
    if (!(spec->range_sigma_weak == 0.0 || in_range(spec->range_sigma_weak, spec->range_sigma, 100.0)))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.noise.range_sigma_weak: %g m is invalid; must be 0 (the pulse's jitter) or between "
                         "range_sigma (%g m) and 100 m", spec->range_sigma_weak, spec->range_sigma);
    return LSIM_OK;
}

/* Beam divergence, receiver and baseline; messages name the scene-file key. */
static lsim_status validate_optics(lsim_context *ctx, const lsim_sensor_spec *spec)
{
    const lsim_beam_spec *b = &spec->beam;
    const lsim_receiver_spec *r = &spec->receiver;
    if (!in_range(b->divergence_mrad, 0.0, 1000.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.beam.divergence_mrad: %g is invalid; must be 0..1000 mrad", b->divergence_mrad);
    if (b->mode != LSIM_BEAM_SINGLE && b->mode != LSIM_BEAM_RAYS && b->mode != LSIM_BEAM_KERNEL)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.beam.mode: %d is unknown; valid: single, rays, kernel",
                         (int)b->mode);
    if (b->mode != LSIM_BEAM_SINGLE && !(b->divergence_mrad > 0.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.beam.divergence_mrad: the %s mode needs a divergence > 0",
                         b->mode == LSIM_BEAM_RAYS ? "rays" : "kernel");
    if (b->rings < 1 || b->rings > 8)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.beam.rings: %d is invalid; must be 1..8", b->rings);
    if (b->layout != LSIM_BEAM_LAYOUT_RINGS && b->layout != LSIM_BEAM_LAYOUT_LINE)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.beam.layout: %d is unknown; valid: rings, line",
                         b->layout);
    if (!in_range(b->core_fwhm_deg, 0.0, 10.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.beam.kernel.core_fwhm_deg: %g is invalid; must be 0..10 (0: the divergence)",
                         b->core_fwhm_deg);
    if (!in_range(b->halo_level, 0.0, 1.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.beam.kernel.halo_level: %g is invalid; must be 0..1",
                         b->halo_level);
    if (!in_range(b->halo_extent_deg, 0.0, 20.0) || (b->mode == LSIM_BEAM_KERNEL && !(b->halo_extent_deg > 0.0)))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.beam.kernel.halo_extent_deg: %g is invalid; must be in (0, 20]", b->halo_extent_deg);
    if (b->mode == LSIM_BEAM_KERNEL && !b->kernel_file[0]) { /* the parametric kernel's size in pixels */
        double fwhm = b->core_fwhm_deg > 0.0 ? b->core_fwhm_deg : b->divergence_mrad * 1e-3 * 57.29577951308232 * 0.5887050112577373;
        double half = b->halo_extent_deg / (fwhm / 4.0);
        if (!(half <= 4096.0))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.beam.kernel: a %g deg halo sampled at %g deg (core FWHM / 4) needs %.0f pixels "
                             "each side (at most 4096); widen core_fwhm_deg or shorten halo_extent_deg",
                             b->halo_extent_deg, fwhm / 4.0, half);
    }
    if (b->algorithm != 1 && b->algorithm != 2)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.beam.algorithm: %d is invalid; 1 (beam iteration) or 2 (range stacking)", b->algorithm);
    if (!in_range(b->range_bin, 1e-3, 100.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.beam.range_bin: %g is invalid; must be 0.001..100 m",
                         b->range_bin);
    /* The blooming model keeps a signal per range bin and beam (optics/blooming.c: fewer than 2^22). */
    if (b->mode == LSIM_BEAM_KERNEL && !(floor(spec->range_max / b->range_bin) < 4194304.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.beam.range_bin: %g m over a range of %g m makes %.0f range bins, at most 4194304 "
                         "(2^22); use a coarser range_bin or a shorter sensor.range", b->range_bin, spec->range_max,
                         floor(spec->range_max / b->range_bin));
    if (!in_range(r->pulse_width_ns, 0.01, 1000.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.receiver.pulse_width_ns: %g is invalid; must be 0.01..1000 ns", r->pulse_width_ns);
    if ((int)r->mode < 0 || (int)r->mode > (int)LSIM_RETURNS_ALL)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.receiver.returns: %d is unknown; valid: first, strongest, last, dual, all", (int)r->mode);
    if (r->max_returns < 1 || r->max_returns > 16)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.receiver.max_returns: %d is invalid; must be 1..16",
                         r->max_returns);
    if (r->mode == LSIM_RETURNS_DUAL && r->max_returns < 2)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.receiver.max_returns: dual returns need max_returns >= 2");
    if (!(r->peak_power_w > 0.0 && r->peak_power_w <= 1e6) || !(r->aperture_m2 > 0.0 && r->aperture_m2 <= 10.0) ||
        !(r->efficiency > 0.0 && r->efficiency <= 1.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.receiver: peak_power_w (0, 1e6], aperture_m2 (0, 10] and efficiency (0, 1] are "
                         "required; got %g, %g, %g", r->peak_power_w, r->aperture_m2, r->efficiency);
    if (r->cw && (!in_range(r->cw_freq_hz[0], 1e3, 1e10) || !in_range(r->cw_freq_hz[1], 1e3, 1e10) ||
                  r->cw_freq_hz[0] == r->cw_freq_hz[1]))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.receiver.frequencies_hz: [%g, %g] Hz; a continuous-wave receiver needs two distinct "
                         "modulation frequencies in [1e3, 1e10] Hz (the URG-04LX: about 46.55e6 and 53.2e6)",
                         r->cw_freq_hz[0], r->cw_freq_hz[1]);
    if (r->cw && (r->cw_samples < 4 || r->cw_samples > 256 || r->cw_periods < 1 || r->cw_periods > 10000))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.receiver.samples: %d samples over %d periods; must be 4..256 samples over 1..10000 "
                         "periods (default 30 over 15)", r->cw_samples, r->cw_periods);
    for (int i = 0; r->cw && i < 3; ++i)
        if (!in_range(r->cw_bias[i], -1e9, 1e9))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.receiver.bias[%d]: %g is not a finite coefficient within +-1e9", i, r->cw_bias[i]);
    if (!in_range(spec->snr_at_threshold, 1.0, 1000.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.noise.snr_at_threshold: %g is out of range, must be 1..1000 (the signal-to-noise ratio "
                         "of an echo just at the detection threshold; typical 3..10)", spec->snr_at_threshold);
    if (!(r->overlap_m[0] > 0.0 && r->overlap_m[0] <= r->overlap_m[1] && r->overlap_m[1] <= LSIM_OVERLAP_MAX_M))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.receiver.overlap_m: [%g, %g] is invalid; need 0 < start <= full <= %g m (the ranges "
                         "where the receiver starts to see the beam and sees all of it)",
                         r->overlap_m[0], r->overlap_m[1], LSIM_OVERLAP_MAX_M);
    const lsim_status near = validate_near_field(ctx, spec);
    if (near != LSIM_OK)
        return near;
    if (!in_range(spec->range_resolution, 0.0, 1.0))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.range_resolution: %g is invalid; must be 0..1 m (0: continuous)", spec->range_resolution);
    for (int i = 0; i < 3; ++i)
        if (!in_range(spec->baseline[i], -10.0, 10.0))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.baseline[%d]: %g is invalid; the receiver offset must be within +-10 m", i,
                             spec->baseline[i]);
    return LSIM_OK;
}

/* One axis of the drop table: 1..LSIM_DROP_MAX_EDGES lower edges rising from 0, each below `below`. */
static lsim_status validate_drop_axis(lsim_context *ctx, const char *key, const char *unit, const double *edges, int n,
                                      double below)
{
    if (n < 1 || n > LSIM_DROP_MAX_EDGES)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.noise.drop.%s: %d edges; give 1 to %d lower bin edges, ascending, the first 0", key,
                         n, LSIM_DROP_MAX_EDGES);
    if (edges[0] != 0.0)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.noise.drop.%s[0]: %g is invalid; the first lower edge must be 0 (so that every "
                         "value has a bin)", key, edges[0]);
    for (int i = 1; i < n; ++i) {
        if (!(edges[i] > edges[i - 1]))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.noise.drop.%s[%d]: %g is invalid; the lower edges must rise (it follows %g)",
                             key, i, edges[i], edges[i - 1]);
        if (!(edges[i] < below))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.noise.drop.%s[%d]: %g is invalid; an edge must be below %g%s", key, i, edges[i],
                             below, unit);
    }
    return LSIM_OK;
}

/* The measured ray-drop table (sensor.h, lsim_drop_table). */
static lsim_status validate_drop(lsim_context *ctx, const lsim_drop_table *d)
{
    if (d->n_range == 0 && d->n_incidence == 0 && d->n_reflectance == 0 && !d->rate)
        return LSIM_OK; /* no table */
    lsim_status st = validate_drop_axis(ctx, "range_m", " m", d->range_m, d->n_range, LSIM_SENSOR_MAX_RANGE_M);
    if (st == LSIM_OK)
        st = validate_drop_axis(ctx, "incidence_deg", " deg", d->incidence_deg, d->n_incidence, 90.0);
    if (st == LSIM_OK)
        st = validate_drop_axis(ctx, "reflectance", "", d->reflectance, d->n_reflectance, 1e6);
    if (st != LSIM_OK)
        return st;
    if (!d->rate)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.noise.drop.rate: missing; give %d x %d x %d rates",
                         d->n_range, d->n_incidence, d->n_reflectance);
    const size_t n = (size_t)d->n_range * (size_t)d->n_incidence * (size_t)d->n_reflectance;
    for (size_t i = 0; i < n; ++i)
        if (!in_range(d->rate[i], 0.0, 1.0))
            return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                             "sensor.noise.drop.rate[%zu]: %g is invalid; a drop rate must be in [0, 1] (the "
                             "probability that an echo in the bin is removed)", i, d->rate[i]);
    return LSIM_OK;
}

lsim_status lsim_sensor_spec_validate(lsim_context *ctx, const lsim_sensor_spec *spec)
{
    if (!spec)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_sensor_spec_validate: spec must not be NULL");
    lsim_status st = validate_rate(ctx, spec); /* first: a rotating head's columns may follow from it */
    if (st != LSIM_OK)
        return st;
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
    if (total > (unsigned long long)LSIM_SENSOR_MAX_BEAMS)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.%s: %llu beams per frame, at most %d (1e8) allowed; lower the %s (several "
                         "smaller sensors or frames cover the same field)",
                         spec->kind == LSIM_SENSOR_CAMERA ? "width x sensor.height" : "channels x sensor.columns",
                         total, LSIM_SENSOR_MAX_BEAMS,
                         spec->kind == LSIM_SENSOR_CAMERA ? "resolution" : "channels or columns");
    st = validate_common(ctx, spec);
    if (st == LSIM_OK)
        st = validate_optics(ctx, spec);
    if (st == LSIM_OK)
        st = validate_drop(ctx, &spec->drop);
    return st;
}
