/* The raster engine (LSIM_ENGINE_RASTER; DESIGN.md §2 "Rasterization", issue 12): primary beam
 * rays (and the kernel mode's image) are answered from OpenGL renders, everything else is
 * ray-cast by an inner Embree engine.
 *
 * Views (raster_views.h) are fitted to the batch's sensor (lsim_rays.sensor), never to the
 * batch, so the points do not depend on how a frame was cut into batches:
 *   - a still frame (the sensor does not move during it and no object moves): one cube map
 *     centred on the sensor's origin, its pixel pitch the sensor's finest beam spacing divided by
 *     the oversampling (raster.oversample, 2), at most 4096 x 4096 a face. It is cached: later
 *     slices and frames from the same place reuse it, so a static sensor renders once.
 *   - a moving frame (a moving sensor or moving objects): the beams are cut by firing time into
 *     groups of raster.group_ms (1 ms); each group's view is drawn at the group's mean firing
 *     time, from the sensor's origin then, as a sector fitted to the group's beams (a cube where
 *     they spread too wide). A rotating sensor thus still shows the motion distortion: a moving
 *     object is drawn where it was at its group's time, an error of at most its speed x
 *     group_ms (the sensor's own motion is exact: every ray is corrected from its own origin).
 * near = 1 cm, far = the batch's farthest finite tfar (1000 m without one); ranges beyond a
 * ray's tfar are misses (the clip planes cut along the view axis).
 *
 * Per ray: the pixel its direction falls in gives range r, the object and the triangle; with the
 * pixel centre's direction v and view centre c the surface point is p = c + r v, and the
 * triangle's geometric normal n (from its vertices, at the view's time) gives the hit along the
 * real ray (origin o, unit d): t = n.(p - o) / (n.d), the raster paper's normal correction
 * r_corr = (p.n)/(v.n) r for a ray from anywhere. The lookup is repeated once with the direction
 * from c to the first hit, so an origin away from c (per-laser offsets, a moving sensor) reads
 * the right pixel. t outside [tnear, tfar] or n.d ~ 0 is a miss. Barycentrics come from the
 * triangle's vertices at the hit point; the normal is (b - a) x (c - a) as Embree's. A ray that
 * no view holds (a kernel image pixel beyond a sector's margin) is ray-cast.
 *
 * Spheres are not drawn by the rasterizer: primary rays are also traced by the inner Embree
 * engine against the spheres alone (geometry mask), and the nearer hit wins.
 *
 * The lookup runs on the GL device where the context has compute shaders (raster_gl_lookup.c:
 * the same arithmetic in a compute shader, views kept as textures, only rays in and hits out;
 * bit-identical to the CPU lookup on llvmpipe, tests/test_raster_lookup.c), else here on the CPU
 * (raster_hit, from views read back); LIDARSIM_RASTER_LOOKUP=cpu forces the CPU lookup.
 *
 * OpenGL runs on one thread at a time: views are rendered under a write lock by whichever
 * pipeline thread needs them (the context is made current there and released after); lookups
 * read the cache under a read lock (GL lookups also under gl_lock, one at a time). A render or
 * GL lookup that fails falls back to Embree from then on. */
#include "geometry/engine.h"
#include "geometry/raster_fallback.h"
#include "geometry/raster_gl.h"
#include "geometry/raster_views.h"

#include "core/context.h"
#include "core/motion.h"
#include "scene/scene.h"
#include "sensor/sensor.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define RASTER_VIEWS 16
#define RASTER_LAYOUTS 8
#define RASTER_NEAR 0.01
#define RASTER_FAR_DEFAULT 1000.0
#define RASTER_CENTRE_TOL 0.01
/* The view cache's memory: before a view is drawn, the least recently used others are freed
 * until they and it fit (one view alone may exceed it: a 4096^2 cube is 1.2 GB). */
#define RASTER_VIEW_BUDGET ((size_t)1 << 30)

typedef struct raster_state {
    lsim_scene *scene;
    void *embree;
    lsim_raster_gl *gl;
    pthread_rwlock_t lock;
    raster_view view[RASTER_VIEWS];
    raster_layout layout[RASTER_LAYOUTS];
    unsigned long stamp, layouts_made;
    double frame_start;
    int motion; /* some triangle object has a motion (moving or posed) */
    int has_spheres;
    lsim_raster_options opt;
    atomic_int render_failed;
    /* The lookup on the GL device (raster_gl_lookup.c): 1 where the context runs compute shaders
     * and LIDARSIM_RASTER_LOOKUP is not "cpu"; views then stay on the device. gl_lock makes the
     * lookups (under the read lock) take the context one at a time; the staging arrays are its. */
    int on_gl;
    pthread_mutex_t gl_lock;
    float *pack;
    uint32_t *got, *which;
    size_t staged;
} raster_state;

