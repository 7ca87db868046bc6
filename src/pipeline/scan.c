/* lsim_scene_scan: one frame through every stage, timed per stage. */
#include "pipeline/frame.h"

#include "core/clock.h"
#include "core/context.h"
#include "core/rng.h"
#include "io/format.h"
#include "io/writers.h"
#include "noise/calibrated.h"
#include "noise/noise.h"
#include "optics/fog.h"
#include "points/points.h"
#include "scene/scene.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

void lsim_scan_options_init(lsim_scan_options *options)
{
    memset(options, 0, sizeof *options);
    options->noise = 1;
    options->frame = LSIM_FRAME_SENSOR;
}

int lsim_threads_resolve(int requested)
{
    if (requested > 0)
        return requested;
    int n = omp_get_num_procs();
    return n > 0 ? n : 1;
}

size_t lsim_frame_point_capacity(const lsim_sensor *sensor)
{
    return sensor->beams.count * (size_t)sensor->spec.receiver.max_returns;
}

static void fill_surfaces(const lsim_scene *scene, lsim_frame_workspace *ws)
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

typedef struct frame_setup {
    const lsim_sensor *sensor;
    lsim_optics optics;
    lsim_subrays subrays;
    lsim_receiver receiver;
    lsim_fog fog;
    lsim_noise_model noise_model;
    const lsim_surfaces *surfaces;
    float range_resolution;
    float merge_tolerance; /* contributions of one surface closer than this may merge (sigma / 2) */
    double threshold;
    int noise, kernel;
    uint64_t seed;
    uint32_t frame;
} frame_setup;

/* Merge contributions of the same surface closer in range than `tol` (sub-rays of one beam
 * on one wall): amplitudes add, the range is their amplitude-weighted mean and the spread covers
 * both. The receiver sees practically the same waveform, from far fewer contributions. */
static int merge_close(lsim_contribution *c, int n, float tol)
{
    for (int i = 0; i < n; ++i) {
        for (int j = i + 1; j < n;) {
            if (c[j].object == c[i].object && fabsf(c[j].range - c[i].range) <= tol) {
                float a = c[i].amplitude + c[j].amplitude;
                float lo = fminf(c[i].range - 0.5f * c[i].spread, c[j].range - 0.5f * c[j].spread);
                float hi = fmaxf(c[i].range + 0.5f * c[i].spread, c[j].range + 0.5f * c[j].spread);
                float r = (c[i].amplitude * c[i].range + c[j].amplitude * c[j].range) / a;
                if (c[j].amplitude > c[i].amplitude) { /* the stronger one's surface */
                    c[i].cos_incidence = c[j].cos_incidence;
                    c[i].nx = c[j].nx;
                    c[i].ny = c[j].ny;
                    c[i].nz = c[j].nz;
                }
                c[i].range = r;
                c[i].amplitude = a;
                c[i].spread = hi - lo;
                c[j] = c[--n];
            } else {
                ++j;
            }
        }
    }
    return n;
}

/* Keep the `cap` strongest contributions (in place). */
static int keep_strongest(lsim_contribution *c, int n, int cap)
{
    while (n > cap) {
        int weakest = 0;
        for (int i = 1; i < n; ++i)
            if (c[i].amplitude < c[weakest].amplitude)
                weakest = i;
        c[weakest] = c[--n];
    }
    return n;
}

