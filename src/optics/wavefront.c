/* Whitted recursion through mirrors and glass, one bounce depth at a time (optics/wavefront.h).
 * The range equation at every surface a path meets (optics/path.h):
 *   amplitude = w T^2 pi f_r(theta) cos(theta) / L^2 exp(-2 alpha L_air). */
#include "optics/wavefront.h"

#include "optics/path_math.h"

#include <stdlib.h>
#include <string.h>

#define SHADOW_CAPACITY (2 * LSIM_PATH_GROUP) /* depth 0: a sun ray and a receiver ray per member */

int lsim_paths_alloc(lsim_paths *p)
{
    memset(p, 0, sizeof *p);
    p->cur = malloc(LSIM_PATH_QUEUE * sizeof *p->cur);
    p->next = malloc(LSIM_PATH_QUEUE * sizeof *p->next);
    p->blocked = malloc(SHADOW_CAPACITY);
    p->shadow = malloc(SHADOW_CAPACITY * sizeof *p->shadow);
    p->out = malloc((size_t)LSIM_PATH_GROUP * LSIM_PATH_CONTRIBUTIONS * sizeof *p->out);
    int ok = p->cur && p->next && p->blocked && p->shadow && p->out;
    ok = lsim_rays_alloc(&p->rays, LSIM_PATH_QUEUE) == 0 && ok;
    ok = lsim_hits_alloc(&p->hits, LSIM_PATH_QUEUE) == 0 && ok;
    ok = lsim_rays_alloc(&p->shadow_rays, SHADOW_CAPACITY) == 0 && ok;
    return ok ? 0 : -1;
}

void lsim_paths_free(lsim_paths *p)
{
    free(p->cur);
    free(p->next);
    free(p->blocked);
    free(p->shadow);
    free(p->out);
    lsim_rays_free(&p->rays);
    lsim_hits_free(&p->hits);
    lsim_rays_free(&p->shadow_rays);
    memset(p, 0, sizeof *p);
}

void lsim_paths_begin(lsim_paths *p, int want_background)
{
    p->cur_count = p->next_count = p->shadow_count = 0;
    p->members = 0;
    p->want_background = want_background;
}

int lsim_paths_add(lsim_paths *p, const float org[3], const float dir[3], float time, float t, uint32_t object,
                   const float ng[3], float weight, const float *receiver)
{
    if (p->members >= LSIM_PATH_GROUP)
        return -1;
    const int m = p->members++;
    p->weight[m] = weight;
    for (int k = 0; k < 3; ++k)
        p->receiver[m][k] = receiver ? receiver[k] : NAN; /* NAN: the optics' receiver */
    p->background[m] = 0.0f;
    p->count[m] = 0;
    lsim_path_vertex *v = &p->cur[p->cur_count++];
    for (int k = 0; k < 3; ++k) {
        v->surface[k] = org[k];
        v->nudge[k] = 0.0f; /* traced already: its hit is known */
        v->dir[k] = dir[k];
        v->ng[k] = ng[k];
    }
    v->throughput = 1.0f;
    v->optical = v->air = v->inside_ior = 0.0f;
    v->time = time;
    v->glass = LSIM_NO_HIT;
    v->member = (uint16_t)m;
    v->depth = 0;
    v->t = t;
    v->object = object;
    return m;
}

static void put_contribution(lsim_paths *p, int m, const lsim_contribution *c)
{
    if (p->count[m] < LSIM_PATH_CONTRIBUTIONS)
        p->out[(size_t)m * LSIM_PATH_CONTRIBUTIONS + p->count[m]++] = *c;
}

/* A shadow ray from q along u over (0, tfar), deciding `task`. */
static void put_shadow(lsim_paths *p, const float q[3], const float u[3], float tfar, float time,
                       const lsim_path_shadow *task)
{
    const size_t i = p->shadow_count++;
    lsim_rays *r = &p->shadow_rays;
    r->ox[i] = q[0];
    r->oy[i] = q[1];
    r->oz[i] = q[2];
    r->dx[i] = u[0];
    r->dy[i] = u[1];
    r->dz[i] = u[2];
    r->time[i] = time;
    r->tnear[i] = 0.0f;
    r->tfar[i] = tfar;
    r->mask[i] = LSIM_RAY_MASK_ALL;
    p->shadow[i] = *task;
}

/* A secondary ray leaving surface point s along d, on the side of `side` (the surface normal for a
 * reflection, its opposite for a transmission), into the next depth. Path lengths are measured from
 * s itself, so they stay exact; the ray's origin is nudged off the surface when it is traced. */
