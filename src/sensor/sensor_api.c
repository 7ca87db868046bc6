/* The public lsim_sensor_* functions: create (preset, rotating, planar, camera, pattern, spec),
 * destroy, pose, range, noise, beam table, name. */
#include "sensor/beam.h"

#include "core/context.h"
#include "core/motion.h"
#include "core/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

lsim_status lsim_sensor_create_from_spec(lsim_context *ctx, lsim_sensor_spec *spec, lsim_sensor **out)
{
    if (out)
        *out = NULL;
    if (!spec)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_sensor_create_from_spec: spec must not be NULL");
    lsim_sensor_spec owned = *spec; /* take the arrays whatever happens */
    lsim_sensor_spec_defaults(spec);
    owned.name[sizeof owned.name - 1] = '\0';
    if (!out) {
        lsim_sensor_spec_free(&owned);
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "lsim_sensor_create_from_spec: out must not be NULL");
    }
    lsim_sensor *s = calloc(1, sizeof *s);
    if (!s) {
        lsim_sensor_spec_free(&owned);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory creating a sensor");
    }
    s->ctx = ctx;
    s->spec = owned;
    if (s->spec.name[0] == '\0')
        lsim_strlcpy(s->spec.name, lsim_sensor_kind_name(s->spec.kind), sizeof s->spec.name);
    lsim_status st = lsim_beams_generate(ctx, &s->spec, &s->beams);
    if (st != LSIM_OK) {
        lsim_sensor_destroy(s);
        return st;
    }
    static const double zero[3] = {0.0, 0.0, 0.0};
    s->pose = lsim_pose_make(zero, zero);
    *out = s;
    return LSIM_OK;
}

lsim_status lsim_sensor_create_calibrated(lsim_context *ctx, const char *path, lsim_sensor **out)
{
    if (out)
        *out = NULL;
    lsim_sensor_spec spec;
    lsim_sensor_spec_defaults(&spec);
    lsim_status st = lsim_sensor_calibration_read(ctx, path, &spec);
    if (st != LSIM_OK) {
        lsim_sensor_spec_free(&spec);
        return st;
    }
    return lsim_sensor_create_from_spec(ctx, &spec, out);
}

lsim_status lsim_sensor_create_preset(lsim_context *ctx, const char *name, lsim_sensor **out)
{
    if (out)
        *out = NULL;
    lsim_sensor_spec spec;
    lsim_status st = lsim_sensor_spec_from_preset(ctx, name, &spec);
    if (st != LSIM_OK)
        return st;
    return lsim_sensor_create_from_spec(ctx, &spec, out);
}

lsim_status lsim_sensor_create_rotating(lsim_context *ctx, int channels, const double *elevations_deg,
                                        int columns, double rate_hz, lsim_sensor **out)
{
    if (out)
        *out = NULL;
    if (channels < 1 || channels > LSIM_SENSOR_MAX_CHANNELS)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.channels: %d is out of range, must be 1..%d",
                         channels, LSIM_SENSOR_MAX_CHANNELS);
    if (!elevations_deg)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.elevations: missing, a rotating sensor needs %d elevations (degrees)", channels);
    lsim_sensor_spec spec;
    lsim_sensor_spec_defaults(&spec);
    spec.kind = LSIM_SENSOR_ROTATING;
    spec.channels = channels;
    spec.columns = columns;
    spec.rate_hz = rate_hz;
    void *elev;
    if (!lsim_sensor_dup_array(elevations_deg, (size_t)channels, sizeof(double), &elev))
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for %d elevations", channels);
    spec.elevations_deg = elev;
    return lsim_sensor_create_from_spec(ctx, &spec, out);
}

lsim_status lsim_sensor_create_planar(lsim_context *ctx, double fov_deg, int steps, double rate_hz,
                                      lsim_sensor **out)
{
    lsim_sensor_spec spec;
    lsim_sensor_spec_defaults(&spec);
    spec.kind = LSIM_SENSOR_PLANAR;
    spec.fov_deg = fov_deg;
    spec.steps = steps;
    spec.rate_hz = rate_hz;
    return lsim_sensor_create_from_spec(ctx, &spec, out);
}

