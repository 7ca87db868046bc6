/* Geometry engines: first hit per ray. Embree ray casting today; rasterization later fills
 * the same hits, so nothing after this stage knows which engine produced them. */
#ifndef LSIM_GEOMETRY_ENGINE_H
#define LSIM_GEOMETRY_ENGINE_H

#include "lidarsim.h"

#include <stddef.h>
#include <stdint.h>

#define LSIM_NO_HIT UINT32_MAX

/* Rays in world space, structure of arrays (unit directions): a frame or a slice of one. */
typedef struct lsim_rays {
    size_t count;
    float *ox, *oy, *oz;
    float *dx, *dy, *dz;
} lsim_rays;

/* First hit per ray: distance along the unit direction, object index (LSIM_NO_HIT for a miss),
 * primitive index and the unnormalised geometric normal (world space). */
typedef struct lsim_hits {
    float *t;
    uint32_t *object;
    uint32_t *primitive;
    float *ngx, *ngy, *ngz;
} lsim_hits;

typedef struct lsim_engine lsim_engine;

/* Build the BVH over every object of the scene. */
lsim_status lsim_engine_build(lsim_scene *scene, lsim_engine **out);
void lsim_engine_destroy(lsim_engine *engine);

/* Trace the first `count` rays with hits accepted in [tnear, tfar] into hits[0, count).
 * Thread-safe: callers split a frame into slices and trace them in parallel. */
void lsim_engine_trace(const lsim_engine *engine, const lsim_rays *rays, size_t count, float tnear, float tfar,
                       lsim_hits *hits);

/* One ray (secondary rays of mirrors and glass): first hit in [tnear, tfar]; 0 for a miss,
 * else 1 with *t, *object and the unnormalised normal ng. */
int lsim_engine_trace1(const lsim_engine *engine, const float org[3], const float dir[3], float tnear, float tfar,
                       float *t, uint32_t *object, float ng[3]);
/* 1 if anything lies on the segment org + s dir, s in (tnear, tfar). */
int lsim_engine_occluded(const lsim_engine *engine, const float org[3], const float dir[3], float tnear, float tfar);

#endif
