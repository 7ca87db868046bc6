#include "bench/bench_frame.h"

#include "pipeline/frame.h"
#include "points/points.h"
#include "geometry/embree_reference.h"
#include "scene/scene.h"
#include "sensor/sensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lsim_bench_frame_run(const lsim_bench_mesh *mesh, size_t beams, int engine, int moving, int threads, int repeat,
                   uint32_t fields, int noise, lsim_bench_frame_result *out, char *error, size_t error_size)
{
    memset(out, 0, sizeof *out);
    lsim_context *ctx = NULL;
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    lsim_points *points = NULL;
    lsim_raw_embree *raw = NULL;
    lsim_frame_workspace ws;
    memset(&ws, 0, sizeof ws);
    lsim_rays rays = {0};
    float *t = NULL, *ng = NULL;
    uint32_t *geom = NULL, *prim = NULL;
    int rc = -1;

    double elev[128];
    lsim_bench_elevations(elev);
    int columns = (int)((beams + 127) / 128);
    lsim_object_desc desc;
    lsim_object_desc_init(&desc);
    lsim_scan_options opt;
    lsim_scan_options_init(&opt);
    opt.threads = threads;
    opt.fields = fields;
    opt.noise = noise;
    const double zero[3] = {0, 0, 0}, velocity[3] = {10, 0, 0}, turn[3] = {0, 0, 30};

    if (lsim_context_create(&ctx) != LSIM_OK || lsim_scene_create(ctx, &scene) != LSIM_OK ||
        lsim_scene_set_engine(scene, (lsim_engine_kind)engine) != LSIM_OK ||
        lsim_scene_add_triangles(scene, mesh->vertices, mesh->vertex_count, mesh->indices, mesh->triangle_count,
                                 &desc) != LSIM_OK ||
        lsim_scene_commit(scene) != LSIM_OK ||
        lsim_sensor_create_rotating(ctx, 128, elev, columns, 10.0, &sensor) != LSIM_OK ||
        lsim_sensor_set_pose(sensor, zero, zero) != LSIM_OK || lsim_sensor_set_range(sensor, 0.0, 100.0) != LSIM_OK ||
        (moving && lsim_sensor_set_motion(sensor, velocity, turn) != LSIM_OK) ||
        lsim_points_alloc(ctx, lsim_frame_point_capacity(sensor), &points) != LSIM_OK) {
        snprintf(error, error_size, "setup failed: %s", ctx ? lsim_context_last_error(ctx) : "out of memory");
        goto done;
    }
    size_t n = lsim_sensor_beam_count(sensor);
    raw = lsim_raw_embree_create(mesh->vertices, mesh->vertex_count, mesh->indices, mesh->triangle_count);
    t = malloc(n * sizeof *t);
    ng = malloc(3 * n * sizeof *ng);
    geom = malloc(n * sizeof *geom);
    prim = malloc(n * sizeof *prim);
    if (!raw || !t || !ng || !geom || !prim || lsim_rays_alloc(&rays, n)) {
        snprintf(error, error_size, "out of memory for %zu beams", n);
        goto done;
    }
    out->beams = n;
    out->triangles = mesh->triangle_count;
    out->threads = lsim_threads_resolve(threads);
    out->engine = engine;
    out->moving = moving;
    out->raw_ms = out->frame_ms = 1e300;
    lsim_sensor framed = *sensor; /* the frame's copy, as the pipeline makes it: rays from each beam's pose */
    framed.frame_start = 0.0;
    framed.pose = lsim_sensor_pose_at(sensor, 0.0);
    framed.frame_moves = moving;
    framed.frame_of = sensor;
    lsim_rays_generate(&framed, NULL, 0, n, 100.0f, &rays); /* the rays the frame casts */
    for (int k = 0; k < repeat; ++k) {
        if (moving) /* successive frames of the drive: nothing drawn for one frame serves the next */
            opt.scan_time = 0.1 * k;
        if (lsim_frame_run(scene, sensor, &opt, &ws, points) != LSIM_OK) {
            snprintf(error, error_size, "frame failed: %s", lsim_context_last_error(ctx));
            goto done;
        }
        double frame = points->stats.trace_ms + points->stats.shade_ms + points->stats.noise_ms;
        if (k == 0)
            out->first_ms = frame;
        if ((k > 0 || repeat == 1) && frame < out->frame_ms) {
            out->frame_ms = frame;
            out->trace_ms = points->stats.trace_ms;
            out->shade_ms = points->stats.shade_ms;
            out->noise_ms = points->stats.noise_ms;
            out->frame_points = points->count;
        }
        /* The same rays the frame casts, against the same mesh. */
        double ms = lsim_raw_embree_trace(raw, n, rays.ox, rays.oy, rays.oz, rays.dx, rays.dy, rays.dz, 100.0f,
                                          out->threads, t, geom, prim, ng, &out->raw_hits);
        if (ms < out->raw_ms)
            out->raw_ms = ms;
    }
    rc = 0;
done:
    lsim_rays_free(&rays);
    free(t);
    free(ng);
    free(geom);
    free(prim);
    lsim_raw_embree_destroy(raw);
    lsim_frame_workspace_free(&ws);
    lsim_points_destroy(points);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return rc;
}