static void push(lsim_paths *p, const lsim_path_vertex *from, const float s[3], const float d[3],
                 const float side[3], float throughput, float optical, float air, float inside_ior, uint32_t glass)
{
    const int m = from->member;
    if (throughput < 1e-6f || p->width[m] >= LSIM_PATH_WIDTH)
        return;
    p->width[m]++;
    lsim_path_vertex *v = &p->next[p->next_count++];
    const float eps = lsim_surface_offset(s);
    for (int k = 0; k < 3; ++k) {
        v->surface[k] = s[k];
        v->dir[k] = d[k];
        v->nudge[k] = side[k] * eps;
    }
    v->throughput = throughput;
    v->optical = optical;
    v->air = air;
    v->inside_ior = inside_ior;
    v->time = from->time;
    v->glass = glass;
    v->member = (uint16_t)m;
    v->depth = (uint8_t)(from->depth + 1);
}

/* The surface's own return along the path (inside glass none: the exit face is seen from within
 * the medium and its specular echo is neglected); for a bistatic receiver at depth 0 a shadow
 * ray decides whether it is kept. */
static void own_return(const lsim_optics *o, lsim_paths *p, const lsim_path_vertex *v, const float n[3], float cos_t,
                       float optical, float air, const float pt[3])
{
    const int m = v->member;
    if (v->inside_ior != 0.0f || !(optical > 0.0f))
        return;
    const lsim_brdf *brdf = &o->surfaces->brdf[v->object];
    double fr = lsim_brdf_backscatter(brdf, cos_t);
    float amp = (float)(p->weight[m] * v->throughput * v->throughput * 3.14159265358979 * fr * cos_t /
                        ((double)optical * optical));
    if (o->extinction > 0.0f)
        amp *= expf(-2.0f * o->extinction * air);
    if (!(amp > 0.0f) || !isfinite(amp))
        return;
    lsim_path_shadow task = {(uint16_t)m, 0, 0.0f, {optical, amp, 0.0f, v->object, cos_t, n[0], n[1], n[2]}};
    if (v->depth == 0 && o->baseline) { /* bistatic: can the receiver see this point? */
        const float *rx = isnan(p->receiver[m][0]) ? o->receiver : p->receiver[m];
        float to_rx[3] = {rx[0] - pt[0], rx[1] - pt[1], rx[2] - pt[2]};
        float dist = sqrtf(lsim_dot3f(to_rx, to_rx));
        if (dist > 1e-6f) {
            float u[3] = {to_rx[0] / dist, to_rx[1] / dist, to_rx[2] / dist};
            if (!(lsim_dot3f(u, n) > 0.0f))
                return;
            float eps = 1e-4f * fmaxf(1.0f, v->t);
            float q[3] = {pt[0] + eps * n[0], pt[1] + eps * n[1], pt[2] + eps * n[2]};
            task.c.range = 0.5f * (optical + dist);
            task.c.spread = lsim_footprint_spread(o->divergence, task.c.range, cos_t);
            put_shadow(p, q, u, dist - 2.0f * eps, v->time, &task);
            return;
        }
    }
    task.c.spread = lsim_footprint_spread(o->divergence, task.c.range, cos_t);
    put_contribution(p, m, &task.c);
}

