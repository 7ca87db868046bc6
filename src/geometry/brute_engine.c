/* Brute-force test engine: every ray against every primitive, in double precision. It exists to
 * prove the engine seam (the frame gives the same points whichever engine traced it) and to
 * check faster engines; it refuses scenes of more than LSIM_BRUTE_MAX_TRIANGLES triangles.
 * Moving objects are placed exactly at each ray's time (the ray goes into the object's frame).
 * Hits follow Embree's conventions: geometric normal (v1 - v0) x (v2 - v0), barycentrics (u, v)
 * of hit = (1 - u - v) v0 + u v1 + v v2, a sphere's normal from its centre to the hit. */
#include "geometry/engine.h"

#include "core/context.h"
#include "core/motion.h"
#include "scene/scene.h"

#include <math.h>
#include <stdlib.h>

#define LSIM_BRUTE_MAX_TRIANGLES 100000

typedef struct brute_state {
    const lsim_scene *scene;
    double start; /* the frame's start on the scene clock */
} brute_state;

static lsim_status brute_create(lsim_scene *scene, void **out)
{
    size_t triangles = 0;
    for (size_t i = 0; i < scene->object_count; ++i)
        triangles += scene->objects[i].triangle_count;
    if (triangles > LSIM_BRUTE_MAX_TRIANGLES)
        return lsim_fail(scene->ctx, LSIM_ERR_INVALID_ARGUMENT,
                         "the brute-force test engine takes at most %d triangles, the scene has %zu: use the Embree "
                         "engine for this scene",
                         LSIM_BRUTE_MAX_TRIANGLES, triangles);
    brute_state *b = calloc(1, sizeof *b);
    if (!b)
        return lsim_fail(scene->ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory creating the brute-force engine");
    b->scene = scene;
    *out = b;
    return LSIM_OK;
}

static void brute_destroy(void *state) { free(state); }

static lsim_status brute_set_frame_time(void *state, lsim_context *ctx, double start, double span)
{
    (void)ctx;
    (void)span;
    ((brute_state *)state)->start = start;
    return LSIM_OK;
}

typedef struct brute_hit {
    double t, u, v, n[3];
    uint32_t object, primitive;
} brute_hit;

/* Möller-Trumbore, both sides. Updates *h if a triangle is nearer in [tnear, h->t]. */
static void hit_triangle(const float *a, const float *b, const float *c, const double o[3], const double d[3],
                         double tnear, uint32_t object, uint32_t prim, brute_hit *h)
{
    double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]}, e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
    double p[3] = {d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]};
    double det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
    if (det == 0.0)
        return;
    double inv = 1.0 / det;
    double s[3] = {o[0] - a[0], o[1] - a[1], o[2] - a[2]};
    double u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) * inv;
    if (u < 0.0 || u > 1.0)
        return;
    double q[3] = {s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]};
    double v = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) * inv;
    if (v < 0.0 || u + v > 1.0)
        return;
    double t = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) * inv;
    if (t < tnear || t > h->t)
        return;
    h->t = t;
    h->u = u;
    h->v = v;
    h->n[0] = e1[1] * e2[2] - e1[2] * e2[1];
    h->n[1] = e1[2] * e2[0] - e1[0] * e2[2];
    h->n[2] = e1[0] * e2[1] - e1[1] * e2[0];
    h->object = object;
    h->primitive = prim;
}

static void hit_sphere(const lsim_object *s, const double o[3], const double d[3], double tnear, uint32_t object,
                       brute_hit *h)
{
    double oc[3] = {o[0] - s->center[0], o[1] - s->center[1], o[2] - s->center[2]};
    double b = oc[0] * d[0] + oc[1] * d[1] + oc[2] * d[2];
    double c = oc[0] * oc[0] + oc[1] * oc[1] + oc[2] * oc[2] - s->radius * s->radius;
    double disc = b * b - c;
    if (disc < 0.0)
        return;
    double r = sqrt(disc), ts[2] = {-b - r, -b + r};
    for (int k = 0; k < 2; ++k) {
        if (ts[k] < tnear || ts[k] > h->t)
            continue;
        h->t = ts[k];
        h->u = h->v = 0.0;
        for (int a = 0; a < 3; ++a)
            h->n[a] = o[a] + ts[k] * d[a] - s->center[a];
        h->object = object;
        h->primitive = 0;
        return;
    }
}

