/* Benchmark workload: a closed, bumpy sphere "room" of about 1M triangles around the sensor,
 * so every beam hits, and a rotating 128-channel pattern of any beam count. */
#ifndef LSIM_BENCH_SCENE_H
#define LSIM_BENCH_SCENE_H

#include <stddef.h>
#include <stdint.h>

typedef struct lsim_bench_mesh {
    float *vertices;   /* xyz */
    uint32_t *indices; /* 3 per triangle */
    size_t vertex_count, triangle_count;
} lsim_bench_mesh;

/* About `triangles` triangles (rounded to the grid), radius ~20 m, centred on the origin. */
int lsim_bench_mesh_make(size_t triangles, lsim_bench_mesh *mesh);
void lsim_bench_mesh_free(lsim_bench_mesh *mesh);

/* Elevations of the 128-channel benchmark pattern, -30..+30 degrees. */
void lsim_bench_elevations(double elevations_deg[128]);

#endif