lsim_status lsim_sensor_create_camera(lsim_context *ctx, int width, int height, double hfov_deg,
                                      double vfov_deg, double rate_hz, lsim_sensor **out)
{
    lsim_sensor_spec spec;
    lsim_sensor_spec_defaults(&spec);
    spec.kind = LSIM_SENSOR_CAMERA;
    spec.width = width;
    spec.height = height;
    spec.hfov_deg = hfov_deg;
    spec.vfov_deg = vfov_deg;
    spec.rate_hz = rate_hz;
    return lsim_sensor_create_from_spec(ctx, &spec, out);
}

lsim_status lsim_sensor_create_pattern(lsim_context *ctx, size_t count, const double *azimuth_deg,
                                       const double *elevation_deg, const double *time_s,
                                       const uint16_t *ring, lsim_sensor **out)
{
    if (out)
        *out = NULL;
    if (count < 1 || count > (size_t)LSIM_SENSOR_MAX_BEAMS)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.pattern: %zu beams, must be 1..%d", count,
                         LSIM_SENSOR_MAX_BEAMS);
    if (!azimuth_deg || !elevation_deg)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.pattern: azimuth_deg and elevation_deg must not be NULL");
    lsim_sensor_spec spec;
    lsim_sensor_spec_defaults(&spec);
    spec.kind = LSIM_SENSOR_PATTERN;
    spec.pattern_count = count;
    void *az, *el, *t, *r;
    int ok = lsim_sensor_dup_array(azimuth_deg, count, sizeof(double), &az);
    ok &= lsim_sensor_dup_array(elevation_deg, count, sizeof(double), &el);
    ok &= lsim_sensor_dup_array(time_s, count, sizeof(double), &t);
    ok &= lsim_sensor_dup_array(ring, count, sizeof(uint16_t), &r);
    spec.pattern_azimuth_deg = az;
    spec.pattern_elevation_deg = el;
    spec.pattern_time_s = t;
    spec.pattern_ring = r;
    if (!ok) {
        lsim_sensor_spec_free(&spec);
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory for a pattern of %zu beams", count);
    }
    return lsim_sensor_create_from_spec(ctx, &spec, out);
}

void lsim_sensor_destroy(lsim_sensor *sensor)
{
    if (!sensor)
        return;
    lsim_beams_free(&sensor->beams);
    lsim_sensor_spec_free(&sensor->spec);
    lsim_motion_free(sensor->motion);
    free(sensor);
}

lsim_status lsim_sensor_set_pose(lsim_sensor *sensor, const double position[3], const double rpy_deg[3])
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    static const double zero[3] = {0.0, 0.0, 0.0};
    const double *p = position ? position : zero, *r = rpy_deg ? rpy_deg : zero;
    lsim_status st = lsim_sensor_check_pose(sensor->ctx, p, r);
    if (st != LSIM_OK)
        return st;
    for (int i = 0; i < 3; ++i) {
        sensor->position[i] = p[i];
        sensor->rotation_deg[i] = r[i];
    }
    sensor->pose = lsim_pose_make(p, r);
    if (sensor->motion && !sensor->motion->keys) /* constant rates start from this pose */
        for (int i = 0; i < 3; ++i) {
            sensor->motion->position[i] = p[i];
            sensor->motion->rpy_deg[i] = r[i];
        }
    return LSIM_OK;
}

lsim_status lsim_sensor_set_range(lsim_sensor *sensor, double min_m, double max_m)
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_status st = lsim_sensor_check_range(sensor->ctx, min_m, max_m);
    if (st != LSIM_OK)
        return st;
    sensor->spec.range_min = min_m;
    sensor->spec.range_max = max_m;
    return LSIM_OK;
}

lsim_status lsim_sensor_set_noise(lsim_sensor *sensor, double range_sigma_m, double intensity_sigma,
                                  double detection_reflectance)
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_status st = lsim_sensor_check_noise(sensor->ctx, range_sigma_m, intensity_sigma, detection_reflectance);
    if (st != LSIM_OK)
        return st;
    /* A weak echo's sigma keeps its ratio to the strong one's (a preset's SNR law, scaled). */
    const double strong = sensor->spec.range_sigma;
    if (strong > 0.0)
        sensor->spec.range_sigma_weak *= range_sigma_m / strong;
    sensor->spec.range_sigma = range_sigma_m;
    sensor->spec.intensity_sigma = intensity_sigma;
    sensor->spec.detection_reflectance = detection_reflectance;
    return LSIM_OK;
}

