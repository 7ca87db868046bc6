/* The raster engine (LSIM_ENGINE_RASTER; DESIGN.md §2 "Rasterization", issue 12, first part):
 * primary beam rays are answered from OpenGL renders, everything else is ray-cast by an inner
 * Embree engine.
 *
 * A primary batch (lsim_rays.primary >= 1: the frame's slice of beam rays) is looked up in a
 * cube map rendered from one view centre, the mean of the batch's ray origins: 6 faces of
 * 90 x 90 degrees, each N x N pixels with N from an angular pitch = (the finest angular spacing
 * between the batch's beam centre rays) / oversample (2 by default), capped at 4096 x 4096 per
 * face. A cube is kept in a small cache keyed by its centre (within 1 cm), its time (within
 * 10 ms, only when objects move) and its far plane, so a static sensor's frame renders once and
 * later slices and frames reuse it. near = 1 cm, far = the batch's farthest finite tfar (1000 m
 * without one); ranges beyond a ray's tfar are misses (the clip planes cut along the view axis).
 *
 * Per ray: the pixel its direction falls in gives range r, the object and the triangle; with the
 * pixel centre's direction v and centre c the surface point is p = c + r v, and the triangle's
 * geometric normal n (from its vertices, at the view's time) gives the hit along the real ray
 * (origin o, unit d): t = n.(p - o) / (n.d), the raster paper's normal correction
 * r_corr = (p.n)/(v.n) r for a ray from anywhere. The lookup is repeated once with the direction
 * from c to the first hit, so an origin away from c (per-laser offsets, a moving sensor) reads
 * the right pixel. t outside [tnear, tfar] or n.d ~ 0 is a miss. Barycentrics come from the
 * triangle's vertices at the hit point; the normal is (b - a) x (c - a) as Embree's.
 *
 * Spheres are not drawn by the rasterizer: primary rays are also traced by the inner Embree
 * engine against the spheres alone (geometry mask), and the nearer hit wins. Moving objects are
 * drawn at the batch's mean ray time (within the cache's 10 ms): a beam of time t sees a moving
 * object where it was at that render time, an error of speed x |t - render time|.
 *
 * OpenGL runs on one thread at a time: views are rendered under a write lock by whichever
 * pipeline thread needs them (the context is made current there and released after); lookups
 * read the cache under a read lock. A render that fails falls back to Embree for that batch. */
#include "geometry/engine.h"
#include "geometry/raster_gl.h"

#include "core/context.h"
#include "core/motion.h"
#include "scene/scene.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define RASTER_CACHE 4
#define RASTER_MAX_FACE 4096u
#define RASTER_MIN_FACE 16u
#define RASTER_DEFAULT_PITCH (0.05 * 3.14159265358979323846 / 180.0)
#define RASTER_NEAR 0.01
#define RASTER_FAR_DEFAULT 1000.0
#define RASTER_CENTRE_TOL 0.01
#define RASTER_TIME_TOL 0.01
#define RASTER_PAIRS 256

static int g_correction = 1;
static double g_oversample = 2.0;

void lsim_raster_engine_configure(int normal_correction, double oversample)
{
    g_correction = normal_correction ? 1 : 0;
    g_oversample = oversample > 0.0 && isfinite(oversample) ? oversample : 2.0;
}

typedef struct cube {
    int valid;
    double c[3];
    double time;  /* scene clock of the render (only meaningful with motion) */
    double far_m;
    uint32_t n;   /* face size */
    float *range;  /* 6 n n */
    uint32_t *object, *prim;
    double pose_time; /* the time moving objects were drawn at */
    unsigned long stamp;
} cube;

typedef struct raster_state {
    lsim_scene *scene;
    void *embree;
    lsim_raster_gl *gl;
    pthread_rwlock_t lock;
    cube cache[RASTER_CACHE];
    unsigned long stamp;
    double frame_start;
    int motion;      /* some triangle object has a motion (moving or posed) */
    int has_spheres;
    int correction;
    double oversample;
    atomic_int render_failed;
} raster_state;