/* Receiver, noise and gating of one beam; writes its echoes to the frame's echo buffer. */
static size_t measure_beam(const frame_setup *f, lsim_echo_buffer *out, size_t beam, lsim_contribution *c, int n,
                           float background)
{
    lsim_receiver rx = f->receiver;
    rx.background = background;
    lsim_rng_stream rng = lsim_rng_stream_make(f->seed, f->frame, (uint64_t)beam);
    lsim_echo echoes[LSIM_MAX_RETURNS];
    int use_noise = f->noise && background > 0.0f;
    int m = n == 1 && !use_noise ? lsim_receiver_single(&rx, c, echoes)
                                 : lsim_receiver_echoes(&rx, c, n, use_noise ? &rng : NULL, echoes);
    size_t kept = 0, slot = beam * (size_t)out->slots;
    for (int k = 0; k < m; ++k) {
        float r = echoes[k].range, intensity = echoes[k].power;
        /* The surface of the contribution that dominates the echo's peak; none for a false echo
         * of ambient light. */
        static const lsim_contribution none = {0.0f, 0.0f, 0.0f, LSIM_NO_HIT, 1.0f, 0.0f, 0.0f, 0.0f};
        int dom = echoes[k].dominant;
        const lsim_contribution *d = dom >= 0 && dom < n ? &c[dom] : &none;
        const lsim_calib_material *cal = d->object != LSIM_NO_HIT ? f->surfaces->calibration[d->object] : NULL;
        if (cal) { /* measured with the real sensor: its statistics replace the parametric model */
            float incidence = acosf(fminf(1.0f, d->cos_incidence)) * 57.2957795f;
            if (!lsim_noise_calibrated(cal, incidence, f->noise, f->noise_model.range_min, f->range_resolution, &rng,
                                       &r, &intensity))
                continue;
        } else if (!lsim_noise_measure(&f->noise_model, &rng, &r, &intensity)) {
            continue;
        }
        if (f->noise && f->range_resolution > 0.0f) /* the sensor reports whole steps */
            r = roundf(r / f->range_resolution) * f->range_resolution;
        size_t s = slot + kept++;
        out->range[s] = r; /* the other arrays only where the frame's point fields need them */
        if (out->range_clean)
            out->range_clean[s] = dom >= 0 && dom < n ? d->range : echoes[k].range; /* the surface, noise-free */
        if (out->intensity)
            out->intensity[s] = intensity;
        if (out->epw)
            out->epw[s] = echoes[k].epw;
        if (out->cos_incidence)
            out->cos_incidence[s] = d->cos_incidence;
        if (out->nx) {
            out->nx[s] = d->nx;
            out->ny[s] = d->ny;
            out->nz[s] = d->nz;
        }
        if (out->object)
            out->object[s] = d->object;
    }
    out->count[beam] = (uint8_t)kept;
    return kept;
}

/* The beams [lo, hi) of one slice: rays, trace, optics, receiver, noise. */
/* Optics of beam lo + i: its sub-rays' paths (or its blooming echo) and fog, into c. */
static int beam_contributions(const frame_setup *f, const lsim_frame_workspace *ws, const lsim_frame_scratch *s,
                              size_t lo, size_t i, lsim_contribution *c, float *background)
{
    const int sub = f->subrays.count;
    int n = 0;
    float first = 0.0f;
    if (f->kernel) {
        const lsim_bloom_result *bl = &ws->bloom;
        size_t b = lo + i;
        if (bl->power[b] > 0.0f) {
            c[0] = (lsim_contribution){bl->range[b], bl->power[b], 0.0f, bl->object[b], bl->cos_incidence[b],
                                       bl->nx[b], bl->ny[b], bl->nz[b]};
            n = 1;
            first = bl->range[b];
        }
    } else {
        for (int k = 0; k < sub; ++k) {
            size_t r = i * (size_t)sub + (size_t)k;
            const float org[3] = {s->rays.ox[r], s->rays.oy[r], s->rays.oz[r]};
            const float dir[3] = {s->rays.dx[r], s->rays.dy[r], s->rays.dz[r]};
            const float ng[3] = {s->hits.ngx[r], s->hits.ngy[r], s->hits.ngz[r]};
            n = lsim_optics_follow(&f->optics, org, dir, s->hits.t[r], s->hits.object[r], ng, f->subrays.weight[k], c,
                                   n, LSIM_MAX_CONTRIBUTIONS, background);
            if (n > LSIM_MAX_CONTRIBUTIONS / 2) { /* room for the next sub-ray's path tree */
                n = merge_close(c, n, f->merge_tolerance);
                n = keep_strongest(c, n, LSIM_MAX_CONTRIBUTIONS / 2);
            }
            if (k == 0 && s->hits.object[r] != LSIM_NO_HIT)
                first = s->hits.t[r];
        }
        n = keep_strongest(c, n, LSIM_MAX_CONTRIBUTIONS);
    }
    if (f->fog.backscatter > 0.0f)
        n += lsim_fog_contributions(&f->fog, first > 0.0f ? first : f->optics.range_max, c + n);
    return n;
}

