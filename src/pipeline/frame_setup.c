/* What one frame's slices share, set up once per frame. */
#include "pipeline/frame_setup.h"

#include "core/clock.h"
#include "core/context.h"
#include "core/rng.h"
#include "noise/calibrated.h"
#include "optics/fog.h"
#include "scene/scene.h"

#include <math.h>
#include <string.h>

void lsim_frame_fill_surfaces(const lsim_scene *scene, lsim_frame_workspace *ws)
{
    lsim_surfaces *s = &ws->surfaces;
    for (size_t i = 0; i < scene->object_count; ++i) {
        const lsim_object *o = &scene->objects[i];
        const lsim_brdf *b = &scene->materials[o->material].brdf;
        s->brdf[i] = *b;
        s->thin[i] = strcmp(o->kind, "plane") == 0;
        s->albedo[i] = b->kind == LSIM_BRDF_MIRROR || b->kind == LSIM_BRDF_GLASS ? 0.0f
                       : b->kind == LSIM_BRDF_RETROREFLECTOR                     ? 0.3f
                                                                                 : (float)b->reflectance;
        s->lambert[i] = b->kind == LSIM_BRDF_LAMBERTIAN ? (float)(b->reflectance / 3.14159265358979323846) : -1.0f;
        s->calibration[i] = scene->materials[o->material].calibration;
        s->label[i] = o->label;
        s->instance[i] = o->instance;
    }
}

/* Photon shot noise in intensity units: the std of a sample is k sqrt(I) with
 * k = excess * sqrt(h nu / (dt P_unit)), P_unit = P_t A eta / pi (intensity 1 in watts),
 * h nu at 905 nm, dt = 1 ns per sample, excess = 3 (APD gain and amplifier noise). */
static double shot_noise_coefficient(const lsim_receiver_spec *r)
{
    const double h_nu = 6.62607015e-34 * 299792458.0 / 905e-9, dt = 1e-9, excess = 3.0;
    double unit = r->peak_power_w * r->aperture_m2 * r->efficiency / 3.14159265358979323846;
    return excess * sqrt(h_nu / (dt * unit));
}

void lsim_overlap_make(lsim_overlap *o, const lsim_receiver_spec *r)
{
    _Static_assert(LSIM_RX_OVERLAP_POINTS == LSIM_OVERLAP_MAX_POINTS, "overlap curve sizes differ");
    memset(o, 0, sizeof *o);
    if (r->overlap_points > 0) {
        o->kind = LSIM_OVERLAP_CURVE;
        o->count = r->overlap_points;
        for (int i = 0; i < o->count; ++i) {
            o->r[i] = (float)r->overlap_curve[i][0];
            o->f[i] = (float)r->overlap_curve[i][1];
        }
    } else if (r->overlap_full_m > 0.0) {
        o->kind = LSIM_OVERLAP_QUADRATIC;
        o->full = (float)r->overlap_full_m;
    }
}

