/* Whitted recursion of one sub-ray with an explicit, fixed-size stack (no allocation). */
#include "optics/path.h"

#include <math.h>

#define PATH_STACK 48

/* Transitional: one ray through the engine seam (a batch of one), until the pipeline issues
 * secondary and shadow rays as batches per bounce depth. */
static int trace_one(const lsim_engine *engine, const float org[3], const float dir[3], float tnear, float tfar,
                     float *t, uint32_t *object, float ng[3])
{
    float ox = org[0], oy = org[1], oz = org[2], dx = dir[0], dy = dir[1], dz = dir[2], time = 0.0f;
    uint32_t mask = LSIM_RAY_MASK_ALL, prim;
    lsim_rays r = {1, &ox, &oy, &oz, &dx, &dy, &dz, &time, &tnear, &tfar, &mask};
    lsim_hits h = {t, object, &prim, NULL, NULL, &ng[0], &ng[1], &ng[2]};
    lsim_engine_intersect(engine, &r, 1, &h);
    return *object != LSIM_NO_HIT;
}

static int occluded_one(const lsim_engine *engine, const float org[3], const float dir[3], float tnear, float tfar)
{
    float ox = org[0], oy = org[1], oz = org[2], dx = dir[0], dy = dir[1], dz = dir[2], time = 0.0f;
    uint32_t mask = LSIM_RAY_MASK_ALL;
    uint8_t blocked = 0;
    lsim_rays r = {1, &ox, &oy, &oz, &dx, &dy, &dz, &time, &tnear, &tfar, &mask};
    lsim_engine_occluded(engine, &r, 1, &blocked);
    return blocked;
}

typedef struct path_vertex {
    float org[3], dir[3];
    float throughput;   /* one-way T */
    float optical;      /* one-way optical path so far (metres; glass counts ior x length) */
    float air;          /* one-way path in air so far (for the atmosphere) */
    float inside_ior;   /* 0 outside any glass, else the ior of the glass the ray is in */
    float surface[3];   /* the surface point the ray leaves (its origin is nudged off it) */
    uint32_t glass;     /* the glass object the ray is inside (valid while inside_ior > 0) */
    int depth;
    int traced;         /* 1: the hit below is known (the primary ray's) */
    float t;
    uint32_t object;
    float ng[3];
} path_vertex;

