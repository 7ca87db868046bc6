/* A sensor's key numbers as text (the public lsim_sensor_describe; `lidarsim presets NAME`), and
 * the range noise its receiver gives (sensor.h), which the scan uses too, so that the listing says
 * what a scan does. */
#include "sensor/sensor.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#define C_LIGHT 299792458.0
#define PI 3.14159265358979323846

double lsim_sensor_threshold(const lsim_sensor_spec *spec)
{
    return spec->detection_reflectance / (spec->range_max * spec->range_max);
}

double lsim_sensor_cw_sample_noise(const lsim_sensor_spec *spec)
{
    return lsim_sensor_threshold(spec) * sqrt(0.5 * spec->receiver.cw_samples) / spec->snr_at_threshold;
}

double lsim_sensor_range_sigma_at(const lsim_sensor_spec *spec, double amplitude)
{
    const lsim_receiver_spec *r = &spec->receiver;
    if (r->cw) {
        const double phase = lsim_sensor_cw_sample_noise(spec) * sqrt(2.0 / r->cw_samples) / amplitude;
        const double f1 = r->cw_freq_hz[0], f2 = r->cw_freq_hz[1];
        return 0.5 * C_LIGHT / (4.0 * PI) * phase * sqrt(1.0 / (f1 * f1) + 1.0 / (f2 * f2));
    }
    if (!spec->noise_snr)
        return spec->range_sigma;
    const double sigma_pulse = C_LIGHT * r->pulse_width_ns * 1e-9 * 0.5 / (2.0 * sqrt(2.0 * log(2.0)));
    const double jitter = spec->range_sigma_weak > 0.0 /* the preset's weak-echo sigma (sensor.h) */
                              ? spec->snr_at_threshold * sqrt(fmax(0.0, spec->range_sigma_weak * spec->range_sigma_weak -
                                                                            spec->range_sigma * spec->range_sigma))
                              : sqrt(2.0) * sigma_pulse;
    const double j = jitter * lsim_sensor_threshold(spec) / (spec->snr_at_threshold * amplitude);
    return sqrt(spec->range_sigma * spec->range_sigma + j * j);
}

/* snprintf-style appending: writes what fits, always NUL-terminated, counts the whole length. */
typedef struct text {
    char *buf;
    size_t size, len;
} text;

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void put(text *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *at = w->buf && w->len < w->size ? w->buf + w->len : NULL;
    size_t room = at ? w->size - w->len : 0;
    int n = vsnprintf(at, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        w->len += (size_t)n;
}

static void kind_numbers(text *w, const lsim_sensor_spec *s)
{
    switch (s->kind) {
    case LSIM_SENSOR_ROTATING:
        put(w, "channels: %d\ncolumns: %d\nazimuth_step_deg: %.9g\nspin: %s\n", s->channels, s->columns,
               s->firing_rate_hz > 0 ? 360.0 * s->rate_hz / s->firing_rate_hz : 360.0 / s->columns,
               s->spin < 0 ? "cw" : "ccw");
        if (s->firing_rate_hz > 0)
            put(w, "firing_rate_hz: %.9g (columns per second, fixed: columns = floor(firing_rate_hz / rate_hz))\n",
                   s->firing_rate_hz);
        if (s->ouster_modes)
            put(w, "lidar_modes: 512x10 512x20 1024x10 1024x20 2048x10\n");
        put(w, "elevations_deg (ring 0 first):");
        for (int i = 0; i < s->channels; ++i)
            put(w, " %.9g", s->elevations_deg[i]);
        put(w, "\n");
        break;
    case LSIM_SENSOR_PLANAR:
        put(w, "fov_deg: %.9g\nsteps: %d\nazimuth_step_deg: %.9g\n", s->fov_deg, s->steps, s->fov_deg / s->steps);
        break;
    case LSIM_SENSOR_CAMERA:
        put(w, "width: %d\nheight: %d\nhfov_deg: %.9g\nvfov_deg: %.9g\n", s->width, s->height, s->hfov_deg,
               s->vfov_deg);
        break;
    case LSIM_SENSOR_ROSETTE:
        put(w, "fov_deg: %.9g (circular)\npoints: %d\nprism_hz: %.9g %.9g\n", s->rosette_fov_deg,
               s->rosette_points, s->rosette_hz[0], s->rosette_hz[1]);
        break;
    case LSIM_SENSOR_PATTERN: break;
    }
}

static void summary(text *w, const lsim_sensor *sensor)
{
    const lsim_sensor_spec *s = &sensor->spec;
    put(w, "name: %s\n", s->name);
    const char *description = lsim_sensor_preset_description(s->name);
    put(w, "description: %s\n", description ? description : "a real unit, from its calibration file");
    put(w, "kind: %s\n", lsim_sensor_kind_name(s->kind));
    put(w, "beams: %zu\n", lsim_sensor_beam_count(sensor));
    put(w, "rate_hz: %.9g\n", s->rate_hz);
    put(w, "range_m: %.9g .. %.9g\n", s->range_min, s->range_max);
    const double T = lsim_sensor_threshold(s);
    if (s->receiver.cw) /* its range noise comes from the samples: range_sigma is not used */
        put(w, "range_sigma_m: %.3g at the detection threshold, %.3g at 10x it (continuous-wave: from the samples' "
               "noise, as 1 / amplitude)\n", lsim_sensor_range_sigma_at(s, T), lsim_sensor_range_sigma_at(s, 10.0 * T));
    else if (s->noise_snr)
        put(w, "range_sigma_m: %.9g (a strong echo; %.3g at the detection threshold: SNR model)\n", s->range_sigma,
            lsim_sensor_range_sigma_at(s, T));
    else
        put(w, "range_sigma_m: %.9g\n", s->range_sigma);
    put(w, "intensity_sigma: %.9g\n", s->intensity_sigma);
    put(w, "detection_reflectance: %.9g\n", s->detection_reflectance);
    static const char *const returns[] = {"first", "strongest", "last", "dual", "all"};
    put(w, "beam_divergence_mrad: %.9g\n", s->beam.divergence_mrad);
    if (s->receiver.cw) {
        const double beat = fabs(s->receiver.cw_freq_hz[0] - s->receiver.cw_freq_hz[1]);
        put(w, "receiver: continuous-wave (phase shift) at %.9g and %.9g MHz, %d samples over about %d periods, "
               "unambiguous to %.4g m; one echo a beam\n", 1e-6 * s->receiver.cw_freq_hz[0],
            1e-6 * s->receiver.cw_freq_hz[1], s->receiver.cw_samples, s->receiver.cw_periods, C_LIGHT / (2.0 * beat));
    } else {
        put(w, "receiver: pulsed\n");
        put(w, "pulse_width_ns: %.9g\n", s->receiver.pulse_width_ns);
        put(w, "returns: %s (max %d)\n", returns[s->receiver.mode], s->receiver.max_returns);
    }
    kind_numbers(w, s);
}

size_t lsim_sensor_describe(const lsim_sensor *sensor, char *buf, size_t size)
{
    if (buf && size > 0)
        buf[0] = '\0';
    if (!sensor)
        return 0;
    text w = {buf, buf ? size : 0, 0};
    summary(&w, sensor);
    return w.len;
}
