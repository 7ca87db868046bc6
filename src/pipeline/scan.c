/* lsim_scene_scan: one frame through every stage, timed per stage. */
#include "pipeline/frame.h"

#include "core/clock.h"
#include "core/context.h"
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

static void fill_surfaces(const lsim_scene *scene, lsim_frame_workspace *ws)
{
    for (size_t i = 0; i < scene->object_count; ++i) {
        const lsim_object *o = &scene->objects[i];
        ws->surfaces.reflectance[i] = (float)scene->materials[o->material].reflectance;
        ws->object_label[i] = o->label;
        ws->object_instance[i] = o->instance;
    }
}

lsim_status lsim_frame_run(lsim_scene *scene, const lsim_sensor *sensor, const lsim_scan_options *options,
                           lsim_frame_workspace *ws, lsim_points *points)
{
    lsim_context *ctx = scene->ctx;
    const lsim_sensor_spec *spec = &sensor->spec;
    const size_t n = sensor->beams.count;
    if (points->capacity < n)
        return lsim_fail(ctx, LSIM_ERR_INVALID_ARGUMENT, "point buffer holds %zu points, the sensor has %zu beams",
                         points->capacity, n);
    const int threads = lsim_threads_resolve(options->threads);
    double t0 = lsim_now_ms();
    lsim_status st = lsim_scene_commit(scene);
    if (st != LSIM_OK)
        return st;
    double t1 = lsim_now_ms();
    st = lsim_frame_workspace_reserve(ctx, ws, n, scene->object_count, threads);
    if (st != LSIM_OK)
        return st;
    fill_surfaces(scene, ws);

    lsim_noise_model noise = {
        .enabled = options->noise,
        .range_sigma = spec->range_sigma,
        .intensity_sigma = spec->intensity_sigma,
        .intensity_threshold = spec->detection_reflectance / (spec->range_max * spec->range_max),
        .range_min = spec->range_min,
        .seed = options->seed,
        .frame = options->frame_index,
    };
    /* Stages run chunk by chunk so a chunk's rays, hits and returns stay in cache between
     * stages; each stage is a plain function over an index range of the frame's arrays. */
    const size_t chunk = ws->chunk = lsim_frame_chunk(n, threads);
    const size_t chunks = (n + chunk - 1) / chunk;
    const float tfar = (float)spec->range_max;
    double trace_ms = 0.0, shade_ms = 0.0, noise_ms = 0.0;
#pragma omp parallel num_threads(threads) reduction(+ : trace_ms, shade_ms, noise_ms)
    {
#pragma omp for schedule(dynamic, 1)
        for (size_t c = 0; c < chunks; ++c) {
            size_t lo = c * chunk, hi = lo + chunk < n ? lo + chunk : n;
            lsim_frame_scratch *s = &ws->scratch[omp_get_thread_num()];
            lsim_returns returns = lsim_returns_at(&ws->returns, lo);
            lsim_measurements measured = lsim_measurements_at(&ws->measured, lo);
            double a = lsim_now_ms();
            lsim_rays_generate(sensor, lo, hi - lo, &s->rays);
            lsim_engine_trace(scene->engine, &s->rays, hi - lo, 0.0f, tfar, &s->hits);
            double b = lsim_now_ms();
            lsim_optics_shade(&s->rays, &s->hits, &ws->surfaces, hi - lo, &returns);
            double d = lsim_now_ms();
            ws->chunk_points[c + 1] = lsim_noise_apply(&noise, &returns, lo, hi - lo, &measured);
            double e = lsim_now_ms();
            trace_ms += b - a;
            shade_ms += d - b;
            noise_ms += e - d;
        }
    }
    double t2 = lsim_now_ms();
    size_t hits = 0;
    for (size_t c = 0; c < chunks; ++c)
        hits += ws->chunk_points[c + 1];
    lsim_points_emit(sensor, ws, options, points, threads);
    double t4 = lsim_now_ms();

    if (options->frame == LSIM_FRAME_WORLD) { /* PCD VIEWPOINT: where the sensor is in these points */
        points->viewpoint[0] = sensor->pose.t.x;
        points->viewpoint[1] = sensor->pose.t.y;
        points->viewpoint[2] = sensor->pose.t.z;
        lsim_mat3_to_quat(&sensor->pose.r, &points->viewpoint[3]);
    }
    points->stats.rays = n;
    points->stats.hits = hits;
    points->stats.build_ms = (t1 - t0) > 0.001 ? scene->build_ms : 0.0;
    /* Wall time of the fused loop split by each stage's share of the threads' time; point
     * emission is counted with noise (both end in the point buffer). */
    double busy = trace_ms + shade_ms + noise_ms, wall = t2 - t1;
    double scale = busy > 0.0 ? wall / busy : 0.0;
    points->stats.trace_ms = trace_ms * scale;
    points->stats.shade_ms = shade_ms * scale;
    points->stats.noise_ms = noise_ms * scale + (t4 - t2);
    points->stats.load_ms = scene->load_ms;
    points->stats.total_ms = scene->load_ms + points->stats.build_ms + (t4 - t1);
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
    st = lsim_points_alloc(ctx, sensor->beams.count, &points);
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
