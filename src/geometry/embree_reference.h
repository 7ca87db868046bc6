/* The benchmarks' reference: raw Embree 3 on the same rays and mesh, no lidarsim stages — rays
 * read from arrays, rtcIntersect1 per ray in an OpenMP loop, hit distance/ids/normal stored to
 * arrays. Used by `lidarsim bench` only; it lives here because nothing outside src/geometry/
 * names Embree. */
#ifndef LSIM_GEOMETRY_EMBREE_REFERENCE_H
#define LSIM_GEOMETRY_EMBREE_REFERENCE_H

#include <stddef.h>
#include <stdint.h>

typedef struct lsim_raw_embree lsim_raw_embree;

/* One mesh (xyz vertices, triangle indices); NULL if Embree fails or memory runs out. */
lsim_raw_embree *lsim_raw_embree_create(const float *vertices, size_t vertex_count, const uint32_t *indices,
                                        size_t triangle_count);
void lsim_raw_embree_destroy(lsim_raw_embree *raw);

/* Trace n rays (SoA, unit directions) and return the wall time in milliseconds. Outputs are
 * written to t, geom, prim, ng (3 planes of n floats: x, y, z) so the work cannot be optimised away. Returns the
 * number of hits in *hits. */
double lsim_raw_embree_trace(lsim_raw_embree *raw, size_t n, const float *ox, const float *oy, const float *oz,
                             const float *dx, const float *dy, const float *dz, float tfar, int threads,
                             float *t, uint32_t *geom, uint32_t *prim, float *ng, size_t *hits);

#endif