/* Ray k is valid and may hit triangles (the views hold triangles only): it is looked up. */
static inline int ray_for_triangles(const lsim_rays *rays, size_t k)
{
    return lsim_ray_valid(rays->ox[k], rays->oy[k], rays->oz[k], rays->dx[k], rays->dy[k], rays->dz[k], rays->tnear[k],
                          rays->tfar[k]) &&
           (rays->mask[k] & LSIM_GEOMETRY_MASK_TRIANGLES) != 0;
}

static void raster_destroy(void *state)
{
    raster_state *s = state;
    if (!s)
        return;
    for (int i = 0; i < RASTER_VIEWS; ++i)
        raster_view_free(&s->view[i]);
    for (int i = 0; i < RASTER_LAYOUTS; ++i)
        raster_layout_free(&s->layout[i]);
    if (s->gl)
        lsim_raster_gl_destroy(s->gl);
    if (s->embree)
        lsim_engine_embree.destroy(s->embree);
    pthread_rwlock_destroy(&s->lock);
    pthread_mutex_destroy(&s->gl_lock);
    free(s->pack);
    free(s->got);
    free(s->which);
    free(s);
}

static lsim_status raster_create(lsim_scene *scene, void **out)
{
    lsim_context *ctx = scene->ctx;
    raster_state *s = calloc(1, sizeof *s);
    if (!s)
        return lsim_fail(ctx, LSIM_ERR_OUT_OF_MEMORY, "out of memory creating the raster engine");
    pthread_rwlock_init(&s->lock, NULL);
    pthread_mutex_init(&s->gl_lock, NULL);
    s->scene = scene;
    s->opt = scene->raster;
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
    const char *lookup = getenv("LIDARSIM_RASTER_LOOKUP"); /* "cpu": the CPU lookup (a test's and a fallback's switch) */
    s->on_gl = lsim_raster_gl_can_look_up(s->gl) && !(lookup && strcmp(lookup, "cpu") == 0);
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
    if (s->motion) /* objects may have been moved or re-posed since the views were drawn */
        for (int i = 0; i < RASTER_VIEWS; ++i)
            s->view[i].valid = 0;
    pthread_rwlock_unlock(&s->lock);
    return st;
}

static void raster_occluded(const void *state, const lsim_rays *rays, size_t begin, size_t count, uint8_t *blocked)
{
    const raster_state *s = state;
    lsim_engine_embree.occluded(s->embree, rays, begin, count, blocked);
}

/* What a run of rays needs: the sensor's layout, the group (-1: a still frame's cube), far. */
typedef struct request {
    const lsim_sensor *sensor;
    double pitch; /* lsim_rays.pitch */
    long group;
    double far_m;
} request;

static void pose_rotation(const lsim_pose *p, double rot[9])
{
    for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k)
            rot[3 * r + k] = p->r.m[r][k];
}

static raster_layout *find_layout(raster_state *s, const lsim_sensor *sensor, double pitch)
{
    const lsim_beams *b = &sensor->beams;
    for (int i = 0; i < RASTER_LAYOUTS; ++i) {
        raster_layout *L = &s->layout[i];
        if (L->id && L->beam_digest == b->digest && L->beams == b->count && L->pitch_hint == pitch)
            return L;
    }
    return NULL;
}

/* Under the write lock: the sensor's layout, made in the oldest slot if missing. */
static raster_layout *make_layout(raster_state *s, const lsim_sensor *sensor, double pitch)
{
    raster_layout *L = find_layout(s, sensor, pitch);
    if (L)
        return L;
    L = &s->layout[0];
    for (int i = 1; i < RASTER_LAYOUTS; ++i)
        if (s->layout[i].id < L->id)
            L = &s->layout[i];
    if (raster_layout_make(L, sensor, pitch, s->opt.oversample, s->opt.group_ms) != 0) {
        L->id = 0;
        return NULL;
    }
    L->id = ++s->layouts_made;
    L->beam_digest = sensor->beams.digest;
    L->beams = sensor->beams.count;
    L->pitch_hint = pitch;
    return L;
}