/* Nearest hit of one ray in [tnear, tfar] (h->object LSIM_NO_HIT for none), normal in world. */
static void trace_one(const brute_state *b, const double org[3], const double dir[3], double tnear, double tfar,
                      double time, brute_hit *h)
{
    h->t = tfar;
    h->object = LSIM_NO_HIT;
    const lsim_scene *sc = b->scene;
    for (size_t i = 0; i < sc->object_count; ++i) {
        const lsim_object *ob = &sc->objects[i];
        double o[3] = {org[0], org[1], org[2]}, d[3] = {dir[0], dir[1], dir[2]};
        lsim_pose pose = {{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}, {0, 0, 0}};
        if (ob->motion) { /* the ray in the object's frame at its time */
            pose = lsim_motion_pose(ob->motion, b->start + time);
            lsim_vec3 lo = lsim_mat3_tmul(&pose.r, lsim_v3_sub(lsim_v3(o[0], o[1], o[2]), pose.t));
            lsim_vec3 ld = lsim_mat3_tmul(&pose.r, lsim_v3(d[0], d[1], d[2]));
            o[0] = lo.x, o[1] = lo.y, o[2] = lo.z;
            d[0] = ld.x, d[1] = ld.y, d[2] = ld.z;
        }
        uint32_t before = h->object;
        double t_before = h->t;
        if (ob->shape == LSIM_SHAPE_SPHERE) {
            hit_sphere(ob, o, d, tnear, (uint32_t)i, h);
        } else {
            for (size_t k = 0; k < ob->triangle_count; ++k) {
                const uint32_t *ix = &ob->indices[3 * k];
                hit_triangle(&ob->vertices[3 * ix[0]], &ob->vertices[3 * ix[1]], &ob->vertices[3 * ix[2]], o, d,
                             tnear, (uint32_t)i, (uint32_t)k, h);
            }
        }
        if (ob->motion && (h->object != before || h->t != t_before)) { /* this object's normal: to world */
            lsim_vec3 n = lsim_mat3_mul(&pose.r, lsim_v3(h->n[0], h->n[1], h->n[2]));
            h->n[0] = n.x, h->n[1] = n.y, h->n[2] = n.z;
        }
    }
}

static void brute_intersect(const void *state, const lsim_rays *rays, size_t begin, size_t count, lsim_hits *hits)
{
    const brute_state *b = state;
    for (size_t i = begin; i < begin + count; ++i) {
        brute_hit h;
        h.object = LSIM_NO_HIT;
        if (lsim_ray_valid(rays->ox[i], rays->oy[i], rays->oz[i], rays->dx[i], rays->dy[i], rays->dz[i],
                           rays->tnear[i], rays->tfar[i])) {
            const double o[3] = {rays->ox[i], rays->oy[i], rays->oz[i]}, d[3] = {rays->dx[i], rays->dy[i], rays->dz[i]};
            trace_one(b, o, d, rays->tnear[i], rays->tfar[i], rays->time[i], &h);
        }
        if (h.object == LSIM_NO_HIT) {
            hits->t[i] = INFINITY;
            hits->object[i] = LSIM_NO_HIT;
            hits->primitive[i] = 0;
            hits->ngx[i] = hits->ngy[i] = hits->ngz[i] = 0.0f;
            if (hits->u)
                hits->u[i] = hits->v[i] = 0.0f;
            continue;
        }
        hits->t[i] = (float)h.t;
        hits->object[i] = h.object;
        hits->primitive[i] = h.primitive;
        hits->ngx[i] = (float)h.n[0];
        hits->ngy[i] = (float)h.n[1];
        hits->ngz[i] = (float)h.n[2];
        if (hits->u) {
            hits->u[i] = (float)h.u;
            hits->v[i] = (float)h.v;
        }
    }
}

static void brute_occluded(const void *state, const lsim_rays *rays, size_t begin, size_t count, uint8_t *blocked)
{
    const brute_state *b = state;
    for (size_t i = begin; i < begin + count; ++i) {
        blocked[i] = 0;
        if (!lsim_ray_valid(rays->ox[i], rays->oy[i], rays->oz[i], rays->dx[i], rays->dy[i], rays->dz[i],
                            rays->tnear[i], rays->tfar[i]))
            continue;
        const double o[3] = {rays->ox[i], rays->oy[i], rays->oz[i]}, d[3] = {rays->dx[i], rays->dy[i], rays->dz[i]};
        brute_hit h;
        trace_one(b, o, d, rays->tnear[i], rays->tfar[i], rays->time[i], &h);
        blocked[i] = h.object != LSIM_NO_HIT;
    }
}

const lsim_engine_ops lsim_engine_brute = {
    "brute", brute_create, brute_set_frame_time, brute_intersect, brute_occluded, brute_destroy,
};
