#include "bench/bench_pulses.h"

#include "core/clock.h"
#include "geometry/embree_reference.h"
#include "geometry/engine.h"
#include "lidarsim.h"
#include "optics/subrays.h"
#include "pipeline/frame.h"
#include "pipeline/frame_cache.h"
#include "scene/scene.h"
#include "sensor/sensor.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VLP16_DIVERGENCE_MRAD 3.0 /* the vlp16 preset's beam divergence (sensor/presets.c) */

static int run_case(lsim_scene *scene, lsim_sensor *sensor, lsim_points *points, int threads, int repeat,
                    lsim_beam_mode mode, int rings, size_t pulses, lsim_bench_pulses_case *out, char *error,
                    size_t error_size, lsim_context *ctx)
{
    memset(out, 0, sizeof *out);
    if (lsim_sensor_set_beam(sensor, VLP16_DIVERGENCE_MRAD, mode, rings > 0 ? rings : 1) != LSIM_OK) {
        snprintf(error, error_size, "beam settings: %s", lsim_context_last_error(ctx));
        return -1;
    }
    out->rings = mode == LSIM_BEAM_RAYS ? rings : 0;
    out->rays_per_pulse = 1 + 3 * out->rings * (out->rings + 1);
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.threads = threads;
    out->frame_ms = 1e300;
    for (int k = 0; k <= repeat; ++k) { /* the first frame warms the workspace and is not counted */
        opt.frame_index = (uint32_t)k;
        double t0 = lsim_now_ms();
        if (lsim_scene_scan_into(scene, sensor, &opt, points) != LSIM_OK) {
            snprintf(error, error_size, "scan failed: %s", lsim_context_last_error(ctx));
            return -1;
        }
        double ms = lsim_now_ms() - t0;
        if (k == 0 || ms >= out->frame_ms)
            continue;
        lsim_scan_stats st;
        lsim_points_get_stats(points, &st);
        out->frame_ms = ms;
        out->trace_ms = st.trace_ms;
        out->shade_ms = st.shade_ms;
        out->noise_ms = st.noise_ms;
        out->points = st.hits;
    }
    out->pulses_per_s = (double)pulses / (out->frame_ms * 1e-3);
    out->rays_per_s = out->pulses_per_s * out->rays_per_pulse;
    return 0;
}

#define TRACE_SLICE 2048 /* pulses per slice for the engine-only trace */

/* The rays of every pulse of the case's frame (sub-rays of pulse b at b * count + s), traced
 * alone: lidarsim's engine by slices on `threads` threads, and raw Embree. Best of `repeat`. */
