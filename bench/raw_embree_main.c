/* raw_embree_bench: the reference alone — raw Embree rtcIntersect1 on the benchmark mesh and
 * the benchmark's rotating 128-channel pattern. `lidarsim bench` runs this side by side with
 * the full lidarsim frame; this program exists to time the reference on its own. */
#include "bench_scene.h"
#include "raw_embree.h"

#include "lidarsim.h"

#include <stdio.h>
#include <math.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    size_t beams = argc > 1 ? strtoull(argv[1], NULL, 10) : 1000000;
    int threads = argc > 2 ? atoi(argv[2]) : 2;
    if (beams < 128 || beams > 100000000 || threads < 1 || threads > 1024) {
        fprintf(stderr, "usage: raw_embree_bench [BEAMS (128..1e8)] [THREADS (1..1024)]\n");
        return 2;
    }
    lsim_bench_mesh mesh;
    if (lsim_bench_mesh_make(1000000, &mesh)) {
        fprintf(stderr, "raw_embree_bench: out of memory\n");
        return 1;
    }
    lsim_context *ctx;
    lsim_sensor *sensor = NULL;
    double elev[128];
    lsim_bench_elevations(elev);
    if (lsim_context_create(&ctx) != LSIM_OK ||
        lsim_sensor_create_rotating(ctx, 128, elev, (int)((beams + 127) / 128), 10.0, &sensor) != LSIM_OK) {
        fprintf(stderr, "raw_embree_bench: %s\n", ctx ? lsim_context_last_error(ctx) : "out of memory");
        return 1;
    }
    size_t n = lsim_sensor_beam_count(sensor);
    double *az = malloc(n * sizeof *az), *el = malloc(n * sizeof *el);
    float *buf = malloc(13 * n * sizeof(float));
    uint32_t *ids = malloc(2 * n * sizeof(uint32_t));
    lsim_raw_embree *raw = lsim_raw_embree_create(&mesh);
    if (!az || !el || !buf || !ids || !raw || lsim_sensor_get_beams(sensor, az, el, NULL, NULL) != LSIM_OK) {
        fprintf(stderr, "raw_embree_bench: setup failed\n");
        return 1;
    }
    float *o = buf, *d = buf + 3 * n, *t = buf + 6 * n, *ng = buf + 7 * n;
    for (size_t i = 0; i < n; ++i) {
        double a = az[i] * 0.017453292519943295, e = el[i] * 0.017453292519943295;
        o[i] = o[n + i] = o[2 * n + i] = 0.0f;
        d[i] = (float)(cos(e) * cos(a));
        d[n + i] = (float)(cos(e) * sin(a));
        d[2 * n + i] = (float)sin(e);
    }
    double best = 1e300;
    size_t hits = 0;
    for (int k = 0; k < 5; ++k) {
        double ms = lsim_raw_embree_trace(raw, n, o, o + n, o + 2 * n, d, d + n, d + 2 * n, 100.0f, threads, t,
                                          ids, ids + n, ng, &hits);
        best = ms < best ? ms : best;
    }
    printf("{\"beams\": %zu, \"triangles\": %zu, \"threads\": %d, \"raw_embree_ms\": %.3f, \"mrays_per_s\": %.2f, "
           "\"hits\": %zu}\n",
           n, mesh.triangle_count, threads, best, (double)n / best / 1e3, hits);
    lsim_raw_embree_destroy(raw);
    lsim_sensor_destroy(sensor);
    lsim_context_destroy(ctx);
    free(az);
    free(el);
    free(buf);
    free(ids);
    lsim_bench_mesh_free(&mesh);
    return 0;
}