static inline float dot3(const float a[3], const float b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static inline void normalize3(float v[3])
{
    float n = sqrtf(dot3(v, v));
    float inv = n > 0.0f ? 1.0f / n : 0.0f;
    v[0] *= inv;
    v[1] *= inv;
    v[2] *= inv;
}

/* Range spread of a surface inside the beam footprint: footprint diameter L * divergence
 * times tan(theta), bounded. */
static inline float footprint_spread(float divergence, float range, float cos_t)
{
    if (divergence <= 0.0f)
        return 0.0f;
    float tan_t = cos_t > 0.02f ? sqrtf(fmaxf(0.0f, 1.0f - cos_t * cos_t)) / cos_t : 50.0f;
    float s = range * divergence * tan_t;
    return fminf(s, 0.5f * range);
}

/* Fresnel reflectance of a dielectric interface crossed at cos_i, from index n1 into n2. */
static inline float fresnel(float cos_i, float n1, float n2)
{
    if (n1 <= n2)
        return (float)lsim_fresnel_dielectric(cos_i, n2 / n1);
    float sin_t = n1 / n2 * sqrtf(fmaxf(0.0f, 1.0f - cos_i * cos_i));
    if (sin_t >= 1.0f)
        return 1.0f; /* total internal reflection */
    float cos_t = sqrtf(1.0f - sin_t * sin_t);
    return (float)lsim_fresnel_dielectric(cos_t, n1 / n2); /* reciprocity: same as entering at theta_t */
}

/* Offset that lifts a ray's origin off the surface it leaves: a few float steps at the
 * point's magnitude, independent of the path so far (thin glass far away stays thin). */
static inline float surface_offset(const float p[3])
{
    float m = fmaxf(fmaxf(fabsf(p[0]), fabsf(p[1])), fmaxf(fabsf(p[2]), 1.0f));
    return 1e-5f * m;
}

/* A secondary ray leaving surface point p along d, on the side of `side` (the surface normal
 * for a reflection, its opposite for a transmission). Its origin is nudged off the surface; path
 * lengths are measured from p itself, so they stay exact. */
static inline void push(path_vertex *stack, int *top, const float p[3], const float d[3], const float side[3],
                        float throughput, const path_vertex *from, float inside_ior, uint32_t glass)
{
    if (*top >= PATH_STACK || throughput < 1e-6f)
        return;
    path_vertex *v = &stack[(*top)++];
    const float eps = surface_offset(p);
    for (int k = 0; k < 3; ++k) {
        v->org[k] = p[k] + eps * side[k];
        v->surface[k] = p[k];
        v->dir[k] = d[k];
    }
    v->glass = glass;
    v->throughput = throughput;
    v->optical = from->optical;
    v->air = from->air;
    v->inside_ior = inside_ior;
    v->depth = from->depth + 1;
    v->traced = 0;
}

/* The common case: a surface that only scatters back (no mirror or glass to follow), seen by a
 * monostatic receiver without ambient light. The same arithmetic as the general loop below. */
static int follow_direct(const lsim_optics *o, const float dir[3], float t, uint32_t object, const float ng[3],
                         float weight, lsim_contribution *out, int count, int cap)
{
    if (count >= cap || !(t > 0.0f))
        return count;
    float n[3] = {ng[0], ng[1], ng[2]};
    normalize3(n);
    float cos_t = -dot3(n, dir);
    if (cos_t < 0.0f) {
        n[0] = -n[0];
        n[1] = -n[1];
        n[2] = -n[2];
        cos_t = -cos_t;
    }
    cos_t = fminf(cos_t, 1.0f);
    const float lambert = o->surfaces->lambert[object];
    float fr = lambert >= 0.0f ? lambert : (float)lsim_brdf_backscatter(&o->surfaces->brdf[object], cos_t);
    float amp = weight * 3.14159265f * fr * cos_t / (t * t);
    if (o->extinction > 0.0f)
        amp *= expf(-2.0f * o->extinction * t);
    if (!(amp > 0.0f) || !isfinite(amp))
        return count;
    lsim_contribution *c = &out[count++];
    c->range = t;
    c->amplitude = amp;
    c->spread = footprint_spread(o->divergence, t, cos_t);
    c->object = object;
    c->cos_incidence = cos_t;
    c->nx = n[0];
    c->ny = n[1];
    c->nz = n[2];
    return count;
}

int lsim_optics_follow(const lsim_optics *o, const float org[3], const float dir[3], float t, uint32_t object,
                       const float ng[3], float weight, lsim_contribution *out, int count, int cap,
                       float *background)
{
    if (object == LSIM_NO_HIT)
        return count;
    const lsim_brdf_kind kind = o->surfaces->brdf[object].kind;
    if (kind != LSIM_BRDF_MIRROR && kind != LSIM_BRDF_GLASS && !o->baseline && !(o->sun_level > 0.0f && background))
        return follow_direct(o, dir, t, object, ng, weight, out, count, cap);

    path_vertex stack[PATH_STACK];
    int top = 0;
    path_vertex *first = &stack[top++];
    for (int k = 0; k < 3; ++k) {
        first->org[k] = org[k];
        first->dir[k] = dir[k];
        first->ng[k] = ng[k];
    }
    first->throughput = 1.0f;
    first->optical = first->air = 0.0f;
    first->inside_ior = 0.0f;
    first->depth = 0;
    first->traced = 1;
    first->glass = LSIM_NO_HIT;
    first->t = t;
    first->object = object;

    while (top > 0) {
        path_vertex v = stack[--top];
        if (!v.traced) {
            float tfar = o->range_max - v.optical;
            if (tfar <= 0.0f || !trace_one(o->engine, v.org, v.dir, 0.0f, tfar, &v.t, &v.object, v.ng))
                continue;
            /* the distance from the surface point the ray left, not from its nudged origin */
            float q[3] = {v.org[0] + v.t * v.dir[0] - v.surface[0], v.org[1] + v.t * v.dir[1] - v.surface[1],
                          v.org[2] + v.t * v.dir[2] - v.surface[2]};
            v.t = sqrtf(dot3(q, q));
            for (int k = 0; k < 3; ++k)
                v.org[k] = v.surface[k];
            /* Inside glass, the next surface should be the same glass's exit face; anything else
             * means an open glass mesh (a single window quad): carry on as if outside. */
            if (v.inside_ior > 0.0f && v.object != v.glass)
                v.inside_ior = 0.0f;
        }
        if (v.object == LSIM_NO_HIT)
            continue;
        const lsim_brdf *brdf = &o->surfaces->brdf[v.object];
        float n[3] = {v.ng[0], v.ng[1], v.ng[2]};
        normalize3(n);
        float cos_t = -dot3(n, v.dir);
        if (cos_t < 0.0f) { /* seen from behind: the normal facing the ray */
            n[0] = -n[0];
            n[1] = -n[1];
            n[2] = -n[2];
            cos_t = -cos_t;
        }
        cos_t = fminf(cos_t, 1.0f);
        const float medium = v.inside_ior > 0.0f ? v.inside_ior : 1.0f;
        const float optical = v.optical + medium * v.t;
        const float air = v.air + (v.inside_ior > 0.0f ? 0.0f : v.t);
        const float p[3] = {v.org[0] + v.t * v.dir[0], v.org[1] + v.t * v.dir[1], v.org[2] + v.t * v.dir[2]};

        if (v.depth == 0 && background && o->sun_level > 0.0f) {
            float lit = dot3(n, o->sun);
            if (lit > 0.0f && o->surfaces->albedo[v.object] > 0.0f) {
                float eps = 1e-4f * fmaxf(1.0f, v.t);
                float q[3] = {p[0] + eps * n[0], p[1] + eps * n[1], p[2] + eps * n[2]};
                if (!occluded_one(o->engine, q, o->sun, 0.0f, 1e6f))
                    *background += weight * o->surfaces->albedo[v.object] * lit * o->sun_level;
            }
        }

        /* The surface's own return along the path (inside glass none: the exit face is seen from
         * within the medium and its specular echo is neglected). */
        if (v.inside_ior == 0.0f && count < cap && optical > 0.0f) {
            double fr = lsim_brdf_backscatter(brdf, cos_t);
            float amp = (float)(weight * v.throughput * v.throughput * 3.14159265358979 * fr * cos_t /
                                ((double)optical * optical));
            if (o->extinction > 0.0f)
                amp *= expf(-2.0f * o->extinction * air);
            float range = optical;
            int seen = 1;
            if (v.depth == 0 && o->baseline) { /* bistatic: can the receiver see this point? */
                float to_rx[3] = {o->receiver[0] - p[0], o->receiver[1] - p[1], o->receiver[2] - p[2]};
                float dist = sqrtf(dot3(to_rx, to_rx));
                if (dist > 1e-6f) {
                    float u[3] = {to_rx[0] / dist, to_rx[1] / dist, to_rx[2] / dist};
                    float eps = 1e-4f * fmaxf(1.0f, v.t);
                    float q[3] = {p[0] + eps * n[0], p[1] + eps * n[1], p[2] + eps * n[2]};
                    seen = dot3(u, n) > 0.0f && !occluded_one(o->engine, q, u, 0.0f, dist - 2.0f * eps);
                    range = 0.5f * (optical + dist);
                }
            }
            if (seen && amp > 0.0f && isfinite(amp)) {
                lsim_contribution *c = &out[count++];
                c->range = range;
                c->amplitude = amp;
                c->spread = footprint_spread(o->divergence, range, cos_t);
                c->object = v.object;
                c->cos_incidence = cos_t;
                c->nx = n[0];
                c->ny = n[1];
                c->nz = n[2];
            }
        }

        if (v.depth >= o->max_bounces)
            continue;
        path_vertex here = v;
        here.optical = optical;
        here.air = air;
        const float neg[3] = {-n[0], -n[1], -n[2]};
        float refl[3];
        for (int k = 0; k < 3; ++k)
            refl[k] = v.dir[k] + 2.0f * cos_t * n[k];
        normalize3(refl);
        if (brdf->kind == LSIM_BRDF_MIRROR) {
            push(stack, &top, p, refl, n, v.throughput * (float)brdf->reflectance, &here, v.inside_ior, v.glass);
        } else if (brdf->kind == LSIM_BRDF_GLASS) {
            const float ior = (float)brdf->ior, tau = (float)brdf->transmittance;
            if (o->surfaces->thin[v.object]) { /* thin sheet: two interfaces, no net deviation */
                float f = fresnel(cos_t, 1.0f, ior);
                push(stack, &top, p, refl, n, v.throughput * f, &here, 0.0f, LSIM_NO_HIT);
                push(stack, &top, p, v.dir, neg, v.throughput * (1.0f - f) * (1.0f - f) * tau, &here, 0.0f,
                     LSIM_NO_HIT);
            } else {
                const int entering = v.inside_ior == 0.0f;
                const float n1 = entering ? 1.0f : ior, n2 = entering ? ior : 1.0f;
                float f = fresnel(cos_t, n1, n2);
                push(stack, &top, p, refl, n, v.throughput * f, &here, v.inside_ior, v.glass);
                if (f < 1.0f) { /* Snell refraction */
                    float eta = n1 / n2;
                    float k = 1.0f - eta * eta * (1.0f - cos_t * cos_t);
                    float tr[3];
                    for (int a = 0; a < 3; ++a)
                        tr[a] = eta * v.dir[a] + (eta * cos_t - sqrtf(fmaxf(k, 0.0f))) * n[a];
                    normalize3(tr);
                    float through = v.throughput * (1.0f - f) * (entering ? 1.0f : tau);
                    push(stack, &top, p, tr, neg, through, &here, entering ? ior : 0.0f,
                         entering ? v.object : LSIM_NO_HIT);
                }
            }
        }
    }
    return count;
}