static int trace_alone(lsim_scene *scene, const lsim_sensor *sensor, lsim_raw_embree *raw, int threads, int repeat,
                       lsim_bench_pulses_case *out)
{
    const size_t pulses = sensor->beams.count;
    lsim_subrays sub;
    lsim_subrays_make(&sub, out->rings > 0 ? VLP16_DIVERGENCE_MRAD * 1e-3 : 0.0, out->rings, LSIM_SUBRAYS_RINGS);
    const size_t per = (size_t)sub.count, n = pulses * per;
    const lsim_engine *engine = lsim_scene_engine(scene); /* the frames' (committed: pipeline/frame_cache.h) */
    const float range_max = (float)sensor->spec.range_max;
    lsim_rays rays;
    lsim_hits hits;
    memset(&rays, 0, sizeof rays);
    memset(&hits, 0, sizeof hits);
    float *t = malloc(n * sizeof *t), *ng = malloc(3 * n * sizeof *ng);
    uint32_t *geom = malloc(n * sizeof *geom), *prim = malloc(n * sizeof *prim);
    int rc = -1;
    if (!t || !ng || !geom || !prim || lsim_rays_alloc(&rays, n) || lsim_hits_alloc(&hits, n))
        goto done;
    lsim_rays_generate(sensor, &sub, 0, pulses, range_max, &rays);
    out->engine_trace_ms = out->raw_embree_ms = 1e300;
    const size_t slices = (pulses + TRACE_SLICE - 1) / TRACE_SLICE;
    for (int k = 0; k < repeat; ++k) {
        double t0 = lsim_now_ms();
#pragma omp parallel for num_threads(threads > 0 ? threads : omp_get_num_procs()) schedule(dynamic, 1)
        for (size_t c = 0; c < slices; ++c) {
            const size_t lo = c * TRACE_SLICE * per, m = (c + 1 < slices ? TRACE_SLICE : pulses - c * TRACE_SLICE) * per;
            lsim_rays r = {m, rays.ox + lo, rays.oy + lo, rays.oz + lo, rays.dx + lo, rays.dy + lo, rays.dz + lo,
                           rays.time + lo, rays.tnear + lo, rays.tfar + lo, rays.mask + lo, 0, NULL, 0.0};
            lsim_hits h = {hits.t + lo, hits.object + lo, hits.primitive + lo, hits.u + lo, hits.v + lo,
                           hits.ngx + lo, hits.ngy + lo, hits.ngz + lo};
            lsim_engine_intersect(engine, &r, m, &h);
        }
        double ms = lsim_now_ms() - t0;
        if (ms < out->engine_trace_ms)
            out->engine_trace_ms = ms;
        size_t raw_hits = 0;
        ms = lsim_raw_embree_trace(raw, n, rays.ox, rays.oy, rays.oz, rays.dx, rays.dy, rays.dz, range_max,
                                   threads > 0 ? threads : omp_get_num_procs(), t, geom, prim, ng, &raw_hits);
        if (ms < out->raw_embree_ms)
            out->raw_embree_ms = ms;
    }
    rc = 0;
done:
    lsim_rays_free(&rays);
    lsim_hits_free(&hits);
    free(t);
    free(ng);
    free(geom);
    free(prim);
    return rc;
}

int lsim_bench_pulses_run(const lsim_bench_mesh *mesh, int threads, int repeat, int rings,
                          lsim_bench_pulses_result *out, char *error, size_t error_size)
{
    memset(out, 0, sizeof *out);
    lsim_context *ctx = NULL;
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    lsim_points *points = NULL;
    lsim_raw_embree *raw = NULL;
    int rc = -1;
    lsim_object_desc desc;
    lsim_object_desc_init(&desc);
    const double zero[3] = {0, 0, 0};
    if (lsim_context_create(&ctx) != LSIM_OK || lsim_scene_create(ctx, &scene) != LSIM_OK ||
        lsim_scene_add_triangles(scene, mesh->vertices, mesh->vertex_count, mesh->indices, mesh->triangle_count,
                                 &desc) != LSIM_OK ||
        lsim_scene_commit(scene) != LSIM_OK || lsim_sensor_create_preset(ctx, "vlp16", &sensor) != LSIM_OK ||
        lsim_sensor_set_pose(sensor, zero, zero) != LSIM_OK || lsim_points_create(ctx, &points) != LSIM_OK) {
        snprintf(error, error_size, "setup failed: %s", ctx ? lsim_context_last_error(ctx) : "out of memory");
        goto done;
    }
    out->pulses = lsim_sensor_beam_count(sensor);
    out->triangles = mesh->triangle_count;
    out->threads = threads > 0 ? threads : omp_get_num_procs();
    if (run_case(scene, sensor, points, threads, repeat, LSIM_BEAM_SINGLE, 0, out->pulses, &out->single, error,
                 error_size, ctx) ||
        run_case(scene, sensor, points, threads, repeat, LSIM_BEAM_RAYS, rings, out->pulses, &out->rays, error,
                 error_size, ctx))
        goto done;
    raw = lsim_raw_embree_create(mesh->vertices, mesh->vertex_count, mesh->indices, mesh->triangle_count);
    if (!raw || trace_alone(scene, sensor, raw, threads, repeat, &out->single) ||
        trace_alone(scene, sensor, raw, threads, repeat, &out->rays)) {
        snprintf(error, error_size, "out of memory for the rays traced alone");
        goto done;
    }
    rc = 0;
done:
    lsim_raw_embree_destroy(raw);
    lsim_points_destroy(points);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return rc;
}
