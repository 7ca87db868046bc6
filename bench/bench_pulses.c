#include "bench_pulses.h"

#include "core/clock.h"
#include "lidarsim.h"

#include <omp.h>
#include <stdio.h>
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

int lsim_bench_pulses_run(const lsim_bench_mesh *mesh, int threads, int repeat, int rings,
                          lsim_bench_pulses_result *out, char *error, size_t error_size)
{
    memset(out, 0, sizeof *out);
    lsim_context *ctx = NULL;
    lsim_scene *scene = NULL;
    lsim_sensor *sensor = NULL;
    lsim_points *points = NULL;
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
    rc = 0;
done:
    lsim_points_destroy(points);
    lsim_sensor_destroy(sensor);
    lsim_scene_destroy(scene);
    lsim_context_destroy(ctx);
    return rc;
}
