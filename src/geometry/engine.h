/* Geometry engines behind one batch interface (DESIGN.md §6): rays in, first hits out, both
 * structure of arrays. Embree ray casting, a brute-force test engine, and the raster engine
 * (OpenGL renders for primary rays, Embree for the rest; raster_engine.c) fill the same hits. Nothing after this stage knows which engine ran, and nothing
 * outside src/geometry/ names Embree.
 *
 * Time: every ray carries its time in seconds from the start of the frame's sweep. Moving
 * objects (lsim_object.motion) are placed at that time: the frame tells the engine its start on
 * the scene's clock and its span (lsim_engine_set_frame_time); static objects ignore time. */
#ifndef LSIM_GEOMETRY_ENGINE_H
#define LSIM_GEOMETRY_ENGINE_H

#include "lidarsim.h"

#include <stddef.h>
#include <stdint.h>

#define LSIM_NO_HIT UINT32_MAX
#define LSIM_RAY_MASK_ALL 0xFFFFFFFFu

/* A batch of rays, structure of arrays (unit directions, world space). Every array holds at
 * least `count` entries; lsim_rays_alloc makes all of them. */
typedef struct lsim_rays {
    size_t count;
    float *ox, *oy, *oz;
    float *dx, *dy, *dz;
    float *time;        /* seconds from the frame start (0 without motion) */
    float *tnear, *tfar; /* hits are accepted for distances in [tnear, tfar] */
    uint32_t *mask;     /* ray mask: geometry is hit where (mask & geometry mask) != 0 */
    /* 0: any rays (bounces, shadow rays, kernel tiles). n >= 1: a batch of primary beam rays, n
     * consecutive rays per beam (the beam's sub-rays, centre ray first), all from near one sensor
     * origin. Only the raster engine reads it (primary batches are rendered, the rest ray-cast);
     * lsim_rays_alloc sets 0 and the frame's slice sets the sub-ray count. The kernel mode's
     * image tiles are primary batches of 1. */
    int primary;
    /* Primary batches: the frame's sensor (per-frame copy) whose beams these are, so that the
     * raster engine draws views fitted to its pattern and its motion; NULL: ray-cast. */
    const struct lsim_sensor *sensor;
    /* Primary batches: the finest angular spacing the batch's rays resolve, radians (the kernel
     * image's pixel pitch); 0: the sensor's beam spacing. */
    double pitch;
} lsim_rays;

/* Geometry masks (Embree): triangle objects and spheres; LSIM_RAY_MASK_ALL hits both. */
#define LSIM_GEOMETRY_MASK_TRIANGLES 1u
#define LSIM_GEOMETRY_MASK_SPHERES 2u

/* First hit per ray: distance along the unit direction (INFINITY for a miss), scene object
 * (LSIM_NO_HIT for a miss), primitive (triangle) index within the object, barycentrics (u, v) of
 * the hit on that triangle, and the unnormalised geometric normal in world space at the ray's
 * time. `u` and `v` may be NULL when the caller does not need them. */
typedef struct lsim_hits {
    float *t;
    uint32_t *object;
    uint32_t *primitive;
    float *u, *v;
    float *ngx, *ngy, *ngz;
} lsim_hits;

typedef struct lsim_engine lsim_engine;

/* An engine implementation. `state` is the engine's own; the functions are thread-safe for
 * concurrent intersect/occluded calls between two set_frame_time calls. */
typedef struct lsim_engine_ops {
    const char *name;
    /* Build from every object of the scene (objects with motion in their own frame). */
    lsim_status (*create)(lsim_scene *scene, void **state);
    /* Place the moving objects for a sweep starting at `start` seconds on the scene's clock and
     * lasting `span` seconds (rays' times lie in [0, span]). No-op for static scenes. */
    lsim_status (*set_frame_time)(void *state, lsim_context *ctx, double start, double span);
    /* First hits of rays [begin, begin + count) into hits[begin, begin + count). */
    void (*intersect)(const void *state, const lsim_rays *rays, size_t begin, size_t count, lsim_hits *hits);
    /* blocked[i] = 1 if anything lies on ray i within [tnear, tfar], else 0, for i in
     * [begin, begin + count). */
    void (*occluded)(const void *state, const lsim_rays *rays, size_t begin, size_t count, uint8_t *blocked);
    void (*destroy)(void *state);
} lsim_engine_ops;

extern const lsim_engine_ops lsim_engine_embree;
extern const lsim_engine_ops lsim_engine_brute;
extern const lsim_engine_ops lsim_engine_raster;


/* The engine of a kind (LSIM_ENGINE_...). */
const lsim_engine_ops *lsim_engine_ops_of(lsim_engine_kind kind);

/* Build the engine of `ops` over the scene. */
lsim_status lsim_engine_build(lsim_scene *scene, const lsim_engine_ops *ops, lsim_engine **out);
void lsim_engine_destroy(lsim_engine *engine);
const char *lsim_engine_name(const lsim_engine *engine);
lsim_status lsim_engine_set_frame_time(lsim_engine *engine, lsim_context *ctx, double start, double span);

/* First hits of rays [0, count) (see lsim_engine_ops.intersect). Non-finite rays, zero
 * directions and empty [tnear, tfar] intervals are misses. */
void lsim_engine_intersect(const lsim_engine *engine, const lsim_rays *rays, size_t count, lsim_hits *hits);
/* Occlusion of rays [0, count) (shadow rays). */
void lsim_engine_occluded(const lsim_engine *engine, const lsim_rays *rays, size_t count, uint8_t *blocked);

/* Allocate / free every array of `count` rays (count is set); hits likewise (u, v included). */
int lsim_rays_alloc(lsim_rays *rays, size_t count);
void lsim_rays_free(lsim_rays *rays);
int lsim_hits_alloc(lsim_hits *hits, size_t count);
void lsim_hits_free(lsim_hits *hits);

/* 1 if a ray can be handed to an engine: finite origin and direction, a non-zero direction,
 * tnear finite, tfar not NaN and tnear <= tfar. Engines treat any other ray as a miss. */
static inline int lsim_ray_valid(float ox, float oy, float oz, float dx, float dy, float dz, float tnear, float tfar)
{
    /* one test for all: a sum of finite values times 0 is 0, NaN otherwise; tfar may be +inf */
    float s = (ox + oy + oz + dx + dy + dz + tnear) * 0.0f;
    return s == 0.0f && tfar == tfar && tnear <= tfar && (dx != 0.0f || dy != 0.0f || dz != 0.0f);
}

#endif