void lsim_paths_shade(const lsim_optics *o, lsim_paths *p)
{
    p->next_count = p->shadow_count = 0;
    memset(p->width, 0, sizeof p->width);
    for (size_t i = 0; i < p->cur_count; ++i) {
        const lsim_path_vertex *v = &p->cur[i];
        const int m = v->member;
        const lsim_brdf *brdf = &o->surfaces->brdf[v->object];
        float n[3];
        const float cos_t = lsim_facing_normal(v->ng, v->dir, n);
        const float medium = v->inside_ior > 0.0f ? v->inside_ior : 1.0f;
        const float optical = v->optical + medium * v->t;
        const float air = v->air + (v->inside_ior > 0.0f ? 0.0f : v->t);
        const float pt[3] = {v->surface[0] + v->t * v->dir[0], v->surface[1] + v->t * v->dir[1],
                             v->surface[2] + v->t * v->dir[2]};

        if (v->depth == 0 && p->want_background && o->sun_level > 0.0f) { /* ambient light: is it sunlit? */
            float lit = lsim_dot3f(n, o->sun);
            if (lit > 0.0f && o->surfaces->albedo[v->object] > 0.0f) {
                float eps = 1e-4f * fmaxf(1.0f, v->t);
                float q[3] = {pt[0] + eps * n[0], pt[1] + eps * n[1], pt[2] + eps * n[2]};
                lsim_path_shadow task = {(uint16_t)m, 1, p->weight[m] * o->surfaces->albedo[v->object] * lit * o->sun_level,
                                         {0.0f, 0.0f, 0.0f, LSIM_NO_HIT, 0.0f, 0.0f, 0.0f, 0.0f}};
                put_shadow(p, q, o->sun, 1e6f, v->time, &task);
            }
        }
        own_return(o, p, v, n, cos_t, optical, air, pt);

        if (v->depth >= o->max_bounces)
            continue;
        const float neg[3] = {-n[0], -n[1], -n[2]};
        float refl[3];
        for (int k = 0; k < 3; ++k)
            refl[k] = v->dir[k] + 2.0f * cos_t * n[k];
        lsim_normalize3f(refl);
        if (brdf->kind == LSIM_BRDF_MIRROR) {
            push(p, v, pt, refl, n, v->throughput * (float)brdf->reflectance, optical, air, v->inside_ior, v->glass);
        } else if (brdf->kind == LSIM_BRDF_GLASS) {
            const float ior = (float)brdf->ior, tau = (float)brdf->transmittance;
            if (o->surfaces->thin[v->object]) { /* thin sheet: two interfaces, no net deviation */
                float f = lsim_fresnel_interface(cos_t, 1.0f, ior);
                push(p, v, pt, v->dir, neg, v->throughput * (1.0f - f) * (1.0f - f) * tau, optical, air, 0.0f,
                     LSIM_NO_HIT);
                push(p, v, pt, refl, n, v->throughput * f, optical, air, 0.0f, LSIM_NO_HIT);
            } else {
                const int entering = v->inside_ior == 0.0f;
                const float n1 = entering ? 1.0f : ior, n2 = entering ? ior : 1.0f;
                float f = lsim_fresnel_interface(cos_t, n1, n2);
                if (f < 1.0f) { /* Snell refraction */
                    float eta = n1 / n2;
                    float k = 1.0f - eta * eta * (1.0f - cos_t * cos_t);
                    float tr[3];
                    for (int a = 0; a < 3; ++a)
                        tr[a] = eta * v->dir[a] + (eta * cos_t - sqrtf(fmaxf(k, 0.0f))) * n[a];
                    lsim_normalize3f(tr);
                    float through = v->throughput * (1.0f - f) * (entering ? 1.0f : tau);
                    push(p, v, pt, tr, neg, through, optical, air, entering ? ior : 0.0f,
                         entering ? v->object : LSIM_NO_HIT);
                }
                push(p, v, pt, refl, n, v->throughput * f, optical, air, v->inside_ior, v->glass);
            }
        }
    }
}

void lsim_paths_resolve(lsim_paths *p)
{
    for (size_t i = 0; i < p->shadow_count; ++i) {
        const lsim_path_shadow *task = &p->shadow[i];
        if (p->blocked[i])
            continue;
        if (task->sun)
            p->background[task->member] += task->amount;
        else
            put_contribution(p, task->member, &task->c);
    }
    p->shadow_count = 0;
}

size_t lsim_paths_advance(const lsim_optics *o, lsim_paths *p)
{
    lsim_path_vertex *t = p->cur;
    p->cur = p->next;
    p->next = t;
    size_t n = 0;
    lsim_rays *r = &p->rays;
    for (size_t i = 0; i < p->next_count; ++i) {
        const lsim_path_vertex *v = &p->cur[i];
        const float tfar = o->range_max - v->optical;
        if (!(tfar > 0.0f))
            continue; /* beyond the range limit: the path ends */
        if (n != i)
            p->cur[n] = *v;
        r->ox[n] = v->surface[0] + v->nudge[0];
        r->oy[n] = v->surface[1] + v->nudge[1];
        r->oz[n] = v->surface[2] + v->nudge[2];
        r->dx[n] = v->dir[0];
        r->dy[n] = v->dir[1];
        r->dz[n] = v->dir[2];
        r->time[n] = v->time;
        r->tnear[n] = 0.0f;
        r->tfar[n] = tfar;
        r->mask[n] = LSIM_RAY_MASK_ALL;
        ++n;
    }
    p->cur_count = n;
    p->next_count = 0;
    return n;
}

void lsim_paths_hit(lsim_paths *p)
{
    const lsim_rays *r = &p->rays;
    const lsim_hits *h = &p->hits;
    size_t n = 0;
    for (size_t i = 0; i < p->cur_count; ++i) {
        if (h->object[i] == LSIM_NO_HIT)
            continue;
        lsim_path_vertex v = p->cur[i];
        /* the distance from the surface point the ray left, not from its nudged origin */
        const float t = h->t[i];
        float q[3] = {r->ox[i] + t * r->dx[i] - v.surface[0], r->oy[i] + t * r->dy[i] - v.surface[1],
                      r->oz[i] + t * r->dz[i] - v.surface[2]};
        v.t = sqrtf(lsim_dot3f(q, q));
        v.object = h->object[i];
        v.ng[0] = h->ngx[i];
        v.ng[1] = h->ngy[i];
        v.ng[2] = h->ngz[i];
        /* Inside glass, the next surface should be the same glass's exit face; anything else means
         * an open glass mesh (a single window quad): carry on as if outside. */
        if (v.inside_ior > 0.0f && v.object != v.glass)
            v.inside_ior = 0.0f;
        p->cur[n++] = v;
    }
    p->cur_count = n;
}