/* Cube face k: looks along fwd[k] with up[k]; rotation columns x = right = f x u, y = up, z = -f. */
static const double face_fwd[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
static const double face_up[6][3] = {{0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {0, 0, 1}, {1, 0, 0}, {1, 0, 0}};

static void face_right(int k, double r[3])
{
    const double *f = face_fwd[k], *u = face_up[k];
    r[0] = f[1] * u[2] - f[2] * u[1];
    r[1] = f[2] * u[0] - f[0] * u[2];
    r[2] = f[0] * u[1] - f[1] * u[0];
}

static void cube_free(cube *c)
{
    free(c->range);
    free(c->object);
    free(c->prim);
    memset(c, 0, sizeof *c);
}

static void raster_destroy(void *state)
{
    raster_state *s = state;
    if (!s)
        return;
    for (int i = 0; i < RASTER_CACHE; ++i)
        cube_free(&s->cache[i]);
    if (s->gl)
        lsim_raster_gl_destroy(s->gl);
    if (s->embree)
        lsim_engine_embree.destroy(s->embree);
    pthread_rwlock_destroy(&s->lock);
    free(s);
}

static lsim_status raster_create(lsim_scene *scene, void **out)
{
    lsim_context *ctx = scene->ctx;
    raster_state *s = calloc(1, sizeof *s);
    if (!s)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory creating the raster engine");
    pthread_rwlock_init(&s->lock, NULL);
    s->scene = scene;
    s->correction = g_correction;
    s->oversample = g_oversample;
    lsim_status st = lsim_engine_embree.create(scene, &s->embree);
    if (st != LSIM_OK) {
        s->embree = NULL;
        raster_destroy(s);
        return st;
    }
    st = lsim_raster_gl_create(ctx, &s->gl);
    if (st == LSIM_OK)
        st = lsim_raster_gl_set_scene(s->gl, scene);
    if (st != LSIM_OK) {
        raster_destroy(s);
        return st;
    }
    lsim_raster_gl_release_current(s->gl);
    for (size_t i = 0; i < scene->object_count; ++i) {
        const lsim_object *o = &scene->objects[i];
        if (o->shape == LSIM_SHAPE_SPHERE)
            s->has_spheres = 1;
        else if (o->motion)
            s->motion = 1;
    }
    *out = s;
    return LSIM_OK;
}

static lsim_status raster_set_frame_time(void *state, lsim_context *ctx, double start, double span)
{
    raster_state *s = state;
    lsim_status st = lsim_engine_embree.set_frame_time(s->embree, ctx, start, span);
    pthread_rwlock_wrlock(&s->lock);
    s->frame_start = start;
    if (s->motion) /* views of the last frame show the objects elsewhere */
        for (int i = 0; i < RASTER_CACHE; ++i)
            s->cache[i].valid = 0;
    pthread_rwlock_unlock(&s->lock);
    return st;
}

static void raster_occluded(const void *state, const lsim_rays *rays, size_t begin, size_t count, uint8_t *blocked)
{
    const raster_state *s = state;
    lsim_engine_embree.occluded(s->embree, rays, begin, count, blocked);
}

/* The batch's view request. */
typedef struct request {
    double c[3], time, far_m, pitch;
    size_t valid;
} request;

static void batch_request(const raster_state *s, const lsim_rays *r, size_t begin, size_t count, request *q)
{
    double sum[3] = {0, 0, 0}, tsum = 0.0, far_m = 0.0, finest = INFINITY;
    size_t n = 0;
    const size_t sub = r->primary > 0 ? (size_t)r->primary : 1;
    for (size_t i = begin; i < begin + count; ++i) {
        if (!lsim_ray_valid(r->ox[i], r->oy[i], r->oz[i], r->dx[i], r->dy[i], r->dz[i], r->tnear[i], r->tfar[i]))
            continue;
        sum[0] += r->ox[i];
        sum[1] += r->oy[i];
        sum[2] += r->oz[i];
        tsum += r->time[i];
        if (isfinite(r->tfar[i]) && r->tfar[i] < 1e29f && r->tfar[i] > far_m)
            far_m = r->tfar[i];
        ++n;
    }
    /* finest spacing between beam centre rays: each of about RASTER_PAIRS beams spread over the
     * batch against the next RASTER_PAIRS beams (a spinning unit's next column of the same laser
     * is channels beams on); a sample, so that the estimate costs RASTER_PAIRS^2 pairs a batch,
     * not RASTER_PAIRS per beam */
    double best = INFINITY; /* smallest squared sine above the floor */
    const double floor2 = 1e-8; /* (1e-4 rad)^2: rays closer than that are the same direction */
    const size_t beams = count / sub, every = beams > RASTER_PAIRS ? beams / RASTER_PAIRS : 1;
    for (size_t i = begin; i < begin + count; i += sub * every)
        for (size_t j = i + sub, k = 0; j < begin + count && k < RASTER_PAIRS; j += sub, ++k) {
            double ax = r->dx[i], ay = r->dy[i], az = r->dz[i], bx = r->dx[j], by = r->dy[j], bz = r->dz[j];
            if (ax * bx + ay * by + az * bz <= 0.0)
                continue;
            double cx = ay * bz - az * by, cy = az * bx - ax * bz, cz = ax * by - ay * bx;
            double c2 = cx * cx + cy * cy + cz * cz;
            if (c2 > floor2 && c2 < best)
                best = c2;
        }
    if (isfinite(best))
        finest = asin(sqrt(best));
    q->valid = n;
    for (int k = 0; k < 3; ++k)
        q->c[k] = n ? sum[k] / (double)n : 0.0;
    q->time = s->frame_start + (n ? tsum / (double)n : 0.0);
    q->far_m = far_m > RASTER_NEAR * 10 ? far_m * 1.001 : RASTER_FAR_DEFAULT;
    q->pitch = (isfinite(finest) ? finest : RASTER_DEFAULT_PITCH) / s->oversample;
}

static uint32_t face_size(double pitch)
{
    /* a face spans 2 tangent units; at its centre one pixel subtends 2 / n radians */
    double n = ceil(2.0 / pitch);
    if (!(n <= RASTER_MAX_FACE))
        n = RASTER_MAX_FACE;
    if (n < RASTER_MIN_FACE)
        n = RASTER_MIN_FACE;
    return (uint32_t)n;
}

static const cube *find_cube(const raster_state *s, const request *q)
{
    for (int i = 0; i < RASTER_CACHE; ++i) {
        const cube *c = &s->cache[i];
        if (!c->valid || c->far_m < q->far_m || c->n < face_size(q->pitch))
            continue;
        double dx = c->c[0] - q->c[0], dy = c->c[1] - q->c[1], dz = c->c[2] - q->c[2];
        if (dx * dx + dy * dy + dz * dz > RASTER_CENTRE_TOL * RASTER_CENTRE_TOL)
            continue;
        if (s->motion && fabs(c->time - q->time) > RASTER_TIME_TOL)
            continue;
        return c;
    }
    return NULL;
}

/* Render a cube for q into a cache slot (write lock held). */
static const cube *render_cube(raster_state *s, const request *q)
{
    int slot = 0; /* a free slot, else the oldest */
    for (int i = 0; i < RASTER_CACHE; ++i) {
        if (!s->cache[i].valid) {
            slot = i;
            break;
        }
        if (s->cache[i].stamp < s->cache[slot].stamp)
            slot = i;
    }
    cube *c = &s->cache[slot];
    uint32_t n = face_size(q->pitch);
    size_t px = 6 * (size_t)n * n;
    if (c->n != n || !c->range) {
        cube_free(c);
        c->range = malloc(px * sizeof *c->range);
        c->object = malloc(px * sizeof *c->object);
        c->prim = malloc(px * sizeof *c->prim);
        if (!c->range || !c->object || !c->prim) {
            cube_free(c);
            return NULL;
        }
        c->n = n;
    }
    c->valid = 0;
    lsim_status st = LSIM_OK;
    if (s->motion)
        st = lsim_raster_gl_set_time(s->gl, q->time);
    for (int k = 0; k < 6 && st == LSIM_OK; ++k) {
        lsim_raster_view v = {{q->c[0], q->c[1], q->c[2]}, {0}, -1, 1, -1, 1, n, n, RASTER_NEAR, q->far_m, 32};
        double rt[3];
        face_right(k, rt);
        for (int r = 0; r < 3; ++r) {
            v.rotation[3 * r + 0] = rt[r];
            v.rotation[3 * r + 1] = face_up[k][r];
            v.rotation[3 * r + 2] = -face_fwd[k][r];
        }
        size_t off = (size_t)k * n * n;
        lsim_raster_image img = {c->range + off, NULL, c->object + off, c->prim + off, NULL};
        st = lsim_raster_gl_render_view(s->gl, &v, &img);
    }
    lsim_raster_gl_release_current(s->gl);
    if (st != LSIM_OK)
        return NULL;
    memcpy(c->c, q->c, sizeof c->c);
    c->time = q->time;
    c->far_m = q->far_m;
    c->stamp = ++s->stamp;
    c->valid = 1;
    return c;
}

/* Pixel of world direction w (any length) in cube c: face, index; the pixel centre's unit direction. */
static size_t lookup(const cube *c, const double w[3], double v[3])
{
    int a = fabs(w[0]) >= fabs(w[1]) ? (fabs(w[0]) >= fabs(w[2]) ? 0 : 2) : (fabs(w[1]) >= fabs(w[2]) ? 1 : 2);
    int k = 2 * a + (w[a] < 0.0);
    const double *f = face_fwd[k], *u = face_up[k];
    double rt[3];
    face_right(k, rt);
    double fw = f[0] * w[0] + f[1] * w[1] + f[2] * w[2];
    double x = (rt[0] * w[0] + rt[1] * w[1] + rt[2] * w[2]) / fw;
    double y = (u[0] * w[0] + u[1] * w[1] + u[2] * w[2]) / fw;
    const uint32_t n = c->n;
    double fi = floor((x + 1.0) * 0.5 * n), fj = floor((y + 1.0) * 0.5 * n);
    uint32_t i = fi < 0 ? 0 : fi >= n ? n - 1 : (uint32_t)fi;
    uint32_t j = fj < 0 ? 0 : fj >= n ? n - 1 : (uint32_t)fj;
    double px = -1.0 + (i + 0.5) * 2.0 / n, py = -1.0 + (j + 0.5) * 2.0 / n, len = 0.0;
    for (int r = 0; r < 3; ++r) {
        v[r] = px * rt[r] + py * u[r] + f[r];
        len += v[r] * v[r];
    }
    len = 1.0 / sqrt(len);
    for (int r = 0; r < 3; ++r)
        v[r] *= len;
    return (size_t)k * n * n + (size_t)j * n + i;
}

/* Triangle `prim` of object `obj` in world space at the cube's time. */
static void triangle_world(const raster_state *s, const cube *c, uint32_t obj, uint32_t prim, double tri[3][3])
{
    const lsim_object *o = &s->scene->objects[obj];
    const uint32_t *ix = o->indices + 3 * (size_t)prim;
    double pose[12];
    if (o->motion)
        lsim_motion_pose_at(o->motion, c->time, pose);
    for (int k = 0; k < 3; ++k) {
        const float *p = o->vertices + 3 * (size_t)ix[k];
        for (int r = 0; r < 3; ++r)
            tri[k][r] = o->motion ? pose[4 * r] * p[0] + pose[4 * r + 1] * p[1] + pose[4 * r + 2] * p[2] + pose[4 * r + 3]
                                  : p[r];
    }
}

/* The raster hit of ray i; 0 for a miss. */
static int raster_hit(const raster_state *s, const cube *c, const lsim_rays *r, size_t i, lsim_hits *h)
{
    const double o[3] = {r->ox[i], r->oy[i], r->oz[i]}, d[3] = {r->dx[i], r->dy[i], r->dz[i]};
    double w[3] = {d[0], d[1], d[2]}, t = NAN, n[3] = {0, 0, 0}, tri[3][3];
    uint32_t obj = 0, prim = 0;
    for (int pass = 0; pass < 2; ++pass) {
        double v[3];
        size_t p = lookup(c, w, v);
        if (c->object[p] == 0 || !isfinite(c->range[p]))
            break;
        double rp = c->range[p];
        uint32_t po = c->object[p] - 1, pp = c->prim[p];
        if (po >= s->scene->object_count || pp >= s->scene->objects[po].triangle_count)
            break;
        double tt;
        triangle_world(s, c, po, pp, tri);
        double e1[3], e2[3], nn[3];
        for (int k = 0; k < 3; ++k) {
            e1[k] = tri[1][k] - tri[0][k];
            e2[k] = tri[2][k] - tri[0][k];
        }
        nn[0] = e1[1] * e2[2] - e1[2] * e2[1];
        nn[1] = e1[2] * e2[0] - e1[0] * e2[2];
        nn[2] = e1[0] * e2[1] - e1[1] * e2[0];
        if (s->correction) {
            double q[3] = {c->c[0] + rp * v[0] - o[0], c->c[1] + rp * v[1] - o[1], c->c[2] + rp * v[2] - o[2]};
            double nd = nn[0] * d[0] + nn[1] * d[1] + nn[2] * d[2];
            double nl = sqrt(nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]);
            if (!(fabs(nd) > 1e-6 * nl))
                break;
            tt = (nn[0] * q[0] + nn[1] * q[1] + nn[2] * q[2]) / nd;
        } else {
            tt = rp; /* ablation: the pixel's range along the ray */
        }
        t = tt;
        obj = po;
        prim = pp;
        memcpy(n, nn, sizeof n);
        if (pass == 0 && s->correction) /* look again from the view centre towards this hit */
            for (int k = 0; k < 3; ++k)
                w[k] = o[k] + tt * d[k] - c->c[k];
        else
            break;
        if (!(w[0] * w[0] + w[1] * w[1] + w[2] * w[2] > 1e-12))
            break;
    }
    if (!(t >= r->tnear[i] && t <= r->tfar[i]))
        return 0;
    /* barycentrics of the hit on the (world) triangle: x = (1 - u - v) a + u b + v c */
    triangle_world(s, c, obj, prim, tri);
    double e1[3], e2[3], x[3];
    for (int k = 0; k < 3; ++k) {
        e1[k] = tri[1][k] - tri[0][k];
        e2[k] = tri[2][k] - tri[0][k];
        x[k] = o[k] + t * d[k] - tri[0][k];
    }
    double d00 = e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2], d01 = e1[0] * e2[0] + e1[1] * e2[1] + e1[2] * e2[2];
    double d11 = e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2], d20 = x[0] * e1[0] + x[1] * e1[1] + x[2] * e1[2];
    double d21 = x[0] * e2[0] + x[1] * e2[1] + x[2] * e2[2], den = d00 * d11 - d01 * d01;
    double bu = den != 0.0 ? (d11 * d20 - d01 * d21) / den : 0.0, bv = den != 0.0 ? (d00 * d21 - d01 * d20) / den : 0.0;
    h->t[i] = (float)t;
    h->object[i] = obj;
    h->primitive[i] = prim;
    if (h->u)
        h->u[i] = (float)bu;
    if (h->v)
        h->v[i] = (float)bv;
    h->ngx[i] = (float)n[0];
    h->ngy[i] = (float)n[1];
    h->ngz[i] = (float)n[2];
    return 1;
}