lsim_status lsim_sensor_set_noise_model(lsim_sensor *sensor, lsim_noise_kind kind, double snr_at_threshold)
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (kind != LSIM_NOISE_CONSTANT && kind != LSIM_NOISE_SNR)
        return lsim_fail(sensor->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "sensor.noise.model: %d is not a noise model, valid: constant (0), snr (1)", (int)kind);
    lsim_sensor_spec changed = sensor->spec; /* shares the arrays: only checked, never freed */
    changed.noise_snr = kind == LSIM_NOISE_SNR;
    changed.snr_at_threshold = snr_at_threshold;
    lsim_status st = lsim_sensor_spec_validate(sensor->ctx, &changed);
    if (st != LSIM_OK)
        return st;
    sensor->spec.noise_snr = changed.noise_snr;
    sensor->spec.snr_at_threshold = changed.snr_at_threshold;
    return LSIM_OK;
}

static lsim_status commit_optics(lsim_sensor *sensor, const lsim_sensor_spec *changed);

lsim_status lsim_sensor_set_cw_receiver(lsim_sensor *sensor, const double freq_hz[2], int samples, int periods,
                                        const double bias[3])
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_sensor_spec changed = sensor->spec;
    lsim_receiver_spec *r = &changed.receiver;
    r->cw = freq_hz != NULL;
    if (freq_hz) {
        memcpy(r->cw_freq_hz, freq_hz, sizeof r->cw_freq_hz);
        r->cw_samples = samples;
        r->cw_periods = periods;
        for (int k = 0; k < 3; ++k)
            r->cw_bias[k] = bias ? bias[k] : 0.0;
    }
    return commit_optics(sensor, &changed);
}

/* Apply a change to a copy of the spec's optics, keep it only if the whole spec validates. */
static lsim_status commit_optics(lsim_sensor *sensor, const lsim_sensor_spec *changed)
{
    lsim_status st = lsim_sensor_spec_validate(sensor->ctx, changed);
    if (st != LSIM_OK)
        return st;
    sensor->spec.beam = changed->beam;
    sensor->spec.receiver = changed->receiver;
    memcpy(sensor->spec.baseline, changed->baseline, sizeof sensor->spec.baseline);
    return LSIM_OK;
}

lsim_status lsim_sensor_set_beam(lsim_sensor *sensor, double divergence_mrad, lsim_beam_mode mode, int rings)
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_sensor_spec changed = sensor->spec;
    changed.beam.divergence_mrad = divergence_mrad;
    changed.beam.mode = mode;
    changed.beam.rings = rings;
    return commit_optics(sensor, &changed);
}

lsim_status lsim_sensor_set_beam_layout(lsim_sensor *sensor, lsim_beam_layout layout)
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_sensor_spec changed = sensor->spec;
    changed.beam.layout = (int)layout;
    return commit_optics(sensor, &changed);
}

lsim_status lsim_sensor_set_kernel(lsim_sensor *sensor, double core_fwhm_deg, double halo_level,
                                   double halo_extent_deg, const char *kernel_file, int algorithm,
                                   double range_bin_m)
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_sensor_spec changed = sensor->spec;
    changed.beam.core_fwhm_deg = core_fwhm_deg;
    changed.beam.halo_level = halo_level;
    changed.beam.halo_extent_deg = halo_extent_deg;
    changed.beam.algorithm = algorithm;
    changed.beam.range_bin = range_bin_m;
    if (kernel_file && strlen(kernel_file) >= sizeof changed.beam.kernel_file)
        return lsim_fail(sensor->ctx, LSIM_ERR_INVALID_ARGUMENT, "sensor.beam.kernel.file: path is too long");
    snprintf(changed.beam.kernel_file, sizeof changed.beam.kernel_file, "%s", kernel_file ? kernel_file : "");
    return commit_optics(sensor, &changed);
}

