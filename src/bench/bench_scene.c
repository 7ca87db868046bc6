#include "bench/bench_scene.h"

#include <math.h>
#include <stdlib.h>

int lsim_bench_mesh_make(size_t triangles, lsim_bench_mesh *mesh)
{
    /* UV sphere: lat x lon quads, 2 triangles each, lon = 2 lat. */
    size_t lat = (size_t)sqrt((double)triangles / 4.0);
    if (lat < 4)
        lat = 4;
    size_t lon = 2 * lat;
    mesh->vertex_count = (lat + 1) * lon;
    mesh->triangle_count = 2 * lat * lon;
    mesh->vertices = malloc(3 * mesh->vertex_count * sizeof(float));
    mesh->indices = malloc(3 * mesh->triangle_count * sizeof(uint32_t));
    if (!mesh->vertices || !mesh->indices) {
        lsim_bench_mesh_free(mesh);
        return -1;
    }
    const double pi = 3.14159265358979323846;
    for (size_t i = 0; i <= lat; ++i) {
        double theta = pi * (double)i / (double)lat; /* from +z down */
        for (size_t j = 0; j < lon; ++j) {
            double phi = 2.0 * pi * (double)j / (double)lon;
            double r = 20.0 + 1.5 * sin(7.0 * phi) * sin(5.0 * theta) + 0.5 * sin(31.0 * phi + 3.0 * theta);
            float *v = &mesh->vertices[3 * (i * lon + j)];
            v[0] = (float)(r * sin(theta) * cos(phi));
            v[1] = (float)(r * sin(theta) * sin(phi));
            v[2] = (float)(r * cos(theta));
        }
    }
    size_t t = 0;
    for (size_t i = 0; i < lat; ++i) {
        for (size_t j = 0; j < lon; ++j) {
            uint32_t a = (uint32_t)(i * lon + j), b = (uint32_t)(i * lon + (j + 1) % lon);
            uint32_t c = (uint32_t)((i + 1) * lon + j), d = (uint32_t)((i + 1) * lon + (j + 1) % lon);
            uint32_t *q = &mesh->indices[6 * t++];
            q[0] = a; q[1] = c; q[2] = b;
            q[3] = b; q[4] = c; q[5] = d;
        }
    }
    return 0;
}

void lsim_bench_mesh_free(lsim_bench_mesh *mesh)
{
    free(mesh->vertices);
    free(mesh->indices);
    mesh->vertices = NULL;
    mesh->indices = NULL;
}

void lsim_bench_elevations(double elevations_deg[128])
{
    for (int i = 0; i < 128; ++i)
        elevations_deg[i] = -30.0 + 60.0 * i / 127.0;
}