static void set_miss(lsim_hits *h, size_t i)
{
    h->t[i] = INFINITY;
    h->object[i] = LSIM_NO_HIT;
    h->primitive[i] = LSIM_NO_HIT;
    if (h->u)
        h->u[i] = 0.0f;
    if (h->v)
        h->v[i] = 0.0f;
    h->ngx[i] = h->ngy[i] = h->ngz[i] = 0.0f;
}

/* Spheres through Embree (sphere mask only), the nearer hit kept. */
static void add_spheres(const raster_state *s, const lsim_rays *rays, size_t begin, size_t count, lsim_hits *h)
{
    enum { B = 256 };
    uint32_t mask[B], object[B], primitive[B];
    float t[B], u[B], v[B], nx[B], ny[B], nz[B];
    for (size_t at = begin; at < begin + count; at += B) {
        size_t m = begin + count - at < B ? begin + count - at : B;
        for (size_t k = 0; k < m; ++k)
            mask[k] = rays->mask[at + k] & LSIM_GEOMETRY_MASK_SPHERES;
        lsim_rays sub = {m,
                         rays->ox + at, rays->oy + at, rays->oz + at,
                         rays->dx + at, rays->dy + at, rays->dz + at,
                         rays->time + at, rays->tnear + at, rays->tfar + at, mask, 0};
        lsim_hits sh = {t, object, primitive, u, v, nx, ny, nz};
        lsim_engine_embree.intersect(s->embree, &sub, 0, m, &sh);
        for (size_t k = 0; k < m; ++k) {
            size_t i = at + k;
            if (object[k] == LSIM_NO_HIT || !(t[k] < h->t[i]))
                continue;
            h->t[i] = t[k];
            h->object[i] = object[k];
            h->primitive[i] = primitive[k];
            if (h->u)
                h->u[i] = u[k];
            if (h->v)
                h->v[i] = v[k];
            h->ngx[i] = nx[k];
            h->ngy[i] = ny[k];
            h->ngz[i] = nz[k];
        }
    }
}