/* The view of group g (-1: the still frame's view) without its pixels: faces, axes, window, centre
 * (the sensor's origin at the group's mean time) and time on the scene's clock. */
static void group_view_place(const lsim_sensor *sensor, const raster_layout *L, long g, raster_view *v)
{
    const raster_group *G = g >= 0 ? &L->group[g] : &L->all;
    const double t = g >= 0 ? G->time : 0.0;
    const lsim_pose pose = g >= 0 && sensor->frame_moves ? lsim_sensor_beam_pose(sensor, t) : sensor->pose;
    double rot[9];
    pose_rotation(&pose, rot);
    if (G->wide)
        raster_view_set_cube(v, raster_view_side(2.0, L->pitch));
    else
        raster_view_set_sector(v, G, rot, L->pitch);
    v->c[0] = pose.t.x;
    v->c[1] = pose.t.y;
    v->c[2] = pose.t.z;
    v->time = sensor->frame_start + t;
}

static const raster_view *find_view(raster_state *s, const raster_layout *L, const request *q)
{
    const double o[3] = {q->sensor->pose.t.x, q->sensor->pose.t.y, q->sensor->pose.t.z};
    double rot[9], want_c[3] = {0, 0, 0}, want_f[3] = {0, 0, 0};
    pose_rotation(&q->sensor->pose, rot);
    if (q->group >= 0) { /* where the group's view is drawn from */
        raster_view want;
        group_view_place(q->sensor, L, q->group, &want);
        memcpy(want_c, want.c, sizeof want_c);
        memcpy(want_f, want.fwd[0], sizeof want_f);
    }
    const uint32_t side = raster_view_side(2.0, L->pitch);
    for (int i = 0; i < RASTER_VIEWS; ++i) {
        const raster_view *v = &s->view[i];
        if (!v->valid || v->group != q->group || v->far_m < q->far_m)
            continue;
        if (q->group >= 0) { /* a moving frame's group view: this layout, time and place */
            if (v->layout_id == L->id && v->time == q->sensor->frame_start + L->group[q->group].time &&
                memcmp(v->c, want_c, sizeof want_c) == 0 && memcmp(v->fwd[0], want_f, sizeof want_f) == 0)
                return v;
            continue;
        }
        const double dx = v->c[0] - o[0], dy = v->c[1] - o[1], dz = v->c[2] - o[2];
        if (dx * dx + dy * dy + dz * dz > RASTER_CENTRE_TOL * RASTER_CENTRE_TOL)
            continue;
        if (v->faces == 6 && L->all.wide && v->w == side) /* the same cube a fresh engine would draw */
            return v;
        if (v->faces == 1 && !L->all.wide && v->layout_id == L->id) { /* the sensor's sector, same heading */
            raster_view want;
            raster_view_set_sector(&want, &L->all, rot, L->pitch);
            if (memcmp(want.fwd[0], v->fwd[0], sizeof want.fwd[0]) == 0 &&
                memcmp(want.up[0], v->up[0], sizeof want.up[0]) == 0)
                return v;
        }
    }
    return NULL;
}

/* Under the write lock: draw the view of q into the least recently used slot. */
static const raster_view *render_view(raster_state *s, const raster_layout *L, const request *q)
{
    raster_view *v = &s->view[0];
    for (int i = 1; i < RASTER_VIEWS && v->valid; ++i)
        if (!s->view[i].valid || s->view[i].stamp < v->stamp)
            v = &s->view[i];
    v->valid = 0;
    group_view_place(q->sensor, L, q->group, v);
    v->far_m = q->far_m;
    v->group = q->group;
    v->layout_id = L->id;
    raster_views_trim(s->view, RASTER_VIEWS, v, raster_view_bytes_after(v), RASTER_VIEW_BUDGET);
    lsim_status st = LSIM_OK;
    if (s->motion)
        st = lsim_raster_gl_set_time(s->gl, v->time);
    if (st == LSIM_OK)
        st = raster_view_render(s->gl, v, s->opt.depth_bits, RASTER_NEAR, s->on_gl);
    lsim_raster_gl_release_current(s->gl);
    if (st != LSIM_OK)
        return NULL;
    v->stamp = ++s->stamp;
    v->valid = 1;
    return v;
}

/* The view of q, with the engine's lock held (read or write) until the caller unlocks; NULL
 * (lock released) when it cannot be had. */