/* The beams [lo, hi) of one slice: rays and trace for the whole slice, then optics and
 * receiver/noise in batches whose contributions fit the thread's contribution buffer. */
static size_t run_slice(const frame_setup *f, lsim_scene *scene, lsim_frame_workspace *ws, lsim_frame_scratch *s,
                        size_t lo, size_t hi, double *trace_ms, double *shade_ms, double *noise_ms)
{
    const size_t m = hi - lo;
    double a = lsim_now_ms();
    if (!f->kernel) {
        lsim_rays_generate(f->sensor, &f->subrays, lo, m, &s->rays);
        lsim_engine_trace(scene->engine, &s->rays, m * (size_t)f->subrays.count, 0.0f, f->optics.range_max, &s->hits);
    }
    double b = lsim_now_ms();
    *trace_ms += b - a;
    size_t points = 0;
    for (size_t i = 0; i < m;) {
        double t0 = lsim_now_ms();
        size_t j = i, used = 0;
        for (; j < m && used + LSIM_BEAM_CONTRIBUTIONS <= LSIM_SLICE_CONTRIBUTIONS; ++j) {
            s->beam_background[j - i] = 0.0f;
            s->beam_start[j - i] = (uint32_t)used;
            int n = beam_contributions(f, ws, s, lo, j, s->contributions + used, &s->beam_background[j - i]);
            s->beam_count[j - i] = (uint16_t)n;
            used += (size_t)n;
        }
        double t1 = lsim_now_ms();
        for (size_t k = i; k < j; ++k)
            points += measure_beam(f, &ws->echoes, lo + k, s->contributions + s->beam_start[k - i],
                                   s->beam_count[k - i], s->beam_background[k - i]);
        double t2 = lsim_now_ms();
        *shade_ms += t1 - t0;
        *noise_ms += t2 - t1;
        i = j;
    }
    return points;
}

static void setup_frame(frame_setup *f, lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                        lsim_frame_workspace *ws)
{
    const lsim_sensor_spec *spec = &sensor->spec;
    memset(f, 0, sizeof *f);
    f->sensor = sensor;
    f->kernel = spec->beam.mode == LSIM_BEAM_KERNEL;
    const double divergence = spec->beam.divergence_mrad * 1e-3;
    lsim_subrays_make(&f->subrays, divergence, spec->beam.mode == LSIM_BEAM_RAYS ? spec->beam.rings : 0);
    lsim_optics *o = &f->optics;
    o->engine = scene->engine;
    o->surfaces = &ws->surfaces;
    o->max_bounces = scene->max_bounces;
    o->extinction = (float)scene->extinction;
    o->divergence = spec->beam.mode == LSIM_BEAM_SINGLE ? (float)divergence : 0.0f;
    o->range_max = (float)spec->range_max;
    o->baseline = spec->baseline[0] != 0.0 || spec->baseline[1] != 0.0 || spec->baseline[2] != 0.0;
    lsim_vec3 rx = lsim_v3_add(sensor->pose.t, lsim_mat3_mul(&sensor->pose.r, lsim_v3(spec->baseline[0],
                                                                                      spec->baseline[1],
                                                                                      spec->baseline[2])));
    o->receiver[0] = (float)rx.x;
    o->receiver[1] = (float)rx.y;
    o->receiver[2] = (float)rx.z;
    for (int k = 0; k < 3; ++k)
        o->sun[k] = (float)scene->sun_direction[k];
    /* Background of a white surface facing the sun, in intensity units: E Omega / P_t with the
     * receiver's field of view Omega = pi (divergence / 2)^2 (at least 1 mrad). */
    double half = 0.5 * (divergence > 1e-3 ? divergence : 1e-3);
    o->sun_level = (float)(scene->sun_irradiance * 3.14159265358979 * half * half / spec->receiver.peak_power_w);
    f->threshold = spec->detection_reflectance / (spec->range_max * spec->range_max);
    f->receiver.pulse_width_ns = spec->receiver.pulse_width_ns;
    f->receiver.threshold = f->threshold;
    f->receiver.mode = (lsim_return_mode)spec->receiver.mode;
    f->receiver.max_returns = spec->receiver.max_returns;
    f->receiver.shot_noise = shot_noise_coefficient(&spec->receiver);
    f->receiver.max_range = spec->range_max;
    f->merge_tolerance = (float)(0.5 * lsim_pulse_range_fwhm(spec->receiver.pulse_width_ns) / 2.3548200450309493);
    lsim_fog_setup(&f->fog, scene->extinction, scene->backscatter, spec->range_min, spec->receiver.pulse_width_ns);
    f->noise_model = (lsim_noise_model){options->noise, (float)spec->range_sigma, (float)spec->intensity_sigma,
                                        (float)f->threshold, (float)spec->range_min};
    f->noise = options->noise;
    f->surfaces = &ws->surfaces;
    f->range_resolution = (float)spec->range_resolution;
    f->seed = options->seed;
    f->frame = options->frame_index;
}

