/* raw_embree_bench: the reference alone — raw Embree rtcIntersect1 on the benchmark mesh and
 * the benchmark's rotating 128-channel pattern (the rays lidarsim's ray generation makes).
 * `lidarsim bench` runs this side by side with the full lidarsim frame; this program times the
 * reference on its own. Usage: raw_embree_bench [BEAMS] [THREADS] */
#include "bench/bench_scene.h"
#include "geometry/embree_reference.h"

#include "lidarsim.h"
#include "pipeline/frame.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    size_t beams = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    int threads = argc > 2 ? atoi(argv[2]) : 2;
    if (beams < 128 || beams > 100000000 || threads < 1 || threads > 1024) {
        fprintf(stderr, "usage: raw_embree_bench [BEAMS (128..1e8)] [THREADS (1..1024)]\n");
        return 2;
    }
    int rc = 1;
    lsim_bench_mesh mesh = {0};
    lsim_context *ctx = NULL;
    lsim_sensor *sensor = NULL;
    lsim_raw_embree *raw = NULL;
    lsim_rays rays = {0};
    float *t = NULL, *ng = NULL;
    uint32_t *ids = NULL;
    double elev[128];
    lsim_bench_elevations(elev);
    const double zero[3] = {0, 0, 0};
    if (lsim_bench_mesh_make(1000000, &mesh) || lsim_context_create(&ctx) != LSIM_OK ||
        lsim_sensor_create_rotating(ctx, 128, elev, (int)((beams + 127) / 128), 10.0, &sensor) != LSIM_OK ||
        lsim_sensor_set_pose(sensor, zero, zero) != LSIM_OK) {
        fprintf(stderr, "raw_embree_bench: setup failed: %s\n", ctx ? lsim_context_last_error(ctx) : "out of memory");
        goto done;
    }
    size_t n = lsim_sensor_beam_count(sensor);
    t = malloc(n * sizeof *t);
    ng = malloc(3 * n * sizeof *ng);
    ids = malloc(2 * n * sizeof *ids);
    raw = lsim_raw_embree_create(mesh.vertices, mesh.vertex_count, mesh.indices, mesh.triangle_count);
    if (!t || !ng || !ids || !raw || lsim_rays_alloc(&rays, n)) {
        fprintf(stderr, "raw_embree_bench: out of memory for %zu beams\n", n);
        goto done;
    }
    lsim_rays_generate(sensor, NULL, 0, n, 100.0f, &rays);
    double best = 1e300;
    size_t hits = 0;
    for (int k = 0; k < 5; ++k) {
        double ms = lsim_raw_embree_trace(raw, n, rays.ox, rays.oy, rays.oz, rays.dx, rays.dy, rays.dz, 100.0f,
                                          threads, t, ids, ids + n, ng, &hits);
        best = ms < best ? ms : best;
    }
    printf("{\"beams\": %zu, \"triangles\": %zu, \"threads\": %d, \"raw_embree_ms\": %.3f, \"mrays_per_s\": %.2f, "
           "\"hits\": %zu}\n",
           n, mesh.triangle_count, threads, best, (double)n / best / 1e3, hits);
    rc = 0;
done:
    lsim_rays_free(&rays);
    lsim_raw_embree_destroy(raw);
    lsim_sensor_destroy(sensor);
    lsim_context_destroy(ctx);
    free(t);
    free(ng);
    free(ids);
    lsim_bench_mesh_free(&mesh);
    return rc;
}