void lsim_frame_setup_make(lsim_frame_setup *f, lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                        lsim_frame_workspace *ws)
{
    const lsim_sensor_spec *spec = &sensor->spec;
    memset(f, 0, sizeof *f);
    f->sensor = sensor;
    f->kernel = spec->beam.mode == LSIM_BEAM_KERNEL;
    const double divergence = spec->beam.divergence_mrad * 1e-3;
    lsim_subrays_make(&f->subrays, divergence, spec->beam.mode == LSIM_BEAM_RAYS ? spec->beam.rings : 0,
                      spec->beam.layout);
    lsim_optics *o = &f->optics;
    o->surfaces = &ws->surfaces;
    o->max_bounces = scene->max_bounces;
    o->extinction = (float)scene->extinction;
    o->divergence = spec->beam.mode == LSIM_BEAM_SINGLE ? (float)divergence : 0.0f;
    o->range_max = (float)spec->range_max;
    o->baseline = spec->baseline[0] != 0.0 || spec->baseline[1] != 0.0 || spec->baseline[2] != 0.0;
    /* The receiver's position for the baseline's occlusion test and bistatic range, from the pose
     * at the frame start (`sensor` is the frame's copy, pipeline/scan.c); a sensor moving during the
     * frame gives each beam's paths the receiver at that beam's time (slice.c). */
    lsim_sensor_receiver_at(sensor, &sensor->pose, o->receiver);
    for (int k = 0; k < 3; ++k)
        o->sun[k] = (float)scene->sun_direction[k];
    /* Background of a white surface facing the sun, in intensity units: E Omega / P_t with the
     * receiver's field of view Omega = pi (divergence / 2)^2 (at least 1 mrad). */
    double half = 0.5 * (divergence > 1e-3 ? divergence : 1e-3);
    o->sun_level = (float)(scene->sun_irradiance * 3.14159265358979 * half * half / spec->receiver.peak_power_w);
    f->threshold = lsim_sensor_threshold(spec); /* as presets lists it */
    f->receiver.pulse_width_ns = spec->receiver.pulse_width_ns;
    f->receiver.threshold = f->threshold;
    f->receiver.mode = (lsim_return_mode)spec->receiver.mode;
    f->receiver.max_returns = spec->receiver.max_returns;
    f->receiver.shot_noise = shot_noise_coefficient(&spec->receiver);
    f->receiver.max_range = spec->range_max;
    f->merge_tolerance = (float)(0.5 * lsim_pulse_range_sigma(spec->receiver.pulse_width_ns));
    lsim_overlap_make(&f->overlap, &spec->receiver);
    /* The threshold's rise with ambient light: B_ref is the background of a white surface facing a
     * sun of ambient_ref_w_m2, the same expression as sun_level's. */
    f->ambient_ref = (float)(spec->receiver.ambient_ref_w_m2 * 3.14159265358979 * half * half /
                             spec->receiver.peak_power_w);
    const lsim_fog_params fog = {scene->extinction, scene->backscatter, spec->receiver.overlap_m[0],
                                 spec->receiver.overlap_m[1], spec->range_max, spec->receiver.pulse_width_ns,
                                 f->threshold, &f->overlap};
    lsim_fog_setup(&f->fog, &fog);
    f->noise_model = (lsim_noise_model){options->noise, (float)spec->range_sigma, (float)spec->intensity_sigma,
                                        (float)f->threshold, (float)spec->range_min, 0.0f, 0.0f};
    if (spec->noise_snr) { /* README "Noise": SNR = peak / (threshold / snr_at_threshold) */
        f->noise_model.noise_floor = (float)(f->threshold / spec->snr_at_threshold);
        f->noise_model.jitter = (float)(1.4142135623730951 * lsim_pulse_range_sigma(spec->receiver.pulse_width_ns));
        if (spec->range_sigma_weak > 0.0) /* sigma at the threshold given: sensor.h, lsim_sensor_range_sigma_at */
            f->noise_model.jitter = (float)(spec->snr_at_threshold *
                                            sqrt(fmax(0.0, spec->range_sigma_weak * spec->range_sigma_weak -
                                                               spec->range_sigma * spec->range_sigma)));
    }
    f->cw = spec->receiver.cw;
    if (f->cw) { /* receiver/cw.h: the samples' noise makes the phase (range) noise; no pulse model */
        lsim_cw_receiver *cw = &f->cw_receiver;
        cw->freq_hz[0] = spec->receiver.cw_freq_hz[0];
        cw->freq_hz[1] = spec->receiver.cw_freq_hz[1];
        cw->samples = spec->receiver.cw_samples;
        cw->periods = spec->receiver.cw_periods;
        for (int k = 0; k < 3; ++k)
            cw->bias[k] = spec->receiver.cw_bias[k];
        cw->threshold = f->threshold;
        cw->bias_gain = f->subrays.count; /* the bias sees each return's radiance (receiver/cw.h) */
        /* an amplitude at the threshold is measured with SNR snr_at_threshold: the amplitude estimate
         * of N samples of noise s has std s sqrt(2 / N) */
        cw->sample_noise = options->noise ? lsim_sensor_cw_sample_noise(spec) : 0.0;
        lsim_cw_prepare(cw);
        f->noise_model.range_sigma = 0.0f; /* range noise comes from the samples */
        f->noise_model.noise_floor = 0.0f;
    }
    f->noise = options->noise;
    /* the measured ray drop is a random drop-out: off with the noise, like the others */
    f->drop = options->noise && spec->drop.n_range > 0 && spec->drop.rate ? &spec->drop : NULL;
    f->surfaces = &ws->surfaces;
    f->range_resolution = (float)spec->range_resolution;
    f->seed = options->seed;
    f->frame = options->frame_index;
}