/* The frame up to the echoes (no point emission): commit, workspace sized for `fields`, the frame
 * loop. Fills `stats` except write_ms; noise_ms and total_ms do not yet count the emission. */
static lsim_status frame_measure(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                                 lsim_frame_workspace *ws, uint32_t fields, int threads, lsim_scan_stats *stats)
{
    lsim_context *ctx = scene->ctx;
    const lsim_sensor_spec *spec = &sensor->spec;
    const size_t n = sensor->beams.count;
    double t0 = lsim_now_ms();
    lsim_status st = lsim_scene_commit(scene);
    if (st != LSIM_OK)
        return st;
    double t1 = lsim_now_ms();
    st = lsim_frame_workspace_reserve(ctx, ws, n, spec->receiver.max_returns, scene->object_count, threads, fields);
    if (st != LSIM_OK)
        return st;
    fill_surfaces(scene, ws);
    frame_setup f;
    setup_frame(&f, scene, sensor, options, ws);
    double bloom_ms = 0.0;
    if (f.kernel) {
        double b0 = lsim_now_ms();
        st = lsim_frame_bloom(scene, sensor, &f.optics, f.threshold, threads, ws);
        if (st != LSIM_OK)
            return st;
        bloom_ms = lsim_now_ms() - b0;
    }

    const size_t chunk = ws->chunk = lsim_frame_chunk(n, threads, f.subrays.count);
    const size_t chunks = (n + chunk - 1) / chunk;
    double trace_ms = 0.0, shade_ms = 0.0, noise_ms = 0.0;
    double t2s = lsim_now_ms();
#pragma omp parallel num_threads(threads) reduction(+ : trace_ms, shade_ms, noise_ms)
    {
        lsim_frame_scratch *s = &ws->scratch[omp_get_thread_num()];
#pragma omp for schedule(dynamic, 1)
        for (size_t c = 0; c < chunks; ++c) {
            size_t lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
            ws->chunk_points[c + 1] = run_slice(&f, scene, ws, s, lo, hi, &trace_ms, &shade_ms, &noise_ms);
        }
    }
    double t2 = lsim_now_ms();
    size_t echoes = 0, returned = 0;
    for (size_t c = 0; c < chunks; ++c)
        echoes += ws->chunk_points[c + 1];
    for (size_t i = 0; i < n; ++i)
        returned += ws->echoes.count[i] > 0;

    memset(stats, 0, sizeof *stats);
    stats->rays = n;
    stats->hits = echoes;
    stats->beams_returned = returned;
    stats->build_ms = (t1 - t0) > 0.001 ? scene->build_ms : 0.0;
    /* Wall time of the frame loop split by each stage's share of the threads' time; the blooming
     * render counts as tracing. */
    double busy = trace_ms + shade_ms + noise_ms, wall = t2 - t2s;
    double scale = busy > 0.0 ? wall / busy : 0.0;
    stats->trace_ms = trace_ms * scale + bloom_ms;
    stats->shade_ms = shade_ms * scale;
    stats->noise_ms = noise_ms * scale;
    stats->load_ms = scene->load_ms;
    stats->total_ms = scene->load_ms + stats->build_ms + (t2 - t1);
    return LSIM_OK;
}