lsim_status lsim_sensor_set_receiver(lsim_sensor *sensor, double pulse_width_ns, lsim_returns_mode mode,
                                     int max_returns)
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_sensor_spec changed = sensor->spec;
    changed.receiver.pulse_width_ns = pulse_width_ns;
    changed.receiver.mode = mode;
    changed.receiver.max_returns = max_returns;
    return commit_optics(sensor, &changed);
}

lsim_status lsim_sensor_set_overlap(lsim_sensor *sensor, double start_m, double full_m)
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_sensor_spec changed = sensor->spec;
    changed.receiver.overlap_m[0] = start_m;
    changed.receiver.overlap_m[1] = full_m;
    return commit_optics(sensor, &changed);
}

lsim_status lsim_sensor_set_receiver_overlap(lsim_sensor *sensor, double full_m, const double *range_m,
                                             const double *factor, size_t count)
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    if (count > LSIM_OVERLAP_MAX_POINTS || (count && (!range_m || !factor)))
        return lsim_fail(sensor->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "lsim_sensor_set_receiver_overlap: %zu points; give at most %d, with range_m and factor", count,
                         LSIM_OVERLAP_MAX_POINTS);
    lsim_sensor_spec changed = sensor->spec;
    changed.receiver.overlap_full_m = full_m;
    changed.receiver.overlap_points = (int)count;
    for (size_t i = 0; i < count; ++i) {
        changed.receiver.overlap_curve[i][0] = range_m[i];
        changed.receiver.overlap_curve[i][1] = factor[i];
    }
    return commit_optics(sensor, &changed);
}

lsim_status lsim_sensor_set_ambient_rise(lsim_sensor *sensor, double ambient_ref_w_m2)
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_sensor_spec changed = sensor->spec;
    changed.receiver.ambient_ref_w_m2 = ambient_ref_w_m2;
    return commit_optics(sensor, &changed);
}

lsim_status lsim_sensor_set_baseline(lsim_sensor *sensor, const double offset[3])
{
    if (!sensor || !offset)
        return LSIM_ERR_INVALID_ARGUMENT;
    lsim_sensor_spec changed = sensor->spec;
    memcpy(changed.baseline, offset, sizeof changed.baseline);
    return commit_optics(sensor, &changed);
}

size_t lsim_sensor_beam_count(const lsim_sensor *sensor) { return sensor ? sensor->beams.count : 0; }

/* The exact beam table (degrees, seconds, metres) into whichever arrays are given. */
static lsim_status copy_beams(const lsim_sensor *sensor, double *azimuth_deg, double *elevation_deg, double *time_s,
                              uint16_t *ring, double *origin_xyz)
{
    if (!sensor)
        return LSIM_ERR_INVALID_ARGUMENT;
    long long n = (long long)sensor->beams.count;
#pragma omp parallel for schedule(static) if (n > 65536)
    for (long long i = 0; i < n; ++i) {
        lsim_beam b;
        lsim_beam_at(&sensor->spec, (size_t)i, &b);
        if (azimuth_deg)
            azimuth_deg[i] = b.azimuth_deg;
        if (elevation_deg)
            elevation_deg[i] = b.elevation_deg;
        if (time_s)
            time_s[i] = b.time_s;
        if (ring)
            ring[i] = b.ring;
        if (origin_xyz)
            memcpy(origin_xyz + 3 * i, b.origin, sizeof b.origin);
    }
    return LSIM_OK;
}

lsim_status lsim_sensor_get_beams(const lsim_sensor *sensor, double *azimuth_deg, double *elevation_deg,
                                  double *time_s, uint16_t *ring)
{
    return copy_beams(sensor, azimuth_deg, elevation_deg, time_s, ring, NULL);
}

lsim_status lsim_sensor_get_beam_origins(const lsim_sensor *sensor, double *origin_xyz)
{
    return origin_xyz ? copy_beams(sensor, NULL, NULL, NULL, NULL, origin_xyz) : LSIM_ERR_INVALID_ARGUMENT;
}

const char *lsim_sensor_name(const lsim_sensor *sensor) { return sensor ? sensor->spec.name : ""; }