static void raster_intersect(const void *state, const lsim_rays *rays, size_t begin, size_t count, lsim_hits *hits)
{
    raster_state *s = (raster_state *)state; /* the cache and the GL context are guarded by s->lock */
    if (rays->primary <= 0 || count == 0 || atomic_load(&s->render_failed)) {
        lsim_engine_embree.intersect(s->embree, rays, begin, count, hits);
        return;
    }
    request q;
    batch_request(s, rays, begin, count, &q);
    pthread_rwlock_rdlock(&s->lock);
    const cube *c = find_cube(s, &q);
    if (!c) {
        pthread_rwlock_unlock(&s->lock);
        pthread_rwlock_wrlock(&s->lock);
        c = find_cube(s, &q); /* another thread may have rendered it meanwhile */
        if (!c)
            c = render_cube(s, &q);
        if (!c) {
            atomic_store(&s->render_failed, 1);
            pthread_rwlock_unlock(&s->lock);
            lsim_engine_embree.intersect(s->embree, rays, begin, count, hits);
            return;
        }
        /* keep the write lock while reading: cheap, and no slot can change under us */
    }
    for (size_t i = begin; i < begin + count; ++i) {
        set_miss(hits, i);
        if (!lsim_ray_valid(rays->ox[i], rays->oy[i], rays->oz[i], rays->dx[i], rays->dy[i], rays->dz[i],
                            rays->tnear[i], rays->tfar[i]) ||
            (rays->mask[i] & LSIM_GEOMETRY_MASK_TRIANGLES) == 0)
            continue;
        raster_hit(s, c, rays, i, hits);
    }
    pthread_rwlock_unlock(&s->lock);
    if (s->has_spheres)
        add_spheres(s, rays, begin, count, hits);
}

const lsim_engine_ops lsim_engine_raster = {"raster", raster_create, raster_set_frame_time, raster_intersect,
                                            raster_occluded, raster_destroy};