/* PCD VIEWPOINT: where the sensor is in the points' frame (identity in the sensor frame). */
static void frame_viewpoint(const lsim_sensor *sensor, const lsim_scan_options *options, double viewpoint[7])
{
    if (options->frame != LSIM_FRAME_WORLD)
        return;
    viewpoint[0] = sensor->pose.t.x;
    viewpoint[1] = sensor->pose.t.y;
    viewpoint[2] = sensor->pose.t.z;
    lsim_mat3_to_quat(&sensor->pose.r, &viewpoint[3]);
}

lsim_status lsim_frame_run(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                           lsim_frame_workspace *ws, lsim_points *points)
{
    lsim_context *ctx = scene->ctx;
    if (points->capacity < lsim_frame_point_capacity(sensor))
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "point buffer holds %zu points, the sensor needs %zu (beams x max returns)", points->capacity,
                         lsim_frame_point_capacity(sensor));
    const int threads = lsim_threads_resolve(options->threads);
    const uint32_t fields = lsim_frame_fields(options, points->fields);
    lsim_scan_stats stats;
    lsim_status st = frame_measure(scene, sensor, options, ws, fields, threads, &stats);
    if (st != LSIM_OK)
        return st;
    double t2 = lsim_now_ms();
    lsim_points_emit(sensor, ws, options, fields, points, threads);
    double emit_ms = lsim_now_ms() - t2;
    frame_viewpoint(sensor, options, points->viewpoint);
    /* Point emission counts with noise (both end in the point buffer). */
    stats.noise_ms += emit_ms;
    stats.total_ms += emit_ms;
    points->stats = stats;
    return LSIM_OK;
}

static lsim_status validate_options(lsim_context *ctx, const lsim_scan_options *o)
{
    if (o->threads < 0 || o->threads > 1024)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "threads %d must be in 0..1024 (0: all cores)", o->threads);
    if (o->frame != LSIM_FRAME_SENSOR && o->frame != LSIM_FRAME_WORLD)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "frame must be LSIM_FRAME_SENSOR or LSIM_FRAME_WORLD");
    if (o->noise != 0 && o->noise != 1)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "noise must be 0 or 1");
    if (o->fields & ~LSIM_FIELDS_ALL)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "fields 0x%x has bits of no field; use LSIM_FIELD_BIT(LSIM_FIELD_...) bits (0: every field)",
                         (unsigned)o->fields);
    return LSIM_OK;
}

lsim_status lsim_scene_scan(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                            lsim_points **out_points)
{
    if (!scene || !sensor || !out_points)
        return lsim_fail(scene ? scene->ctx : NULL, LSIM_ERR_INVALID_ARGUMENT,
                         "lsim_scene_scan: scene, sensor and out_points must not be NULL");
    lsim_context *ctx = scene->ctx;
    lsim_scan_options defaults;
    if (!options) {
        lsim_scan_options_init(&defaults);
        options = &defaults;
    }
    lsim_status st = validate_options(ctx, options);
    if (st != LSIM_OK)
        return st;
    lsim_points *points = NULL;
    st = lsim_points_alloc_fields(ctx, lsim_frame_point_capacity(sensor), options->fields, &points);
    if (st != LSIM_OK)
        return st;
    st = lsim_points_set_labels(points, scene->labels.names.entries, scene->labels.names.count);
    lsim_frame_workspace ws;
    memset(&ws, 0, sizeof ws);
    if (st == LSIM_OK)
        st = lsim_frame_run(scene, sensor, options, &ws, points);
    lsim_frame_workspace_free(&ws);
    if (st != LSIM_OK) {
        lsim_points_destroy(points);
        return st;
    }
    *out_points = points;
    return LSIM_OK;
}

