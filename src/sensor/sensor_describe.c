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

/* How a beam is fired (one ray, sub-rays, a kernel) and which noise model the receiver uses. */
static void beam_and_noise(text *w, const lsim_sensor_spec *s)
{
    const lsim_beam_spec *b = &s->beam;
    if (b->mode == LSIM_BEAM_RAYS && b->layout == LSIM_BEAM_LAYOUT_LINE) /* optics/subrays.h */
        put(w, "beam_mode: rays (%d sub-rays a beam: the centre and %d each side in a line along the scan, equal "
               "shares, within %.9g mrad)\n", 1 + 2 * b->rings, b->rings, b->divergence_mrad);
    else if (b->mode == LSIM_BEAM_RAYS)
        put(w, "beam_mode: rays (%d sub-rays a beam: the centre and %d ring%s of 6k rays, within %.9g mrad)\n",
            1 + 3 * b->rings * (b->rings + 1), b->rings, b->rings == 1 ? "" : "s", b->divergence_mrad);
    else if (b->mode == LSIM_BEAM_KERNEL)
        put(w, "beam_mode: kernel (%s, algorithm %d)\n", b->kernel_file[0] ? b->kernel_file : "parametric",
            b->algorithm);
    else
        put(w, "beam_mode: single (one ray a beam)\n");
    const double T = lsim_sensor_threshold(s);
    put(w, "detection_threshold: %.6g (reflectance %.9g at range_max, intensity units)\n", T,
        s->detection_reflectance);
    const lsim_receiver_spec *r = &s->receiver; /* the overlap of every echo and the rise (preset_radiometry.c) */
    if (r->overlap_points > 0) {
        put(w, "receiver_overlap: measured curve (R m, factor):");
        for (int i = 0; i < r->overlap_points; ++i)
            put(w, " %.9g %.9g", r->overlap_curve[i][0], r->overlap_curve[i][1]);
        put(w, "\n");
    } else if (r->overlap_full_m > 0.0) {
        put(w, "receiver_overlap: (R / %.9g m)^2 below %.9g m\n", r->overlap_full_m, r->overlap_full_m);
    } else {
        put(w, "receiver_overlap: none (every echo whole)\n");
    }
    if (r->ambient_ref_w_m2 > 0.0)
        put(w, "ambient_rise: threshold x sqrt(1 + B / B_ref), B_ref a white surface under %.9g W/m^2 in band\n",
            r->ambient_ref_w_m2);
    if (s->receiver.cw)
        put(w, "noise_model: continuous-wave samples (range noise as 1 / amplitude; snr_at_threshold %.9g)\n",
            s->snr_at_threshold);
    else if (s->noise_snr && s->range_sigma_weak > 0.0)
        put(w, "noise_model: snr (sigma %.9g m for a strong echo, %.9g m at the threshold: sqrt(sigma^2 + (weak^2 - "
               "sigma^2) (T / P)^2); snr_at_threshold %.9g)\n", s->range_sigma, s->range_sigma_weak,
            s->snr_at_threshold);
    else if (s->noise_snr)
        put(w, "noise_model: snr (sigma %.9g m for a strong echo, sqrt(sigma^2 + jitter^2) with jitter from the pulse "
               "and 1 / amplitude; snr_at_threshold %.9g)\n", s->range_sigma, s->snr_at_threshold);
    else
        put(w, "noise_model: constant (sigma %.9g m)\n", s->range_sigma);
    const lsim_drop_table *d = &s->drop; /* noise/drop_table.h */
    if (d->n_range > 0 && d->rate) {
        const size_t n = (size_t)d->n_range * (size_t)d->n_incidence * (size_t)d->n_reflectance;
        double sum = 0.0, max = 0.0;
        for (size_t i = 0; i < n; ++i) {
            sum += d->rate[i];
            max = d->rate[i] > max ? d->rate[i] : max;
        }
        put(w, "drop_table: %d x %d x %d bins (range x incidence x reflectance), mean rate %.3g, max %.3g\n",
            d->n_range, d->n_incidence, d->n_reflectance, sum / (double)n, max);
    }
}

/* One line per figure group: where a preset's numbers come from (docs/presets.md). */
static void sources(text *w, const lsim_sensor_spec *s)
{
    static const char *const group[] = {"geometry", "range", "optics"};
    if (!lsim_sensor_preset_description(s->name)) {
        put(w, "source: geometry: the unit's own calibration file; range, optics: the preset of its model "
               "(docs/presets.md)\n");
        return;
    }
    for (int g = 0; g < 3; ++g) {
        const char *text = lsim_sensor_preset_source(s->name, (lsim_preset_source)g);
        put(w, "source: %s: %s\n", group[g], text ? text : "not recorded");
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
    beam_and_noise(w, s);
    kind_numbers(w, s);
    sources(w, s);
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