static const raster_view *acquire_view(raster_state *s, const request *q)
{
    pthread_rwlock_rdlock(&s->lock);
    const raster_layout *L = find_layout(s, q->sensor, q->pitch);
    const raster_view *v = L ? find_view(s, L, q) : NULL;
    if (v)
        return v;
    pthread_rwlock_unlock(&s->lock);
    pthread_rwlock_wrlock(&s->lock);
    L = make_layout(s, q->sensor, q->pitch);
    v = L ? find_view(s, L, q) : NULL; /* another thread may have rendered it meanwhile */
    if (!v && L)
        v = render_view(s, L, q);
    if (!v) {
        atomic_store(&s->render_failed, 1);
        pthread_rwlock_unlock(&s->lock);
    }
    return v;
}

/* Triangle `prim` of object `obj` in world space at the cube's time. */
static void triangle_world(const raster_state *s, const raster_view *c, uint32_t obj, uint32_t prim, double tri[3][3])
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

/* The raster hit of ray i: 1 a hit, 0 a miss, -1 the view does not hold the ray's direction. */
static int raster_hit(const raster_state *s, const raster_view *c, const lsim_rays *r, size_t i, lsim_hits *h)
{
    const double o[3] = {r->ox[i], r->oy[i], r->oz[i]}, d[3] = {r->dx[i], r->dy[i], r->dz[i]};
    double w[3] = {d[0], d[1], d[2]}, t = NAN, n[3] = {0, 0, 0}, tri[3][3];
    uint32_t obj = 0, prim = 0;
    for (int pass = 0; pass < 2; ++pass) {
        double v[3];
        size_t p = raster_view_pixel(c, w, v);
        if (p == RASTER_NO_PIXEL) {
            if (pass == 0)
                return -1;
            break; /* keep the first pass's hit */
        }
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
        if (s->opt.normal_correction) {
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
        if (pass == 0 && s->opt.normal_correction) /* look again from the view centre towards this hit */
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

/* Under gl_lock: room for n rays in the staging arrays. */
static int stage(raster_state *s, size_t n)
{
    if (n <= s->staged)
        return 0;
    float *pack = realloc(s->pack, n * LSIM_RASTER_LOOKUP_RAY * sizeof *pack);
    if (pack)
        s->pack = pack;
    uint32_t *got = realloc(s->got, n * LSIM_RASTER_LOOKUP_HIT * sizeof *got);
    if (got)
        s->got = got;
    uint32_t *which = realloc(s->which, n * sizeof *which);
    if (which)
        s->which = which;
    if (!pack || !got || !which)
        return -1;
    s->staged = n;
    return 0;
}

/* Rays [i, j) against view v on the GL device (the view's lock held): valid triangle rays are
 * packed, looked up by the compute shader, their hits written; rays the view does not hold are
 * ray-cast. -1 when the GL lookup failed (nothing written for the rays). */
static int look_up_on_gl(raster_state *s, const raster_view *v, const lsim_rays *rays, size_t i, size_t j,
                         lsim_hits *hits)
{
    pthread_mutex_lock(&s->gl_lock);
    if (stage(s, j - i) != 0) {
        pthread_mutex_unlock(&s->gl_lock);
        return -1;
    }
    size_t n = 0;
    for (size_t k = i; k < j; ++k) {
        raster_set_miss(hits, k);
        if (!ray_for_triangles(rays, k))
            continue;
        float *p = s->pack + LSIM_RASTER_LOOKUP_RAY * n;
        p[0] = rays->ox[k], p[1] = rays->oy[k], p[2] = rays->oz[k];
        p[3] = rays->dx[k], p[4] = rays->dy[k], p[5] = rays->dz[k];
        p[6] = rays->tnear[k], p[7] = rays->tfar[k];
        s->which[n++] = (uint32_t)k;
    }
    lsim_raster_lookup_view frame;
    raster_view_frame(v, s->opt.normal_correction, &frame);
    lsim_status st = lsim_raster_gl_look_up(s->gl, &v->target, &frame, s->pack, n, s->got);
    lsim_raster_gl_release_current(s->gl);
    if (st != LSIM_OK) {
        pthread_mutex_unlock(&s->gl_lock);
        return -1;
    }
    size_t outside = 0;
    for (size_t m = 0; m < n; ++m) {
        const uint32_t *g = s->got + LSIM_RASTER_LOOKUP_HIT * m;
        const size_t k = s->which[m];
        if (g[6] == LSIM_RASTER_LOOKUP_OUTSIDE) {
            s->which[outside++] = (uint32_t)k; /* m >= outside: the list is rewritten behind the reading */
            continue;
        }
        if (g[6] == LSIM_NO_HIT)
            continue;
        float f[6];
        memcpy(f, g, sizeof f);
        hits->t[k] = f[0];
        if (hits->u)
            hits->u[k] = f[1];
        if (hits->v)
            hits->v[k] = f[2];
        hits->ngx[k] = f[3];
        hits->ngy[k] = f[4];
        hits->ngz[k] = f[5];
        hits->object[k] = g[6];
        hits->primitive[k] = g[7];
    }
    if (outside)
        raster_cast_some(s->embree, rays, s->which, outside, hits);
    pthread_mutex_unlock(&s->gl_lock);
    return 0;
}

static void raster_intersect(const void *state, const lsim_rays *rays, size_t begin, size_t count, lsim_hits *hits)
{
    raster_state *s = (raster_state *)state; /* the views and the GL context are guarded by s->lock */
    const lsim_sensor *sensor = rays->sensor;
    if (rays->primary <= 0 || !sensor || sensor->beams.count == 0 || count == 0 || atomic_load(&s->render_failed)) {
        lsim_engine_embree.intersect(s->embree, rays, begin, count, hits);
        return;
    }
    request q = {sensor, rays->pitch, -1, 0.0};
    for (size_t i = begin; i < begin + count; ++i)
        if (isfinite(rays->tfar[i]) && rays->tfar[i] < 1e29f && rays->tfar[i] > q.far_m)
            q.far_m = rays->tfar[i];
    q.far_m = q.far_m > RASTER_NEAR * 10 ? q.far_m * 1.001 : RASTER_FAR_DEFAULT;
    const int still = !sensor->frame_moves && !s->motion;
    double group_s = 0.0;
    size_t groups = 1;
    if (!still) { /* the layout's grouping (its numbers copied out under the lock; made only once) */
        pthread_rwlock_rdlock(&s->lock);
        const raster_layout *L = find_layout(s, sensor, q.pitch);
        if (!L) {
            pthread_rwlock_unlock(&s->lock);
            pthread_rwlock_wrlock(&s->lock);
            L = make_layout(s, sensor, q.pitch);
        }
        if (L) {
            group_s = L->group_s;
            groups = L->groups;
        }
        pthread_rwlock_unlock(&s->lock);
        if (!L) {
            lsim_engine_embree.intersect(s->embree, rays, begin, count, hits);
            return;
        }
    }
    raster_layout grouping;
    memset(&grouping, 0, sizeof grouping);
    grouping.group_s = group_s;
    grouping.groups = groups;
    enum { F = 512 };
    uint32_t fallback[F]; /* rays no view holds, ray-cast in bunches */
    size_t nf = 0;
    for (size_t i = begin; i < begin + count;) {
        q.group = still ? -1 : (long)raster_layout_group_of(&grouping, rays->time[i]);
        size_t j = i + 1;
        while (j < begin + count && (still || (long)raster_layout_group_of(&grouping, rays->time[j]) == q.group))
            ++j;
        const raster_view *v = acquire_view(s, &q);
        if (v && s->on_gl) {
            const int failed = look_up_on_gl(s, v, rays, i, j, hits);
            pthread_rwlock_unlock(&s->lock);
            if (failed) { /* as a failed render: Embree from here on */
                atomic_store(&s->render_failed, 1);
                lsim_engine_embree.intersect(s->embree, rays, i, begin + count - i, hits);
                j = begin + count;
            }
        } else if (!v) {
            lsim_engine_embree.intersect(s->embree, rays, i, begin + count - i, hits);
            j = begin + count;
        } else {
            for (size_t k = i; k < j; ++k) {
                raster_set_miss(hits, k);
                if (!ray_for_triangles(rays, k))
                    continue;
                if (raster_hit(s, v, rays, k, hits) < 0) {
                    if (nf == F) {
                        raster_cast_some(s->embree, rays, fallback, nf, hits);
                        nf = 0;
                    }
                    fallback[nf++] = (uint32_t)k;
                }
            }
            pthread_rwlock_unlock(&s->lock);
        }
        i = j;
    }
    if (nf)
        raster_cast_some(s->embree, rays, fallback, nf, hits);
    if (s->has_spheres)
        raster_add_spheres(s->embree, rays, begin, count, hits);
}

const lsim_engine_ops lsim_engine_raster = {"raster", raster_create, raster_set_frame_time, raster_intersect,
                                            raster_occluded, raster_destroy};