lsim_status lsim_scan_write_sliced(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                                   const char *path, lsim_format format, size_t slice_points,
                                   lsim_scan_stats *out_stats)
{
    if (!scene || !sensor || !path)
        return lsim_fail(scene ? scene->ctx : NULL, LSIM_ERR_INVALID_ARGUMENT,
                         "lsim_scene_scan_write: scene, sensor and path must not be NULL");
    lsim_context *ctx = scene->ctx;
    if (!*path)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "lsim_scene_scan_write: the output path is empty: give a file name");
    lsim_scan_options defaults;
    if (!options) {
        lsim_scan_options_init(&defaults);
        options = &defaults;
    }
    lsim_status st = validate_options(ctx, options);
    lsim_format resolved = LSIM_FORMAT_AUTO;
    if (st == LSIM_OK) /* before the (possibly long) frame */
        st = lsim_format_resolve(ctx, path, format, &resolved);
    if (st == LSIM_OK && resolved == LSIM_FORMAT_KITTI)
        st = lsim_kitti_check_path(ctx, path);
    if (st != LSIM_OK)
        return st;
    /* The frame keeps what the format writes, whatever options->fields says. */
    const uint32_t fields = lsim_format_fields(resolved);
    const int threads = lsim_threads_resolve(options->threads);
    lsim_frame_workspace ws;
    memset(&ws, 0, sizeof ws);
    lsim_scan_stats stats;
    lsim_points *slice = NULL;
    st = frame_measure(scene, sensor, options, &ws, fields, threads, &stats);
    if (st != LSIM_OK) {
        lsim_frame_workspace_free(&ws);
        return st;
    }
    if (out_stats) /* the frame is computed: a failure from here on is the output's */
        *out_stats = stats;
    double t0 = lsim_now_ms();
    const size_t n = sensor->beams.count, chunk = ws.chunk, chunks = (n + chunk - 1) / chunk;
    const size_t total = lsim_points_emit_offsets(sensor, &ws, options);
    const size_t *offset = ws.chunk_points; /* [c]: first point of frame slice c; [chunks]: total */
    /* One write slice holds whole frame slices: at least one frame slice's points at most, and no
     * more than the frame's points. */
    const size_t slots = (size_t)(sensor->spec.receiver.max_returns > 0 ? sensor->spec.receiver.max_returns : 1);
    size_t cap = slice_points > chunk * slots ? slice_points : chunk * slots;
    if (cap > total)
        cap = total;
    st = lsim_points_alloc_fields(ctx, cap, fields, &slice);
    if (st == LSIM_OK)
        st = lsim_points_set_labels(slice, scene->labels.names.entries, scene->labels.names.count);
    if (st != LSIM_OK) {
        lsim_points_destroy(slice);
        lsim_frame_workspace_free(&ws);
        return st;
    }
    frame_viewpoint(sensor, options, slice->viewpoint);
    lsim_point_stream stream;
    st = lsim_point_stream_begin(&stream, ctx, path, resolved, total, slice->viewpoint, slice->labels,
                                 slice->label_count);
    for (size_t c = 0; st == LSIM_OK && c < chunks;) {
        size_t e = c + 1;
        while (e < chunks && offset[e + 1] - offset[c] <= cap)
            ++e;
        lsim_points_emit_range(sensor, &ws, options, fields, slice, threads, c, e);
        st = lsim_point_stream_append(&stream, slice);
        c = e;
    }
    st = lsim_point_stream_finish(&stream, st);
    lsim_points_destroy(slice);
    lsim_frame_workspace_free(&ws);
    if (st != LSIM_OK)
        return st;
    stats.write_ms = lsim_now_ms() - t0; /* point emission and writing, interleaved */
    stats.total_ms += stats.write_ms;
    if (out_stats)
        *out_stats = stats;
    return LSIM_OK;
}

lsim_status lsim_scene_scan_write(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                                  const char *path, lsim_format format, lsim_scan_stats *out_stats)
{
    return lsim_scan_write_sliced(scene, sensor, options, path, format, LSIM_WRITE_SLICE_POINTS, out_stats);
}
